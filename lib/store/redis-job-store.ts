import { z } from 'zod';
import { SitemapReportSchema, SitemapValidatorSchema, type ShardEntry, type SitemapReport, type SitemapValidator, type Validators } from '../core/types.js';
import { createLogger } from '../utils/logger.js';
import type { SecretBox } from '../utils/secret-box.js';
import { assertJobId } from './job-id.js';
import {
  DEFAULT_JOB_TTL_MS,
  type ClaimRequest,
  type ClaimResult,
  type CommitRequest,
  type CommitResult,
  type EnqueueRequest,
  type EnqueueResult,
  type FinishRequest,
  type FinishResult,
  type JobResync,
  type JobStore,
  type NewJob,
  type QueuedWork,
  type RenewRequest,
  type VisitResult,
  type StoreKind,
} from './job-store.js';
import { jobKeyPrefix, jobKeys, shardKey } from './keys.js';
import {
  pairsToObject,
  parseJsonRecord,
  parseMeta,
  parseRecord,
  serializeCycle,
  serializeReport,
  serializeError,
  serializeMeta,
  serializeShard,
  serializeValidator,
  ShardSchema,
  type JobMeta,
  type StatusParts,
} from './records.js';
import { CountingCommands, type CommandStats, type RedisCommands } from './redis-commands.js';
import { checkGuard, toClaimResult, toCommitResult, toEnqueueResult, toFinishResult, toStatusParts } from './replies.js';
import { openJobHeaders, sealJobHeaders } from './sealed-headers.js';
import { ScriptRunner } from './script-runner.js';
import type { RetryPolicy } from '../utils/backoff.js';
import {
  CLAIM,
  CLAIM_SLICE,
  COMMIT_SHARD,
  CREATE_JOB,
  DELETE_JOB,
  ENQUEUE,
  FINISH_MANY,
  FINISH_WORK,
  RELEASE,
  RELEASE_SLICE,
  RENEW,
  RETRY_STALLED,
  SEED_PREVIOUS,
  STATUS,
  STOP,
  VISIT,
} from './scripts/job-scripts.js';
import type { LuaScript } from './scripts/lua-script.js';
import { StoreError } from './store-errors.js';

/** Options of a Redis-family store. */
export interface RedisJobStoreOptions {
  kind: Extract<StoreKind, 'redis' | 'upstash'>;
  /** Lifetime of every key of a job, from its creation. */
  ttlMs?: number;
  retry?: RetryPolicy;
  /** Seals a job's request headers (null: a job with headers is refused, as the store would hold them in clear). */
  secrets?: SecretBox | null;
}

const flag = (value: boolean): string => (value ? '1' : '0');
const pairs = (items: QueuedWork[]): string[] => items.flatMap(({ key, item }) => [key ?? '', JSON.stringify(item)]);

/** One finish's script arguments after prefix and now (FINISH_WORK's ARGV[3..], one group of FINISH_MANY's). */
function finishArgs(request: FinishRequest): string[] {
  const { workId, token, errors, countSitemap, failure, fallback, shard, claim, resync, duplicates = 0, cycle, report } = request;
  const last = shard === undefined ? ['', '0', ''] : [String(shard.offset), String(shard.entries.length), serializeShard(shard.entries)];
  const next = claim === undefined ? ['', '0', '0'] : [claim.token, String(Math.ceil(claim.leaseMs)), String(claim.maxClaims)];
  const kept = [resync?.key ?? '', resync?.validator ? serializeValidator(resync.validator) : '', resync?.unchanged ? resync.url : ''];
  const found = [String(duplicates), cycle ? serializeCycle(cycle) : '', report ? serializeReport(report) : ''];
  return [
    token,
    workId,
    flag(countSitemap),
    failure,
    ...last,
    ...next,
    ...kept,
    ...found,
    String(errors.length),
    ...errors.map(serializeError),
    ...pairs(fallback ? [fallback] : []),
  ];
}

