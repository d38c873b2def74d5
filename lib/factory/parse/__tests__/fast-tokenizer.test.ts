import { describe, expect, it } from 'vitest';
import { ParseError } from '../../../core/errors.js';
import type { XmlTokenizer } from '../fast/xml-reader.js';
import { createSitemapParser } from '../sitemap-parser.js';
import { OPTIONS } from './helpers.js';
import { Picker, chunkSizes, random, sitemapBytes, sitemapDocument } from './sitemap-generator.js';

// FUZZ_SEED=n replays a run; FUZZ_DOCS=n changes how many documents it generates.
const BASE_SEED = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
const DOCUMENTS = Number(process.env.FUZZ_DOCS ?? 10_000);

/** Everything a caller can observe: the items of each write until an error, the error's kind, the final stats. */
function observe(bytes: Uint8Array, sizes: number[], tokenizer: XmlTokenizer): string {
  const parser = createSitemapParser(OPTIONS, tokenizer);
  const items: unknown[] = [];
  let error = 'none';
  try {
    let from = 0;
    for (const size of sizes) {
      items.push(parser.write(bytes.subarray(from, from + size)));
      from += size;
    }
    items.push(parser.end());
  } catch (caught) {
    error = caught instanceof ParseError ? caught.kind : `unexpected ${String(caught)}`;
  }
  return JSON.stringify({ error, items, stats: error === 'none' ? parser.stats : null });
}

