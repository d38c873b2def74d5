import { finished, type Readable } from 'node:stream';

/**
 * Iterates a readable as `for await` does, except that a failure (a cut connection, a decoder error) is thrown only
 * after every chunk the stream buffered before it. Node's own iterator stops reading once the stream is destroyed,
 * dropping those chunks, so how much of a cut body got read would depend on timing; here it never does.
 */
export async function* drainReadable(stream: Readable): AsyncGenerator<Uint8Array> {
  let ended = false;
  let failure: unknown = null;
  let wake: (() => void) | null = null;
  const signal = (): void => {
    const resume = wake;
    wake = null;
    resume?.();
  };
  stream.on('readable', signal);
  const stopWatching = finished(stream, { writable: false }, (error) => {
    ended = true;
    failure = error ?? null;
    signal();
  });
  try {
    for (;;) {
      // read() still hands out what was buffered after the stream was destroyed.
      const chunk = stream.read() as Uint8Array | null;
      if (chunk !== null) {
        yield chunk;
        continue;
      }
      if (ended) {
        if (failure !== null) throw failure;
        return;
      }
      await new Promise<void>((resolve) => (wake = resolve));
    }
  } finally {
    stream.off('readable', signal);
    stopWatching();
    // An error the stream emits after its reader left (an abort in flight, a late reset) concerns nobody any more:
    // without a listener it would be thrown as an uncaught exception.
    stream.on('error', ignore);
    // A consumer that stops early releases the stream, as leaving a `for await` does.
    if (!stream.destroyed) stream.destroy();
  }
}

const ignore = (): void => undefined;
