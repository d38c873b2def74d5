import { readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { z } from 'zod';
import { ValidatorsSchema, type Validators } from '../lib/index.js';
import { UsageError } from './io.js';

/** The `--validators FILE` of a walk: the sitemaps' validators, versioned so a foreign file is refused, not trusted. */
const ValidatorsFileSchema = z.object({ v: z.literal(1), sitemaps: ValidatorsSchema });

/** The validators a previous walk wrote to `path`, or null when there is no such file yet (a first run). */
export async function readValidatorsFile(path: string): Promise<Validators | null> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new UsageError(`--validators ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const parsed = ValidatorsFileSchema.safeParse(safeJson(text));
  if (!parsed.success) throw new UsageError(`--validators ${path} is not a validators file written by walk (delete it, or run with --full)`);
  return parsed.data.sitemaps;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** Writes the validators atomically (a temp file renamed into place): a reader never sees half a file. */
export async function writeValidatorsFile(path: string, sitemaps: Validators): Promise<void> {
  const temp = join(dirname(path), `.${basename(path)}.tmp-${process.pid}-${Math.random().toString(36).slice(2, 8)}`);
  try {
    await writeFile(temp, `${JSON.stringify({ v: 1, sitemaps })}\n`, { flag: 'wx' });
    await rename(temp, path);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
}
