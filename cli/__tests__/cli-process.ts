// Real `crawler-factory` processes (the built bin, dist/cli/bin.js: run `npm run build` first) and a slow sitemap
// site, for the tests of locks, signals and resumes: things only a real process, a real kill and a real exit show.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { startLoopbackServer, type LoopbackServer } from '../../lib/demo/loopback-server.js';
import { indexOf, pagesOf, slowUrlset } from '../../lib/factory/jobs/__tests__/small-sites.js';

const BIN = fileURLToPath(new URL('../../dist/cli/bin.js', import.meta.url));

/** A running CLI process: its output so far, its end, and a wait for a line on stderr. */
/** The final sync row `sync` prints on stdout, as far as the tests read it. */
export interface SyncRow {
  syncId: string;
  state: string;
  seen: number;
  new: number;
  removed: number;
  errors: Record<string, number>;
}

export interface CliProcess {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Exit code (null when killed) and signal. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; ms: number }>;
  /** Resolves with the first match of `pattern` on stderr; rejects after `timeoutMs` or if the process ends first. */
  waitForStderr(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
}

/** Starts `node dist/cli/bin.js ...args` in `cwd` with `env` added (LOG_LEVEL warn). */
export function startCli(args: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): CliProcess {
  const started = Date.now();
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: options.cwd,
    env: { ...process.env, LOG_LEVEL: 'warn', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = once(child, 'close').then(([code, signal]) => ({
    code: code as number | null,
    signal: signal as NodeJS.Signals | null,
    ms: Date.now() - started,
  }));
  const waitForStderr = (pattern: RegExp, timeoutMs = 120_000) =>
    new Promise<RegExpMatchArray>((resolve, reject) => {
      const check = () => {
        const match = stderr.match(pattern);
        if (match) return finish(() => resolve(match));
      };
      const timer = setTimeout(() => finish(() => reject(new Error(`no ${pattern} on stderr within ${timeoutMs} ms: ${stderr.slice(-800)}`))), timeoutMs);
      const ended = () =>
        finish(() =>
          stderr.match(pattern)
            ? resolve(stderr.match(pattern) as RegExpMatchArray)
            : reject(new Error(`process ended before ${pattern}: ${stderr.slice(-800)}`)),
        );
      const finish = (then: () => void) => {
        clearTimeout(timer);
        child.stderr?.off('data', check);
        child.off('close', ended);
        then();
      };
      child.stderr?.on('data', check);
      child.once('close', ended);
      check();
    });
  return { child, stdout: () => stdout, stderr: () => stderr, exited, waitForStderr };
}

/** Runs the CLI to its end. */
export async function runCliIn(
  args: string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string } = {},
): Promise<{ code: number | null; stdout: string; stderr: string; ms: number }> {
  const run = startCli(args, options);
  const { code, ms } = await run.exited;
  return { code, stdout: run.stdout(), stderr: run.stderr(), ms };
}

/** A site of `sitemaps` urlsets of `perSitemap` pages each under one index, every urlset dripped slowly. */
export interface SlowSite extends LoopbackServer {
  indexUrl: string;
  /** Every page URL the index leads to. */
  pages: string[];
  /** Called once, when the first urlset is asked for: where a test arms its kill or signal. */
  onFirstSitemap: (() => void) | null;
}

/** Starts a slow site: each urlset arrives in `chunks` pieces `chunkDelayMs` apart. */
export async function startSlowSite(how: { sitemaps: number; perSitemap: number; chunks: number; chunkDelayMs: number }): Promise<SlowSite> {
  const paths = Array.from({ length: how.sitemaps }, (_, i) => `/part-${i}.xml`);
  // Assigned once the server exists; its route reads it on the first request, which comes later.
  // eslint-disable-next-line prefer-const
  let site: SlowSite;
  const server = await startLoopbackServer((request) => {
    const path = (request.url ?? '/').split('?')[0] ?? '/';
    if (path === '/index.xml') return { body: indexOf(server.origin, paths), headers: { 'content-type': 'application/xml' } };
    const part = paths.indexOf(path);
    if (part < 0) return null;
    const first = site.onFirstSitemap;
    site.onFirstSitemap = null;
    first?.();
    return slowUrlset(server.origin, how.perSitemap, how.chunks, how.chunkDelayMs, `p${part}`);
  });
  const pages = paths.flatMap((_, part) => pagesOf(server.origin, `p${part}`, how.perSitemap));
  site = Object.assign(server, { indexUrl: server.url('/index.xml'), pages, onFirstSitemap: null });
  return site;
}
