// Builds the package into dist/: JavaScript and declarations of lib/, api/ and cli/ (tsc, one file per module so the
// CLI can load each command lazily), and the console's files in dist/public/ (beside dist/api/, where the compiled
// `serve` looks for them). Run by `npm run build` and by `prepare`, so `npm ci` on a fresh clone builds it.
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
rmSync(new URL('../dist/', import.meta.url), { recursive: true, force: true });
const tsc = require.resolve('typescript/bin/tsc');
const run = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { stdio: 'inherit', cwd: new URL('..', import.meta.url) });
if (run.status !== 0) process.exit(run.status ?? 1);
chmodSync(new URL('../dist/cli/bin.js', import.meta.url), 0o755);
// public/ stays the one source of the console (Vercel serves it as the static output); the package ships a copy.
cpSync(new URL('../public/', import.meta.url), new URL('../dist/public/', import.meta.url), { recursive: true });

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
