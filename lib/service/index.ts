// The service's public entry point (`crawler-factory/service`): the web-standard handlers' plumbing, the routes behind
// api/, the local server behind `serve`, health, schedules and the configuration they read. api/ and the CLI import
// the service from here only.
export {
  ConfigError,
  DEFAULT_PGBOSS_SETTINGS,
  factoryConfig,
  inMemoryStoreWarning,
  logLevelFrom,
  readFactoryConfig,
  type FactoryConfig,
} from '../config/factory-config.js';
export { DEFAULT_SLICE_BUDGET_MS, ESTIMATE_BUDGET_MS, SLICE_HARD_LIMIT_MS } from './api-limits.js';
export {
  type BackgroundEvent,
  DEFAULT_SLICE_WORKER_OPTIONS,
  type SliceWorkerOptions,
  enableBackgroundSyncs,
  resumeRunningSyncs,
  startBackgroundSyncs,
} from './background-syncs.js';
export { assertSitesAuthorized } from './download-token.js';
export { handle, preflight } from './handler.js';
export type { RouteHandlers } from './api-routes.js';
export { healthResponse, serviceHealth } from './health.js';
export { checkListenAddress } from './listen-policy.js';
export { accessLog, startLocalApiServer } from './local-server.js';
export { parseQuery, readJsonBody } from './request.js';
export { DeleteJobQuerySchema, DiscoverQuerySchema, EstimateRequestSchema, JobActionRequestSchema, StartJobRequestSchema } from './request-schemas.js';
export { errorResponse, json } from './responses.js';
export { startScheduleTimer } from './schedule-timer.js';
export { createService, openConfiguredStore, serviceFromEnvironment, type ServiceContext, type ServiceSource } from './service.js';
export { parseSitesPath } from './sites-path.js';
export { assertCronAuthorized, cronTick } from './cron.js';
export { sitesRoute } from './sites-api.js';
export { advanceJob, sliceFailedRoute, sliceRoute } from './queued-slices.js';
export { deadlineStep } from './function-step.js';
export { Semaphore } from '../utils/semaphore.js';
