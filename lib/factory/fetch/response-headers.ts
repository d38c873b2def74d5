import type { IncomingHttpHeaders } from 'node:http';
import { createLogger } from '../../utils/logger.js';

const log = createLogger('factory:fetch');

/** A value `Headers` would hand back unchanged: visible ASCII, no surrounding whitespace. Others take the full path. */
const PLAIN_VALUE = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;

/**
 * undici's header record as a WHATWG `Headers`, built only when asked for more than a plain `get`/`has`: a sitemap
 * read asks for three names, and copying every header into a `Headers` first cost more per small sitemap than
 * parsing it.
 */
export function responseHeaders(raw: IncomingHttpHeaders): Headers {
  let full: Headers | null = null;
  const built = (): Headers => (full ??= toHeaders(raw));
  const get = (name: string): string | null => {
    if (full !== null) return full.get(name);
    const value = raw[name.toLowerCase()];
    if (value === undefined) return null;
    return typeof value === 'string' && PLAIN_VALUE.test(value) ? value : built().get(name);
  };
  return {
    get,
    has: (name) => get(name) !== null,
    append: (name, value) => built().append(name, value),
    set: (name, value) => built().set(name, value),
    delete: (name) => built().delete(name),
    getSetCookie: () => built().getSetCookie(),
    forEach: (callback, thisArg) => built().forEach(callback, thisArg),
    entries: () => built().entries(),
    keys: () => built().keys(),
    values: () => built().values(),
    [Symbol.iterator]: () => built()[Symbol.iterator](),
  };
}

/** undici's header record as a WHATWG `Headers`; a value `Headers` refuses is dropped rather than failing the response. */
export function toHeaders(raw: IncomingHttpHeaders): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw)) {
    for (const item of Array.isArray(value) ? value : [value ?? '']) {
      try {
        headers.append(name, item);
      } catch {
        log.debug({ event: 'header_dropped', name }, 'unrepresentable response header');
      }
    }
  }
  return headers;
}
