import { RESULT_MARKER, type ContenderResult } from '../harness/protocol.js';

/** The sitemap URL the harness passes as the first argument. */
export function targetUrl(): string {
  const url = process.argv[2];
  if (!url) throw new Error('usage: node contender.mjs <sitemap-url>');
  return url;
}

/** Prints the result line; peak RSS is read here, at the very end, so it covers the whole walk. */
export function emitResult(result: Omit<ContenderResult, 'maxRssKiB'>): void {
  const line: ContenderResult = { ...result, maxRssKiB: process.resourceUsage().maxRSS };
  process.stdout.write(`${RESULT_MARKER}${JSON.stringify(line)}\n`);
}