describe('the sitemap tokenizer against the general one', () => {
  it(`gives the same items, stats and error kinds on ${DOCUMENTS} generated documents split at random (seed ${BASE_SEED})`, () => {
    const kinds = new Map<string, number>();
    for (let i = 0; i < DOCUMENTS; i++) {
      const seed = BASE_SEED + i;
      const p = new Picker(random(seed));
      const bytes = sitemapBytes(p, sitemapDocument(p));
      const sizes = chunkSizes(p, bytes.length);
      const general = observe(bytes, sizes, 'general');
      const fast = observe(bytes, sizes, 'fast');
      if (fast !== general) {
        expect.fail(
          `document seed ${seed} (FUZZ_SEED=${seed} FUZZ_DOCS=1 replays it), ${sizes.length} writes:\n` +
            `${Buffer.from(bytes).toString('utf8').slice(0, 3_000)}\n--- general\n${general.slice(0, 3_000)}\n--- fast\n${fast.slice(0, 3_000)}`,
        );
      }
      const kind = (JSON.parse(general) as { error: string }).error;
      kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
    }
    // The generator must keep reaching both the happy path and every error kind, or the comparison proves little.
    expect([...kinds.keys()].sort()).toEqual(
      ['doctype_forbidden', 'invalid_encoding', 'invalid_xml', 'none', 'not_sitemap', 'too_large'].filter((k) => (DOCUMENTS < 1_000 ? kinds.has(k) : true)),
    );
    expect(kinds.get('none') ?? 0).toBeGreaterThan(DOCUMENTS / 2);
    // About 20 s of CPU for 10,000 documents; the bound is for a shared, loaded CI machine.
  }, 180_000);

  it('reads a tag that only starts like the name it predicts (same prefix, other case, a prefix) as the general tokenizer does', () => {
    const entry = (i: number) => `<url><loc>https://example.com/${i}</loc><lastmod>2024-01-0${1 + (i % 9)}</lastmod></url>`;
    const odd = [
      '<url><locale>x</locale><loc>https://example.com/a</loc></url>',
      '<url><LOC>https://example.com/b</LOC></url>',
      '<url><sm:loc>https://example.com/c</sm:loc><lastmodx>1</lastmodx><lastmod>2024-02-02</lastmod></url>',
      '<url><lo>y</lo><loc>https://example.com/d</loc></url>',
    ];
    const body = [...Array.from({ length: 6 }, (_, i) => entry(i)), ...odd, entry(7), ...odd].join('\n');
    const bytes = new TextEncoder().encode(`<urlset xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9">${body}</urlset>`);
    for (const size of [bytes.length, 7, 3, 1]) {
      const sizes = Array.from({ length: Math.ceil(bytes.length / size) }, (_, k) => Math.min(size, bytes.length - k * size));
      expect(observe(bytes, sizes, 'fast')).toBe(observe(bytes, sizes, 'general'));
    }
  });

  it('reads plain <url> entries (one match each) and the shapes next to them exactly as the general tokenizer does', () => {
    const plain = (i: number) =>
      `\n  <url>\n    <loc>https://example.com/${i}</loc>\n    <lastmod>2024-01-0${1 + (i % 9)}</lastmod>\n    <changefreq>daily</changefreq>\n    <priority>0.${i % 10}</priority>\n  </url>`;
    const near = [
      '<url><loc>https://example.com/only</loc></url>',
      '<url><loc></loc><priority>1.0</priority></url>',
      '<url><loc>https://example.com/a?x=1&amp;y=2</loc></url>',
      '<url>\f<loc>https://example.com/ff</loc></url>',
      '<url><changefreq>weekly</changefreq><loc>https://example.com/order</loc></url>',
      '<url ><loc>https://example.com/sp</loc></url>',
      '<url><loc>https://example.com/cdata<![CDATA[x]]></loc></url>',
      '<url><loc>https://example.com/open</loc>',
    ];
    const body = [...Array.from({ length: 5 }, (_, i) => plain(i)), ...near, plain(5), ...near.slice(0, 3), plain(6), '</url>', plain(7)].join('');
    const bytes = new TextEncoder().encode(`<urlset>${body}</urlset>`);
    for (const size of [bytes.length, 97, 13, 5, 1]) {
      const sizes = Array.from({ length: Math.ceil(bytes.length / size) }, (_, k) => Math.min(size, bytes.length - k * size));
      expect(observe(bytes, sizes, 'fast')).toBe(observe(bytes, sizes, 'general'));
    }
  });

  it('decodes entities and numeric references inside plain entries (read on the one-match lane) as the general tokenizer does', () => {
    const plain = (i: number) => `\n  <url>\n    <loc>https://example.com/${i}</loc>\n    <lastmod>2024-01-0${1 + (i % 9)}</lastmod>\n  </url>`;
    const withReferences = [
      '<url><loc>https://example.com/q?a=1&amp;b=&lt;2&gt;&amp;c</loc><lastmod>2024-01-01</lastmod></url>',
      '<url><loc>https://example.com/bare&b&amp&ampx;&amp;</loc><lastmod>&quot;2024&quot;</lastmod><changefreq>&apos;daily&apos;</changefreq><priority>0&amp;5</priority></url>',
      '<url><loc>https://example.com/n?a=&#x26;&#X41;&#0000065;&#38x&#;&#x;&#</loc><lastmod>&#50;024-01-01</lastmod></url>',
      '<url><loc>https://example.com/bad&#0;</loc></url>',
      '<url><loc>https://example.com/bad&#xD800;</loc></url>',
      '<url><loc>https://example.com/ok</loc><changefreq>&#x110000;</changefreq></url>',
      '<url><loc>https://example.com/r&#xFFFD;</loc></url>',
      '<url><loc>https://example.com/e&#x1F600;&#99999999999999999999;&#xfffe;</loc></url>',
      '<url><loc>&amp;&amp;</loc></url>',
    ];
    // A plain entry after each, so the lane (left after a few misses in a row) stays in use.
    const body = withReferences.flatMap((entry, i) => [plain(i), entry]).join('') + plain(99);
    const bytes = new TextEncoder().encode(`<urlset>${body}</urlset>`);
    for (const size of [bytes.length, 97, 13, 5, 1]) {
      const sizes = Array.from({ length: Math.ceil(bytes.length / size) }, (_, k) => Math.min(size, bytes.length - k * size));
      expect(observe(bytes, sizes, 'fast')).toBe(observe(bytes, sizes, 'general'));
    }
  });

  it('completes a token cut at a chunk end whatever its length: inside the joint to the next chunk, past it, past the tail limit', () => {
    const plain = (i: number) => `<url><loc>https://example.com/${i}</loc><lastmod>2024-01-0${1 + (i % 9)}</lastmod></url>\n`;
    // Entries inside the comment: a comment read from anywhere but its start would show them.
    const comment = (length: number) => `<!--${'<url><loc>https://example.com/hidden</loc></url>'.repeat(length / 50)}-->`;
    const tokens = [comment(3_000), `<url><loc><![CDATA[https://example.com/${'p'.repeat(9_000)}]]></loc></url>`, comment(10_000), comment(20_000)];
    const body = tokens.map((token, i) => Array.from({ length: 40 }, (_, k) => plain(100 * i + k)).join('') + token).join('') + plain(999);
    const text = `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${body}</urlset>`;
    const bytes = new TextEncoder().encode(text);
    const cuts = tokens.flatMap((token) => {
      const at = text.indexOf(token);
      return [at + 1, at + 100, at + 2_000, at + 4_000, at + token.length - 5];
    });
    for (const cut of cuts) {
      // One cut inside the long token, the rest in big chunks (a network read) or in 9 KiB ones (just past the joint).
      for (const size of [64 * 1024, 9_000]) {
        const rest = bytes.length - cut;
        const sizes = [cut, ...Array.from({ length: Math.ceil(rest / size) }, (_, k) => Math.min(size, rest - k * size))];
        expect(observe(bytes, sizes, 'fast'), `cut at ${cut}, then ${size}`).toBe(observe(bytes, sizes, 'general'));
      }
    }
  });
});
