import type { Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate, createInflateRaw } from 'node:zlib';
import { LimitError, ParseError } from '../../core/errors.js';
import { plainName } from '../parse/parse-error.js';
import { createLogger } from '../../utils/logger.js';
import { peekBytes, slices } from './byte-stream.js';
import { drainReadable } from './drain-readable.js';

const log = createLogger('factory:fetch');

/** Gzip layers removed at most: `.xml.gz` sent with Content-Encoding: gzip is two; more is an attack or a bug. */
export const MAX_GZIP_LAYERS = 3;
/**
 * Compressed bytes handed to zlib at a time. zlib expands a whole input chunk before it looks at
 * backpressure, and deflate reaches ~1000:1, so 16 KiB in means at most ~16 MiB buffered per layer.
 */
const FEED_BYTES = 16 * 1024;
/**
 * Output chunk of a decoder. zlib's work per output chunk (a thread-pool round trip, a callback, a push) was 8-14% of a
 * walk's CPU at 64 KiB; 256 KiB makes a quarter of those. The parser still gets 64 KiB at a time (HANDED_BYTES): its
 * text is what pins memory (parsing 128 KiB steps cost +40 MiB RSS), so each chunk is handed out in views of that size.
 */
const OUTPUT_CHUNK_BYTES = 256 * 1024;
/** Decoded bytes handed to the reader at a time: views into the decoder's output chunk, no copies. */
const HANDED_BYTES = 64 * 1024;
/**
 * Decoded bytes a layer may hold ahead of its reader: at zlib's default 16 KiB every push reported backpressure, so
 * zlib waited for the parser after each chunk; two chunks let it inflate while the parser works.
 */
const AHEAD_BYTES = 2 * OUTPUT_CHUNK_BYTES;
const zlibOptions = { chunkSize: OUTPUT_CHUNK_BYTES, readableHighWaterMark: AHEAD_BYTES };

type Coding = 'gzip' | 'deflate' | 'br';

/** Where the body comes from and how much of it may come out of each layer. */
export interface DecodeOptions {
  url: string;
  contentEncoding: string | null;
  /** Decompressed bytes allowed out of any one layer; more is `too_large`. */
  maxBytes: number;
}

/** A decoded body: the bytes, and whether gzip was involved. */
export interface DecodedBody {
  gzipped: boolean;
  bytes: AsyncIterable<Uint8Array>;
}

/** Undoes Content-Encoding (gzip, deflate, br), then every gzip layer found by magic bytes, streaming and capped. */
export async function decodeBody(raw: AsyncIterable<Uint8Array>, options: DecodeOptions): Promise<DecodedBody> {
  let stream = raw;
  let layers = 0;
  for (const coding of codingsToUndo(options)) {
    if (coding !== 'gzip') stream = inflate(coding, stream, options);
    else ({ stream, layers } = await gunzipIfMagic(stream, layers, options));
  }
  // Whatever the headers said, keep peeling while the bytes start with the gzip magic.
  for (let peeled = true; peeled;) {
    const next = await gunzipIfMagic(stream, layers, options);
    peeled = next.layers > layers;
    ({ stream, layers } = next);
  }
  if (layers > 0) log.debug({ event: 'gzip_layers', url: options.url, layers }, 'gzip decoded');
  return { gzipped: layers > 0, bytes: stream };
}

// Content-Encoding lists codings in the order applied, so they come off in reverse.
function codingsToUndo(options: DecodeOptions): Coding[] {
  const tokens = (options.contentEncoding ?? '').split(',').map((token) => token.trim().toLowerCase());
  return tokens
    .filter((token) => token !== '' && token !== 'identity')
    .reverse()
    .map((token) => toCoding(token, options.url));
}

function toCoding(token: string, url: string): Coding {
  if (token === 'gzip' || token === 'x-gzip') return 'gzip';
  if (token === 'deflate' || token === 'br') return token;
  log.warn({ event: 'unsupported_encoding', url, encoding: token }, 'unsupported Content-Encoding');
  throw new ParseError('unsupported_format', `Content-Encoding ${plainName(token) ?? '(an unusual coding)'} is not supported`, { url });
}

