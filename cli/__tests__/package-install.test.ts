import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLoopbackServer, type LoopbackServer } from '../../lib/demo/loopback-server.js';
import { startServe } from '../../lib/service/__tests__/serve-process.js';
import { freePort } from '../../test/helpers/redis-server.js';
import { pageUrls, urlsetXml } from '../../test/helpers/sitemap-xml.js';

// Slow on purpose (npm install from the local cache): one file, its own timeout. The pack takes dist/ as `npm ci` built it:
// --ignore-scripts, because `prepare` would empty dist/ under the other test files that run the built bin at the same time.
const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');
const TIMEOUT = 900_000;

let site: LoopbackServer;
let project: string;
beforeAll(async () => {
  site = await startLoopbackServer(() => ({ body: urlsetXml(pageUrls(site.origin, 5)) }));
  project = mkdtempSync(join(tmpdir(), 'cf-consumer-'));
  const packed = await run('npm', ['pack', '--ignore-scripts', '--pack-destination', project, '--silent'], { cwd: ROOT, maxBuffer: 1 << 26 });
  const tarball = packed.stdout.trim().split('\n').at(-1) ?? '';
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', join(project, tarball)], { cwd: project, maxBuffer: 1 << 26 });
}, TIMEOUT);
afterAll(async () => site?.close());

describe('the packed package, installed in an empty project', () => {
  it(
    'imports walkSitemap from "crawler-factory" and walks a loopback site, silently',
    async () => {
      const script = `import { walkSitemap, closeAgents } from 'crawler-factory';
const urls = [];
for await (const batch of walkSitemap(process.argv[2], { net: { allowPrivate: true } })) urls.push(...batch);
await closeAgents();
console.log(JSON.stringify(urls));`;
      writeFileSync(join(project, 'walk.mjs'), script);
      const out = await run(process.execPath, ['walk.mjs', site.url('/sitemap.xml')], { cwd: project });
      expect(JSON.parse(out.stdout)).toEqual(pageUrls(site.origin, 5));
      expect(out.stderr).toBe('');
    },
    TIMEOUT,
  );

  it(
    'runs `npx crawler-factory walk` (compiled JavaScript, plain node)',
    async () => {
      const out = await run('npx', ['--no-install', 'crawler-factory', 'walk', site.url('/sitemap.xml'), '--allow-private'], { cwd: project });
      expect(out.stdout.trim().split('\n')).toEqual(pageUrls(site.origin, 5));
      const version = await run('npx', ['--no-install', 'crawler-factory', '--version'], { cwd: project });
      expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    },
    TIMEOUT,
  );

  it(
    'serves the ops console from the installed bin, started from another working directory',
    async () => {
      const elsewhere = mkdtempSync(join(tmpdir(), 'cf-elsewhere-'));
      const bin = join(project, 'node_modules/crawler-factory/dist/cli/bin.js');
      const serve = await startServe({ port: await freePort(), env: {}, bin, cwd: elsewhere });
      try {
        const index = await fetch(`${serve.origin}/`);
        expect(index.status).toBe(200);
        expect(index.headers.get('content-type')).toBe('text/html; charset=utf-8');
        const html = await index.text();
        expect(html).toBe(readFileSync(join(ROOT, 'public/index.html'), 'utf8'));
        // Every script and stylesheet the page names, and every file of public/ (modules the scripts import), byte for byte.
        const named = [...html.matchAll(/<(?:script[^>]*\ssrc|link[^>]*\shref)="([^"]+)"/g)].map((match) => match[1]!);
        expect(named.length).toBeGreaterThanOrEqual(2);
        const shipped = readdirSync(join(ROOT, 'public')).filter((file) => file !== 'index.html');
        expect(shipped).toEqual(expect.arrayContaining(named));
        const types: Record<string, string> = { '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8' };
        for (const file of shipped) {
          const response = await fetch(`${serve.origin}/${file}`);
          expect(response.status, file).toBe(200);
          expect(response.headers.get('content-type'), file).toBe(types[extname(file)]);
          expect(await response.text(), file).toBe(readFileSync(join(ROOT, 'public', file), 'utf8'));
        }
      } finally {
        expect(await serve.stop()).toBe(0);
      }
    },
    TIMEOUT,
  );

  it(
    'type-checks a consumer under tsc --strict, with the subpath exports',
    async () => {
      const source = `import { walkSitemapEntries, FactoryError, type SitemapEntry, type WalkCallOptions } from 'crawler-factory';
import { createJob } from 'crawler-factory/jobs';
import { MemoryJobStore } from 'crawler-factory/store';
import { openInventoryDb, type SyncRuntime } from 'crawler-factory/inventory';
import { handle, type ServiceContext } from 'crawler-factory/service';
import { startDemoSite } from 'crawler-factory/demo';
const options: WalkCallOptions = { filter: { include: ['/blog/**'], scope: 'host' }, headers: { cookie: 'a=b' }, retries: 1 };
export async function first(url: string): Promise<SitemapEntry | null> {
  for await (const batch of walkSitemapEntries(url, options)) return batch[0] ?? null;
  return null;
}
export const failure: FactoryError = new FactoryError('timeout', 'slow');
export const started = createJob(new MemoryJobStore(), { rootUrl: 'https://example.com/' });
export const entryPoints = [openInventoryDb, handle, startDemoSite];
export type Service = [SyncRuntime, ServiceContext];
`;
      writeFileSync(join(project, 'consumer.ts'), source);
      const args = [
        '--strict',
        '--noEmit',
        '--module',
        'nodenext',
        '--moduleResolution',
        'nodenext',
        '--target',
        'es2022',
        '--skipLibCheck',
        'false',
        '--typeRoots',
        join(ROOT, 'node_modules/@types'),
        '--types',
        'node',
        'consumer.ts',
      ];
      const checked = await run(process.execPath, [TSC, ...args], { cwd: project }).catch((error: { stdout?: string }) => ({
        stdout: error.stdout ?? 'failed',
      }));
      expect(checked.stdout).toBe('');
    },
    TIMEOUT,
  );
});
