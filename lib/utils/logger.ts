import pino, { type Logger } from 'pino';

/** Where log lines go: stdout in the serverless functions, stderr in the CLI (whose stdout carries data). */
export type LogTarget = 'stdout' | 'stderr';

// Both destinations are synchronous so a function cut off at its time limit loses no log line.
const destinations = {
  stdout: pino.destination({ dest: 1, sync: true }),
  stderr: pino.destination({ dest: 2, sync: true }),
};
let target: LogTarget = 'stdout';

// Root logger writes through a switchable stream: module loggers are created at import time,
// before the CLI has had a chance to say that stdout is for data.
const root = pino(
  { level: process.env.LOG_LEVEL ?? 'info', base: undefined },
  { write: (line: string) => destinations[target].write(line) },
);

/** The logger of one module, named like `factory:sitemap`; events as `log.info({ event, url, ... }, 'message')`. */
export function createLogger(module: string): Logger {
  return root.child({ module });
}

/** Sends every logger's output to stdout or stderr from now on. */
export function sendLogsTo(next: LogTarget): void {
  target = next;
}

/** Changes the level of every logger (`silent`, `error`, `warn`, `info`, `debug`). */
export function setLogLevel(level: string): void {
  root.level = level;
}

export type { Logger };
