import { z } from 'zod';
import type { InventoryDb } from './db.js';
import { SiteIdSchema, SiteSchema, SiteFilterSchema, parseRows, type Site } from './schemas.js';
import { SITE_COLUMNS } from './sql-columns.js';
import { parseRootUrl } from '../factory/discovery/discovery.js';
import { RequestError } from '../factory/errors.js';
import { CallerOptionsSchema } from '../http/request-schemas.js';

/** A site's stored options: the caller's job limits and the sub-tree filter the wizard chose. */
export const SiteOptionsSchema = CallerOptionsSchema.extend({ filter: SiteFilterSchema.optional() }).strict();
export type SiteOptions = z.infer<typeof SiteOptionsSchema>;

/** A site to add: its root URL, an id (default: from the host) and options. */
export interface NewSite {
  rootUrl: string;
  siteId?: string;
  options?: SiteOptions;
}

/** The id a site gets from its host when none is given: `www.Example.com:8080` -> `www.example.com-8080`. */
export function siteIdFromUrl(url: URL): string {
  return SiteIdSchema.parse(url.host.toLowerCase().replace(/[^a-z0-9._-]/g, '-').replace(/^[^a-z0-9]+/, '').slice(0, 100));
}

/** Validates a site id from a request: a malformed one is a 400, before any query. */
export function assertSiteId(value: unknown): string {
  const parsed = SiteIdSchema.safeParse(value);
  if (!parsed.success) throw new RequestError('bad_request', `invalid siteId: ${parsed.error.issues[0]?.message ?? 'malformed'}`);
  return parsed.data;
}

/** Adds a site; an id already taken is a 409 `conflict`. */
export async function createSite(db: InventoryDb, input: NewSite): Promise<Site> {
  const root = parseRootUrl(input.rootUrl);
  const siteId = input.siteId === undefined ? siteIdFromUrl(root) : assertSiteId(input.siteId);
  const options = SiteOptionsSchema.parse(input.options ?? {});
  const rows = await db.query(
    `INSERT INTO sites (site_id, root_url, options) VALUES ($1, $2, $3::jsonb) ON CONFLICT (site_id) DO NOTHING RETURNING ${SITE_COLUMNS}`,
    [siteId, root.href, JSON.stringify(options)],
  );
  const [site] = parseRows(SiteSchema, rows);
  if (!site) throw new RequestError('conflict', `site ${siteId} exists already`);
  return site;
}

/** One site, or `not_found`. */
export async function getSite(db: InventoryDb, siteId: string): Promise<Site> {
  const [site] = parseRows(SiteSchema, await db.query(`SELECT ${SITE_COLUMNS} FROM sites WHERE site_id = $1`, [siteId]));
  if (!site) throw new RequestError('not_found', `no site ${siteId}`);
  return site;
}

/** The site a CLI sync of `rootUrl` uses: the given (or host-derived) id, added if new; an id taken by another root is a `conflict`. */
export async function ensureSite(db: InventoryDb, input: NewSite): Promise<Site> {
  const siteId = input.siteId === undefined ? siteIdFromUrl(parseRootUrl(input.rootUrl)) : assertSiteId(input.siteId);
  const existing = await db.query(`SELECT ${SITE_COLUMNS} FROM sites WHERE site_id = $1`, [siteId]);
  const [site] = parseRows(SiteSchema, existing);
  if (!site) return createSite(db, { ...input, siteId });
  if (site.rootUrl !== parseRootUrl(input.rootUrl).href) throw new RequestError('conflict', `site ${siteId} has root URL ${site.rootUrl}, not ${input.rootUrl}`);
  return site;
}
