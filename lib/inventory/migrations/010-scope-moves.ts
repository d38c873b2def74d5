/**
 * Migration 10: a URL that leaves the site's scope (the wizard's sub-tree narrowed) is not removed by the site. It is
 * recorded apart: `out_of_scope` on its row (its `removed_at` says since when; it is not live), a `left_scope` event,
 * and `entered_scope` when a wider scope brings it back; each part counts both (`sync_parts`), as it counts returns.
 */
export const sql = `
ALTER TABLE urls ADD COLUMN out_of_scope boolean NOT NULL DEFAULT false;

ALTER TABLE sync_parts
  ADD COLUMN left_scope integer NOT NULL DEFAULT 0,
  ADD COLUMN entered_scope integer NOT NULL DEFAULT 0;

ALTER TABLE url_history DROP CONSTRAINT url_history_event_check;
ALTER TABLE url_history ADD CONSTRAINT url_history_event_check
  CHECK (event IN ('lastmod', 'changefreq', 'priority', 'removed', 'returned', 'left_scope', 'entered_scope'));
`;
