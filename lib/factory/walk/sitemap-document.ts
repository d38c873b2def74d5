import { PROLOG_BYTES, readProlog, type DocumentProlog } from '../parse/document-prolog.js';
import type { OpenedSitemap } from '../fetch/types.js';

/** How a sitemap was served and how its document starts: what the findings judge beyond its entries. */
export interface SitemapDocument {
  /** Where it was read from after redirects (the sitemap's own URL when it did not redirect). */
  finalUrl: string;
  contentType: string | null;
  contentEncoding: string | null;
  /** At least one gzip layer was removed (by header or by magic bytes). */
  gzipped: boolean;
  prolog: DocumentProlog;
}

/** Gathers a document's first bytes as they stream by (at most PROLOG_BYTES, copied once) and reads its prolog. */
export class DocumentStart {
  private readonly parts: Uint8Array[] = [];
  private held = 0;

  see(chunk: Uint8Array): void {
    if (this.held >= PROLOG_BYTES) return;
    const part = chunk.subarray(0, PROLOG_BYTES - this.held);
    this.parts.push(part);
    this.held += part.byteLength;
  }

  document(opened: OpenedSitemap): SitemapDocument {
    const { url: finalUrl, contentType, contentEncoding, gzipped } = opened;
    return { finalUrl, contentType, contentEncoding, gzipped, prolog: readProlog(Buffer.concat(this.parts)) };
  }
}
