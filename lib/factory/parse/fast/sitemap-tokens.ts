import { MAX_NAME_IDS, type TokenHandler } from '../xml-tokens.js';

/**
 * An incomplete token held across chunks longer than this is handed to the general tokenizer, which
 * owns the limits on giant tokens (comments, CDATA, tags); real sitemap tokens are a few hundred chars, and bounding the
 * tail bounds the rescan a tiny chunk costs.
 */
export const MAX_FAST_TAIL_CHARS = 4_096;

/**
 * The usual urlset entry: `<url>` holding `<loc>` and optionally `<lastmod>`, `<changefreq>`, `<priority>` in that
 * order, lower-case names without prefix or attributes, text without `<`, blanks between the tags. One sticky
 * match reads it several times faster than its 14 tokens one by one; anything else does not match and is tokenized.
 * Text with an `&` (a query string's `&amp;`) is decoded as the general tokenizer decodes it (the 5 entities and
 * numeric references; a bare `&` stays as written); a reference to no character sends the entry to the token path.
 */
const PLAIN_ENTRY =
  /[ \t\r\n]*<url>[ \t\r\n]*<loc>([^<]*)<\/loc>[ \t\r\n]*(?:<lastmod>([^<]*)<\/lastmod>[ \t\r\n]*)?(?:<changefreq>([^<]*)<\/changefreq>[ \t\r\n]*)?(?:<priority>([^<]*)<\/priority>[ \t\r\n]*)?<\/url>/y;
/** Chars of a new chunk joined to the token cut at the last one's end: enough to complete any token the tail may hold. */
const BRIDGE_CHARS = 2 * MAX_FAST_TAIL_CHARS;
const PLAIN_NAMES: readonly string[] = ['url', 'loc', 'lastmod', 'changefreq', 'priority'];
const MAX_LANE_MISSES = 4;

// nextCommentBang before the chunk's first comment.
const NOT_SEARCHED = -2;

// Results of scanning one token: the index after it, or one of these.
const INCOMPLETE = -1;
const UNSUPPORTED = -2;

const GT = 0x3e; // >
const SLASH = 0x2f; // /
const BANG = 0x21; // !
const QUESTION = 0x3f; // ?
const HASH = 0x23; // #
const EQ = 0x3d; // =
const DQUOTE = 0x22; // "
const SQUOTE = 0x27; // '

/** True when `name` is spelled in `s` at `at`: compared code by code, cheaper than startsWith for short names. */
function spelledAt(s: string, name: string, at: number): boolean {
  const length = name.length;
  if (at + length > s.length) return false;
  for (let k = 0; k < length; k++) if (s.charCodeAt(at + k) !== name.charCodeAt(k)) return false;
  return true;
}

/** htmlparser2's whitespace: space, \n, \t, \f, \r. */
function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x09 || c === 0x0c || c === 0x0d;
}

/** ASCII letters and `_`: the only first characters of a name read here (anything else goes to the general path). */
function isNameStart(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x5f;
}

/** Letters, digits, `_ . : -`. */
function isNameChar(c: number): boolean {
  return isNameStart(c) || (c >= 0x30 && c <= 0x3a) || c === 0x2e || c === 0x2d;
}

// The 5 XML entities: htmlparser2 decodes exactly these in xmlMode (strict: the `;` is required).
const ENTITIES: ReadonlyArray<readonly [string, string]> = [
  ['&amp;', '&'],
  ['&lt;', '<'],
  ['&gt;', '>'],
  ['&quot;', '"'],
  ['&apos;', "'"],
];
const LONGEST_ENTITY = 6;

/** The entity spelled at `at` (which holds `&`) and its length, or null when the `&` stays as written. */
function entityAt(s: string, at: number): readonly [string, string] | null {
  for (const entity of ENTITIES) if (s.startsWith(entity[0], at)) return entity;
  return null;
}

/**
 * `text` (complete: followed by a tag) with the 5 entities and numeric references decoded as htmlparser2 decodes them
 * in xmlMode (strict: the `;` is required, else the `&` stays as written; an XML reference is its code point as is),
 * or null when a reference is to no character (NUL, a surrogate, past U+10FFFF, or U+FFFD itself): the token path
 * reports that one.
 */
