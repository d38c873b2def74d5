import { existsSync, statSync, truncateSync } from 'node:fs';
import { dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ShardShelf } from '../shard-shelf.js';

const shardText = (n: number, chars: number): string => JSON.stringify([{ loc: `https://example.com/${n}/${'é'.repeat(chars)}` }]);

describe('shard shelf', () => {
  it('keeps shards in memory up to its budget and the rest on disk, each read back as written', () => {
    const shelf = new ShardShelf(100);
    const texts = Array.from({ length: 6 }, (_, n) => shardText(n, 40));
    texts.forEach((text, n) => shelf.set(n, text));
    const file = shelf.spillFile as string;
    // The first shard fits the budget; the five others wait on disk.
    expect(statSync(file).size).toBe(texts.slice(1).reduce((sum, text) => sum + Buffer.byteLength(text), 0));
    // Multi-byte text read back by byte position, not by character.
    texts.forEach((text, n) => expect(shelf.get(n)).toBe(text));
    expect(shelf.get(6)).toBeUndefined();
    shelf.delete(0);
    shelf.delete(4);
    expect(shelf.get(0)).toBeUndefined();
    expect(shelf.get(4)).toBeUndefined();
    expect(shelf.get(5)).toBe(texts[5]);
    shelf.clear();
    expect(existsSync(file)).toBe(false);
    // The folder goes with the last spill file: nothing is left in the temp folder by a process that cleared its jobs.
    expect(existsSync(dirname(file))).toBe(false);
    expect(shelf.spillFile).toBeNull();
    expect(shelf.get(5)).toBeUndefined();
  });

  it('shares one folder between shelves that spill at once, removed with the last of their files', () => {
    const first = new ShardShelf(0);
    const second = new ShardShelf(0);
    first.set(0, '{"a":1}');
    second.set(0, '{"b":2}');
    const folder = dirname(first.spillFile as string);
    expect(dirname(second.spillFile as string)).toBe(folder);
    first.clear();
    expect(existsSync(folder)).toBe(true);
    expect(second.get(0)).toBe('{"b":2}');
    second.clear();
    expect(existsSync(folder)).toBe(false);
  });

  it('says a spilled shard is corrupt when its file was cut short, instead of reading nothing forever', () => {
    const shelf = new ShardShelf(0);
    shelf.set(0, shardText(0, 10));
    truncateSync(shelf.spillFile as string, 5);
    expect(() => shelf.get(0)).toThrow(expect.objectContaining({ failure: 'corrupt' }));
    shelf.clear();
  });

  it('frees memory a dropped shard held for the next one, so a drained job never spills', () => {
    const shelf = new ShardShelf(200);
    for (let n = 0; n < 50; n++) {
      shelf.set(n, shardText(n, 60));
      expect(shelf.get(n)).toBe(shardText(n, 60));
      shelf.delete(n);
    }
    expect(shelf.spillFile).toBeNull();
  });
});
