// The console's pure helpers (public/*.js, plain browser JavaScript) in-process: the words and figures the site list,
// the progress bar, the header's health line and the trend chart show, from the API's bodies.
import { describe, expect, it } from 'vitest';
import type { ScopeEstimate } from '../../core/types.js';
import type { Site, Sync } from '../../inventory/schemas.js';
import type { HealthBody } from '../health.js';
import type { SitemapRead } from '../../inventory/sitemap-list.js';
import type { SitemapRecord } from '../../inventory/sitemap-records.js';

type SyncCounts = Pick<Sync, 'startedAt' | 'updatedAt' | 'urlsFound' | 'sitemapsDone' | 'sitemapsPending'>;
interface TrendRow {
  ended: string;
  urls: number;
  new: number;
  changed: number;
  returned: number;
  removed: number;
}
interface SyncProgress {
  figure(n: number): string;
  urlRate(sync: Pick<Sync, 'startedAt' | 'updatedAt' | 'urlsFound'>): number | null;
  progressText(sync: SyncCounts): string;
}
interface SiteList {
  shortTime(iso: string): string;
  scheduleText(site: Pick<Site, 'schedule' | 'nextSyncAt'>): string;
  lastSyncText(sync: Sync): string;
}
interface Health {
  plural(n: number, word: string): string;
  age(ms: number): string;
  healthText(body: HealthBody): string;
}
interface SyncChart {
  syncFigures(sync: Sync): TrendRow;
  changes(row: TrendRow): number;
}
interface ScopeChoice {
  groupPrefix(group: { prefix: string }): string;
  groupChoices(estimate: Pick<ScopeEstimate, 'pathGroups'> | null): Array<{ prefix: string; count: number }>;
  scopeWarning(filter: { pathPrefixes: string[]; locales: string[] } | undefined, estimate: Pick<ScopeEstimate, 'pathGroups'> | null): string | null;
}
type Record_ = Pick<SitemapRecord, 'url' | 'parent' | 'status' | 'foundVia'>;
interface SitemapView {
  statusWord(record: Pick<SitemapRecord, 'status'> & Partial<Pick<SitemapRecord, 'vanishedAt'>>): string;
  foundViaText(record: Pick<SitemapRecord, 'foundVia' | 'parent'>): string;
  sitemapsSummary(records: Array<Pick<SitemapRecord, 'status'>>): string;
  sitemapTree(records: Record_[]): Array<{ record: Record_; children: Array<{ record: Record_ }> }>;
  findingText(finding: SitemapRecord['findings'][number]): string;
  countPoints(reads: SitemapRead[]): Array<{ x: number; y: number; read: SitemapRead }>;
}
// Paths the type checker does not follow: the modules are the browser's, typed by their own JSDoc (tsconfig.console.json).
const load = async <T>(file: string): Promise<T> => (await import(new URL(`../../../public/${file}`, import.meta.url).href)) as T;
const { figure, urlRate, progressText } = await load<SyncProgress>('sync-progress.js');
const { shortTime, scheduleText, lastSyncText } = await load<SiteList>('site-list.js');
const { plural, age, healthText } = await load<Health>('health.js');
const { syncFigures, changes } = await load<SyncChart>('sync-chart.js');
const { groupPrefix, groupChoices, scopeWarning } = await load<ScopeChoice>('scope-choice.js');
const { statusWord, foundViaText, sitemapsSummary, sitemapTree, findingText, countPoints } = await load<SitemapView>('sitemap-view.js');

const STARTED = '2026-12-03T10:00:00.000Z';
/** `seconds` after STARTED, as the API spells instants. */
const after = (seconds: number) => new Date(Date.parse(STARTED) + seconds * 1000).toISOString();

function sync(fields: Partial<Sync> = {}): Sync {
  return {
    syncId: 'sync_1',
    siteId: 'example',
    jobId: 'job_1',
    state: 'done',
    startedAt: STARTED,
    finishedAt: after(450),
    updatedAt: after(450),
    urlsFound: 0,
    shardsWritten: 0,
    shardsApplied: 0,
    sitemapsDone: 0,
    sitemapsPending: 0,
    seen: 0,
    new: 0,
    changed: 0,
    returned: 0,
    removed: 0,
    filtered: 0,
    leftScope: 0,
    enteredScope: 0,
    unchangedSitemaps: 0,
    kept: 0,
    keptUnread: 0,
    errors: {},
    message: null,
    ...fields,
  };
}

