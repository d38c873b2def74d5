// This engine: the public streaming walker, counting the page URLs of each batch.
import { walkSitemap } from '../../lib/factory/sitemap.js';
import { emitResult, targetUrl } from './result.js';

const url = targetUrl();
const started = performance.now();
let urls = 0;
let errors = 0;
const onEvent = (event: { type: string }) => {
  if (event.type !== 'error') return;
  // The first few on stderr: a run that finds fewer URLs than the tree has should say why.
  if ((errors += 1) <= 3) process.stderr.write(`engine error: ${JSON.stringify(event)}\n`);
};
for await (const batch of walkSitemap(url, { net: { allowPrivate: true }, onEvent })) urls += batch.length;
emitResult({ urls, errors, walkMs: performance.now() - started });
