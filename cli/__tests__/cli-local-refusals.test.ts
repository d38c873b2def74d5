// What the user points the CLI at on this machine (the inventory's folder or URL, the output file, stdout, the address
// to listen on) can be refused: each is its own kind and exit code with a message naming what to change, never an
// `internal` error, a stack trace, or a process that spins. Run on the built bin.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { openSync, closeSync } from 'node:fs';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILT_BIN } from '../../test/helpers/run-cli.js';
import { runCliIn } from './cli-process.js';

// Neither a database nor a store from the environment: each case names its own.
const env = { DATABASE_URL: '', REDIS_URL: '', FACTORY_API_TOKEN: '', FACTORY_DB_DIR: '' };

describe('refused local targets (built bin)', () => {
  let cwd: string;
  let sitemap: string;

  beforeAll(async () => {
    cwd = await mkdtemp(join(tmpdir(), 'cli-local-refusals-'));
    sitemap = join(cwd, 'sitemap.xml');
    const urls = Array.from({ length: 3_000 }, (_, i) => `<url><loc>https://example.com/page/${i}</loc></url>`).join('');
    await writeFile(sitemap, `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls}</urlset>`);
  });
  afterAll(async () => {
    await rm(cwd, { recursive: true, force: true });
  });

  it('a --db folder that cannot be made (/proc/x/db) is a config error, exit 2, at once (Node 20 mkdir spun on it forever)', async () => {
    const run = await runCliIn(['sites', 'list', '--db', '/proc/x/db'], { env, cwd });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/config: the inventory folder \/proc\/x\/db cannot be made \(ENOENT.*'\/proc\/x'\): give --db or FACTORY_DB_DIR a folder/);
    expect(run.ms).toBeLessThan(15_000);
  });

  it.each([
    ['sites', 'list'],
    ['sync', 'http://127.0.0.1:9/'],
  ])('a --db postgres:// URL that does not parse is refused naming the flag (%s), and no folder is made', async (...command) => {
    const run = await runCliIn([...command, '--db', 'postgres://:::@@'], { env, cwd });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--db: expected a postgres:// or postgresql:// URL (this one does not parse');
    expect(run.stderr).not.toContain(':::@@');
    expect(await readdir(cwd)).toEqual(['sitemap.xml']);
  });

  it('-o in a folder that cannot hold a file is a usage error naming the flag, exit 2', async () => {
    const run = await runCliIn(['walk', sitemap, '-o', '/proc/x'], { env, cwd });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('-o /proc/x: cannot write a file there (ENOENT in /proc)');
    expect(run.stderr).not.toContain('internal');
  });

  it('stdout on a full disk (/dev/full) is output_failed, exit 1, one line and no stack trace', async () => {
    const full = openSync('/dev/full', 'w');
    try {
      const child = spawn(process.execPath, [BUILT_BIN, 'walk', sitemap], { cwd, env: { ...process.env, ...env }, stdio: ['ignore', full, 'pipe'] });
      let stderr = '';
      child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const [code] = await once(child, 'close');
      expect(code).toBe(1);
      expect(stderr.trim()).toBe(
        'crawler-factory: output_failed: writing stdout failed (ENOSPC: no space left on device, write): free some space or write elsewhere',
      );
    } finally {
      closeSync(full);
    }
  });

  it.each([
    ['foo.localhost', /--host foo\.localhost does not resolve to an address: pass an IP address of this machine/],
    ['10.9.9.9', /--host 10\.9\.9\.9 is not an address of this machine/],
  ])('serve --host %s is a usage error naming the flag, exit 2', async (host, message) => {
    const run = await runCliIn(['serve', '--host', host, '--port', '0', '--insecure', '--db', join(cwd, 'serve-db')], { env, cwd });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stderr).not.toContain('internal');
  });
});