/** The JobStore over any RedisCommands: every operation one Lua script (one command), shared by TCP and REST. */
// The status key of a job, as SCAN returns it: the id in its braces.
const JOB_STATUS_KEY = /^cf:job:\{([A-Za-z0-9_-]{22})\}:status$/;

export class RedisJobStore implements JobStore {
  readonly kind: RedisJobStoreOptions['kind'];
  private readonly commands: CountingCommands;
  private readonly runner: ScriptRunner;
  private readonly ttlMs: number;
  private readonly secrets: SecretBox | null;
  private readonly log;
  private lastKeys: { jobId: string; keys: readonly string[] } | null = null;

  constructor(commands: RedisCommands, options: RedisJobStoreOptions) {
    this.kind = options.kind;
    this.commands = new CountingCommands(commands);
    this.runner = new ScriptRunner(this.commands, options.retry);
    this.ttlMs = options.ttlMs ?? DEFAULT_JOB_TTL_MS;
    this.secrets = options.secrets ?? null;
    this.log = createLogger(`store:${options.kind}`);
  }

  /** Commands sent since creation or the last reset. */
  commandStats(): CommandStats {
    return this.commands.snapshot();
  }

  /** Zeroes the command counters (to measure one phase). */
  resetCommandStats(): void {
    this.commands.reset();
  }

  async createJob(job: NewJob): Promise<void> {
    const jobId = assertJobId(job.meta.jobId);
    const { maxSitemaps, maxUrls } = job.meta.options;
    const expiresAt = Date.parse(job.meta.createdAt) + this.ttlMs;
    const { meta, sealed } = sealJobHeaders(job.meta, this.secrets);
    const args = [serializeMeta(meta), String(expiresAt), String(maxSitemaps), String(Number.isFinite(maxUrls) ? maxUrls : 0)];
    const reply = await this.run(CREATE_JOB, jobId, [...args, flag(job.roots), job.meta.createdAt, sealed, ...pairs(job.items)]);
    const [tag] = parseRecord(reply, z.tuple([z.enum(['created', 'exists', 'conflict'])]), this.key(jobId));
    if (tag === 'conflict') throw new StoreError('foreign', `job ${jobId} already exists with other meta`, { key: this.key(jobId) });
    this.log.info({ event: 'job_created', jobId, items: job.items.length, retried: tag === 'exists' }, 'job created');
  }

  async getMeta(jobId: string): Promise<JobMeta> {
    const prefix = jobKeyPrefix(assertJobId(jobId));
    const [key, secretsKey] = [prefix + 'meta', prefix + 'secrets'];
    const reply = await this.runner.send(['MGET', key, secretsKey]);
    const [raw, sealed] = parseRecord(reply, z.tuple([z.string().nullable(), z.string().nullable()]), key);
    if (raw === null) await this.readStatus(jobId); // throws not_found, or tells a missing meta from a missing job
    if (raw === null) throw new StoreError('corrupt', `record ${key} is missing`, { key });
    return openJobHeaders(parseMeta(raw, jobId, key), sealed, this.secrets, secretsKey);
  }

  async readStatus(jobId: string): Promise<StatusParts> {
    const reply = await this.run(STATUS, assertJobId(jobId), []);
    return toStatusParts(reply, this.key(jobId));
  }

  async claim(jobId: string, request: ClaimRequest): Promise<ClaimResult> {
    const reply = await this.run(CLAIM, assertJobId(jobId), [request.token, String(Math.ceil(request.leaseMs)), String(request.maxClaims)]);
    return toClaimResult(reply, this.key(jobId), request.token);
  }

  async commitShard(jobId: string, request: CommitRequest): Promise<CommitResult> {
    const { workId, token, offset, entries } = request;
    const reply = await this.run(COMMIT_SHARD, assertJobId(jobId), [token, workId, String(offset), String(entries.length), serializeShard(entries)]);
    return toCommitResult(reply, this.key(jobId));
  }

  async enqueue(jobId: string, request: EnqueueRequest): Promise<EnqueueResult> {
    const reply = await this.run(ENQUEUE, assertJobId(jobId), [flag(request.roots), request.workId ?? '', ...pairs(request.items)]);
    return toEnqueueResult(reply, this.key(jobId));
  }