function decodeReferences(text: string): string | null {
  let out = '';
  let start = 0;
  for (let amp = text.indexOf('&'); amp !== -1; amp = text.indexOf('&', amp + 1)) {
    let decoded: string;
    let after: number;
    if (text.charCodeAt(amp + 1) === HASH) {
      const reference = numericReference(text, amp + 2);
      if (reference === null) continue;
      if (reference.codePoint === REPLACEMENT) return null;
      decoded = String.fromCodePoint(reference.codePoint);
      after = reference.end;
    } else {
      const entity = entityAt(text, amp);
      if (entity === null) continue;
      decoded = entity[1];
      after = amp + entity[0].length;
    }
    out += text.slice(start, amp) + decoded;
    start = after;
    amp = start - 1;
  }
  return start === 0 ? text : out + text.slice(start);
}

const REPLACEMENT = 0xfffd;

/** The numeric reference whose digits start at `at` (after `&#`), ending after its `;`; null when it is not one. */
function numericReference(text: string, at: number): { codePoint: number; end: number } | null {
  const hex = (text.charCodeAt(at) | 0x20) === 0x78; // x or X
  let i = hex ? at + 1 : at;
  const first = i;
  let value = 0;
  for (; i < text.length; i++) {
    const digit = digitValue(text.charCodeAt(i), hex);
    if (digit === -1) break;
    value = value * (hex ? 16 : 10) + digit;
  }
  if (i === first || text.charCodeAt(i) !== 0x3b) return null; // no digits, or no ';'
  const invalid = value === 0 || (value >= 0xd800 && value <= 0xdfff) || value > 0x10ffff;
  return { codePoint: invalid ? REPLACEMENT : value, end: i + 1 };
}

function digitValue(c: number, hex: boolean): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (!hex) return -1;
  const lower = c | 0x20;
  return lower >= 0x61 && lower <= 0x66 ? lower - 0x61 + 10 : -1;
}

/** The matched fields with references decoded, or null when one refers to no character (the token path reads it). */
function decodedFields(m: RegExpExecArray): RegExpExecArray | null {
  for (let i = 1; i <= 4; i++) {
    const field = m[i];
    if (field === undefined || field.indexOf('&') === -1) continue;
    const decoded = decodeReferences(field);
    if (decoded === null) return null;
    m[i] = decoded;
  }
  return m;
}

/** True when the text from `at` (an `&`) to the end of the chunk could still become an entity or a numeric reference. */
function couldGrowIntoEntity(rest: string): boolean {
  if (rest.length >= LONGEST_ENTITY) return false;
  return rest.charCodeAt(1) === HASH || ENTITIES.some(([spelled]) => spelled.startsWith(rest));
}

/**
 * A tokenizer specialised for sitemaps, over decoded text: `indexOf` finds each `<` (and each `&` inside
 * collected text), whitespace between tags is never copied, element names are interned, and only the
 * text and attributes the handler asks for are sliced; between entries of the root, a plain `<url>` entry is read
 * with one sticky match (PLAIN_ENTRY) instead of token by token. It emits exactly the events XmlTokenStream emits
 * for the same input (end tags matched the same way: an unmatched one is ignored, a matching outer one
 * closes everything inside it) and handles comments, CDATA, processing instructions and the 5 XML
 * entities. Anything else (a declaration such as DOCTYPE, a numeric reference in collected text or an
 * attribute, an unusual name or attribute syntax, a token longer than MAX_FAST_TAIL_CHARS) stops it at
 * the start of that token: `write` returns the text from there on, for the general tokenizer to take
 * over with `openNames`. Nothing has been emitted for that token, so the output is the same.
 */
