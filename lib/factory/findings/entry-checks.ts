// What a sitemap's entries say of it, one entry at a time: counts and a few examples per rule, never the entries.
import type { SitemapEntry } from '../../core/types.js';
import { isPathAllowed, type RobotsRule } from '../discovery/robots-rules.js';
import type { SitemapRead } from './document-rules.js';
import { Tally, type Finding } from './finding.js';
import { tallied } from './make-finding.js';

/** What the entry rules know of the site: its host, its robots.txt rules, and when the check read it. */
export interface SiteFacts {
  rootHost: string | null;
  robotsRules: RobotsRule[];
  checkedAt: number;
}

/** A lastmod this far ahead of the check still reads as today somewhere on Earth. */
const FUTURE_SLACK_MS = 26 * 3_600_000;
/** Below this many dated URLs one shared instant proves nothing. */
const SAME_INSTANT_MIN = 10;
const LISTS_A_SITEMAP = /sitemap[^/]*\.(?:xml|txt)(?:\.gz)?$|\.xml(?:\.gz)?$/i;

function folderOf(pathname: string): string {
  return pathname.slice(0, pathname.lastIndexOf('/') + 1);
}

/** The entry rules of one sitemap: fed its entries as the walk hands them out, asked for its findings once it is read. */
export class SitemapEntryChecks {
  private readonly sitemap: URL;
  private readonly folder: string;
  private readonly duplicates = new Tally();
  private readonly crossHost = new Tally();
  private readonly outsidePath = new Tally();
  private readonly disallowed = new Tally();
  private readonly future = new Tally();
  private readonly listsSitemaps = new Tally();
  private dated = 0;
  private instant: string | null = null;
  private sameInstant = true;

  /** `declared`: the sitemap, or an index above it, is declared in robots.txt (the protocol's cross-submission). */
  constructor(
    sitemapUrl: string,
    private readonly site: SiteFacts,
    private readonly declared: boolean,
  ) {
    this.sitemap = new URL(sitemapUrl);
    this.folder = folderOf(this.sitemap.pathname);
  }

  private entries = 0;

  /** A loc this sitemap listed before (the site's checks know: they hash every loc once). */
  duplicate(loc: string): void {
    this.duplicates.add(loc);
  }

  see(entry: SitemapEntry): void {
    const loc = entry.loc;
    this.entries += 1;
    let url: URL;
    try {
      url = new URL(loc);
    } catch {
      return;
    }
    const onSiteHost = this.site.rootHost !== null && url.host === this.site.rootHost;
    // A local file has no host for its locs to be on or off.
    if (this.sitemap.protocol !== 'file:') this.placement(url, loc, onSiteHost);
    if (onSiteHost && !isPathAllowed(this.site.robotsRules, url.pathname + url.search)) this.disallowed.add(loc);
    if (LISTS_A_SITEMAP.test(url.pathname)) this.listsSitemaps.add(loc);
    this.lastmod(entry);
  }

  // The protocol's rule: a sitemap lists its own host's URLs under its own folder, unless robots.txt submitted it.
  private placement(url: URL, loc: string, onSiteHost: boolean): void {
    if (url.host !== this.sitemap.host) {
      if (!(onSiteHost && this.declared)) this.crossHost.add(loc);
    } else if (!this.declared && !url.pathname.startsWith(this.folder)) this.outsidePath.add(loc);
  }

  private lastmod(entry: SitemapEntry): void {
    if (entry.lastmod === null) return;
    const at = Date.parse(entry.lastmod);
    if (Number.isFinite(at) && at > this.site.checkedAt + FUTURE_SLACK_MS) this.future.add(`${entry.loc} (${entry.lastmod})`);
    this.dated += 1;
    if (this.instant === null) this.instant = entry.lastmod;
    else if (this.instant !== entry.lastmod) this.sameInstant = false;
  }

  findings(read: SitemapRead): Finding[] {
    const out = [
      ...tallied('duplicate_loc', this.duplicates, (n) => `${n} loc(s) listed again in this sitemap`),
      ...tallied('cross_host', this.crossHost, (n) => `${n} loc(s) on another host than ${this.sitemap.host}`),
      ...tallied('outside_path', this.outsidePath, (n) => `${n} loc(s) outside ${this.folder}, and no robots.txt declares this sitemap`),
      ...tallied('robots_disallowed', this.disallowed, (n) => `${n} loc(s) that robots.txt disallows`),
      ...tallied('lastmod_future', this.future, (n) => `${n} lastmod value(s) in the future`),
    ];
    if (read.format === 'urlset' && this.listsSitemaps.count > 0 && this.listsSitemaps.count === this.entries) {
      out.push(...tallied('urlset_lists_sitemaps', this.listsSitemaps, (n) => `all ${n} locs look like sitemaps: a urlset lists pages; use a sitemapindex`));
    }
    // A date alone shared by every URL can be a site published in one day; one instant to the second is a generator's clock.
    if (this.sameInstant && this.instant !== null && this.instant.includes('T') && this.dated >= SAME_INSTANT_MIN) {
      const tally = new Tally();
      tally.add(this.instant, this.dated);
      out.push(
        ...tallied('lastmod_same_instant', tally, (n) => `all ${n} URLs have lastmod ${this.instant}: it says when the file was made, not when pages changed`),
      );
    }
    return out;
  }
}
