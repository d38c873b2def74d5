// The built bin against static servers nobody here wrote: Python's http.server (HTTP/1.0, the connection closed after
// every response) and nginx with and without keep-alive, read by a consumer slower than the network (a paused pipe,
// an inventory). A server closing its connection while undici's parser is paused by back-pressure used to end the
// process with an uncatchable AssertionError (lib/factory/fetch/paused-parser-guard.ts).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuildCurrent, BUILT_BIN, postSites, startServe, syncWhenEnded } from '../../lib/service/__tests__/serve-process.js';
import { freePort } from '../../test/helpers/redis-server.js';
import { startNginx, startPythonHttpServer, staticSitemapSite, type StaticServer, type StaticSite } from '../../test/helpers/static-servers.js';
import { runCliIn, startCli, type SyncRow } from './cli-process.js';

const CHILDREN = 4;
const PER_CHILD = 5_000;
const PAGES = CHILDREN * PER_CHILD;

const servers: Record<string, (root: string) => Promise<StaticServer>> = {
  "python's http.server": startPythonHttpServer,
  'nginx, keepalive_timeout 0': (root) => startNginx(root, { keepAlive: false }),
  'nginx with keep-alive': (root) => startNginx(root, { keepAlive: true }),
};

describe.each(Object.entries(servers))('the built bin against %s', (_name, start) => {
  let site: StaticSite;
  let server: StaticServer;
  let cwd: string;
  beforeAll(async () => {
    assertBuildCurrent();
    site = await staticSitemapSite(CHILDREN, PER_CHILD);
    server = await start(site.root);
    await site.write(server.origin);
    cwd = await mkdtemp(join(tmpdir(), 'cli-real-servers-'));
  });
  afterAll(async () => {
    await server?.close();
    await site?.remove();
    await rm(cwd, { recursive: true, force: true });
  });

  it('walks every URL into a reader that pauses after each chunk, and exits 0', { timeout: 120_000 }, async () => {
    const run = startCli(['walk', `${server.origin}/`, '--allow-private', '--format', 'ndjson'], { cwd });
    const stdout = run.child.stdout;
    stdout?.on('data', () => {
      stdout.pause();
      setTimeout(() => stdout.resume(), 15);
    });
    const { code } = await run.exited;
    expect(code, run.stderr()).toBe(0);
    const lines = run
      .stdout()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; errors?: number });
    expect(lines.filter((line) => line.type === 'url')).toHaveLength(PAGES);
    expect(lines.at(-1)).toMatchObject({ type: 'summary', errors: 0 });
  });

  it('syncs every URL into a PGlite inventory', { timeout: 180_000 }, async () => {
    const run = await runCliIn(['sync', `${server.origin}/`, '--site', 'static', '--db', join(cwd, 'db'), '--allow-private'], {
      cwd,
      env: { DATABASE_URL: '' },
    });
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout) as SyncRow).toMatchObject({ state: 'done', new: PAGES, errors: {} });
  });

  it('runs a job to done with every URL', { timeout: 120_000 }, async () => {
    const run = await runCliIn(['job', 'run', `${server.origin}/`, '--allow-private', '--store', 'memory'], { cwd });
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ state: 'done', urlsFound: PAGES, errors: [] });
  });

  it("syncs every URL through serve's API", { timeout: 180_000 }, async () => {
    const serve = await startServe({
      port: await freePort(),
      bin: BUILT_BIN,
      cwd,
      args: ['--db', join(cwd, 'serve-db'), '--allow-private'],
      env: { DATABASE_URL: '' },
    });
    try {
      expect((await postSites(serve.origin, '', { rootUrl: `${server.origin}/`, siteId: 'served' })).status).toBe(201);
      const started = (await (await postSites(serve.origin, '/served/sync', {})).json()) as SyncRow;
      expect(await syncWhenEnded(serve.origin, 'served', started.syncId, 120_000)).toMatchObject({ state: 'done', new: PAGES });
    } finally {
      expect(await serve.stop('SIGTERM')).toBe(0);
    }
  });
});