// Gzip is trusted to the magic bytes only: a lying header or a `.gz` name with plain content both pass through.
async function gunzipIfMagic(
  source: AsyncIterable<Uint8Array>,
  layers: number,
  options: DecodeOptions,
): Promise<{ stream: AsyncIterable<Uint8Array>; layers: number }> {
  const { head, stream } = await peekBytes(source, 2);
  if (head[0] !== 0x1f || head[1] !== 0x8b) return { stream, layers };
  if (layers >= MAX_GZIP_LAYERS) throw decompressError(options.url, `more than ${MAX_GZIP_LAYERS} gzip layers`);
  return { stream: inflate('gzip', stream, options), layers: layers + 1 };
}

/** One decompression layer as a stream, its output capped. */
function inflate(coding: Coding, source: AsyncIterable<Uint8Array>, options: DecodeOptions): AsyncIterable<Uint8Array> {
  if (coding === 'deflate') return inflateDeflate(source, options);
  return decoded(coding === 'gzip' ? createGunzip(zlibOptions) : createBrotliDecompress(zlibOptions), source, options);
}

// "deflate" is meant to be zlib-wrapped (RFC 9110), but servers send raw deflate too; the zlib header tells.
async function* inflateDeflate(source: AsyncIterable<Uint8Array>, options: DecodeOptions): AsyncGenerator<Uint8Array> {
  const { head, stream } = await peekBytes(source, 2);
  const [cmf = 0, flg = 0] = head;
  const zlibWrapped = (cmf & 0x0f) === 8 && (cmf * 256 + flg) % 31 === 0;
  yield* decoded(zlibWrapped ? createInflate(zlibOptions) : createInflateRaw(zlibOptions), stream, options);
}

/**
 * Runs `source` through `decoder`, fed in small slices so a bomb cannot expand far past the cap before the
 * counter sees it; counts the layer's output and stops it at the cap, whichever layer the expansion happens in.
 * Nothing decoded is dropped: when the source fails (a cut connection), the decoder still hands out what the bytes
 * already received decode to, then the source's failure is thrown; a truncated or corrupt stream likewise hands
 * out everything before the point where it breaks, then fails as `decompress`.
 */
async function* decoded(decoder: Transform, source: AsyncIterable<Uint8Array>, options: DecodeOptions): AsyncGenerator<Uint8Array> {
  const input = { failure: null as unknown };
  const fed = feed(decoder, slices(source, FEED_BYTES), input);
  let bytes = 0;
  try {
    for await (const chunk of drainReadable(decoder)) {
      for (let offset = 0; offset < chunk.length; offset += HANDED_BYTES) {
        const piece = chunk.subarray(offset, offset + HANDED_BYTES);
        bytes += piece.length;
        if (bytes > options.maxBytes) throw tooLarge(options, bytes);
        yield piece;
      }
    }
  } catch (error) {
    // A source that failed first is the failure: the truncation it left is only its consequence.
    throw input.failure ?? asDecompressError(error, options.url);
  }
  await fed;
  if (input.failure !== null) throw input.failure;
}

/** Writes `input` into `decoder` with backpressure, then ends it, also when the input fails (its failure is kept in `state`). */
async function feed(decoder: Transform, input: AsyncIterable<Uint8Array>, state: { failure: unknown }): Promise<void> {
  try {
    for await (const slice of input) {
      if (decoder.destroyed) return;
      if (!decoder.write(slice)) await drained(decoder);
    }
  } catch (error) {
    state.failure = error;
  } finally {
    if (!decoder.destroyed) decoder.end();
  }
}

// Room in the decoder again, or the decoder gone (failed, or its reader stopped): either way the feed may go on.
function drained(decoder: Transform): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      decoder.off('drain', done);
      decoder.off('close', done);
      resolve();
    };
    decoder.on('drain', done);
    decoder.on('close', done);
  });
}

function asDecompressError(error: unknown, url: string): unknown {
  const code = (error as { code?: unknown }).code;
  if (typeof code !== 'string' || !code.startsWith('Z_')) return error;
  return decompressError(url, (error as Error).message, error);
}

function tooLarge(options: DecodeOptions, bytes: number): LimitError {
  const { url, maxBytes: limit } = options;
  log.warn({ event: 'uncompressed_too_large', url, bytes, limit }, 'decompressed size cap reached');
  return new LimitError('too_large', `more than ${limit} bytes after decompression`, { url, bytes, limit });
}

function decompressError(url: string, reason: string, cause?: unknown): ParseError {
  log.warn({ event: 'decompress_failed', url, reason }, 'cannot decompress');
  return new ParseError('decompress', `cannot decompress: ${reason}`, { url, cause });
}