export class SitemapTokenStream {
  private readonly names: string[] = [];
  // Lower-case names seen spelled in lower case, reused instead of slicing each tag's name again; the index is the name's id.
  private readonly known: string[] = [];
  // Per known name, the id of the name opened right after it last time: sitemap entries repeat one sequence of
  // elements, so the next open tag is tried against that name before its name is scanned.
  private readonly nextOpen = new Int8Array(MAX_NAME_IDS).fill(-1);
  private lastOpen = -1;
  // The id of the name startTag or intern just read (-1 when it is not interned).
  private nameId = -1;
  // Per attribute of the tag being read: name start, name end, value start, value end.
  private readonly attrs: number[] = [];
  private attrCount = 0;
  private selfClosing = false;
  // The open tag kept in `tail` already had its name emitted: htmlparser2 reports a name as soon as it
  // ends, and opening an element can throw (root, depth), so a chunk ending inside a tag does the same.
  private openEmitted = false;
  private tail = '';
  private stopped = false;
  // Plain entries tried in a row without a match: past MAX_LANE_MISSES the document is not read that way (an index,
  // entries with extensions or attributes).
  private laneMisses = 0;
  private readonly plainNames: string[] = [];
  private readonly plainIds = new Int8Array(PLAIN_NAMES.length);
  // Next `&` and `--!>` in the chunk being scanned, at or after the last position asked for (-1: none left;
  // NOT_SEARCHED: `--!>` not looked for yet in this chunk).
  // Scanning only moves forward, so each is searched once per chunk, never again from every text node.
  private nextAmp = -1;
  private nextCommentBang = -1;

  constructor(private readonly handler: TokenHandler) {}

  /** Lower-cased qualified names of the open elements, outermost first. */
  get openNames(): readonly string[] {
    return this.names;
  }

  /** True when the text handed over starts with an open tag whose name was already given to the handler. */
  get reopens(): boolean {
    return this.openEmitted;
  }

  /** Tokenizes one chunk; returns null when it was handled, else the text the general tokenizer must read from here on. */
  write(text: string): string | null {
    const tail = this.tail;
    if (tail === '') return this.finish(text, this.scan(text, 0, text.length));
    this.tail = '';
    // The token cut at the last chunk's end is completed on a small joint, so the chunk is then scanned as it
    // came: `tail + text` would be flattened into a copy of the whole chunk by the first search in it.
    const bridge = Math.min(text.length, BRIDGE_CHARS);
    const joint = tail + text.slice(0, bridge);
    const stop = this.scan(joint, 0, tail.length);
    if (this.stopped) return joint.slice(stop) + text.slice(bridge);
    if (stop >= tail.length) return this.finish(text, this.scan(text, stop - tail.length, text.length));
    if (bridge === text.length) return this.finish(joint, stop);
    // A token longer than the joint (rare): read the two as one string.
    const whole = tail + text;
    return this.finish(whole, this.scan(whole, stop, whole.length));
  }

  // After scanning `s` up to `stop`: done, an incomplete token kept for the next chunk, or the general tokenizer's text.
  private finish(s: string, stop: number): string | null {
    if (stop === s.length) return null;
    if (!this.stopped && s.length - stop <= MAX_FAST_TAIL_CHARS) {
      this.tail = s.slice(stop);
      return null;
    }
    return s.slice(stop);
  }

  /** The incomplete token left at the end of the document ('' if none): the general tokenizer finishes it. */
  end(): string {
    const tail = this.tail;
    this.tail = '';
    return tail;
  }

  // Scans `s` from `from` (a token boundary) until a token ends at or past `until`. Returns where it stopped: that
  // boundary, s.length when all was read, else the start of an incomplete token (kept for the next chunk) or, with
  // `stopped` set, of one the general tokenizer must read.
  private scan(s: string, from: number, until: number): number {
    const handler = this.handler;
    this.nextAmp = s.indexOf('&', from);
    this.nextCommentBang = NOT_SEARCHED;
    let pos = from;
    while (pos < until) {
      if (this.laneMisses < MAX_LANE_MISSES && !handler.collecting && this.names.length === 1 && !this.openEmitted) {
        const after = this.plainEntry(s, pos);
        if (after !== -1) {
          pos = after;
          continue;
        }
      }
      const lt = s.indexOf('<', pos);
      const end = lt === -1 ? s.length : lt;
      if (end > pos && handler.collecting) {
        const at = this.text(s, pos, end, lt === -1);
        if (at !== end) return at;
      }
      if (lt === -1) return s.length;
      const next = this.token(s, lt);
      if (next < 0) {
        this.stopped = next === UNSUPPORTED;
        return lt;
      }
      pos = next;
    }
    return pos;
  }

