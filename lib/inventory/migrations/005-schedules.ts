/**
 * Migration 5: schedules. A site's interval between syncs (null: off) and when its next sync falls due; the partial
 * index serves the cron tick's "due sites, oldest first" without reading unscheduled or deleted sites.
 */
export const sql = `
ALTER TABLE sites ADD COLUMN schedule_ms bigint CHECK (schedule_ms IS NULL OR schedule_ms >= 900000);
ALTER TABLE sites ADD COLUMN next_sync_at timestamptz;
CREATE INDEX sites_due ON sites (next_sync_at) WHERE schedule_ms IS NOT NULL AND deleted_at IS NULL;
`;
