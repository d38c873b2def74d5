// What the site's sitemaps say together: a loc listed by two of them, the site's variants mixed, hreflang alternates
// that do not point back. Bounded: past the caps the rest is not tracked (and the finding says so).
import type { SitemapEntry } from '../../core/types.js';
import { Tally, type Finding } from './finding.js';
import { finding, tallied } from './make-finding.js';

/** Locs tracked for duplicates across sitemaps, as 53-bit hashes: about 40 bytes each. */
export const MAX_TRACKED_LOCS = 2_000_000;
/** Entries with alternates kept for the return-link check. */
export const MAX_TRACKED_ALTERNATES = 200_000;

// Two FNV-1a passes with different offsets, folded into a safe integer: collisions at 2M locs are about 1 in 4,000.
function locHash(loc: string): number {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < loc.length; i++) {
    const c = loc.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x01000193);
  }
  return (a >>> 0) * 0x200000 + ((b >>> 0) & 0x1fffff);
}

const bareHost = (host: string) => host.replace(/^www\./i, '').toLowerCase();

/** Fed every entry of every sitemap of a site, with the index of its sitemap; asked for the site's findings at the end. */
export class SiteEntryChecks {
  private readonly firstSitemap = new Map<number, number>();
  private readonly across = new Tally();
  private readonly variants = new Map<string, number>();
  private readonly alternates = new Map<string, string[]>();
  private untrackedLocs = false;
  private untrackedAlternates = false;

  constructor(private readonly rootHost: string | null) {}

  /** Takes an entry of sitemap number `sitemap`: `again` when that sitemap listed its loc before, else `first`. */
  see(entry: SitemapEntry, sitemap: number): 'first' | 'again' {
    this.variant(entry.loc);
    const targets = entry.alternates.map((alternate) => alternate.href).filter((href) => href !== entry.loc);
    if (targets.length > 0) {
      if (this.alternates.size < MAX_TRACKED_ALTERNATES || this.alternates.has(entry.loc)) this.alternates.set(entry.loc, targets);
      else this.untrackedAlternates = true;
    }
    const key = locHash(entry.loc);
    const first = this.firstSitemap.get(key);
    if (first === sitemap) return 'again';
    if (first !== undefined) this.across.add(entry.loc);
    else if (this.firstSitemap.size < MAX_TRACKED_LOCS) this.firstSitemap.set(key, sitemap);
    else this.untrackedLocs = true;
    return 'first';
  }

  private variant(loc: string): void {
    if (this.rootHost === null) return;
    const match = /^(https?):\/\/([^/?#]+)/i.exec(loc);
    if (match === null || bareHost(match[2] ?? '') !== bareHost(this.rootHost)) return;
    const variant = `${(match[1] ?? '').toLowerCase()}://${(match[2] ?? '').toLowerCase()}`;
    this.variants.set(variant, (this.variants.get(variant) ?? 0) + 1);
  }

  findings(): Finding[] {
    const out: Finding[] = [];
    const capped = this.untrackedLocs ? ` (among the first ${MAX_TRACKED_LOCS.toLocaleString('en-US')} locs)` : '';
    out.push(...tallied('duplicate_across', this.across, (n) => `${n} loc(s) listed by more than one sitemap${capped}`));
    if (this.variants.size > 1) {
      const counts = [...this.variants].sort((a, b) => b[1] - a[1]);
      const total = counts.reduce((sum, [, n]) => sum + n, 0);
      const minority = total - (counts[0]?.[1] ?? 0);
      const said = counts.map(([variant, n]) => `${variant} ${n}`).join(', ');
      out.push(
        finding(
          'mixed_variants',
          `locs on ${counts.length} variants of the site: ${said}`,
          minority,
          counts.map(([variant]) => variant),
        ),
      );
    }
    out.push(...this.oneWay());
    return out;
  }

  // A -> B is one-way when B is listed with alternates of its own and none of them is A.
  private oneWay(): Finding[] {
    const tally = new Tally();
    for (const [loc, targets] of this.alternates) {
      for (const target of targets) {
        const back = this.alternates.get(target);
        if (back !== undefined && !back.includes(loc)) tally.add(`${loc} -> ${target}`);
      }
    }
    const capped = this.untrackedAlternates ? ` (among the first ${MAX_TRACKED_ALTERNATES.toLocaleString('en-US')} entries with alternates)` : '';
    return tallied('hreflang_one_way', tally, (n) => `${n} hreflang alternate(s) whose target does not point back${capped}`);
  }
}
