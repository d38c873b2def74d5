import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import type { Io } from './io.js';
import { UsageError } from './io.js';

/** What the CLI accepts as an input, for messages that refuse one. */
export const ACCEPTED_INPUTS =
  'accepted inputs: an http:// or https:// URL, a host name or URL without a scheme (https:// is added), ' +
  'a local sitemap file (./sitemap.xml, sitemap.xml.gz), or - to read URLs from stdin one a line';

/** One input to walk: a URL, or a local file as a `file:` URL (read only because the user named it). */
export interface Input {
  url: string;
  local: boolean;
}

const SCHEME = /^([a-z][a-z0-9+.-]*):/i;
// `example.com/x.xml`, `127.0.0.1:8080/x.xml`: a host (with a dot or a port) before the first slash.
const HOST_THEN_PATH = /^[^/\s:]+(\.[^/\s:]+)*(:\d+)?\//;
// `./x.xml`, `../x`, `/x`, `~/x`: a path whatever follows; `sitemap.xml`: a path unless a host comes first.
const EXPLICIT_PATH = /^(\.{1,2}[\\/]|[\\/]|~)/;
const SITEMAP_NAME = /\.(xml|gz|txt|rss|atom)$/i;

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** Reads one argument as an input: URL, existing file, or a scheme-less URL (with a note on stderr). */
export function resolveInput(raw: string, io: Io, quiet = false): Input {
  const text = raw.trim();
  const scheme = SCHEME.exec(text)?.[1]?.toLowerCase();
  if (scheme === 'http' || scheme === 'https') return { url: text, local: false };
  // `host:8080/x` reads as scheme "host" to the URL parser: only a known-looking scheme is refused.
  if (scheme !== undefined && (text.slice(scheme.length + 1).startsWith('/') || !/^\d/.test(text.slice(scheme.length + 1)))) {
    if (!isFile(text)) throw new UsageError(`refused "${text}": the ${scheme}: scheme is not fetched; ${ACCEPTED_INPUTS}`);
  }
  if (isFile(text)) return { url: pathToFileURL(resolve(text)).href, local: true };
  if (EXPLICIT_PATH.test(text) || (SITEMAP_NAME.test(text) && !HOST_THEN_PATH.test(text))) throw new UsageError(`no such file: ${text}; ${ACCEPTED_INPUTS}`);
  // `ht!tp://x` has a scheme, just not a valid one: adding https:// in front would only make a stranger URL.
  if (text === '' || /\s/.test(text) || text.includes('://')) throw new UsageError(`not a URL: "${text}"; ${ACCEPTED_INPUTS}`);
  const url = `https://${text}`;
  if (!quiet) io.stderr.write(`crawler-factory: no scheme in "${text}": using ${url}\n`);
  return { url, local: false };
}

/** Every input of a command: arguments in order, `-` replaced by the URLs on stdin (blank and `#` lines skipped). */
export async function* readInputs(args: string[], io: Io, quiet = false): AsyncGenerator<Input> {
  for (const arg of args) {
    if (arg !== '-') {
      yield resolveInput(arg, io, quiet);
      continue;
    }
    for await (const line of createInterface({ input: io.stdin, crlfDelay: Number.POSITIVE_INFINITY })) {
      const trimmed = line.trim();
      if (trimmed !== '' && !trimmed.startsWith('#')) yield resolveInput(trimmed, io, quiet);
    }
  }
}
