#!/usr/bin/env node
// The `crawler-factory` executable: compiled to dist/cli/bin.js and run by plain node.
import { readFileSync } from 'node:fs';
import { outputFailureMessage } from './output-failure.js';
import { packageVersion } from './version.js';

/** The top-level help, rendered by the program itself at build time (scripts/build.mjs); null before a build. */
function builtHelp(): string | null {
  try {
    return readFileSync(new URL('./help.txt', import.meta.url), 'utf8');
  } catch {
    return null;
  }
}

// `--version` and the top-level `--help` answer without loading commander and the program: they are what people
// run first, and start-up is most of their cost.
function quickAnswer(args: string[]): string | null {
  const [only, ...rest] = args;
  if (rest.length > 0) return null;
  if (only === '--version' || only === '-V') return `${packageVersion()}\n`;
  if (only === undefined || only === '--help' || only === '-h') return builtHelp();
  return null;
}

// A closed pipe (`crawler-factory walk --help | head`) ends the run quietly: nobody is left to read the rest. Any
// other failure to write (stdout on a full disk) ends it with exit 1 and says so once, as the `output_failed` kind.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
    if (stream === process.stdout) process.stderr.write(`crawler-factory: output_failed: ${outputFailureMessage('stdout', error)}\n`);
    process.exit(1);
  });
}

// The module that runs these arguments: a command's bundle when it has one, else the program's modules.
function entryFor([command, subcommand]: string[]): string {
  if (command === 'walk') return './walk-main.js';
  if (command === 'job' && subcommand === 'run') return './job-main.js';
  return './main.js';
}

// `sync` and `serve` run with their heap sized for the work (cli/sized-heap.ts): its old space in MB, or null (this
// thread's heap) when the user sized V8's heap themselves. From the sources (the tsx launcher of tests and
// development) they run in this thread: a worker would start without tsx.
async function sizedHeapMb([command, ...rest]: string[]): Promise<number | null> {
  if (command !== 'sync' && command !== 'serve') return null;
  if (rest.includes('--help') || rest.includes('-h') || import.meta.url.endsWith('.ts')) return null;
  const sized = await import('./sized-heap.js');
  return sized.heapSizedByUser() ? null : sized.SIZED_HEAP_MB[command];
}

const args = process.argv.slice(2);
const quick = quickAnswer(args);
const heapMb = quick === null ? await sizedHeapMb(args) : null;
if (quick !== null) process.stdout.write(quick);
else if (heapMb !== null) process.exitCode = await (await import('./sized-heap.js')).runInSizedHeap(args, heapMb);
// `walk` and `job run` load their bundles (the program with the command's whole code path in one file,
// scripts/build.mjs), anything else the modules one by one; all are the same program.
else process.exitCode = await (await import(entryFor(args))).main(args);
