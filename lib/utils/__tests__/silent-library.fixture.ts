// Run as a child by silent-library.test.ts: walks a site with a failing child, breaks after the first batch.
import { walkSitemap } from '../../factory/sitemap.js';
import { closeAgents } from '../../factory/fetch/index.js';

const [url = ''] = process.argv.slice(2);
for await (const batch of walkSitemap(url, { net: { allowPrivate: true } })) {
  if (batch.length > 0) break;
}
await closeAgents();
