// Printable ASCII but `"` and backslash: what JSON.stringify writes as it is, one byte a character. Anything else (control
// characters, non-ASCII, which may be a lone surrogate JSON.stringify escapes) takes JSON.stringify itself.
const JSON_PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;
// ASCII without a comma, a quote or a line break: a CSV field written as it is, one byte a character.
const CSV_PLAIN = /^[^",\r\n\u0080-\uffff]*$/;
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
  private readonly numbers = new Map<number, Uint8Array>();

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

  /** Pre-encoded bytes (the constant parts of a row). */
  bytes(bytes: Uint8Array): void {
    const length = bytes.length;
    this.room(length);
    const buf = this.buf;
    let p = this.pos;
    // A loop beats Buffer#set's call for the short constants rows are made of.
    if (length < 48) for (let i = 0; i < length; i++) buf[p++] = bytes[i] as number;
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
    if (!JSON_PLAIN.test(value)) return this.utf8(JSON.stringify(value));
    this.room(value.length + 2);
    const buf = this.buf;
    let p = this.pos;
    buf[p++] = 0x22;
    p += buf.write(value, p, 'latin1');
    buf[p++] = 0x22;
    this.pos = p;
  }

  /** One CSV field as RFC 4180 asks: quoted (inner quotes doubled) when it holds a comma, a quote or a line break. */
  csvField(value: string): void {
    // As jsonString: one native scan and one native copy (a loop of charCodeAt was most of a CSV row's cost).
    if (!CSV_PLAIN.test(value)) return this.utf8(csvField(value));
    this.room(value.length);
    this.pos += this.buf.write(value, this.pos, 'latin1');
  }

  /** A number as `String(value)` writes it. */
  number(value: number): void {
    // Small whole numbers (depths) without making a string; others (a sitemap's few priorities) encoded once each.
    if (Number.isInteger(value) && value >= 0 && value < 10) return this.byte(0x30 + value);
    let bytes = this.numbers.get(value);
    if (bytes === undefined) {
      if (this.numbers.size >= 256) this.numbers.clear();
      bytes = Buffer.from(String(value), 'latin1');
      this.numbers.set(value, bytes);
    }
    this.bytes(bytes);
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
