import { PathGrouper } from './path-grouper.js';
import { MAX_DISTINCT_LOCALES } from './locale.js';
import type { PathGroup } from '../../core/types.js';

/** How many of the URLs a probe read carry each locale (the ones a `--locale` filter would keep of them). */
export interface LocaleCount {
  locale: string;
  urls: number;
}

/**
 * The wizard's sub-tree choices in what an estimate read: the path groups and the locales of the sampled URLs, each
 * URL with the locale the walk's filter would judge it by, so every group and locale offered is one a filter keeps
 * something for. Bounded as PathGrouper is, whatever the sample's size.
 */
export class SampleScope {
  private readonly grouper = new PathGrouper();
  private readonly locales = new Map<string, number>();

  add(url: string, locale: string | null): void {
    this.grouper.add(url, locale);
    if (locale === null || (!this.locales.has(locale) && this.locales.size >= MAX_DISTINCT_LOCALES)) return;
    this.locales.set(locale, (this.locales.get(locale) ?? 0) + 1);
  }

  /** The groups, largest first (`other` last), and the locales, most URLs first. */
  finish(): { pathGroups: PathGroup[]; locales: LocaleCount[] } {
    const locales = [...this.locales].map(([locale, urls]) => ({ locale, urls })).sort((a, b) => b.urls - a.urls || a.locale.localeCompare(b.locale));
    return { pathGroups: this.grouper.finish(), locales };
  }
}
