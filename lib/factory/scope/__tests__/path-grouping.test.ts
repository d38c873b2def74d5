import fc from 'fast-check';
import { beforeEach, describe, expect, it, vi } from 'vitest';

// Capture the grouper's log events to check they are aggregated, not one line per URL.
const logged = vi.hoisted(() => ({ events: [] as { level: string; event: unknown; fields: Record<string, unknown> }[] }));
vi.mock('../../../utils/logger.js', () => {
  const record = (level: string) => (fields: Record<string, unknown>) => {
    logged.events.push({ level, event: fields.event, fields });
  };
  const logger = { info: record('info'), warn: record('warn'), debug: record('debug'), error: record('error') };
  return { createLogger: () => logger };
});

import { RequestError } from '../../../core/errors.js';
import { LanguageDetector } from '../locale.js';
import { OTHER_GROUP, PathGrouper, groupByPathPrefix, type PathGroupOptions } from '../path-grouper.js';
import { PathGroupSchema, type PathGroup } from '../../../core/types.js';

const site = 'https://www.example.com';

async function group(paths: string[], options: PathGroupOptions = {}): Promise<PathGroup[]> {
  const urls = paths.map((path) => (path.includes('://') ? path : `${site}${path}`));
  const batches: string[][] = [];
  for (let i = 0; i < urls.length; i += 7) batches.push(urls.slice(i, i + 7));
  const out: PathGroup[] = [];
  for await (const found of groupByPathPrefix(toAsync(batches), options)) out.push(found);
  return out;
}

async function* toAsync<T>(items: T[]): AsyncGenerator<T> {
  for (const item of items) yield item;
}

function repeat(count: number, make: (i: number) => string): string[] {
  return Array.from({ length: count }, (_, i) => make(i));
}

function summary(groups: PathGroup[]): [string, number, string[]][] {
  return groups.map((found) => [found.prefix, found.count, found.locales]);
}

beforeEach(() => {
  logged.events.length = 0;
});

describe('groupByPathPrefix: grouping by first folder', () => {
  it('groups by the first non-empty folder, with counts and samples', async () => {
    const groups = await group([...repeat(5, (i) => `/blog/post-${i}`), ...repeat(3, (i) => `/docs/a/b/${i}.html`), '//blog//x']);
    expect(summary(groups)).toEqual([
      ['/blog/*', 6, []],
      ['/docs/*', 3, []],
    ]);
    expect(groups[0]?.samples).toEqual([...repeat(5, (i) => `${site}/blog/post-${i}`), `${site}//blog//x`]);
  });

  it('puts pages at the root (no folder before the last segment) in the group "/"', async () => {
    const groups = await group(['/', '/about.html', '/pricing', '/blog', '/index.php?page=2']);
    expect(summary(groups)).toEqual([['/', 5, []]]);
  });

  it('merges groups of fewer than 3 URLs into "other", yielded last', async () => {
    const groups = await group([...repeat(3, (i) => `/shop/${i}`), '/legal/terms', '/legal/privacy', '/careers/x', ...repeat(4, (i) => `/news/${i}`)]);
    expect(summary(groups)).toEqual([
      ['/news/*', 4, []],
      ['/shop/*', 3, []],
      [OTHER_GROUP, 3, []],
    ]);
    expect(groups.at(-1)?.samples).toEqual([`${site}/legal/terms`, `${site}/legal/privacy`, `${site}/careers/x`]);
  });

  it('keeps "other" last even when it is the largest', async () => {
    const groups = await group([...repeat(3, (i) => `/a/${i}`), ...repeat(20, (i) => `/solo-${i}/x`)]);
    expect(summary(groups)).toEqual([
      ['/a/*', 3, []],
      [OTHER_GROUP, 20, []],
    ]);
  });

  it('orders groups by count, then by prefix', async () => {
    const groups = await group([...repeat(3, (i) => `/b/${i}`), ...repeat(5, (i) => `/c/${i}`), ...repeat(3, (i) => `/a/${i}`)]);
    expect(groups.map((found) => found.prefix)).toEqual(['/c/*', '/a/*', '/b/*']);
  });

  it('keeps at most 10 samples per group, the first ones seen', async () => {
    const groups = await group(repeat(25, (i) => `/blog/${i}`));
    expect(groups[0]?.count).toBe(25);
    expect(groups[0]?.samples).toEqual(repeat(10, (i) => `${site}/blog/${i}`));
  });

  it('takes the minimum group size and the sample count as options', async () => {
    const groups = await group(['/a/1', '/b/1', '/b/2'], { minGroupSize: 1, maxSamples: 1 });
    expect(groups.map((found) => [found.prefix, found.count, found.samples.length])).toEqual([
      ['/b/*', 2, 1],
      ['/a/*', 1, 1],
    ]);
  });

  it('keeps segments as written in the URL: encoded and case-sensitive', async () => {
    const groups = await group([...repeat(3, (i) => `/%E6%97%A5/${i}`), ...repeat(3, (i) => `/Blog/${i}`), ...repeat(3, (i) => `/blog/${i}`)]);
    expect(groups.map((found) => found.prefix)).toEqual(['/%E6%97%A5/*', '/Blog/*', '/blog/*']);
  });

  it('yields nothing for an empty stream', async () => {
    expect(await group([])).toEqual([]);
  });
});

