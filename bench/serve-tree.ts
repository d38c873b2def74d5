// The benchmark tree in its own process, so its memory and CPU for generation never count against a contender.
import { parseArgs } from 'node:util';
import { startBenchTree } from '../lib/demo/bench-tree.js';
import { READY_MARKER, type TreeReady } from './harness/protocol.js';

const { values } = parseArgs({ options: { children: { type: 'string' }, 'per-child': { type: 'string' } } });
const tree = await startBenchTree({ children: Number(values.children ?? 20), perChild: Number(values['per-child'] ?? 50_000) });
const ready: TreeReady = { indexUrl: tree.indexUrl, expectedUrls: tree.expectedUrls, cachedChildren: tree.cachedChildren };
process.stdout.write(`${READY_MARKER}${JSON.stringify(ready)}\n`);
const stop = () => void tree.close().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
