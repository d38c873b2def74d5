import { createReadStream } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { dirname, join, normalize, sep } from 'node:path';
import { createGunzip } from 'node:zlib';
import { makeDirs } from '../utils/make-dirs.js';

const BLOCK = 512;

/** A tar entry's header, as the template's writer (PGlite's `dumpDataDir`) spells it: ustar, files and folders only. */
interface TarHeader {
  path: string;
  mode: number;
  size: number;
  folder: boolean;
}

// A NUL-terminated field of a header.
const field = (block: Buffer, from: number, length: number): string => {
  const end = block.indexOf(0, from);
  return block.toString('latin1', from, end === -1 || end > from + length ? from + length : end);
};

const octal = (block: Buffer, from: number, length: number, what: string): number => {
  const text = field(block, from, length).trim();
  if (!/^[0-7]*$/.test(text)) throw new Error(`the PGlite template's ${what} is not octal: ${JSON.stringify(text)}`);
  return text === '' ? 0 : Number.parseInt(text, 8);
};

// The header in `block`, or null at the end-of-archive block. The path stays inside the folder it is unpacked into.
function readHeader(block: Buffer): TarHeader | null {
  if (block.every((byte) => byte === 0)) return null;
  if (field(block, 257, 6) !== 'ustar') throw new Error('the PGlite template is not a ustar archive');
  const type = String.fromCharCode(block[156] ?? 0);
  if (type !== '0' && type !== '\0' && type !== '5')
    throw new Error(`the PGlite template holds an entry of type ${JSON.stringify(type)}: only files and folders are unpacked`);
  const prefix = field(block, 345, 155);
  const name = field(block, 0, 100);
  const path = normalize(`${prefix === '' ? '' : `${prefix}/`}${name}`).replace(/^[/\\]+/, '');
  if (path === '' || path === '.' || path.split(sep).includes('..'))
    throw new Error(`the PGlite template names a path outside its folder: ${JSON.stringify(name)}`);
  return { path, mode: octal(block, 100, 8, 'mode') & 0o777, size: octal(block, 124, 12, 'size'), folder: type === '5' };
}

/**
 * Unpacks the PGlite template (a gzipped ustar of a fresh data directory, as `dumpDataDir` writes it) into `into`,
 * streaming: what PGlite's own `loadDataDir` does before it starts, without starting a PGlite (about 340 MB) for it.
 * Hand-written rather than a tar library: the archive is our own build's, of one writer's two entry types.
 */
export async function unpackTemplate(file: string, into: string): Promise<void> {
  let pending = Buffer.alloc(0);
  // The file being written, and its bytes still to come; then the padding to its block's end.
  let current: { handle: FileHandle; left: number } | null = null;
  let padding = 0;
  let ended = false;
  const folders = new Set<string>();
  try {
    for await (const chunk of createReadStream(file).pipe(createGunzip())) {
      let data = pending.length === 0 ? (chunk as Buffer) : Buffer.concat([pending, chunk as Buffer]);
      pending = Buffer.alloc(0);
      while (data.length > 0 && !ended) {
        if (current !== null) {
          const piece = data.subarray(0, current.left);
          await current.handle.write(piece);
          current.left -= piece.length;
          data = data.subarray(piece.length);
          if (current.left > 0) continue;
          await current.handle.close();
          current = null;
          continue;
        }
        if (padding > 0) {
          const skipped = Math.min(padding, data.length);
          padding -= skipped;
          data = data.subarray(skipped);
          continue;
        }
        if (data.length < BLOCK) {
          pending = Buffer.from(data);
          break;
        }
        const header = readHeader(data.subarray(0, BLOCK));
        data = data.subarray(BLOCK);
        if (header === null) {
          ended = true;
          break;
        }
        const target = join(into, header.path);
        if (header.folder) {
          await makeDirs(target, header.mode);
          continue;
        }
        if (!folders.has(dirname(target))) {
          await makeDirs(dirname(target));
          folders.add(dirname(target));
        }
        const handle = await open(target, 'wx', header.mode);
        padding = (BLOCK - (header.size % BLOCK)) % BLOCK;
        if (header.size === 0) await handle.close();
        else current = { handle, left: header.size };
      }
    }
  } finally {
    await current?.handle.close();
  }
  if (!ended || current !== null) throw new Error(`the PGlite template ${file} ends before its end-of-archive block`);
}
