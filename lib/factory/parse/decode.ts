import { isUtf8 } from 'node:buffer';
import { TextDecoder } from 'node:util';
import { type ParseContext, parseFailure, plainName } from './parse-error.js';

// The XML declaration is ASCII in every ASCII-compatible encoding, so it can be read before the encoding is known.
const XML_DECL_ENCODING = /^\s*<\?xml\s[^>]*?\bencoding\s*=\s*["']([A-Za-z][\w.:-]{0,39})["']/;

/** The document's TextDecoder label: BOM, else UTF-16 by its `<` pattern, else the XML declaration, else UTF-8. */
export function detectEncoding(head: Uint8Array): string {
  const [b0, b1, b2] = head;
  if (b0 === 0xef && b1 === 0xbb && b2 === 0xbf) return 'utf-8';
  if (b0 === 0xff && b1 === 0xfe) return 'utf-16le';
  if (b0 === 0xfe && b1 === 0xff) return 'utf-16be';
  if (b0 === 0x3c && b1 === 0x00) return 'utf-16le';
  if (b0 === 0x00 && b1 === 0x3c) return 'utf-16be';
  // Only ASCII matters to the pattern, so Latin-1 (one V8 one-byte string, no ICU converter) reads it.
  const ascii = Buffer.from(head.buffer, head.byteOffset, head.byteLength).toString('latin1');
  const declared = XML_DECL_ENCODING.exec(ascii)?.[1]?.toLowerCase();
  // A declaration we could read as ASCII cannot be UTF-16/32, whatever it claims: the bytes decide.
  if (declared === undefined || /^(utf-?16|utf-?32|ucs-?2|ucs-?4)/.test(declared)) return 'utf-8';
  return declared;
}

/** True when the bytes start like gzip: the fetch layer should have inflated them. */
export function isGzip(head: Uint8Array): boolean {
  return head[0] === 0x1f && head[1] === 0x8b;
}

// The WHATWG labels of UTF-8 (https://encoding.spec.whatwg.org/#names-and-labels), lower-cased as detectEncoding gives them.
const UTF8_LABELS: ReadonlySet<string> = new Set(['utf-8', 'utf8', 'unicode-1-1-utf-8', 'unicode11utf8', 'unicode20utf8', 'x-unicode20utf8']);

/** Streaming, fatal decoding: bytes invalid in the document's encoding end the parse with `invalid_encoding`. */
export interface StreamDecoder {
  /** The encoding actually used (the WHATWG name, e.g. windows-1252 for ISO-8859-1). */
  readonly encoding: string;
  /** Text of this chunk; a character split across chunks is completed by the next call. A leading BOM is dropped. */
  decode(bytes: Uint8Array): string;
  /** Remaining text at the end; a dangling partial character is an error. */
  flush(): string;
}

/** The decoder for a label; an unknown label is `invalid_encoding`. */
export function createStreamDecoder(label: string, ctx: ParseContext): StreamDecoder {
  // Nearly every sitemap: no TextDecoder (an ICU converter per document) is built for UTF-8.
  if (UTF8_LABELS.has(label)) return new Utf8Decoder(ctx);
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(label, { fatal: true });
  } catch (cause) {
    throw parseFailure(ctx, 'invalid_encoding', { message: `unsupported encoding ${plainName(label) ?? '(an unusual label)'}`, cause });
  }
  // UTF-8 (nearly every sitemap) takes a path several times faster than a fatal TextDecoder.
  return decoder.encoding === 'utf-8' ? new Utf8Decoder(ctx) : new LabelDecoder(decoder, ctx);
}

class LabelDecoder implements StreamDecoder {
  constructor(
    private readonly decoder: TextDecoder,
    private readonly ctx: ParseContext,
  ) {}

  get encoding(): string {
    return this.decoder.encoding;
  }

  decode(bytes: Uint8Array): string {
    return this.run(bytes, true);
  }

  flush(): string {
    return this.run(undefined, false);
  }

  private run(bytes: Uint8Array | undefined, stream: boolean): string {
    try {
      return this.decoder.decode(bytes, { stream });
    } catch (cause) {
      throw parseFailure(this.ctx, 'invalid_encoding', { message: `bytes not valid ${this.decoder.encoding}`, cause });
    }
  }
}

// Validates with simdutf (`isUtf8`) and decodes with Buffer; an incomplete character at a chunk's end is carried over.
class Utf8Decoder implements StreamDecoder {
  readonly encoding = 'utf-8';
  private carry: Uint8Array | null = null;
  private atStart = true;

  constructor(private readonly ctx: ParseContext) {}

  decode(bytes: Uint8Array): string {
    const data = this.carry === null ? bytes : Buffer.concat([this.carry, bytes]);
    const cut = completeLength(data);
    // Copied (Buffer#slice would not copy): the caller may reuse its chunk buffer.
    this.carry = cut < data.length ? Uint8Array.from(data.subarray(cut)) : null;
    const body = data.subarray(0, cut);
    if (!isUtf8(body)) this.fail();
    let text = Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
    if (this.atStart && text.length > 0) {
      this.atStart = false;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    return text;
  }

  flush(): string {
    if (this.carry !== null) this.fail();
    return '';
  }

  private fail(): never {
    throw parseFailure(this.ctx, 'invalid_encoding', 'bytes not valid utf-8');
  }
}

/** Length of `data` up to the start of a trailing multi-byte character that is not complete yet. */
function completeLength(data: Uint8Array): number {
  const end = data.length;
  for (let back = 1; back <= 3 && back <= end; back++) {
    const byte = data[end - back] ?? 0;
    if ((byte & 0xc0) === 0x80) continue; // continuation byte: keep looking for the lead
    const needed = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return back < needed ? end - back : end;
  }
  return end;
}
