/**
 * Locales of pages, from their URL path and their hreflang alternates.
 *
 * THE RULE for a first path segment (`/xx/...`), case-insensitive, `-` or `_` as separator:
 *
 * 1. Strong: `lang[-Script][-REGION]` with at least a script or a region, where `lang` is in
 *    ISO 639-1, `Script` in a list of ISO 15924 scripts sites use, and `REGION` in ISO 3166-1
 *    alpha-2 (plus the reserved `UK`, `EU` and user-assigned `XK` that sites use) or a 3-digit
 *    UN M.49 area (`es-419`). `/en-us/`, `/de-DE/`, `/zh-hans/`, `/pt_BR/` are locales
 *    wherever they appear. A few compound words that happen to fit (`to-do`, `hi-fi`) are denied.
 * 2. Bare two-letter code in ISO 639-1 and not ambiguous: a locale on its own (`/fr/`, `/ja/`).
 *    Two-letter segments outside ISO 639-1 never are: `/go/`, `/js/`, `/us/`, `/me/`, `/ok/`.
 * 3. Bare code that is also a common word, abbreviation or US state (`it`, `id`, `is`, `no`,
 *    `my`, `hi`, `he`, `ml`, `os`, `hr`, `la`, `ny`...): a locale only when the site confirms it,
 *    either by an hreflang of that language or by locale folders of at least `minSiblings` (2) other
 *    languages at the first level (`/en/`, `/fr-fr/` next to `/it/` -> Italian; `/it/` next to
 *    `/blog/`, or next to `/en-us/` and `/en-gb/` only, -> the IT section). Never when the next segment is a number (`/id/123`, `/no/5`): that is an
 *    identifier, not a language tree. Per URL, with no site evidence, `localeFromPath('/it/x')` is null.
 * 4. Bare code that is also a country code used for country folders whose language is another
 *    one (`uk` United Kingdom vs Ukrainian, `ca` Canada vs Catalan, `br`, `ch`, `se`, `ie`, `kr`,
 *    `tw`, `za`...): a locale only when hreflang confirms that language, because sibling folders
 *    do not tell country stores (`/uk/ /ca/ /de/ /fr/`) from language folders.
 *
 * Only ISO 639-1 is accepted (as Google requires for hreflang): three-letter codes such as `fil`
 * are not reported.
 */
import { createLogger } from '../../utils/logger.js';

const log = createLogger('factory:locale');

/** ISO 639-1 language codes (current; the deprecated `iw`, `in`, `ji`, `bh` are left out). */
const ISO_639_1 = new Set(
  (
    'aa ab ae af ak am an ar as av ay az ba be bg bi bm bn bo br bs ca ce ch co cr cs cu cv cy da de ' +
    'dv dz ee el en eo es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv ha he hi ho hr ht hu hy hz ia ' +
    'id ie ig ii ik io is it iu ja jv ka kg ki kj kk kl km kn ko kr ks ku kv kw ky la lb lg li ln lo ' +
    'lt lu lv mg mh mi mk ml mn mr ms mt my na nb nd ne ng nl nn no nr nv ny oc oj om or os pa pi pl ' +
    'ps pt qu rm rn ro ru rw sa sc sd se sg si sk sl sm sn so sq sr ss st su sv sw ta te tg th ti tk ' +
    'tl tn to tr ts tt tw ty ug uk ur uz ve vi vo wa wo xh yi yo za zh zu'
  ).split(' '),
);

/** ISO 3166-1 alpha-2, plus `UK` and `EU` (reserved) and `XK` (Kosovo), which real sites use in paths. */
const REGIONS = new Set(
  (
    'AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS ' +
    'BT BV BW BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE ' +
    'EG EH ER ES ET FI FJ FK FM FO FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM ' +
    'HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC ' +
    'LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ NA ' +
    'NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW ' +
    'SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO ' +
    'TR TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW UK EU XK'
  ).split(' '),
);

/** ISO 15924 scripts that appear in site locales (`zh-Hans`, `sr-Latn`, `uz-Cyrl`). */
const SCRIPTS = new Set(
  (
    'Arab Armn Beng Cyrl Deva Ethi Geor Grek Gujr Guru Hang Hans Hant Hebr Jpan Khmr Knda Kore Laoo ' + 'Latn Mlym Mong Mymr Orya Sinh Taml Telu Thaa Thai Tibt'
  ).split(' '),
);

