import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EventQueue, type EventHandler } from '../../src/sim/event-queue.ts';

const noop: EventHandler = { fire() {} };

describe('EventQueue', () => {
  it('pops by time, then priority, then insertion order', () => {
    const q = new EventQueue();
    q.push(10, 5, noop, 'c');
    q.push(10, 1, noop, 'b');
    q.push(5, 9, noop, 'a');
    q.push(10, 1, noop, 'b2');
    q.push(20, 0, noop, 'd');
    const out: unknown[] = [];
    let r;
    while ((r = q.pop()) !== null) {
      out.push(r.data);
      q.release(r);
    }
    expect(out).toEqual(['a', 'b', 'b2', 'c', 'd']);
  });

  it('skips cancelled records and keeps size right', () => {
    const q = new EventQueue();
    const a = q.push(1, 0, noop, 'a');
    q.push(2, 0, noop, 'b');
    q.cancel(a);
    expect(q.size).toBe(1);
    expect(q.peekTime()).toBe(2);
    expect(q.pop()!.data).toBe('b');
    expect(q.pop()).toBeNull();
  });

  it('orders any push sequence like a stable sort (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 50 }), fc.integer({ min: 0, max: 3 })), { maxLength: 300 }), (items) => {
        const q = new EventQueue();
        items.forEach(([t, p], i) => q.push(t, p, noop, i));
        const expected = items.map(([t, p], i) => ({ t, p, i })).sort((a, b) => a.t - b.t || a.p - b.p || a.i - b.i).map((x) => x.i);
        const got: number[] = [];
        let r;
        while ((r = q.pop()) !== null) {
          got.push(r.data as number);
          q.release(r);
        }
        expect(got).toEqual(expected);
      }),
    );
  });
});