  /**
   * A whole plain `<url>` entry at `pos` (see PLAIN_ENTRY), read with one sticky match instead of token by token:
   * emits exactly the events the token path would (the blanks between its tags are not collected text unless
   * `<url>` itself collects, which hands back right after `<url>`). Returns where it ended, or -1 when the text
   * at `pos` is not one (the token path reads it).
   */
  private plainEntry(s: string, pos: number): number {
    PLAIN_ENTRY.lastIndex = pos;
    const matched = PLAIN_ENTRY.exec(s);
    // An `&` inside the entry (the next one in the chunk comes before the match's end): its fields are decoded.
    const amp = matched === null ? -1 : this.ampFrom(s, pos);
    const m = amp !== -1 && amp < PLAIN_ENTRY.lastIndex && matched !== null ? decodedFields(matched) : matched;
    if (m === null) {
      this.laneMisses += 1;
      return -1;
    }
    this.laneMisses = 0;
    const handler = this.handler;
    if (handler.plainUrl?.(m[1] ?? '', m[2], m[3], m[4]) === true) return PLAIN_ENTRY.lastIndex;
    this.openPlain(0);
    if (handler.collecting) return s.indexOf('<url>', pos) + 5;
    this.plainField(1, m[1]);
    if (m[2] !== undefined) this.plainField(2, m[2]);
    if (m[3] !== undefined) this.plainField(3, m[3]);
    if (m[4] !== undefined) this.plainField(4, m[4]);
    this.pop(1);
    return PLAIN_ENTRY.lastIndex;
  }

  // `<name>text</name>` of a plain entry: the open tag, its text if the handler collects it, the end tag.
  private plainField(which: number, text: string | undefined): void {
    this.openPlain(which);
    if (text !== undefined && text.length > 0 && this.handler.collecting) this.handler.text(text);
    this.pop(1);
  }

  // Opens PLAIN_NAMES[which] as emitOpen would for a tag without attributes (its interned name and id looked up once).
  private openPlain(which: number): void {
    let name = this.plainNames[which];
    if (name === undefined) {
      const plain = PLAIN_NAMES[which] ?? '';
      name = this.intern(plain, 0, plain.length);
      this.plainNames[which] = name;
      this.plainIds[which] = this.nameId;
    }
    this.names.push(name);
    const handler = this.handler;
    handler.open(name, this.plainIds[which] ?? -1);
    if (handler.wantsAttributes) handler.openTagEnd();
  }

  // Collected text from `from` to `end` with the 5 entities decoded; a bare `&` stays as written.
  // Returns `end`, or where it stopped: a numeric reference (general path) or an entity cut by the chunk's end.
  private text(s: string, from: number, end: number, last: boolean): number {
    let amp = this.ampFrom(s, from);
    if (amp === -1 || amp >= end) {
      this.handler.text(s.slice(from, end));
      return end;
    }
    let out = '';
    let start = from;
    for (; amp !== -1 && amp < end; amp = this.ampFrom(s, amp + 1)) {
      if (last && couldGrowIntoEntity(s.slice(amp, end))) return this.textUpTo(out, s, start, amp, false);
      if (s.charCodeAt(amp + 1) === HASH) return this.textUpTo(out, s, start, amp, true);
      const entity = entityAt(s, amp);
      if (entity === null) continue;
      out += s.slice(start, amp) + entity[1];
      start = amp + entity[0].length;
      amp = start - 1;
    }
    this.handler.text(out + s.slice(start, end));
    return end;
  }

  private ampFrom(s: string, from: number): number {
    if (this.nextAmp !== -1 && this.nextAmp < from) this.nextAmp = s.indexOf('&', from);
    return this.nextAmp;
  }

  private textUpTo(out: string, s: string, start: number, at: number, unsupported: boolean): number {
    const text = out + s.slice(start, at);
    if (text.length > 0) this.handler.text(text);
    this.stopped = unsupported;
    return at;
  }

