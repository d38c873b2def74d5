import { Redis } from '@upstash/redis';
import { RedisReplyError, type RedisCommands } from './redis-commands.js';

/** Where the REST endpoint is and its token (UPSTASH_REDIS_REST_URL / UPSTASH_REDIS_REST_TOKEN). */
export interface UpstashOptions {
  url: string;
  token: string;
}

/** An @upstash/redis client as RedisCommands: raw replies, one HTTP request per command. */
export function upstashCommands(options: UpstashOptions): RedisCommands {
  const redis = new Redis({
    url: options.url,
    token: options.token,
    // Raw replies: automatic deserialization would turn the string "1000" into the number 1000.
    automaticDeserialization: false,
    // One request per command keeps the per-command count (and bill) exact; the store retries itself.
    enableAutoPipelining: false,
    enableTelemetry: false,
    retry: false,
  });
  return {
    send: async (args) => {
      const [command, ...rest] = args;
      try {
        return await redis.exec([command ?? '', ...rest]);
      } catch (error) {
        if (error instanceof Error && error.name === 'UpstashError') throw new RedisReplyError(error.message, { cause: error });
        throw error;
      }
    },
    close: async () => {},
  };
}
