import { setTimeout as sleep } from 'node:timers/promises';
import { backoffDelayMs, type RetryPolicy } from '../utils/backoff.js';
import { createLogger } from '../utils/logger.js';
import { isNoScript, RedisReplyError, type RedisCommands } from './redis-commands.js';
import type { LuaScript } from './scripts/lua-script.js';
import { StoreError } from './store-errors.js';

const log = createLogger('store:scripts');

// Every job script is idempotent (tokens, offsets and the visited set make a replay a no-op), so a
// command whose reply was lost can simply be sent again. About 3.5 s in all: a Redis restart or failover.
const DEFAULT_RETRY: RetryPolicy = { attempts: 8, baseDelayMs: 50, maxDelayMs: 1_000 };

/**
 * Sends commands and scripts over RedisCommands: EVALSHA first, EVAL once on NOSCRIPT (which reloads the script),
 * retries on transport errors and transient replies (OOM, BUSY, LOADING, ...), then a retryable `store_unavailable`.
 */
export class ScriptRunner {
  constructor(
    private readonly commands: RedisCommands,
    private readonly retry: RetryPolicy = DEFAULT_RETRY,
  ) {}

  /** Runs `script` with the given keys and arguments; one command when the server has the script cached. */
  eval(script: LuaScript, keys: readonly string[], args: readonly string[]): Promise<unknown> {
    const tail = [String(keys.length), ...keys, ...args];
    return this.withRetry(script.name, async () => {
      try {
        return await this.commands.send(['EVALSHA', script.sha, ...tail]);
      } catch (error) {
        if (!isNoScript(error)) throw error;
        log.debug({ event: 'script_load', script: script.name }, 'script not cached: sending its body once');
        return this.commands.send(['EVAL', script.source, ...tail]);
      }
    });
  }

  /** Sends one plain command (GET of meta or a shard). */
  send(args: readonly string[]): Promise<unknown> {
    return this.withRetry(args[0] ?? '', () => this.commands.send(args));
  }

  private async withRetry(name: string, attempt: () => Promise<unknown>): Promise<unknown> {
    for (let i = 1; ; i += 1) {
      try {
        return await attempt();
      } catch (error) {
        const transient = transientReply(error);
        if (error instanceof RedisReplyError && transient === null) throw replyError(name, error);
        if (i >= this.retry.attempts) throw unavailable(name, transient, error);
        const delayMs = backoffDelayMs(this.retry, i);
        log.warn({ event: 'store_retry', command: name, attempt: i, delayMs, err: String(error) }, 'store call failed: retrying');
        await sleep(delayMs);
      }
    }
  }
}

/**
 * Replies that say the server cannot serve the command right now, not that the command or data is wrong:
 * out of memory, a script running too long, loading its dataset, a replica or a failover in progress.
 * Redis 7 reports them inside a script as `OOM ... script: <sha>, on @user_script:N`, older ones after `-`.
 */
const TRANSIENT_REPLY = /\b(OOM|BUSY|LOADING|READONLY|MASTERDOWN|TRYAGAIN|CLUSTERDOWN|NOREPLICAS|MISCONF)\b/;

/** The transient code of a reply error (`OOM`, `BUSY`, ...), or null for anything else. */
function transientReply(error: unknown): string | null {
  if (!(error instanceof RedisReplyError)) return null;
  return TRANSIENT_REPLY.exec(error.message)?.[1] ?? null;
}

// The message goes to API clients: it names the operation and the reply code, never the reply itself
// (which can hold a script SHA or record contents).
function unavailable(name: string, code: string | null, cause: unknown): StoreError {
  const why = code === null ? 'unreachable' : `busy (${code})`;
  log.error({ event: 'store_unavailable', command: name, code, err: String(cause) }, 'store unavailable after retries');
  return new StoreError('unavailable', `job store ${why} during ${name}: retry later`, { cause });
}

// Refused credentials are a deployment problem (store unavailable), not bad data.
const AUTH_FAILURE = /NOAUTH|WRONGPASS|Unauthorized/i;

// A script error on our own keys means they hold something we did not write (WRONGTYPE, non-numbers).
function replyError(name: string, error: RedisReplyError): StoreError {
  if (AUTH_FAILURE.test(error.message)) return new StoreError('unavailable', `job store refused the credentials during ${name}`, { cause: error });
  log.error({ event: 'store_reply_error', command: name, err: error.message }, 'store refused a command');
  return new StoreError('corrupt', `job store refused ${name}: its records are not in the expected shape`, { cause: error });
}