/** Rule 3: codes that more often mean a word, an abbreviation or a US state than a language folder. */
const WORD_CODES = new Set(
  (
    'ab am an as av ba be bi bs ce co cr cu cv dv fy ga gl ha he hi ho hr ia id ig ii io is it kg ks ' +
    'ky la lb li mg mi ml mn mr ms mt my na nd ne ng no nv ny or os pa pi ps rm sc sd sm so ss st ti ' +
    'tl tn to ts tt ty wa yo'
  ).split(' '),
);

/** Rule 4: codes that are also country folders of a country whose language is another one. */
const COUNTRY_CODES = new Set('ae bo br ca ch cy ee eu gu ie kr kw lu sa se sg si tw ug uk ve za'.split(' '));

/** Rule 1 exceptions: whole segments that fit `lang-REGION` but are words. */
const COMPOUND_WORDS = new Set(['am-pm', 'hi-fi', 'my-id', 'so-so', 'to-do']);

// lang, optional 4-letter script, optional 2-letter or 3-digit region; `_` for Java-style locales.
const TAG_PATTERN = /^([a-z]{2})(?:[-_]([a-z]{4}))?(?:[-_]([a-z]{2}|\d{3}))?$/i;

/** Most distinct locales one detector or group remembers: keeps memory bounded on hostile input. */
export const MAX_DISTINCT_LOCALES = 1_000;

/** What a first path segment says about the page's language (see the rule at the top of this file). */
export type SegmentLocale =
  | { readonly kind: 'locale'; readonly locale: string }
  | { readonly kind: 'ambiguous'; readonly code: string; readonly confirmBy: 'siblings' | 'hreflang' }
  | null;

interface TagParts {
  language: string;
  script: string | null;
  region: string | null;
}

function splitTag(tag: string): TagParts | null {
  const match = TAG_PATTERN.exec(tag);
  if (match === null) return null;
  const [, language = '', script, region] = match;
  return {
    language: language.toLowerCase(),
    script: script === undefined ? null : script.charAt(0).toUpperCase() + script.slice(1).toLowerCase(),
    region: region === undefined ? null : region.toUpperCase(),
  };
}

function joinTag(parts: TagParts): string {
  return [parts.language, parts.script, parts.region].filter((part) => part !== null).join('-');
}

// Path segments must use known scripts and regions: a folder named `en-xyzw` is not a locale.
function isKnownSubtags(parts: TagParts): boolean {
  if (parts.script !== null && !SCRIPTS.has(parts.script)) return false;
  return parts.region === null || /^\d{3}$/.test(parts.region) || REGIONS.has(parts.region);
}

function classifyShaped(segment: string): SegmentLocale {
  const parts = splitTag(segment);
  if (parts === null || !ISO_639_1.has(parts.language)) return null;
  if (parts.script !== null || parts.region !== null) {
    if (!isKnownSubtags(parts) || COMPOUND_WORDS.has(segment.toLowerCase().replace('_', '-'))) return null;
    return { kind: 'locale', locale: joinTag(parts) };
  }
  if (WORD_CODES.has(parts.language)) return { kind: 'ambiguous', code: parts.language, confirmBy: 'siblings' };
  if (COUNTRY_CODES.has(parts.language)) return { kind: 'ambiguous', code: parts.language, confirmBy: 'hreflang' };
  return { kind: 'locale', locale: parts.language };
}

// Grouping classifies the first segment of every URL; a site has few locale-shaped segments, so a
// small cache (cleared when full, so it stays bounded) saves the regex on millions of URLs.
const segmentCache = new Map<string, SegmentLocale>();
const SEGMENT_CACHE_SIZE = 4_096;

/** Classifies one first path segment by the rule at the top of this file, without site evidence. */
export function classifySegment(segment: string): SegmentLocale {
  // Cheap exit for the common case: only 2-letter segments and ones with a separator at 2 can be locales.
  if (segment.length !== 2 && segment[2] !== '-' && segment[2] !== '_') return null;
  const cached = segmentCache.get(segment);
  if (cached !== undefined) return cached;
  const found = classifyShaped(segment);
  if (segmentCache.size >= SEGMENT_CACHE_SIZE) segmentCache.clear();
  segmentCache.set(segment, found);
  return found;
}

