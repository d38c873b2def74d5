/** The first `count` bytes of a stream and the whole stream again (those bytes included), for sniffing. */
export async function peekBytes(source: AsyncIterable<Uint8Array>, count: number): Promise<{ head: Uint8Array; stream: AsyncIterable<Uint8Array> }> {
  const iterator = source[Symbol.asyncIterator]();
  const buffered: Uint8Array[] = [];
  let have = 0;
  let done = false;
  while (have < count && !done) {
    const next = await iterator.next();
    if (next.done) done = true;
    else if (next.value.length > 0) {
      buffered.push(next.value);
      have += next.value.length;
    }
  }
  return { head: Buffer.concat(buffered).subarray(0, count), stream: replay(buffered, iterator, done) };
}

// Hands out what was peeked, then the rest straight from the source (no generator in between: one promise hop
// less per chunk); hands a stop on to the source so its socket is released.
function replay(buffered: Uint8Array[], iterator: AsyncIterator<Uint8Array>, done: boolean): AsyncIterableIterator<Uint8Array> {
  return {
    [Symbol.asyncIterator]() {
      return this;
    },
    next(): Promise<IteratorResult<Uint8Array>> {
      const head = buffered.shift();
      if (head !== undefined) return Promise.resolve({ value: head, done: false });
      return done ? Promise.resolve({ value: undefined, done: true }) : iterator.next();
    },
    async return(): Promise<IteratorResult<Uint8Array>> {
      buffered.length = 0;
      if (!done) await iterator.return?.();
      return { value: undefined, done: true };
    },
  };
}

/** Re-cuts a stream into pieces of at most `size` bytes (no copies: views on the same memory). */
export async function* slices(source: AsyncIterable<Uint8Array>, size: number): AsyncGenerator<Uint8Array> {
  for await (const chunk of source) {
    for (let offset = 0; offset < chunk.length; offset += size) yield chunk.subarray(offset, offset + size);
  }
}
