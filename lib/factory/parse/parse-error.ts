import { type ErrorKind, ParseError } from '../../core/errors.js';

/** The error kinds the parser throws. */
export type ParseErrorKind = Extract<ErrorKind, 'doctype_forbidden' | 'invalid_xml' | 'invalid_encoding' | 'not_sitemap' | 'unsupported_format' | 'too_large'>;

/** Where the parse is: the document's URL and the bytes written so far, carried into every error. */
export interface ParseContext {
  readonly url: string;
  bytes: number;
}

/**
 * A ParseError of `kind` with the document URL and byte count in its context. The message says what went wrong
 * and where (`at or before byte N`: the bytes received when it was found); it never quotes the document, whose
 * text (raw newlines, terminal escapes, a forged log line) would reach stderr and every log as is.
 */
export function parseFailure(ctx: ParseContext, kind: ParseErrorKind, detail: string | { message: string; cause?: unknown; limit?: number }): ParseError {
  const { message, ...rest } = typeof detail === 'string' ? { message: detail } : detail;
  return new ParseError(kind, `${message} (at or before byte ${ctx.bytes})`, { url: ctx.url, bytes: ctx.bytes, ...rest });
}

// An ASCII XML name or encoding label: nothing that can break a line, forge a log field or drive a terminal.
const PLAIN_NAME = /^[a-z][a-z0-9._:-]{0,31}$/i;

/** A name read from the document (root element, encoding label) when it is a plain ASCII name, else null. */
export function plainName(text: string): string | null {
  return PLAIN_NAME.test(text) ? text : null;
}
