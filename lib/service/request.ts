import { timingSafeEqual, createHash } from 'node:crypto';
import { z } from 'zod';
import { RequestError } from '../core/errors.js';
import type { FactoryConfig } from '../config/factory-config.js';

/** Request bodies are tiny JSON documents; anything larger is refused before parsing. */
export const MAX_BODY_BYTES = 64 * 1024;

/** Reads a JSON body of at most MAX_BODY_BYTES and validates it; an empty body is `{}`. */
export async function readJsonBody<S extends z.ZodType>(request: Request, schema: S): Promise<z.output<S>> {
  const text = await readBodyText(request);
  return text.trim() === '' ? schema.parse({}) : parseJsonText(text, schema);
}

/** Parses a body read as text and validates it: text that is not JSON is a 400. */
export function parseJsonText<S extends z.ZodType>(text: string, schema: S): z.output<S> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new RequestError('bad_request', 'request body is not valid JSON');
  }
  return schema.parse(value);
}

/**
 * Validates a request's query string: an unknown parameter is a 400 naming it ("unknown query parameter X"), any
 * other problem names the parameter, never "body" (the query is not the body).
 */
export function parseQuery<S extends z.ZodType>(request: Request, schema: S): z.output<S> {
  const parsed = schema.safeParse(Object.fromEntries(new URL(request.url).searchParams));
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  if (issue?.code === 'unrecognized_keys') throw new RequestError('bad_request', `unknown query parameter ${issue.keys.join(', ')}`);
  const name = issue?.path.join('.') ?? '';
  throw new RequestError(
    'bad_request',
    name === '' ? `invalid query: ${issue?.message ?? 'malformed'}` : `query parameter ${name}: ${issue?.message ?? 'invalid'}`,
  );
}

/** Reads a body as text, refusing one larger than `maxBytes` (declared or sent) with a 400. */
export async function readBodyText(request: Request, maxBytes = MAX_BODY_BYTES): Promise<string> {
  const declared = Number(request.headers.get('content-length') ?? '0');
  if (declared > maxBytes) throw new RequestError('bad_request', `request body larger than ${maxBytes} bytes`);
  if (!request.body) return '';
  const decoder = new TextDecoder();
  let text = '';
  let bytes = 0;
  for await (const chunk of request.body as unknown as AsyncIterable<Uint8Array>) {
    bytes += chunk.byteLength;
    if (bytes > maxBytes) throw new RequestError('bad_request', `request body larger than ${maxBytes} bytes`);
    text += decoder.decode(chunk, { stream: true });
  }
  return text + decoder.decode();
}

/** Compares two secrets in constant time (hashing first makes the lengths equal). */
function sameSecret(given: string, expected: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/**
 * Checks `Authorization: Bearer <FACTORY_API_TOKEN>` when a token is configured.
 * On Vercel (VERCEL=1) a missing token is a refusal to serve at all: a public deployment must not be open.
 */
export function assertAuthorized(request: Request, config: FactoryConfig): void {
  const token = config.apiToken;
  if (!token) {
    if (config.onVercel) throw new RequestError('unauthorized', 'FACTORY_API_TOKEN is not set: the service refuses to run on Vercel without it');
    return;
  }
  if (!hasBearer(request, token)) throw new RequestError('unauthorized', 'missing or wrong bearer token');
}

/** True when the request carries `Authorization: Bearer <secret>` (compared in constant time). */
export function hasBearer(request: Request, secret: string): boolean {
  const header = request.headers.get('authorization') ?? '';
  const match = /^Bearer\s+(.+)$/i.exec(header.trim());
  return Boolean(match?.[1]) && sameSecret(match?.[1] ?? '', secret);
}