  async finishWork(jobId: string, request: FinishRequest): Promise<FinishResult> {
    const reply = await this.run(FINISH_WORK, assertJobId(jobId), finishArgs(request));
    return toFinishResult(reply, this.key(jobId), request.claim?.token);
  }

  async finishMany(jobId: string, requests: readonly FinishRequest[]): Promise<FinishResult[]> {
    if (requests.length === 0) return [];
    const args = requests.flatMap((request) => {
      const own = finishArgs(request);
      return [String(own.length), ...own];
    });
    const reply = await this.run(FINISH_MANY, assertJobId(jobId), args);
    const key = this.key(jobId);
    const replies = parseRecord(reply, z.array(z.unknown()).length(requests.length), key);
    return replies.map((one, i) => toFinishResult(one, key, requests[i]?.claim?.token));
  }

  async release(jobId: string, workId: string, token: string): Promise<boolean> {
    const reply = await this.run(RELEASE, assertJobId(jobId), [token, workId]);
    return reply === 1;
  }

  async renew(jobId: string, request: RenewRequest): Promise<boolean> {
    const reply = await this.run(RENEW, assertJobId(jobId), [request.token, request.workId, String(Math.ceil(request.leaseMs))]);
    return reply === 1;
  }

  async visit(jobId: string, workId: string, key: string): Promise<VisitResult> {
    const reply = await this.run(VISIT, assertJobId(jobId), [workId, key]);
    return parseRecord(reply, z.tuple([z.enum(['added', 'own', 'seen'])]), this.key(jobId))[0];
  }

  async retryStalled(jobId: string): Promise<number> {
    const reply = await this.run(RETRY_STALLED, assertJobId(jobId), []);
    return parseRecord(reply, z.tuple([z.literal('retried'), z.number().int().nonnegative()]), this.key(jobId))[1];
  }

  async claimSlice(jobId: string, slice: number): Promise<boolean> {
    const reply = await this.run(CLAIM_SLICE, assertJobId(jobId), [String(slice)]);
    return parseRecord(reply, z.tuple([z.enum(['claimed', 'taken', 'ended'])]), this.key(jobId))[0] === 'claimed';
  }

  async releaseSlice(jobId: string, slice: number): Promise<void> {
    const reply = await this.run(RELEASE_SLICE, assertJobId(jobId), [String(slice)]);
    parseRecord(reply, z.tuple([z.literal('released')]), this.key(jobId));
  }

  async lastSlice(jobId: string): Promise<number> {
    const key = this.key(assertJobId(jobId));
    const raw = await this.runner.send(['HGET', key, 'slices']);
    return raw === null
      ? 0
      : parseRecord(
          raw,
          z
            .string()
            .regex(/^\d{1,15}$/)
            .transform(Number),
          `${key} slices`,
        );
  }

  async stop(jobId: string): Promise<StatusParts> {
    const reply = await this.run(STOP, assertJobId(jobId), []);
    this.log.info({ event: 'job_stop', jobId }, 'job stop requested');
    return toStatusParts(reply, this.key(jobId));
  }

  async listJobIds(cursor: string, count: number): Promise<{ jobIds: string[]; next: string | null }> {
    // SCAN visits every key that exists throughout the scan (a key may come twice): an operator's listing, not a queue.
    const reply = await this.runner.send(['SCAN', cursor, 'MATCH', `${jobKeyPrefix('*')}status`, 'COUNT', String(count)]);
    const [next, keys] = parseRecord(reply, z.tuple([z.string(), z.array(z.string())]), 'SCAN');
    const jobIds = keys.flatMap((key) => JOB_STATUS_KEY.exec(key)?.slice(1, 2) ?? []);
    return { jobIds: [...new Set(jobIds)], next: next === '0' ? null : next };
  }

