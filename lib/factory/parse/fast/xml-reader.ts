import { createLogger } from '../../../utils/logger.js';
import type { SitemapFormat } from '../../../core/types.js';
import type { EntryBuilder } from '../entry-builder.js';
import type { ParseContext } from '../parse-error.js';
import { XmlSitemapParser } from '../xml-parser.js';
import { SitemapTokenStream } from './sitemap-tokens.js';

const log = createLogger('factory:parse');

/** Which tokenizer reads XML: the sitemap-specialised one (falling back when it must) or htmlparser2's alone. */
export type XmlTokenizer = 'fast' | 'general';

/**
 * The XML reader: one XmlSitemapParser (element meaning, limits, DTD and root checks, the entry builder)
 * fed by SitemapTokenStream until that meets something it does not handle, then by the general
 * tokenizer from that token on, with the elements still open. Either way the same handler sees the same
 * events, so every rule of the general path applies to both.
 */
export class XmlReader {
  private readonly xml: XmlSitemapParser;
  private fast: SitemapTokenStream | null;

  constructor(
    private readonly ctx: ParseContext,
    builder: EntryBuilder,
    tokenizer: XmlTokenizer,
  ) {
    this.xml = new XmlSitemapParser(ctx, builder);
    this.fast = tokenizer === 'fast' ? new SitemapTokenStream(this.xml) : null;
  }

  /** The root element's format, once seen. */
  get format(): SitemapFormat | null {
    return this.xml.format;
  }

  /** The document ended with its root still open. */
  get truncated(): boolean {
    return this.xml.truncated;
  }

  /** Reads one chunk of decoded text. */
  write(text: string): void {
    const fast = this.fast;
    if (fast === null) return this.xml.write(text);
    const rest = fast.write(text);
    if (rest !== null) this.handOver(fast, rest);
  }

  /** Finishes the document: a token left incomplete is read, and elements still open closed, by the general path. */
  end(): void {
    const fast = this.fast;
    if (fast !== null) this.handOver(fast, fast.end());
    this.xml.end();
  }

  private handOver(fast: SitemapTokenStream, rest: string): void {
    this.fast = null;
    this.xml.resume(fast.openNames, fast.reopens);
    if (rest === '') return;
    log.debug({ event: 'fast_tokenizer_fallback', url: this.ctx.url, bytes: this.ctx.bytes, at: rest.slice(0, 16) }, 'general tokenizer takes over');
    this.xml.write(rest);
  }
}
