/** The next free request slot per host, shared by every walk of this process so politeness holds across them. */
const nextSlot = new Map<string, number>();
const MAX_HOSTS = 10_000;

/**
 * Waits until `host` may be asked again at `perSecond` requests a second (slots handed out in order, so
 * concurrent readers queue rather than burst). Resolves at once without a rate; an abort ends the wait early.
 */
export async function waitForSlot(host: string, perSecond: number | null | undefined, signal?: AbortSignal): Promise<void> {
  if (!perSecond) return;
  const now = Date.now();
  const slot = Math.max(now, nextSlot.get(host) ?? 0);
  if (nextSlot.size >= MAX_HOSTS && !nextSlot.has(host)) nextSlot.clear();
  nextSlot.set(host, slot + 1000 / perSecond);
  if (slot > now) await sleep(slot - now, signal);
}

/** A pause that an abort cuts short (the caller then sees the aborted signal on its next step). */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    if (signal?.aborted) done();
    else signal?.addEventListener('abort', done, { once: true });
  });
}
