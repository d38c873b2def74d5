import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLoopbackServer, type LoopbackServer } from '../../demo/loopback-server.js';
import { walkSitemap, type WalkCallOptions } from '../../factory/sitemap.js';
import { indexXml, pageUrls, urlsetXml } from '../../../test/helpers/sitemap-xml.js';
import { useLogger, type LoggerLike } from '../logger.js';

// An index of one quick child and seven slow ones: a walk left after the first batch still has seven reads in flight.
let site: LoopbackServer;
beforeAll(async () => {
  site = await startLoopbackServer((request) => {
    if (request.url === '/index.xml') return { body: indexXml(Array.from({ length: 8 }, (_, n) => site.url(`/c${n}.xml`))) };
    const body = urlsetXml(pageUrls(site.origin, 1200, request.url ?? ''));
    if (request.url === '/c0.xml') return { body };
    return { chunks: [body.slice(0, 300), body.slice(300)], chunkDelayMs: 5_000 };
  });
});
afterAll(async () => site.close());

const FIXTURE = fileURLToPath(new URL('./silent-library.fixture.ts', import.meta.url));
const RUN_TS = fileURLToPath(new URL('../../../bin/run-ts.mjs', import.meta.url));

function runChild(env: NodeJS.ProcessEnv): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const { LOG_LEVEL: _level, FACTORY_LOG_LEVEL: _factory, ...rest } = process.env;
    const child = spawn(process.execPath, [RUN_TS, FIXTURE, site.url('/index.xml')], { env: { ...rest, ...env } });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out }));
  });
}

describe('the library is silent by default', () => {
  it('prints nothing on stdout or stderr, even when a walk is left early with reads in flight', async () => {
    const run = await runChild({});
    expect(run.code).toBe(0);
    expect(run.out).toBe('');
  }, 60_000);

  it('decides nothing from the environment: FACTORY_LOG_LEVEL is for the CLI and the functions, not the library', async () => {
    const run = await runChild({ FACTORY_LOG_LEVEL: 'debug', LOG_LEVEL: 'debug' });
    expect(run.code).toBe(0);
    expect(run.out).toBe('');
  }, 60_000);

  it('hands logs to a caller logger; a break cancels quietly (no warning, no error event)', async () => {
    const records: Array<{ level: string; fields: object }> = [];
    const record = (level: string) => (fields: object) => records.push({ level, fields });
    const logger: LoggerLike = { level: 'debug', error: record('error'), warn: record('warn'), info: record('info'), debug: record('debug') };
    const events: string[] = [];
    const options: WalkCallOptions = { net: { allowPrivate: true }, logger, onEvent: (event) => events.push(event.type) };
    try {
      for await (const batch of walkSitemap(site.url('/index.xml'), options)) if (batch.length > 0) break;
    } finally {
      useLogger(null);
    }
    expect(records.some((entry) => entry.level === 'debug')).toBe(true);
    expect(records.filter((entry) => entry.level === 'warn' || entry.level === 'error')).toEqual([]);
    expect(events).not.toContain('error');
  });
});