  // One token starting at `lt`: returns the index after it, INCOMPLETE or UNSUPPORTED.
  private token(s: string, lt: number): number {
    if (lt + 1 >= s.length) return INCOMPLETE;
    const c = s.charCodeAt(lt + 1);
    if (c === SLASH) return this.endTag(s, lt + 2);
    if (isNameStart(c)) return this.startTag(s, lt + 1);
    if (c === QUESTION) {
      // A processing instruction (`<?xml ...?>`, a stylesheet) ends at `?>`; nothing in it is needed.
      const close = s.indexOf('?>', lt + 2);
      return close === -1 ? INCOMPLETE : close + 2;
    }
    if (c === BANG) return this.markup(s, lt);
    return UNSUPPORTED;
  }

  // `<!--...-->` is skipped, `<![CDATA[...]]>` is text; any other `<!` (DOCTYPE...) goes to the general path.
  private markup(s: string, lt: number): number {
    if (s.startsWith('<!--', lt)) {
      const close = s.indexOf('-->', lt + 4);
      if (close === -1) return INCOMPLETE;
      // htmlparser2 also ends a comment at `--!>`: left to it.
      // Searched from the first comment of the chunk on: most chunks have none.
      if (this.nextCommentBang === NOT_SEARCHED || (this.nextCommentBang !== -1 && this.nextCommentBang < lt + 4))
        this.nextCommentBang = s.indexOf('--!>', lt + 4);
      return this.nextCommentBang !== -1 && this.nextCommentBang < close ? UNSUPPORTED : close + 3;
    }
    if (s.startsWith('<![CDATA[', lt)) {
      const close = s.indexOf(']]>', lt + 9);
      if (close === -1) return INCOMPLETE;
      if (this.handler.collecting) this.handler.text(s.slice(lt + 9, close));
      return close + 3;
    }
    const head = s.slice(lt, lt + 9);
    return head.length < 9 && ('<!--'.startsWith(head) || '<![CDATA['.startsWith(head)) ? INCOMPLETE : UNSUPPORTED;
  }

  private startTag(s: string, from: number): number {
    const n = s.length;
    const nameEnd = this.predictedNameEnd(s, from);
    let i = nameEnd;
    if (i === -1) {
      i = from + 1;
      while (i < n && isNameChar(s.charCodeAt(i))) i++;
      if (i >= n) return INCOMPLETE;
    }
    const c = s.charCodeAt(i);
    if (c !== GT && c !== SLASH && !isSpace(c)) return UNSUPPORTED;
    this.attrCount = 0;
    const after = c === GT ? i + 1 : this.attributes(s, i);
    if (after === INCOMPLETE && !this.openEmitted) {
      this.open(s, from, i, nameEnd !== -1);
      this.openEmitted = true;
    }
    if (after < 0) return after;
    this.emitOpen(s, from, i, c === GT ? false : this.selfClosing, nameEnd !== -1);
    return after;
  }

  // Where the name at `from` ends when it is the one that followed the previous open tag's name last time, else -1.
  private predictedNameEnd(s: string, from: number): number {
    const guess = this.lastOpen === -1 ? -1 : (this.nextOpen[this.lastOpen] ?? -1);
    if (guess === -1) return -1;
    const name = this.known[guess] ?? '';
    const end = from + name.length;
    if (end >= s.length || isNameChar(s.charCodeAt(end)) || !spelledAt(s, name, from)) return -1;
    this.nameId = guess;
    return end;
  }

  // Reads the attributes up to the tag's end, recording their positions; `&#` in a value is left to the general path.
  private attributes(s: string, from: number): number {
    const n = s.length;
    const attrs = this.attrs;
    this.selfClosing = false;
    let i = from;
    for (;;) {
      while (i < n && isSpace(s.charCodeAt(i))) i++;
      if (i >= n) return INCOMPLETE;
      const c = s.charCodeAt(i);
      if (c === GT) return i + 1;
      if (c === SLASH) {
        if (i + 1 >= n) return INCOMPLETE;
        if (s.charCodeAt(i + 1) !== GT) return UNSUPPORTED;
        this.selfClosing = true;
        return i + 2;
      }
      if (!isNameStart(c)) return UNSUPPORTED;
      const nameStart = i;
      while (i < n && isNameChar(s.charCodeAt(i))) i++;
      if (i + 1 >= n) return INCOMPLETE;
      const quote = s.charCodeAt(i + 1);
      if (s.charCodeAt(i) !== EQ || (quote !== DQUOTE && quote !== SQUOTE)) return UNSUPPORTED;
      const valueEnd = s.indexOf(quote === DQUOTE ? '"' : "'", i + 2);
      if (valueEnd === -1) return INCOMPLETE;
      for (let amp = this.ampFrom(s, i + 2); amp !== -1 && amp < valueEnd; amp = this.ampFrom(s, amp + 1)) {
        if (s.charCodeAt(amp + 1) === HASH) return UNSUPPORTED;
      }
      const at = this.attrCount;
      attrs[at] = nameStart;
      attrs[at + 1] = i;
      attrs[at + 2] = i + 2;
      attrs[at + 3] = valueEnd;
      this.attrCount = at + 4;
      i = valueEnd + 1;
    }
  }

