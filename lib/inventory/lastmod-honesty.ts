// Whether a site's lastmods can be trusted, from what its syncs saw: the share of URLs whose lastmod moves at each
// sync, lastmods equal to the moment of the fetch (stamped at request time), and lastmods older than the URL's first
// sighting. A site whose lastmods are not to be trusted has its index lastmods ignored by the next incremental re-sync
// (which still asks with ETag / Last-Modified): an index stamping every child "now" would otherwise skip nothing, and
// one whose stamps never move would skip changed children.
import { z } from 'zod';
import type { InventoryDb } from './db.js';
import type { Sync } from './schemas.js';
import type { Validators } from '../core/types.js';

/** URLs of the site sampled for the per-URL shares: enough for a share to within about 1%, cheap on any site. */
const SAMPLE_URLS = 10_000;
/** Below this many URLs a share proves nothing. */
const MIN_URLS = 10;
/** At or above this share, the lastmods say when the file was made, not when pages changed. */
const UNTRUSTED_SHARE = 0.9;
/** How close to the sync a lastmod must be to count as the moment of the fetch. */
const FETCH_WINDOW_MS = 5 * 60_000;

export const LastmodHonestySchema = z.object({
  /** False when the lastmods move at every sync or are the fetch's moment: index lastmods are then not relied on. */
  trusted: z.boolean(),
  /** Of the URLs the sync saw that an earlier sync had seen, the share whose facts changed (lastmod most of all). */
  movingShare: z.number().min(0).max(1).nullable(),
  /** Of the sampled URLs with a lastmod, the share within 5 minutes of the sync. */
  fetchTimeShare: z.number().min(0).max(1).nullable(),
  /** Of the sampled URLs with a lastmod, the share older than when the inventory first saw the URL (usual: pages predate us). */
  olderThanFirstSeenShare: z.number().min(0).max(1).nullable(),
  sampled: z.number().int().nonnegative(),
  syncId: z.string(),
  /** Why it is not trusted, in words (empty when it is). */
  reasons: z.array(z.string()),
});
export type LastmodHonesty = z.infer<typeof LastmodHonestySchema>;

/** What a sync saw of the lastmods, as counts. */
export interface LastmodFacts {
  /** URLs the sync saw that were already known, and how many of them changed. */
  known: number;
  changed: number;
  /** Sampled URLs with a lastmod, those at the fetch's moment, and those older than their first sighting. */
  dated: number;
  atFetchTime: number;
  olderThanFirstSeen: number;
  sampled: number;
}

const share = (part: number, whole: number) => (whole >= MIN_URLS ? part / whole : null);
const percent = (value: number) => `${Math.round(value * 100)}%`;

/** The verdict on a site's lastmods from one sync's facts. */
export function judgeLastmods(facts: LastmodFacts, syncId: string): LastmodHonesty {
  const movingShare = share(facts.changed, facts.known);
  const fetchTimeShare = share(facts.atFetchTime, facts.dated);
  const reasons: string[] = [];
  if (movingShare !== null && movingShare >= UNTRUSTED_SHARE) reasons.push(`${percent(movingShare)} of the known URLs changed since the sync before`);
  if (fetchTimeShare !== null && fetchTimeShare >= UNTRUSTED_SHARE) reasons.push(`${percent(fetchTimeShare)} of the lastmods are the moment of the fetch`);
  return {
    trusted: reasons.length === 0,
    movingShare,
    fetchTimeShare,
    olderThanFirstSeenShare: share(facts.olderThanFirstSeen, facts.dated),
    sampled: facts.sampled,
    syncId,
    reasons,
  };
}

const SampleSchema = z.object({
  sampled: z.coerce.number().int(),
  dated: z.coerce.number().int(),
  atFetchTime: z.coerce.number().int(),
  olderThanFirstSeen: z.coerce.number().int(),
});

/**
 * Measures a sync's lastmods as it ends `done` (its counters, and a sample of the site's live URLs: an unchanged URL's
 * row is not rewritten, so the sample is of what the site lists, not of what moved) and keeps the verdict on the site.
 */
export async function measureLastmodHonesty(db: InventoryDb, sync: Pick<Sync, 'syncId' | 'siteId' | 'seen' | 'new' | 'changed'>): Promise<LastmodHonesty> {
  const [row] = await db.query(
    `SELECT count(*)::int AS sampled, count(t.at)::int AS dated,
       count(*) FILTER (WHERE t.at BETWEEN y.started_at - make_interval(secs => $3 / 1000.0) AND now() + make_interval(secs => $3 / 1000.0))::int AS "atFetchTime",
       count(*) FILTER (WHERE t.at < t.first_seen_at)::int AS "olderThanFirstSeen"
     FROM (SELECT cf_lastmod_instant(u.sitemap_lastmod) AS at, u.first_seen_at FROM urls u
           WHERE u.site_id = $1 AND u.removed_at IS NULL LIMIT $4) t,
          syncs y WHERE y.sync_id = $2
     GROUP BY y.started_at`,
    [sync.siteId, sync.syncId, FETCH_WINDOW_MS, SAMPLE_URLS],
  );
  const sample = row === undefined ? { sampled: 0, dated: 0, atFetchTime: 0, olderThanFirstSeen: 0 } : SampleSchema.parse(row);
  const honesty = judgeLastmods({ known: sync.seen - sync.new, changed: sync.changed, ...sample }, sync.syncId);
  await db.query('UPDATE sites SET lastmod_honesty = $2::jsonb WHERE site_id = $1', [sync.siteId, JSON.stringify(honesty)]);
  return honesty;
}

/** The validators a re-sync starts from: without the index lastmods when the site's lastmods are not to be trusted. */
export function validatorsToTrust(validators: Validators, honesty: LastmodHonesty | null): Validators {
  if (honesty === null || honesty.trusted) return validators;
  return Object.fromEntries(Object.entries(validators).map(([key, validator]) => [key, { ...validator, lastmod: null }]));
}
