import { describe, expect, it } from 'vitest';
import { FactoryError } from '../../../core/errors.js';
import { reportedError, sitemapFate } from '../walk-policy.js';

const ref = { url: 'https://example.com/child.xml', depth: 1, parent: 'https://example.com/index.xml' };

describe('what a failed sitemap means (sitemapFate)', () => {
  it('reads a 404 or 410 as gone, carrying the status in the reported error', () => {
    for (const status of [404, 410]) {
      const reported = reportedError(new FactoryError('http_status', `HTTP ${status}`, { url: ref.url, status }), ref);
      expect(reported).toMatchObject({ kind: 'http_status', status, url: ref.url, parent: ref.parent, depth: 1 });
      expect(sitemapFate(reported)).toBe('gone');
    }
  });

  it('reads every other failure as unknown: 5xx, 403, timeouts, resets, refusals, limits, cut-offs', () => {
    const unknown = [
      new FactoryError('http_status', 'HTTP 503', { status: 503 }),
      new FactoryError('http_status', 'HTTP 403', { status: 403 }),
      new FactoryError('timeout', 'timed out'),
      new FactoryError('fetch_failed', 'socket hang up'),
      new FactoryError('blocked_ssrf', 'private address'),
      new FactoryError('too_large', 'over the cap'),
      new FactoryError('invalid_xml', 'cut off'),
      new FactoryError('too_many_urls', 'capped'),
    ];
    for (const error of unknown) expect([error.kind, sitemapFate(reportedError(error, ref))]).toEqual([error.kind, 'unknown']);
  });

  it('carries no status on errors of other kinds', () => {
    expect(reportedError(new FactoryError('timeout', 'slow', { status: 200 }), ref)).not.toHaveProperty('status');
  });
});
