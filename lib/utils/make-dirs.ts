import { mkdir, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';

/**
 * Makes `path` and its missing parents, one level at a time. Node 20's `mkdir(path, {recursive: true})` never returns
 * under a folder that refuses new entries with ENOENT (it loops on `/proc/x/db`, one core at 100%); made level by
 * level, the first refusal is the errno error naming that level.
 */
export async function makeDirs(path: string, mode?: number): Promise<void> {
  const missing: string[] = [];
  for (let level = resolve(path); ; level = dirname(level)) {
    const found = await stat(level).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return null;
      throw error;
    });
    if (found !== null) {
      if (!found.isDirectory()) throw Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${level}'`), { code: 'ENOTDIR', path: level });
      break;
    }
    missing.unshift(level);
    if (dirname(level) === level) break;
  }
  for (const level of missing) {
    await mkdir(level, mode === undefined ? undefined : { mode }).catch(async (error: NodeJS.ErrnoException) => {
      // Made by another process in between: fine when it is a folder.
      if (error.code !== 'EEXIST' || !(await stat(level)).isDirectory()) throw error;
    });
  }
}
