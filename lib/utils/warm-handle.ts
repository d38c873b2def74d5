/**
 * One connection-like handle per warm process, opened on first use: a pool or a connection per request would cost
 * a handshake (or PGlite's start) each time. A failed open is forgotten, so the next caller tries again.
 */
export class WarmHandle<T extends { close(): Promise<void> }> {
  private opening: Promise<T> | null = null;

  /** The handle, opened by `open` unless already open (or opening). */
  get(open: () => Promise<T>): Promise<T> {
    this.opening ??= open().catch((error: unknown) => {
      this.opening = null;
      throw error;
    });
    return this.opening;
  }

  /** Forgets the handle and closes it (tests that switch between cases; `serve` on shutdown). */
  async reset(): Promise<void> {
    const handle = this.opening;
    this.opening = null;
    await (await handle?.catch(() => null))?.close();
  }
}
