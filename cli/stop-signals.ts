/** A run's stop switch: aborted on SIGINT/SIGTERM, so the run commits what it read and says how to resume. */
export interface StopSignals {
  signal: AbortSignal;
  dispose(): void;
}

/**
 * Aborts on SIGINT/SIGTERM instead of dying (130/143): the slice in flight commits what it read and releases its
 * leases, then the command prints how to resume and exits 0. Handlers stay until `dispose`, so a second signal during
 * that wind-down does not kill the process half-way through a commit.
 */
export function stopOnSignals(): StopSignals {
  const controller = new AbortController();
  const stop = (signal: NodeJS.Signals) => controller.abort(new Error(`stopped by ${signal}`));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  return {
    signal: controller.signal,
    dispose: () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
    },
  };
}
