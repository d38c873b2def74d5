import { describe, expect, it } from 'vitest';
import { connectRedisJobStore } from '../open-job-store.js';

describe('a Redis that is not there', () => {
  it('is refused within seconds as an unavailable store, instead of hanging', async () => {
    const started = Date.now();
    await expect(connectRedisJobStore('redis://127.0.0.1:1')).rejects.toMatchObject({ kind: 'store_unavailable' });
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
