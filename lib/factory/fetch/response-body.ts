import type { Readable } from 'node:stream';
import { LimitError } from '../../core/errors.js';
import { createLogger } from '../../utils/logger.js';
import type { Deadline } from './deadline.js';
import { drainReadable } from './drain-readable.js';
import { toFetchFailure } from './fetch-errors.js';

const log = createLogger('factory:fetch');

/** Bytes `discard` reads to keep a keep-alive connection; a bigger remainder closes the socket instead. */
export const DRAIN_LIMIT = 64 * 1024;

/** What the body reader needs to know about its response. */
export interface BodyContext {
  url: string;
  status: number;
  maxBytes: number;
  deadline: Deadline;
  callerSignal?: AbortSignal;
}

/** undici's body stream with its drain helper. */
export type RawBody = Readable & { dump(options?: { limit: number; signal?: AbortSignal }): Promise<void> };

/** A one-shot capped reader over `raw` and a `discard` that releases it unread. */
export function cappedBody(raw: RawBody, context: BodyContext): { body: AsyncIterable<Uint8Array>; discard(): Promise<void> } {
  const state = { started: false };
  const body = readCapped(raw, context, state);
  const discard = async (): Promise<void> => {
    if (state.started) return void raw.destroy();
    state.started = true;
    await raw.dump({ limit: DRAIN_LIMIT, signal: context.deadline.signal }).catch(() => raw.destroy());
    context.deadline.clear();
  };
  return { body, discard };
}

// Counts raw bytes as they arrive and stops at the cap; the deadline is released however the read ends.
async function* readCapped(raw: RawBody, context: BodyContext, state: { started: boolean }): AsyncGenerator<Uint8Array> {
  state.started = true;
  let bytes = 0;
  try {
    for await (const chunk of drainReadable(raw)) {
      bytes += chunk.length;
      if (bytes > context.maxBytes) throw tooLarge(context, bytes);
      context.deadline.pause();
      yield chunk;
      context.deadline.resume();
    }
    log.debug({ event: 'fetch_done', url: context.url, status: context.status, bytes }, 'response read');
  } catch (error) {
    throw toFetchFailure(error, { ...context, bytes });
  } finally {
    context.deadline.clear();
    if (!raw.destroyed) raw.destroy();
  }
}

function tooLarge(context: BodyContext, bytes: number): LimitError {
  log.warn({ event: 'download_too_large', url: context.url, bytes, limit: context.maxBytes }, 'download cap reached');
  return new LimitError('too_large', `more than ${context.maxBytes} bytes downloaded`, {
    url: context.url,
    bytes,
    limit: context.maxBytes,
  });
}
