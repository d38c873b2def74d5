// Loads the library's walk as a program would and prints which undici files that loaded (undici-parts.test.ts).
import { createRequire } from 'node:module';
import '../../sitemap.js';

const loaded = Object.keys(createRequire(import.meta.url).cache).filter((path) => path.includes('/node_modules/undici/'));
process.stdout.write(JSON.stringify(loaded));
