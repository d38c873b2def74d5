import { safeRequest } from './http-client.js';
import type { RequestOptions } from './types.js';

/**
 * HEAD answers that may only mean "HEAD not supported here" (405, 501, 403 from picky WAFs, 400, 5xx),
 * so a GET gets the real answer. 404/410 are taken at their word and 429 is not hammered again.
 */
const FINAL_HEAD_STATUSES = new Set([404, 410, 429]);

/** Whether a URL answers (fallback chain): HEAD, then GET when HEAD's failure may be HEAD's own; bodies discarded. */
export async function probeUrl(url: string, options: RequestOptions): Promise<{ status: number; url: string }> {
  const head = await safeRequest(url, { ...options, method: 'HEAD' });
  await head.discard();
  if (head.status < 400 || FINAL_HEAD_STATUSES.has(head.status)) return { status: head.status, url: head.url };
  const get = await safeRequest(url, { ...options, method: 'GET' });
  await get.discard();
  return { status: get.status, url: get.url };
}
