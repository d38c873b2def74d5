// @crawlee/utils parseSitemap: an async iterable of page entries, one sitemap at a time.
import { parseSitemap } from '@crawlee/utils';
import { emitResult, targetUrl } from './result.js';

const url = targetUrl();
const started = performance.now();
let urls = 0;
for await (const entry of parseSitemap([{ type: 'url', url }])) if (entry.loc) urls += 1;
emitResult({ urls, errors: 0, walkMs: performance.now() - started });
