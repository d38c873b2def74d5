/**
 * Per-sitemap overhead: one index of `--children` (default 50,000) children that each answer with one URL, served
 * from a loopback server in a child process, walked with the default options. Prints the wall time, the walker's
 * CPU time, both per sitemap, and the URLs found (they must equal the children; the exit code says so).
 * Run: node bin/run-ts.mjs bench/many-sitemaps.ts [--children 50000]   (node --cpu-prof ... to profile the walker)
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { startLoopbackServer } from '../lib/demo/loopback-server.js';
import { closeAgents } from '../lib/factory/fetch/index.js';
import { walkSitemap } from '../lib/factory/sitemap.js';

const XML = { 'content-type': 'application/xml' };
const arg = (name: string, fallback: number): number => {
  const at = process.argv.indexOf(name);
  return at === -1 ? fallback : Number(process.argv[at + 1]);
};
const children = arg('--children', 50_000);

async function serve(): Promise<void> {
  const server = await startLoopbackServer((request) => {
    const path = request.url ?? '/';
    if (path === '/index.xml') {
      const items = Array.from({ length: children }, (_, i) => `<sitemap><loc>${server.origin}/c/${i}.xml</loc></sitemap>`);
      return { headers: XML, body: `<?xml version="1.0" encoding="UTF-8"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${items.join('')}</sitemapindex>` };
    }
    const match = /^\/c\/(\d+)\.xml$/.exec(path);
    if (match === null) return null;
    return { headers: XML, body: `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>${server.origin}/p/${match[1]}</loc></url></urlset>` };
  });
  process.stdout.write(`${server.origin}\n`);
}

async function walk(): Promise<void> {
  const child = spawn(process.execPath, [fileURLToPath(new URL('../bin/run-ts.mjs', import.meta.url)), fileURLToPath(import.meta.url), '--serve', '--children', String(children)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [line] = (await once(child.stdout, 'data')) as [Buffer];
  const origin = line.toString().trim();
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  let urls = 0;
  for await (const batch of walkSitemap(`${origin}/index.xml`, { net: { allowPrivate: true } })) urls += batch.length;
  const wallMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  const cpuMs = (cpu.user + cpu.system) / 1000;
  child.kill();
  await closeAgents();
  const per = (ms: number) => `${((ms * 1000) / children).toFixed(0)} us`;
  process.stdout.write(`${children} one-URL children: ${(wallMs / 1000).toFixed(2)} s wall (${per(wallMs)}/sitemap), walker CPU ${(cpuMs / 1000).toFixed(2)} s (${per(cpuMs)}/sitemap), ${urls} URLs\n`);
  if (urls !== children) process.exitCode = 1;
}

await (process.argv.includes('--serve') ? serve() : walk());
