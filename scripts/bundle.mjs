#!/usr/bin/env node
// Bundles every api/ handler into one self-contained ESM file for deployment anywhere Node 20+ runs:
//   node scripts/bundle.mjs [--outdir dist/api]
// api/factory/discover.ts -> dist/api/factory/discover.mjs, exporting the same GET/POST web handlers.
// Everything (zod, pino, redis, @upstash/redis, undici, htmlparser2) is bundled, so a bundle needs no node_modules.
// Bundling pino is safe because lib/utils/logger.ts writes through pino.destination({ sync: true }): pino's
// worker-thread transports (thread-stream), the part that loads files by path at run time, are never started.
import { build } from 'esbuild';
import { readdir, rm, stat } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

// CommonJS dependencies (pino, redis) call require() on Node built-ins, which an ESM bundle has no way to do
// unless it brings its own require; __dirname/__filename keep CJS code that reads them from throwing.
const BANNER = [
  "import { createRequire as __cfCreateRequire } from 'node:module';",
  "import { fileURLToPath as __cfFileURLToPath } from 'node:url';",
  'const require = __cfCreateRequire(import.meta.url);',
  'const __filename = __cfFileURLToPath(import.meta.url);',
  "const __dirname = __cfFileURLToPath(new URL('.', import.meta.url));",
].join('\n');

/** Vercel's rule, as lib/service/api-routes.ts applies it: a `_`-prefixed (or `__tests__`) segment is never a route. */
function isRouteFile(path) {
  return path.endsWith('.ts') && !path.endsWith('.d.ts') && path.split(sep).every((segment) => !segment.startsWith('_'));
}

/** The handler files under api/, relative to the repository root. */
export async function listHandlerFiles(apiDir = join(ROOT, 'api')) {
  const entries = await readdir(apiDir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => relative(apiDir, join(entry.parentPath, entry.name)))
    .filter(isRouteFile)
    .sort()
    .map((file) => join('api', file));
}

/** Bundles each handler into `outDir` (mirroring api/'s tree, `.mjs`); returns the files written with their sizes. */
export async function bundleApi({ outDir = join(ROOT, 'dist', 'api') } = {}) {
  const handlers = await listHandlerFiles();
  await rm(outDir, { recursive: true, force: true });
  await build({
    absWorkingDir: ROOT,
    entryPoints: handlers,
    outdir: outDir,
    outbase: 'api',
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    banner: { js: BANNER },
    sourcemap: 'linked',
    legalComments: 'linked',
    logLevel: 'warning',
  });
  const outputs = handlers.map((file) => join(outDir, `${relative('api', file).slice(0, -3)}.mjs`));
  return Promise.all(outputs.map(async (file) => ({ file, bytes: (await stat(file)).size })));
}

async function main() {
  const { values } = parseArgs({ options: { outdir: { type: 'string' } } });
  const outDir = resolve(values.outdir ?? join(ROOT, 'dist', 'api'));
  for (const { file, bytes } of await bundleApi({ outDir })) {
    process.stdout.write(`${relative(process.cwd(), file)}  ${(bytes / 1024).toFixed(0)} KiB\n`);
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error) => {
    process.stderr.write(`bundle failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
