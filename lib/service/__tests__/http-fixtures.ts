// Helpers shared by the handler, `serve` and orchestrator tests: requests, the error contract, ground truth, Redis probes.
import { setTimeout as sleep } from 'node:timers/promises';
import { createClient } from 'redis';
import { expect } from 'vitest';
import { z } from 'zod';
import { expectationOf } from '../../demo/demo-expectation.js';
import { buildDemoPlan } from '../../demo/demo-plan.js';
import { demoSiteResolver, type DemoSite } from '../../demo/demo-site.js';
import { startLoopbackServer } from '../../demo/loopback-server.js';
import { ERROR_KINDS, type ErrorKind } from '../../core/errors.js';
import { walkSitemap } from '../../factory/sitemap.js';
import { JobStatusSchema, type JobStatus } from '../../core/types.js';

/** The contract's error body, exactly: `{"error": {"kind", "message", "url"?}}` and nothing else. */
export const ErrorBodySchema = z
  .object({ error: z.object({ kind: z.enum(ERROR_KINDS), message: z.string().min(1), url: z.string().optional() }).strict() })
  .strict();

/** A shard read: `{"jobId", "shard", "urls"}`. */
export const ShardBodySchema = z.object({ jobId: z.string(), shard: z.number().int().nonnegative(), urls: z.array(z.string()) }).strict();

/** A POST with a JSON body (a string is sent as is, so tests can send broken JSON). */
export function postRequest(path: string, body: unknown, headers: Record<string, string> = {}): Request {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return new Request(`http://localhost${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: text });
}

/** A GET with query parameters (encoded as a browser would). */
export function getRequest(path: string, query: Record<string, string | number>, headers: Record<string, string> = {}): Request {
  const url = new URL(`http://localhost${path}`);
  for (const [name, value] of Object.entries(query)) url.searchParams.set(name, String(value));
  return new Request(url, { headers });
}

/** Asserts a response is the contract's JSON error of `kind` with `status`; returns the parsed body. */
export async function expectError(response: Response, status: number, kind: ErrorKind): Promise<z.infer<typeof ErrorBodySchema>> {
  const text = await response.text();
  expect(response.headers.get('content-type'), text).toMatch(/^application\/json/);
  const body = ErrorBodySchema.parse(JSON.parse(text));
  expect({ status: response.status, kind: body.error.kind }, text).toEqual({ status, kind });
  return body;
}

/** Asserts a JSON JobStatus with `status`; returns it. */
export async function expectStatus(response: Response, status: number): Promise<JobStatus> {
  const text = await response.text();
  expect(response.status, text).toBe(status);
  return JobStatusSchema.parse(JSON.parse(text));
}

/** Every page URL of the demo site, by walking its robots.txt sitemaps with the engine (counts checked against the plan). */
export async function demoGroundTruth(site: DemoSite): Promise<Set<string>> {
  const urls = new Set<string>();
  for (const sitemap of site.expectation.robotsSitemaps) {
    for await (const batch of walkSitemap(sitemap, { net: { allowPrivate: true } })) batch.forEach((url) => urls.add(url));
  }
  expect(urls.size).toBe(site.expectation.all.pageUrls);
  return urls;
}

/** The demo site with an adjustable pause before every answer, so a job lasts long enough to be interrupted. */
export type SlowDemoSite = DemoSite & { setDelay(ms: number): void };

/** Serves the demo site at `scale` on 127.0.0.1 with no delay until `setDelay` says otherwise. */
export async function startSlowDemoSite(scale: number): Promise<SlowDemoSite> {
  const plan = buildDemoPlan(scale);
  const resolve = demoSiteResolver(plan);
  let delayMs = 0;
  const server = await startLoopbackServer(async (request, response) => {
    if (delayMs > 0) await sleep(delayMs);
    return resolve(request, response);
  });
  const expectation = expectationOf(plan, server.origin);
  return { ...server, rootUrl: `${server.origin}/`, rootIndexUrl: expectation.rootIndexUrl, expectation, setDelay: (ms) => (delayMs = ms) };
}

/** Asserts that `urls` (every URL of every shard, in order) holds each URL of `truth` exactly once and nothing else. */
export function expectExactlyOnce(urls: readonly string[], truth: ReadonlySet<string>): void {
  const seen = new Set(urls);
  expect(urls.length - seen.size, 'duplicated URLs').toBe(0);
  expect(
    [...truth].filter((url) => !seen.has(url)),
    'lost URLs',
  ).toEqual([]);
  expect(
    [...seen].filter((url) => !truth.has(url)),
    'foreign URLs',
  ).toEqual([]);
}

// Commands our own probe sends, and connection handshakes: not "touching" the store.
const PROBE_COMMANDS = new Set(['info', 'scan', 'dbsize', 'config', 'hello', 'client', 'select', 'ping']);

/** Looks at a Redis from outside (no MONITOR): its keys, and how many data commands it has served. */
export interface RedisProbe {
  keys(): Promise<string[]>;
  /** Calls of every command except the probe's own and connection handshakes, from INFO commandstats. */
  dataCommands(): Promise<number>;
  close(): Promise<void>;
}

/** Opens a probe on the Redis at `url`. */
export async function openRedisProbe(url: string): Promise<RedisProbe> {
  const client = createClient({ url });
  await client.connect();
  return {
    keys: async () => {
      const keys: string[] = [];
      for await (const page of client.scanIterator({ COUNT: 1000 })) keys.push(...page);
      return keys.sort();
    },
    dataCommands: async () => {
      const stats = await client.info('commandstats');
      let calls = 0;
      for (const match of stats.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
        if (!PROBE_COMMANDS.has((match[1] ?? '').split('|')[0] ?? '')) calls += Number(match[2]);
      }
      return calls;
    },
    close: async () => void (await client.quit()),
  };
}
