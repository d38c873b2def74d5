import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir, rename, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';

/** Postgres's own mark of a complete data directory: PGlite runs initdb when it is missing. */
const PG_VERSION = 'PG_VERSION';

/** Where the child builds a new data directory, inside the folder (so a rename moves it in): removed once moved. */
const STAGING_DIR = '.initdb';

// Run by a fresh node: creates a PGlite database in argv[2] with the start parameters argv[3], then closes it.
const CHILD_SCRIPT = `
const { PGlite } = require(process.argv[1]);
PGlite.create(process.argv[2], { startParams: JSON.parse(process.argv[3]) })
  .then((db) => db.close())
  .catch((error) => { process.stderr.write(String(error && error.stack || error)); process.exit(1); });
`;

async function runChild(dataDir: string, startParams: readonly string[]): Promise<void> {
  const pglite = createRequire(import.meta.url).resolve('@electric-sql/pglite');
  const child = spawn(process.execPath, ['-e', CHILD_SCRIPT, pglite, dataDir, JSON.stringify(startParams)], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-4_000)));
  const code = await new Promise<number | null>((resolve, reject) => child.once('error', reject).once('close', resolve));
  if (code !== 0) throw new Error(`initdb of the inventory database in ${dataDir} failed (exit ${code}): ${stderr.trim()}`);
}

/**
 * Creates the PGlite database in `dataDir` (which the caller holds the lock of) unless it exists. PGlite's initdb
 * runs a second Postgres and the initdb program in this process's memory and never gives it back (about 700 MB peak,
 * 550 MB kept): it runs in a child process instead, which returns all of it on exit. The child builds the database in
 * a staging folder whose files are moved in with `PG_VERSION` last, so a kill at any point leaves either no database
 * (built again on the next open) or a whole one.
 */
export async function initdbOnce(dataDir: string, startParams: readonly string[]): Promise<void> {
  if (existsSync(join(dataDir, PG_VERSION))) return;
  const staging = join(dataDir, STAGING_DIR);
  await rm(staging, { recursive: true, force: true });
  try {
    await runChild(staging, startParams);
    const names = (await readdir(staging)).filter((name) => name !== PG_VERSION);
    for (const name of [...names, PG_VERSION]) {
      // Left by an init cut short before its PG_VERSION: not a database yet, so replaced.
      await rm(join(dataDir, name), { recursive: true, force: true });
      await rename(join(staging, name), join(dataDir, name));
    }
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}
