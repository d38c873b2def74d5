// A preload that prints, at exit, the CPU time of the process's main thread and of all its threads (from /proc), and
// its wall time: `node --import ./bench/thread-cpu.mjs dist/cli/bin.js walk URL ... > /dev/null`. On the loaded shared
// machine the main thread's CPU (where a walk's parsing and formatting run) moves far less than wall time.
import { readFileSync, readdirSync, writeSync } from 'node:fs';

const started = performance.now();
const cpuMs = (thread) => {
  const fields = readFileSync(`/proc/self/task/${thread}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
};
process.on('exit', () => {
  const main = cpuMs(process.pid);
  const all = readdirSync('/proc/self/task').reduce((sum, thread) => sum + cpuMs(thread), 0);
  const wall = performance.now() - started;
  writeSync(2, `main-thread ${(main / 1000).toFixed(2)} s, all threads ${(all / 1000).toFixed(2)} s, wall ${(wall / 1000).toFixed(2)} s\n`);
});
