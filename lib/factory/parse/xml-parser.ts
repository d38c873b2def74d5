import type { SitemapFormat } from '../../core/types.js';
import { Ctx, FIELD_BASE, Field, childCode } from './element-context.js';
import type { EntryBuilder, LinkAttributes } from './entry-builder.js';
import { MAX_DEPTH, MAX_FIELD_CHARS, MAX_TOKEN_CHARS } from './parse-limits.js';
import { type ParseContext, parseFailure, plainName } from './parse-error.js';
import { MAX_NAME_IDS, type TokenHandler, XmlTokenStream } from './xml-tokens.js';

// Element codes (element-context.ts) are below this.
const CODE_LIMIT = 72;

// `<!DOCTYPE html>` and the XHTML public ids carry no internal subset: an HTML page, safe to name as such.
// The declarations XML has; the message names which one was met in our spelling, never in the document's.
const DECLARATIONS = ['DOCTYPE', 'ENTITY', 'ELEMENT', 'ATTLIST', 'NOTATION'] as const;

/** `a <!DOCTYPE> declaration` for the keyword the data starts with (any case), else `a <!...> declaration`. */
function declarationName(data: string): string {
  const keyword = /^\s*([a-z]+)/i.exec(data)?.[1]?.toUpperCase();
  const known = DECLARATIONS.find((name) => name === keyword);
  return `a <!${known ?? '...'}> declaration`;
}

