import { ConfigError } from '../config/factory-config.js';
import { isFactoryError } from '../core/errors.js';
import { StoreError } from '../store/store-errors.js';

/** What DATABASE_URL must look like; the message never repeats the value (it carries the password). */
export const DATABASE_URL_EXPECTED = 'expected a postgres:// or postgresql:// URL';

/** True for a Postgres connection URL the driver can use. */
export function isDatabaseUrl(value: string): boolean {
  return URL.canParse(value) && /^postgres(ql)?:$/.test(new URL(value).protocol);
}

/** The DATABASE_URL of `env` (null when unset or empty); a malformed one is a `config` error naming the variable. */
export function databaseUrlFrom(env: Record<string, string | undefined>): string | null {
  const value = env.DATABASE_URL;
  if (value === undefined || value === '') return null;
  if (!isDatabaseUrl(value)) throw new ConfigError('DATABASE_URL', `DATABASE_URL: ${DATABASE_URL_EXPECTED}`);
  return value;
}

// Socket errors of a server that is down, unreachable or unknown (the host name is in the message, never the URL).
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE']);
// SQLSTATEs that mean "not now": connection exceptions (class 08), shutdowns and restarts, too many connections.
const UNAVAILABLE_STATES = new Set(['53300', '57P01', '57P02', '57P03']);
// pg's own messages for a pool that could not connect in time or a connection that died mid-query.
const UNAVAILABLE_MESSAGES = /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/i;

function isUnavailable(error: Error): boolean {
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (NETWORK_CODES.has(code) || UNAVAILABLE_STATES.has(code) || code.startsWith('08'))) return true;
  if (error instanceof AggregateError) return error.errors.some((inner) => inner instanceof Error && isUnavailable(inner));
  return UNAVAILABLE_MESSAGES.test(error.message);
}

// The server (or the driver, before it dials) refuses what the connection string says: no user, a wrong password, a
// database that does not exist. Retrying cannot help: the operator's to fix.
const REFUSED_STATES = new Set(['28000', '28P01', '3D000']);
const REFUSED_MESSAGES = /no PostgreSQL user name specified/i;

function isRefusedConnection(error: Error): boolean {
  const code = (error as { code?: unknown }).code;
  return (typeof code === 'string' && REFUSED_STATES.has(code)) || REFUSED_MESSAGES.test(error.message);
}

/**
 * An error of the inventory database as the caller should see it: a database that cannot be reached right now is
 * a retryable `store_unavailable` (503 with Retry-After over HTTP); a connection string the server or the driver
 * refuses is `config`; anything else is returned as it is.
 */
export function toDatabaseFailure(error: unknown): unknown {
  if (isFactoryError(error) || !(error instanceof Error)) return error;
  if (isRefusedConnection(error))
    return new ConfigError(
      'DATABASE_URL',
      `the inventory database refused the connection (${error.message}): give a user, its password and an existing database in --db or DATABASE_URL`,
    );
  if (!isUnavailable(error)) return error;
  const detail = error.message || (error as { code?: string }).code || 'connection failed';
  return new StoreError('unavailable', `the inventory database is unavailable: ${detail}`, { cause: error });
}