function health(fields: Partial<HealthBody> = {}): HealthBody {
  return {
    ok: true,
    store: { kind: 'redis', ok: true },
    database: { kind: 'postgres', ok: true },
    queue: { engine: 'pg-boss', depth: 3 },
    syncs: { running: 1, oldestRunningAgeMs: 45_000, due: 0, oldestDueAgeMs: null },
    sites: 12,
    ...fields,
  };
}

describe('the console progress bar', () => {
  it('writes counts with thousands separators', () => {
    expect(figure(0)).toBe('0');
    expect(figure(999)).toBe('999');
    expect(figure(1_000)).toBe('1,000');
    expect(figure(1_234_567)).toBe('1,234,567');
  });

  it('has no rate before a second has passed, then URLs a second since the start, rounded', () => {
    expect(urlRate({ startedAt: STARTED, updatedAt: STARTED, urlsFound: 0 })).toBeNull();
    expect(urlRate({ startedAt: STARTED, updatedAt: after(0.999), urlsFound: 500 })).toBeNull();
    // A server clock that stepped back says nothing either.
    expect(urlRate({ startedAt: STARTED, updatedAt: after(-5), urlsFound: 500 })).toBeNull();
    expect(urlRate({ startedAt: STARTED, updatedAt: after(1), urlsFound: 500 })).toBe(500);
    expect(urlRate({ startedAt: STARTED, updatedAt: after(3), urlsFound: 1_000 })).toBe(333);
    expect(urlRate({ startedAt: STARTED, updatedAt: after(3), urlsFound: 2_003 })).toBe(668);
    expect(urlRate({ startedAt: STARTED, updatedAt: after(10), urlsFound: 0 })).toBe(0);
  });

  it('says sitemaps done of those known, URLs found and the rate', () => {
    const running = { startedAt: STARTED, updatedAt: after(3), urlsFound: 1_200, sitemapsDone: 3, sitemapsPending: 27 };
    expect(progressText(running)).toBe('3 of 30 sitemaps · 1,200 URLs · 400 URLs/s');
    expect(progressText({ ...running, sitemapsDone: 1_500, sitemapsPending: 1_000, urlsFound: 2_400_000, updatedAt: after(1_200) })).toBe(
      '1,500 of 2,500 sitemaps · 2,400,000 URLs · 2,000 URLs/s',
    );
    expect(progressText({ ...running, sitemapsDone: 30, sitemapsPending: 0 })).toBe('30 of 30 sitemaps · 1,200 URLs · 400 URLs/s');
  });

  it('is still finding sitemaps while none is known, and leaves the rate out before a second', () => {
    expect(progressText({ startedAt: STARTED, updatedAt: after(0.5), urlsFound: 0, sitemapsDone: 0, sitemapsPending: 0 })).toBe('finding sitemaps · 0 URLs');
    expect(progressText({ startedAt: STARTED, updatedAt: after(2), urlsFound: 0, sitemapsDone: 0, sitemapsPending: 0 })).toBe(
      'finding sitemaps · 0 URLs · 0 URLs/s',
    );
    expect(progressText({ startedAt: STARTED, updatedAt: after(0.5), urlsFound: 40, sitemapsDone: 0, sitemapsPending: 1 })).toBe('0 of 1 sitemaps · 40 URLs');
  });
});

