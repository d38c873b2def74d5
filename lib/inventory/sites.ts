import { z } from 'zod';
import type { InventoryDb } from './db.js';
import { SiteIdSchema, SiteSchema, SiteFilterSchema, parseRows, type Site } from './schemas.js';
import { runningSyncConflict, siteHasRunningSync } from './running-sync.js';
import { nextSyncSql, ScheduleSchema } from './schedule.js';
import { purgeSite } from './site-purge.js';
import { checkSiteRoot } from './site-root.js';
import { SITE_COLUMNS } from './sql-columns.js';
import { RequestError } from '../core/errors.js';
import { CallerOptionsSchema, type NetPolicy } from '../core/limits.js';

/**
 * How long a site's sitemap must keep answering 404/410 before its URLs are removed (DEFAULT_GONE_GRACE: two syncs in
 * a row over a day at least; `{syncs: 1, hours: 0}` removes at the first).
 */
const GoneGraceSchema = z.object({ syncs: z.number().int().min(1).max(100), hours: z.number().min(0).max(8_760) }).strict();

/** A site's stored options: the caller's job limits, the sub-tree filter the wizard chose, the grace of a gone sitemap. */
export const SiteOptionsSchema = CallerOptionsSchema.extend({ filter: SiteFilterSchema.optional(), goneGrace: GoneGraceSchema.optional() }).strict();
export type SiteOptions = z.infer<typeof SiteOptionsSchema>;

/** A change of a site's options as sent: each key given replaces the stored one, `null` removes it (the default again). */
export const SiteOptionsPatchSchema = z.record(z.string(), z.unknown());
export type SiteOptionsPatch = z.infer<typeof SiteOptionsPatchSchema>;

/** Applies an options patch to stored options: unknown keys and bad values are refused as on create (strict zod). */
export function patchOptions(stored: Record<string, unknown>, patch: SiteOptionsPatch): SiteOptions {
  const unset = Object.keys(patch).filter((key) => patch[key] === null);
  const set = SiteOptionsSchema.parse(Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== null)));
  // A removed key must still be an option: `null` for a typo would otherwise pass silently.
  SiteOptionsSchema.keyof().array().parse(unset);
  const merged: Record<string, unknown> = { ...stored, ...set };
  for (const key of unset) delete merged[key];
  return SiteOptionsSchema.parse(merged);
}

/** A site to add: its root URL, an id (default: from the host), options and a schedule (`24h`, `30m`, `off`: the default). */
export interface NewSite {
  rootUrl: string;
  siteId?: string;
  options?: SiteOptions;
  schedule?: string;
}

/** A change of a site: a new root URL, options to set or remove, a new schedule. */
export interface SitePatch {
  rootUrl?: string;
  options?: SiteOptionsPatch;
  schedule?: string;
}

/** The id a site gets from its host when none is given: `www.Example.com:8080` -> `www.example.com-8080`. */
export function siteIdFromUrl(url: URL): string {
  return SiteIdSchema.parse(
    url.host
      .toLowerCase()
      .replace(/[^a-z0-9._-]/g, '-')
      .replace(/^[^a-z0-9]+/, '')
      .slice(0, 100),
  );
}

/** Validates a site id from a request: a malformed one is a 400, before any query. */
export function assertSiteId(value: unknown): string {
  const parsed = SiteIdSchema.safeParse(value);
  if (!parsed.success) throw new RequestError('bad_request', `invalid siteId: ${parsed.error.issues[0]?.message ?? 'malformed'}`);
  return parsed.data;
}

/**
 * Adds a site; its root is checked first (`checkSiteRoot`, with the deployment's network policy when given); an id already taken
 * is a 409 `conflict`. A deleted site whose purge was cut short is purged first, so its id can be taken again.
 */
export async function createSite(db: InventoryDb, input: NewSite, net?: NetPolicy): Promise<Site> {
  // The id first: it costs nothing, the root's check may cost a DNS lookup.
  const givenId = input.siteId === undefined ? undefined : assertSiteId(input.siteId);
  const root = await checkSiteRoot(input.rootUrl, net);
  const siteId = givenId ?? siteIdFromUrl(root);
  const options = SiteOptionsSchema.parse(input.options ?? {});
  const scheduleMs = ScheduleSchema.parse(input.schedule ?? 'off');
  const insert = () =>
    db.query(
      `INSERT INTO sites (site_id, root_url, options, schedule_ms, next_sync_at)
       VALUES ($1, $2, $3::jsonb, $4::bigint, CASE WHEN $4::bigint IS NULL THEN NULL ELSE ${nextSyncSql('$4::bigint')} END)
       ON CONFLICT (site_id) DO NOTHING RETURNING ${SITE_COLUMNS}`,
      [siteId, root.href, JSON.stringify(options), scheduleMs],
    );
  let [site] = parseRows(SiteSchema, await insert());
  if (!site && (await db.query('SELECT 1 FROM sites WHERE site_id = $1 AND deleted_at IS NOT NULL', [siteId])).length > 0) {
    await purgeSite(db, siteId);
    [site] = parseRows(SiteSchema, await insert());
  }
  if (!site) throw new RequestError('conflict', `site ${siteId} exists already`);
  return site;
}

