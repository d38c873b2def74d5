// What a sitemap's own read says of it: how it was served, how its document starts, and the counts the reader kept.
// Pure: each rule is a function of the `sitemap` event the walk emits and where the sitemap was found.
import type { ReportedError, SitemapFormat } from '../../core/types.js';
import type { SitemapReadSummary } from '../walk/sitemap-reader.js';
import type { Finding } from './finding.js';
import { finding } from './make-finding.js';

/** What the rules read of one sitemap's read: the walk's `sitemap` event and a job's read summary both carry it. */
export type SitemapRead = Pick<SitemapReadSummary, 'url' | 'format' | 'document' | 'drops' | 'invalidLastmod' | 'bytes' | 'entries' | 'dropped' | 'unchanged'>;

/** The protocol's namespace; `https://` and Google's old URIs are wrong, whatever lenient readers make of them. */
export const SITEMAP_NAMESPACE = 'http://www.sitemaps.org/schemas/sitemap/0.9';
/** The protocol's per-file cap on uncompressed bytes. */
export const MAX_SITEMAP_BYTES = 50 * 1024 * 1024;

/** Where a sitemap was found and what listed it. */
export interface ReadContext {
  /** The format of the index that listed it, or null for a root. */
  parentFormat: SitemapFormat | null;
  /** How a root was found: declared in robots.txt, linked from the home page, probed at a well-known path, or given. */
  foundBy: 'robots' | 'home-page' | 'well-known' | 'index' | 'given';
}

const XML_FORMATS = new Set<SitemapFormat>(['urlset', 'sitemapindex', 'rss', 'atom']);
const XML_TYPE = /^(?:application|text)\/(?:[\w.+-]+\+)?xml\b/i;
const GZIP_TYPE = /^application\/(?:x-)?gzip\b|^application\/octet-stream\b/i;
const TEXT_TYPE = /^text\/plain\b/i;
const UTF8 = new Set(['utf-8', 'utf8']);

function namespaceFinding(read: SitemapRead): Finding[] {
  if (read.format !== 'urlset' && read.format !== 'sitemapindex') return [];
  const namespace = read.document?.prolog.rootNamespace ?? null;
  if (read.document === null || namespace === SITEMAP_NAMESPACE) return [];
  const said = namespace === null ? 'declares no namespace' : `is in ${namespace}`;
  return [finding('namespace', `<${read.format}> ${said}, not ${SITEMAP_NAMESPACE}`)];
}

function encodingFindings(read: SitemapRead): Finding[] {
  const prolog = read.document?.prolog;
  if (prolog === undefined) return [];
  const out: Finding[] = [];
  if (prolog.bom === 'utf-16le' || prolog.bom === 'utf-16be')
    out.push(finding('not_utf8', `the document is ${prolog.bom.toUpperCase()} (by its byte order mark)`));
  else if (prolog.declaredEncoding !== null && !UTF8.has(prolog.declaredEncoding)) {
    out.push(finding('not_utf8', `the XML declaration says encoding="${prolog.declaredEncoding}"`));
  }
  if (prolog.bom === 'utf-8') out.push(finding('bom', 'the document starts with a UTF-8 byte order mark (EF BB BF); most readers skip it, some fail'));
  if (prolog.beforeDeclaration) {
    out.push(finding('before_declaration', 'there is text before the XML declaration or the root element: strict XML parsers refuse the document'));
  }
  return out;
}

function servingFindings(read: SitemapRead): Finding[] {
  const document = read.document;
  if (document === null) return [];
  const out: Finding[] = [];
  if (document.finalUrl !== read.url) out.push(finding('redirected', `redirects to ${document.finalUrl}`, 1, [document.finalUrl]));
  const type = document.contentType;
  const gzipNamed = /\.gz$/i.test(new URL(read.url).pathname) || /gzip/i.test(document.contentEncoding ?? '') || (type !== null && GZIP_TYPE.test(type));
  if (document.gzipped && !gzipNamed) out.push(finding('gzip_unnamed', 'the body is gzip but neither its name, Content-Encoding nor Content-Type says so'));
  const fits =
    read.format === null ||
    (type !== null && (XML_FORMATS.has(read.format) ? XML_TYPE.test(type) : TEXT_TYPE.test(type))) ||
    (type !== null && document.gzipped && GZIP_TYPE.test(type));
  if (!fits && document.finalUrl.startsWith('http')) {
    const expected = read.format !== null && XML_FORMATS.has(read.format) ? 'application/xml or text/xml' : 'text/plain';
    out.push(finding('content_type', `served as ${type ?? 'no Content-Type'}; a ${read.format} reads best as ${expected}`));
  }
  return out;
}

function countFindings(read: SitemapRead, context: ReadContext): Finding[] {
  const out: Finding[] = [];
  const relative = read.drops.relative;
  if (relative)
    out.push(
      finding('relative_loc', `${relative.count} loc(s) are not absolute URLs and were dropped`, relative.count, relative.example ? [relative.example] : []),
    );
  const invalid = Object.entries(read.drops).filter(([reason]) => reason !== 'relative');
  const invalidCount = invalid.reduce((sum, [, drop]) => sum + drop.count, 0);
  if (invalidCount > 0) {
    const examples = invalid.flatMap(([, drop]) => (drop.example ? [drop.example] : []));
    out.push(
      finding(
        'invalid_loc',
        `${invalidCount} loc(s) are not usable http(s) URLs and were dropped (${invalid.map(([reason]) => reason).join(', ')})`,
        invalidCount,
        examples,
      ),
    );
  }
  if (read.invalidLastmod > 0) out.push(finding('lastmod_invalid', `${read.invalidLastmod} lastmod value(s) are not W3C datetimes`, read.invalidLastmod));
  if (read.bytes > MAX_SITEMAP_BYTES) out.push(finding('too_large', `${read.bytes} bytes uncompressed, over the protocol's 50 MiB`));
  if (read.format === 'sitemapindex' && context.parentFormat === 'sitemapindex') {
    out.push(finding('index_of_indexes', 'a sitemap index listed by another index: search engines do not follow it'));
  }
  if (read.format !== 'sitemapindex' && read.entries === 0 && read.dropped === 0) out.push(finding('empty', 'it lists no URLs'));
  if (context.foundBy === 'well-known' || context.foundBy === 'home-page') {
    const how = context.foundBy === 'well-known' ? 'found by probing' : 'linked from the home page';
    out.push(finding('undeclared', `${how}, but robots.txt does not declare it: add "Sitemap: ${read.url}"`));
  }
  return out;
}

// Problems a read sitemap reports that are findings of their own; the rest (junk locs) its drops already say.
const PROBLEM_RULES: Partial<Record<ReportedError['kind'], 'too_many_urls' | 'truncated' | 'too_deep'>> = {
  too_many_urls: 'too_many_urls',
  too_many_children: 'too_many_urls',
  invalid_xml: 'truncated',
  too_deep: 'too_deep',
};

/** The finding a problem of a read sitemap is (a cap reached, a cut document), or null when its drops already say it. */
export function problemFinding(problem: Pick<ReportedError, 'kind' | 'message'>): Finding | null {
  const rule = PROBLEM_RULES[problem.kind];
  return rule === undefined ? null : finding(rule, problem.message);
}

/** The findings of one sitemap's read (not its entries'). */
export function documentFindings(read: SitemapRead, context: ReadContext): Finding[] {
  if (read.unchanged) return [];
  return [...namespaceFinding(read), ...encodingFindings(read), ...servingFindings(read), ...countFindings(read, context)];
}
