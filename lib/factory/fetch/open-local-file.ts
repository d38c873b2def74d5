import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { FactoryError, LimitError } from '../../core/errors.js';
import { decodeBody } from './decode-body.js';
import type { OpenSitemapOptions, OpenedSitemap } from './types.js';

/**
 * Opens a sitemap file on disk (`file:` URL) as `openSitemap` opens a response: the same caps and the same gzip
 * sniffing by magic bytes, so a `.xml.gz` file reads like a gzipped response. Only for callers that chose to
 * read local files (the CLI's path inputs); a service never reaches this with a caller's URL.
 */
export async function openLocalSitemap(fileUrl: string, options: OpenSitemapOptions): Promise<OpenedSitemap> {
  const path = fileURLToPath(fileUrl);
  const size = await stat(path).then(
    (info) => info.size,
    (error: unknown) => {
      throw new FactoryError('not_found', `cannot read ${path}: ${error instanceof Error ? error.message : String(error)}`, { url: fileUrl, cause: error });
    },
  );
  if (size > options.maxDownloadBytes) {
    throw new LimitError('too_large', `file of ${size} bytes exceeds ${options.maxDownloadBytes}`, {
      url: fileUrl,
      bytes: size,
      limit: options.maxDownloadBytes,
    });
  }
  const read = { bytes: 0 };
  const { gzipped, bytes } = await decodeBody(counted(createReadStream(path), read), {
    url: fileUrl,
    contentEncoding: null,
    maxBytes: options.maxUncompressedBytes,
  });
  const served = { contentType: null, contentEncoding: null, etag: null, lastModified: null };
  return { url: fileUrl, status: 200, ...served, gzipped, bytes, declaredBytes: size, wireBytes: () => read.bytes };
}

async function* counted(source: AsyncIterable<Buffer>, read: { bytes: number }): AsyncGenerator<Uint8Array> {
  for await (const chunk of source) {
    read.bytes += chunk.length;
    yield chunk;
  }
}
