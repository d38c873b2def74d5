/** `--name N` from this script's arguments, `fallback` when absent; anything but a positive whole number is refused. */
export function positiveIntArg(name: string, fallback: number): number {
  const at = process.argv.indexOf(name);
  if (at === -1) return fallback;
  const value = Number(process.argv[at + 1]);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} takes a positive whole number, not ${process.argv[at + 1]}`);
  return value;
}
