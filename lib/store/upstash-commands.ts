import { z } from 'zod';
import { RedisReplyError, type RedisCommands } from './redis-commands.js';

/** Where the REST endpoint is and its token (UPSTASH_REDIS_REST_URL / _TOKEN, or Vercel KV's KV_REST_API_URL / _TOKEN). */
export interface UpstashOptions {
  url: string;
  token: string;
  /** Per-command timeout, so a hung endpoint fails fast instead of hanging a slice. */
  commandTimeoutMs?: number;
}

/**
 * The endpoint could not serve the command: a 5xx, a 429 rate limit, or an answer that is not the protocol's
 * JSON. Not a reply error, so the store retries it and then reports the store unavailable.
 */
export class UpstashTransportError extends Error {
  override name = 'UpstashTransportError';
  constructor(readonly status: number) {
    super(`upstash REST endpoint answered ${status}`);
  }
}

// Upstash answers `{"result": ...}` or `{"error": "..."}` (with 400 for a command the server refused).
const ReplySchema = z.union([z.object({ error: z.string() }), z.object({ result: z.unknown() })]);

/**
 * Upstash's REST protocol as RedisCommands: one command, one POST of its JSON array, its raw reply. Spoken
 * directly (not through @upstash/redis) because the status code decides what a failure is: that client folds
 * 5xx and 429 into the same error as a refused command, and puts the whole command (script SHA, records)
 * into the message.
 */
export function upstashCommands(options: UpstashOptions): RedisCommands {
  const endpoint = options.url.replace(/\/+$/, '');
  const timeoutMs = options.commandTimeoutMs ?? 5_000;
  return {
    send: async (args) => {
      const response = await fetch(endpoint, {
        method: 'POST',
        headers: { authorization: `Bearer ${options.token}`, 'content-type': 'application/json' },
        body: JSON.stringify(args),
        signal: AbortSignal.timeout(timeoutMs),
      });
      const text = await response.text();
      if (response.status === 401 || response.status === 403) throw new RedisReplyError(`Unauthorized (${response.status})`);
      if (response.status === 429 || response.status >= 500) throw new UpstashTransportError(response.status);
      const reply = parseReply(text);
      if (reply === null) throw new UpstashTransportError(response.status);
      if ('error' in reply) throw new RedisReplyError(reply.error);
      return reply.result;
    },
    close: async () => {},
  };
}

function parseReply(text: string): z.infer<typeof ReplySchema> | null {
  try {
    const parsed = ReplySchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
