import { Worker } from 'node:worker_threads';

/**
 * V8's old space, in MB, of each command that runs in a sized heap. Below V8's smallest "large heap" size (256 MB) its
 * heap grows by at most 1.3x its live set between full collections, up to 1.4x at 512 MB, against 4x by default.
 */
export const SIZED_HEAP_MB = {
  /**
   * A 1M-URL sync into PGlite reads its site in ~8 s, and at full speed V8 otherwise lets 150-190 MB of garbage pile
   * up on a live heap of ~45 MB (maxRSS 422,388-465,804 KB in the main thread, 337,700-358,312 KB with this alone).
   * The sync's live set is bounded (shards wait on disk, not in the heap), so this is five times what it holds.
   */
  sync: 256,
  /**
   * A server drives several syncs at once (four slices on Postgres) and answers requests beside them: twice a sync's
   * room, for nearly the same growth.
   */
  serve: 512,
} as const;

/**
 * V8's young generation in a sized heap, in MB (two semi-spaces of 2 MB and their copy reserve, against 16 MB
 * semi-spaces by default): the readers' short-lived strings die as young with less kept resident. The 1M-URL sync:
 * maxRSS 287,632-301,980 KB with it, 337,700-358,312 KB without, at the same wall time (1:54-2:17 against 1:57-2:19).
 */
export const SIZED_YOUNG_MB = 6;

/** True when the user sized V8's heap themselves (a `--max-old-space-size` flag or NODE_OPTIONS): theirs is kept. */
export function heapSizedByUser(): boolean {
  const given = [...process.execArgv, process.env.NODE_OPTIONS ?? ''].join(' ');
  return /--max-old-space-size\b/.test(given);
}

/**
 * Runs the CLI with `args` in a worker thread whose old space is `heapMb` and young generation SIZED_YOUNG_MB, the one
 * heap V8 lets a program size after start: the same process (one PID, one maxRSS), the same streams (the worker's are
 * piped to this one's) and environment. SIGINT and SIGTERM are handed to the worker, whose command stops as it would
 * on its own. The exit code is the command's; a worker that ran out of its heap says so and how to give it more.
 */
export function runInSizedHeap(args: string[], heapMb: number): Promise<number> {
  const worker = new Worker(new URL('./sized-heap-main.js', import.meta.url), {
    workerData: { args, stderrIsTTY: process.stderr.isTTY === true },
    resourceLimits: { maxOldGenerationSizeMb: heapMb, maxYoungGenerationSizeMb: SIZED_YOUNG_MB },
  });
  const forward = (signal: NodeJS.Signals) => worker.postMessage({ signal });
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);
  return new Promise((resolve) => {
    // The command's exit code, posted when it returned; 1 when the worker failed instead.
    let code: number | null = null;
    worker.on('message', (ended: { code: number }) => (code = ended.code));
    worker.on('error', (error: Error & { code?: string }) => {
      const outOfHeap = error.code === 'ERR_WORKER_OUT_OF_MEMORY';
      const advice = outOfHeap
        ? `the command needed more than its ${heapMb} MB heap: run it again with NODE_OPTIONS=--max-old-space-size=1024 (a sync goes on with --resume <syncId>)`
        : `internal: ${error.message}`;
      process.stderr.write(`crawler-factory: ${advice}\n`);
      code = 1;
    });
    worker.on('exit', (exitCode) => {
      process.off('SIGINT', forward);
      process.off('SIGTERM', forward);
      resolve(code ?? exitCode);
    });
  });
}
