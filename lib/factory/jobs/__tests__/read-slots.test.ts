import { describe, expect, it } from 'vitest';
import { ReadSlots, workLoopsFor } from '../read-slots.js';

const settled = () => new Promise((resolve) => setImmediate(resolve));

describe('read slots', () => {
  it('hands out at most the limit, and a given-back slot to the first waiter', async () => {
    const stop = new AbortController();
    const slots = new ReadSlots(2, stop.signal);
    const first = await slots.take();
    const second = await slots.take();
    const order: string[] = [];
    const third = slots.take().then((give) => (order.push('third'), give));
    const fourth = slots.take().then((give) => (order.push('fourth'), give));
    await settled();
    expect(order).toEqual([]);
    first?.();
    first?.(); // a second give of the same slot frees nothing more
    await settled();
    expect(order).toEqual(['third']);
    second?.();
    expect(await fourth).not.toBeNull();
    expect(order).toEqual(['third', 'fourth']);
    expect(await third).not.toBeNull();
    slots.dispose();
  });

  it('gives no slot to a waiter or a later taker once the slice stops claiming', async () => {
    const stop = new AbortController();
    const slots = new ReadSlots(1, stop.signal);
    const held = await slots.take();
    const waiting = slots.take();
    stop.abort();
    expect(await waiting).toBeNull();
    held?.();
    expect(await slots.take()).toBeNull();
    slots.dispose();
  });

  it('runs twice as many loops as slots', () => {
    expect([1, 2, 8, 9].map(workLoopsFor)).toEqual([2, 4, 16, 18]);
  });
});
