import { parseArgs, type ParseArgsConfig } from 'node:util';
import { z } from 'zod';
import { parseResolveEntry, type NetPolicy, type WalkOptionsInput } from '../lib/factory/limits.js';

/** A usage error: the CLI prints it with the usage and exits 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** Flags every command takes: network policy, limits, output and logging. */
export const COMMON_FLAGS = {
  'allow-private': { type: 'boolean', default: false },
  'allow-host': { type: 'string', multiple: true, default: [] },
  resolve: { type: 'string', multiple: true, default: [] },
  timeout: { type: 'string' },
  concurrency: { type: 'string' },
  'max-depth': { type: 'string' },
  'max-urls': { type: 'string' },
  'user-agent': { type: 'string' },
  ndjson: { type: 'boolean', default: false },
  progress: { type: 'boolean', default: false },
  verbose: { type: 'boolean', short: 'v', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const satisfies ParseArgsConfig['options'];

type Options = NonNullable<ParseArgsConfig['options']>;

/** Parses a command's arguments strictly: an unknown flag or a missing value is a UsageError. */
export function parseCommandArgs<O extends Options>(args: string[], extra: O) {
  try {
    return parseArgs({ args, options: { ...COMMON_FLAGS, ...extra }, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

/** A whole number flag (`--concurrency 4`), or undefined when absent. */
export function intFlag(name: string, value: string | undefined, min = 0, max = Number.MAX_SAFE_INTEGER): number | undefined {
  if (value === undefined) return undefined;
  const parsed = z.coerce.number().int().min(min).max(max).safeParse(value.trim() === '' ? Number.NaN : value);
  if (!parsed.success) throw new UsageError(`--${name} takes a whole number in ${min}..${max}, not "${value}"`);
  return parsed.data;
}

/** A `--resolve HOST:PORT:ADDR` flag, or a UsageError naming it. */
function resolveFlag(entry: string): NetPolicy['resolve'][number] {
  const parsed = parseResolveEntry(entry);
  if (parsed === null) throw new UsageError(`--resolve takes HOST:PORT:ADDR with a port up to 65535 and an IP address, not "${entry}"`);
  return parsed;
}

/** The network policy from flags and, for the server, from FACTORY_ALLOW_HOSTS / FACTORY_RESOLVE. */
export function netPolicyFrom(flags: { 'allow-private'?: boolean; 'allow-host'?: string[]; resolve?: string[] }): NetPolicy {
  return {
    allowPrivate: flags['allow-private'] ?? false,
    allowHosts: (flags['allow-host'] ?? []).map((host) => host.trim().toLowerCase()).filter(Boolean),
    resolve: (flags.resolve ?? []).map(resolveFlag),
  };
}

/** Walk options from the common flags. */
export function walkOptionsFrom(values: Record<string, unknown>): WalkOptionsInput {
  const str = (key: string) => (typeof values[key] === 'string' ? (values[key] as string) : undefined);
  const list = (key: string) => (Array.isArray(values[key]) ? (values[key] as string[]) : []);
  const options: WalkOptionsInput = {
    net: netPolicyFrom({ 'allow-private': values['allow-private'] === true, 'allow-host': list('allow-host'), resolve: list('resolve') }),
  };
  const timeout = intFlag('timeout', str('timeout'), 1);
  const concurrency = intFlag('concurrency', str('concurrency'), 1);
  const maxDepth = intFlag('max-depth', str('max-depth'), 0);
  const maxUrls = intFlag('max-urls', str('max-urls'), 1);
  if (timeout !== undefined) Object.assign(options, { timeoutMs: timeout, robotsTimeoutMs: timeout });
  if (concurrency !== undefined) options.concurrency = Math.min(concurrency, 64);
  if (maxDepth !== undefined) options.maxDepth = maxDepth;
  if (maxUrls !== undefined) options.maxUrls = maxUrls;
  if (str('user-agent')) options.userAgent = str('user-agent');
  return options;
}

/** The one positional argument a command needs, or a UsageError naming it. */
export function requirePositional(positionals: string[], name: string): string {
  if (positionals.length !== 1 || !positionals[0]) throw new UsageError(`expected exactly one <${name}>`);
  return positionals[0];
}
