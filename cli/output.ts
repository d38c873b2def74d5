import type { Writable } from 'node:stream';

/** Writes data lines to stdout with backpressure; a closed pipe (`| head`) ends the program quietly. */
export class LineWriter {
  private closed = false;

  constructor(private readonly stream: Writable = process.stdout) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error;
      this.closed = true;
    });
  }

  /** True once the reader went away: the caller should stop producing. */
  get isClosed(): boolean {
    return this.closed;
  }

  /** Writes lines (one string per line), waiting for the pipe to drain when it is full. */
  async lines(lines: string[]): Promise<void> {
    if (this.closed || lines.length === 0) return;
    if (!this.stream.write(`${lines.join('\n')}\n`)) await this.drained();
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

  /** Writes one JSON object per line. */
  async json(objects: unknown[]): Promise<void> {
    await this.lines(objects.map((object) => JSON.stringify(object)));
  }
}