describe('the console site list', () => {
  it('shows times to the minute, in UTC', () => {
    expect(shortTime('2026-12-03T10:05:00.000Z')).toBe('2026-12-03 10:05 UTC');
    expect(shortTime('2026-12-03T23:59:59.999Z')).toBe('2026-12-03 23:59 UTC');
  });

  it('shows a schedule with its next sync, and off without one', () => {
    expect(scheduleText({ schedule: '24h', nextSyncAt: '2026-12-03T10:05:00.000Z' })).toBe('24h, next 2026-12-03 10:05 UTC');
    expect(scheduleText({ schedule: '90m', nextSyncAt: '2026-12-04T00:00:00.000Z' })).toBe('90m, next 2026-12-04 00:00 UTC');
    expect(scheduleText({ schedule: 'off', nextSyncAt: null })).toBe('off');
    // A schedule whose next sync is not set yet, and a stale next sync of a schedule turned off.
    expect(scheduleText({ schedule: '6h', nextSyncAt: null })).toBe('6h');
    expect(scheduleText({ schedule: 'off', nextSyncAt: '2026-12-03T10:05:00.000Z' })).toBe('off');
  });

  it("shows a running sync's start and progress", () => {
    const running = sync({ state: 'running', finishedAt: null, updatedAt: after(3), sitemapsDone: 3, sitemapsPending: 27, urlsFound: 1_200 });
    expect(lastSyncText(running)).toBe('since 2026-12-03 10:00 UTC · 3 of 30 sitemaps · 1,200 URLs');
    expect(lastSyncText({ ...running, sitemapsDone: 0, sitemapsPending: 0, urlsFound: 0 })).toBe('since 2026-12-03 10:00 UTC · 0 of 0 sitemaps · 0 URLs');
  });

  it("shows an ended sync's end and changes, or why it did not finish", () => {
    const done = sync({ new: 1_234, changed: 5, removed: 0, message: 'ignored when done' });
    expect(lastSyncText(done)).toBe('2026-12-03 10:07 UTC · 1,234 new, 5 changed, 0 removed');
    expect(lastSyncText(sync({ state: 'failed', message: 'robots.txt disallows /sitemap.xml' }))).toBe(
      '2026-12-03 10:07 UTC · robots.txt disallows /sitemap.xml',
    );
    expect(lastSyncText(sync({ state: 'stopped', message: 'stopped by the operator', new: 7 }))).toBe('2026-12-03 10:07 UTC · stopped by the operator');
    // No message: the changes it made before it ended; no end time: its last update.
    expect(lastSyncText(sync({ state: 'failed', new: 2, changed: 1, removed: 3 }))).toBe('2026-12-03 10:07 UTC · 2 new, 1 changed, 3 removed');
    expect(lastSyncText(sync({ state: 'stopped', finishedAt: null, updatedAt: '2026-12-03T11:30:00.000Z' }))).toBe(
      '2026-12-03 11:30 UTC · 0 new, 0 changed, 0 removed',
    );
  });
});

describe('the console health line', () => {
  it('counts in words, one or many', () => {
    expect(plural(0, 'site')).toBe('0 sites');
    expect(plural(1, 'site')).toBe('1 site');
    expect(plural(2, 'running sync')).toBe('2 running syncs');
  });

  it('says how old in seconds, minutes or hours', () => {
    expect(age(0)).toBe('0 s');
    expect(age(45_000)).toBe('45 s');
    expect(age(60_000)).toBe('1 min');
    expect(age(12 * 60_000 + 20_000)).toBe('12 min');
    expect(age(3_600_000)).toBe('1.0 h');
    expect(age(5_400_000)).toBe('1.5 h');
    expect(age(50 * 3_600_000)).toBe('50.0 h');
  });

  it('reads a healthy body: the parts, the queue and its depth, running and due syncs, sites', () => {
    expect(healthText(health())).toBe(
      'Service ok · store redis ok · database postgres ok · queue pg-boss, depth 3 · 1 running sync (oldest 45 s) · 0 due syncs · 12 sites',
    );
    expect(
      healthText(
        health({
          store: { kind: 'memory', ok: true },
          database: { kind: 'pglite', ok: true },
          queue: { engine: 'in-process', depth: 0 },
          syncs: { running: 2, oldestRunningAgeMs: 90_000, due: 1, oldestDueAgeMs: 7_200_000 },
          sites: 1,
        }),
      ),
    ).toBe(
      'Service ok · store memory ok · database pglite ok · queue in-process, depth 0 · 2 running syncs (oldest 2 min) · 1 due sync (oldest 2.0 h) · 1 site',
    );
  });

  it('leaves out the depth a queue cannot tell', () => {
    expect(healthText(health({ queue: { engine: 'qstash', depth: null, error: 'QStash unreachable' }, syncs: null, sites: 0 }))).toBe(
      'Service ok · store redis ok · database postgres ok · queue qstash · 0 sites',
    );
  });

  it('reads a 503 body: why it is degraded, which part is down, no counts without the database', () => {
    const down = health({
      ok: false,
      store: { kind: 'upstash', ok: true },
      database: { kind: 'postgres', ok: false, error: 'connect ECONNREFUSED 127.0.0.1:5432' },
      queue: { engine: 'none', depth: null },
      syncs: null,
      sites: null,
      error: { kind: 'store_unavailable', message: 'database (postgres) unreachable' },
    });
    expect(healthText(down)).toBe('Service degraded: database (postgres) unreachable · store upstash ok · database postgres down · queue none');
    const { error: _error, ...withoutMessage } = down;
    expect(healthText({ ...withoutMessage, store: { kind: 'redis', ok: false } })).toBe(
      'Service degraded: a part is down · store redis down · database postgres down · queue none',
    );
  });
});

