// The wizard's sub-tree choice, checked against the estimate before a site is saved: the path groups it offers, and a
// warning when a typed group keeps nothing (or under 1%) of the URLs the estimate read. Pure: no DOM.

/** @typedef {import('../lib/core/types.js').PathGroup} PathGroup */
/** @typedef {import('../lib/core/types.js').ScopeEstimate} ScopeEstimate */
/** @typedef {import('../lib/inventory/schemas.js').SiteFilter} SiteFilter */
/** @typedef {{ prefix: string, count: number }} GroupChoice */

/** Below this share of the sampled URLs, a chosen group is worth a second look before it is saved. */
export const THIN_SHARE = 0.01;

/**
 * `/blog/*` -> `/blog/`: a group as the filter takes it (`/` is the root group).
 * @param {Pick<PathGroup, 'prefix'>} group
 * @returns {string}
 */
export function groupPrefix(group) {
  return group.prefix.replace(/\*$/, '');
}

/**
 * The groups a sub-tree can be picked from: every group but `other`, largest first, as the estimate gives them.
 * @param {Pick<ScopeEstimate, 'pathGroups'> | null} estimate
 * @returns {GroupChoice[]}
 */
export function groupChoices(estimate) {
  return (estimate?.pathGroups ?? []).filter((group) => group.prefix !== 'other').map((group) => ({ prefix: groupPrefix(group), count: group.count }));
}

/**
 * Why a chosen sub-tree may keep nothing, in words, or null when it looks fine. Only path groups are checked: the
 * locales are picked from the estimate's own list. A group absent from the sample keeps none of what was read.
 * @param {SiteFilter | undefined} filter
 * @param {Pick<ScopeEstimate, 'pathGroups'> | null} estimate
 * @returns {string | null}
 */
export function scopeWarning(filter, estimate) {
  if (!filter || !estimate || filter.pathPrefixes.length === 0) return null;
  const counts = new Map(groupChoices(estimate).map((group) => [group.prefix, group.count]));
  const sampled = (estimate.pathGroups ?? []).reduce((sum, group) => sum + group.count, 0);
  if (sampled === 0) return null;
  const kept = filter.pathPrefixes.reduce((sum, prefix) => sum + (counts.get(prefix) ?? 0), 0);
  const missing = filter.pathPrefixes.filter((prefix) => !counts.has(prefix));
  if (kept === 0)
    return `${filter.pathPrefixes.join(', ')} keeps none of the ${sampled} URLs the estimate read: check the spelling, or press Add site again to keep it anyway`;
  if (kept / sampled < THIN_SHARE)
    return `${filter.pathPrefixes.join(', ')} keeps ${kept} of the ${sampled} URLs the estimate read (under 1%): press Add site again to keep it anyway`;
  if (missing.length > 0) return `${missing.join(', ')} is not among the groups the estimate read: press Add site again to keep it anyway`;
  return null;
}
