import { describe, expect, it } from 'vitest';
import { planRemovals, type KnownSitemap } from '../removal-plan.js';

const SEQ = 7;
// Sitemap 1 was read this sync (it gave URLs); 2 and 3 were read by an earlier sync only.
const SITEMAPS: KnownSitemap[] = [
  { id: 1, url: 'https://s.example/sm/a.xml', seenSeq: SEQ, goneSince: null, goneSyncs: 0, goneSeq: 0 },
  { id: 2, url: 'https://s.example/sm/b.xml', seenSeq: 3, goneSince: null, goneSyncs: 0, goneSeq: 0 },
  { id: 3, url: 'https://s.example/sm/c.xml', seenSeq: 3, goneSince: null, goneSyncs: 0, goneSeq: 0 },
];
const NOW = Date.parse('2026-12-07T12:00:00Z');
const HOUR = 3_600_000;
// No grace: a gone sitemap's URLs go at once (the grace itself is tested apart).
const clean = { seq: SEQ, errors: [], errorsComplete: true, unchanged: [], grace: { syncs: 1, hours: 0 }, now: NOW };

describe('which sitemaps a done sync may remove URLs of (planRemovals)', () => {
  it('reads a sitemap not read this sync as no longer listed when every failure is accounted for', () => {
    expect(planRemovals(SITEMAPS, clean)).toEqual({ read: [1, 2, 3], gone: [], unchanged: [], unread: [], pending: [] });
  });

  it('keeps unchanged sitemaps, drops a 404/410 one, keeps a failed leaf, by identity key (host case, default port)', () => {
    const plan = planRemovals(SITEMAPS, {
      ...clean,
      unchanged: ['https://S.EXAMPLE:443/sm/c.xml'],
      errors: [
        { kind: 'http_status', url: 'https://s.example/sm/b.xml', status: 410 },
        { kind: 'timeout', url: 'https://s.example/sm/a.xml' },
      ],
    });
    expect(plan).toEqual({ read: [], gone: [2], unchanged: [3], unread: [1], pending: [] });
  });

  it('keeps the sitemaps this sync did not read when a failed sitemap may be an index (not known to list URLs)', () => {
    const plan = planRemovals(SITEMAPS, { ...clean, errors: [{ kind: 'http_status', url: 'https://s.example/sm/sub-index.xml', status: 503 }] });
    expect(plan).toEqual({ read: [1], gone: [], unchanged: [], unread: [2, 3], pending: [] });
  });

  it('a gone index proves nothing is hidden: what it listed is no longer listed', () => {
    const plan = planRemovals(SITEMAPS, { ...clean, errors: [{ kind: 'http_status', url: 'https://s.example/sm/sub-index.xml', status: 404 }] });
    expect(plan).toEqual({ read: [1, 2, 3], gone: [], unchanged: [], unread: [], pending: [] });
  });

  it('removes nothing it cannot prove when an error has no URL (a job-wide limit) or errors were capped', () => {
    const gone = { kind: 'http_status' as const, url: 'https://s.example/sm/b.xml', status: 404 };
    for (const outcome of [
      { ...clean, errors: [{ kind: 'too_many_urls' as const, url: null }, gone] },
      { ...clean, errors: [gone], errorsComplete: false },
    ]) {
      expect(planRemovals(SITEMAPS, outcome)).toEqual({ read: [], gone: [2], unchanged: [], unread: [1, 3], pending: [] });
    }
  });

  it('keeps a gone sitemap pending until its grace: two syncs in a row, a day apart at least', () => {
    const gone = { ...clean, errors: [{ kind: 'http_status' as const, url: 'https://s.example/sm/b.xml', status: 404 }], grace: { syncs: 2, hours: 24 } };
    const b = (goneSyncs: number, goneSince: number | null) => SITEMAPS.map((sitemap) => (sitemap.id === 2 ? { ...sitemap, goneSyncs, goneSince } : sitemap));
    const pending = { read: [1, 3], gone: [], unchanged: [], unread: [2], pending: [2] };
    // First 404: pending. Second, the same day: still pending. Second, a day after the first: gone.
    expect(planRemovals(b(0, null), gone)).toEqual(pending);
    expect(planRemovals(b(1, NOW - 2 * HOUR), gone)).toEqual(pending);
    expect(planRemovals(b(1, NOW - 25 * HOUR), gone)).toEqual({ read: [1, 3], gone: [2], unchanged: [], unread: [], pending: [] });
    // A week of 404s, but one sync only (a site synced weekly): two syncs are still needed.
    expect(planRemovals(b(0, NOW - 7 * 24 * HOUR), gone)).toEqual(pending);
    // This sync's step run again after a crash: its own count is in the streak already, not counted twice.
    const counted = SITEMAPS.map((sitemap) => (sitemap.id === 2 ? { ...sitemap, goneSyncs: 1, goneSince: NOW - 25 * HOUR, goneSeq: SEQ } : sitemap));
    expect(planRemovals(counted, gone)).toEqual(pending);
  });

  it('a sitemap that gave URLs this sync and then answered 404 (a retry) is unknown, not gone', () => {
    const plan = planRemovals(SITEMAPS, { ...clean, errors: [{ kind: 'http_status', url: 'https://s.example/sm/a.xml', status: 404 }] });
    expect(plan).toEqual({ read: [2, 3], gone: [], unchanged: [], unread: [1], pending: [] });
  });
});
