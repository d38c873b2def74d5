// `crawler-factory serve` as a real child process on a chosen port, for tests that talk to it like curl does.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

const SOURCE_BIN = fileURLToPath(new URL('../../../bin/crawler-factory.mjs', import.meta.url));
/** The compiled executable `npm ci` / `npm run build` makes, as the package installs it (plain node, no tsx). */
export const BUILT_BIN = fileURLToPath(new URL('../../../dist/cli/bin.js', import.meta.url));
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * Fails when a source the build compiles or copies (lib/, api/, cli/, public/; tests aside) changed after the last
 * build: a test of the built bin would otherwise pass or fail on yesterday's code. The build writes help.txt last.
 */
export function assertBuildCurrent(): void {
  const built = statSync(join(ROOT, 'dist/cli/help.txt'), { throwIfNoEntry: false })?.mtimeMs ?? 0;
  const stale = ['lib', 'api', 'cli', 'public'].flatMap((dir) =>
    readdirSync(join(ROOT, dir), { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile() && !join(entry.parentPath, entry.name).includes('__tests__'))
      .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)))
      .filter((file) => statSync(join(ROOT, file)).mtimeMs > built),
  );
  if (stale.length > 0) throw new Error(`dist/ is older than ${stale.slice(0, 3).join(', ')}${stale.length > 3 ? ', ...' : ''}: run npm run build`);
}

/** A running `serve`: where it listens, what it printed, and how to stop or kill it. */
export interface ServeProcess {
  origin: string;
  child: ChildProcess;
  stderr(): string;
  /** Sends `signal` (SIGTERM: a clean stop; SIGKILL: a crash) and resolves with the exit code once it is gone. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** The environment of the child: ours, minus the service's variables unless the test sets them. */
function childEnv(env: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'warn' };
  for (const name of ['FACTORY_API_TOKEN', 'VERCEL', 'REDIS_URL', 'UPSTASH_REDIS_REST_URL', 'UPSTASH_REDIS_REST_TOKEN', 'FACTORY_ALLOW_HOSTS'])
    delete base[name];
  return { ...base, ...env };
}

// Resolves with the origin once serve prints "serving ... on http://..."; rejects if it exits or stalls first.
function waitListening(child: ChildProcess, output: { text: string }, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start in ${timeoutMs} ms: ${output.text}`)), timeoutMs);
    child.stderr?.on('data', () => {
      const match = / on (http:\/\/\S+)/.exec(output.text);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.once('exit', (code) => (clearTimeout(timer), reject(new Error(`serve exited (${code}): ${output.text}`))));
  });
}

/** How to start serve: the port, the environment, extra flags; `bin` (default: the source launcher) and `cwd` to run it from. */
export interface ServeOptions {
  port: number;
  env: Record<string, string | undefined>;
  args?: string[];
  bin?: string;
  cwd?: string;
}

/** Starts `crawler-factory serve --port <port>` with `env` and waits until it accepts requests. */
export async function startServe(options: ServeOptions): Promise<ServeProcess> {
  if (options.bin === BUILT_BIN) assertBuildCurrent();
  const args = [options.bin ?? SOURCE_BIN, 'serve', '--port', String(options.port), ...(options.args ?? [])];
  const child = spawn(process.execPath, args, { env: childEnv(options.env), stdio: ['ignore', 'pipe', 'pipe'], ...(options.cwd ? { cwd: options.cwd } : {}) });
  const output = { text: '' };
  child.stdout.on('data', (chunk: Buffer) => (output.text += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output.text += chunk.toString()));
  // Generous: the source launcher compiles TypeScript at start (tsx), which takes 20 s and more on a loaded 2-core machine.
  const origin = await waitListening(child, output, 90_000);
  return {
    origin,
    child,
    stderr: () => output.text,
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      const exited = once(child, 'exit');
      child.kill(signal);
      const [code] = (await exited) as [number | null];
      return code;
    },
  };
}

/**
 * Polls `GET /api/factory/sites/{siteId}/syncs/{syncId}` on a running server until the sync is no longer `running`, or
 * `timeoutMs` passed: the last body read (still `running` on a timeout, which the caller's assertion then shows).
 */
export async function syncWhenEnded<T extends { state: string }>(origin: string, siteId: string, syncId: string, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const sync = (await (await fetch(`${origin}/api/factory/sites/${siteId}/syncs/${syncId}`)).json()) as T;
    if (sync.state !== 'running' || Date.now() > deadline) return sync;
    await sleep(250);
  }
}

/** `POST {origin}/api/factory/sites{path}` with a JSON body, as the console and curl --json send it. */
export function postSites(origin: string, path: string, body: unknown): Promise<Response> {
  return fetch(`${origin}/api/factory/sites${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}
