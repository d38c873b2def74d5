import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';

/**
 * The settings a CLI run started with, kept beside it so `--resume ID` runs as the run began: a resume without
 * `--allow-private` would otherwise refuse every loopback sitemap and (a sync) remove what it could not read.
 * Kept locally in `.crawler-factory/runs/<id>.json`, mode 0600: the flags may carry headers and cookies.
 */
export const RUNS_DIR = join('.crawler-factory', 'runs');

/** A flag's value as commander hands it over. */
const FlagValueSchema = z.union([z.string(), z.boolean(), z.array(z.string())]);
type FlagValue = z.infer<typeof FlagValueSchema>;

/** Flag values by commander's camelCase name (`allowPrivate`). */
export type RunFlags = Record<string, FlagValue>;

const RunSettingsSchema = z
  .object({
    command: z.enum(['sync', 'job run']),
    id: z.string().min(1),
    savedAt: z.string(),
    flags: z.record(z.string(), FlagValueSchema),
  })
  .strict();
export type RunSettings = z.infer<typeof RunSettingsSchema>;

/** Ids are random URL-safe strings (validated before this); the check keeps a path out of the file name anyway. */
const SAFE_ID = /^[A-Za-z0-9_-]{1,100}$/;

function settingsPath(id: string, cwd: string): string {
  if (!SAFE_ID.test(id)) throw new Error(`not a run id: ${id}`);
  return join(cwd, RUNS_DIR, `${id}.json`);
}

/** The flags among `keys` that were given (undefined and false are "not given"). */
export function pickFlags(flags: object, keys: readonly string[]): RunFlags {
  const picked: RunFlags = {};
  for (const key of keys) {
    const value = (flags as Record<string, unknown>)[key];
    const parsed = FlagValueSchema.safeParse(value);
    if (parsed.success && parsed.data !== false && !(Array.isArray(parsed.data) && parsed.data.length === 0)) picked[key] = parsed.data;
  }
  return picked;
}

/** Writes the settings of run `id` atomically (temp file, then rename) with mode 0600. */
export async function saveRunSettings(settings: Omit<RunSettings, 'savedAt'>, cwd = process.cwd()): Promise<void> {
  const path = settingsPath(settings.id, cwd);
  await mkdir(join(cwd, RUNS_DIR), { recursive: true, mode: 0o700 });
  const temp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  const file = await open(temp, 'wx', 0o600);
  try {
    await file.writeFile(`${JSON.stringify({ ...settings, savedAt: new Date().toISOString() }, null, 2)}\n`);
    await file.sync();
  } finally {
    await file.close();
  }
  await rename(temp, path);
}

/** The stored settings of run `id`, or null when there are none (another machine or folder) or they are unreadable. */
export async function loadRunSettings(id: string, cwd = process.cwd()): Promise<RunSettings | null> {
  let text: string;
  try {
    text = await readFile(settingsPath(id, cwd), 'utf8');
  } catch {
    return null;
  }
  try {
    const parsed = RunSettingsSchema.safeParse(JSON.parse(text));
    return parsed.success && parsed.data.id === id ? parsed.data : null;
  } catch {
    return null;
  }
}

/** Forgets the settings of a run that has ended (they may hold a cookie: not kept longer than needed). */
export async function forgetRunSettings(id: string, cwd = process.cwd()): Promise<void> {
  await rm(settingsPath(id, cwd), { force: true });
}

/** `allowPrivate` -> `--allow-private`. */
function flagName(key: string): string {
  return `--${key.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}`;
}

/** Flags whose values may be secrets (a session cookie, a token header, proxy credentials): named, never printed. */
const SECRET_FLAGS = new Set(['header', 'cookie', 'proxy']);

/** A store or database URL keeps its password out of stderr. */
function withoutPassword(text: string): string {
  try {
    const url = new URL(text);
    if (url.password === '') return text;
    url.password = '***';
    return url.href;
  } catch {
    return text;
  }
}

function shown(value: FlagValue, key = ''): string {
  if (SECRET_FLAGS.has(key)) return '(hidden)';
  if (value === true) return 'on';
  return (Array.isArray(value) ? value : [String(value)]).map(withoutPassword).join(' ');
}

function same(a: FlagValue, b: FlagValue): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * The flags a resume runs with: the stored run's, each overridden by the same flag given again (said in `notes`).
 * `keys` are the settings this command keeps; other flags pass through as given.
 */
export function resumeFlags<T extends object>(given: T, stored: RunSettings | null, keys: readonly string[], id: string): { flags: T; notes: string[] } {
  if (stored === null)
    return { flags: given, notes: [`resume: no stored settings for ${id} in ${RUNS_DIR} (another machine or folder?): running with the flags given`] };
  const now = pickFlags(given, keys);
  const merged: Record<string, unknown> = { ...(given as Record<string, unknown>) };
  const notes: string[] = [];
  const kept: string[] = [];
  for (const key of keys) {
    const before = stored.flags[key];
    const after = now[key];
    if (before === undefined) continue;
    if (after === undefined) {
      merged[key] = before;
      kept.push(before === true ? flagName(key) : `${flagName(key)} ${shown(before, key)}`);
    } else if (!same(before, after)) {
      notes.push(`resume: ${flagName(key)} ${shown(after, key)} overrides the run's ${shown(before, key)}`);
    }
  }
  if (kept.length > 0) notes.unshift(`resume: with the run's ${kept.join(', ')}`);
  return { flags: merged as T, notes };
}

/**
 * Notes for flags given on a resume that cannot apply: settings the run itself keeps (a job's limits, headers and
 * filters are stored with the job when it is created, and every slice reads them from there).
 */
export function fixedOnResume(given: object, stored: RunSettings | null, keys: readonly string[], owner: string): string[] {
  const now = pickFlags(given, keys);
  const notes: string[] = [];
  for (const key of keys) {
    const after = now[key];
    const before = stored?.flags[key];
    if (after === undefined || (before !== undefined && same(before, after))) continue;
    const was = before === undefined ? 'what it was created with' : `the run's ${shown(before, key)}`;
    notes.push(`resume: ${flagName(key)} ${shown(after, key)} is not applied: ${owner} keeps ${was}`);
  }
  return notes;
}
