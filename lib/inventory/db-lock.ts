import { createHash, randomBytes } from 'node:crypto';
import { linkSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { RequestError } from '../core/errors.js';

/**
 * One writer per embedded database. PGlite has no lock of its own: two processes on one folder both "work" and the
 * folder ends corrupt (every later open fails with `Aborted()`). So an opener first creates this file (exclusively,
 * by a hard link of a file it wrote whole), as Postgres does with `postmaster.pid`, and a second opener is refused
 * naming the holder.
 */
export const LOCK_FILE_NAME = 'crawler-factory.lock';

/** What the lock file says about its holder. */
const LockOwnerSchema = z.object({
  pid: z.number().int().positive(),
  hostname: z.string(),
  startedAt: z.string(),
  /** Random per acquisition: release removes the file only while it is still this holder's. */
  token: z.string(),
});
export type LockOwner = z.infer<typeof LockOwnerSchema>;

/**
 * A lock file that cannot be read may be one an older version is writing right now (it created, then wrote):
 * it is taken for a live holder until it has been this old, and then for a crash's leftover.
 */
const UNREADABLE_GRACE_MS = 5_000;

/** A held lock: `release()` removes the file (idempotent); a process exit without it is also covered. */
export interface DbLock {
  readonly path: string;
  readonly owner: LockOwner;
  release(): void;
}

/** Lock files this process holds: a file naming our pid that is not here is a previous process's. */
const heldHere = new Set<string>();

/** True when `pid` names a live process on this host (EPERM: alive, owned by another user). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A lock or gate file as read once: the holder it names (null when unreadable) and what identifies that holder. */
interface LockFile {
  owner: LockOwner | null;
  /** The holder's token, or a hash of the bytes when they are not an owner: what a takeover checks is unchanged. */
  print: string;
}

/** The file at `path`, or null when there is none. */
function readLockFile(path: string): LockFile | null {
  let raw: string;
  try {
    raw = readFileSync(path, 'utf8');
  } catch {
    return null;
  }
  const owner = parseOwner(raw);
  return { owner, print: owner?.token ?? `raw-${createHash('sha256').update(raw).digest('hex').slice(0, 32)}` };
}

function parseOwner(raw: string): LockOwner | null {
  try {
    const parsed = LockOwnerSchema.safeParse(JSON.parse(raw));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

function readOwner(path: string): LockOwner | null {
  return readLockFile(path)?.owner ?? null;
}

/** The refusal a second opener gets: who holds the folder and the ways out. */
function heldBy(dataDir: string, owner: LockOwner | null): RequestError {
  const who = owner ? `process ${owner.pid} on ${owner.hostname} (since ${owner.startedAt})` : 'another process';
  return new RequestError(
    'conflict',
    `the inventory database in ${dataDir} is in use by ${who}: one process writes a PGlite folder at a time; ` +
      'stop that process, or use another folder (--db OTHER_DIR), or Postgres (DATABASE_URL=postgres://...)',
  );
}

/**
 * Whether the file at `path` is left over by a holder that is gone: a dead pid on this host, or a file
 * still unreadable after the grace period. A holder on another host (a shared folder) is never judged from here.
 */
function isStale(path: string, owner: LockOwner | null): boolean {
  if (owner === null) {
    try {
      return Date.now() - statSync(path).mtimeMs > UNREADABLE_GRACE_MS;
    } catch {
      return true;
    }
  }
  if (owner.hostname !== hostname()) return false;
  // Our own pid: held by this process only if it took it (a container restarts its CLI with the same small pid).
  if (owner.pid === process.pid) return !heldHere.has(path);
  return !isAlive(owner.pid);
}

// Writes `owner` to a file of its own, then puts it in place: a lock or gate file is never seen half written.
function writeOwnerFile(path: string, owner: LockOwner): string {
  const staged = `${path}.${owner.token}.tmp`;
  writeFileSync(staged, `${JSON.stringify(owner)}\n`, { mode: 0o600 });
  return staged;
}

/** Creates `path` holding `owner`, atomically and only if it does not exist (link fails with EEXIST); false when it does. */
function tryCreate(path: string, owner: LockOwner): boolean {
  const staged = writeOwnerFile(path, owner);
  try {
    linkSync(staged, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    unlinkSync(staged);
  }
}

/**
 * Replaces the stale file `path`, whose holder is `stale` (its `print`), by one naming `owner`: true when this call
 * did it. Only the process that creates the gate `path.takeover-<stale>` may replace it, and only while the file
 * still names that holder, so of any number of openers taking over one dead holder exactly one wins (a reused inode
 * or a successor's file cannot be mistaken for the stale one). A gate whose creator died mid-takeover is taken over
 * the same way, one level down.
 */
function takeOver(path: string, stale: string, owner: LockOwner): boolean {
  const gate = `${path}.takeover-${stale}`;
  if (!tryCreate(gate, owner)) {
    const held = readLockFile(gate);
    if (held === null || !isStale(gate, held.owner) || !takeOver(gate, held.print, owner)) return false;
  }
  try {
    if (readLockFile(path)?.print !== stale) return false;
    renameSync(writeOwnerFile(path, owner), path);
    return true;
  } finally {
    unlinkIfThere(gate);
  }
}

function unlinkIfThere(path: string): void {
  try {
    unlinkSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

/**
 * Takes the lock of the PGlite folder `dataDir` (which must exist), or throws a `conflict` naming the holder. A lock
 * left by a dead process on this host is taken over atomically (`takeOver`): two openers at once never both win.
 */
export function acquireDbLock(dataDir: string): DbLock {
  const path = join(resolve(dataDir), LOCK_FILE_NAME);
  const owner: LockOwner = { pid: process.pid, hostname: hostname(), startedAt: new Date().toISOString(), token: randomBytes(12).toString('hex') };
  for (let attempt = 0; attempt < 3; attempt += 1) {
    if (tryCreate(path, owner)) return heldLock(path, owner);
    const held = readLockFile(path);
    if (held === null) continue; // released in between: create it again
    if (!isStale(path, held.owner)) throw heldBy(dataDir, held.owner);
    if (takeOver(path, held.print, owner)) return heldLock(path, owner);
  }
  throw heldBy(dataDir, readOwner(path));
}

function heldLock(path: string, owner: LockOwner): DbLock {
  let held = true;
  heldHere.add(path);
  const release = () => {
    if (!held) return;
    held = false;
    heldHere.delete(path);
    process.off('exit', release);
    // Another process may have judged this lock stale (this one was frozen): never remove a successor's file.
    if (readOwner(path)?.token !== owner.token) return;
    try {
      unlinkSync(path);
    } catch {
      // Gone already: nothing to release.
    }
  };
  // A normal exit (or process.exit) without close still lets go; a kill -9 leaves a stale lock, taken over later.
  process.on('exit', release);
  return { path, owner, release };
}
