/**
 * What a sitemap's first bytes say about it before any entry: a byte order mark, anything before the XML declaration,
 * the declared encoding, and the root element with its namespace. Read once per document from its first bytes (the
 * findings judge them; the parser itself is lenient about all of it).
 */
export interface DocumentProlog {
  /** `utf-8`, `utf-16le` or `utf-16be` when the bytes start with that byte order mark. */
  bom: 'utf-8' | 'utf-16le' | 'utf-16be' | null;
  /**
   * Characters before the XML declaration (a space, a newline), or text before the root element of a document with
   * none (a browser's pasted banner): the declaration must come first, and only markup may precede the root.
   */
  beforeDeclaration: boolean;
  /** The XML declaration's `encoding`, lower-cased, or null (none, or no declaration). */
  declaredEncoding: string | null;
  /** The root element's local name (`urlset`, `sitemapindex`, `rss`, `feed`, `html`), or null (a text list, or not seen). */
  root: string | null;
  /** The namespace the root element is in (its prefix's or the default `xmlns`), or null when it declares none. */
  rootNamespace: string | null;
}

/** How much of a document's start is read for its prolog: declarations, comments and a stylesheet fit well within it. */
export const PROLOG_BYTES = 4096;

const DECLARATION = /^<\?xml\s[^?]*?encoding\s*=\s*["']([^"']+)["']/i;
// Skips the declaration, processing instructions, comments and a doctype to the first start tag.
const MISC = /^(?:\s+|<\?[\s\S]*?\?>|<!--[\s\S]*?-->|<!DOCTYPE[^>]*>)/i;
const START_TAG = /^<(?:([\w.-]+):)?([\w.-]+)((?:\s[^>]*)?)\/?>/;
// A sitemap root further on, past text that is not markup (the sniffer reads such a document as XML too).
const SITEMAP_ROOT = /<(?:([\w.-]+):)?(urlset|sitemapindex)((?:\s[^>]*)?)>/i;

function bomOf(bytes: Uint8Array): DocumentProlog['bom'] {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return 'utf-8';
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf-16le';
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return 'utf-16be';
  return null;
}

function namespaceOf(attributes: string, prefix: string | undefined): string | null {
  const name = prefix === undefined ? 'xmlns' : `xmlns:${prefix}`;
  const match = new RegExp(`\\s${name.replace(/[.-]/g, '\\$&')}\\s*=\\s*(["'])(.*?)\\1`).exec(attributes);
  return match ? (match[2] ?? '').trim() : null;
}

/** The prolog of a document from its first bytes (at most PROLOG_BYTES of them are looked at). */
export function readProlog(first: Uint8Array): DocumentProlog {
  const bom = bomOf(first);
  const skip = bom === 'utf-8' ? 3 : bom === null ? 0 : 2;
  // Latin-1 keeps one character a byte: the markup looked for is ASCII, and nothing decoded here is shown.
  const head = Buffer.from(first.buffer, first.byteOffset + skip, Math.min(first.byteLength - skip, PROLOG_BYTES)).toString('latin1');
  const declarationAt = head.indexOf('<?xml');
  const beforeDeclaration = declarationAt > 0;
  const declaration = declarationAt >= 0 ? DECLARATION.exec(head.slice(declarationAt)) : null;
  let rest = declarationAt > 0 ? head.slice(declarationAt) : head;
  for (let misc = MISC.exec(rest); misc !== null && misc[0].length > 0; misc = MISC.exec(rest)) rest = rest.slice(misc[0].length);
  const atStart = START_TAG.exec(rest);
  const further = atStart === null && rest.length > 0 && rest[0] !== '<' ? SITEMAP_ROOT.exec(rest) : null;
  const tag = atStart ?? further;
  return {
    bom,
    beforeDeclaration: beforeDeclaration || further !== null,
    declaredEncoding: declaration ? (declaration[1] ?? '').toLowerCase() : null,
    root: tag ? (tag[2] ?? null) : null,
    rootNamespace: tag ? namespaceOf(tag[3] ?? '', tag[1]) : null,
  };
}
