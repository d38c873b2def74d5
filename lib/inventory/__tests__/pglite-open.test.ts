// Opening a PGlite folder: a new database is built by a child process (a fresh folder, or one left by an init cut
// short), with the embedded writer's memory settings, and what was written is there on the next open. A template made
// by this PGlite with these settings is what a new folder is unpacked from; one made otherwise is left alone.
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCK_FILE_NAME } from '../db-lock.js';
import { openInventoryDb } from '../open-db.js';
import { PGLITE_START_PARAMS } from '../pglite-db.js';
import { initdbOnce, pgliteVersion, writePgliteTemplate } from '../pglite-initdb.js';
import { createSite, getSite } from '../sites.js';

/** initdb in WebAssembly, in a child process: tens of seconds on this shared machine under load. */
const INITDB_MS = 240_000;

describe('opening a PGlite folder', () => {
  let work: string;
  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'pglite-open-'));
  });
  afterAll(async () => rm(work, { recursive: true, force: true }));

  it('builds the database of a folder whose init was cut short, with small memory settings, and keeps it', { timeout: INITDB_MS }, async () => {
    const dir = join(work, 'db');
    // What a kill during an earlier init leaves: the staging folder, and files moved in before PG_VERSION.
    await mkdir(join(dir, '.initdb', 'base'), { recursive: true });
    await mkdir(join(dir, 'base', '1'), { recursive: true });
    await writeFile(join(dir, 'base', '1', 'half-moved'), 'x');
    const db = await openInventoryDb({ dataDir: dir });
    try {
      const settings = await db.query(`SELECT name, setting FROM pg_settings WHERE name IN ('shared_buffers', 'max_connections') ORDER BY name`);
      expect(settings).toEqual([
        { name: 'max_connections', setting: '10' },
        { name: 'shared_buffers', setting: '2048' }, // 8 kB pages: 16 MB
      ]);
      await createSite(db, { rootUrl: 'https://kept.example/', siteId: 'kept' });
      const entries = await readdir(dir);
      expect(entries).toContain('PG_VERSION');
      expect(entries).toContain(LOCK_FILE_NAME);
      expect(entries).not.toContain('.initdb');
      expect(existsSync(join(dir, 'base', '1', 'half-moved'))).toBe(false);
    } finally {
      await db.close();
    }
    const again = await openInventoryDb({ dataDir: dir });
    try {
      expect(await getSite(again, 'kept')).toMatchObject({ siteId: 'kept', rootUrl: 'https://kept.example/' });
    } finally {
      await again.close();
    }
  });

  it('unpacks a new folder from a template made with these settings, and refuses to build one from a broken template', { timeout: INITDB_MS }, async () => {
    const templates = join(work, 'template');
    await writePgliteTemplate(PGLITE_START_PARAMS, templates);
    const dir = join(work, 'from-template');
    await mkdir(dir);
    await initdbOnce(dir, PGLITE_START_PARAMS, templates);
    const db = await openInventoryDb({ dataDir: dir });
    try {
      const [setting] = await db.query(`SELECT setting FROM pg_settings WHERE name = 'shared_buffers'`);
      expect(setting).toEqual({ setting: '2048' });
      await createSite(db, { rootUrl: 'https://unpacked.example/', siteId: 'unpacked' });
      expect(await getSite(db, 'unpacked')).toMatchObject({ rootUrl: 'https://unpacked.example/' });
    } finally {
      await db.close();
    }
    // A fitting template is what the folder is made from: a broken one fails the open, leaving no database behind,
    // whether it is no gzip at all or an archive cut short (whole gzip, half a tar).
    const archive = gunzipSync(await readFile(join(templates, 'template.tar.gz')));
    const broken = join(work, 'from-broken');
    await mkdir(broken);
    for (const bytes of [Buffer.from('not a tarball'), gzipSync(archive.subarray(0, archive.length / 2))]) {
      await writeFile(join(templates, 'template.tar.gz'), bytes);
      await expect(initdbOnce(broken, PGLITE_START_PARAMS, templates)).rejects.toThrow(/unpacking the template/);
      expect(existsSync(join(broken, 'PG_VERSION'))).toBe(false);
    }
  });

  it('leaves a template made with other settings alone and runs initdb', { timeout: INITDB_MS }, async () => {
    const templates = join(work, 'other-template');
    await mkdir(templates, { recursive: true });
    await writeFile(join(templates, 'template.tar.gz'), 'not a tarball either');
    const otherParams = [...PGLITE_START_PARAMS.filter((param) => param !== 'shared_buffers=16MB'), 'shared_buffers=32MB'];
    await writeFile(join(templates, 'template.json'), JSON.stringify({ pgliteVersion: pgliteVersion(), startParams: otherParams }));
    const dir = join(work, 'initdb-instead');
    await mkdir(dir);
    await initdbOnce(dir, PGLITE_START_PARAMS, templates);
    expect(existsSync(join(dir, 'PG_VERSION'))).toBe(true);
  });
});
