import { Tokenizer, type TokenizerCallbacks } from 'htmlparser2';
import { MAX_FIELD_CHARS } from './parse-limits.js';

// htmlparser2 (entities' replaceCodePoint) decodes a reference to no character (NUL, a surrogate, above U+10FFFF) as U+FFFD.
const REPLACEMENT = 0xfffd;

/** What the sitemap reader gets from the token stream: balanced elements, wanted text and attributes. */
/** Name ids given to TokenHandler.open are below this. */
export const MAX_NAME_IDS = 32;

export interface TokenHandler {
  /** True while text is collected; other text is never copied out of the input. */
  readonly collecting: boolean;
  /** True while the element just opened wants its attributes. */
  readonly wantsAttributes: boolean;
  /**
   * An element opened; `name` is the lower-cased qualified name (`sm:loc`). `id` is a small number (below MAX_NAME_IDS) the
   * tokenizer gives that name for the whole document, so the handler may remember what the name means; -1 when none.
   */
  open(name: string, id: number): void;
  /**
   * An attribute of the element just opened: name lower-cased, value decoded (stops growing past MAX_FIELD_CHARS);
   * null when the value holds a character reference that is not a character (see `invalidReference`).
   */
  attribute(name: string, value: string | null): void;
  /** The open tag of the element that wanted attributes ended: all its attributes have been given. */
  openTagEnd(): void;
  /** The innermost open element closed (explicitly, by an outer end tag, or at the end). */
  close(): void;
  /** Text or CDATA content while collecting, in pieces. */
  text(data: string): void;
  /**
   * While collecting: a numeric character reference to no character (above U+10FFFF, a surrogate, NUL, or U+FFFD
   * itself, which is what the decoder turns the others into) was met in the text; its text is not given.
   */
  invalidReference(): void;
  /** A `<!...>` declaration's content, e.g. `DOCTYPE html`. */
  declaration(data: string): void;
  /**
   * Optional: a whole plain `<url>` entry (the sitemap tokenizer's PLAIN_ENTRY: `<loc>`, then `<lastmod>`,
   * `<changefreq>` and `<priority>` when present, else undefined), met with only the root open and nothing collected.
   * Taking it must do exactly what its open, text and close events would; false when the handler cannot say so
   * cheaply, and the tokenizer then emits those events.
   */
  plainUrl?(loc: string, lastmod: string | undefined, changefreq: string | undefined, priority: string | undefined): boolean;
}

/**
 * htmlparser2's streaming Tokenizer in xmlMode, driven directly: its Parser layer would copy every text
 * node, build attribute objects and keep a name stack of its own (measured: 10-25% slower end to end on
 * an 11 MB urlset). This keeps only what the reader needs: the open element names (end tags are
 * matched like the Parser does in xmlMode: an unmatched end tag is ignored, a matching outer one closes
 * everything inside it) and the input chunks a pending token still spans.
 */
export class XmlTokenStream implements TokenizerCallbacks {
  // Made by the first write: where the sitemap tokenizer read the whole document, this stream is only ended (the
  // elements still open closed), and a fresh htmlparser2 tokenizer's end does no more than call `onend`.
  private tokenizer: Tokenizer | null = null;
  private readonly names: string[];
  private readonly buffers: string[] = [];
  private bufferStart = 0;
  private bufferEnd = 0;
  private consumed = 0;
  private attrName = '';
  private attrValue = '';
  private attrInvalid = false;
  private reopening: boolean;

  /**
   * `openNames`: elements another tokenizer left open when this one takes over the document; `reopens`:
   * the first tag read is the last of them, whose name the handler already has.
   */
  constructor(
    private readonly handler: TokenHandler,
    openNames: readonly string[] = [],
    reopens = false,
  ) {
    this.names = reopens ? openNames.slice(0, -1) : [...openNames];
    this.reopening = reopens;
  }

  /** Characters held for a token that has not ended yet (a comment, CDATA, tag or attribute in progress). */
  get pendingChars(): number {
    return this.bufferEnd - this.consumed;
  }

  /** Tokenizes one chunk of text. */
  write(text: string): void {
    this.buffers.push(text);
    this.bufferEnd += text.length;
    (this.tokenizer ??= new Tokenizer({ xmlMode: true, decodeEntities: true }, this)).write(text);
    this.release();
  }

  /** Flushes trailing data and closes every element still open. */
  end(): void {
    if (this.tokenizer === null) this.onend();
    else this.tokenizer.end();
  }

  /** @internal */
  ontext(start: number, endIndex: number): void {
    this.consumed = endIndex;
    if (this.handler.collecting) this.handler.text(this.slice(start, endIndex));
  }

  /** @internal */
  ontextentity(codepoint: number, endIndex: number): void {
    this.consumed = endIndex;
    if (!this.handler.collecting) return;
    if (codepoint === REPLACEMENT) this.handler.invalidReference();
    else this.handler.text(String.fromCodePoint(codepoint));
  }

