// Builds the package into dist/: JavaScript and declarations of lib/, api/ and cli/ (tsc, one file per module so the
// CLI can load each command lazily), and the console's files in dist/public/ (beside dist/api/, where the compiled
// `serve` looks for them). Run by `npm run build` and by `prepare`, so `npm ci` on a fresh clone builds it.
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
rmSync(new URL('../dist/', import.meta.url), { recursive: true, force: true });
const tsc = require.resolve('typescript/bin/tsc');
const run = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { stdio: 'inherit', cwd: new URL('..', import.meta.url) });
if (run.status !== 0) process.exit(run.status ?? 1);
chmodSync(new URL('../dist/cli/bin.js', import.meta.url), 0o755);
// public/ stays the one source of the console (Vercel serves it as the static output); the package ships a copy.
cpSync(new URL('../public/', import.meta.url), new URL('../dist/public/', import.meta.url), { recursive: true });

// `walk`'s and `job run`'s bundles: cli/walk-main.ts (cli/job-main.ts) and everything it reaches (lib/, zod, undici,
// pino, redis, ...) in one ESM file over tsc's one, which cli/bin.js loads for that command. The other commands'
// modules stay outside (imported from dist/cli/commands/ as before), so each bundle holds its command's path only.
// pino is safe to bundle: the logger writes through pino.destination (sync), never a worker-thread transport loaded
// by path (the same reasoning as scripts/bundle.mjs).
const { build } = await import('esbuild');
const otherCommandsThan = (own) => ({
  name: 'other-commands-outside',
  setup(plugin) {
    // Go regular expressions have no lookahead: the own command is told apart in the callback (undefined: bundled).
    plugin.onResolve({ filter: /^\.\/commands\/[\w-]+\.js$/ }, (args) => (args.path === own ? undefined : { path: args.path, external: true }));
  },
});
for (const [entry, own] of [
  ['walk-main', './commands/walk.js'],
  ['job-main', './commands/job-run.js'],
]) {
  await build({
    absWorkingDir: fileURLToPath(new URL('..', import.meta.url)),
    entryPoints: [`cli/${entry}.ts`],
    outfile: `dist/cli/${entry}.js`,
    allowOverwrite: true,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    plugins: [otherCommandsThan(own)],
    banner: {
      js: [
        "import { createRequire as __cfCreateRequire } from 'node:module';",
        "import { fileURLToPath as __cfFileURLToPath } from 'node:url';",
        'const require = __cfCreateRequire(import.meta.url);',
        'const __filename = __cfFileURLToPath(import.meta.url);',
        "const __dirname = __cfFileURLToPath(new URL('.', import.meta.url));",
      ].join('\n'),
    },
    // Less text to parse at start-up; names are kept (error names and stack traces read as in the modules).
    minifyWhitespace: true,
    minifySyntax: true,
    legalComments: 'eof',
    logLevel: 'warning',
  });
}

// The top-level help, rendered once by the program itself, so `crawler-factory --help` need not load it (cli/bin.ts).
const { PassThrough, Readable } = await import('node:stream');
const { writeFileSync } = await import('node:fs');
const { main } = await import('../dist/cli/main.js');
const stdout = new PassThrough();
let help = '';
stdout.on('data', (chunk) => (help += chunk.toString()));
const io = { stdin: Readable.from([]), stdout, stderr: new PassThrough(), env: process.env, stderrIsTTY: false };
if ((await main(['--help'], io)) !== 0 || help === '') throw new Error('build: rendering the help failed');
writeFileSync(new URL('../dist/cli/help.txt', import.meta.url), help);

// The fresh PGlite database a new inventory folder is unpacked from (dist/pglite/), so its first open costs about 2 s
// and 340 MB instead of initdb's tens of seconds and 750 MB (lib/inventory/pglite-initdb.ts).
const { writePgliteTemplate } = await import('../dist/lib/inventory/pglite-initdb.js');
const { PGLITE_START_PARAMS } = await import('../dist/lib/inventory/pglite-db.js');
await writePgliteTemplate(PGLITE_START_PARAMS);
