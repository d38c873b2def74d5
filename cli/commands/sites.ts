import { dbTarget, openDbTarget } from '../db-target.js';
import { UsageError, type Io } from '../io.js';
import { withRunningSyncWayOut } from '../running-sync.js';
import { intFlag, netPolicyFrom, scheduleFlag } from '../options.js';
import {
  type InventoryDb,
  deleteSite,
  getSite,
  getSitemapRecord,
  listSitemapPage,
  listSitePage,
  MAX_SITEMAP_PAGE,
  assertSiteId,
  updateSite,
  SitemapListQuerySchema,
  type SiteOptionsPatch,
} from '../../lib/inventory/index.js';
import { RequestError } from '../../lib/index.js';

/** The flags of `sites list|rm|set`. */
export interface SitesFlags {
  db?: string;
  root?: string;
  maxUrls?: string;
  maxDepth?: string;
  concurrency?: string;
  timeout?: string;
  userAgent?: string;
  pathPrefix?: string[];
  locale?: string[];
  unset?: string[];
  schedule?: string;
  allowPrivate?: boolean;
  allowHost?: string[];
  resolve?: string[];
  status?: string;
  kind?: string;
  id?: string;
}

// `--unset` names options as the API does; the CLI's own spellings (`max-urls`, `path-prefix`) are accepted too.
const UNSET_NAMES: Readonly<Record<string, string>> = {
  'max-urls': 'maxUrls',
  'max-depth': 'maxDepth',
  timeout: 'timeoutMs',
  'user-agent': 'userAgent',
  'path-prefix': 'filter',
  locale: 'filter',
};

/** The options patch the `set` flags describe: each flag given replaces that option, `--unset NAME` removes one. */
export function optionsPatchFrom(flags: SitesFlags): SiteOptionsPatch {
  const patch: SiteOptionsPatch = {};
  const numbers = {
    maxUrls: intFlag('max-urls', flags.maxUrls, 1),
    maxDepth: intFlag('max-depth', flags.maxDepth, 0, 1_000),
    concurrency: intFlag('concurrency', flags.concurrency, 1, 16),
    timeoutMs: intFlag('timeout', flags.timeout, 1, 60_000),
  };
  for (const [key, value] of Object.entries(numbers)) if (value !== undefined) patch[key] = value;
  if (flags.userAgent !== undefined) patch.userAgent = flags.userAgent;
  // The sub-tree: path groups ("/blog/") and locales, as the console's wizard chooses them.
  if (flags.pathPrefix !== undefined || flags.locale !== undefined) {
    patch.filter = {
      pathPrefixes: (flags.pathPrefix ?? []).map((prefix) => (prefix.endsWith('/') ? prefix : `${prefix}/`)),
      locales: (flags.locale ?? []).map((locale) => locale.toLowerCase()),
    };
  }
  for (const name of flags.unset ?? []) patch[UNSET_NAMES[name] ?? name] = null;
  return patch;
}

/**
 * `sites sitemaps <siteId>`: the site's sitemaps as records, one a line, failing first (every page); with `--id N` the
 * one sitemap with its reads, as JSON.
 */
async function printSitemaps(db: InventoryDb, siteId: string, flags: SitesFlags, io: Io): Promise<number> {
  await getSite(db, siteId);
  if (flags.id !== undefined) {
    const sitemapId = intFlag('id', flags.id, 1);
    const sitemap = sitemapId === undefined ? null : await getSitemapRecord(db, siteId, sitemapId);
    if (sitemap === null) throw new RequestError('not_found', `site ${siteId} has no sitemap ${flags.id}: list them with sites sitemaps ${siteId}`);
    io.stdout.write(`${JSON.stringify(sitemap, null, 2)}\n`);
    return 0;
  }
  const query = SitemapListQuerySchema.pick({ status: true, kind: true }).safeParse({ status: flags.status, kind: flags.kind });
  if (!query.success) throw new UsageError(`sites sitemaps: ${query.error.issues.map((issue) => `--${issue.path.join('.')}: ${issue.message}`).join('; ')}`);
  let cursor: string | undefined;
  do {
    const page = await listSitemapPage(db, siteId, { ...query.data, limit: MAX_SITEMAP_PAGE, ...(cursor === undefined ? {} : { cursor }) });
    for (const sitemap of page.sitemaps) io.stdout.write(`${JSON.stringify(sitemap)}\n`);
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined);
  return 0;
}

async function withDb<T>(flags: SitesFlags, io: Io, work: (db: InventoryDb) => Promise<T>): Promise<T> {
  const db = await openDbTarget(dbTarget(flags.db, io.env));
  try {
    return await work(db);
  } finally {
    await db.close();
  }
}

/**
 * `crawler-factory sites list` (one site a line, NDJSON), `sites rm <siteId>` and `sites set <siteId> [flags]` (the
 * result as JSON) over the inventory (DATABASE_URL, else PGlite in --db DIR), with the HTTP API's rules: a site with a
 * running sync is neither changed nor removed (exit 1, `conflict`; `--schedule` alone may change), a new root is
 * checked with the network flags.
 */
export async function sitesCommand(positionals: string[], flags: SitesFlags, io: Io): Promise<number> {
  const [action, id, ...extra] = positionals;
  if (extra.length > 0) throw new UsageError(`unexpected argument ${extra[0]}`);
  if (action === 'list') {
    if (id !== undefined) throw new UsageError('sites list takes no argument');
    const { sites } = await withDb(flags, io, (db) => listSitePage(db));
    for (const site of sites) io.stdout.write(`${JSON.stringify(site)}\n`);
    return 0;
  }
  if (id === undefined) throw new UsageError(`sites ${action} needs a <siteId>`);
  const siteId = assertSiteId(id);
  if (action === 'sitemaps') return withDb(flags, io, (db) => printSitemaps(db, siteId, flags, io));
  if (action === 'rm') {
    io.stdout.write(`${JSON.stringify(await withDb(flags, io, (db) => withRunningSyncWayOut(() => deleteSite(db, siteId))))}\n`);
    return 0;
  }
  const schedule = scheduleFlag(flags.schedule);
  const patch = {
    ...(flags.root === undefined ? {} : { rootUrl: flags.root }),
    options: optionsPatchFrom(flags),
    ...(schedule === undefined ? {} : { schedule }),
  };
  const net = netPolicyFrom(flags);
  io.stdout.write(`${JSON.stringify(await withDb(flags, io, (db) => withRunningSyncWayOut(() => updateSite(db, siteId, patch, net))), null, 2)}\n`);
  return 0;
}
