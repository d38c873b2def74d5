/**
 * A set of strings that keeps only a 63-bit hash of each, in one typed array (open addressing, linear probing):
 * no per-entry allocation, 16 bytes a slot at most, so a 50,000-URL sitemap costs about 1 MiB. With 63 bits
 * a false "already seen" is about one in 10^10 at that size.
 */
export class StringHashSet {
  // Two words a slot: [high | 0x80000000, low]; a zero high word marks an empty slot.
  private slots = takeSlots(INITIAL_WORDS);
  private mask = INITIAL_WORDS / 2 - 1;
  private size = 0;

  /** Empties the set, handing its slots on to the next set that grows to their size. */
  clear(): void {
    giveSlots(this.slots);
    this.slots = takeSlots(INITIAL_WORDS);
    this.mask = INITIAL_WORDS / 2 - 1;
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
    const slots = this.slots;
    let at = low & this.mask;
    for (;;) {
      const word = slots[2 * at];
      if (word === 0) break;
      if (word === high && slots[2 * at + 1] === low) return false;
      at = (at + 1) & this.mask;
    }
    slots[2 * at] = high;
    slots[2 * at + 1] = low;
    if (++this.size * 2 > this.mask) this.grow();
    return true;
  }

  // Kept at most half full so probes stay short.
  private grow(): void {
    const old = this.slots;
    this.slots = takeSlots(old.length * 2);
    this.mask = old.length - 1;
    this.size = 0;
    for (let at = 0; at < old.length; at += 2) {
      const high = old[at] ?? 0;
      if (high !== 0) this.insert(high, old[at + 1] ?? 0);
    }
    giveSlots(old);
  }
}

// 8 slots (64 bytes, small enough for V8 to keep in its heap rather than allocate outside it): a set is made and
// cleared per sitemap, and most sitemaps are small; a big one grows by doubling, the old arrays pooled below.
const INITIAL_WORDS = 16;
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
  // cyrb53's two lanes kept as two 32-bit words, fed two UTF-16 units per step (half the multiplications).
  let h1 = LANE1_SEED ^ text.length;
  let h2 = LANE2_SEED ^ text.length;
  const pairs = text.length & ~1;
  for (let i = 0; i < pairs; i += 2) {
    const code = text.charCodeAt(i) | (text.charCodeAt(i + 1) << 16);
    h1 = Math.imul(h1 ^ code, LANE1);
    h2 = Math.imul(h2 ^ code, LANE2);
  }
  if (pairs < text.length) {
    const code = text.charCodeAt(pairs);
    h1 = Math.imul(h1 ^ code, LANE1);
    h2 = Math.imul(h2 ^ code, LANE2);
  }
  finishHash(h1, h2, into, index);
}

// hashInto's lanes, for a caller that feeds them itself while it reads the string for its own reasons
// (hashPageKeyInto): it must give exactly hashInto's value.
export const LANE1_SEED = 0xdeadbeef;
export const LANE2_SEED = 0x41c6ce57;
export const LANE1 = 2654435761;
export const LANE2 = 1597334677;

export function finishHash(h1: number, h2: number, into: Uint32Array, index: number): void {
  const low = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  const high = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(low ^ (low >>> 13), 3266489909);
  into[2 * index] = (high | 0x80000000) >>> 0;
  into[2 * index + 1] = low >>> 0;
}
