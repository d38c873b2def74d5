// A sync worker in a child process, for the crash test: advances one sync in small slices and prints each step
// as a JSON line until the sync ends (or the test kills it with SIGKILL).
import { connectRedisJobStore } from '../../store/open-job-store.js';
import { openInventoryDb } from '../open-db.js';
import { advanceSync } from '../sync-driver.js';
import { LOOPBACK_NET } from './inventory-fixtures.js';

const { DATABASE_URL, INVENTORY_SCHEMA, INVENTORY_DB_DIR, REDIS_URL, SYNC_ID } = process.env;
if (!REDIS_URL || !SYNC_ID) throw new Error('sync-worker needs REDIS_URL and SYNC_ID');
const db = DATABASE_URL
  ? await openInventoryDb({ databaseUrl: DATABASE_URL, ...(INVENTORY_SCHEMA ? { schema: INVENTORY_SCHEMA } : {}) })
  : await openInventoryDb({ dataDir: INVENTORY_DB_DIR ?? null });
const store = await connectRedisJobStore(REDIS_URL);
for (;;) {
  const sync = await advanceSync({ db, store, net: LOOPBACK_NET }, SYNC_ID, { budgetMs: 300, workerId: `child-${process.pid}` });
  process.stdout.write(`${JSON.stringify({ state: sync.state, seen: sync.seen, shardsApplied: sync.shardsApplied })}\n`);
  if (sync.state !== 'running') break;
}
await store.close();
await db.close();
