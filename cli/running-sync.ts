import { RunningSyncConflict } from '../lib/inventory/index.js';

/**
 * Runs `work`; whatever the site's running sync refuses is said with the CLI's way on. After a kill, that sync's process
 * is gone and nothing else will end it: `sync --resume ID` goes on with it, or (its job gone with the memory job store)
 * ends it `failed`, which frees the site.
 */
export async function withRunningSyncWayOut<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof RunningSyncConflict)) throw error;
    throw error.withWaysOn(`go on with it, or end one whose process was killed, with: crawler-factory sync --resume ${error.running.syncId}`);
  }
}
