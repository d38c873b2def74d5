import { describe, expect, it } from 'vitest';
import { readFactoryConfig } from '../../config/factory-config.js';
import { openConfiguredStore } from '../service.js';

const storeOf = async (env: Record<string, string>) => openConfiguredStore(readFactoryConfig(env));

describe('the job store a configuration names', () => {
  it('is memory without Redis configuration, Upstash under either set of names', async () => {
    expect((await storeOf({})).kind).toBe('memory');
    expect((await storeOf({ UPSTASH_REDIS_REST_URL: 'https://x.example', UPSTASH_REDIS_REST_TOKEN: 't' })).kind).toBe('upstash');
    expect((await storeOf({ KV_REST_API_URL: 'https://x.example', KV_REST_API_TOKEN: 't' })).kind).toBe('upstash');
  });

  it('refuses half a store configuration instead of falling back to memory', async () => {
    await expect(storeOf({ UPSTASH_REDIS_REST_URL: 'https://x.example' })).rejects.toMatchObject({ kind: 'config', variable: 'UPSTASH_REDIS_REST_TOKEN' });
    await expect(storeOf({ KV_REST_API_TOKEN: 't' })).rejects.toMatchObject({ kind: 'config', variable: 'KV_REST_API_URL' });
  });
});
