import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { readdir, rename, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { makeDirs } from '../utils/make-dirs.js';
import { unpackTemplate } from './template-unpack.js';

/** Postgres's own mark of a complete data directory: PGlite runs initdb when it is missing. */
const PG_VERSION = 'PG_VERSION';

/** Where the child builds a new data directory, inside the folder (so a rename moves it in): removed once moved. */
const STAGING_DIR = '.initdb';

/**
 * The fresh database `npm run build` ships (dist/pglite/): a new folder is unpacked from it rather than made by
 * initdb, which takes tens of seconds and about 750 MB (the unpacking: a stream of files, no PGlite started). Beside
 * it, what it was made with: a template is used only by the PGlite version and start parameters that made it.
 */
const TEMPLATE_DIR = fileURLToPath(new URL('../../pglite/', import.meta.url));
const TEMPLATE_FILE = 'template.tar.gz';
const TEMPLATE_MADE_WITH = 'template.json';

const MadeWithSchema = z.object({ pgliteVersion: z.string(), startParams: z.array(z.string()) });
type MadeWith = z.infer<typeof MadeWithSchema>;

// Run by a fresh node, so the memory PGlite takes for it goes back on exit. argv: the PGlite module, the task, then
// `init DATA_DIR START_PARAMS` (initdb in DATA_DIR) or `template FILE START_PARAMS` (a fresh database, gzipped into FILE).
const CHILD_SCRIPT = `
const { PGlite } = require(process.argv[1]);
const { writeFileSync } = require('node:fs');
const [task, target, params] = process.argv.slice(2);
const startParams = JSON.parse(params);
const run = task === 'init'
  ? PGlite.create(target, { startParams }).then((db) => db.close())
  : PGlite.create({ startParams }).then(async (db) => {
      writeFileSync(target, Buffer.from(await (await db.dumpDataDir('gzip')).arrayBuffer()));
      await db.close();
    });
run.catch((error) => { process.stderr.write(String(error && error.stack || error)); process.exit(1); });
`;

const pgliteModule = (): string => createRequire(import.meta.url).resolve('@electric-sql/pglite');

/** The installed PGlite's version, from its package.json (the package's exports leave that file out). */
export function pgliteVersion(): string {
  for (let dir = dirname(pgliteModule()); dir !== dirname(dir); dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (!existsSync(manifest)) continue;
    const parsed = z.object({ name: z.string(), version: z.string() }).safeParse(JSON.parse(readFileSync(manifest, 'utf8')));
    if (parsed.success && parsed.data.name === '@electric-sql/pglite') return parsed.data.version;
  }
  throw new Error('the installed @electric-sql/pglite has no package.json to read its version from');
}

async function runChild(args: readonly string[], what: string): Promise<void> {
  const child = spawn(process.execPath, ['-e', CHILD_SCRIPT, pgliteModule(), ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-4_000)));
  const code = await new Promise<number | null>((resolve, reject) => child.once('error', reject).once('close', resolve));
  if (code !== 0) throw new Error(`${what} failed (exit ${code}): ${stderr.trim()}`);
}

// What a template made now, by this PGlite with these start parameters, would be made with.
const madeNowWith = (startParams: readonly string[]): MadeWith => ({ pgliteVersion: pgliteVersion(), startParams: [...startParams] });

// The shipped template when it was made by this PGlite with these start parameters, else null (initdb it is).
function usableTemplate(startParams: readonly string[], templateDir: string): string | null {
  const file = join(templateDir, TEMPLATE_FILE);
  const madeWithFile = join(templateDir, TEMPLATE_MADE_WITH);
  if (!existsSync(file) || !existsSync(madeWithFile)) return null;
  const madeWith = MadeWithSchema.safeParse(JSON.parse(readFileSync(madeWithFile, 'utf8')));
  return madeWith.success && JSON.stringify(madeWith.data) === JSON.stringify(madeNowWith(startParams)) ? file : null;
}

/**
 * Makes the template a new folder is unpacked from (`npm run build`): a fresh database, gzipped, in a child process,
 * with what it was made with beside it.
 */
export async function writePgliteTemplate(startParams: readonly string[], templateDir = TEMPLATE_DIR): Promise<void> {
  await makeDirs(templateDir);
  await runChild(['template', join(templateDir, TEMPLATE_FILE), JSON.stringify(startParams)], `making the PGlite template in ${templateDir}`);
  await writeFile(join(templateDir, TEMPLATE_MADE_WITH), `${JSON.stringify(madeNowWith(startParams), null, 2)}\n`);
}

/**
 * Creates the PGlite database in `dataDir` (which the caller holds the lock of) unless it exists: unpacked from the
 * template `npm run build` made when it fits (in this process: a stream of files, no PGlite), else by initdb in a
 * child process, which returns its memory on exit (PGlite never gives back what it took). Either builds the database
 * in a staging folder whose files are moved in with `PG_VERSION` last, so a kill at any point leaves either no
 * database (built again on the next open) or a whole one.
 */
export async function initdbOnce(dataDir: string, startParams: readonly string[], templateDir = TEMPLATE_DIR): Promise<void> {
  if (existsSync(join(dataDir, PG_VERSION))) return;
  const staging = join(dataDir, STAGING_DIR);
  await rm(staging, { recursive: true, force: true });
  try {
    const template = usableTemplate(startParams, templateDir);
    if (template === null) await runChild(['init', staging, JSON.stringify(startParams)], `initdb of the inventory database in ${dataDir}`);
    else await unpackInto(template, staging, dataDir);
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

async function unpackInto(template: string, staging: string, dataDir: string): Promise<void> {
  try {
    await makeDirs(staging, 0o700);
    await unpackTemplate(template, staging);
  } catch (error) {
    throw new Error(`unpacking the template of the inventory database in ${dataDir} failed: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
}
