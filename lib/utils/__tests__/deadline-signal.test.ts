import { runInNewContext } from 'node:vm';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { setFlagsFromString } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { deadlineSignal } from '../deadline-signal.js';

// Full collections on demand, without a config change: `--expose-gc` set at run time reaches a new context.
function exposedGc(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

describe('deadlineSignal', () => {
  it('aborts at its deadline even when collections run while it waits', async () => {
    const gc = exposedGc();
    const signal = deadlineSignal(new AbortController().signal, 100);
    const startedAt = Date.now();
    while (!signal.aborted && Date.now() - startedAt < 3_000) {
      gc();
      await nextTurn();
    }
    expect(signal.aborted).toBe(true);
    expect((signal.reason as DOMException).name).toBe('TimeoutError');
    expect(Date.now() - startedAt).toBeLessThan(1_500);
  });

  it('aborts with its parent, with the parent’s reason, before the deadline', () => {
    const parent = new AbortController();
    const signal = deadlineSignal(parent.signal, 60_000);
    expect(signal.aborted).toBe(false);
    parent.abort(new Error('client went away'));
    expect(signal.aborted).toBe(true);
    expect((signal.reason as Error).message).toBe('client went away');
  });
});
