import type { Readable, Writable } from 'node:stream';

/** The streams and environment one CLI run uses: the process's own, or captured ones in tests. */
export interface Io {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
  env: NodeJS.ProcessEnv;
  /** Whether stderr is a terminal: progress and the summary line are shown by default there. */
  stderrIsTTY: boolean;
}

/** The process's own streams. */
export function processIo(): Io {
  return { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: process.env, stderrIsTTY: process.stderr.isTTY === true };
}

/** A usage error: the CLI prints it and exits 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}
