/**
 * A set of strings that keeps only a 63-bit hash of each, in two typed arrays (open addressing, linear probing):
 * no per-entry allocation, 16 bytes a slot at most, so a 50,000-URL sitemap costs about 1 MiB. With 63 bits
 * a false "already seen" is about one in 10^10 at that size. The table is too big to stay in cache while 8
 * sitemaps are read at once, so its probes miss: keeping the high words apart halves what a probe reads (a 1M-URL
 * walk 3% faster than with both words of a slot side by side).
 */
export class StringHashSet {
  // Slot i holds [highs[i] (top bit set), lows[i]]; a zero high word marks an empty slot. Apart, so a probe reads
  // only the high words (4 bytes a slot) and a low word only where the high word matches.
  private highs = takeSlots(INITIAL_SLOTS);
  private lows = takeSlots(INITIAL_SLOTS);
  private mask = INITIAL_SLOTS - 1;
  private size = 0;

  /** Empties the set, handing its slots on to the next set that grows to their size. */
  clear(): void {
    giveSlots(this.highs);
    giveSlots(this.lows);
    this.highs = takeSlots(INITIAL_SLOTS);
    this.lows = takeSlots(INITIAL_SLOTS);
    this.mask = INITIAL_SLOTS - 1;
    this.size = 0;
  }

  /** Adds `text`; true when it was not in the set before. */
  add(text: string): boolean {
    const pair = new Uint32Array(2);
    hashInto(text, pair, 0);
    return this.addHashed(pair, 0);
  }

  /** Adds the string hashed at `hashes[2 * index]` by `hashInto`; true when it was not in the set before. */
  addHashed(hashes: Uint32Array, index: number): boolean {
    return this.insert(hashes[2 * index] as number, hashes[2 * index + 1] as number);
  }

  private insert(high: number, low: number): boolean {
    const highs = this.highs;
    let at = low & this.mask;
    for (;;) {
      const word = highs[at];
      if (word === 0) break;
      if (word === high && this.lows[at] === low) return false;
      at = (at + 1) & this.mask;
    }
    highs[at] = high;
    this.lows[at] = low;
    if (++this.size * 2 > this.mask) this.grow();
    return true;
  }

  // Kept at most half full so probes stay short.
  private grow(): void {
    const highs = this.highs;
    const lows = this.lows;
    this.highs = takeSlots(highs.length * 2);
    this.lows = takeSlots(highs.length * 2);
    this.mask = highs.length * 2 - 1;
    this.size = 0;
    for (let at = 0; at < highs.length; at++) {
      const high = highs[at] ?? 0;
      if (high !== 0) this.insert(high, lows[at] ?? 0);
    }
    giveSlots(highs);
    giveSlots(lows);
  }
}

// 8 slots (two arrays of 32 bytes, small enough for V8 to keep in its heap rather than allocate outside it): a set is made and
// cleared per sitemap, and most sitemaps are small; a big one grows by doubling, the old arrays pooled below.
const INITIAL_SLOTS = 8;
/**
 * Bytes of spare slot arrays kept: every array of 8 sitemaps of 50,000 URLs in flight at once (2 MiB each, with
 * the smaller ones a set outgrew). A cap per length was not enough: children of one size, read side by side,
 * grow in step, so all 8 hand back arrays of one length at once; with 4 kept per length, half of every
 * generation's arrays (~8 MiB) were dropped, waited for a full GC as promoted ArrayBuffers, and were allocated
 * again, ~100 MiB over 5,000,000 URLs.
 */
export const MAX_SPARE_BYTES = 16 * 1024 * 1024;
// Slot arrays of grown or cleared sets, by length. A set reaches 1 MiB at 50,000 URLs and lives as long as its
// sitemap, so V8 promotes it; left to the GC, each finished sitemap's arrays would wait for a full collection.
const spares = new Map<number, Uint32Array[]>();
let spareBytes = 0;

function takeSlots(words: number): Uint32Array {
  const spare = spares.get(words)?.pop();
  if (spare === undefined) return new Uint32Array(words);
  spareBytes -= spare.byteLength;
  return spare.fill(0);
}

function giveSlots(slots: Uint32Array): void {
  if (spareBytes + slots.byteLength > MAX_SPARE_BYTES) return;
  spareBytes += slots.byteLength;
  const list = spares.get(slots.length);
  if (list === undefined) spares.set(slots.length, [slots]);
  else list.push(slots);
}

/** Bytes of slot arrays kept for reuse (for tests and diagnosis). */
export function spareSlotBytes(): number {
  return spareBytes;
}

