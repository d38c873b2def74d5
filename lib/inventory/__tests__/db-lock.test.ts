// The PGlite folder lock on its own: refusal naming the holder, stale takeover, and the cases it must not take over.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isFactoryError } from '../../core/errors.js';
import { acquireDbLock, LOCK_FILE_NAME } from '../db-lock.js';

/** The pid of a process that has ended (a child run to completion). */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(child.stdout.toString());
}

function conflictOf(work: () => unknown): string {
  try {
    work();
  } catch (error) {
    if (isFactoryError(error) && error.kind === 'conflict') return error.message;
    throw error;
  }
  throw new Error('expected a conflict');
}

describe('PGlite folder lock', () => {
  let dir: string;
  let lockPath: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'db-lock-'));
    lockPath = join(dir, LOCK_FILE_NAME);
  });
  afterEach(async () => rm(dir, { recursive: true, force: true }));

  it('refuses a second opener, even in the same process, naming the holder; release lets the next one in', () => {
    const lock = acquireDbLock(dir);
    expect(conflictOf(() => acquireDbLock(dir))).toContain(`in use by process ${process.pid} on ${hostname()}`);
    lock.release();
    expect(existsSync(lockPath)).toBe(false);
    acquireDbLock(dir).release();
  });

  it('takes over a lock whose process is dead on this host', async () => {
    const pid = deadPid();
    await writeFile(lockPath, JSON.stringify({ pid, hostname: hostname(), startedAt: '2020-01-01T00:00:00Z', token: 'old' }));
    const lock = acquireDbLock(dir);
    expect(JSON.parse(await readFile(lockPath, 'utf8'))).toMatchObject({ pid: process.pid });
    lock.release();
  });

  it("takes over a lock naming this pid that this process never took (a restarted container's same small pid)", async () => {
    await writeFile(lockPath, JSON.stringify({ pid: process.pid, hostname: hostname(), startedAt: '2020-01-01T00:00:00Z', token: 'old' }));
    acquireDbLock(dir).release();
  });

  it("never judges another host's lock, and waits out a lock file still being written", async () => {
    await writeFile(lockPath, JSON.stringify({ pid: deadPid(), hostname: 'elsewhere.example', startedAt: '2020-01-01T00:00:00Z', token: 'x' }));
    expect(conflictOf(() => acquireDbLock(dir))).toContain('on elsewhere.example');
    await writeFile(lockPath, '');
    expect(conflictOf(() => acquireDbLock(dir))).toContain('in use by another process');
    // Unreadable for longer than its creator could take to write it: left by a crash between create and write.
    const old = new Date(Date.now() - 60_000);
    await utimes(lockPath, old, old);
    acquireDbLock(dir).release();
  });

  it("does not remove a successor's lock when a holder judged stale releases late", async () => {
    const lock = acquireDbLock(dir);
    await writeFile(lockPath, JSON.stringify({ pid: process.pid + 1, hostname: hostname(), startedAt: new Date().toISOString(), token: 'successor' }));
    lock.release();
    expect(JSON.parse(await readFile(lockPath, 'utf8'))).toMatchObject({ token: 'successor' });
  });
});
