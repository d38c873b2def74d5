/** Deepest element nesting accepted: real sitemaps nest 4 or 5 levels, anything near 64 is garbage or an attack. */
export const MAX_DEPTH = 64;

/** Longest text collected into one field (a loc, a video description): 1 Mi characters, far above any real value. */
export const MAX_FIELD_CHARS = 1_048_576;

/**
 * Longest stretch of input without a single parser event: htmlparser2 buffers a comment, CDATA section,
 * processing instruction or attribute until it ends, so one giant token would otherwise sit in memory whole.
 */
export const MAX_TOKEN_CHARS = 8 * 1_048_576;

/** Bytes read before the encoding is chosen: a BOM or the XML declaration must be in here. */
export const SNIFF_BYTES = 1024;

/** Characters after the first non-blank one read before choosing between XML and a plain-text list. */
export const SNIFF_CHARS = 1024;

/** Whitespace tolerated around a URL on a text line before the line counts as too long. */
export const TEXT_LINE_SLACK = 1024;
