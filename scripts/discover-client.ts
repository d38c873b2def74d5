import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { JobStatusSchema, type JobStatus } from '../lib/core/types.js';
import { SLICE_HARD_LIMIT_MS } from '../lib/service/api-limits.js';
import type { CallerOptions } from '../lib/core/limits.js';
import { backoffDelayMs, type RetryPolicy } from '../lib/utils/backoff.js';

/** Answers worth another try: the server is restarting, overloaded, or lost the call. 4xx answers are final. */
const RETRYABLE_STATUSES = new Set([
  408, // Request Timeout
  429, // Too Many Requests
  500, // Internal Server Error: the invocation crashed
  502, // Bad Gateway: the store (or the platform) was unreachable
  503, // Service Unavailable
  504, // Gateway Timeout: the function ran past its maxDuration
]);

/** Error kinds given back at once even with a retryable status: the deployment must be fixed first. */
const FINAL_KINDS = new Set(['config']);

/** One retry, for progress output: which call, why, and how long the client waits. */
export interface RetryEvent {
  call: string;
  attempt: number;
  reason: string;
  delayMs: number;
}

/** Where the API lives and how to reach it. */
export interface DiscoverClientOptions {
  /** Origin of the deployment or of `crawler-factory serve`, e.g. `http://127.0.0.1:3000`. */
  api: string;
  token?: string | null;
  /** Consecutive attempts (default 40) and the backoff between them (100 ms doubling to 2 s), half fixed and half random. */
  retry?: Partial<RetryPolicy>;
  onRetry?: (event: RetryEvent) => void;
  fetch?: typeof fetch;
}

