import { spawn } from 'node:child_process';
import { PassThrough, Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { main } from '../../cli/main.js';

const BIN = fileURLToPath(new URL('../../bin/crawler-factory.mjs', import.meta.url));
/** The built executable (`npm run build`): what users run, plain node without the tsx launcher. */
export const BUILT_BIN = fileURLToPath(new URL('../../dist/cli/bin.js', import.meta.url));

/** What one CLI run printed and how it exited. */
export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Options of an in-process run: text on stdin, extra environment, whether stderr claims to be a terminal. */
export interface MainOptions {
  stdin?: string;
  env?: NodeJS.ProcessEnv;
  tty?: boolean;
}

function capture(): { stream: PassThrough; text: () => string } {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
  return { stream, text: () => text };
}

/** Runs the CLI in this process (fast: no start-up, no TypeScript compile) with captured streams. */
export async function runMain(args: string[], options: MainOptions = {}): Promise<CliRun> {
  const stdout = capture();
  const stderr = capture();
  const io = {
    stdin: Readable.from(options.stdin === undefined ? [] : [options.stdin]),
    stdout: stdout.stream,
    stderr: stderr.stream,
    env: { ...process.env, ...options.env },
    stderrIsTTY: options.tty === true,
  };
  const code = await main(args, io);
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

/** Runs `crawler-factory ...args` as a real child process (no TTY), with a hard time limit; `bin` defaults to the tsx launcher. */
export function runCli(args: string[], env: NodeJS.ProcessEnv = {}, timeoutMs = 60_000, bin = BIN): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { env: { ...process.env, LOG_LEVEL: 'warn', ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Parses NDJSON output into objects. */
export function ndjson(text: string): Array<Record<string, unknown>> {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}
