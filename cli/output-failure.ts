// Imports nothing: the bin's own stdout guard uses it before any module of the program is loaded.

/** What to say when writing the output failed (not a closed pipe): where, why, and what to do. */
export function outputFailureMessage(target: string, error: NodeJS.ErrnoException): string {
  const advice = error.code === 'ENOSPC' ? 'free some space or write elsewhere' : 'write elsewhere';
  return `writing ${target} failed (${error.message}): ${advice}`;
}