/** A final (not retried) refusal from the API, with the contract's error kind. */
export class DiscoverApiError extends Error {
  override name = 'DiscoverApiError' as const;
  constructor(
    readonly status: number,
    readonly kind: string,
    message: string,
  ) {
    super(`${status} ${kind}: ${message}`);
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

const ErrorBodySchema = z.object({ error: z.object({ kind: z.string(), message: z.string() }) });
const ShardSchema = z.object({ jobId: z.string(), shard: z.number().int(), urls: z.array(z.string()) });

/** A failure that may pass: a retryable status, or a connection that failed or timed out. */
class TransientError extends Error {
  override name = 'TransientError' as const;
  constructor(
    message: string,
    /** True when the request certainly never reached the server (nothing can have happened there). */
    readonly undelivered: boolean,
  ) {
    super(message);
  }
}

/** One HTTP exchange: the method, path and body, how long it may take, and whether a delivered retry is safe. */
interface Call {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  body?: unknown;
  timeoutMs: number;
  /** A call that is not idempotent is retried only when the request never reached the server. */
  idempotent: boolean;
  /** Sent as `Idempotency-Key`: makes a start idempotent. */
  idempotencyKey?: string;
}

function connectionCode(error: unknown): string {
  const cause = error instanceof Error ? (error.cause as { code?: unknown } | undefined) : undefined;
  if (typeof cause?.code === 'string') return cause.code;
  return error instanceof Error ? error.name : 'unknown';
}

/** A typed client of the discover API that rides out restarts: connection errors and 5xx are retried with backoff. */
export class DiscoverClient {
  private readonly policy: RetryPolicy;
  private readonly fetch: typeof fetch;
  private retried = 0;

  constructor(private readonly options: DiscoverClientOptions) {
    this.policy = { attempts: 40, baseDelayMs: 100, maxDelayMs: 2_000, ...options.retry };
    this.fetch = options.fetch ?? globalThis.fetch;
  }

  /** Retries so far, over every call. */
  get retries(): number {
    return this.retried;
  }

  /**
   * Starts a job (`201`) and returns the status after its first slice. The start carries a new `Idempotency-Key`, so
   * it is retried like any call: a retry after a lost answer gets the job the first try created, never a second.
   */
  start(input: { rootUrl: string; budgetMs?: number; options?: CallerOptions }): Promise<JobStatus> {
    return this.send({ ...this.discoverPost('start', input, true), idempotencyKey: randomUUID() }, JobStatusSchema);
  }

  /** Runs one more slice of a job. */
  next(jobId: string, budgetMs?: number): Promise<JobStatus> {
    return this.send(this.discoverPost('continue', { jobId, budgetMs }, true), JobStatusSchema);
  }

  /** Gives a stalled job's work its claims back and runs one more slice (with a longer budget, say). */
  retry(jobId: string, budgetMs?: number): Promise<JobStatus> {
    return this.send(this.discoverPost('retry', { jobId, action: 'retry', budgetMs }, true), JobStatusSchema);
  }

  /** Stops a job. */
  stop(jobId: string): Promise<JobStatus> {
    return this.send(this.discoverPost('stop', { jobId, action: 'stop' }, true), JobStatusSchema);
  }

  /** A job's status. */
  status(jobId: string): Promise<JobStatus> {
    const path = `/api/factory/discover?${new URLSearchParams({ jobId })}`;
    return this.send({ name: 'status', method: 'GET', path, timeoutMs: 30_000, idempotent: true }, JobStatusSchema);
  }

  /** The URLs of shard `n`. */
  async shard(jobId: string, n: number): Promise<string[]> {
    const path = `/api/factory/discover?${new URLSearchParams({ jobId, shard: String(n) })}`;
    return (await this.send({ name: `shard ${n}`, method: 'GET', path, timeoutMs: 30_000, idempotent: true }, ShardSchema)).urls;
  }

  // A slice answers within its budget; the extra minute covers the last commit, cold starts and queueing.
  private discoverPost(name: string, body: { budgetMs?: number | undefined; [field: string]: unknown }, idempotent: boolean): Call {
    const timeoutMs = SLICE_HARD_LIMIT_MS + 60_000;
    return { name, method: 'POST', path: '/api/factory/discover', body, timeoutMs, idempotent };
  }

  private async send<S extends z.ZodType>(call: Call, schema: S): Promise<z.output<S>> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return schema.parse(await this.exchange(call));
      } catch (error) {
        if (!(error instanceof TransientError) || attempt >= this.policy.attempts) throw error;
        if (!call.idempotent && !error.undelivered) throw error;
        await this.backoff(call, attempt, error.message);
      }
    }
  }

  private async backoff(call: Call, attempt: number, reason: string): Promise<void> {
    const ceiling = backoffDelayMs(this.policy, attempt);
    const delayMs = Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
    this.retried += 1;
    this.options.onRetry?.({ call: call.name, attempt, reason, delayMs });
    await sleep(delayMs);
  }

  private async exchange(call: Call): Promise<unknown> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (call.body !== undefined) headers['content-type'] = 'application/json';
    if (this.options.token) headers.authorization = `Bearer ${this.options.token}`;
    if (call.idempotencyKey !== undefined) headers['idempotency-key'] = call.idempotencyKey;
    const init = {
      method: call.method,
      headers,
      body: call.body === undefined ? undefined : JSON.stringify(call.body),
      signal: AbortSignal.timeout(call.timeoutMs),
    };
    let response: Response;
    try {
      response = await this.fetch(new URL(call.path, this.options.api), init);
    } catch (error) {
      const code = connectionCode(error);
      throw new TransientError(`connection failed (${code})`, code === 'ECONNREFUSED');
    }
    return this.read(response);
  }

  private async read(response: Response): Promise<unknown> {
    const text = await response.text().catch(() => null);
    if (text === null) throw new TransientError(`${response.status}: connection lost while reading the answer`, false);
    if (response.ok) return parseJson(text);
    const error = ErrorBodySchema.safeParse(parseJson(text));
    // A misconfigured deployment (500 `config`) stays misconfigured however often it is asked.
    const final = error.success && FINAL_KINDS.has(error.data.error.kind);
    if (RETRYABLE_STATUSES.has(response.status) && !final) throw new TransientError(`${response.status}: ${text.slice(0, 200)}`, false);
    if (!error.success) throw new DiscoverApiError(response.status, 'unknown', text.slice(0, 200));
    throw new DiscoverApiError(response.status, error.data.error.kind, error.data.error.message);
  }
}
