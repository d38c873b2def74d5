import { describe, expect, it } from 'vitest';
import { Fifo } from '../fifo.js';

describe('Fifo', () => {
  it('hands items back in the order they came, across pushes between shifts, and says when it is empty', () => {
    const queue = new Fifo<number>();
    expect(queue.shift()).toBeUndefined();
    const taken: number[] = [];
    for (let i = 0; i < 1_000; i += 1) {
      queue.push(2 * i);
      queue.push(2 * i + 1);
      taken.push(queue.shift() as number);
    }
    expect(queue.size).toBe(1_000);
    for (let item = queue.shift(); item !== undefined; item = queue.shift()) taken.push(item);
    expect(taken).toEqual(Array.from({ length: 2_000 }, (_, i) => i));
    expect(queue.size).toBe(0);
  });
});
