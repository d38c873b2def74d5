import { decodeBody } from './decode-body.js';
import type { SafeResponse } from './types.js';

/**
 * Reads at most `maxBytes` of text (RFC 9309: parse the first 500 KiB) and stops without error.
 * UTF-8, BOM stripped; a gzip body some servers send anyway is decoded, pulled only as far as needed.
 */
export async function readTextCapped(response: SafeResponse, maxBytes: number): Promise<{ text: string; truncated: boolean }> {
  const contentEncoding = response.headers.get('content-encoding');
  let taken: { bytes: Buffer; truncated: boolean };
  try {
    // No decompressed cap here: reading stops at maxBytes, and decoding only runs as far as reading pulls it.
    const decoded = await decodeBody(response.body, { url: response.url, contentEncoding, maxBytes: Number.MAX_SAFE_INTEGER });
    taken = await takeBytes(decoded.bytes, maxBytes);
  } catch (error) {
    await response.discard();
    throw error;
  }
  const { bytes, truncated } = taken;
  const whole = truncated ? bytes.subarray(0, completeUtf8Length(bytes)) : bytes;
  return { text: new TextDecoder('utf-8').decode(whole), truncated };
}

// The first `maxBytes` of a stream; leaving the loop early stops the download as well.
async function takeBytes(stream: AsyncIterable<Uint8Array>, maxBytes: number): Promise<{ bytes: Buffer; truncated: boolean }> {
  const chunks: Uint8Array[] = [];
  let have = 0;
  for await (const chunk of stream) {
    const room = maxBytes - have;
    if (chunk.length > room) {
      chunks.push(chunk.subarray(0, room));
      return { bytes: Buffer.concat(chunks), truncated: true };
    }
    chunks.push(chunk);
    have += chunk.length;
  }
  return { bytes: Buffer.concat(chunks), truncated: false };
}

/** Length of `bytes` without a multi-byte UTF-8 sequence cut at the end (so a cut never adds U+FFFD). */
export function completeUtf8Length(bytes: Uint8Array): number {
  for (let back = 1; back <= Math.min(3, bytes.length); back += 1) {
    const byte = bytes[bytes.length - back] ?? 0;
    if ((byte & 0xc0) === 0x80) continue; // continuation byte: look further back for the lead
    const needed = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return needed > back ? bytes.length - back : bytes.length;
  }
  return bytes.length;
}
