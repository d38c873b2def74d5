// SIGTERM/SIGINT during `job run` and `walk`: the CLI's handlers are on `process`, so emitting the signal in this
// process reaches them exactly as a real one would (without killing the test runner).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLoopbackServer, type LoopbackServer } from '../../lib/demo/loopback-server.js';
import { slowUrlset } from '../../lib/factory/jobs/__tests__/small-sites.js';
import { runMain } from '../../test/helpers/run-cli.js';

const PAGES = 50_000;

describe('signals', () => {
  let site: LoopbackServer;
  // Armed by a test: the signal goes out `afterMs` after the sitemap's request arrives (module loading takes a while).
  let armed: { signal: NodeJS.Signals; afterMs: number } | null = null;
  beforeAll(async () => {
    // 50,000 URLs dripped over about 10 s: the signal always lands mid-read.
    site = await startLoopbackServer((request) => {
      if (request.url !== '/slow.xml') return null;
      const shot = armed;
      armed = null;
      if (shot) setTimeout(() => process.emit(shot.signal, shot.signal), shot.afterMs);
      return slowUrlset(site.origin, PAGES, 100, 100);
    });
  });
  afterAll(async () => site?.close());

  /** Emits `signal` once the sitemap has been streaming for `afterMs`. */
  function signalAfter(signal: NodeJS.Signals, afterMs: number): void {
    armed = { signal, afterMs };
  }

  it('job run: SIGTERM commits what was read, says how to resume and exits 0 with the job still running', { timeout: 60_000 }, async () => {
    signalAfter('SIGTERM', 2_500);
    const run = await runMain(['job', 'run', `${site.origin}/slow.xml`, '--store', 'memory', '--allow-private', '--budget', '250']);
    expect(run.code, run.stderr + run.stdout).toBe(0);
    expect(run.stderr).toMatch(/continue with --resume [A-Za-z0-9_-]{22}/);
    const status = JSON.parse(run.stdout) as { state: string; urlsFound: number };
    expect(status.state).toBe('running');
    expect(status.urlsFound).toBeGreaterThan(0);
    expect(status.urlsFound).toBeLessThan(PAGES);
  });

  it('walk: SIGINT prints the summary of what was walked and exits 130', { timeout: 60_000 }, async () => {
    signalAfter('SIGINT', 1_500);
    const run = await runMain(['walk', `${site.origin}/slow.xml`, '--allow-private', '--summary']);
    expect(run.code).toBe(130);
    const printed = run.stdout.split('\n').filter(Boolean).length;
    expect(printed).toBeGreaterThan(0);
    expect(printed).toBeLessThan(PAGES);
    expect(run.stderr).toMatch(/walked [\d,]+ URLs/);
  });
});
