import pino, { type Logger } from 'pino';

/** Where log lines go: stderr by default and in the CLI (whose stdout carries data), stdout in the functions. */
export type LogTarget = 'stdout' | 'stderr';

/** Any pino-compatible logger (pino itself, or an object with these level methods) a library caller hands in. */
export interface LoggerLike {
  level?: string;
  error(object: object, message?: string): void;
  warn(object: object, message?: string): void;
  info(object: object, message?: string): void;
  debug(object: object, message?: string): void;
}

// Both destinations are synchronous so a function cut off at its time limit loses no log line.
const destinations = {
  stdout: pino.destination({ dest: 1, sync: true }),
  stderr: pino.destination({ dest: 2, sync: true }),
};
let target: LogTarget = 'stderr';
let sink: LoggerLike | null = null;

const LEVEL_NAMES: Readonly<Record<number, 'error' | 'warn' | 'info' | 'debug'>> = {
  60: 'error',
  50: 'error',
  40: 'warn',
  30: 'info',
  20: 'debug',
  10: 'debug',
};

// A line for a caller's logger: parsed back into its object and message, and handed to the method of its level.
function forward(logger: LoggerLike, line: string): void {
  const { level, msg, ...fields } = JSON.parse(line) as { level: number; msg?: string } & Record<string, unknown>;
  logger[LEVEL_NAMES[level] ?? 'info'](fields, msg);
}

// Root logger writes through a switchable stream: module loggers are created at import time, before a CLI or a
// library caller has said where logs go. The library is silent unless its caller hands it a logger or sets a level;
// FACTORY_LOG_LEVEL is read by the edges (the CLI, the functions), never here at import time.
const root = pino({ level: 'silent', base: undefined }, { write: (line: string) => (sink === null ? destinations[target].write(line) : forward(sink, line)) });

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

/**
 * Sends the library's logs to a caller's pino-compatible logger (at its level, else `info`) from now on, process
 * wide; `null` goes back to the default (silent).
 */
export function useLogger(logger: LoggerLike | null): void {
  sink = logger;
  root.level = logger === null ? 'silent' : typeof logger.level === 'string' ? logger.level : 'info';
}

export type { Logger };
