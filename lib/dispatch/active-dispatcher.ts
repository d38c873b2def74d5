import { noDispatcher, type SliceDispatcher } from './slice-dispatcher.js';

// One engine per process, chosen at start by the process that owns the work (`serve`, `worker`); a serverless
// function keeps `none` unless its configuration names a queue.
let active: SliceDispatcher = noDispatcher;

/** The engine that runs this process's next slices. */
export function sliceDispatcher(): SliceDispatcher {
  return active;
}

/** Makes `dispatcher` this process's engine until `stop`, which stops it and puts `none` back. */
export function useSliceDispatcher(dispatcher: SliceDispatcher): { stop(): Promise<void> } {
  active = dispatcher;
  return {
    stop: async () => {
      if (active === dispatcher) active = noDispatcher;
      await dispatcher.stop();
    },
  };
}
