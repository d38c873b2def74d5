import { z } from 'zod';
import type { InventoryDb, Queryable } from './db.js';
import type { SiteFilter } from './schemas.js';
import { resolveSitemapIds } from './sitemap-ids.js';
import { APPLY_PART_SQL } from './apply-part-sql.js';
import { isNewerLastmod } from './lastmod-order.js';
import { compileFilter } from '../factory/filter/index.js';
import { pathFactsOf, pathnameOfValidUrl } from '../factory/scope/locale.js';
import type { ShardEntry } from '../core/types.js';

/** At most this many URLs a transaction (DESIGN "Inventory"). */
export const BATCH_ROWS = 500;

/** A shard of a sync's job, to apply to the site's inventory. */
export interface ShardToApply {
  syncId: string;
  siteId: string;
  shard: number;
  entries: readonly ShardEntry[];
  filter?: SiteFilter | null;
}

/** What applying one shard did: parts written now, parts another call had written already. */
export interface ShardApplied {
  appliedParts: number;
  skippedParts: number;
}

const AppliedSchema = z.object({ applied: z.number().int() });

interface Row {
  url: string;
  lastmod: string | null;
  changefreq: string | null;
  priority: number | null;
  source: string;
  /** Every sitemap of the shard that lists the URL (`source` first): one membership each. */
  sources: string[];
  locale: string | null;
  pathPrefix: string | null;
}

function toRow(entry: ShardEntry): Row {
  const { url, lastmod, changefreq, priority, source, locale } = entry;
  const pathname = pathnameOfValidUrl(url);
  // The walk judged the locale (its path, else its hreflang); the path group looks through a folder naming it.
  const pathPrefix = pathname === null ? null : pathFactsOf(pathname, locale).pathPrefix;
  return { url, lastmod, changefreq, priority, source, sources: [source], locale, pathPrefix };
}

// The wizard's sub-tree is judged by the walk's own filter (one implementation for walk, jobs and syncs).
function siteFilterTest(filter: SiteFilter | null | undefined): ((row: Row) => boolean) | null {
  // compileFilter says null itself for a sub-tree that keeps everything (no groups, no locales).
  const keep = filter ? compileFilter({ pathPrefixes: filter.pathPrefixes, locales: filter.locales }) : null;
  if (keep === null) return null;
  return (row) => keep({ url: row.url, lastmod: row.lastmod, locale: row.locale }, { url: row.source, depth: 0, parent: null });
}

/**
 * Deduplicates by URL (the facts of the entry with the newest lastmod win, the first on a tie; every sitemap listing it
 * is kept as a membership) and applies the site filter; returns the rows to write and the URLs the filter dropped.
 */
export function prepareRows(entries: readonly ShardEntry[], filter?: SiteFilter | null): { rows: Row[]; dropped: string[] } {
  const byUrl = new Map<string, Row>();
  for (const entry of entries) {
    const row = byUrl.get(entry.url);
    if (row === undefined) {
      byUrl.set(entry.url, toRow(entry));
      continue;
    }
    if (row.sources.includes(entry.source)) continue;
    if (!isNewerLastmod(entry.lastmod, row.lastmod)) row.sources.push(entry.source);
    else byUrl.set(entry.url, { ...toRow(entry), sources: [entry.source, ...row.sources] });
  }
  const keeps = siteFilterTest(filter);
  if (keeps === null) return { rows: [...byUrl.values()], dropped: [] };
  const rows: Row[] = [];
  const dropped: string[] = [];
  for (const row of byUrl.values()) {
    if (keeps(row)) rows.push(row);
    else dropped.push(row.url);
  }
  return { rows, dropped };
}

function partsOf(rows: Row[]): Row[][] {
  const parts: Row[][] = [];
  for (let i = 0; i < rows.length; i += BATCH_ROWS) parts.push(rows.slice(i, i + BATCH_ROWS));
  return parts.length === 0 ? [[]] : parts;
}

function columns(rows: Row[], sitemapIds: ReadonlyMap<string, number>): unknown[] {
  const idOf = (source: string): number => {
    const id = sitemapIds.get(source);
    if (id === undefined) throw new Error(`no sitemap id for ${source}`);
    return id;
  };
  const extraUrls: string[] = [];
  const extraIds: number[] = [];
  for (const row of rows) {
    for (const source of row.sources.slice(1)) {
      extraUrls.push(row.url);
      extraIds.push(idOf(source));
    }
  }
  return [
    rows.map((row) => row.url),
    rows.map((row) => row.lastmod),
    rows.map((row) => row.changefreq),
    rows.map((row) => row.priority),
    rows.map((row) => row.source),
    rows.map((row) => row.locale),
    rows.map((row) => row.pathPrefix),
    rows.map((row) => idOf(row.source)),
    extraUrls,
    extraIds,
  ];
}

interface Part {
  shard: ShardToApply;
  index: number;
  total: number;
  rows: Row[];
  /** The URLs the site filter dropped (part 0 carries the shard's). */
  dropped: string[];
  sitemapIds: ReadonlyMap<string, number>;
}

// One statement, so one transaction in one round trip: the part's key is claimed and its rows, history and counters
// written together (lib/inventory/apply-part-sql.ts); a key already there writes nothing.
async function applyPart(db: Queryable, part: Part): Promise<boolean> {
  const { syncId, siteId, shard } = part.shard;
  const params = [syncId, siteId, shard, part.index, part.total, part.dropped.length, ...columns(part.rows, part.sitemapIds), part.dropped];
  const [row] = await db.query(APPLY_PART_SQL, params);
  return AppliedSchema.parse(row).applied === 1;
}

/**
 * Applies one shard to the inventory exactly once: deduplicated, filtered, split in parts of at most 500 rows, each part
 * (URLs, their sightings and memberships, history and counters) in one statement keyed by (sync, shard, part). A re-run after a crash,
 * or by a second worker, writes nothing twice.
 */
export async function applyShard(db: InventoryDb, shard: ShardToApply): Promise<ShardApplied> {
  const { rows, dropped } = prepareRows(shard.entries, shard.filter);
  const parts = partsOf(rows);
  const sitemapIds = await resolveSitemapIds(
    db,
    shard,
    rows.flatMap((row) => row.sources),
  );
  const result: ShardApplied = { appliedParts: 0, skippedParts: 0 };
  for (const [index, partRows] of parts.entries()) {
    const part = { shard, index, total: parts.length, rows: partRows, dropped: index === 0 ? dropped : [], sitemapIds };
    if (await applyPart(db, part)) result.appliedParts += 1;
    else result.skippedParts += 1;
  }
  return result;
}
