import { describe, expect, it } from 'vitest';
import { StringHashSet } from '../hash-set.js';

const words = (count: number, tag: string) => Array.from({ length: count }, (_, i) => `https://example.com/${tag}/${i}`);

describe('StringHashSet', () => {
  it('says whether each string is new, across growth', () => {
    const set = new StringHashSet();
    expect(words(5000, 'a').map((word) => set.add(word)).every(Boolean)).toBe(true);
    expect(words(5000, 'a').some((word) => set.add(word))).toBe(false);
  });

  it('starts afresh after clear(), and a set built on slots another set handed back sees none of its strings', () => {
    const first = new StringHashSet();
    for (const word of words(5000, 'b')) first.add(word);
    first.clear();
    // Grows through the lengths `first` reached and handed back: reused slots must come back empty.
    const second = new StringHashSet();
    expect(words(5000, 'b').map((word) => second.add(word)).every(Boolean)).toBe(true);
    expect(words(5000, 'b').map((word) => first.add(word)).every(Boolean)).toBe(true);
    expect(first.add('https://example.com/b/0')).toBe(false);
  });
});
