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

  it('matches a sorted reference under interleaved pushes, pops and cancels (property)', () => {
    // ops: [0, t, p] push at now + t with priority p; [1] pop; [2, k] cancel the k-th live record
    const op = fc.oneof(
      fc.tuple(fc.constant(0), fc.integer({ min: 0, max: 6 }), fc.integer({ min: -1, max: 3 })),
      fc.tuple(fc.constant(1)),
      fc.tuple(fc.constant(2), fc.nat(40)),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 400 }), (ops) => {
        const q = new EventQueue();
        type Ref = { t: number; p: number; i: number; rec: ReturnType<EventQueue['push']> };
        let ref: Ref[] = [];
        let now = 0;
        let n = 0;
        const popRef = (): Ref | undefined => {
          ref.sort((a, b) => a.t - b.t || a.p - b.p || a.i - b.i);
          return ref.shift();
        };
        for (const o of ops) {
          if (o[0] === 0) {
            const t = now + o[1];
            ref.push({ t, p: o[2], i: n, rec: q.push(t, o[2], noop, n) });
            n++;
          } else if (o[0] === 1) {
            const want = popRef();
            expect(q.peekTime()).toBe(want === undefined ? Infinity : want.t);
            const got = q.pop();
            expect(got?.data).toBe(want?.i);
            if (got !== null) {
              now = got.time;
              q.release(got);
            }
          } else if (ref.length > 0) {
            const victim = ref[o[1] % ref.length]!;
            q.cancel(victim.rec);
            ref = ref.filter((r) => r !== victim);
          }
          expect(q.size).toBe(ref.length);
        }
        let r;
        while ((r = q.pop()) !== null) {
          expect(r.data).toBe(popRef()!.i);
          q.release(r);
        }
        expect(ref).toHaveLength(0);
      }),
      { numRuns: 300 },
    );
  });
});

