import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { freePort } from './redis-server.js';
import { indexXml, pageUrls, urlsetXml } from './sitemap-xml.js';

/** A static file server nobody here wrote, serving a folder on 127.0.0.1. */
export interface StaticServer {
  origin: string;
  close(): Promise<void>;
}

/** Debian's nginx binary (`.ci/run` installs nginx-light). */
export const NGINX = '/usr/sbin/nginx';

async function waitForPort(port: number, child: ChildProcess): Promise<void> {
  for (let tries = 0; tries < 100; tries += 1) {
    if (child.exitCode !== null) throw new Error(`static server exited with ${child.exitCode}`);
    const open = await fetch(`http://127.0.0.1:${port}/`).then(
      () => true,
      () => false,
    );
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`static server on port ${port} did not start`);
}

function stopper(child: ChildProcess, cleanup: () => Promise<void> = async () => {}): () => Promise<void> {
  return async () => {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    await cleanup();
  };
}

/** Python's `http.server` over `root`: HTTP/1.0, every response ends with the connection closed. */
export async function startPythonHttpServer(root: string): Promise<StaticServer> {
  const port = await freePort();
  const child = spawn('python3', ['-m', 'http.server', String(port), '--bind', '127.0.0.1', '--directory', root], { stdio: 'ignore' });
  await waitForPort(port, child);
  return { origin: `http://127.0.0.1:${port}`, close: stopper(child) };
}

/** nginx over `root`, with keep-alive or with `keepalive_timeout 0` (`Connection: close` on every response). */
export async function startNginx(root: string, options: { keepAlive: boolean }): Promise<StaticServer> {
  const port = await freePort();
  const prefix = await mkdtemp(join(tmpdir(), 'cf-nginx-'));
  const conf = join(prefix, 'nginx.conf');
  await writeFile(
    conf,
    [
      'daemon off; master_process off; worker_processes 1; pid nginx.pid; error_log stderr error;',
      'events { worker_connections 256; }',
      'http {',
      '  access_log off; client_body_temp_path tmp; proxy_temp_path tmp; fastcgi_temp_path tmp; uwsgi_temp_path tmp; scgi_temp_path tmp;',
      `  types { application/xml xml; text/plain txt; application/gzip gz; }`,
      `  keepalive_timeout ${options.keepAlive ? '65' : '0'};`,
      `  server { listen 127.0.0.1:${port}; root ${root}; }`,
      '}',
      '',
    ].join('\n'),
  );
  await mkdir(join(prefix, 'tmp'));
  const child = spawn(NGINX, ['-p', prefix, '-c', conf], { stdio: 'ignore' });
  await waitForPort(port, child);
  return { origin: `http://127.0.0.1:${port}`, close: stopper(child, () => rm(prefix, { recursive: true, force: true })) };
}

/** The site a static server serves: `/sitemap.xml`, an index of `children` urlsets of `perChild` URLs, and robots.txt. */
export interface StaticSite {
  root: string;
  /** Writes the files for `origin` (the server's, known only once it listens). */
  write(origin: string): Promise<void>;
  remove(): Promise<void>;
}

/** A folder for a static sitemap site of `children × perChild` page URLs. */
export async function staticSitemapSite(children: number, perChild: number): Promise<StaticSite> {
  const root = await mkdtemp(join(tmpdir(), 'cf-static-site-'));
  const put = async (path: string, body: string): Promise<void> => {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), body);
  };
  return {
    root,
    async write(origin) {
      const childUrls = Array.from({ length: children }, (_, index) => `${origin}/sitemaps/part-${index}.xml`);
      await put('robots.txt', `User-agent: *\nAllow: /\nSitemap: ${origin}/sitemap.xml\n`);
      await put('sitemap.xml', indexXml(childUrls));
      for (let index = 0; index < children; index += 1) {
        await put(
          `sitemaps/part-${index}.xml`,
          urlsetXml(pageUrls(origin, perChild, `part-${index}`), () => '<lastmod>2026-01-01</lastmod>'),
        );
      }
      await put('index.html', '<!doctype html><title>static site</title>\n');
    },
    remove: () => rm(root, { recursive: true, force: true }),
  };
}

/** True when nginx is installed (it always is under `.ci/run`). */
export function nginxInstalled(): boolean {
  return existsSync(NGINX);
}