describe('groupByPathPrefix: locale folders', () => {
  it('groups by the folder after a locale and records the locales per group', async () => {
    const groups = await group([
      '/en-us/docs/a',
      '/de-DE/docs/b',
      '/fr/docs/c',
      '/ja/docs/d',
      '/en-us/blog/a',
      '/pt_BR/blog/b',
      '/blog/c',
      '/en-us/',
      '/fr/about',
      '/zh-hans/',
    ]);
    expect(summary(groups)).toEqual([
      ['/docs/*', 4, ['de-DE', 'en-US', 'fr', 'ja']],
      ['/', 3, ['en-US', 'fr', 'zh-Hans']],
      ['/blog/*', 3, ['en-US', 'pt-BR']],
    ]);
  });

  it('reads /it/ as Italian when the site has sibling locale folders, even if /it/ comes first', async () => {
    const groups = await group(['/it/docs/a', '/it/docs/b', '/en/docs/a', '/fr/docs/a', '/it/']);
    // `/it/` is the Italian home page: a page at the root, alone there, so it ends in "other".
    expect(summary(groups)).toEqual([
      ['/docs/*', 4, ['en', 'fr', 'it']],
      [OTHER_GROUP, 1, ['it']],
    ]);
  });

  it('reads /it/ as the IT section on a site without locale folders', async () => {
    const groups = await group(['/it/support/a', '/it/support/b', '/it/', '/blog/a', '/blog/b', '/blog/c']);
    expect(summary(groups)).toEqual([
      ['/blog/*', 3, []],
      ['/it/*', 3, []],
    ]);
  });

  it('reads /it/ as Italian when the detector already holds hreflang evidence', async () => {
    const detector = new LanguageDetector();
    detector.addHreflang('it-IT');
    const groups = await group(['/it/shop/a', '/it/shop/b', '/shop/c'], { detector });
    expect(summary(groups)).toEqual([['/shop/*', 3, ['it']]]);
  });

  it('does not strip country folders that look like languages unless hreflang says so', async () => {
    const paths = ['/uk/shop/a', '/uk/shop/b', '/uk/shop/c', '/de/shop/a', '/fr/shop/a', '/es/shop/a'];
    expect(summary(await group(paths))).toEqual([
      ['/shop/*', 3, ['de', 'es', 'fr']],
      ['/uk/*', 3, []],
    ]);
    const detector = new LanguageDetector();
    detector.addHreflang('uk-UA');
    expect(summary(await group(paths, { detector }))).toEqual([['/shop/*', 6, ['de', 'es', 'fr', 'uk']]]);
  });

  it('treats /go/, /js/, /us/ and /id/123 as ordinary folders, even next to locale folders', async () => {
    const paths = ['go', 'js', 'us', 'id'].flatMap((folder) => repeat(3, (i) => `/${folder}/${i + 100}`));
    const locales = ['en', 'fr', 'de'].flatMap((locale) => repeat(3, (i) => `/${locale}/news/${i}`));
    expect(summary(await group([...paths, ...locales]))).toEqual([
      ['/news/*', 9, ['de', 'en', 'fr']],
      ['/go/*', 3, []],
      ['/id/*', 3, []],
      ['/js/*', 3, []],
      ['/us/*', 3, []],
    ]);
  });

  it('reads /id/ followed by content folders as Indonesian next to locale folders', async () => {
    const paths = ['en', 'fr', 'id'].flatMap((locale) => repeat(3, (i) => `/${locale}/news/${i}`));
    expect(summary(await group(paths))).toEqual([['/news/*', 9, ['en', 'fr', 'id']]]);
  });

  it('gives the detector the path evidence it saw', async () => {
    const detector = new LanguageDetector();
    await group(['/en-gb/a/1', '/ko/a/2', '/blog/x'], { detector });
    expect(detector.languagesDetected()).toEqual(['en-GB', 'ko']);
  });
});

describe('groupByPathPrefix: unparseable URLs', () => {
  it('puts them in "other", counts them and logs one aggregated event', async () => {
    const bad = [...repeat(500, (i) => `not a url ${i}`), 'mailto:someone@example.com', '/relative/path', 'http://'];
    const grouper = new PathGrouper();
    grouper.addBatch([...bad, ...repeat(3, (i) => `${site}/blog/${i}`)]);
    const groups = grouper.finish();
    expect(summary(groups)).toEqual([
      ['/blog/*', 3, []],
      [OTHER_GROUP, 503, []],
    ]);
    expect(grouper.summary()).toMatchObject({ urls: 506, unparseable: 503, overflowed: 0 });
    const warnings = logged.events.filter((entry) => entry.event === 'unparseable_urls');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.fields).toMatchObject({ count: 503, examples: ['not a url 0', 'not a url 1', 'not a url 2'] });
    expect(logged.events.filter((entry) => entry.level === 'warn')).toHaveLength(1);
  });

  it('does not warn when every URL parsed', async () => {
    await group(['/a/1']);
    expect(logged.events.map((entry) => entry.event)).toEqual(['path_groups_done']);
  });
});

