import { statSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeDirs } from '../make-dirs.js';

describe('makeDirs', () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'make-dirs-'));
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('makes every missing level, with the mode asked for, and accepts a folder that exists', async () => {
    const deep = join(root, 'a', 'b', 'c');
    await makeDirs(deep, 0o700);
    expect(statSync(deep).isDirectory()).toBe(true);
    expect(statSync(join(root, 'a')).mode & 0o777).toBe(0o700);
    await expect(makeDirs(deep)).resolves.toBeUndefined();
  });

  it('fails at once with the level /proc refuses (recursive mkdir loops there on Node 20)', async () => {
    const started = Date.now();
    await expect(makeDirs('/proc/x/db')).rejects.toMatchObject({ code: 'ENOENT', path: '/proc/x' });
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('fails with ENOTDIR under a file', async () => {
    await writeFile(join(root, 'file'), '');
    await expect(makeDirs(join(root, 'file', 'db'))).rejects.toMatchObject({ code: 'ENOTDIR' });
  });

  it('two makers of the same tree at once both succeed', async () => {
    const shared = join(root, 'race', 'x', 'y');
    await Promise.all([makeDirs(shared), makeDirs(shared), makeDirs(shared)]);
    expect(statSync(shared).isDirectory()).toBe(true);
  });
});
