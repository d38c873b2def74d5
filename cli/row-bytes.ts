// Printable ASCII but `"` and backslash: what JSON.stringify writes as it is, one byte a character. Anything else (control
// characters, non-ASCII, which may be a lone surrogate JSON.stringify escapes) takes JSON.stringify itself.
const JSON_PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;
// ASCII without a comma, a quote or a line break: a CSV field written as it is, one byte a character.
const CSV_PLAIN = /^[^",\r\n\u0080-\uffff]*$/;
/** Rows whose strings `batch` checks together: a string that needs escaping costs at most this many rows written twice. */
const GROUP_ROWS = 100;
/** Groups `batch` writes checked string by string after a group that needed it. */
const STRICT_GROUPS_AFTER_MISS = 8;
/** Buffers kept for reuse once written (see `recycle`): enough for the few chunks a stream holds at a time. */
const SPARE_BUFFERS = 4;

/**
 * Output rows written as UTF-8 bytes straight into one Buffer per batch, instead of a string per row joined into a
 * string per batch that the stream then encodes: on a 1M-URL walk building, flattening and encoding those ~330 MB
 * of strings (and collecting them) was most of what `--format ndjson|json|csv` cost over `lines`. Strings that are
 * plain ASCII and need no escaping (nearly every URL, date and word a sitemap holds) are copied as they are; anything
 * else takes the exact slow path (JSON.stringify, the CSV quoting rule) encoded by Buffer.
 */
export class RowBytes {
  private buf: Buffer;
  private pos = 0;
  private readonly spare: Buffer[] = [];
  // Inside `batch`: the strings jsonString and csvField left room for, where their bytes go, and which rules they obey.
  private deferring = false;
  private readonly deferred: string[] = [];
  private readonly slots: number[] = [];
  private deferredJson = false;
  private deferredCsv = false;
  // Groups still to write with every string checked on its own (after a group's joined check failed).
  private strictGroups = 0;

  /** `capacity`: the first buffer's size in bytes; it grows to fit the largest batch seen. */
  constructor(private capacity = 1 << 16) {
    this.buf = Buffer.allocUnsafeSlow(capacity);
  }

  /** Bytes written since the last `take`. */
  get length(): number {
    return this.pos;
  }

  /**
   * The bytes written since the last `take`, handed over (a stream may hold them until it writes them): the next
   * rows go into another buffer, so nothing handed out is overwritten until it comes back through `recycle`.
   */
  take(): Buffer {
    const chunk = this.buf.subarray(0, this.pos);
    this.buf = this.spare.pop() ?? Buffer.allocUnsafeSlow(this.capacity);
    this.pos = 0;
    return chunk;
  }

  /**
   * Gives back a chunk from `take` whose bytes were written (a stream's write callback): its memory takes later rows.
   * A new buffer per batch (about 660 KB for a thousand NDJSON rows) was external memory V8 counted toward its
   * collections; a few buffers in turn are not.
   */
  recycle(chunk: Buffer): void {
    const whole = chunk.buffer;
    // Only whole buffers of the current size (one from before a growth is left to the collector); every buffer is
    // allocated outside Buffer's shared pool (allocUnsafeSlow), so a chunk's memory is its own.
    if (chunk.byteOffset !== 0 || whole.byteLength !== this.capacity || this.spare.length >= SPARE_BUFFERS) return;
    if (this.spare.some((buffer) => buffer.buffer === whole) || this.buf.buffer === whole) return;
    this.spare.push(Buffer.from(whole));
  }

  /**
   * Writes `items` as rows, `write` writing one (it may run twice for an item: it must write the same bytes again).
   * Rows go in groups: in a group's first pass jsonString and csvField only leave room for their strings, which are
   * then checked all at once, joined (a few native scans), and copied in from one write of the joined string. When
   * one needed escaping or quoting after all, the group's bytes are dropped and it is written again with each string
   * checked on its own, and so are the next few groups (a sitemap of non-ASCII URLs would fail every first pass). A
   * regex test and a Buffer#write per field were half of an NDJSON row's cost.
   */
  batch<T>(items: readonly T[], write: (rows: RowBytes, item: T, index: number) => void): void {
    for (let first = 0; first < items.length; first += GROUP_ROWS) {
      const end = Math.min(items.length, first + GROUP_ROWS);
      if (this.strictGroups > 0) {
        this.strictGroups -= 1;
        for (let i = first; i < end; i++) write(this, items[i] as T, i);
        continue;
      }
      const start = this.pos;
      let filled = false;
      this.deferring = true;
      try {
        for (let i = first; i < end; i++) write(this, items[i] as T, i);
        this.deferring = false;
        filled = this.fillDeferred();
      } finally {
        this.deferring = false;
        this.deferred.length = 0;
        this.slots.length = 0;
        this.deferredJson = false;
        this.deferredCsv = false;
      }
      if (filled) continue;
      this.strictGroups = STRICT_GROUPS_AFTER_MISS;
      this.pos = start;
      for (let i = first; i < end; i++) write(this, items[i] as T, i);
    }
  }

  /** Pre-encoded bytes (the constant parts of a row). */
  bytes(bytes: Uint8Array): void {
    const length = bytes.length;
    this.room(length);
    const buf = this.buf;
    let p = this.pos;
    // A loop beats Buffer#set's call for the shortest constants only.
    if (length < 16) for (let i = 0; i < length; i++) buf[p++] = bytes[i] as number;
    else {
      buf.set(bytes, p);
      p += length;
    }
    this.pos = p;
  }

  /** One byte (an ASCII character code). */
  byte(code: number): void {
    this.room(1);
    this.buf[this.pos++] = code;
  }

  /** Text as UTF-8, as a stream encodes a string (a lone surrogate becomes U+FFFD). */
  text(value: string): void {
    const length = value.length;
    this.room(length);
    const buf = this.buf;
    let p = this.pos;
    for (let i = 0; i < length; i++) {
      const code = value.charCodeAt(i);
      if (code >= 0x80) return this.utf8(value);
      buf[p++] = code;
    }
    this.pos = p;
  }

  /** What `JSON.stringify(value)` writes for a string, quotes included. */
  jsonString(value: string): void {
    // One native scan and one native copy beat a loop of charCodeAt here (URLs are the longest fields).
    if (!this.deferring && !JSON_PLAIN.test(value)) return this.utf8(JSON.stringify(value));
    this.room(value.length + 2);
    const buf = this.buf;
    let p = this.pos;
    buf[p++] = 0x22;
    if (this.deferring) {
      this.defer(value, p);
      this.deferredJson = true;
      p += value.length;
    } else p += buf.write(value, p, 'latin1');
    buf[p++] = 0x22;
    this.pos = p;
  }

  /** One CSV field as RFC 4180 asks: quoted (inner quotes doubled) when it holds a comma, a quote or a line break. */
  csvField(value: string): void {
    // As jsonString: one native scan and one native copy (a loop of charCodeAt was most of a CSV row's cost).
    if (this.deferring) {
      this.room(value.length);
      this.defer(value, this.pos);
      this.deferredCsv = true;
      this.pos += value.length;
      return;
    }
    if (!CSV_PLAIN.test(value)) return this.utf8(csvField(value));
    this.room(value.length);
    this.pos += this.buf.write(value, this.pos, 'latin1');
  }

  // Leaves `value.length` bytes at `slot` for `fillDeferred`.
  private defer(value: string, slot: number): void {
    this.deferred.push(value);
    this.slots.push(slot);
  }

  // Writes the deferred strings into their slots when every one of them is written as it is (false: none written).
  private fillDeferred(): boolean {
    const deferred = this.deferred;
    if (deferred.length === 0) return true;
    const joined = deferred.join('');
    if ((this.deferredJson && !jsonPlain(joined)) || (this.deferredCsv && !csvPlain(joined))) return false;
    // Past the rows: the joined bytes, copied from there into each slot (copyWithin moves memory, no call out of V8).
    this.room(joined.length);
    const buf = this.buf;
    let from = this.pos;
    buf.write(joined, from, 'latin1');
    const slots = this.slots;
    for (let i = 0; i < deferred.length; i++) {
      const length = (deferred[i] as string).length;
      buf.copyWithin(slots[i] as number, from, from + length);
      from += length;
    }
    return true;
  }

  // The slow path for one value, written from where the value began (the fast loop wrote nothing it kept).
  private utf8(value: string): void {
    this.room(3 * value.length);
    this.pos += this.buf.write(value, this.pos, 'utf8');
  }

  // At least `bytes` free; a batch bigger than the buffer moves to one twice the size needed.
  private room(bytes: number): void {
    if (this.pos + bytes <= this.buf.length) return;
    this.capacity = Math.max(this.capacity, 2 * (this.pos + bytes));
    const bigger = Buffer.allocUnsafeSlow(this.capacity);
    this.buf.copy(bigger, 0, 0, this.pos);
    this.buf = bigger;
  }
}

// JSON_PLAIN and CSV_PLAIN for long text (a batch's strings joined), in scans cheaper per character than theirs.
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
function jsonPlain(text: string): boolean {
  return text.indexOf('"') === -1 && text.indexOf('\\') === -1 && PRINTABLE_ASCII.test(text);
}
function csvPlain(text: string): boolean {
  const ascii = Buffer.byteLength(text, 'utf8') === text.length;
  return ascii && text.indexOf('"') === -1 && text.indexOf(',') === -1 && text.indexOf('\n') === -1 && text.indexOf('\r') === -1;
}

/** One CSV field as a string, quoted as RFC 4180 asks when it holds a comma, a quote or a line break. */
export function csvField(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return '';
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** The bytes of an ASCII constant. */
export function ascii(text: string): Uint8Array {
  return Buffer.from(text, 'latin1');
}
