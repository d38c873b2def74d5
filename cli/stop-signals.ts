/** A run's stop switch: aborted on SIGINT/SIGTERM, so the run commits what it read and says how to resume. */
export interface StopSignals {
  signal: AbortSignal;
  /** The signal that stopped the run, or null. */
  readonly received: NodeJS.Signals | null;
  dispose(): void;
}

/**
 * Aborts on SIGINT/SIGTERM instead of dying (130/143): the slice in flight commits what it read and releases its
 * leases, then the command prints how to resume and exits 0. Handlers stay until `dispose`, so a second signal during
 * that wind-down does not kill the process half-way through a commit.
 */
export function stopOnSignals(): StopSignals {
  const controller = new AbortController();
  let received: NodeJS.Signals | null = null;
  const stop = (signal: NodeJS.Signals) => {
    received ??= signal;
    controller.abort(new Error(`stopped by ${signal}`));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  return {
    signal: controller.signal,
    get received() {
      return received;
    },
    dispose: () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
    },
  };
}
