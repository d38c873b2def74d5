/**
 * A set of strings that keeps only a 63-bit hash of each, in one typed array (open addressing, linear probing):
 * no per-entry allocation, 16 bytes a slot at most, so a 50,000-URL sitemap costs about 1 MiB. With 63 bits
 * a false "already seen" is about one in 10^10 at that size.
 */
export class StringHashSet {
  // Two words a slot: [high | 0x80000000, low]; a zero high word marks an empty slot.
  private slots = new Uint32Array(2 * 1024);
  private mask = 1023;
  private size = 0;

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
    this.slots = new Uint32Array(old.length * 2);
    this.mask = old.length - 1;
    this.size = 0;
    for (let at = 0; at < old.length; at += 2) {
      const high = old[at] ?? 0;
      if (high !== 0) this.insert(high, old[at + 1] ?? 0);
    }
  }
}

/**
 * Writes the 63-bit hash of `text` the set keys on at `into[2 * index]` (high word, top bit set) and
 * `into[2 * index + 1]`. Apart from `add`, so a caller can hash many strings before probing any of them.
 */
export function hashInto(text: string, into: Uint32Array, index: number): void {
  // cyrb53's two lanes kept as two 32-bit words, fed two UTF-16 units per step (half the multiplications).
  let h1 = 0xdeadbeef ^ text.length;
  let h2 = 0x41c6ce57 ^ text.length;
  const pairs = text.length & ~1;
  for (let i = 0; i < pairs; i += 2) {
    const code = text.charCodeAt(i) | (text.charCodeAt(i + 1) << 16);
    h1 = Math.imul(h1 ^ code, 2654435761);
    h2 = Math.imul(h2 ^ code, 1597334677);
  }
  if (pairs < text.length) {
    const code = text.charCodeAt(pairs);
    h1 = Math.imul(h1 ^ code, 2654435761);
    h2 = Math.imul(h2 ^ code, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  into[2 * index] = (h2 | 0x80000000) >>> 0;
  into[2 * index + 1] = h1 >>> 0;
}