describe('the console trend chart', () => {
  it("takes a finished sync's live URLs (seen, kept unchanged, kept unread) and its changes", () => {
    const row = syncFigures(sync({ seen: 100, kept: 50, keptUnread: 5, new: 10, changed: 4, returned: 2, removed: 7, urlsFound: 999, filtered: 3 }));
    expect(row).toEqual({ ended: after(450), urls: 155, new: 10, changed: 4, returned: 2, removed: 7 });
    expect(changes(row)).toBe(23);
  });

  it('dates a sync without an end time by its last update, and counts an idle sync as no change', () => {
    const row = syncFigures(sync({ finishedAt: null, updatedAt: '2026-12-03T11:30:00.000Z', seen: 0, kept: 1_000 }));
    expect(row).toEqual({ ended: '2026-12-03T11:30:00.000Z', urls: 1_000, new: 0, changed: 0, returned: 0, removed: 0 });
    expect(changes(row)).toBe(0);
  });
});

describe('the console sub-tree choices, at their edges', () => {
  it('takes a group as the filter does', () => {
    expect(groupPrefix({ prefix: '/blog/*' })).toBe('/blog/');
    expect(groupPrefix({ prefix: '/' })).toBe('/');
    expect(groupPrefix({ prefix: 'other' })).toBe('other');
  });

  it('offers nothing without an estimate, and has nothing to say of an empty sample', () => {
    expect(groupChoices(null)).toEqual([]);
    expect(groupChoices({ pathGroups: [{ prefix: 'other', count: 5, samples: [], locales: [] }] })).toEqual([]);
    expect(scopeWarning({ pathPrefixes: ['/docs/'], locales: [] }, { pathGroups: [] })).toBeNull();
  });
});

describe('sitemap-view.js', () => {
  const record = (url: string, parent: string | null, status: 'ok' | 'has_issues' | 'failed' | null, foundVia: 'robots' | 'index' | null = 'index') =>
    ({ url, parent, status, foundVia }) satisfies Record_;

  it('names statuses, where each sitemap came from, and counts them', () => {
    expect(statusWord({ status: null })).toBe('unread');
    expect(statusWord({ status: 'has_issues' })).toBe('has_issues');
    expect(statusWord({ status: 'ok', vanishedAt: '2026-12-07T10:00:00.000Z' })).toBe('vanished');
    expect(foundViaText({ foundVia: 'index', parent: 'https://e.com/i.xml' })).toBe('listed by https://e.com/i.xml');
    expect(foundViaText({ foundVia: 'robots', parent: null })).toBe('robots.txt');
    expect(foundViaText({ foundVia: null, parent: null })).toBe('unknown');
    expect(sitemapsSummary([{ status: 'failed' }, { status: 'ok' }, { status: 'ok' }, { status: null }])).toBe(
      '4 sitemaps: 1 failed, 0 with issues, 2 ok, 1 not yet recorded',
    );
    expect(sitemapsSummary([{ status: 'ok' }])).toBe('1 sitemap: 0 failed, 0 with issues, 1 ok');
  });

  it('builds the tree from parents, whatever order the records come in; an orphan is a root', () => {
    const tree = sitemapTree([
      record('https://e.com/a.xml', 'https://e.com/i.xml', 'failed'),
      record('https://e.com/i.xml', null, 'ok', 'robots'),
      record('https://e.com/b.xml', 'https://e.com/i.xml', 'ok'),
      record('https://e.com/lost.xml', 'https://e.com/gone-index.xml', 'ok'),
    ]);
    expect(tree.map((node) => [node.record.url, node.children.map((child) => child.record.url)])).toEqual([
      ['https://e.com/i.xml', ['https://e.com/a.xml', 'https://e.com/b.xml']],
      ['https://e.com/lost.xml', []],
    ]);
  });

  it('writes a finding with its examples, and scales reads oldest first', () => {
    expect(findingText({ rule: 'namespace', severity: 'error', message: 'no namespace', count: 1, examples: [] })).toBe('error namespace (1): no namespace');
    expect(findingText({ rule: 'duplicate_loc', severity: 'warning', message: '2 again', count: 1_200, examples: ['a', 'b'] })).toBe(
      'warning duplicate_loc (1,200): 2 again — e.g. a, b',
    );
    const read = (urls: number, syncId: string) => ({
      syncId,
      readAt: '2026-12-07T10:00:00.000Z',
      status: 'ok' as const,
      urls,
      bytes: 0,
      errors: 0,
      warnings: 0,
      notices: 0,
    });
    const points = countPoints([read(50, 'newest'), read(100, 'oldest')]);
    expect(points.map((point) => [point.read.syncId, point.x, point.y])).toEqual([
      ['oldest', 4, 4],
      ['newest', 316, 30],
    ]);
    expect(countPoints([read(0, 'only')])).toEqual([{ x: 4, y: 56, read: read(0, 'only') }]);
  });
});