  private emitOpen(s: string, from: number, to: number, selfClosing: boolean, predicted: boolean): void {
    const handler = this.handler;
    if (this.openEmitted) this.openEmitted = false;
    else this.open(s, from, to, predicted);
    if (handler.wantsAttributes) {
      const attrs = this.attrs;
      for (let k = 0; k < this.attrCount; k += 4) {
        handler.attribute(s.slice(attrs[k], attrs[k + 1]).toLowerCase(), this.decodeValue(s, attrs[k + 2] ?? 0, attrs[k + 3] ?? 0));
      }
      handler.openTagEnd();
    }
    if (selfClosing) this.pop(1);
  }

  // Opens the element named s[from, to): `predicted` when predictedNameEnd already found its id.
  private open(s: string, from: number, to: number, predicted: boolean): void {
    const name = predicted ? (this.known[this.nameId] ?? '') : this.intern(s, from, to);
    const id = this.nameId;
    if (this.lastOpen !== -1 && id !== -1) this.nextOpen[this.lastOpen] = id;
    this.lastOpen = id;
    this.names.push(name);
    this.handler.open(name, id);
  }

  private endTag(s: string, from: number): number {
    const n = s.length;
    const names = this.names;
    // Nearly every end tag closes the innermost element, spelled the same: compared in place.
    const innermost = names[names.length - 1];
    if (innermost !== undefined && s.charCodeAt(from + innermost.length) === GT && spelledAt(s, innermost, from)) {
      this.pop(1);
      return from + innermost.length + 1;
    }
    if (from >= n) return INCOMPLETE;
    if (!isNameStart(s.charCodeAt(from))) return UNSUPPORTED;
    let i = from + 1;
    while (i < n && isNameChar(s.charCodeAt(i))) i++;
    let j = i;
    while (j < n && isSpace(s.charCodeAt(j))) j++;
    if (j >= n) return INCOMPLETE;
    if (s.charCodeAt(j) !== GT) return UNSUPPORTED;
    const at = names.lastIndexOf(s.slice(from, i).toLowerCase());
    if (at !== -1) this.pop(names.length - at);
    return j + 1;
  }

  private pop(count: number): void {
    for (let left = count; left > 0; left--) {
      this.names.pop();
      this.handler.close();
    }
  }

  // The lower-cased name s[from, to), setting nameId to its id (-1 when it is not interned).
  private intern(s: string, from: number, to: number): string {
    const length = to - from;
    const known = this.known;
    for (let k = 0; k < known.length; k++) {
      const name = known[k] ?? '';
      if (name.length === length && spelledAt(s, name, from)) {
        this.nameId = k;
        return name;
      }
    }
    const raw = s.slice(from, to);
    const name = raw.toLowerCase();
    this.nameId = -1;
    if (name === raw && known.length < MAX_NAME_IDS) {
      this.nameId = known.length;
      known.push(name);
    }
    return name;
  }

  // An attribute value with the 5 entities decoded (numeric references never reach here). Searched in the
  // sliced value: the tag's values are read again after the scan passed them.
  private decodeValue(s: string, from: number, to: number): string {
    const value = s.slice(from, to);
    let amp = value.indexOf('&');
    if (amp === -1) return value;
    let out = '';
    let start = 0;
    for (; amp !== -1; amp = value.indexOf('&', amp + 1)) {
      const entity = entityAt(value, amp);
      if (entity === null) continue;
      out += value.slice(start, amp) + entity[1];
      start = amp + entity[0].length;
      amp = start - 1;
    }
    return out + value.slice(start);
  }
}
