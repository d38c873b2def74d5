/** CPU time of this process so far, in ms: on a shared machine it moves less than wall time. */
export function cpuMs(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}
