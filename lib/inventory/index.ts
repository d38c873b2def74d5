// The URL inventory's public entry point (`crawler-factory/inventory`): opening the database, sites, syncs and their
// driver. The CLI imports the inventory from here only.
export { type InventoryDb } from './db.js';
export { databaseUrlFrom, DATABASE_URL_EXPECTED, isDatabaseUrl } from './db-errors.js';
export { DEFAULT_DB_DIR, openInventoryDb } from './open-db.js';
export { ScheduleSchema } from './schedule.js';
export { type Sync } from './schemas.js';
export { deleteSite } from './site-deletion.js';
export { listSitePage } from './site-list.js';
export {
  getSitemapRecord,
  listSitemapPage,
  MAX_SITEMAP_PAGE,
  SitemapListQuerySchema,
  SitemapReadSchema,
  type SitemapPage,
  type SitemapRead,
} from './sitemap-list.js';
export { SitemapRecordSchema, type SitemapRecord } from './sitemap-records.js';
export { type SiteOptions, type SiteOptionsPatch, assertSiteId, ensureSite, findSite, getSite, patchOptions, siteIdFromUrl, updateSite } from './sites.js';
export { type SyncRuntime, advanceSync, applyStopFor, startSync, stopSync } from './sync-driver.js';
export { assertSyncId, getSync, getSyncDetail } from './syncs.js';
export { runningSync, RunningSyncConflict } from './running-sync.js';
