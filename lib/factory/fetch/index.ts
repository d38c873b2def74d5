/** Safe fetching: SSRF guard, one deadline per request, manual redirects, byte caps, gzip by magic bytes. */
export type { RequestOptions, SafeResponse, OpenSitemapOptions, OpenedSitemap, ConditionalRequest, NotModifiedSitemap } from './types.js';
export { RedirectDeclined } from './types.js';
export type { AddressClass } from './ip-classifier.js';
export { safeRequest } from './http-client.js';
export { openSitemap, openSitemapIfModified } from './open-sitemap.js';
export { readTextCapped } from './read-text.js';
export { probeUrl } from './probe.js';
export { classifyAddress } from './ip-classifier.js';
export { assertUrlAllowed } from './ssrf-guard.js';
export { assertHostAllowed } from './resolve-target.js';
export { closeAgents, MAX_HEADER_BYTES } from './agent.js';
export { MAX_GZIP_LAYERS } from './decode-body.js';
