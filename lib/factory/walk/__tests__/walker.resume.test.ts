import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLoopbackServer, routeTable, type CannedResponse, type LoopbackServer } from '../../../demo/loopback-server.js';
import { resolveWalkOptions } from '../../../core/limits.js';
import { createUrlMapper } from '../../sitemap.js';
import { WalkStateSchema, type WalkState } from '../../../core/types.js';
import { SitemapWalk } from '../walker.js';
import { indexXml, pageUrls, urlsetXml } from '../../../../test/helpers/sitemap-xml.js';

let server: LoopbackServer;
let truth: string[];

beforeAll(async () => {
  let routes: Record<string, CannedResponse> = {};
  server = await startLoopbackServer((request, response) => routeTable(routes)(request, response));
  const origin = server.origin;
  const sizes = [2500, 1, 0, 1999, 3001, 700];
  const children = sizes.map((size, index) => ({ path: index % 2 ? `/c${index}.xml.gz` : `/c${index}.xml`, urls: pageUrls(origin, size, `c${index}`) }));
  routes = {
    '/index.xml': { body: indexXml([...children.slice(0, 3).map((child) => origin + child.path), `${origin}/nested.xml`]) },
    '/nested.xml': { body: indexXml([...children.slice(3).map((child) => origin + child.path), `${origin}/index.xml`]) },
    ...Object.fromEntries(
      children.map((child) => [child.path, { body: child.path.endsWith('.gz') ? gzipSync(urlsetXml(child.urls)) : urlsetXml(child.urls) }]),
    ),
  };
  truth = children.flatMap((child) => child.urls).sort();
});
afterAll(async () => server.close());

const options = resolveWalkOptions({ net: { allowPrivate: true }, concurrency: 3 });

/** Runs a walk until `stopAfter` batches, returning the URLs it yielded and its saved state (null when it finished). */
async function runUntil(start: { roots: string[] } | { state: WalkState }, stopAfter: number) {
  const walk = new SitemapWalk(options, start, { createMapper: createUrlMapper });
  const urls: string[] = [];
  let batches = 0;
  for await (const event of walk.events()) {
    if (event.type !== 'batch') continue;
    urls.push(...event.items);
    batches += 1;
    if (batches === stopAfter) return { urls, state: WalkStateSchema.parse(JSON.parse(JSON.stringify(walk.state()))) };
  }
  return { urls, state: null };
}

describe('resuming a walk from a saved state', () => {
  it('yields every URL exactly once when stopped after every batch', async () => {
    const seen: string[] = [];
    let step = await runUntil({ roots: [server.url('/index.xml')] }, 1);
    seen.push(...step.urls);
    while (step.state) {
      step = await runUntil({ state: step.state }, 1);
      seen.push(...step.urls);
    }
    expect(seen.sort()).toEqual(truth);
  });

  it('yields every URL exactly once for any sequence of stop points (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 12 }), async (stops) => {
        const seen: string[] = [];
        let step = await runUntil({ roots: [server.url('/index.xml')] }, stops[0] ?? 1);
        seen.push(...step.urls);
        for (let index = 1; step.state; index += 1) {
          step = await runUntil({ state: step.state }, stops[index % stops.length] ?? 1);
          seen.push(...step.urls);
        }
        expect(seen.sort()).toEqual(truth);
      }),
      { numRuns: 15 },
    );
  });
});

describe('cancelling a walk with its signal', () => {
  it('throws the abort reason, reports no failures, and resumes from state() without losing a URL', async () => {
    const controller = new AbortController();
    const walk = new SitemapWalk(options, { roots: [server.url('/index.xml')] }, { createMapper: createUrlMapper, signal: controller.signal });
    const seen: string[] = [];
    const errors: string[] = [];
    let batches = 0;
    const run = async () => {
      for await (const event of walk.events()) {
        if (event.type === 'error') errors.push(event.kind);
        if (event.type !== 'batch') continue;
        seen.push(...event.items);
        if ((batches += 1) === 2) controller.abort(new Error('operator cancelled'));
      }
    };
    await expect(run()).rejects.toThrow('operator cancelled');
    expect(errors).toEqual([]);
    const rest = await runUntil({ state: WalkStateSchema.parse(JSON.parse(JSON.stringify(walk.state()))) }, Number.POSITIVE_INFINITY);
    expect([...seen, ...rest.urls].sort()).toEqual(truth);
  });
});
