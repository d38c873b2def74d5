import type { IncomingMessage } from 'node:http';
import { createLogger } from '../utils/logger.js';
import { indexChunks, leafChunks, robotsText } from './demo-bodies.js';
import { expectationOf, type DemoSiteExpectation } from './demo-expectation.js';
import { buildDemoPlan, type DemoNode, type DemoPlan } from './demo-plan.js';
import { startLoopbackServer, type LoopbackServer, type RouteResolver } from './loopback-server.js';
import { sendStreamed, type StreamedBody } from './wire.js';

/** The ground-truth types, re-exported so callers need one import. */
export type { DemoSiteExpectation, DemoWalkExpectation } from './demo-expectation.js';

const log = createLogger('demo:site');

/** Size of the demo site: `scale` 1 is about 100,000 page URLs, 0.01 about 1,000 (tests); at most 20. */
export interface DemoSiteOptions {
  scale?: number;
  /** Port to listen on; a free one by default. */
  port?: number;
}

/** A running demo site: the loopback server plus where to start and what a correct walk finds. */
export type DemoSite = LoopbackServer & { rootUrl: string; rootIndexUrl: string; expectation: DemoSiteExpectation };

const HOME_PAGE = '<!doctype html><title>Crawler Factory demo</title><h1>Crawler Factory demo site</h1><p>See /robots.txt.</p>\n';

/** The ground truth for a demo site of `scale` served at `origin` (default: a placeholder origin for counts only). */
export function demoSiteExpectation(options: { scale?: number; origin?: string } = {}): DemoSiteExpectation {
  return expectationOf(buildDemoPlan(options.scale ?? 1), options.origin ?? 'http://127.0.0.1');
}

// Sites answer with absolute URLs on the host they were asked for, as real virtual hosts do.
function originOf(request: IncomingMessage): string {
  return `http://${request.headers.host ?? '127.0.0.1'}`;
}

// Trailing slashes are ignored so a cycle spelled `/index.xml/` really is a cycle if a walker follows it.
function lookup(plan: DemoPlan, url: string): DemoNode | undefined {
  const path = new URL(url, 'http://x').pathname;
  return plan.nodes.get(path.length > 1 ? path.replace(/\/+$/, '') : path);
}

function bodyOf(origin: string, node: Exclude<DemoNode, { kind: 'missing' }>): StreamedBody {
  const contentType = node.kind === 'index' ? 'application/xml' : contentTypeOf(node.kind);
  const chunks = node.kind === 'index' ? () => indexChunks(origin, node) : () => leafChunks(origin, node);
  return { contentType, encoding: node.encoding, chunks };
}

function contentTypeOf(kind: string): string {
  if (kind === 'text') return 'text/plain; charset=utf-8';
  if (kind === 'rss') return 'application/rss+xml';
  if (kind === 'atom') return 'application/atom+xml';
  return 'application/xml; charset=utf-8';
}

/** The route resolver of a demo site: robots.txt, a home page, and the sitemap tree generated per request. */
export function demoSiteResolver(plan: DemoPlan): RouteResolver {
  return async (request, response) => {
    const origin = originOf(request);
    const url = request.url ?? '/';
    if (url === '/robots.txt') return { headers: { 'content-type': 'text/plain; charset=utf-8' }, body: robotsText(origin, plan) };
    if (url === '/') return { headers: { 'content-type': 'text/html; charset=utf-8' }, body: HOME_PAGE };
    const node = lookup(plan, url);
    if (!node) return null;
    if (node.kind === 'missing') return { status: 404, headers: { 'content-type': 'application/xml' }, body: '<?xml version="1.0"?><error>gone</error>\n' };
    await sendStreamed(request, response, bodyOf(origin, node));
    return 'handled';
  };
}

/** Serves the demo site on 127.0.0.1; `rootUrl` is the site root (discovery starts there). */
export async function startDemoSite(options: DemoSiteOptions = {}): Promise<DemoSite> {
  const plan = buildDemoPlan(options.scale ?? 1);
  const server = await startLoopbackServer(demoSiteResolver(plan), options.port ?? 0);
  const expectation = expectationOf(plan, server.origin);
  log.info({ event: 'demo_site_started', origin: server.origin, scale: plan.scale, pageUrls: expectation.all.pageUrls }, 'demo site listening');
  return { ...server, rootUrl: `${server.origin}/`, rootIndexUrl: expectation.rootIndexUrl, expectation };
}
