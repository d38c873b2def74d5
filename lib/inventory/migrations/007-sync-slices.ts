/**
 * Migration 7: slice claims. `slices` is the number of the last slice of a sync claimed by a queued delivery (a QStash
 * message) or a cron re-drive: slice n runs only while no slice numbered n or above has been claimed, so a message
 * delivered twice, or delivered after the cron took its place, runs nothing.
 */
export const sql = `
ALTER TABLE syncs ADD COLUMN slices integer NOT NULL DEFAULT 0 CHECK (slices >= 0);
`;
