import { createWriteStream } from 'node:fs';
import { rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { FactoryError } from '../lib/index.js';
import { UsageError } from './io.js';
import { outputFailureMessage } from './output-failure.js';

/**
 * Writes data lines with backpressure; a closed pipe (`| head`, EPIPE) marks it closed so the run ends quietly. Any
 * other write error (a full disk) closes it too, and is kept as the run's `output_failed`.
 */
export class LineWriter {
  private closed = false;
  private writeError: NodeJS.ErrnoException | null = null;

  /** `target` names where the lines go in an error: `stdout` or the file's path. */
  constructor(
    readonly stream: Writable,
    private readonly target = 'stdout',
  ) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE' && error.code !== 'ERR_STREAM_DESTROYED') this.writeError ??= error;
      this.closed = true;
    });
  }

  /** True once the reader went away or a write failed: the caller should stop producing. */
  get isClosed(): boolean {
    return this.closed || this.stream.destroyed;
  }

  /** The write that failed (not a closed pipe), as an `output_failed` error, or null. */
  get failure(): FactoryError | null {
    return this.writeError === null ? null : new FactoryError('output_failed', outputFailureMessage(this.target, this.writeError));
  }

  /**
   * Writes text (or bytes) as is, waiting for the stream to drain when it is full; `written` is called once the
   * stream is done with the bytes (their memory may then be reused), never if they are not written.
   */
  async raw(text: string | Uint8Array, written?: () => void): Promise<void> {
    if (this.isClosed || text.length === 0) return;
    if (!this.stream.write(text, written === undefined ? undefined : (error) => error == null && written())) await this.drained();
  }

  /** Writes lines (one string per line). */
  async lines(lines: string[]): Promise<void> {
    if (lines.length > 0) await this.raw(`${lines.join('\n')}\n`);
  }

  /** Writes one JSON object per line. */
  async json(objects: unknown[]): Promise<void> {
    await this.lines(objects.map((object) => JSON.stringify(object)));
  }

  /** Waits for 'drain' (or 'close'), removing both listeners so a long walk does not pile them up. */
  private drained(): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        this.stream.off('drain', done);
        this.stream.off('close', done);
        resolve();
      };
      this.stream.on('drain', done);
      this.stream.on('close', done);
    });
  }
}

/** Where data goes: stdout, or a file written atomically (a temp file renamed into place only on success). */
export interface DataSink {
  writer: LineWriter;
  /** Renames the file into place (or does nothing for stdout). */
  commit(): Promise<void>;
  /** Removes the temp file: a failed run leaves no file behind. */
  discard(): Promise<void>;
}

/** Stdout as a sink. */
export function stdoutSink(stdout: Writable): DataSink {
  return { writer: new LineWriter(stdout), commit: async () => undefined, discard: async () => undefined };
}

/** A file as a sink: written to `.name.tmp-PID-RAND` beside it, renamed over it by `commit`. */
export async function fileSink(path: string): Promise<DataSink> {
  const temp = join(dirname(path), `.${basename(path)}.tmp-${process.pid}-${Math.random().toString(36).slice(2, 8)}`);
  const stream = createWriteStream(temp, { flags: 'wx' });
  await once(stream, 'open').catch((error: NodeJS.ErrnoException) => {
    throw new UsageError(
      `-o ${path}: cannot write a file there (${error.code ?? error.message} in ${dirname(path)}): pass a file in a folder this user can write`,
    );
  });
  const finish = async () => {
    if (!stream.closed) {
      stream.end();
      await once(stream, 'close');
    }
  };
  return {
    writer: new LineWriter(stream, path),
    commit: async () => {
      await finish();
      await rename(temp, path);
    },
    discard: async () => {
      await finish();
      await unlink(temp).catch(() => undefined);
    },
  };
}

/** The CSV columns of `--format csv`. */
export const CSV_HEADER = 'url,lastmod,changefreq,priority,locale,source';