const HTML_DOCTYPE = /^doctype\s+html(?:\s+(?:public|system)\s[^[]*)?$/i;

/**
 * Reads XML sitemaps, RSS and Atom. Elements are matched by lower-cased local name and the meaning of
 * their parent (a per-depth code array), so any prefix or namespace works and nothing is keyed by a tag
 * name. Only the 5 XML entities and numeric references are ever decoded (htmlparser2's XML decode
 * tree); any DTD declaration ends the parse before anything else happens.
 */
export class XmlSitemapParser implements TokenHandler {
  /** The root element's format, once it has been seen. */
  format: SitemapFormat | null = null;
  /** TokenHandler: true inside a field. */
  collecting = false;
  /** TokenHandler: true while a link or guid tag is open. */
  wantsAttributes = false;
  private tokens: XmlTokenStream;
  private readonly codes: number[] = new Array<number>(MAX_DEPTH + 1).fill(Ctx.Ignore);
  // childCode + 1 by parent code and the tokenizer's name id, filled as names are met (0: not known yet, so a
  // fresh array needs no fill: one per document, and most documents are small).
  private readonly childCodes = new Int8Array(CODE_LIMIT * MAX_NAME_IDS);
  private readonly attrs: LinkAttributes = { rel: null, hreflang: null, href: null, isPermaLink: null, invalid: false };
  private depth = 0;
  /** The document ended with its root still open. */
  truncated = false;
  private rootSeen = false;
  private fieldText = '';
  /** The field being collected held a character reference to no character: it is refused, not kept. */
  private fieldInvalid = false;
  private ending = false;

  constructor(
    private readonly ctx: ParseContext,
    private readonly builder: EntryBuilder,
  ) {
    this.tokens = new XmlTokenStream(this);
  }

  /** Parses decoded text; a token (comment, CDATA, tag) growing past MAX_TOKEN_CHARS is refused. */
  write(text: string): void {
    this.tokens.write(text);
    if (this.tokens.pendingChars > MAX_TOKEN_CHARS) this.tooLong('a single token', MAX_TOKEN_CHARS);
  }

  /** Continues from a token boundary where another tokenizer stopped, with the elements it left open (see XmlTokenStream). */
  resume(openNames: readonly string[], reopens: boolean): void {
    this.tokens = new XmlTokenStream(this, openNames, reopens);
  }

  /** Closes what is still open (a field cut off by the end is discarded) and checks a root was found. */
  end(): void {
    this.ending = true;
    this.truncated = this.rootSeen && this.depth > 0;
    this.tokens.end();
    if (!this.rootSeen) this.fail('invalid_xml', 'no root element');
  }

  /** An element opened: its meaning comes from its parent's code and its local name. */
  open(name: string, id: number): void {
    const depth = this.depth;
    if (depth >= MAX_DEPTH) this.fail('invalid_xml', `elements nested deeper than ${MAX_DEPTH} levels`);
    const code = depth === 0 ? this.rootCode(localName(name)) : this.childCode(this.codes[depth - 1] ?? Ctx.Ignore, name, id);
    this.codes[depth] = code;
    this.depth = depth + 1;
    this.collecting = code >= FIELD_BASE;
    this.wantsAttributes = code === Ctx.Alternate || code === Field.FeedLink || code === Field.Guid;
    if (code === Ctx.Ignore) return;
    if (code >= FIELD_BASE) {
      this.fieldText = '';
      this.fieldInvalid = false;
    } else {
      this.openContext(code, depth);
    }
    if (this.wantsAttributes) this.resetAttrs();
  }

  /** An attribute of a link or guid being read. */
  attribute(name: string, value: string | null): void {
    const attrs = this.attrs;
    if (value === null) {
      attrs.invalid = true;
      return;
    }
    if (value.length > MAX_FIELD_CHARS) this.tooLong('an attribute', MAX_FIELD_CHARS);
    switch (localName(name)) {
      case 'rel':
        attrs.rel ??= value;
        break;
      case 'hreflang':
        attrs.hreflang ??= value;
        break;
      case 'href':
        attrs.href ??= value;
        break;
      case 'ispermalink':
        attrs.isPermaLink ??= value;
        break;
    }
  }

  /** An `<xhtml:link>` is complete with its open tag, closed or not. */
  openTagEnd(): void {
    if (this.codes[this.depth - 1] === Ctx.Alternate) this.builder.addAlternate(this.attrs);
  }

  /** The innermost element closed: a field hands over its text, an entry is finished. */
  close(): void {
    const depth = --this.depth;
    const code = this.codes[depth] ?? Ctx.Ignore;
    this.collecting = depth > 0 && (this.codes[depth - 1] ?? Ctx.Ignore) >= FIELD_BASE;
    if (code === Ctx.Ignore) return;
    if (code >= FIELD_BASE) this.closeField(code);
    else this.closeContext(code, depth);
  }

  /** Text of the field being collected, in pieces. */
  text(data: string): void {
    const text = this.fieldText + data;
    if (text.length > MAX_FIELD_CHARS) this.tooLong('a text field', MAX_FIELD_CHARS);
    this.fieldText = text;
  }

  /**
   * A plain `<url>` with only the root open: when the root is a sitemap root, the entry and its fields are set as
   * open, text and close would set them (the same limits and builder calls), without one handler call per tag.
   */
  plainUrl(loc: string, lastmod: string | undefined, changefreq: string | undefined, priority: string | undefined): boolean {
    if (this.depth !== 1 || this.codes[0] !== Ctx.SitemapRoot || this.ending) return false;
    this.wantsAttributes = false;
    this.fieldInvalid = false;
    this.builder.start(Ctx.Url, 1);
    this.plainField(Field.Loc, loc);
    if (lastmod !== undefined) this.plainField(Field.Lastmod, lastmod);
    if (changefreq !== undefined) this.plainField(Field.Changefreq, changefreq);
    if (priority !== undefined) this.plainField(Field.Priority, priority);
    this.builder.end(1);
    return true;
  }

  private plainField(code: number, text: string): void {
    if (text.length > MAX_FIELD_CHARS) this.tooLong('a text field', MAX_FIELD_CHARS);
    this.builder.setField(code, text);
  }

  /** A reference to no character in the field: the field is refused (a loc drops its entry, counted as malformed). */
  invalidReference(): void {
    this.fieldInvalid = true;
  }

  /**
   * Any `<!...>` declaration (DOCTYPE, ENTITY, ELEMENT... in any spelling) ends the parse: a sitemap has no use
   * for one, and refusing them all means no declared entity can ever reach the output. XSL stylesheet
   * instructions are `<?...?>`, not declarations, and pass. The one exception is a `<!DOCTYPE html>` without an
   * internal subset before the root, which names an HTML page: `not_sitemap`.
   */
  declaration(data: string): void {
    if (!this.rootSeen && HTML_DOCTYPE.test(data)) this.fail('not_sitemap', 'an HTML page (<!DOCTYPE html>), not a sitemap');
    this.fail('doctype_forbidden', `${declarationName(data)} refused: no DOCTYPE or entity declaration is ever processed`);
  }

  // childCode, remembered per name id: the common tags cost one array read instead of string comparisons.
  private childCode(parent: number, name: string, id: number): number {
    if (id < 0) return childCode(parent, localName(name));
    const at = parent * MAX_NAME_IDS + id;
    const known = this.childCodes[at] ?? 0;
    if (known !== 0) return known - 1;
    const code = childCode(parent, localName(name));
    this.childCodes[at] = code + 1;
    return code;
  }

  private rootCode(local: string): number {
    // Elements after the root (injected scripts, a second document) are ignored.
    if (this.rootSeen) return Ctx.Ignore;
    this.rootSeen = true;
    switch (local) {
      case 'urlset':
        this.format = 'urlset';
        return Ctx.SitemapRoot;
      case 'sitemapindex':
        this.format = 'sitemapindex';
        return Ctx.SitemapRoot;
      case 'rss':
        this.format = 'rss';
        return Ctx.RssRoot;
      case 'rdf':
        this.format = 'rss';
        return Ctx.Channel;
      case 'feed':
        this.format = 'atom';
        return Ctx.FeedRoot;
      case 'html':
      case 'head':
      case 'body':
        return this.fail('not_sitemap', `an HTML page (<${local}>), not a sitemap`);
      default: {
        const name = plainName(local);
        return this.fail('not_sitemap', `unknown root element ${name === null ? 'with an unusual name' : `<${name}>`}`);
      }
    }
  }

  private openContext(code: number, depth: number): void {
    switch (code) {
      case Ctx.Url:
      case Ctx.Sitemap:
      case Ctx.Item:
      case Ctx.Entry:
        this.builder.start(code, depth);
        break;
      case Ctx.Image:
      case Ctx.Video:
      case Ctx.News:
        this.builder.openExtension(code);
        break;
    }
  }

  private closeField(code: number): void {
    const text = this.fieldText;
    this.fieldText = '';
    // The document ended inside this field: its text may be cut short, so it is not trusted.
    if (this.ending) return;
    if (this.fieldInvalid) return this.builder.refuseField(code);
    if (code === Field.FeedLink) this.builder.setFeedLink(text, this.attrs);
    else if (code === Field.Guid) this.builder.setGuid(text, this.attrs);
    else this.builder.setField(code, text);
  }

  private closeContext(code: number, depth: number): void {
    switch (code) {
      case Ctx.Url:
      case Ctx.Sitemap:
      case Ctx.Item:
      case Ctx.Entry:
        this.builder.end(depth);
        break;
      case Ctx.Image:
      case Ctx.Video:
      case Ctx.News:
        this.builder.closeExtension(code);
        break;
    }
  }

  private resetAttrs(): void {
    const attrs = this.attrs;
    attrs.rel = attrs.hreflang = attrs.href = attrs.isPermaLink = null;
    attrs.invalid = false;
  }

  // A size cap, like the download cap: `too_large` with the limit, not a syntax error.
  private tooLong(what: string, limit: number): never {
    throw parseFailure(this.ctx, 'too_large', { message: `${what} longer than ${limit} characters`, limit });
  }

  private fail(kind: 'invalid_xml' | 'not_sitemap' | 'doctype_forbidden', message: string): never {
    throw parseFailure(this.ctx, kind, message);
  }
}

/** `sm:loc` -> `loc`; names without a prefix are returned as they are. */
function localName(name: string): string {
  const colon = name.indexOf(':');
  return colon === -1 ? name : name.slice(colon + 1);
}
