import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import * as undici from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLoopbackServer, routeTable, type LoopbackServer } from '../../../demo/loopback-server.js';
import { Agent, buildConnector, loadProxyAgent, request } from '../undici-parts.js';

const FIXTURE = fileURLToPath(new URL('./undici-parts.fixture.ts', import.meta.url));
const RUN_TS = fileURLToPath(new URL('../../../../bin/run-ts.mjs', import.meta.url));

// The parts are undici's internal files: an undici upgrade that moves or changes one must fail here, not in a walk.
describe('the undici parts the fetch layer loads one by one', () => {
  let server: LoopbackServer;
  beforeAll(async () => {
    server = await startLoopbackServer(routeTable({ '/hello.txt': { body: 'hello' } }));
  });
  afterAll(async () => {
    await server.close();
  });

  it('are the very classes and functions undici exports', async () => {
    expect(Agent).toBe(undici.Agent);
    expect(buildConnector).toBe(undici.buildConnector);
    expect(await loadProxyAgent()).toEqual({ ProxyAgent: undici.ProxyAgent, Pool: undici.Pool });
  });

  it('send a request through an agent as dispatcher.request does', async () => {
    const agent = new Agent();
    try {
      const response = await request(agent, { origin: server.origin, path: '/hello.txt', method: 'GET' });
      expect(response.statusCode).toBe(200);
      expect(await response.body.text()).toBe('hello');
    } finally {
      await agent.close();
    }
  });

  it("leave undici's index, and everything it loads, out of a process that walks", async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [RUN_TS, FIXTURE]);
    const loaded = (JSON.parse(stdout) as string[]).map((path) => path.slice(path.lastIndexOf('/node_modules/undici/') + '/node_modules/undici/'.length));
    expect(loaded).toContain('lib/dispatcher/agent.js');
    expect(loaded).not.toContain('index.js');
    expect(loaded.filter((path) => path.startsWith('lib/web/fetch/'))).toEqual([]);
  }, 30_000);
});
