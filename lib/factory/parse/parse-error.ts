import { type ErrorKind, ParseError } from '../errors.js';

/** The error kinds the parser throws. */
export type ParseErrorKind = Extract<
  ErrorKind,
  'doctype_forbidden' | 'invalid_xml' | 'invalid_encoding' | 'not_sitemap' | 'unsupported_format' | 'too_large'
>;

/** Where the parse is: the document's URL and the bytes written so far, carried into every error. */
export interface ParseContext {
  readonly url: string;
  bytes: number;
}

/** A ParseError of `kind` with the document URL and byte count in its context. */
export function parseFailure(
  ctx: ParseContext,
  kind: ParseErrorKind,
  detail: string | { message: string; cause?: unknown; limit?: number },
): ParseError {
  if (typeof detail === 'string') return new ParseError(kind, detail, { url: ctx.url, bytes: ctx.bytes });
  const { message, ...rest } = detail;
  return new ParseError(kind, message, { url: ctx.url, bytes: ctx.bytes, ...rest });
}

/** Shortens attacker-controlled text (tag names, labels) before it goes into an error message. */
export function clip(text: string): string {
  return text.length > 64 ? `${text.slice(0, 64)}...` : text;
}
