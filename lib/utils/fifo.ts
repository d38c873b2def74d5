/**
 * A first-in first-out queue whose `shift` costs O(1) however long it is: `Array.prototype.shift` moves every
 * element once an array is large (a job's 50,000 queued children made each claim copy the rest).
 */
export class Fifo<T> {
  private items: T[] = [];
  private head = 0;

  get size(): number {
    return this.items.length - this.head;
  }

  push(item: T): void {
    this.items.push(item);
  }

  /** The oldest item, removed; undefined when empty. */
  shift(): T | undefined {
    if (this.head === this.items.length) return undefined;
    const item = this.items[this.head];
    this.head += 1;
    // Taken items are dropped in one copy once they are the larger half: amortised O(1) a shift.
    if (this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }
}
