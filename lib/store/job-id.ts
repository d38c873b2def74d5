import { createHash, randomBytes, randomFillSync } from 'node:crypto';
import { z } from 'zod';
import { RequestError } from '../core/errors.js';

const JOB_ID = /^[A-Za-z0-9_-]{22}$/;

/** Job ids: 16 random bytes as base64url, 22 characters; nothing else may reach a store key. */
export const JobIdSchema = z.string().regex(JOB_ID);

/**
 * A new random, URL-safe job id (128 bits, so ids cannot be guessed). Never starts with `-`, which a shell
 * tool would read as a flag (`--resume -abc...`): such a draw (1 in 64) is drawn again.
 */
export function newJobId(): string {
  for (;;) {
    const id = randomBytes(16).toString('base64url');
    if (!id.startsWith('-')) return id;
  }
}

/**
 * The job id an idempotency key names: the same key, the same job, so a start retried after a lost answer finds the
 * job the first try created instead of starting a second. A hash: the key itself is kept nowhere.
 */
export function idempotentJobId(key: string): string {
  const id = createHash('sha256').update(`idempotency-key:${key}`).digest().subarray(0, 16).toString('base64url');
  return id.startsWith('-') ? `_${id.slice(1)}` : id;
}

const TOKEN_BYTES = 12;
// Random bytes drawn 256 tokens at a time: one draw per claim cost about 20 µs of a small sitemap's budget.
const tokenPool = Buffer.alloc(TOKEN_BYTES * 256);
let tokenOffset = tokenPool.length;

/** A new lease token: names one claim of one sitemap, so a late commit of an older claim is refused. */
export function newLeaseToken(): string {
  if (tokenOffset >= tokenPool.length) {
    randomFillSync(tokenPool);
    tokenOffset = 0;
  }
  tokenOffset += TOKEN_BYTES;
  return tokenPool.toString('base64url', tokenOffset - TOKEN_BYTES, tokenOffset);
}

/** True when `value` has the shape of an issued job id. */
export function isJobId(value: unknown): value is string {
  // JobIdSchema's check without zod's machinery: every store call of every sitemap goes through here.
  return typeof value === 'string' && JOB_ID.test(value);
}

/** Refuses a malformed id before it touches any key (`*`, `job:*`, CRLF, `../`, very long ...). */
export function assertJobId(value: unknown): string {
  if (isJobId(value)) return value;
  throw new RequestError('bad_request', 'malformed job id: expected 22 URL-safe characters');
}
