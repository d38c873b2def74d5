/**
 * The whole surface a Redis-family store needs: send one command, get its reply. Implemented over a
 * node-redis client (TCP) and an @upstash/redis client (REST); everything above it is shared.
 */
export interface RedisCommands {
  /** Sends one command (`['EVALSHA', sha, ...]`). Rejects with RedisReplyError when Redis answers an error. */
  send(args: readonly string[]): Promise<unknown>;
  /** Closes the connection (no-op for REST). */
  close(): Promise<void>;
}

/** Redis answered with an error reply: the command reached the server, so retrying it would not help. */
export class RedisReplyError extends Error {
  override name = 'RedisReplyError';
}

/** True when Redis does not know the script (EVALSHA before the first EVAL on this server). */
export function isNoScript(error: unknown): boolean {
  return error instanceof RedisReplyError && error.message.includes('NOSCRIPT');
}

/** Commands sent so far, in total and per command name (Upstash bills per command). */
export interface CommandStats {
  total: number;
  byName: Record<string, number>;
}

/** Wraps a command interface with counters: the figure behind "commands per shard". */
export class CountingCommands implements RedisCommands {
  private stats: CommandStats = { total: 0, byName: {} };

  constructor(private readonly inner: RedisCommands) {}

  send(args: readonly string[]): Promise<unknown> {
    const name = (args[0] ?? '').toUpperCase();
    this.stats.total += 1;
    this.stats.byName[name] = (this.stats.byName[name] ?? 0) + 1;
    return this.inner.send(args);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  /** A copy of the counters. */
  snapshot(): CommandStats {
    return { total: this.stats.total, byName: { ...this.stats.byName } };
  }

  /** Starts counting from zero. */
  reset(): void {
    this.stats = { total: 0, byName: {} };
  }
}
