import { expect } from 'vitest';
import { isFactoryError, type ErrorKind, type FactoryError } from '../../../core/errors.js';
import type { NetPolicy } from '../../../core/limits.js';
import type { OpenSitemapOptions, RequestOptions } from '../types.js';

/** The default policy: public addresses only. */
export const PUBLIC_ONLY: NetPolicy = { allowPrivate: false, allowHosts: [], resolve: [] };
/** Loopback test servers opened wholesale. */
export const ALLOW_PRIVATE: NetPolicy = { allowPrivate: true, allowHosts: [], resolve: [] };

/** Request options for loopback tests: generous limits, private targets open unless `net` says otherwise. */
export function requestOptions(overrides: Partial<RequestOptions> = {}): RequestOptions {
  return {
    timeoutMs: 5_000,
    maxRedirects: 5,
    userAgent: 'fetch-test/1.0',
    net: ALLOW_PRIVATE,
    maxDownloadBytes: 10 * 1024 * 1024,
    ...overrides,
  };
}

/** `requestOptions` plus the decompressed cap of `openSitemap`. */
export function sitemapOptions(overrides: Partial<OpenSitemapOptions> = {}): OpenSitemapOptions {
  return { ...requestOptions(), maxUncompressedBytes: 10 * 1024 * 1024, ...overrides };
}

/** Awaits a rejection and checks it is a FactoryError of `kind`; returns it for more assertions. */
export async function expectKind(promise: Promise<unknown>, kind: ErrorKind): Promise<FactoryError> {
  const error: unknown = await promise.then(
    () => new Error(`expected ${kind}, got success`),
    (reason: unknown) => reason,
  );
  if (!isFactoryError(error)) throw error;
  expect(error.kind).toBe(kind);
  return error;
}

/** Reads a byte stream to the end. */
export async function collect(stream: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return Buffer.concat(chunks);
}
