import { createClient, ErrorReply, TimeoutError } from 'redis';
import { backoffDelayMs } from '../utils/backoff.js';
import { createLogger } from '../utils/logger.js';
import { RedisReplyError, type RedisCommands } from './redis-commands.js';

const log = createLogger('store:redis');

/** Connection options of the TCP adapter. */
export interface NodeRedisOptions {
  url: string;
  /** Per-command timeout, so a dead connection fails fast instead of hanging a slice. */
  commandTimeoutMs?: number;
  connectTimeoutMs?: number;
}

type Client = ReturnType<typeof createClient>;

/** Attempts at a first connection before it is refused: a server that was never there is not worth waiting for. */
const FIRST_CONNECT_ATTEMPTS = 3;
/** Between reconnects: 50 ms doubling to 1 s. */
const RECONNECT_BACKOFF = { baseDelayMs: 50, maxDelayMs: 1_000 };

function newClient(options: NodeRedisOptions): Client {
  let everReady = false;
  const client = createClient({
    url: options.url,
    socket: {
      connectTimeout: options.connectTimeoutMs ?? 5_000,
      // Back off a little between reconnects; a lost connection is retried by the store, not fatal.
      // A first connection that keeps failing is given up, so callers get an error instead of a hang.
      reconnectStrategy: (retries: number, cause: Error) =>
        !everReady && retries >= FIRST_CONNECT_ATTEMPTS ? new Error(`cannot connect: ${cause.message}`) : backoffDelayMs(RECONNECT_BACKOFF, retries + 1),
    },
    // Fail at once while disconnected: the store's own retry (with backoff) decides how long to wait,
    // instead of commands piling up unseen in an offline queue.
    disableOfflineQueue: true,
    // node-redis 5.9 wedges (reports ready on a dead socket) when a reset hits its CLIENT SETINFO handshake.
    disableClientInfo: true,
  });
  client.on('ready', () => (everReady = true));
  // Without a listener node-redis would crash the process on a connection error; the store retries instead.
  client.on('error', (error: unknown) => log.warn({ event: 'redis_error', err: String(error) }, 'redis connection error'));
  return client;
}

/** A command waiting for its reply, as the watchdog sees it. */
interface InFlight {
  since: number;
  timeOut(): void;
}

/**
 * node-redis as RedisCommands; a connection that stops answering is dropped and dialled again. Commands are timed
 * by one watchdog per adapter rather than by node-redis's own timeout, which arms an AbortSignal timer per command
 * (a cost felt at thousands of small sitemaps a second); a command fails between one and 1.25 timeouts.
 */
class NodeRedisCommands implements RedisCommands {
  private client: Promise<Client> | null = null;
  private readonly inFlight = new Set<InFlight>();
  private watchdog: NodeJS.Timeout | null = null;
  private readonly timeoutMs: number;

  constructor(private readonly options: NodeRedisOptions) {
    this.timeoutMs = options.commandTimeoutMs ?? 5_000;
  }

  /** The live client, connecting when there is none. */
  connected(): Promise<Client> {
    this.client ??= this.connect();
    return this.client;
  }

  async send(args: readonly string[]): Promise<unknown> {
    const client = await this.connected();
    const command: InFlight = { since: Date.now(), timeOut: () => undefined };
    const timedOut = new Promise<never>((_, reject) => (command.timeOut = () => reject(new TimeoutError())));
    this.inFlight.add(command);
    this.watch();
    try {
      return await Promise.race([client.sendCommand([...args]), timedOut]);
    } catch (error) {
      if (error instanceof ErrorReply) throw new RedisReplyError(error.message, { cause: error });
      if (error instanceof TimeoutError) this.drop(client);
      throw error;
    } finally {
      this.inFlight.delete(command);
    }
  }

  // Checks a quarter-timeout apart while commands are in flight; stops when none are.
  private watch(): void {
    if (this.watchdog !== null) return;
    this.watchdog = setInterval(
      () => {
        const now = Date.now();
        for (const command of this.inFlight) if (now - command.since >= this.timeoutMs) command.timeOut();
        if (this.inFlight.size > 0) return;
        if (this.watchdog !== null) clearInterval(this.watchdog);
        this.watchdog = null;
      },
      Math.max(10, Math.floor(this.timeoutMs / 4)),
    );
    this.watchdog.unref();
  }

  async close(): Promise<void> {
    if (this.watchdog !== null) clearInterval(this.watchdog);
    this.watchdog = null;
    const client = await this.client?.catch(() => null);
    this.client = null;
    if (client?.isOpen) await client.close();
  }

  private async connect(): Promise<Client> {
    const client = newClient(this.options);
    try {
      await client.connect();
    } catch (error) {
      this.client = null;
      client.destroy();
      throw error;
    }
    log.info({ event: 'store_connected', host: redactedHost(this.options.url) }, 'connected to redis');
    return client;
  }

  private drop(client: Client): void {
    log.warn({ event: 'redis_reconnect', host: redactedHost(this.options.url) }, 'redis stopped answering: reconnecting');
    this.client = null;
    if (client.isOpen) client.destroy();
  }
}

/** Connects a node-redis client and exposes it as RedisCommands. */
export async function connectNodeRedis(options: NodeRedisOptions): Promise<RedisCommands> {
  const commands = new NodeRedisCommands(options);
  await commands.connected();
  return commands;
}

// Logs name the server, never its password.
function redactedHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'invalid-url';
  }
}
