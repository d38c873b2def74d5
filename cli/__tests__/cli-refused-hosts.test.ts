// The built bin refuses, as an argument (exit 2) and before any request, a URL with no written host
// (`http:///etc:PORT/`, which WHATWG reads as host `etc`) and a single-label host the flags did not open.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLoopbackServer, routeTable, type LoopbackServer } from '../../lib/demo/loopback-server.js';
import { BUILT_BIN, runCli } from '../../test/helpers/run-cli.js';

// The built bin, as users run it: the same process and environment as runCli's other callers.
const runBin = (args: string[]) => runCli(args, {}, 60_000, BUILT_BIN);

describe('crawler-factory refuses hosts that cannot be a public site', () => {
  let server: LoopbackServer;
  let pin: string[];
  beforeAll(async () => {
    const urlset = '<urlset><url><loc>http://a.example/1</loc></url></urlset>';
    server = await startLoopbackServer(routeTable({ '/robots.txt': { body: 'Sitemap: /x.xml\n' }, '/x.xml': { body: urlset } }));
    // The name `etc` pinned to the server: were the missing authority not refused, these runs would reach it.
    pin = ['--resolve', `etc:${server.port}:127.0.0.1`, '--allow-private', '--timeout', '2000'];
  });
  afterAll(() => server.close());

  it.each([
    ['walk', 'http:///etc:PORT/x.xml'],
    ['walk', 'http:///etc:PORT/'],
    ['discover', 'http:///etc:PORT/'],
    ['estimate', 'http:///etc:PORT/'],
    ['groups', 'http:///etc:PORT/x.xml'],
    ['job', 'run', 'http:///etc:PORT/', '--store', 'memory'],
  ])('%s %s: exit 2, invalid_url, no request', async (...args) => {
    const run = await runBin([...args.map((arg) => arg.replace('PORT', String(server.port))), ...pin]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('invalid_url: no host after http://');
    expect(server.totalRequests()).toBe(0);
  });

  it.each([
    ['walk', 'http://intranet/sitemap.xml'],
    ['discover', 'http://intranet/'],
    ['estimate', 'https://etc/'],
    ['groups', 'http://intranet/'],
    ['job', 'run', 'http://intranet/', '--store', 'memory'],
  ])('%s %s: a single-label host is exit 2, invalid_url', async (...args) => {
    const run = await runBin(args);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/invalid_url: \w+ is a single-label host name/);
    expect(run.stderr).not.toContain('in-memory job store'); // refused before the store is opened
  });

  it('reads the same host once the flags pin it and the URL writes it', async () => {
    const run = await runBin(['walk', `http://etc:${server.port}/x.xml`, ...pin]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('http://a.example/1\n');
    expect(server.hits('/x.xml')).toBe(1);
  });
});
