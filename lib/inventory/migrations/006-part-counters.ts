/**
 * Migration 6: a sync's counters move from its `syncs` row to its parts. Each part's one statement writes its own
 * `sync_parts` row (seen, new, changed, returned, filtered) with its claim, so workers applying one sync in parallel
 * never queue on one row; readers sum them (`syncsWithTotals`, lib/inventory/sql-columns.ts). `shards_applied` is the
 * number of shards whose every part is in, counted from the same rows. A sync's earlier totals are carried as one
 * part row of shard -1, so every sum stays what it was. The removal step's counters (removed, kept, keptUnread) stay
 * on `syncs`: one step writes them, after every part is in.
 */
export const sql = `
ALTER TABLE sync_parts
  ADD COLUMN seen integer NOT NULL DEFAULT 0,
  ADD COLUMN new integer NOT NULL DEFAULT 0,
  ADD COLUMN changed integer NOT NULL DEFAULT 0,
  ADD COLUMN returned integer NOT NULL DEFAULT 0,
  ADD COLUMN filtered integer NOT NULL DEFAULT 0;

INSERT INTO sync_parts (sync_id, shard, part, parts, rows, seen, new, changed, returned, filtered)
  SELECT sync_id, -1, 0, 1, 0, seen_count, new_count, changed_count, returned_count, filtered_count FROM syncs
  WHERE seen_count + new_count + changed_count + returned_count + filtered_count > 0;

ALTER TABLE syncs
  DROP COLUMN seen_count,
  DROP COLUMN new_count,
  DROP COLUMN changed_count,
  DROP COLUMN returned_count,
  DROP COLUMN filtered_count,
  DROP COLUMN shards_applied;
`;
