// Error messages say what and where (a byte offset), never the document's text: a refused DOCTYPE once echoed
// `<!DOCTYPE urlset [\n<!ENTITY l. "PWNED">` with its raw newlines into stderr and every log line.
import { describe, expect, it } from 'vitest';
import { gzipSync } from 'node:zlib';
import { startLoopbackServer, routeTable } from '../../../demo/loopback-server.js';
import { walkSitemapEvents, type WalkEvent } from '../../sitemap.js';
import { OPTIONS, parse, parseErrorOf } from './helpers.js';

const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

function messageOf(doc: string): string {
  return parseErrorOf(() => parse(doc)).message;
}

describe('parse error messages quote nothing of the document', () => {
  it('names the declaration met, in our spelling, and where', () => {
    const doc = '<?xml version="1.0"?>\n<!DOCTYPE urlset [\n<!ENTITY l. "PWNED">\n]>\n<urlset/>';
    const message = messageOf(doc);
    expect(message).toBe(`a <!DOCTYPE> declaration refused: no DOCTYPE or entity declaration is ever processed (at or before byte ${doc.length})`);
    expect(messageOf('<urlset><!eNtItY x "PWNED"></urlset>')).toContain('a <!ENTITY> declaration');
    expect(messageOf('<urlset><!\u001b[2JPWNED\n></urlset>')).toContain('a <!...> declaration');
  });

  it('quotes a root element name only when it is a plain ASCII name', () => {
    expect(messageOf('<?xml version="1.0"?><Error><Code>AccessDenied</Code></Error>')).toContain('unknown root element <error>');
    const odd = messageOf('<x\u001b]0;PWNED\u0007y/>');
    expect(odd).toContain('unknown root element with an unusual name');
    expect(odd).not.toContain('PWNED');
  });

  it('gives every refusal of a hostile document a position and no control character', () => {
    const hostile = [
      '<!DOCTYPE lolz [\r\n<!ENTITY lol "lol\u0000">\r\n]><urlset/>',
      `<urlset>${'<a>'.repeat(100)}</urlset>`,
      '<?xml version="1.0" encoding="x-PWNED-9"?><urlset/>',
      '{"PWNED": "\n"}',
      'PWNED line one\nline\u001b[31m two\n',
      '<html><body>PWNED</body></html>',
      `<urlset><url><loc>${'x'.repeat(20_000_000)}</loc></url></urlset>`,
    ];
    for (const doc of hostile) {
      const message = messageOf(doc);
      expect(message, JSON.stringify(doc.slice(0, 40))).not.toMatch(CONTROL);
      expect(message).not.toContain('PWNED');
      expect(message).toMatch(/\(at or before byte \d+\)$/);
    }
  });

  it('keeps the document URL in the error field, not in the message', () => {
    const error = parseErrorOf(() => parse('<!DOCTYPE x><urlset/>'));
    expect(error.url).toBe(OPTIONS.sitemapUrl);
    expect(error.message).not.toContain(OPTIONS.sitemapUrl);
  });
});

describe('walk error events from hostile servers', () => {
  it('reports a hostile DOCTYPE child and an odd Content-Encoding without their text', async () => {
    // Relative child locs are resolved against the index's URL.
    const index = '<sitemapindex><sitemap><loc>/dtd.xml</loc></sitemap><sitemap><loc>/coded.xml</loc></sitemap></sitemapindex>';
    const server = await startLoopbackServer(
      routeTable({
        '/index.xml': { body: index },
        '/dtd.xml': { body: '<!DOCTYPE urlset [\n<!ENTITY l. "PWNED">\n]><urlset/>' },
        // Node will not send a control character in a header: the value is odd in the ways a header may be.
        '/coded.xml': { headers: { 'content-encoding': 'x-PWNED "<b>" ; q=1' }, body: gzipSync('<urlset/>') },
      }),
    );
    try {
      const errors: Array<Extract<WalkEvent<unknown>, { type: 'error' }>> = [];
      for await (const event of walkSitemapEvents(server.url('/index.xml'), { net: { allowPrivate: true }, retries: 0 })) {
        if (event.type === 'error') errors.push(event);
      }
      expect(errors.map((error) => error.kind).sort()).toEqual(['doctype_forbidden', 'unsupported_format']);
      for (const error of errors) {
        expect(error.message).not.toMatch(CONTROL);
        expect(error.message).not.toContain('PWNED');
      }
    } finally {
      await server.close();
    }
  });
});
