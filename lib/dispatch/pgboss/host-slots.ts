/** At most `perHost` slices of one site host at once in this process: politeness towards each site, per worker. */
export class HostSlots {
  private readonly busy = new Map<string, number>();

  constructor(private readonly perHost: number) {}

  /** Takes a slot of `host`, or says no when all of them are taken. */
  tryTake(host: string): boolean {
    const taken = this.busy.get(host) ?? 0;
    if (taken >= this.perHost) return false;
    this.busy.set(host, taken + 1);
    return true;
  }

  /** Gives back a slot taken by `tryTake`. */
  release(host: string): void {
    const taken = (this.busy.get(host) ?? 1) - 1;
    if (taken <= 0) this.busy.delete(host);
    else this.busy.set(host, taken);
  }
}
