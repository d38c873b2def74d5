import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join, posix, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync, gzipSync } from 'node:zlib';
import { z } from 'zod';
import { startLoopbackServer, type LoopbackServer } from '../../lib/demo/loopback-server.js';

/** The shared real-world corpus: `CORPUS_DIR`, else `../shared/corpus` beside the repository (CI); absent in some checkouts. */
export const CORPUS_DIR = process.env.CORPUS_DIR ?? resolve(dirname(fileURLToPath(import.meta.url)), '../../../shared/corpus');

const SiteSchema = z.object({
  id: z.string(),
  origin: z.string().nullable(),
  roots: z.array(z.string()),
  files: z.array(z.object({ path: z.string() })),
  /** What is odd about the site (`broken`, `relative-locs`, `missing-children`...): the manifest's words. */
  tags: z.array(z.string()).default([]),
});
export type CorpusSite = z.infer<typeof SiteSchema>;

/** The corpus's sites, or null when the corpus is not there (the caller skips). */
export async function loadCorpusSites(dir = CORPUS_DIR): Promise<CorpusSite[] | null> {
  if (!existsSync(join(dir, 'manifest.json'))) return null;
  return z.array(SiteSchema).parse(JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')));
}

const TYPES: Record<string, string> = { xml: 'application/xml', gz: 'application/gzip', txt: 'text/plain', rss: 'application/rss+xml' };

/** The body as served: the site's origin replaced by the server's (inside gzip too), bytes otherwise unchanged. */
function rewrite(raw: Buffer, origin: string | null, serverOrigin: string): Buffer {
  if (origin === null) return raw;
  const gzipped = raw[0] === 0x1f && raw[1] === 0x8b;
  const text = Buffer.from((gzipped ? gunzipSync(raw) : raw).toString('latin1').replaceAll(origin, serverOrigin), 'latin1');
  return gzipped ? gzipSync(text) : text;
}

/** Serves one corpus site's files at their paths on 127.0.0.1, origin rewritten; anything else answers 404. */
export async function serveCorpusSite(site: CorpusSite, dir = CORPUS_DIR): Promise<LoopbackServer> {
  const bodies = new Map<string, Buffer>();
  const server = await startLoopbackServer((request) => {
    const path = decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname).slice(1);
    const body = bodies.get(path);
    return body === undefined ? null : { headers: { 'content-type': TYPES[posix.extname(path).slice(1)] ?? 'application/octet-stream' }, body };
  });
  for (const file of site.files) {
    const raw = await readFile(join(dir, 'sites', site.id, file.path)).catch(() => null);
    if (raw !== null) bodies.set(file.path, rewrite(raw, site.origin, server.origin));
  }
  return server;
}
