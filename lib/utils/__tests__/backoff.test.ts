import { describe, expect, it } from 'vitest';
import { backoffDelayMs } from '../backoff.js';

describe('backoffDelayMs', () => {
  it('doubles from the base per retry and stops at the cap', () => {
    const policy = { baseDelayMs: 50, maxDelayMs: 1_000 };
    expect([1, 2, 3, 4, 5, 6, 7].map((attempt) => backoffDelayMs(policy, attempt))).toEqual([50, 100, 200, 400, 800, 1_000, 1_000]);
  });

  it('grows by another factor when asked (a sitemap retried: 200 ms, then 800 ms)', () => {
    expect([1, 2].map((attempt) => backoffDelayMs({ baseDelayMs: 200, maxDelayMs: Infinity, growth: 4 }, attempt))).toEqual([200, 800]);
  });
});
