import { isFactoryError, RequestError } from '../lib/index.js';
import { runningSync, type InventoryDb } from '../lib/inventory/index.js';

/**
 * Runs `work` on site `siteId`; a `conflict` over the site's running sync is said with the CLI's way on. After a
 * kill, that sync's process is gone and nothing else will end it: `sync --resume ID` goes on with it, or (its job
 * gone with the memory job store) ends it `failed`, which frees the site.
 */
export async function withRunningSyncWayOut<T>(db: InventoryDb, siteId: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!isFactoryError(error) || error.kind !== 'conflict') throw error;
    const running = await runningSync(db, siteId);
    if (running === null) throw error;
    throw new RequestError(
      'conflict',
      `site ${siteId} has a running sync ${running.syncId} (last moved ${running.updatedAt}): go on with it, or end one whose process was killed, ` +
        `with: crawler-factory sync --resume ${running.syncId}`,
    );
  }
}
