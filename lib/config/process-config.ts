import { factoryConfig, type FactoryConfig } from './factory-config.js';

let read: { config: FactoryConfig } | { error: unknown } | null = null;

/**
 * The configuration of this process's environment, read on the first call and kept: the one place the service reads
 * `process.env` (a function instance's environment never changes). A malformed value is thrown again on every call,
 * logged once.
 */
export function processConfig(): FactoryConfig {
  if (read === null) {
    try {
      read = { config: factoryConfig(process.env) };
    } catch (error) {
      read = { error };
    }
  }
  if ('error' in read) throw read.error;
  return read.config;
}