describe('PathGrouper: group cap', () => {
  it('evicts groups still too small to matter, so real sections after a flood of one-off folders survive', () => {
    // WordPress permalinks `/post-slug/` each make a folder of one page; categories come after.
    const grouper = new PathGrouper({ maxGroups: 100 });
    grouper.addBatch(repeat(5_000, (i) => `${site}/post-${i}/`));
    grouper.addBatch(repeat(50, (i) => `${site}/category/c-${i}/`));
    const groups = grouper.finish();
    expect(summary(groups)).toEqual([
      ['/category/*', 50, []],
      [OTHER_GROUP, 5_000, []],
    ]);
    expect(grouper.summary()).toMatchObject({ urls: 5_050, overflowed: 0 });
    expect(logged.events.some((entry) => entry.event === 'group_cap_reached')).toBe(false);
  });

  it('sends new prefixes to "other" once the table is full of real groups, and says so once', () => {
    const grouper = new PathGrouper({ maxGroups: 10 });
    for (let section = 0; section < 30; section += 1) grouper.addBatch(repeat(4, (i) => `${site}/s${section}/${i}`));
    const groups = grouper.finish();
    expect(groups).toHaveLength(11);
    expect(groups.slice(0, 10).every((found) => found.count === 4)).toBe(true);
    expect(groups.at(-1)).toMatchObject({ prefix: OTHER_GROUP, count: 80 });
    expect(grouper.summary()).toMatchObject({ urls: 120, overflowed: 80, groups: 11 });
    expect(logged.events.filter((entry) => entry.event === 'group_cap_reached')).toHaveLength(1);
  });

  it('counts held-back ambiguous folders against the cap too', () => {
    const grouper = new PathGrouper({ maxGroups: 2 });
    grouper.addBatch([...repeat(3, (i) => `${site}/it/a${i}/x`), ...repeat(3, (i) => `${site}/b/${i}`)]);
    const groups = grouper.finish();
    expect(groups.reduce((total, found) => total + found.count, 0)).toBe(6);
    expect(groups.length).toBeLessThanOrEqual(3);
  });
});

describe('PathGrouper: contract', () => {
  it('rejects invalid options with a bad_request error', () => {
    for (const options of [{ maxGroups: 0 }, { maxSamples: 11 }, { minGroupSize: 1.5 }]) {
      expect(() => new PathGrouper(options)).toThrow(RequestError);
      try {
        new PathGrouper(options);
      } catch (error) {
        expect((error as RequestError).kind).toBe('bad_request');
      }
    }
  });

  it('returns the same groups from a second finish and refuses URLs after it', () => {
    const grouper = new PathGrouper();
    grouper.addBatch(repeat(3, (i) => `${site}/a/${i}`));
    const first = grouper.finish();
    expect(grouper.finish()).toBe(first);
    expect(() => grouper.add(`${site}/a/4`)).toThrow(/after finish/);
  });

  const urlish = fc.oneof(
    fc.webUrl({ withQueryParameters: true, withFragments: true }),
    fc
      .tuple(fc.constantFrom('', 'en-us/', 'fr/', 'it/', 'uk/', 'go/'), fc.constantFrom('blog', 'docs', 'x', 'it', 'a b'), fc.nat(20))
      .map(([locale, folder, n]) => `${site}/${locale}${folder}/${n}`),
    fc.string(),
  );

  it('conserves every URL, validates every group and keeps "other" last, for any input', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(urlish, { maxLength: 200 }), fc.integer({ min: 1, max: 20 }), async (urls, maxGroups) => {
        const groups = await group(urls, { maxGroups });
        expect(groups.reduce((total, found) => total + found.count, 0)).toBe(urls.length);
        for (const found of groups) expect(PathGroupSchema.safeParse(found).success).toBe(true);
        const otherAt = groups.findIndex((found) => found.prefix === OTHER_GROUP);
        expect(otherAt === -1 || otherAt === groups.length - 1).toBe(true);
        expect(groups.filter((found) => found.prefix !== OTHER_GROUP).every((found) => found.count >= 3)).toBe(true);
      }),
      { numRuns: 200 },
    );
  });

  it('gives the same groups, counts and locales whatever the order of the URLs (below the cap)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(urlish, { maxLength: 150 }).chain((urls) => fc.tuple(fc.constant(urls), fc.shuffledSubarray(urls, { minLength: urls.length }))),
        async ([urls, shuffled]) => {
          expect(summary(await group(shuffled))).toEqual(summary(await group(urls)));
        },
      ),
      { numRuns: 200 },
    );
  });
});