/**
 * Writes the 63-bit hash of `text` the set keys on at `into[2 * index]` (high word, top bit set) and
 * `into[2 * index + 1]`. Apart from `add`, so a caller can hash many strings before probing any of them.
 */
export function hashInto(text: string, into: Uint32Array, index: number): void {
  hashUnits(unitsOf(text), 0, text.length, into, index);
}

/**
 * hashInto of the `length` UTF-16 units at `units[from]`: the one hash, for a caller that already holds a string's
 * units. cyrb53's two lanes kept as two 32-bit words. Text whose units all fit a byte (URLs nearly always) is fed
 * four units a step, one byte each; any wider unit and the text is hashed again two units a step, with another
 * seed. Each multiply waits for the last one, so fewer steps is what makes it faster (1-3% of a 1M-URL walk).
 */
export function hashUnits(units: Uint16Array, from: number, length: number, into: Uint32Array, index: number): void {
  let h1 = LANE1_SEED ^ length;
  let h2 = LANE2_SEED ^ length;
  let wide = 0;
  const end = from + length;
  const quads = from + (length & ~3);
  let at = from;
  for (; at < quads; at += 4) {
    const a = units[at] as number;
    const b = units[at + 1] as number;
    const c = units[at + 2] as number;
    const d = units[at + 3] as number;
    wide |= a | b | c | d;
    const code = a | (b << 8) | (c << 16) | (d << 24);
    h1 = Math.imul(h1 ^ code, LANE1);
    h2 = Math.imul(h2 ^ code, LANE2);
  }
  if (at < end) {
    let code = 0;
    for (let shift = 0; at < end; at++, shift += 8) {
      const unit = units[at] as number;
      wide |= unit;
      code |= unit << shift;
    }
    h1 = Math.imul(h1 ^ code, LANE1);
    h2 = Math.imul(h2 ^ code, LANE2);
  }
  if (wide > 0xff) hashWide(units, from, length, into, index);
  else finishHash(h1, h2, into, index);
}

// Two units a step: every bit of a unit counts. The seed differs from hashUnits' by the length's complement.
function hashWide(units: Uint16Array, from: number, length: number, into: Uint32Array, index: number): void {
  let h1 = LANE1_SEED ^ ~length;
  let h2 = LANE2_SEED ^ ~length;
  const pairs = from + (length & ~1);
  for (let at = from; at < pairs; at += 2) {
    const code = (units[at] as number) | ((units[at + 1] as number) << 16);
    h1 = Math.imul(h1 ^ code, LANE1);
    h2 = Math.imul(h2 ^ code, LANE2);
  }
  if ((length & 1) === 1) {
    const code = units[pairs] as number;
    h1 = Math.imul(h1 ^ code, LANE1);
    h2 = Math.imul(h2 ^ code, LANE2);
  }
  finishHash(h1, h2, into, index);
}

const LANE1_SEED = 0xdeadbeef;
const LANE2_SEED = 0x41c6ce57;
const LANE1 = 2654435761;
const LANE2 = 1597334677;

/**
 * `text`'s UTF-16 units, in a scratch array the next call overwrites (up to MAX_SCRATCH_UNITS kept; a longer text
 * gets its own array). One native write: reading a typed array costs a fraction of `charCodeAt` on the sliced
 * strings the parser hands out. Lossless: every unit, a lone surrogate too, is copied as is.
 */
export function unitsOf(text: string, scratch: UnitScratch = ownScratch): Uint16Array {
  let units = scratch.units;
  if (text.length > units.length) {
    units = new Uint16Array(text.length > MAX_SCRATCH_UNITS ? text.length : Math.min(2 * text.length, MAX_SCRATCH_UNITS));
    if (units.length <= MAX_SCRATCH_UNITS) scratch.units = units;
  }
  Buffer.from(units.buffer, units.byteOffset, units.byteLength).write(text, 0, 'utf16le');
  return units;
}

/** A scratch array for unitsOf: a caller that hashes (hashInto) while it reads another text's units needs its own. */
export interface UnitScratch {
  units: Uint16Array;
}

// A parser step's URLs are tens of KiB: arrays up to this are kept for the next call, bigger ones left to the GC.
const MAX_SCRATCH_UNITS = 256 * 1024;
const ownScratch: UnitScratch = { units: new Uint16Array(0) };

function finishHash(h1: number, h2: number, into: Uint32Array, index: number): void {
  const low = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  const high = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(low ^ (low >>> 13), 3266489909);
  into[2 * index] = (high | 0x80000000) >>> 0;
  into[2 * index + 1] = low >>> 0;
}
