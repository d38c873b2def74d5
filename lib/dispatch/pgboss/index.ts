// The pg-boss engine: sync slices as jobs in the inventory's Postgres, run by any number of `worker` processes.
export { DEFAULT_PGBOSS_SETTINGS, type PgBossSettings } from '../../config/factory-config.js';
export { type PgBossEngineOptions, startPgBossEngine } from './pgboss-engine.js';
export { SLICE_BUDGET_MS } from './slice-job.js';
