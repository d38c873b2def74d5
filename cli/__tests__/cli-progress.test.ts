// `--progress` through the built executable: the line counts URLs as sitemaps are read (not only in committed
// batches of a thousand), and its total counts only the children the walk will read (maxChildrenPerIndex cuts).
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLoopbackServer, type LoopbackServer } from '../../lib/demo/loopback-server.js';
import { indexXml, urlsetXml } from '../../test/helpers/sitemap-xml.js';
import { BUILT_BIN } from '../../test/helpers/run-cli.js';

const CHILDREN = 12;
const KEPT = 10;
const HELD = `/c/${KEPT - 1}.xml`; // the last child read: answered once the line showed the other nine URLs

let site: LoopbackServer;
let release: () => void = () => undefined;
const held = new Promise<void>((resolve) => (release = resolve));
beforeAll(async () => {
  site = await startLoopbackServer(async (request) => {
    const path = request.url ?? '/';
    if (path === '/index.xml') return { body: indexXml(Array.from({ length: CHILDREN }, (_, i) => site.url(`/c/${i}.xml`))) };
    if (path === HELD) await held;
    return path.startsWith('/c/') ? { body: urlsetXml([site.url(`/page${path.slice(2, -4)}`)]) } : null;
  });
});
afterAll(async () => {
  release();
  await site.close();
});

describe('walk --progress', () => {
  it('shows the URLs found while a sitemap is pending, out of the children that will be read', async () => {
    const child = spawn(process.execPath, [BUILT_BIN, 'walk', site.url('/index.xml'), '--allow-private', '--progress', '--max-children', String(KEPT)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    // The line while the held child is pending: nine one-URL sitemaps and the index read, none of it a full batch.
    const pending = new Promise<string>((resolve) => {
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        const line = stderr.split('\r').find((text) => text.includes(' 9 urls'));
        if (line !== undefined) resolve(line);
      });
    });
    const seen = await Promise.race([pending, new Promise<null>((resolve) => setTimeout(() => resolve(null), 20_000))]);
    release();
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    expect(seen).toContain(`sitemaps 10/${KEPT + 1} · 9 urls`);
    expect(stdout.trim().split('\n')).toHaveLength(KEPT);
    // The last line: every kept child read, every URL written; the two cut children were never in the total.
    const last = stderr.trim().split('\r').at(-1) ?? '';
    expect(last).toContain(`sitemaps ${KEPT + 1}/${KEPT + 1} · ${KEPT} urls · 1 errors`);
  }, 60_000);
});
