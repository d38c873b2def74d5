// The benchmark tree in its own process, so its memory and CPU for generation never count against a contender.
import { parseArgs } from 'node:util';
import { benchChildChunks, benchWireOf, startBenchTree } from '../test/sites/bench-tree.js';
import { READY_MARKER, type TreeReady } from './harness/protocol.js';

const { values } = parseArgs({
  options: { children: { type: 'string' }, 'per-child': { type: 'string' }, wire: { type: 'string' }, amp: { type: 'boolean' } },
});
const amp = values.amp === true;
const wire = benchWireOf(values.wire);
const tree = await startBenchTree({ children: Number(values.children ?? 20), perChild: Number(values['per-child'] ?? 50_000), wire, amp });
// Every child has the same length (fixed-width numbers, the same cycle of words), so one is measured.
const childBytes = [...benchChildChunks(new URL(tree.indexUrl).origin, 0, Number(values['per-child'] ?? 50_000), amp)].reduce(
  (sum, chunk) => sum + Buffer.byteLength(chunk),
  0,
);
const xmlBytes = childBytes * Number(values.children ?? 20);
const ready: TreeReady = { indexUrl: tree.indexUrl, expectedUrls: tree.expectedUrls, cachedChildren: tree.cachedChildren, xmlBytes };
process.stdout.write(`${READY_MARKER}${JSON.stringify(ready)}\n`);
const stop = () => void tree.close().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
