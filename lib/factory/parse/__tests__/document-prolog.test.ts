import { describe, expect, it } from 'vitest';
import { readProlog } from '../document-prolog.js';

const NS = 'http://www.sitemaps.org/schemas/sitemap/0.9';
const prolog = (text: string, lead: number[] = []) => readProlog(Buffer.concat([Buffer.from(lead), Buffer.from(text, 'utf8')]));

describe('readProlog', () => {
  it('reads the declaration, skips stylesheet, comment and doctype, and finds the root and its namespace', () => {
    expect(prolog(`<?xml version="1.0" encoding="UTF-8"?>\n<?xml-stylesheet href="s.xsl"?><!-- made by X --><!DOCTYPE x><urlset xmlns="${NS}">`)).toEqual({
      bom: null,
      beforeDeclaration: false,
      declaredEncoding: 'utf-8',
      root: 'urlset',
      rootNamespace: NS,
    });
  });

  it('a prefixed root takes its prefix namespace, not the default one', () => {
    expect(prolog(`<ns1:sitemapindex xmlns="urn:other" xmlns:ns1="${NS}">`)).toMatchObject({ root: 'sitemapindex', rootNamespace: NS });
    expect(prolog(`<urlset xmlns:image="urn:image">`)).toMatchObject({ root: 'urlset', rootNamespace: null });
  });

  it('byte order marks, single-quoted declarations and text before the declaration or the root', () => {
    expect(prolog(`<?xml version='1.0' encoding='iso-8859-1'?><urlset>`, [0xef, 0xbb, 0xbf])).toMatchObject({ bom: 'utf-8', declaredEncoding: 'iso-8859-1' });
    expect(readProlog(Buffer.from([0xff, 0xfe, 0x3c, 0x00]))).toMatchObject({ bom: 'utf-16le' });
    expect(prolog(` <?xml version="1.0"?><urlset xmlns="${NS}">`)).toMatchObject({ beforeDeclaration: true, root: 'urlset', rootNamespace: NS });
    expect(prolog(`This XML file does not appear to have any style information.\n<urlset xmlns="${NS}">`)).toMatchObject({
      beforeDeclaration: true,
      root: 'urlset',
    });
  });

  it('a text list or HTML has no sitemap root', () => {
    expect(prolog('https://example.com/a\nhttps://example.com/b\n')).toMatchObject({ root: null, beforeDeclaration: false });
    expect(prolog('<html><head>')).toMatchObject({ root: 'html', rootNamespace: null });
  });
});
