import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { markedJson, READY_MARKER, RESULT_MARKER, type ContenderResult, type TreeReady } from './protocol.js';
import type { Scenario } from './config.js';

/** The tree server child process, warm and listening. */
export interface TreeProcess {
  ready: TreeReady;
  stop(): Promise<void>;
}

/** One contender run as the harness saw it. */
export type RunOutcome =
  | { ok: true; result: ContenderResult; processMs: number; /** The contender's last stderr lines: why URLs went missing. */ notes: string }
  | { ok: false; error: string };

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode);
    child.once('exit', (code) => resolve(code));
  });
}

function waitForReady(child: ChildProcess): Promise<TreeReady> {
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const ready = markedJson(output, READY_MARKER);
      if (ready !== null) resolve(ready as TreeReady);
    });
    child.once('exit', (code) => reject(new Error(`tree server exited early (code ${code})`)));
  });
}

/** Starts the benchmark tree in its own process (tsx is fine there: its memory is not measured). */
export async function startTreeProcess(root: string, scenario: Scenario): Promise<TreeProcess> {
  const args = [
    join(root, 'bin', 'run-ts.mjs'),
    join(root, 'bench', 'serve-tree.ts'),
    '--children',
    String(scenario.children),
    '--per-child',
    String(scenario.perChild),
    '--wire',
    scenario.wire,
    ...(scenario.amp === true ? ['--amp'] : []),
  ];
  const child = spawn(process.execPath, args, { cwd: root, env: { ...process.env, LOG_LEVEL: 'warn' }, stdio: ['ignore', 'pipe', 'inherit'] });
  const ready = await waitForReady(child);
  return {
    ready,
    stop: async () => {
      child.kill('SIGTERM');
      await exited(child);
    },
  };
}

function collect(child: ChildProcess): { stdout: () => string; stderr: () => string } {
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  // Only the tail matters for a failure report; peers can be chatty.
  child.stderr?.on('data', (chunk: Buffer) => (err = (err + chunk.toString()).slice(-4_000)));
  return { stdout: () => out, stderr: () => err };
}

/** Runs one bundled contender against `url` in a fresh plain-node process and reads its result line. */
export async function runContender(file: string, url: string, timeoutMs: number): Promise<RunOutcome> {
  const started = performance.now();
  const child = spawn(process.execPath, [file, url], { env: { ...process.env, LOG_LEVEL: 'silent' }, stdio: ['ignore', 'pipe', 'pipe'] });
  const output = collect(child);
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const code = await exited(child);
  clearTimeout(timer);
  const result = markedJson(output.stdout(), RESULT_MARKER) as ContenderResult | null;
  const notes = output.stderr().trim().split('\n').slice(-3).join(' | ');
  if (code === 0 && result) return { ok: true, result, processMs: performance.now() - started, notes };
  const why = child.signalCode === 'SIGKILL' ? `killed after ${timeoutMs} ms` : `exit code ${code}`;
  return { ok: false, error: `${why}: ${notes}` };
}

/** Runs `node ARGS` in `root` and reads the JSON objects it prints one a line on stdout (its stderr goes to ours). */
export async function jsonLinesOf<T>(root: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<T[]> {
  const child = spawn(process.execPath, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  await once(child, 'close');
  return out
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as T);
}
