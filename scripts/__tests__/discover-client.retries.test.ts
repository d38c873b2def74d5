// The orchestrator's client: which failures it rides out and which it gives back, with a scripted fetch.
import { describe, expect, it } from 'vitest';
import { DiscoverApiError, DiscoverClient } from '../discover-client.js';

const STATUS = {
  jobId: 'A'.repeat(22),
  state: 'running',
  done: false,
  urlsFound: 0,
  shardsWritten: 0,
  sitemapsDone: 0,
  sitemapsPending: 1,
  errors: [],
  startedAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
};

type Step = Response | Error;
const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
const refused = () => new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }) });
const reset = () => new TypeError('fetch failed', { cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }) });

/** A client whose fetch plays `steps` in order and records what it was asked. */
function scripted(steps: Step[], token: string | null = null) {
  const calls: Array<{ url: string; init: RequestInit | undefined }> = [];
  const fetchStub = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    calls.push({ url: String(input), init });
    const step = steps.shift();
    if (!step) throw new Error('no more scripted answers');
    if (step instanceof Error) throw step;
    return step;
  };
  const client = new DiscoverClient({ api: 'http://api.test', token, fetch: fetchStub as typeof fetch, retry: { baseDelayMs: 1, maxDelayMs: 2, attempts: 5 } });
  return { client, calls };
}

describe('DiscoverClient retries', () => {
  it('rides out refused and reset connections and 5xx answers on continue, counting the retries', async () => {
    const { client, calls } = scripted([refused(), reset(), json({ error: { kind: 'fetch_failed', message: 'store down' } }, 502), json(STATUS)]);
    expect((await client.next(STATUS.jobId, 500)).jobId).toBe(STATUS.jobId);
    expect(client.retries).toBe(3);
    expect(calls).toHaveLength(4);
    expect(JSON.parse(String(calls[0]?.init?.body))).toEqual({ jobId: STATUS.jobId, budgetMs: 500 });
  });

  it('retries a start lost on the way with the same Idempotency-Key, so the server gives back the job the first try made', async () => {
    const lost = scripted([refused(), reset(), json(STATUS, 200)]);
    expect((await lost.client.start({ rootUrl: 'https://example.com/' })).jobId).toBe(STATUS.jobId);
    expect(lost.client.retries).toBe(2);
    const keys = lost.calls.map((call) => new Headers(call.init?.headers).get('idempotency-key'));
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set(keys).size).toBe(1);
    // Each start is a new job: a new key.
    const again = scripted([json(STATUS, 201)]);
    await again.client.start({ rootUrl: 'https://example.com/' });
    expect(new Headers(again.calls[0]?.init?.headers).get('idempotency-key')).not.toBe(keys[0]);
  });

  it('rides out 503 store_unavailable, but gives a 500 config back at once (the deployment must be fixed)', async () => {
    const busy = scripted([json({ error: { kind: 'store_unavailable', message: 'job store busy (OOM)' } }, 503), json(STATUS)]);
    expect((await busy.client.status(STATUS.jobId)).jobId).toBe(STATUS.jobId);
    expect(busy.client.retries).toBe(1);
    const misconfigured = scripted([json({ error: { kind: 'config', message: 'FACTORY_JOB_TTL_MS: expected a whole number' } }, 500), json(STATUS)]);
    await expect(misconfigured.client.status(STATUS.jobId)).rejects.toMatchObject({ status: 500, kind: 'config' });
    expect(misconfigured.calls).toHaveLength(1);
  });

  it('gives a 4xx back at once as a DiscoverApiError with the contract kind', async () => {
    const { client, calls } = scripted([json({ error: { kind: 'not_found', message: 'no such job' } }, 404)]);
    const error = await client.status(STATUS.jobId).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DiscoverApiError);
    expect(error).toMatchObject({ status: 404, kind: 'not_found' });
    expect(calls).toHaveLength(1);
  });

  it("stops retrying after the policy's attempts", async () => {
    const { client, calls } = scripted(Array.from({ length: 10 }, refused));
    await expect(client.next(STATUS.jobId)).rejects.toThrow(/ECONNREFUSED/);
    expect(calls).toHaveLength(5);
  });

  it('sends the bearer token and reads shards', async () => {
    const { client, calls } = scripted([json({ jobId: STATUS.jobId, shard: 3, urls: ['https://example.com/a'] })], 'secret');
    expect(await client.shard(STATUS.jobId, 3)).toEqual(['https://example.com/a']);
    expect(calls[0]?.url).toBe(`http://api.test/api/factory/discover?jobId=${STATUS.jobId}&shard=3`);
    expect(new Headers(calls[0]?.init?.headers).get('authorization')).toBe('Bearer secret');
  });
});
