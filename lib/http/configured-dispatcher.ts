import type { FactoryConfig, QStashConfig } from '../config/factory-config.js';
import { sliceDispatcher, useSliceDispatcher } from '../dispatch/active-dispatcher.js';
import { qstashDispatcher } from '../dispatch/qstash/qstash-dispatcher.js';

// The QStash engine this module installed, with the configuration it was made from.
let installed: { config: QStashConfig; handle: { stop(): Promise<void> } } | null = null;

/**
 * Makes QStash this process's slice engine when the configuration names it (QSTASH_TOKEN) and nothing else drives
 * slices here: a serverless function, where `handle` calls this on every request. A process that chose its own engine
 * (`serve`: in-process) keeps it. A configuration that changes (tests) swaps the engine or takes it away.
 */
export function useConfiguredDispatcher(config: FactoryConfig): void {
  if (installed !== null && installed.config !== config.qstash) {
    void installed.handle.stop();
    installed = null;
  }
  if (config.qstash === null || installed !== null || sliceDispatcher().engine !== 'none') return;
  installed = { config: config.qstash, handle: useSliceDispatcher(qstashDispatcher(config.qstash)) };
}
