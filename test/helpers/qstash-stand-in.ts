import { createHash, createHmac, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

/**
 * A local stand-in for QStash's publish API, for tests without the network: `@upstash/qstash`'s client points its
 * `baseUrl` here. It accepts `POST /v2/publish/<destination>` with the bearer token, keeps one message per deduplication
 * id (as QStash does, answering `deduplicated: true` to a repeat), and holds each message until the test delivers it:
 * signed with the test's current signing key (a JWT as QStash signs: issuer `Upstash`, subject the destination, the
 * body's SHA-256), retried as the message asks, then posted to its failure callback (signed too) if every try failed.
 * The test decides the fate of each message: deliver it, deliver it twice, or drop it.
 */
export interface StandInMessage {
  messageId: string;
  /** The destination URL. */
  url: string;
  body: string;
  contentType: string;
  deduplicationId: string | null;
  retries: number;
  failureCallback: string | null;
  flowControlKey: string | null;
  flowControlValue: string | null;
}

/** What one delivery did: the status of each try, and of the failure callback when every try failed. */
export interface Delivery {
  statuses: number[];
  bodies: string[];
  failureCallbackStatus: number | null;
}

export interface QStashStandIn {
  /** The client's baseUrl. */
  url: string;
  token: string;
  keys: { currentSigningKey: string; nextSigningKey: string };
  /** Every message accepted, in order (repeats of a deduplication id are not new messages). */
  messages(): StandInMessage[];
  /** Publish calls answered with `deduplicated: true`. */
  deduplicated(): number;
  /** Messages accepted and not yet delivered or dropped, oldest first. */
  pending(): StandInMessage[];
  /**
   * Delivers a message (again, when it was delivered before: a duplicate delivery), with its retries and failure
   * callback; `beforeFailureCallback` runs once every try has failed, before the callback is posted.
   */
  deliver(message: StandInMessage, options?: { beforeFailureCallback?: () => Promise<void> }): Promise<Delivery>;
  /** Forgets a pending message without delivering it: a lost message. */
  drop(message: StandInMessage): void;
  close(): Promise<void>;
}

const base64url = (data: string | Buffer) => Buffer.from(data).toString('base64url');

/** A QStash signature of `body` for `url`: an HS256 JWT with QStash's claims. */
export function signQStash(key: string, url: string, body: string): string {
  const now = Math.floor(Date.now() / 1000);
  const header = base64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
  const claims = {
    iss: 'Upstash',
    sub: url,
    exp: now + 300,
    nbf: now,
    iat: now,
    jti: randomBytes(8).toString('hex'),
    body: createHash('sha256').update(body).digest('base64url'),
  };
  const payload = base64url(JSON.stringify(claims));
  const signature = createHmac('sha256', key).update(`${header}.${payload}`).digest('base64url');
  return `${header}.${payload}.${signature}`;
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function reply(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** Starts the stand-in on a loopback port. */
export async function startQStashStandIn(): Promise<QStashStandIn> {
  const token = `qstash-test-${randomBytes(6).toString('hex')}`;
  const keys = { currentSigningKey: `sig_current_${randomBytes(12).toString('hex')}`, nextSigningKey: `sig_next_${randomBytes(12).toString('hex')}` };
  const accepted: StandInMessage[] = [];
  const byDeduplicationId = new Map<string, StandInMessage>();
  const queue: StandInMessage[] = [];
  let deduplicated = 0;

  const server = createServer((request, response) => {
    void (async () => {
      const path = request.url ?? '/';
      if (request.method !== 'POST' || !path.startsWith('/v2/publish/')) return reply(response, 404, { error: 'not found' });
      if (request.headers.authorization !== `Bearer ${token}`) return reply(response, 401, { error: 'unauthorized' });
      const url = path.slice('/v2/publish/'.length);
      const body = await readBody(request);
      const header = (name: string) => {
        const value = request.headers[name];
        return typeof value === 'string' ? value : null;
      };
      const deduplicationId = header('upstash-deduplication-id');
      const seen = deduplicationId === null ? undefined : byDeduplicationId.get(deduplicationId);
      if (seen) {
        deduplicated += 1;
        return reply(response, 201, { messageId: seen.messageId, url: seen.url, deduplicated: true });
      }
      const message: StandInMessage = {
        messageId: `msg_${randomBytes(8).toString('hex')}`,
        url,
        body,
        contentType: header('content-type') ?? 'application/octet-stream',
        deduplicationId,
        retries: Number(header('upstash-retries') ?? '3'),
        failureCallback: header('upstash-failure-callback'),
        flowControlKey: header('upstash-flow-control-key'),
        flowControlValue: header('upstash-flow-control-value'),
      };
      accepted.push(message);
      queue.push(message);
      if (deduplicationId !== null) byDeduplicationId.set(deduplicationId, message);
      reply(response, 201, { messageId: message.messageId, url });
    })().catch((error: unknown) => reply(response, 500, { error: String(error) }));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the stand-in has no port');

  const post = (url: string, body: string, contentType: string, extra: Record<string, string>) =>
    fetch(url, {
      method: 'POST',
      body,
      headers: { 'content-type': contentType, 'upstash-signature': signQStash(keys.currentSigningKey, url, body), ...extra },
    });

  const unqueue = (message: StandInMessage) => {
    const at = queue.indexOf(message);
    if (at >= 0) queue.splice(at, 1);
  };

  return {
    url: `http://127.0.0.1:${address.port}`,
    token,
    keys,
    messages: () => [...accepted],
    deduplicated: () => deduplicated,
    pending: () => [...queue],
    deliver: async (message, options = {}) => {
      unqueue(message);
      const delivery: Delivery = { statuses: [], bodies: [], failureCallbackStatus: null };
      let last: { status: number; body: string } = { status: 0, body: '' };
      for (let retried = 0; retried <= message.retries; retried += 1) {
        const response = await post(message.url, message.body, message.contentType, {
          'upstash-message-id': message.messageId,
          'upstash-retried': String(retried),
        });
        last = { status: response.status, body: await response.text() };
        delivery.statuses.push(last.status);
        delivery.bodies.push(last.body);
        if (response.ok) return delivery;
      }
      if (message.failureCallback === null) return delivery;
      await options.beforeFailureCallback?.();
      const callback = JSON.stringify({
        status: last.status,
        header: {},
        body: Buffer.from(last.body).toString('base64'),
        retried: message.retries,
        maxRetries: message.retries,
        sourceMessageId: message.messageId,
        url: message.url,
        method: 'POST',
        sourceHeader: { 'Content-Type': [message.contentType] },
        sourceBody: Buffer.from(message.body).toString('base64'),
      });
      const response = await post(message.failureCallback, callback, 'application/json', {});
      await response.text();
      delivery.failureCallbackStatus = response.status;
      return delivery;
    },
    drop: unqueue,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}
