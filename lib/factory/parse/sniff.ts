import { createLogger } from '../../utils/logger.js';
import { type ParseContext, parseFailure } from './parse-error.js';

const log = createLogger('factory:parse');

/** How the rest of the document is read. */
export type DocumentMode = 'xml' | 'text';

// A sitemap root somewhere in the sniff window, for files with a banner line pasted before the XML.
const XML_ROOT_NEAR_START = /<(?:\?xml\s|(?:[\w.-]+:)?(?:urlset|sitemapindex)[\s>])/i;
const URL_OR_COMMENT_LINE = /^(?:https?:\/\/|#)/i;

/**
 * Chooses XML or text from the first characters (`lead` starts at the first non-blank one).
 * `<` means XML; `{` or `[` means JSON, refused; anything else is a text list, unless its first line is
 * not a URL and a sitemap root follows close by (a browser's "This XML file does not appear..." banner).
 */
export function sniffMode(lead: string, ctx: ParseContext): DocumentMode {
  const first = lead.charCodeAt(0);
  if (first === 0x3c /* < */) return 'xml';
  if (first === 0x7b /* { */ || first === 0x5b /* [ */) {
    throw parseFailure(ctx, 'unsupported_format', 'looks like JSON, not a sitemap');
  }
  const newline = lead.indexOf('\n');
  const firstLine = (newline === -1 ? lead : lead.slice(0, newline)).trim();
  if (!URL_OR_COMMENT_LINE.test(firstLine) && XML_ROOT_NEAR_START.test(lead)) {
    log.debug({ event: 'leading_text_skipped', url: ctx.url }, 'text before the XML root ignored');
    return 'xml';
  }
  return 'text';
}
