import { describe, expect, it } from 'vitest';
import { parseResolveEntry } from '../../core/limits.js';

describe('parseResolveEntry (--resolve and FACTORY_RESOLVE)', () => {
  it('reads HOST:PORT:ADDR, lower-casing the host, with a bracketed IPv6 address', () => {
    expect(parseResolveEntry(' Sitemaps.TEST:8080:127.0.0.1 ')).toEqual({ host: 'sitemaps.test', port: 8080, address: '127.0.0.1' });
    expect(parseResolveEntry('v6.test:443:[::1]')).toEqual({ host: 'v6.test', port: 443, address: '::1' });
  });

  it.each(['garbage', 'x.test:80', 'x.test:70000:127.0.0.1', 'x.test:80:not-an-ip', 'x.test:http:127.0.0.1'])('refuses %s', (entry) => {
    expect(parseResolveEntry(entry)).toBeNull();
  });
});