/** One site, or null when there is none (a deleted site is gone). */
export async function findSite(db: InventoryDb, siteId: string): Promise<Site | null> {
  const [site] = parseRows(SiteSchema, await db.query(`SELECT ${SITE_COLUMNS} FROM sites WHERE site_id = $1 AND deleted_at IS NULL`, [siteId]));
  return site ?? null;
}

/** One site, or `not_found` (a deleted site is gone). */
export async function getSite(db: InventoryDb, siteId: string): Promise<Site> {
  const site = await findSite(db, siteId);
  if (!site) throw new RequestError('not_found', `no site ${siteId}`);
  return site;
}

/**
 * Sets a site's schedule (`24h`, `30m`, ... or `off`): its next sync falls due one interval (plus jitter) from now. Allowed
 * while a sync runs: the schedule is read only when a sync starts or ends.
 */
export async function setSiteSchedule(db: InventoryDb, siteId: string, schedule: string): Promise<Site> {
  const scheduleMs = ScheduleSchema.parse(schedule);
  const rows = await db.query(
    `UPDATE sites SET schedule_ms = $2::bigint, next_sync_at = CASE WHEN $2::bigint IS NULL THEN NULL ELSE ${nextSyncSql('$2::bigint')} END, updated_at = now()
     WHERE site_id = $1 AND deleted_at IS NULL RETURNING ${SITE_COLUMNS}`,
    [siteId, scheduleMs],
  );
  const [site] = parseRows(SiteSchema, rows);
  if (!site) throw new RequestError('not_found', `no site ${siteId}`);
  return site;
}

/**
 * Changes a site's root URL (checked as on create) or options (each key given replaces the stored one, `null` removes
 * it), and its schedule. A change of root or options is refused with 409 while a sync runs: the sync reads its limits
 * and its sub-tree as it goes; a schedule alone may change at any time.
 */
export async function updateSite(db: InventoryDb, siteId: string, patch: SitePatch, net: NetPolicy): Promise<Site> {
  const { schedule, ...rest } = patch;
  // Checked before anything is written: a bad schedule must not leave the options changed.
  if (schedule !== undefined) ScheduleSchema.parse(schedule);
  const scheduleOnly = schedule !== undefined && rest.rootUrl === undefined && Object.keys(rest.options ?? {}).length === 0;
  if (!scheduleOnly) await updateRootAndOptions(db, siteId, rest, net);
  return schedule === undefined ? getSite(db, siteId) : setSiteSchedule(db, siteId, schedule);
}

async function updateRootAndOptions(db: InventoryDb, siteId: string, patch: SitePatch, net: NetPolicy): Promise<Site> {
  const site = await getSite(db, siteId);
  const root = patch.rootUrl === undefined ? null : await checkSiteRoot(patch.rootUrl, net);
  const options = patchOptions(site.options, patch.options ?? {});
  const rows = await db.query(
    `UPDATE sites SET root_url = $2, options = $3::jsonb, updated_at = now()
     WHERE site_id = $1 AND deleted_at IS NULL AND NOT ${siteHasRunningSync('$1')}
     RETURNING ${SITE_COLUMNS}`,
    [siteId, root?.href ?? site.rootUrl, JSON.stringify(options)],
  );
  const [updated] = parseRows(SiteSchema, rows);
  if (updated) return updated;
  await getSite(db, siteId);
  // The sync that blocked the change may have ended since: the change is then the caller's to try again.
  throw (
    (await runningSyncConflict(db, siteId, 'its root URL and options cannot change')) ??
    new RequestError('conflict', `site ${siteId} was not changed: its sync ended meanwhile, try again`)
  );
}

/**
 * The site a CLI sync of `rootUrl` uses: the given (or host-derived) id, added if new with `options` (its root checked as on create);
 * an id taken by another root is a `conflict`. A schedule given is set on an existing site too (a flag is never ignored).
 */
export async function ensureSite(db: InventoryDb, input: NewSite, net?: NetPolicy): Promise<Site> {
  // Checked before the comparison below, whose message repeats the URL: a root with a password never gets that far.
  const root = await checkSiteRoot(input.rootUrl, net);
  const siteId = input.siteId === undefined ? siteIdFromUrl(root) : assertSiteId(input.siteId);
  const site = await findSite(db, siteId);
  if (!site) return createSite(db, { ...input, siteId }, net);
  if (site.rootUrl !== root.href) throw new RequestError('conflict', `site ${siteId} has root URL ${site.rootUrl}, not ${input.rootUrl}`);
  return input.schedule === undefined ? site : setSiteSchedule(db, siteId, input.schedule);
}
