import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { build } from 'esbuild';
import type { ContenderName } from './config.js';

/** A contender ready to run with plain `node`, or why it cannot run. */
export type BuiltContender = { name: ContenderName; file: string } | { name: ContenderName; error: string };

// Inside node_modules so the bundles resolve their external packages from the project's node_modules.
const OUT_DIR = join('node_modules', '.cache', 'crawler-factory-bench');

/**
 * Bundles one contender entry into a single ESM file run with plain `node`: no tsx loader in the
 * measured process, so its RSS is the library's, not the TypeScript toolchain's. Packages stay
 * external and load from node_modules exactly as a user's program would load them.
 */
export async function buildContender(root: string, name: ContenderName): Promise<BuiltContender> {
  try {
    return { name, file: await bundleForNode(root, join('bench', 'contenders', `${name}.ts`), name) };
  } catch (cause) {
    return { name, error: cause instanceof Error ? cause.message.split('\n').slice(0, 3).join(' ') : String(cause) };
  }
}

/** Bundles `entry` (a path from `root`) as `buildContender` does, into `<name>.mjs`; returns the file. Throws esbuild's error. */
export async function bundleForNode(root: string, entry: string, name: string): Promise<string> {
  const outfile = join(root, OUT_DIR, `${name}.mjs`);
  await mkdir(join(root, OUT_DIR), { recursive: true });
  await build({
    entryPoints: [join(root, entry)],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    logLevel: 'silent',
  });
  return outfile;
}
