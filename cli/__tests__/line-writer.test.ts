import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { LineWriter } from '../output.js';

// A stream that fails its writes as a full disk does.
function failingWith(code: string, message: string): Writable {
  return new Writable({ write: (_chunk, _encoding, done) => done(Object.assign(new Error(message), { code })) });
}

describe('LineWriter', () => {
  it('a write that fails (a full disk) closes it and is kept as output_failed naming the target', async () => {
    const writer = new LineWriter(failingWith('ENOSPC', 'ENOSPC: no space left on device, write'), '/data/urls.txt');
    await writer.lines(['https://example.com/a']);
    expect(writer.isClosed).toBe(true);
    expect(writer.failure?.toJSON()).toMatchObject({
      kind: 'output_failed',
      message: 'writing /data/urls.txt failed (ENOSPC: no space left on device, write): free some space or write elsewhere',
    });
  });

  it('a closed pipe closes it quietly: no failure', async () => {
    const writer = new LineWriter(failingWith('EPIPE', 'EPIPE: broken pipe, write'));
    await writer.lines(['https://example.com/a']);
    expect(writer.isClosed).toBe(true);
    expect(writer.failure).toBeNull();
  });
});
