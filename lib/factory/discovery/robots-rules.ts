import { identityKey } from '../url/url-identity.js';

/** One Allow/Disallow rule of the group that applies to us (RFC 9309 section 2.2.2). */
export interface RobotsRule {
  allow: boolean;
  pattern: string;
}

/** What robots.txt says that discovery needs: sitemap URLs, our group's rules and Crawl-delay. */
export interface RobotsTxt {
  sitemaps: string[];
  rules: RobotsRule[];
  crawlDelaySeconds: number | null;
  /** `Sitemap:` values that were not URLs. */
  invalidSitemapLines: string[];
}

interface Group {
  agents: string[];
  rules: RobotsRule[];
  crawlDelay: number | null;
}

/** Splits a robots.txt into `[field, value]` pairs: BOM, CRLF, comments and blank lines tolerated. */
function* fieldLines(content: string): Generator<[string, string]> {
  for (const raw of content.replace(/^\uFEFF/, '').split(/\r\n|\r|\n/)) {
    const line = raw.replace(/#.*$/, '').trim();
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    yield [line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()];
  }
}

/** `Sitemap` and the `Site-map` spelling some generators write (ultimate-sitemap-parser reads both); fields are lower-cased. */
function isSitemapField(field: string): boolean {
  return field === 'sitemap' || field === 'site-map';
}

/** Resolves a `Sitemap:` value against the robots.txt URL (relative lines happen in the wild). */
function resolveSitemapLine(value: string, robotsUrl: string): string | null {
  try {
    const url = new URL(value, robotsUrl);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}

/** Groups user-agent lines with the rules that follow them (consecutive user-agent lines share a group). */
function readGroups(content: string): Group[] {
  const groups: Group[] = [];
  let current: Group | null = null;
  let lastWasAgent = false;
  for (const [field, value] of fieldLines(content)) {
    if (field === 'user-agent') {
      if (!current || !lastWasAgent) groups.push((current = { agents: [], rules: [], crawlDelay: null }));
      current.agents.push(value.toLowerCase());
      lastWasAgent = true;
      continue;
    }
    lastWasAgent = false;
    if (!current) continue;
    if ((field === 'allow' || field === 'disallow') && value) current.rules.push({ allow: field === 'allow', pattern: value });
    if (field === 'crawl-delay' && Number.isFinite(Number(value))) current.crawlDelay = Number(value);
  }
  return groups;
}

/** The groups that apply to `userAgent`: those naming its product token, else the `*` groups (merged). */
function groupsFor(groups: Group[], userAgent: string): Group[] {
  const token = (userAgent.split('/')[0] ?? userAgent).trim().toLowerCase();
  const named = groups.filter((group) => group.agents.includes(token));
  return named.length > 0 ? named : groups.filter((group) => group.agents.includes('*'));
}

/** Parses robots.txt content (pure: no I/O). Sitemap lines are global, whatever group they sit in. */
export function parseRobotsTxt(content: string, robotsUrl: string, userAgent: string): RobotsTxt {
  const sitemaps = new Map<string, string>();
  const invalidSitemapLines: string[] = [];
  for (const [field, value] of fieldLines(content)) {
    if (!isSitemapField(field)) continue;
    const url = resolveSitemapLine(value, robotsUrl);
    if (url === null) invalidSitemapLines.push(value);
    else if (!sitemaps.has(identityKey(url))) sitemaps.set(identityKey(url), url);
  }
  const mine = groupsFor(readGroups(content), userAgent);
  const delays = mine.map((group) => group.crawlDelay).filter((delay): delay is number => delay !== null);
  return {
    sitemaps: [...sitemaps.values()],
    rules: mine.flatMap((group) => group.rules),
    crawlDelaySeconds: delays.length > 0 ? Math.max(...delays) : null,
    invalidSitemapLines,
  };
}

/**
 * RFC 9309 path matching (`*` any run of characters, `$` at the end anchors it), without a regular expression: a
 * stranger's robots.txt must not be able to make a match backtrack. Each piece between wildcards is found at its
 * leftmost place after the previous one (leftmost is always best when the only wildcard matches anything), so the
 * cost is linear in the path for each piece.
 */
export function robotsPatternMatches(pattern: string, path: string): boolean {
  const anchored = pattern.endsWith('$');
  const pieces = (anchored ? pattern.slice(0, -1) : pattern).split('*');
  const first = pieces[0] ?? '';
  if (!path.startsWith(first)) return false;
  if (pieces.length === 1) return !anchored || path.length === first.length;
  let at = first.length;
  const last = pieces.length - 1;
  for (let index = 1; index < last; index += 1) {
    const found = path.indexOf(pieces[index] ?? '', at);
    if (found < 0) return false;
    at = found + (pieces[index] ?? '').length;
  }
  const tail = pieces[last] ?? '';
  return anchored ? path.length - tail.length >= at && path.endsWith(tail) : path.indexOf(tail, at) >= 0;
}

/** RFC 9309 matching: the longest matching rule wins, Allow wins a tie; no match means allowed. */
export function isPathAllowed(rules: RobotsRule[], pathWithQuery: string): boolean {
  let best: RobotsRule | null = null;
  for (const rule of rules) {
    if (!robotsPatternMatches(rule.pattern, pathWithQuery)) continue;
    const longer = !best || rule.pattern.length > best.pattern.length;
    const tieAllow = best !== null && rule.pattern.length === best.pattern.length && rule.allow;
    if (longer || tieAllow) best = rule;
  }
  return best === null || best.allow;
}
