// The worker side of cli/sized-heap.ts: runs the CLI's main with the arguments it was given, posts the exit code.
import { getHeapStatistics } from 'node:v8';
import { parentPort, workerData } from 'node:worker_threads';
import { processIo } from './io.js';
import { createLogger, logLevelFrom, sendLogsTo, setLogLevel } from '../lib/index.js';

const { args, stderrIsTTY } = workerData as { args: string[]; stderrIsTTY: boolean };
const port = parentPort;
if (port === null) throw new Error('cli/sized-heap-main.js runs as a worker of cli/sized-heap.ts');

// Signals reach the main thread only: a command that listens for them (sync's stop) gets them as it would there;
// one that does not ends as an unhandled signal would end the process.
port.on('message', ({ signal }: { signal: NodeJS.Signals }) => {
  if (process.listenerCount(signal) > 0) process.emit(signal, signal);
  else process.exit(signal === 'SIGINT' ? 130 : 143);
});
port.unref();

// The command sets its own logs up (cli/program.ts) and refuses a bad level itself; this line comes first, at the
// level the environment asks for.
const level = (() => {
  try {
    return logLevelFrom(process.env);
  } catch {
    return null;
  }
})();
sendLogsTo('stderr');
setLogLevel(level ?? 'error');
createLogger('cli:sized-heap').debug(
  { event: 'sized_heap', heapLimitMb: Math.round(getHeapStatistics().heap_size_limit / 1048576) },
  'the command runs in a worker with a sized heap',
);
const { main } = await import('./main.js');
// The worker's stderr is a pipe to the main thread's: whether the user sees a terminal is the main thread's to say.
port.postMessage({ code: await main(args, { ...processIo(), stderrIsTTY }) });
