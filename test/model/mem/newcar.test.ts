/**
 * The NewCAR re-execution queue (paper 004 §3.4, Fig. 6; spec `warp-level.md` §2.5 E): the
 * bypass table, which queued requests may leave, the rotating choice, counts and limits. Every
 * expected value is derived by hand from Fig. 6's rules.
 */
import { describe, expect, it } from 'vitest';
import { NewCarEnqReason, NewCarQueue } from '../../../src/model/mem/newcar.ts';

const LOAD = false;
const STORE = true;

function queue(entries: [string, number, boolean][], capacity = 32, choice: 'rotate' | 'oldest' | 'rewind' = 'rotate'): NewCarQueue<string> {
  const q = new NewCarQueue<string>(capacity, 4, choice);
  for (const [name, warp, st] of entries) q.push(name, warp, st, 0, NewCarEnqReason.notAccepted);
  return q;
}

describe('NewCAR: Fig. 6 bypass rules for a new request of warp W', () => {
  it('W has nothing queued: a load and a store may bypass', () => {
    const q = queue([['x', 1, STORE]]);
    expect([q.mayBypass(0, LOAD), q.mayBypass(0, STORE)]).toEqual([true, true]);
  });

  it('W has only loads queued (Fig. 6(a)): a load may bypass them, a store may not', () => {
    const q = queue([['a', 0, LOAD], ['b', 0, LOAD]]);
    expect([q.mayBypass(0, LOAD), q.mayBypass(0, STORE)]).toEqual([true, false]);
  });

  it('W has a store queued (Fig. 6(b)): neither a load nor a store may bypass; other warps always may', () => {
    const q = queue([['a', 0, LOAD], ['s', 0, STORE]]);
    expect([q.mayBypass(0, LOAD), q.mayBypass(0, STORE)]).toEqual([false, false]);
    expect([q.mayBypass(1, LOAD), q.mayBypass(1, STORE), q.mayBypass(3, STORE)]).toEqual([true, true, true]);
  });

  it('requests of no warp (texture line reads) are never held back and hold back nothing', () => {
    const q = queue([['t', -1, LOAD]]);
    expect([q.mayBypass(-1, LOAD), q.mayBypass(0, STORE)]).toEqual([true, true]);
    expect(q.select()).toBe(0);
  });
});

describe('NewCAR: which queued request may leave, and which is tried', () => {
  it('[W0 ld a, W0 st b, W0 ld c, W1 ld d]: a and d may leave; b waits for a, c for b; the cursor rotates over a and d', () => {
    const q = queue([['a', 0, LOAD], ['b', 0, STORE], ['c', 0, LOAD], ['d', 1, LOAD]]);
    expect(q.select()).toBe(0); // a: oldest
    q.failed(0); // a refused (e.g. MSHRs full): the search starts after it
    expect(q.select()).toBe(3); // b (older load of W0) and c (older store of W0) may not leave: d
    q.failed(3);
    expect(q.select()).toBe(0); // wraps to a
    expect(q.remove(0)).toBe('a');
    // [b, c, d]: b is now the oldest of W0 (a store leaves only as the oldest of its warp); c still waits for it
    expect(q.select()).toBe(0);
    expect(q.at(0)).toBe('b');
    q.failed(0);
    expect(q.select()).toBe(2); // c waits behind store b: d
    expect(q.remove(2)).toBe('d');
    expect(q.select()).toBe(0); // cursor wrapped: b
    expect(q.remove(0)).toBe('b');
    expect(q.select()).toBe(0);
    expect(q.remove(0)).toBe('c');
    expect(q.select()).toBe(-1);
    expect(q.length).toBe(0);
  });

  it('loads of one warp leave out of order (004 §3.4: "processed out-of-order"): the younger is tried after the older fails', () => {
    const q = queue([['a', 0, LOAD], ['b', 0, LOAD]]);
    expect(q.select()).toBe(0);
    q.failed(0);
    expect(q.select()).toBe(1);
    expect(q.remove(1)).toBe('b');
    expect(q.select()).toBe(0);
    expect([q.loadsQueued(0), q.storesQueued(0)]).toEqual([1, 0]);
  });

  it('two stores of one warp leave in order; a load behind them waits for both', () => {
    const q = queue([['s1', 2, STORE], ['s2', 2, STORE], ['l', 2, LOAD]]);
    for (let k = 0; k < 3; k++) {
      expect(q.select()).toBe(0); // only the oldest may leave, however often it fails
      q.failed(0);
    }
    q.remove(0);
    expect(q.at(q.select())).toBe('s2');
    q.remove(0);
    expect(q.at(q.select())).toBe('l');
  });

  it('counts per warp follow push and remove; the queue refuses a push when full', () => {
    const q = queue([['a', 0, LOAD], ['s', 0, STORE], ['x', 5, STORE]], 3);
    expect(q.full).toBe(true);
    expect([q.loadsQueued(0), q.storesQueued(0), q.storesQueued(5), q.loadsQueued(9)]).toEqual([1, 1, 1, 0]);
    expect(() => q.push('y', 1, LOAD, 0, NewCarEnqReason.order)).toThrow(/full/);
    q.remove(1);
    expect([q.full, q.storesQueued(0), q.warpAt(1), q.isStoreAt(1)]).toEqual([false, 0, 5, true]);
    expect(() => new NewCarQueue(0)).toThrow(RangeError);
  });

  it('keeps the time and reason each request entered with', () => {
    const q = new NewCarQueue<string>(4);
    q.push('a', 0, LOAD, 1000, NewCarEnqReason.notAccepted);
    q.push('b', 0, STORE, 2000, NewCarEnqReason.order);
    q.remove(0);
    expect([q.at(0), q.timeAt(0), q.reasonAt(0)]).toEqual(['b', 2000, NewCarEnqReason.order]);
  });
});

describe('NewCAR: choice of the request to re-execute', () => {
  const entries: [string, number, boolean][] = [['a', 0, LOAD], ['b', 1, LOAD], ['c', 2, LOAD]];

  it('oldest (spec R-E7 as worded): always the oldest, however often it fails (FIFO)', () => {
    const q = queue(entries, 32, 'oldest');
    q.failed(q.select());
    expect(q.select()).toBe(0);
    q.rewind();
    expect(q.select()).toBe(0);
  });

  it('rewind (default): rotates past failures, back to the oldest after a resource is freed', () => {
    const q = queue(entries, 32, 'rewind');
    expect(new NewCarQueue<string>(1).choice).toBe('rewind');
    q.failed(q.select()); // a
    expect(q.select()).toBe(1); // b
    q.failed(1);
    expect(q.select()).toBe(2); // c
    q.rewind(); // e.g. a fill freed an MSHR entry
    expect(q.select()).toBe(0); // a first again
    q.failed(0);
    expect(q.select()).toBe(1);
  });

  it('rotate: a rewind does nothing', () => {
    const q = queue(entries, 32, 'rotate');
    q.failed(q.select());
    q.rewind();
    expect(q.select()).toBe(1);
  });
});
