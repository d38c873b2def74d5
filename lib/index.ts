/** The `crawler-factory` library: discovery, streaming walks, scope estimates and path groups (silent unless given a logger). */
export {
  walkSitemap,
  walkSitemapEntries,
  walkShardEntries,
  walkSitemapEvents,
  walkUrlEvents,
  discoverSitemaps,
  isSiteRoot,
  BATCH_SIZE,
  type WalkCallOptions,
  type WalkEvent,
} from './factory/sitemap.js';
export { ValidatorLog, validatorKey } from './factory/walk/validator-log.js';
export { ValidatorsSchema } from './core/types.js';
export { estimateScope } from './factory/scope/scope-estimator.js';
export { groupByPathPrefix } from './factory/scope/path-grouper.js';
export { FactoryError, isFactoryError, ERROR_KINDS, type ErrorKind } from './core/errors.js';
export { compileFilter, FilterOptionsSchema, type FilterOptions, type FilterOptionsInput, type EntryFilter } from './factory/filter/index.js';
export { DEFAULT_LIMITS, WalkOptionsSchema, type WalkOptions, type WalkOptionsInput, type NetPolicy, type ProxyOptions } from './core/limits.js';
export { closeAgents } from './factory/fetch/agent.js';
export type * from './core/types.js';
export { RequestError } from './core/errors.js';
export { type NetPolicyInput, REFUSED_HEADERS, parseResolveEntry, resolveWalkOptions } from './core/limits.js';
export { discover } from './factory/discovery/discovery.js';
export * from './factory/findings/index.js';
export { proxyFromEnv } from './factory/fetch/proxy.js';
export { walkLimits } from './factory/sitemap.js';
export { parseSiteUrl } from './factory/url/site-url.js';
export { DROP_REASONS, addLocDrops, locDropsText, type LocDrops } from './core/loc-drops.js';
// Logs: silent unless the caller hands over a logger (useLogger, or a walk's `logger` option) or turns pino's own JSON
// lines on (setLogLevel, sendLogsTo; logLevelFrom reads FACTORY_LOG_LEVEL / LOG_LEVEL from an environment it is given).
export { createLogger, sendLogsTo, setLogLevel, useLogger, type LoggerLike } from './utils/logger.js';
export { logLevelFrom } from './config/factory-config.js';
