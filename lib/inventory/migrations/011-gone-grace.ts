/**
 * Migration 11: a sitemap that answers 404/410 is gone only after a grace (search engines retry a failing sitemap for
 * days before they drop it): `gone_since` is when its streak of gone answers began, `gone_syncs` how many syncs in a
 * row found it gone, `gone_seq` the last sync that counted (a removal step run again after a crash counts once).
 */
export const sql = `
ALTER TABLE sitemaps
  ADD COLUMN gone_since timestamptz,
  ADD COLUMN gone_syncs integer NOT NULL DEFAULT 0,
  ADD COLUMN gone_seq bigint NOT NULL DEFAULT 0;
`;
