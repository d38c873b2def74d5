/**
 * Migration 12: a URL more than one sitemap lists takes, in a sync, the facts of the listing with the newest lastmod
 * (whatever order the parts are applied in), so an unchanged site reports nothing changed. `cf_lastmod_newer(a, b)`
 * says whether W3C datetime `a` is a later instant than `b`; a value that is not one (or is outside Postgres' range,
 * year 0) counts as older than any that is. `lib/inventory/lastmod-order.ts` is the same rule for rows of one shard.
 */
export const sql = `
CREATE FUNCTION cf_lastmod_instant(value text) RETURNS timestamptz LANGUAGE plpgsql STABLE AS $$
BEGIN
  -- The W3C forms Postgres does not read alone: a year, a year and month; a date alone is midnight UTC.
  RETURN (CASE length(value) WHEN 4 THEN value || '-01-01T00:00:00Z' WHEN 7 THEN value || '-01T00:00:00Z'
    WHEN 10 THEN value || 'T00:00:00Z' ELSE value END)::timestamptz;
EXCEPTION WHEN others THEN
  RETURN NULL;
END $$;

CREATE FUNCTION cf_lastmod_newer(candidate text, current text) RETURNS boolean LANGUAGE sql STABLE AS $$
  SELECT coalesce(cf_lastmod_instant(candidate) > cf_lastmod_instant(current),
    cf_lastmod_instant(candidate) IS NOT NULL)
$$;
`;
