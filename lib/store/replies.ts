import { z } from 'zod';
import { JobStateSchema } from '../core/types.js';
import type { ClaimResult, CommitResult, EnqueueResult, FinishResult } from './job-store.js';
import { pairsToObject, parseJsonRecord, parseRecord, StatusHashSchema, statusPartsFrom, WorkItemSchema, type StatusParts } from './records.js';
import { jobNotFound, StoreError } from './store-errors.js';

// Every script reply is validated like a record: a reply of an unexpected shape means the keys were not ours.
const Int = z.number().int().nonnegative();
const Str = z.string();

const GUARD_TAGS = new Set<unknown>(['not_found', 'foreign', 'corrupt']);
const GuardReply = z.union([z.tuple([z.literal('not_found')]), z.tuple([z.literal('foreign')]), z.tuple([z.literal('corrupt'), Str])]);

/** Turns the shared guard answers (no job, foreign or corrupt status) into errors; passes anything else on. */
export function checkGuard(reply: unknown, jobId: string, key: string): unknown {
  // Every script reply goes through here: most are no guard answer, told by the tag without running the schema.
  if (!Array.isArray(reply) || !GUARD_TAGS.has(reply[0])) return reply;
  const guard = GuardReply.safeParse(reply);
  if (!guard.success) return reply;
  const [tag, field] = guard.data;
  if (tag === 'not_found') throw jobNotFound(jobId);
  if (tag === 'foreign') throw new StoreError('foreign', `${key} was not written by this service (version mismatch)`, { key });
  throw new StoreError('corrupt', `${key} field ${field ?? '?'} is not a number`, { key });
}

const ClaimReply = z.union([
  z.tuple([z.literal('claimed'), Str, Str, z.string().regex(/^\d+$/), Int, Int]),
  z.tuple([z.literal('wait'), Int]),
  z.tuple([z.literal('done')]),
  z.tuple([z.literal('halted'), JobStateSchema]),
  z.tuple([z.literal('stalled'), Int]),
]);

const isCount = (value: unknown): value is number => Number.isInteger(value) && (value as number) >= 0;
const DIGITS = /^\d+$/;

/**
 * The common claim reply, checked by hand (the same checks as ClaimReply's first member) so the union need not run
 * for every claimed sitemap; anything else takes the schema.
 */
function claimedTuple(reply: unknown): z.infer<typeof ClaimReply> | null {
  if (!Array.isArray(reply) || reply.length !== 6 || reply[0] !== 'claimed') return null;
  const [, workId, item, offset, added, claims] = reply as unknown[];
  if (typeof workId !== 'string' || typeof item !== 'string' || typeof offset !== 'string' || !DIGITS.test(offset)) return null;
  return isCount(added) && isCount(claims) ? ['claimed', workId, item, offset, added, claims] : null;
}

/** Claim reply -> ClaimResult (the work item is validated; a corrupt one is an error). */
export function toClaimResult(reply: unknown, key: string, token: string): ClaimResult {
  const data = claimedTuple(reply) ?? parseRecord(reply, ClaimReply, key);
  if (data[0] === 'wait') return { type: 'wait', active: data[1] };
  if (data[0] === 'done') return { type: 'done' };
  if (data[0] === 'halted') return { type: 'halted', state: data[1] };
  if (data[0] === 'stalled') return { type: 'stalled', works: data[1] };
  const [, workId, itemJson, offset, added, claims] = data;
  const item = parseJsonRecord(itemJson, WorkItemSchema, `${key} item ${workId}`);
  return { type: 'claimed', work: { workId, token, item, offset: Number(offset), added, claims } };
}

const CommitReply = z.union([
  z.tuple([z.literal('committed'), Int, Int]),
  z.tuple([z.literal('duplicate'), Int]),
  z.tuple([z.literal('lease_lost')]),
  z.tuple([z.literal('offset_mismatch'), Int]),
  z.tuple([z.literal('over_limit'), Int]),
  z.tuple([z.literal('halted'), JobStateSchema]),
]);

/** Commit reply -> CommitResult. */
export function toCommitResult(reply: unknown, key: string): CommitResult {
  const data = parseRecord(reply, CommitReply, key);
  switch (data[0]) {
    case 'committed':
      return { type: 'committed', shard: data[1], urlsFound: data[2] };
    case 'duplicate':
      return { type: 'duplicate', shard: data[1] };
    case 'lease_lost':
      return { type: 'lease_lost' };
    case 'offset_mismatch':
      return { type: 'offset_mismatch', offset: data[1] };
    case 'over_limit':
      return { type: 'over_limit', allowance: data[1] };
    case 'halted':
      return { type: 'halted', state: data[1] };
  }
}

const EnqueueReply = z.union([z.tuple([z.literal('enqueued'), Int, Int, Int, Int]), z.tuple([z.literal('halted'), JobStateSchema])]);

/** Enqueue reply -> EnqueueResult. */
export function toEnqueueResult(reply: unknown, key: string): EnqueueResult {
  const data = parseRecord(reply, EnqueueReply, key);
  if (data[0] === 'halted') return { type: 'halted', state: data[1] };
  return { type: 'enqueued', added: data[1], duplicates: data[2], rejected: data[3], workAdded: data[4] };
}

// With the next claim first: it is the common reply, and a union's failed tries cost more than its match.
const FinishReply = z.union([
  z.tuple([z.enum(['finished', 'already']), JobStateSchema, z.unknown()]),
  z.tuple([z.enum(['finished', 'already']), JobStateSchema]),
  z.tuple([z.enum(['lease_lost', 'shard_refused'])]),
]);

const JOB_STATES = new Set<unknown>(JobStateSchema.options);
const FINISH_TAGS = new Set<unknown>(['finished', 'already']);

/** The common finish reply (finished or already, a state, the next claim), checked by hand like claimedTuple. */
function finishedTuple(reply: unknown): z.infer<typeof FinishReply> | null {
  if (!Array.isArray(reply) || reply.length !== 3 || !FINISH_TAGS.has(reply[0]) || !JOB_STATES.has(reply[1])) return null;
  return reply as z.infer<typeof FinishReply>;
}

/** Finish reply -> FinishResult; with `claimToken`, the next claim it carries is validated like a claim's reply. */
export function toFinishResult(reply: unknown, key: string, claimToken?: string): FinishResult {
  const data = finishedTuple(reply) ?? parseRecord(reply, FinishReply, key);
  if (data.length === 1) return { type: data[0] };
  if (data.length === 2 || claimToken === undefined) return { type: data[0], state: data[1] };
  return { type: data[0], state: data[1], next: toClaimResult(data[2], key, claimToken) };
}

const FrontierReply = z.tuple([Int, Int, z.union([z.tuple([]), z.tuple([Str, Int, Int])])]);
const StatusReply = z.tuple([z.literal('status'), z.array(Str), z.array(Str), Int, Int, z.array(Str), FrontierReply]);

/** Status reply (hash, kept errors, frontier sizes, kept cycles, claims of the active work) -> StatusParts, every part validated. */
export function toStatusParts(reply: unknown, key: string): StatusParts {
  const [, flat, errors, pending, active, cycles, [leased, fewestClaims, top]] = parseRecord(reply, StatusReply, key);
  const hash = parseRecord(pairsToObject(flat), StatusHashSchema, key);
  const mostClaimed = top.length === 0 ? null : { item: top[0], offset: top[1], claims: top[2] };
  return statusPartsFrom({ ...hash, pending, active, leased, fewestClaims, mostClaimed, errors, cycles }, key);
}
