import { closeSync, mkdtempSync, openSync, readSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StoreError } from './store-errors.js';

/**
 * Shard text (UTF-16 units; about bytes for URLs) a shelf keeps in memory before it writes further shards to its
 * spill file. A sync reads sitemaps much faster than its sink applies them (a 1M-URL site into PGlite: every shard
 * read within the first slice, 250 MB of JSON in the heap); past this, shards wait on disk, where they cost a
 * sequential write and one read each.
 */
export const SHARD_MEMORY_CHARS = 8 * 1024 * 1024;

// Where a spilled shard sits in its shelf's file.
interface Spilled {
  position: number;
  bytes: number;
}

/**
 * The shards of one in-memory job: JSON text by shard number, the first ones in memory and the rest in a file of
 * their own under the process's spill folder (made on first use, removed with its last file and at exit). Dropped
 * shards free their memory at once; a file's space comes back when the job is cleared.
 */
export class ShardShelf {
  private readonly held = new Map<number, string>();
  private readonly spilled = new Map<number, Spilled>();
  private heldChars = 0;
  private file: { fd: number; path: string; end: number } | null = null;

  constructor(private readonly memoryChars = SHARD_MEMORY_CHARS) {}

  set(shard: number, text: string): void {
    if (this.heldChars + text.length <= this.memoryChars) {
      this.held.set(shard, text);
      this.heldChars += text.length;
      return;
    }
    const file = this.openFile();
    const bytes = Buffer.from(text, 'utf8');
    writeFully(file.fd, bytes, file.end);
    this.spilled.set(shard, { position: file.end, bytes: bytes.length });
    file.end += bytes.length;
  }

  get(shard: number): string | undefined {
    const text = this.held.get(shard);
    if (text !== undefined) return text;
    const at = this.spilled.get(shard);
    if (at === undefined || this.file === null) return undefined;
    const bytes = Buffer.allocUnsafe(at.bytes);
    for (let read = 0; read < at.bytes;) {
      const got = readSync(this.file.fd, bytes, read, at.bytes - read, at.position + read);
      // Cut short under us (the temp folder cleaned by someone else): an error, not a loop reading nothing forever.
      if (got === 0) throw new StoreError('corrupt', `spilled shard ${shard} ends early in ${this.file.path}`, { key: this.file.path });
      read += got;
    }
    return bytes.toString('utf8');
  }

  delete(shard: number): void {
    const text = this.held.get(shard);
    if (text !== undefined) {
      this.held.delete(shard);
      this.heldChars -= text.length;
    }
    this.spilled.delete(shard);
  }

  /** The spill file's path while it exists (for tests and diagnosis). */
  get spillFile(): string | null {
    return this.file?.path ?? null;
  }

  /** Forgets every shard and removes the spill file. */
  clear(): void {
    this.held.clear();
    this.spilled.clear();
    this.heldChars = 0;
    if (this.file === null) return;
    closeSync(this.file.fd);
    unlinkSync(this.file.path);
    this.file = null;
    releaseFolder();
  }

  private openFile(): { fd: number; path: string; end: number } {
    if (this.file !== null) return this.file;
    const path = join(spillFolder(), `shards-${(nextFile += 1)}`);
    this.file = { fd: openSync(path, 'wx+', 0o600), path, end: 0 };
    filesInFolder += 1;
    return this.file;
  }
}

function writeFully(fd: number, bytes: Buffer, position: number): void {
  let written = 0;
  while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written, position + written);
}

let folder: string | null = null;
let filesInFolder = 0;
let nextFile = 0;
let cleanupAtExit = false;

// One private folder per process while any shelf has a spill file, removed with the last file and at exit (a process
// killed with SIGKILL leaves it in the temp folder).
function spillFolder(): string {
  if (folder !== null) return folder;
  folder = mkdtempSync(join(tmpdir(), 'crawler-factory-shards-'));
  if (!cleanupAtExit) {
    cleanupAtExit = true;
    process.once('exit', () => {
      if (folder !== null) rmSync(folder, { recursive: true, force: true });
    });
  }
  return folder;
}

function releaseFolder(): void {
  filesInFolder -= 1;
  if (filesInFolder > 0 || folder === null) return;
  rmSync(folder, { recursive: true, force: true });
  folder = null;
}
