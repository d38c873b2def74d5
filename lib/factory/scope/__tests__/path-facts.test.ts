// pathFactsOf reads a pathname's locale and root folder by index: it must answer exactly what the segment rules
// answer when the leading segments are split out as objects (the definition it replaced, kept here as the oracle).
import { describe, expect, it } from 'vitest';
import { classifySegment, leadingSegments, pathFactsOf } from '../locale.js';

function oracle(pathname: string): { locale: string | null; pathPrefix: string } {
  const [first, second] = leadingSegments(pathname, 2);
  const found = first === undefined ? null : classifySegment(first.name);
  const locale = found?.kind === 'locale' ? found.locale : null;
  const content = first !== undefined && found?.kind === 'locale' ? second : first;
  return { locale, pathPrefix: content?.isFolder === true ? `/${content.name}/` : '/' };
}

const PATHNAMES = [
  '',
  '/',
  '//',
  '/about',
  '/blog/',
  '/blog/x',
  '/catalog/c002/products/item.html',
  '/en',
  '/en/',
  '/en/docs',
  '/en/docs/',
  '/en-us/docs/x',
  '/EN-us/Docs/x',
  '/de_DE/x/y',
  '/fr//blog/post',
  '///a//b/',
  '/id/123',
  '/id/',
  '/xx-/y/',
  '/zz/y/',
  '/a/-x/',
  '/a/_b',
  'noslash/x/',
  'en/docs/',
  '/pt-br',
  '/pt-br/',
  '/%C3%A9t%C3%A9/x',
  '/zh-Hant-TW/news/1',
];

describe('pathFactsOf', () => {
  it.each(PATHNAMES)('reads %j as the segment rules do', (pathname) => {
    expect(pathFactsOf(pathname)).toEqual(oracle(pathname));
  });

  it('finds locales and folders (the oracle is not vacuous)', () => {
    expect(pathFactsOf('/en-us/docs/x')).toEqual({ locale: 'en-US', pathPrefix: '/docs/' });
    expect(pathFactsOf('/blog/x')).toEqual({ locale: null, pathPrefix: '/blog/' });
  });
});
