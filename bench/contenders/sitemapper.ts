// sitemapper: fetch() resolves once with every page URL of the tree in one array.
import Sitemapper from 'sitemapper';
import { emitResult, targetUrl } from './result.js';

const url = targetUrl();
const started = performance.now();
const mapper = new Sitemapper({ url, timeout: 300_000, concurrency: 8 });
const { sites, errors } = await mapper.fetch();
emitResult({ urls: sites.length, errors: errors.length, walkMs: performance.now() - started });
