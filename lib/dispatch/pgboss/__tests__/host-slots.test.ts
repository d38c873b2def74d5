// The per-host cap across workers, on the real Postgres: HostSlots instances stand for worker processes (each has its
// own pool, as each worker does). Two slots of a host are shared by every worker; a third slice is `busy` until one
// ends; another host, or another inventory's scope, is not held back; and a worker killed with a slot held frees it at
// once (its connection goes, and Postgres drops its session locks).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { TEST_DATABASE_URL } from '../../../inventory/__tests__/inventory-fixtures.js';
import { HostSlots } from '../host-slots.js';

const RUN_TS = fileURLToPath(new URL('../../../../bin/run-ts.mjs', import.meta.url));
const HOLDER = fileURLToPath(new URL('./hold-host-slots.ts', import.meta.url));
const SCOPE = `host-slots-test-${process.pid}-${Date.now()}`;

describe('host slots shared by every worker on one database', () => {
  const opened: HostSlots[] = [];
  const worker = (scope = SCOPE) => {
    const slots = new HostSlots(TEST_DATABASE_URL, scope, 2, 2);
    opened.push(slots);
    return slots;
  };
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((slots) => slots.close()));
  });

  // Holds a slot of `host` until `release` is called; resolves `held` once the work runs.
  const holdSlot = (slots: HostSlots, host: string) => {
    let release = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    let started = () => {};
    const held = new Promise<void>((resolve) => (started = resolve));
    const outcome = slots.withSlot(host, async () => {
      started();
      await gate;
      return host;
    });
    return { held, release, outcome };
  };

  it('lets two slices of a host run across workers, answers busy to a third, and frees the slot when one ends', async () => {
    const [a, b, c] = [worker(), worker(), worker()];
    const first = holdSlot(a, 'site.test:8080');
    await first.held;
    const second = holdSlot(b, 'site.test:8080');
    await second.held;
    let ran = false;
    expect(await c.withSlot('site.test:8080', async () => (ran = true))).toEqual({ ran: false });
    expect(ran).toBe(false);
    // Another host, and the same host in another inventory's scope, have slots of their own.
    expect(await c.withSlot('other.test', async () => 'other')).toEqual({ ran: true, value: 'other' });
    expect(await worker(`${SCOPE}-other`).withSlot('site.test:8080', async () => 'scoped')).toEqual({ ran: true, value: 'scoped' });
    first.release();
    expect(await first.outcome).toEqual({ ran: true, value: 'site.test:8080' });
    expect(await c.withSlot('site.test:8080', async () => 'third')).toEqual({ ran: true, value: 'third' });
    second.release();
    await second.outcome;
  });

  it('gives the slot back when the work throws, and throws the work error', async () => {
    const slots = worker();
    await expect(slots.withSlot('throws.test', async () => Promise.reject(new Error('slice failed')))).rejects.toThrow('slice failed');
    const [x, y] = [holdSlot(worker(), 'throws.test'), holdSlot(worker(), 'throws.test')];
    await Promise.all([x.held, y.held]);
    x.release();
    y.release();
    await Promise.all([x.outcome, y.outcome]);
  });

  it('frees the slots of a worker killed while it holds them', { timeout: 30_000 }, async () => {
    // A worker process takes both slots of the host, says so, and waits to be killed.
    const child = spawn(process.execPath, [RUN_TS, HOLDER, TEST_DATABASE_URL, SCOPE, 'killed.test'], { stdio: ['ignore', 'pipe', 'inherit'] });
    await once(child.stdout, 'data');
    const slots = worker();
    expect(await slots.withSlot('killed.test', async () => 'too soon')).toEqual({ ran: false });
    child.kill('SIGKILL');
    await once(child, 'exit');
    let outcome = await slots.withSlot('killed.test', async () => 'after the kill');
    // Postgres notices the closed connection within moments; no lease has to run out.
    for (let tries = 0; !outcome.ran && tries < 50; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      outcome = await slots.withSlot('killed.test', async () => 'after the kill');
    }
    expect(outcome).toEqual({ ran: true, value: 'after the kill' });
  });
});