  async deleteJob(jobId: string): Promise<boolean> {
    const reply = await this.runner.eval(DELETE_JOB, jobKeys(assertJobId(jobId)), [jobKeyPrefix(jobId), new Date().toISOString()]);
    const [tag, removed] = parseRecord(reply, z.union([z.tuple([z.literal('not_found')]), z.tuple([z.literal('deleted'), z.number().int()])]), this.key(jobId));
    this.log.info({ event: 'job_deleted', jobId, found: tag === 'deleted', keys: removed ?? 0 }, 'job delete requested');
    return tag === 'deleted';
  }

  async seedPrevious(jobId: string, validators: Validators): Promise<void> {
    const args = Object.entries(validators).flatMap(([key, validator]) => [key, serializeValidator(validator)]);
    if (args.length === 0) return;
    const reply = await this.run(SEED_PREVIOUS, assertJobId(jobId), args);
    parseRecord(reply, z.tuple([z.literal('seeded')]), this.key(jobId));
  }

  async readPrevious(jobId: string, key: string): Promise<SitemapValidator | null> {
    const hash = jobKeyPrefix(assertJobId(jobId)) + 'previous';
    const raw = await this.runner.send(['HGET', hash, key]);
    if (raw === null) return null;
    if (typeof raw !== 'string') throw new StoreError('corrupt', `record ${hash} ${key} is not a string`, { key: hash });
    return parseJsonRecord(raw, SitemapValidatorSchema, `${hash} ${key}`);
  }

  async readReports(jobId: string): Promise<SitemapReport[]> {
    const prefix = jobKeyPrefix(assertJobId(jobId));
    const flat = parseRecord((await this.runner.send(['HGETALL', prefix + 'reports'])) ?? [], z.array(z.string()), prefix + 'reports');
    return Object.entries(pairsToObject(flat)).map(([workId, raw]) => parseJsonRecord(raw, SitemapReportSchema, `${prefix}reports ${workId}`));
  }

  async readResync(jobId: string): Promise<JobResync> {
    const prefix = jobKeyPrefix(assertJobId(jobId));
    const [flat, unchanged] = await Promise.all([this.runner.send(['HGETALL', prefix + 'validators']), this.runner.send(['SMEMBERS', prefix + 'unchanged'])]);
    const pairsOf = parseRecord(flat ?? [], z.array(z.string()), prefix + 'validators');
    const validators = Object.fromEntries(
      Object.entries(pairsToObject(pairsOf)).map(([key, raw]) => [key, parseJsonRecord(raw, SitemapValidatorSchema, `${prefix}validators ${key}`)]),
    );
    return { validators, unchanged: parseRecord(unchanged ?? [], z.array(z.string()), prefix + 'unchanged') };
  }

  async readShard(jobId: string, n: number): Promise<ShardEntry[] | null> {
    if (!Number.isSafeInteger(n) || n < 0) return null;
    const key = shardKey(assertJobId(jobId), n);
    const raw = await this.runner.send(['GET', key]);
    if (raw === null) return null;
    if (typeof raw !== 'string') throw new StoreError('corrupt', `record ${key} is not a string`, { key });
    return parseJsonRecord(raw, ShardSchema, key);
  }

  // Shards expire with the job's keys; another worker of the sync may still read this one (see JobStore.dropShard).
  async dropShard(): Promise<void> {}

  async close(): Promise<void> {
    await this.commands.close();
  }

  private async run(script: LuaScript, jobId: string, args: string[]): Promise<unknown> {
    const reply = await this.runner.eval(script, this.keysOf(jobId), [jobKeyPrefix(jobId), new Date().toISOString(), ...args]);
    return checkGuard(reply, jobId, this.key(jobId));
  }

  // A slice asks about one job thousands of times: its key list is built once (it is never changed).
  private keysOf(jobId: string): readonly string[] {
    if (this.lastKeys?.jobId !== jobId) this.lastKeys = { jobId, keys: jobKeys(jobId) };
    return this.lastKeys.keys;
  }

  private key(jobId: string): string {
    return jobKeyPrefix(jobId) + 'status';
  }
}
