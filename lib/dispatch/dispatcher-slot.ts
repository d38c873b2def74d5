import { noDispatcher, type SliceDispatcher } from './slice-dispatcher.js';

/**
 * The engine that runs a service's next slices: `none` until the process that owns the work (`serve`, `worker`)
 * puts its own in, or the configuration names a queue (QStash). One per service context, never process-global.
 */
export class DispatcherSlot {
  private active: SliceDispatcher;

  constructor(initial: SliceDispatcher = noDispatcher) {
    this.active = initial;
  }

  /** The engine that runs the next slices. */
  current(): SliceDispatcher {
    return this.active;
  }

  /** Makes `dispatcher` the engine until `stop`, which stops it and puts `none` back (unless another came since). */
  use(dispatcher: SliceDispatcher): { stop(): Promise<void> } {
    this.active = dispatcher;
    return {
      stop: async () => {
        if (this.active === dispatcher) this.active = noDispatcher;
        await dispatcher.stop();
      },
    };
  }
}
