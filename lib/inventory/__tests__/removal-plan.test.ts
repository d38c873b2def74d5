import { describe, expect, it } from 'vitest';
import { planRemovals, type KnownSitemap } from '../removal-plan.js';

const SEQ = 7;
// Sitemap 1 was read this sync (it gave URLs); 2 and 3 were read by an earlier sync only.
const SITEMAPS: KnownSitemap[] = [
  { id: 1, url: 'https://s.example/sm/a.xml', seenSeq: SEQ },
  { id: 2, url: 'https://s.example/sm/b.xml', seenSeq: 3 },
  { id: 3, url: 'https://s.example/sm/c.xml', seenSeq: 3 },
];
const clean = { seq: SEQ, errors: [], errorsComplete: true, unchanged: [] };

describe('which sitemaps a done sync may remove URLs of (planRemovals)', () => {
  it('reads a sitemap not read this sync as no longer listed when every failure is accounted for', () => {
    expect(planRemovals(SITEMAPS, clean)).toEqual({ read: [1, 2, 3], gone: [], unchanged: [], unread: [] });
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
    expect(plan).toEqual({ read: [], gone: [2], unchanged: [3], unread: [1] });
  });

  it('keeps the sitemaps this sync did not read when a failed sitemap may be an index (not known to list URLs)', () => {
    const plan = planRemovals(SITEMAPS, { ...clean, errors: [{ kind: 'http_status', url: 'https://s.example/sm/sub-index.xml', status: 503 }] });
    expect(plan).toEqual({ read: [1], gone: [], unchanged: [], unread: [2, 3] });
  });

  it('a gone index proves nothing is hidden: what it listed is no longer listed', () => {
    const plan = planRemovals(SITEMAPS, { ...clean, errors: [{ kind: 'http_status', url: 'https://s.example/sm/sub-index.xml', status: 404 }] });
    expect(plan).toEqual({ read: [1, 2, 3], gone: [], unchanged: [], unread: [] });
  });

  it('removes nothing it cannot prove when an error has no URL (a job-wide limit) or errors were capped', () => {
    const gone = { kind: 'http_status' as const, url: 'https://s.example/sm/b.xml', status: 404 };
    for (const outcome of [
      { ...clean, errors: [{ kind: 'too_many_urls' as const, url: null }, gone] },
      { ...clean, errors: [gone], errorsComplete: false },
    ]) {
      expect(planRemovals(SITEMAPS, outcome)).toEqual({ read: [], gone: [2], unchanged: [], unread: [1, 3] });
    }
  });

  it('a sitemap that gave URLs this sync and then answered 404 (a retry) is unknown, not gone', () => {
    const plan = planRemovals(SITEMAPS, { ...clean, errors: [{ kind: 'http_status', url: 'https://s.example/sm/a.xml', status: 404 }] });
    expect(plan).toEqual({ read: [2, 3], gone: [], unchanged: [], unread: [1] });
  });
});
