import { bareEntry, type ItemSink } from './item-sink.js';
import { checkAbsoluteLoc } from './loc-validator.js';
import { TEXT_LINE_SLACK } from './parse-limits.js';
import { type ParseContext, parseFailure } from './parse-error.js';
import type { ParserOptions } from './types.js';

/**
 * Reads a plain-text sitemap: one absolute URL a line, CRLF tolerated, blank lines and `#` comments
 * skipped. Only the current line is kept; a line too long to be a URL is counted, not buffered.
 */
export class TextSitemapParser {
  readonly format = 'text';
  private line = '';
  private overlong = false;
  private nonUrlLines = 0;

  constructor(
    private readonly ctx: ParseContext,
    private readonly sink: ItemSink,
    private readonly options: ParserOptions,
  ) {}

  /** Parses decoded text; a line split across chunks is completed by the next call. */
  write(text: string): void {
    let start = 0;
    for (let newline = text.indexOf('\n'); newline !== -1; newline = text.indexOf('\n', start)) {
      this.append(text, start, newline);
      this.flushLine();
      start = newline + 1;
    }
    this.append(text, start, text.length);
  }

  /** Flushes the last line; a document with no URL at all but other lines is not a sitemap. */
  end(): void {
    this.flushLine();
    if (this.sink.urls === 0 && this.nonUrlLines > 0) {
      const message = `text document without a single URL (${this.nonUrlLines} other lines)`;
      throw parseFailure(this.ctx, 'not_sitemap', message);
    }
  }

  private append(text: string, start: number, end: number): void {
    if (this.overlong || start === end) return;
    this.line += text.slice(start, end);
    if (this.line.length > this.options.maxUrlLength + TEXT_LINE_SLACK) {
      this.overlong = true;
      this.line = '';
    }
  }

  private flushLine(): void {
    const line = this.line.trim();
    this.line = '';
    if (this.overlong) {
      this.overlong = false;
      return this.sink.drop('tooLong');
    }
    if (line.length === 0 || line.charCodeAt(0) === 0x23 /* # */) return;
    const checked = checkAbsoluteLoc(line, this.options.maxUrlLength);
    if (checked.drop === null) return this.sink.url(bareEntry(checked.loc, null));
    if (checked.drop !== 'tooLong') this.nonUrlLines += 1;
    this.sink.drop(checked.drop, line);
  }
}
