import { describe, expect, it } from 'vitest';
import { SliceClock } from '../slice-clock.js';

describe('SliceClock', () => {
  it('says stop once the soft deadline passed, even while a busy event loop kept its timer from firing', () => {
    const clock = new SliceClock({ budgetMs: 60, reserveMs: 10 });
    const until = Date.now() + 80;
    while (Date.now() < until); // parsing that holds the loop: the timer cannot run
    expect(clock.stopping).toBe(true);
    expect(clock.ending).toBe(true);
    expect(clock.signal.aborted).toBe(true);
    clock.dispose();
  });

  it('does not stop early', () => {
    const clock = new SliceClock({ budgetMs: 10_000, reserveMs: 1_000 });
    expect(clock.stopping).toBe(false);
    clock.dispose();
  });

  it('stops claiming at the budget but lets work in flight run on until the hard limit', () => {
    const clock = new SliceClock({ budgetMs: 60, reserveMs: 10, hardLimitMs: 10_000 });
    const until = Date.now() + 80;
    while (Date.now() < until);
    expect(clock.stopping).toBe(true);
    expect(clock.claimSignal.aborted).toBe(true);
    expect(clock.ending).toBe(false);
    expect(clock.signal.aborted).toBe(false);
    clock.dispose();
  });

  it('tells the hard limit from the caller aborting', () => {
    const controller = new AbortController();
    const clock = new SliceClock({ budgetMs: 10_000, reserveMs: 10, hardLimitMs: 20_000, signal: controller.signal });
    controller.abort(new Error('shutdown'));
    expect(clock.ending).toBe(true);
    expect(clock.expired).toBe(false);
    clock.dispose();
  });
});
