// Signed download links: valid for their site until they expire, refused when tampered with, for another site, or
// signed with another API token; the sites routes take one only on a GET of that site's URL export.
import { describe, expect, it } from 'vitest';
import { factoryConfig } from '../../config/factory-config.js';
import { assertDownloadToken, assertSitesAuthorized, DOWNLOAD_TOKEN_TTL_MS, signDownloadToken } from '../download-token.js';

const NOW = 1_790_000_000_000;

describe('download tokens', () => {
  const { token, expiresAt } = signDownloadToken('api-secret', 'shop', NOW);

  it('holds neither the API token nor anything but its expiry and signature', () => {
    expect(token).not.toContain('api-secret');
    expect(token).toMatch(/^\d+\.[A-Za-z0-9_-]{43}$/);
    expect(expiresAt.getTime()).toBe(NOW + DOWNLOAD_TOKEN_TTL_MS);
  });

  it('opens its site until it expires', () => {
    expect(() => assertDownloadToken('api-secret', 'shop', token, NOW + DOWNLOAD_TOKEN_TTL_MS - 1)).not.toThrow();
    expect(() => assertDownloadToken('api-secret', 'shop', token, NOW + DOWNLOAD_TOKEN_TTL_MS)).toThrow(/expired/);
  });

  it('refuses another site, another API token, a changed expiry and junk', () => {
    const later = `${NOW + 10 * DOWNLOAD_TOKEN_TTL_MS}.${token.split('.')[1]}`;
    for (const [apiToken, siteId, given] of [
      ['api-secret', 'blog', token],
      ['other-secret', 'shop', token],
      ['api-secret', 'shop', later],
      ['api-secret', 'shop', 'nonsense'],
      ['api-secret', 'shop', ''],
    ] as const) {
      expect(() => assertDownloadToken(apiToken, siteId, given, NOW)).toThrow(
        expect.objectContaining({ kind: 'unauthorized', message: 'invalid download link: ask for a new one' }),
      );
    }
  });

  it('stands in for the bearer token only on a GET of its site URL export', () => {
    const config = factoryConfig({ FACTORY_API_TOKEN: 'api-secret' });
    const live = signDownloadToken('api-secret', 'shop').token;
    const at = (path: string, method = 'GET') => new Request(`http://127.0.0.1${path}${path.includes('?') ? '&' : '?'}downloadToken=${live}`, { method });
    expect(() => assertSitesAuthorized(at('/api/factory/sites/shop/urls?format=csv&download=1'), config)).not.toThrow();
    expect(() => assertSitesAuthorized(at('/api/factory/sites/blog/urls'), config)).toThrow(/invalid download link/);
    expect(() => assertSitesAuthorized(at('/api/factory/sites/shop/syncs'), config)).toThrow(/only the URL export/);
    expect(() => assertSitesAuthorized(at('/api/factory/sites/shop/sync', 'POST'), config)).toThrow(/bearer token/);
    expect(() => assertSitesAuthorized(new Request('http://127.0.0.1/api/factory/sites/shop/urls'), config)).toThrow(/bearer token/);
  });
});
