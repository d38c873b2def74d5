/** An unbounded FIFO whose consumer can await the next value; producers never block (the walker bounds them). */
export class SignalQueue<T> {
  private readonly values: T[] = [];
  private waiter: (() => void) | null = null;

  push(value: T): void {
    this.values.push(value);
    const wake = this.waiter;
    this.waiter = null;
    wake?.();
  }

  /** The oldest value, waiting for one if the queue is empty. */
  async shift(): Promise<T> {
    while (this.values.length === 0) {
      await new Promise<void>((resolve) => (this.waiter = resolve));
    }
    return this.values.shift() as T;
  }
}
