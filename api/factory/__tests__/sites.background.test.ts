// `serve` advances the syncs it starts by itself: with background syncs enabled (as `serve` enables them), a sync
// started over HTTP reaches `done` while the caller only reads its status, never asking for another slice.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inProcessDispatcher } from '../../../lib/dispatch/in-process.js';
import { startSitesApi, type SitesApi } from './sites-api-fixture.js';

describe('syncs advanced in the background by a long-lived server', () => {
  let api: SitesApi;
  let background: { stop(): Promise<void> };

  beforeAll(async () => {
    api = await startSitesApi({ name: 'inv_bg', token: 'background-token', pages: 3_000 });
    // As `serve` on PGlite drives its syncs (on Postgres it would start a pg-boss worker: its own tests cover that).
    background = api.service().slices.use(inProcessDispatcher());
    // Slow children: the first slice cannot finish the site, so only the background can.
    api.site.delayMs = 150;
  });
  afterAll(async () => {
    await background?.stop();
    await api?.close();
  });

  it('takes a sync started with one short slice to done while the caller only polls its status', { timeout: 120_000 }, async () => {
    expect((await api.post('/api/factory/sites', { rootUrl: api.site.rootUrl, siteId: 'bg', options: { concurrency: 1 } })).status).toBe(201);
    const start = await api.post('/api/factory/sites/bg/sync', { budgetMs: 100 });
    expect(start.status).toBe(201);
    let sync = (await start.json()) as { syncId: string; state: string; seen: number };
    expect(sync.state).toBe('running');
    for (let polls = 0; sync.state === 'running' && polls < 400; polls += 1) {
      await sleep(250);
      sync = (await (await api.call(`/api/factory/sites/bg/syncs/${sync.syncId}`)).json()) as typeof sync;
    }
    expect(sync).toMatchObject({ state: 'done', seen: 3_000 });
  });
});
