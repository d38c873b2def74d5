import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { once } from 'node:events';
import { createClient, ErrorReply, MultiErrorReply, RESP_TYPES } from 'redis';

/**
 * A small server speaking Upstash's REST protocol in front of a real Redis, for tests of the Upstash adapter
 * (no public Upstash-compatible server installs here). Implements what @upstash/redis sends: a single command
 * as a JSON array POSTed to `/`, `/pipeline` and `/multi-exec` (arrays of commands), bearer auth, and
 * base64-encoded strings in replies when the client sends `Upstash-Encoding: base64`.
 */
export interface UpstashProxy {
  url: string;
  token: string;
  /** HTTP requests and Redis commands served. */
  stats(): { requests: number; commands: number; unauthorized: number };
  /** From now on answers every request with this HTTP status and an HTML body, as a failing edge does (null: serve again). */
  setFailure(status: number | null): void;
  close(): Promise<void>;
}

type Reply = string | number | null | Buffer | Reply[];
type Outcome = { result: unknown } | { error: string };

// Bulk strings come back as Buffers and simple strings as strings, so they can be encoded as Upstash does.
const BINARY = { [RESP_TYPES.BLOB_STRING]: Buffer } as const;

function encodeReply(reply: Reply, base64: boolean): unknown {
  if (Array.isArray(reply)) return reply.map((item) => encodeReply(item, base64));
  if (Buffer.isBuffer(reply)) return base64 ? reply.toString('base64') : reply.toString('utf8');
  // The client passes a literal "OK" through; every other string it base64-decodes.
  if (typeof reply === 'string') return base64 && reply !== 'OK' ? Buffer.from(reply).toString('base64') : reply;
  return reply;
}

async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

const isCommand = (value: unknown): value is string[] =>
  Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === 'string' || typeof v === 'number');

function send(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

type Backend = ReturnType<ReturnType<typeof createClient>['withTypeMapping']>;

/** Runs REST requests against Redis and counts them. */
class RestBackend {
  readonly counts = { requests: 0, commands: 0, unauthorized: 0 };

  constructor(
    private readonly redis: Backend,
    private readonly token: string,
  ) {}

  /** One command; an error reply becomes `{ error }`, as Upstash answers. */
  async run(command: string[], base64: boolean): Promise<Outcome> {
    this.counts.commands += 1;
    try {
      return { result: encodeReply((await this.redis.sendCommand(command.map(String))) as Reply, base64) };
    } catch (error) {
      if (error instanceof ErrorReply) return { error: error.message };
      throw error;
    }
  }

  /** A MULTI/EXEC transaction: all commands applied together, one outcome each. */
  async multiExec(commands: string[][], base64: boolean): Promise<Outcome[]> {
    this.counts.commands += commands.length;
    const multi = this.redis.multi();
    for (const command of commands) multi.addCommand(command.map(String));
    try {
      return ((await multi.exec()) as unknown as Reply[]).map((reply) => ({ result: encodeReply(reply, base64) }));
    } catch (error) {
      if (!(error instanceof MultiErrorReply)) throw error;
      return error.replies.map((reply) => (reply instanceof ErrorReply ? { error: reply.message } : { result: encodeReply(reply as Reply, base64) }));
    }
  }

  /** Answers one HTTP request: auth, then `/`, `/pipeline` or `/multi-exec`. */
  async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    this.counts.requests += 1;
    if (request.headers.authorization !== `Bearer ${this.token}`) {
      this.counts.unauthorized += 1;
      return send(response, 401, { error: 'Unauthorized' });
    }
    const base64 = String(request.headers['upstash-encoding'] ?? '').toLowerCase() === 'base64';
    const body = await readJson(request).catch(() => null);
    const path = (request.url ?? '/').split('?')[0];
    if (path === '/' && isCommand(body)) {
      const outcome = await this.run(body, base64);
      return send(response, 'error' in outcome ? 400 : 200, outcome);
    }
    if (path === '/multi-exec' && Array.isArray(body) && body.every(isCommand)) return send(response, 200, await this.multiExec(body, base64));
    if (path === '/pipeline' && Array.isArray(body) && body.every(isCommand)) {
      const outcomes: Outcome[] = [];
      for (const command of body) outcomes.push(await this.run(command, base64));
      return send(response, 200, outcomes);
    }
    return send(response, 400, { error: 'ERR malformed request' });
  }
}

/** Starts the proxy on a free port in front of the Redis at `redisUrl`. */
export async function startUpstashProxy(redisUrl: string, token = 'test-token'): Promise<UpstashProxy> {
  const redis = createClient({ url: redisUrl }).withTypeMapping(BINARY);
  redis.on('error', () => {});
  await redis.connect();
  const backend = new RestBackend(redis, token);
  let failure: number | null = null;
  const server = createServer((request, response) => {
    if (failure !== null) {
      backend.counts.requests += 1;
      response.writeHead(failure, { 'content-type': 'text/html' });
      return void response.end(`<html><body>${failure}</body></html>`);
    }
    backend.handle(request, response).catch((error: unknown) => send(response, 500, { error: String(error) }));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    token,
    stats: () => ({ ...backend.counts }),
    setFailure: (status) => (failure = status),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((done) => server.close(() => done()));
      await redis.close();
    },
  };
}
