import type { SitemapValidator, Validators } from '../../core/types.js';
import { tryIdentityKey } from '../url/url-identity.js';

/** The key a sitemap's validator is kept under: its identity key (lib/factory/url), so spellings of one URL share it. */
export function validatorKey(url: string): string | null {
  return tryIdentityKey(url);
}

/**
 * Collects what a walk's `sitemap` events say to remember (their `validator`), for the next run's `previous`.
 * A sitemap with no validator to keep (an index, a partial read) is left out: the next run reads it whole.
 */
export class ValidatorLog {
  private readonly kept = new Map<string, SitemapValidator>();

  /** Records one `sitemap` event. */
  record(event: { url: string; validator: SitemapValidator | null }): void {
    const key = validatorKey(event.url);
    if (key === null) return;
    if (event.validator === null) this.kept.delete(key);
    else this.kept.set(key, event.validator);
  }

  get size(): number {
    return this.kept.size;
  }

  /** The validators as plain JSON (the shape `previous` takes). */
  toJSON(): Validators {
    return Object.fromEntries(this.kept);
  }
}
