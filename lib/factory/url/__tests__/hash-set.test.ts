import { describe, expect, it } from 'vitest';
import { MAX_SPARE_BYTES, StringHashSet, spareSlotBytes } from '../hash-set.js';

const words = (count: number, tag: string) => Array.from({ length: count }, (_, i) => `https://example.com/${tag}/${i}`);

describe('StringHashSet', () => {
  it('says whether each string is new, across growth', () => {
    const set = new StringHashSet();
    expect(
      words(5000, 'a')
        .map((word) => set.add(word))
        .every(Boolean),
    ).toBe(true);
    expect(words(5000, 'a').some((word) => set.add(word))).toBe(false);
  });

  it('tells apart texts that one byte a unit would mix up: a unit above 0xFF is hashed whole', () => {
    const set = new StringHashSet();
    // Read a byte a unit, '\u0100\u0000' and '\u0000\u0001' are the same four-unit word; so are these two.
    const texts = ['\u0100\u0000', '\u0000\u0001', 'https://example.com/\u0130', 'https://example.com/0\u0001', 'é', '\u00e9'.normalize('NFD')];
    expect(texts.map((text) => set.add(text))).toEqual([true, true, true, true, true, true]);
    expect(texts.map((text) => set.add(text)).some(Boolean)).toBe(false);
  });

  it('starts afresh after clear(), and a set built on slots another set handed back sees none of its strings', () => {
    const first = new StringHashSet();
    for (const word of words(5000, 'b')) first.add(word);
    first.clear();
    // Grows through the lengths `first` reached and handed back: reused slots must come back empty.
    const second = new StringHashSet();
    expect(
      words(5000, 'b')
        .map((word) => second.add(word))
        .every(Boolean),
    ).toBe(true);
    expect(
      words(5000, 'b')
        .map((word) => first.add(word))
        .every(Boolean),
    ).toBe(true);
    expect(first.add('https://example.com/b/0')).toBe(false);
  });

  it('keeps every array of 8 sitemaps of 50,000 URLs read side by side for the next ones, and never more than its cap', () => {
    const grow = (count: number, tag: string) => {
      const sets = Array.from({ length: count }, () => new StringHashSet());
      // In step, as children of one size read side by side: every set hands back an array of one length at once.
      for (let i = 0; i < 50_000; i++) for (let k = 0; k < count; k++) sets[k]?.add(`https://example.com/${tag}${k}/${i}`);
      return sets;
    };
    const before = spareSlotBytes();
    const first = grow(8, 'first');
    for (const set of first) set.clear();
    // Each set's 1 MiB and 512 KiB arrays at least (a cap of 4 per length kept half of them).
    const kept = spareSlotBytes();
    expect(kept - before).toBeGreaterThanOrEqual(8 * 1.5 * 1024 * 1024);
    // The next 8 grow on those arrays: each ends holding one of the 1 MiB ones and hands the smaller back
    // (give or take the 8 KiB first arrays the cleared sets took).
    const second = grow(8, 'second');
    expect(Math.abs(spareSlotBytes() - (kept - 8 * 1024 * 1024))).toBeLessThanOrEqual(8 * 8 * 1024);
    for (const set of [...second, ...grow(4, 'third')]) set.clear();
    expect(spareSlotBytes()).toBeLessThanOrEqual(MAX_SPARE_BYTES);
  });
});
