import { z } from 'zod';
import { pageLimitSchema } from './page-limit.js';
import type { InventoryDb } from './db.js';
import { HistoryRowSchema, UrlRowSchema, parseRows, type HistoryRow, type UrlRow } from './schemas.js';
import { URL_COLUMNS } from './sql-columns.js';
import { RequestError } from '../core/errors.js';
import { normaliseHreflang } from '../factory/scope/locale.js';

/** Largest page of a URL listing. */
export const MAX_PAGE = 1_000;

/** Filters of a URL listing, all combinable; `cursor` continues after the last URL of the page before. */
export const UrlQuerySchema = z
  .object({
    // `/blog`, `/blog/` and nested `/blog/2024/` are one prefix: a folder, so the trailing slash is implied.
    prefix: z
      .string()
      .max(1_000)
      .regex(/^\/([^/?#]{1,200}\/)*([^/?#]{1,200})?$/, 'prefix is a path such as "/", "/blog", "/blog/" or "/blog/2024/"')
      .transform((value) => (value.endsWith('/') ? value : `${value}/`))
      .optional(),
    // Any spelling the CLI's --locale takes (`en-US`, `en-us`, `EN_us`): stored tags are normalised hreflang (`en-US`).
    locale: z
      .string()
      .regex(/^[a-z]{2,3}([-_][a-z0-9]{2,8})*$/i, 'locale is a language tag such as "fr", "en-US" or "en-us"')
      .transform((value) => normaliseHreflang(value) ?? value)
      .optional(),
    changedSince: z.iso.datetime({ offset: true }).or(z.iso.date()).optional(),
    removed: z
      .enum(['true', 'false'])
      .transform((value) => value === 'true')
      .optional(),
    limit: pageLimitSchema(MAX_PAGE).optional(),
    cursor: z.string().max(4_000).optional(),
  })
  .strict();
export type UrlQuery = z.infer<typeof UrlQuerySchema>;

/** A page of URLs and the cursor of the next one (null at the end). */
export interface UrlPage {
  urls: UrlRow[];
  nextCursor: string | null;
}

/** The cursor after `url`: opaque to callers (base64url of the last URL). */
export function encodeCursor(url: string): string {
  return Buffer.from(url, 'utf8').toString('base64url');
}

/** The URL a cursor continues after; anything that is not one of our cursors is a 400. */
export function decodeCursor(cursor: string): string {
  const url = Buffer.from(cursor, 'base64url').toString('utf8');
  if (cursor === '' || encodeCursor(url) !== cursor || !URL.canParse(url)) throw new RequestError('bad_request', 'invalid cursor');
  return url;
}

// A prefix is matched as literal text inside a POSIX regular expression.
function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

// Each filter adds a constant clause with its own parameter: the SQL text depends only on which filters are present.
function whereClauses(query: UrlQuery, after: string | null): { sql: string; params: unknown[] } {
  const clauses: string[] = [];
  const params: unknown[] = [];
  const add = (clause: string, value: unknown) => {
    params.push(value);
    clauses.push(clause.replace('?', `$${params.length + 1}`));
  };
  if (query.prefix !== undefined) {
    // The index holds a URL's first content folder (after a locale folder); a nested prefix narrows by that group
    // first, then matches the rest of the path: the group's folder at the path's start or after one locale folder.
    const group = /^\/[^/]+\//.exec(query.prefix)?.[0] ?? '/';
    add('path_prefix = ?', group);
    if (group !== query.prefix) add("url ~ ('^[^:/]+://[^/]+(/[^/]+){0,1}' || ?)", escapeRegex(query.prefix));
  }
  if (query.locale !== undefined) add('locale = ?', query.locale);
  if (query.changedSince !== undefined) add('changed_at >= ?::timestamptz', query.changedSince);
  if (query.removed === true) clauses.push('removed_at IS NOT NULL');
  if (query.removed === false) clauses.push('removed_at IS NULL');
  if (after !== null) add('url > ?', after);
  return { sql: clauses.map((clause) => ` AND ${clause}`).join(''), params };
}

/** One page of a site's URLs in URL order, keyset-paginated (never OFFSET), at most 1000 rows. */
export async function listUrls(db: InventoryDb, siteId: string, query: UrlQuery): Promise<UrlPage> {
  const limit = query.limit ?? 100;
  const where = whereClauses(query, query.cursor === undefined ? null : decodeCursor(query.cursor));
  const rows = await db.query(`SELECT ${URL_COLUMNS} FROM urls WHERE site_id = $1${where.sql} ORDER BY url LIMIT $${where.params.length + 2}`, [
    siteId,
    ...where.params,
    limit + 1,
  ]);
  const urls = parseRows(UrlRowSchema, rows);
  const page = urls.slice(0, limit);
  return { urls: page, nextCursor: urls.length > limit && page.length > 0 ? encodeCursor(page[page.length - 1]!.url) : null };
}

/** Every matching URL, page by page: memory holds one page, whatever the site's size. */
export async function* streamUrls(db: InventoryDb, siteId: string, query: Omit<UrlQuery, 'limit'>): AsyncGenerator<UrlRow> {
  let cursor = query.cursor;
  for (;;) {
    const page = await listUrls(db, siteId, { ...query, limit: MAX_PAGE, ...(cursor === undefined ? {} : { cursor }) });
    yield* page.urls;
    if (page.nextCursor === null) return;
    cursor = page.nextCursor;
  }
}

/** The query plan of a listing (tests and the notes show that indexes serve each filter). */
export async function explainListUrls(db: InventoryDb, siteId: string, query: UrlQuery): Promise<string> {
  const where = whereClauses(query, query.cursor === undefined ? null : decodeCursor(query.cursor));
  const rows = await db.query(`EXPLAIN SELECT ${URL_COLUMNS} FROM urls WHERE site_id = $1${where.sql} ORDER BY url LIMIT $${where.params.length + 2}`, [
    siteId,
    ...where.params,
    (query.limit ?? 100) + 1,
  ]);
  return rows.map((row) => String(row['QUERY PLAN'])).join('\n');
}

/** A URL's history, oldest first; `not_found` when the site has no such URL. */
export async function urlHistory(db: InventoryDb, siteId: string, url: string): Promise<HistoryRow[]> {
  const known = await db.query('SELECT 1 FROM urls WHERE site_id = $1 AND url = $2', [siteId, url]);
  if (known.length === 0) throw new RequestError('not_found', `site ${siteId} has no URL ${url}`, { url });
  const rows = await db.query(
    `SELECT id, sync_id AS "syncId", event, old_value AS "oldValue", new_value AS "newValue", recorded_at AS "recordedAt"
     FROM url_history WHERE site_id = $1 AND url = $2 ORDER BY id`,
    [siteId, url],
  );
  return parseRows(HistoryRowSchema, rows);
}