/** Classifies a URL's leading segments: like classifySegment, but `/id/123` (ambiguous code, then a number) is no locale. */
export function classifyLeading(segments: readonly PathSegment[]): SegmentLocale {
  const [first, second] = segments;
  if (first === undefined) return null;
  const found = classifySegment(first.name);
  if (found?.kind === 'ambiguous' && second !== undefined && /^\d+$/.test(second.name)) return null;
  return found;
}

/** Normalises an hreflang value (`EN_us` -> `en-US`); null for `x-default` and for anything not ISO 639-1 based. */
export function normaliseHreflang(tag: string): string | null {
  const parts = splitTag(tag.trim());
  if (parts === null || !ISO_639_1.has(parts.language)) return null;
  // hreflang is an explicit declaration, so any well-formed region or script is kept as written.
  return joinTag(parts);
}

/** Parses an absolute URL, or an absolute path against a dummy origin; null when it is neither. */
export function toUrl(input: string | URL): URL | null {
  if (input instanceof URL) return input;
  try {
    return new URL(input, input.startsWith('/') ? 'http://path.invalid' : undefined);
  } catch {
    return null;
  }
}

/**
 * The WHATWG pathname of a URL the URL parser accepts (a validated loc), read off the string with one match when that
 * is certain to give what `new URL(url).pathname` gives (PLAIN_PATH); anything else is parsed. Every walked entry's
 * path is classified twice (locale, root folder): two URL parses an entry were most of `--format ndjson|csv|json`'s time.
 */
export function pathnameOfValidUrl(url: string): string | null {
  const m = PLAIN_PATH.exec(url);
  if (m === null) return toUrl(url)?.pathname ?? null;
  const path = m[1] ?? '';
  return path === '' ? '/' : path;
}

/**
 * A lower-case `http(s)://` URL, an authority without a backslash, and a path (group 1) of segments that each hold only
 * the printable ASCII the parser's path state copies as is (not in its percent-encode set: controls, space, double
 * quote, `<`, `>`, backquote, braces, non-ASCII; not the backslash it reads as `/`) and do not start like a dot
 * segment (`.`, `%2e`), up to the query, the fragment or the end. One match: a loop of `charCodeAt` over each loc
 * cost more than the rest of its entry's fields.
 */
