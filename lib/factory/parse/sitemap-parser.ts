import { createLogger } from '../../utils/logger.js';
import type { SitemapFormat } from '../../core/types.js';
import { type StreamDecoder, createStreamDecoder, detectEncoding, isGzip } from './decode.js';
import { EntryBuilder } from './entry-builder.js';
import { XmlReader, type XmlTokenizer } from './fast/xml-reader.js';
import { ItemSink } from './item-sink.js';
import { SNIFF_BYTES, SNIFF_CHARS } from './parse-limits.js';
import { type ParseContext, parseFailure } from './parse-error.js';
import { type DocumentMode, sniffMode } from './sniff.js';
import { TextSitemapParser } from './text-parser.js';
import type { ParseStats, ParsedItem, ParserOptions, SitemapParser } from './types.js';

const log = createLogger('factory:parse');

/** The reader chosen by sniffing. */
interface Backend {
  write(text: string): void;
  end(): void;
  readonly format: SitemapFormat | null;
  /** True once end() found the document cut before its root closed. */
  readonly truncated?: boolean;
}

/**
 * Bytes in, items out: buffers the first SNIFF_BYTES to choose the encoding, the first SNIFF_CHARS of
 * text to choose XML or text, then streams every chunk through one decoder and one backend. After an
 * error every call throws that error again.
 */
class StreamingSitemapParser implements SitemapParser {
  private readonly ctx: ParseContext;
  private readonly sink = new ItemSink();
  private head: Uint8Array[] = [];
  private headBytes = 0;
  private decoder: StreamDecoder | null = null;
  private lead = '';
  private backend: Backend | null = null;
  private ended = false;
  private failure: unknown = null;

  constructor(
    private readonly options: ParserOptions,
    private readonly tokenizer: XmlTokenizer,
  ) {
    this.ctx = { url: options.sitemapUrl, bytes: 0 };
  }

  get stats(): ParseStats {
    const { sink, ctx } = this;
    const format = this.backend?.format ?? null;
    const truncated = this.backend?.truncated ?? false;
    return {
      format,
      urls: sink.urls,
      sitemaps: sink.sitemaps,
      dropped: { ...sink.dropped },
      dropExamples: { ...sink.dropExamples },
      invalidLastmod: sink.invalidLastmod,
      refusedChildren: sink.refusedChildren,
      bytes: ctx.bytes,
      truncated,
    };
  }

  write(chunk: Uint8Array): ParsedItem[] {
    this.checkUsable();
    try {
      this.ctx.bytes += chunk.byteLength;
      this.accept(chunk);
      return this.sink.take();
    } catch (error) {
      throw this.failed(error);
    }
  }

  end(): ParsedItem[] {
    this.checkUsable();
    try {
      this.finish();
      this.ended = true;
      log.debug({ event: 'sitemap_parsed', url: this.ctx.url, ...this.stats }, 'sitemap parsed');
      return this.sink.take();
    } catch (error) {
      throw this.failed(error);
    }
  }

  private accept(chunk: Uint8Array): void {
    if (this.decoder !== null) return this.route(this.decoder.decode(chunk), false);
    this.headBytes += chunk.byteLength;
    // A chunk kept across calls is copied: the caller may reuse its buffer.
    this.head.push(this.headBytes < SNIFF_BYTES ? Uint8Array.from(chunk) : chunk);
    if (this.headBytes >= SNIFF_BYTES) this.startDecoding();
  }

  private startDecoding(): void {
    const head = this.head.length === 1 && this.head[0] !== undefined ? this.head[0] : Buffer.concat(this.head);
    this.head = [];
    if (isGzip(head)) {
      throw parseFailure(this.ctx, 'unsupported_format', 'gzip-compressed bytes: inflate them before parsing');
    }
    const decoder = createStreamDecoder(detectEncoding(head), this.ctx);
    this.decoder = decoder;
    this.route(decoder.decode(head), false);
  }

  // Leading blanks are dropped until the first character that tells XML from text.
  private route(text: string, final: boolean): void {
    if (this.backend !== null) return this.backend.write(text);
    const lead = this.lead === '' ? text.trimStart() : this.lead + text;
    this.lead = lead;
    if (lead.length === 0 || (lead.length < SNIFF_CHARS && !final)) return;
    this.lead = '';
    this.backend = this.createBackend(sniffMode(lead, this.ctx));
    this.backend.write(lead);
  }

  private createBackend(mode: DocumentMode): Backend {
    const encoding = this.decoder?.encoding;
    log.debug({ event: 'sitemap_sniffed', url: this.ctx.url, mode, encoding }, 'format sniffed');
    if (mode === 'text') return new TextSitemapParser(this.ctx, this.sink, this.options);
    return new XmlReader(this.ctx, new EntryBuilder(this.sink, this.options), this.tokenizer);
  }

  private finish(): void {
    if (this.decoder === null) this.startDecoding();
    this.route(this.decoder?.flush() ?? '', true);
    if (this.backend === null) throw parseFailure(this.ctx, 'not_sitemap', 'empty document');
    this.backend.end();
  }

  private checkUsable(): void {
    if (this.failure !== null) throw this.failure;
    if (this.ended) throw new Error('sitemap parser used after end()');
  }

  private failed(error: unknown): unknown {
    this.failure = error;
    const { url, bytes } = this.ctx;
    log.debug({ event: 'sitemap_parse_failed', url, bytes, err: error }, 'sitemap parse failed');
    return error;
  }
}

/**
 * A streaming parser for one sitemap document (XML urlset or index, text list, RSS, Atom). `tokenizer`
 * is for tests and benchmarks: 'general' reads XML with htmlparser2's tokenizer alone.
 */
export function createSitemapParser(options: ParserOptions, tokenizer: XmlTokenizer = 'fast'): SitemapParser {
  return new StreamingSitemapParser(options, tokenizer);
}

/** Parses a whole document at once: for tests, estimates and small files. */
export function parseSitemapBytes(bytes: Uint8Array | string, options: ParserOptions): { items: ParsedItem[]; stats: ParseStats } {
  const parser = createSitemapParser(options);
  const data = typeof bytes === 'string' ? new TextEncoder().encode(bytes) : bytes;
  const items = parser.write(data);
  for (const item of parser.end()) items.push(item);
  return { items, stats: parser.stats };
}
