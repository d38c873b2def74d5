import { randomBytes } from 'node:crypto';
import { link, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { MIN_SECRET_LENGTH } from '../lib/store/index.js';
import type { FactoryConfig } from '../lib/service/index.js';

/** Where a folder keeps the secret its CLI runs seal request headers with in a shared job store. */
export const FOLDER_SECRET_FILE = join('.crawler-factory', 'secret-key');

/**
 * The CLI's deployment is its folder: without FACTORY_SECRET_KEY, a job's headers are sealed with a key made once in
 * `.crawler-factory/secret-key` (mode 0600), so `--resume` from the same folder opens them and nobody reading Redis
 * can. Made atomically (a full temp file linked into place): two runs starting at once agree on one key.
 */
export async function folderSecret(cwd = process.cwd()): Promise<string> {
  const path = join(cwd, FOLDER_SECRET_FILE);
  const existing = await readSecret(path);
  if (existing !== null) return existing;
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const temp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  await writeFile(temp, `${randomBytes(32).toString('base64url')}\n`, { mode: 0o600, flag: 'wx' });
  try {
    await link(temp, path).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error;
    });
  } finally {
    await rm(temp, { force: true });
  }
  const made = await readSecret(path);
  if (made === null) throw new Error(`${path} does not hold a secret of ${MIN_SECRET_LENGTH} or more characters: remove it to make a new one`);
  return made;
}

/** The secret a CLI run seals a shared store's headers with: FACTORY_SECRET_KEY, else the folder's own. */
export async function sealingSecret(config: Pick<FactoryConfig, 'secretKey'>, cwd = process.cwd()): Promise<string> {
  return config.secretKey ?? (await folderSecret(cwd));
}

/**
 * `config` with the secret a shared job store (Redis, Upstash) seals headers with: FACTORY_SECRET_KEY, else the
 * folder's own secret. A memory store holds headers in this process alone and needs none.
 */
export async function withSealingSecret(config: FactoryConfig, cwd = process.cwd()): Promise<FactoryConfig> {
  if (config.secretKey !== null || config.store.type === 'memory') return config;
  return { ...config, secretKey: await folderSecret(cwd) };
}

async function readSecret(path: string): Promise<string | null> {
  const text = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null;
    throw error;
  });
  const secret = text?.trim() ?? '';
  return secret.length >= MIN_SECRET_LENGTH ? secret : null;
}