const PLAIN_PATH = /^https?:\/\/[^/?#\\]*((?:\/(?!\.|%2[eE])[!$-.0-;=@-[\]-_a-z|~]*)*)(?:[?#]|$)/;

/** A path segment and whether a `/` follows it (a folder) or not (a page). */
export interface PathSegment {
  name: string;
  isFolder: boolean;
}

/** The first `limit` non-empty segments of a pathname, without splitting the whole path. */
export function leadingSegments(pathname: string, limit = 2): PathSegment[] {
  const out: PathSegment[] = [];
  let start = 0;
  while (out.length < limit && start < pathname.length) {
    const slash = pathname.indexOf('/', start);
    const end = slash === -1 ? pathname.length : slash;
    if (end > start) out.push({ name: pathname.slice(start, end), isFolder: slash !== -1 });
    start = end + 1;
  }
  return out;
}

/** The locale a URL's first path segment states on its own (rules 1 and 2), else null. */
export function localeFromPath(url: string | URL): string | null {
  const parsed = toUrl(url);
  return parsed === null ? null : localeFromPathname(parsed.pathname);
}

/** localeFromPath of a URL's pathname. */
export function localeFromPathname(pathname: string): string | null {
  return pathFactsOf(pathname).locale;
}

/** The root folder of a URL for filtering (`/blog/x` -> `/blog/`, `/en-us/docs/x` -> `/docs/`, `/about` -> `/`). */
export function pathPrefixOf(url: string | URL): string | null {
  const parsed = toUrl(url);
  return parsed === null ? null : pathPrefixOfPathname(parsed.pathname);
}

/** pathPrefixOf of a URL's pathname. */
export function pathPrefixOfPathname(pathname: string): string {
  return pathFactsOf(pathname).pathPrefix;
}

/** What a pathname says of its page: the locale its first segment states (rules 1 and 2) and its root folder. */
export interface PathFacts {
  locale: string | null;
  pathPrefix: string;
}

/** A path segment names `locale` when it spells the tag (`ca`, `pt_BR` for `pt-BR`), case aside. */
export function segmentNamesLocale(segment: string, locale: string): boolean {
  return segment.length === locale.length && segment.replace('_', '-').toLowerCase() === locale.toLowerCase();
}

function segmentNames(pathname: string, start: number, end: number, locale: string): boolean {
  return end - start === locale.length && segmentNamesLocale(pathname.slice(start, end), locale);
}

/**
 * localeFromPathname and pathPrefixOfPathname of one pathname (with `stated`, the locale its entry declares, a first
 * folder naming it counts as a locale folder), its leading segments found by index and only the
 * ones that can matter copied: every walked entry has both, and arrays of segment objects per entry were a good part
 * of mapping a 1M-URL walk's entries.
 */
export function pathFactsOf(pathname: string, stated: string | null = null): PathFacts {
  const length = pathname.length;
  const start = segmentStart(pathname, 0);
  if (start >= length) return { locale: null, pathPrefix: '/' };
  const slash = pathname.indexOf('/', start);
  const end = slash === -1 ? length : slash;
  // The path's own locale (rules 1 and 2), else the one the entry states (its hreflang) when the first folder names it:
  // `/ca/x/` with hreflang `ca` is Catalan, though `ca` alone is ambiguous.
  const locale = segmentLocale(pathname, start, end) ?? (stated !== null && segmentNames(pathname, start, end, stated) ? stated : null);
  if (locale === null) return { locale, pathPrefix: folderOf(pathname, start, slash) };
  // A locale folder (`/en-us/docs/x`): the root folder is the next segment.
  const next = slash === -1 ? length : segmentStart(pathname, slash);
  return { locale, pathPrefix: next >= length ? '/' : folderOf(pathname, next, pathname.indexOf('/', next)) };
}

// The first character of the next non-empty segment at or after `from` (empty segments, `//`, are skipped).
function segmentStart(pathname: string, from: number): number {
  let at = from;
  while (at < pathname.length && pathname.charCodeAt(at) === 0x2f) at++;
  return at;
}

// classifySegment's locale for pathname[start, end), copying the segment only when it has a locale's shape.
function segmentLocale(pathname: string, start: number, end: number): string | null {
  const third = pathname[start + 2];
  if (end - start !== 2 && third !== '-' && third !== '_') return null;
  const found = classifySegment(pathname.slice(start, end));
  return found?.kind === 'locale' ? found.locale : null;
}

// `/name/` for a segment a slash follows (a folder), `/` for a page.
function folderOf(pathname: string, start: number, slash: number): string {
  if (slash === -1) return '/';
  // The segment sits between two slashes already (start > 0 after a skipped slash): one slice, no concatenation.
  return start > 0 ? pathname.slice(start - 1, slash + 1) : `/${pathname.slice(start, slash)}/`;
}

function sameUrl(a: string, b: string): boolean {
  if (a === b) return true;
  const left = toUrl(a);
  const right = toUrl(b);
  return left !== null && right !== null && left.href === right.href;
}

/**
 * The locale of a sitemap entry: from its path, else from the hreflang alternate that points at the entry itself.
 * `pathname`: the loc's, when the caller has it.
 */
export function localeOf(entry: { loc: string; alternates: readonly { hreflang: string; href: string }[] }, pathname?: string | null): string | null {
  const fromPath = pathname === undefined ? localeFromPath(entry.loc) : pathname === null ? null : localeFromPathname(pathname);
  if (fromPath !== null) return fromPath;
  for (const alternate of entry.alternates) {
    if (!sameUrl(alternate.href, entry.loc)) continue;
    const locale = normaliseHreflang(alternate.hreflang);
    if (locale !== null) return locale;
  }
  return null;
}

/**
 * The locale of one URL of a page (`position` 0: its loc, `k`: its alternate `k - 1`, as UrlExpander numbers them): the
 * loc's as localeOf says, an alternate's from its hreflang, else from its path. Paths are read off the string
 * (pathnameOfValidUrl): a URL parse per entry would be most of a job's mapping time.
 */
export function urlLocaleOf(parsed: { loc: string; alternates: readonly { hreflang: string; href: string }[] }, position: number, url: string): string | null {
  if (position === 0) return localeOf(parsed, pathnameOfValidUrl(url));
  const alternate = parsed.alternates[position - 1];
  const declared = alternate ? normaliseHreflang(alternate.hreflang) : null;
  if (declared !== null) return declared;
  const pathname = pathnameOfValidUrl(url);
  return pathname === null ? null : localeFromPathname(pathname);
}

/** Options of a LanguageDetector. */
export interface LanguageDetectorOptions {
  /** Other languages with locale folders needed to read an ambiguous word-like code as a locale (rule 3). */
  minSiblings?: number;
}

/** Adds to a set unless it holds MAX_DISTINCT_LOCALES already; false when the value was dropped. */
export function addBounded(set: Set<string>, value: string): boolean {
  if (set.size >= MAX_DISTINCT_LOCALES && !set.has(value)) return false;
  set.add(value);
  return true;
}

/** Site-level language evidence from URL paths and hreflang tags; answers which languages a site has. */
export class LanguageDetector {
  private readonly minSiblings: number;
  private readonly pathLocales = new Set<string>();
  private readonly pathLanguages = new Set<string>();
  private readonly hreflangLocales = new Set<string>();
  private readonly hreflangLanguages = new Set<string>();
  private readonly candidates = new Set<string>();
  private capLogged = false;

  constructor(options: LanguageDetectorOptions = {}) {
    this.minSiblings = options.minSiblings ?? 2;
  }

  /** Records the leading path segments of a page URL and returns what they say on their own. */
  addSegments(segments: readonly PathSegment[]): SegmentLocale {
    const found = classifyLeading(segments);
    if (found?.kind === 'locale') {
      this.remember(this.pathLocales, found.locale);
      this.pathLanguages.add(found.locale.slice(0, 2));
    } else if (found?.kind === 'ambiguous') this.candidates.add(found.code);
    return found;
  }

  /** Records a page URL (absolute, or an absolute path); unparseable input is ignored. */
  addUrl(url: string | URL): void {
    const parsed = toUrl(url);
    if (parsed !== null) this.addSegments(leadingSegments(parsed.pathname, 2));
  }

  /** Records an hreflang value; `x-default` and malformed values are ignored. */
  addHreflang(tag: string): void {
    const locale = normaliseHreflang(tag);
    if (locale === null) return;
    this.remember(this.hreflangLocales, locale);
    this.hreflangLanguages.add(locale.slice(0, 2));
  }

  // A hostile sitemap could list endless distinct tags: keep the first ones and say so once.
  private remember(set: Set<string>, locale: string): void {
    if (addBounded(set, locale) || this.capLogged) return;
    this.capLogged = true;
    log.warn({ event: 'locale_cap_reached', limit: MAX_DISTINCT_LOCALES }, 'too many distinct locales; ignoring new ones');
  }

  /** Records a sitemap entry: its loc, and the tag and href of every alternate. */
  addEntry(entry: { loc: string; alternates: readonly { hreflang: string; href: string }[] }): void {
    this.addUrl(entry.loc);
    for (const alternate of entry.alternates) {
      this.addHreflang(alternate.hreflang);
      this.addUrl(alternate.href);
    }
  }

  /** Whether the evidence so far reads the ambiguous bare `code` as a language (rules 3 and 4). */
  isConfirmed(code: string): boolean {
    const confirmBy = WORD_CODES.has(code) ? 'siblings' : COUNTRY_CODES.has(code) ? 'hreflang' : null;
    if (confirmBy === null) return false;
    if (this.hreflangLanguages.has(code)) return true;
    if (confirmBy === 'hreflang') return false;
    // Languages, not locales: `/en-us/` and `/en-gb/` are one sibling, and `/it-it/` is none for `it`.
    return this.pathLanguages.size - (this.pathLanguages.has(code) ? 1 : 0) >= this.minSiblings;
  }

  /** The locale a URL's path denotes given the evidence so far (rules 1-4), else null. */
  resolveLocale(url: string | URL): string | null {
    const parsed = toUrl(url);
    const found = parsed === null ? null : classifyLeading(leadingSegments(parsed.pathname, 2));
    if (found === null) return null;
    if (found.kind === 'locale') return found.locale;
    return this.isConfirmed(found.code) ? found.code : null;
  }

  /** Every language seen, as normalised tags (`en`, `en-US`, `zh-Hans`), sorted and deduplicated. */
  languagesDetected(): string[] {
    const all = new Set([...this.pathLocales, ...this.hreflangLocales]);
    for (const code of this.candidates) if (this.isConfirmed(code)) all.add(code);
    return [...all].sort();
  }
}