  /** @internal */
  oncdata(start: number, endIndex: number, endOffset: number): void {
    this.consumed = endIndex;
    if (this.handler.collecting) this.handler.text(this.slice(start, endIndex - endOffset));
  }

  /** @internal */
  onopentagname(start: number, endIndex: number): void {
    this.consumed = endIndex;
    const name = this.slice(start, endIndex).toLowerCase();
    this.names.push(name);
    if (this.reopening) this.reopening = false;
    else this.handler.open(name, -1);
  }

  /** @internal */
  onattribname(start: number, endIndex: number): void {
    this.consumed = endIndex;
    if (!this.handler.wantsAttributes) return;
    this.attrName = this.slice(start, endIndex).toLowerCase();
    this.attrValue = '';
    this.attrInvalid = false;
  }

  /** @internal */
  onattribdata(start: number, endIndex: number): void {
    this.consumed = endIndex;
    if (this.keepsAttribute()) this.attrValue += this.slice(start, endIndex);
  }

  /** @internal */
  onattribentity(codepoint: number): void {
    if (codepoint === REPLACEMENT) this.attrInvalid = true;
    else if (this.keepsAttribute()) this.attrValue += String.fromCodePoint(codepoint);
  }

  /** @internal */
  onattribend(_quote: unknown, endIndex: number): void {
    this.consumed = endIndex;
    if (!this.handler.wantsAttributes) return;
    this.handler.attribute(this.attrName, this.attrInvalid ? null : this.attrValue);
    this.attrValue = '';
    this.attrInvalid = false;
  }

  /** @internal */
  onopentagend(endIndex: number): void {
    this.consumed = endIndex;
    if (this.handler.wantsAttributes) this.handler.openTagEnd();
  }

  /** @internal In xmlMode `<x/>` closes the element it opened, which is always the innermost. */
  onselfclosingtag(endIndex: number): void {
    this.consumed = endIndex;
    if (this.handler.wantsAttributes) this.handler.openTagEnd();
    this.pop(1);
  }

  /** @internal */
  onclosetag(start: number, endIndex: number): void {
    this.consumed = endIndex;
    if (this.closesInnermost(start, endIndex)) return this.pop(1);
    const name = this.slice(start, endIndex).toLowerCase();
    const at = this.names.lastIndexOf(name);
    if (at !== -1) this.pop(this.names.length - at);
  }

  /** @internal */
  ondeclaration(start: number, endIndex: number): void {
    this.consumed = endIndex;
    this.handler.declaration(this.slice(start, endIndex));
  }

  /** @internal `<?xml ...?>` and `<?xml-stylesheet ...?>` carry nothing the reader needs. */
  onprocessinginstruction(_start: number, endIndex: number): void {
    this.consumed = endIndex;
  }

  /** @internal */
  oncomment(_start: number, endIndex: number): void {
    this.consumed = endIndex;
  }

  /** @internal */
  onend(): void {
    this.pop(this.names.length);
  }

  // The value stops growing past the bound; the handler then refuses it, so memory stays bounded.
  private keepsAttribute(): boolean {
    return this.handler.wantsAttributes && this.attrValue.length <= MAX_FIELD_CHARS;
  }

  private pop(count: number): void {
    for (let left = count; left > 0; left--) {
      this.names.pop();
      this.handler.close();
    }
  }

  // Nearly every end tag closes the innermost element with the same spelling: compared in place, no copy.
  private closesInnermost(start: number, end: number): boolean {
    const innermost = this.names[this.names.length - 1];
    const buffer = this.buffers[this.buffers.length - 1] ?? '';
    const offset = start - (this.bufferEnd - buffer.length);
    return innermost !== undefined && innermost.length === end - start && offset >= 0 && buffer.startsWith(innermost, offset);
  }

  // Token indexes are absolute; a token may start in an earlier chunk than the one being tokenized.
  private slice(start: number, end: number): string {
    let index = 0;
    let base = this.bufferStart;
    let buffer = this.buffers[0] ?? '';
    while (start - base >= buffer.length && index < this.buffers.length - 1) {
      base += buffer.length;
      buffer = this.buffers[++index] ?? '';
    }
    let out = buffer.slice(start - base, end - base);
    while (end - base > buffer.length && index < this.buffers.length - 1) {
      base += buffer.length;
      buffer = this.buffers[++index] ?? '';
      out += buffer.slice(0, end - base);
    }
    return out;
  }

  // Chunks that end before the last reported token can never be sliced again.
  private release(): void {
    while (this.buffers.length > 1) {
      const first = this.buffers[0] ?? '';
      if (this.bufferStart + first.length > this.consumed) return;
      this.bufferStart += first.length;
      this.buffers.shift();
    }
  }
}
