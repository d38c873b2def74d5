/** What one contender run reports to the harness, on one marked stdout line. */
export interface ContenderResult {
  urls: number;
  errors: number;
  /** Wall time of the walk alone, from the first request to the last URL (module loading excluded). */
  walkMs: number;
  /** Peak resident set of the whole process, in KiB (`process.resourceUsage().maxRSS`). */
  maxRssKiB: number;
}

/** Marks the contender's result line: libraries may print their own lines to stdout. */
export const RESULT_MARKER = 'BENCH_RESULT ';

/** Marks the tree server's line saying it is warm and listening. */
export const READY_MARKER = 'BENCH_READY ';

/** What the tree server announces. */
export interface TreeReady {
  indexUrl: string;
  expectedUrls: number;
  cachedChildren: number;
  /** Uncompressed XML bytes of all children: the input every contender reads (MB/s is over this). */
  xmlBytes: number;
}

/** The JSON after `marker` on the last line of `output` that carries it, or null. */
export function markedJson(output: string, marker: string): unknown {
  const line = output
    .split('\n')
    .reverse()
    .find((l) => l.startsWith(marker));
  return line === undefined ? null : (JSON.parse(line.slice(marker.length)) as unknown);
}
