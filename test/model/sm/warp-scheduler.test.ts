import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { InputError, SimulationError } from '../../../src/errors.ts';
import {
  AgeOrder,
  TwoLevelGpgpusimPolicy,
  TwoLevelPolicy,
  createWarpSchedulerPolicy,
  hasWarpSchedulerPolicy,
  registerWarpSchedulerPolicy,
  selectWarp,
  warpSchedulerPolicyNames,
} from '../../../src/model/sm/warp-scheduler.ts';
import type { SchedulerWarps, WarpSchedulerPolicy } from '../../../src/model/sm/warp-scheduler.ts';

/** A scheduler's warps with test-controlled readiness. */
interface TestWarps extends SchedulerWarps {
  readonly notReady: Set<number>;
  readonly stalledLong: Set<number>;
  readonly longPending: Set<number>;
  /** `probe.waiting` (barrier, atomics outstanding). */
  readonly waiting: Set<number>;
  /** `probe.readsLongLatency`. */
  readonly readsLong: Set<number>;
}

function makeWarps(size: number, ages?: number[]): TestWarps {
  const notReady = new Set<number>();
  const stalledLong = new Set<number>();
  const longPending = new Set<number>();
  const waiting = new Set<number>();
  const readsLong = new Set<number>();
  const warps: TestWarps = {
    size,
    warpIds: Int32Array.from({ length: size }, (_, i) => i),
    active: new Uint8Array(size).fill(1),
    age: Float64Array.from(ages ?? Array.from({ length: size }, (_, i) => i)),
    probe: {
      ready: (s) => !notReady.has(s) && !stalledLong.has(s),
      stalledOnLongLatency: (s) => stalledLong.has(s),
      longLatencyPending: (s) => longPending.has(s),
      waiting: (s) => waiting.has(s),
      readsLongLatency: (s) => readsLong.has(s),
    },
    waiting,
    readsLong,
    notReady,
    stalledLong,
    longPending,
  };
  return warps;
}

function orderOf(policy: WarpSchedulerPolicy, warps: SchedulerWarps): number[] {
  const out = new Int32Array(warps.size);
  const n = policy.order(warps, out);
  return Array.from(out.subarray(0, n));
}

describe('lrr', () => {
  it('starts at slot 0, then after the last issued warp', () => {
    const warps = makeWarps(8);
    const lrr = createWarpSchedulerPolicy('lrr', { numSlots: 8 });
    expect(orderOf(lrr, warps)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    lrr.issued(warps, 3, false);
    expect(orderOf(lrr, warps)).toEqual([4, 5, 6, 7, 0, 1, 2, 3]);
    lrr.issued(warps, 7, false);
    expect(orderOf(lrr, warps)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });

  it('skips empty slots and rotates through ready warps', () => {
    const warps = makeWarps(8);
    warps.active[5] = 0;
    const lrr = createWarpSchedulerPolicy('lrr', { numSlots: 8 });
    lrr.issued(warps, 3, false);
    expect(orderOf(lrr, warps)).toEqual([4, 6, 7, 0, 1, 2, 3]);
    // With every warp ready, LRR issues 4, 6, 7, 0, ... in turn.
    const scratch = new Int32Array(8);
    const issued: number[] = [];
    for (let c = 0; c < 8; c++) {
      const s = selectWarp(lrr, warps, scratch);
      issued.push(s);
      lrr.issued(warps, s, false);
    }
    expect(issued).toEqual([4, 6, 7, 0, 1, 2, 3, 4]);
  });
});

describe('gto', () => {
  it('puts the last issued warp first, then the others oldest first', () => {
    const warps = makeWarps(8);
    const gto = createWarpSchedulerPolicy('gto', { numSlots: 8 });
    expect(orderOf(gto, warps)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    gto.issued(warps, 3, false);
    expect(orderOf(gto, warps)).toEqual([3, 0, 1, 2, 4, 5, 6, 7]);
  });

  it('keeps issuing the greedy warp while it is ready, then falls back to the oldest ready', () => {
    const warps = makeWarps(8);
    const gto = createWarpSchedulerPolicy('gto', { numSlots: 8 });
    const scratch = new Int32Array(8);
    gto.issued(warps, 3, false);
    for (let c = 0; c < 3; c++) {
      const s = selectWarp(gto, warps, scratch);
      expect(s).toBe(3);
      gto.issued(warps, s, false);
    }
    warps.notReady.add(3);
    warps.notReady.add(0);
    const s = selectWarp(gto, warps, scratch);
    expect(s).toBe(1); // oldest ready
    gto.issued(warps, s, false);
    warps.notReady.delete(3);
    warps.notReady.delete(0);
    // 1 is now the greedy warp even though 0 is older and ready again.
    expect(orderOf(gto, warps)).toEqual([1, 0, 2, 3, 4, 5, 6, 7]);
  });

  it('orders by dynamic warp id, not by slot, and forgets a greedy warp whose slot was reused', () => {
    // Slots 0-3 hold a later CTA (ages 40-43) than slots 4-7 (ages 10-13).
    const warps = makeWarps(8, [40, 41, 42, 43, 10, 11, 12, 13]);
    const gto = createWarpSchedulerPolicy('gto', { numSlots: 8 });
    expect(orderOf(gto, warps)).toEqual([4, 5, 6, 7, 0, 1, 2, 3]);
    gto.issued(warps, 6, false);
    expect(orderOf(gto, warps)).toEqual([6, 4, 5, 7, 0, 1, 2, 3]);
    // Warp in slot 6 finishes and a new one (age 50) is launched into the slot.
    warps.age[6] = 50;
    expect(orderOf(gto, warps)).toEqual([4, 5, 7, 0, 1, 2, 3, 6]);
  });
});

describe('oldest', () => {
  it('orders by age only, regardless of what issued', () => {
    const warps = makeWarps(6, [5, 3, 9, 1, 7, 3]);
    const oldest = createWarpSchedulerPolicy('oldest', { numSlots: 6 });
    // ages: slot3=1, slot1=3, slot5=3 (tie -> lower slot), slot0=5, slot4=7, slot2=9
    expect(orderOf(oldest, warps)).toEqual([3, 1, 5, 0, 4, 2]);
    oldest.issued(warps, 2, false);
    expect(orderOf(oldest, warps)).toEqual([3, 1, 5, 0, 4, 2]);
    warps.active[1] = 0;
    expect(orderOf(oldest, warps)).toEqual([3, 5, 0, 4, 2]);
  });

  it('AgeOrder tracks arrivals, departures and age changes', () => {
    const warps = makeWarps(4, [3, 2, 1, 0]);
    const order = new AgeOrder(4);
    order.update(warps);
    expect(Array.from(order.list.subarray(0, order.count))).toEqual([3, 2, 1, 0]);
    warps.active[2] = 0;
    warps.age[3] = 9;
    order.update(warps);
    expect(Array.from(order.list.subarray(0, order.count))).toEqual([1, 0, 3]);
    warps.active[2] = 1;
    warps.age[2] = 4;
    order.update(warps);
    expect(Array.from(order.list.subarray(0, order.count))).toEqual([1, 0, 2, 3]);
  });
});

describe('twoLevel (000 §3.2, §3.4.2.2)', () => {
  function twoLevel(options: Record<string, unknown> = {}): TwoLevelPolicy {
    return createWarpSchedulerPolicy('twoLevel', { numSlots: 8, readyQueueSize: 4, ...options }) as TwoLevelPolicy;
  }

  it('fills the ready queue with the first warps and schedules only those', () => {
    const warps = makeWarps(8);
    const p = twoLevel();
    expect(orderOf(p, warps)).toEqual([0, 1, 2, 3]);
    expect(p.queues()).toEqual({ ready: [0, 1, 2, 3], active: [4, 5, 6, 7], pending: [] });
  });

  it('moves a warp stalled on a long-latency op to pending and the next active warp in', () => {
    const warps = makeWarps(8);
    const p = twoLevel();
    orderOf(p, warps);
    p.issued(warps, 1, true); // warp 1 issues a global load
    warps.stalledLong.add(1); // ... and its next instruction needs the loaded value
    warps.longPending.add(1);
    // Inner RR continues after warp 1: 2, 3, 4, then 0.
    expect(orderOf(p, warps)).toEqual([2, 3, 4, 0]);
    expect(p.queues()).toEqual({ ready: [0, 2, 3, 4], active: [5, 6, 7], pending: [1] });
    p.issued(warps, 2, false);
    expect(orderOf(p, warps)).toEqual([3, 4, 0, 2]);
    // The load returns: warp 1 goes to the tail of the active queue (the ready queue is full).
    warps.stalledLong.delete(1);
    warps.longPending.delete(1);
    orderOf(p, warps);
    expect(p.queues()).toEqual({ ready: [0, 2, 3, 4], active: [5, 6, 7, 1], pending: [] });
    // Warp 0 finishes: it leaves, and the active head (5) enters.
    warps.active[0] = 0;
    expect(orderOf(p, warps)).toEqual([3, 4, 5, 2]);
    expect(p.queues()).toEqual({ ready: [2, 3, 4, 5], active: [6, 7, 1], pending: [] });
  });

  it('keeps a warp pending while any long-latency result is outstanding', () => {
    const warps = makeWarps(8);
    const p = twoLevel();
    orderOf(p, warps);
    warps.stalledLong.add(0);
    warps.longPending.add(0);
    orderOf(p, warps);
    // Its first load returned and it is no longer stalled, but a second load is still in flight.
    warps.stalledLong.delete(0);
    orderOf(p, warps);
    expect(p.queues().pending).toEqual([0]);
    warps.longPending.delete(0);
    orderOf(p, warps);
    expect(p.queues()).toEqual({ ready: [1, 2, 3, 4], active: [5, 6, 7, 0], pending: [] });
  });

  it('outer gto promotes the oldest active warp, outer rr the active-queue head', () => {
    const run = (outer: 'rr' | 'gto'): readonly number[] => {
      const warps = makeWarps(8);
      const p = twoLevel({ outer });
      orderOf(p, warps); // ready 0-3, active 4-7
      warps.stalledLong.add(0);
      warps.longPending.add(0);
      orderOf(p, warps); // 0 -> pending, 4 -> ready
      warps.stalledLong.delete(0);
      warps.longPending.delete(0);
      orderOf(p, warps); // 0 -> active tail
      warps.stalledLong.add(2);
      warps.longPending.add(2);
      orderOf(p, warps); // 2 -> pending, one active warp enters
      return p.queues().ready;
    };
    expect(run('rr')).toEqual([1, 3, 4, 5]);
    expect(run('gto')).toEqual([1, 3, 4, 0]);
  });

  it('inner gto is greedy then oldest within the ready queue', () => {
    const warps = makeWarps(8, [7, 6, 5, 4, 3, 2, 1, 0]);
    const p = twoLevel({ inner: 'gto' });
    // Arrivals enter by age: slots 7, 6, 5, 4 are the oldest and fill the ready queue.
    expect(orderOf(p, warps)).toEqual([7, 6, 5, 4]);
    p.issued(warps, 5, false);
    expect(orderOf(p, warps)).toEqual([5, 7, 6, 4]);
  });

  it('can demote on issuing a long-latency instruction', () => {
    const warps = makeWarps(8);
    const p = twoLevel({ demoteOnLongLatencyIssue: true });
    orderOf(p, warps);
    p.issued(warps, 2, true);
    warps.longPending.add(2);
    expect(p.queues().pending).toEqual([2]);
    expect(orderOf(p, warps)).toEqual([3, 4, 0, 1]);
    // A short instruction does not demote.
    p.issued(warps, 3, false);
    expect(p.queues().pending).toEqual([2]);
  });

  it('caps the ready queue at the number of slots and validates options', () => {
    const warps = makeWarps(3);
    const p = createWarpSchedulerPolicy('twoLevel', { numSlots: 3, readyQueueSize: 6 }) as TwoLevelPolicy;
    expect(p.readyQueueSize).toBe(3);
    expect(orderOf(p, warps)).toEqual([0, 1, 2]);
    expect(() => createWarpSchedulerPolicy('twoLevel', { numSlots: 8, inner: 'lifo' as 'rr' })).toThrow(InputError);
    expect(() => createWarpSchedulerPolicy('twoLevel', { numSlots: 8, readyQueueSize: 0 })).toThrow(InputError);
    expect(() => createWarpSchedulerPolicy('twoLevel', { numSlots: 8, demoteOnLongLatencyIssue: 'yes' as unknown as boolean })).toThrow(InputError);
  });
});

describe('policy registry', () => {
  it('has the built-in policies and refuses unknown names with InputError', () => {
    expect(warpSchedulerPolicyNames()).toEqual(expect.arrayContaining(['lrr', 'gto', 'oldest', 'twoLevel']));
    try {
      createWarpSchedulerPolicy('fifo', { numSlots: 4 }, { file: 'gpu.yaml', line: 7 });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(InputError);
      expect((e as InputError).field).toBe('warpScheduler.policy');
      expect((e as InputError).message).toContain('gpu.yaml:7');
      expect((e as InputError).message).toContain('lrr');
    }
    expect(() => createWarpSchedulerPolicy('gto', { numSlots: 0 })).toThrow(InputError);
  });

  it('accepts a new policy by name (youngest first) and refuses a duplicate', () => {
    const name = 'test-youngest';
    if (!hasWarpSchedulerPolicy(name)) {
      registerWarpSchedulerPolicy(name, (o) => {
        const ages = new AgeOrder(o.numSlots);
        return {
          name,
          order(warps, out) {
            ages.update(warps);
            for (let i = 0; i < ages.count; i++) out[i] = ages.list[ages.count - 1 - i]!;
            return ages.count;
          },
          issued() {},
          reset() {
            ages.reset();
          },
        };
      });
    }
    expect(() => registerWarpSchedulerPolicy(name, () => { throw new Error('unused'); })).toThrow(SimulationError);
    const p = createWarpSchedulerPolicy(name, { numSlots: 4 });
    expect(orderOf(p, makeWarps(4, [2, 0, 3, 1]))).toEqual([2, 0, 3, 1]);
  });

  it('refuses a too-short order array or a size mismatch', () => {
    const p = createWarpSchedulerPolicy('lrr', { numSlots: 4 });
    expect(() => p.order(makeWarps(4), new Int32Array(3))).toThrow(SimulationError);
    expect(() => p.order(makeWarps(5), new Int32Array(5))).toThrow(SimulationError);
  });

  it('lrr, gto and oldest always output each live slot exactly once', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('lrr', 'gto', 'oldest'),
        fc.array(fc.record({ live: fc.boolean(), age: fc.nat(20) }), { minLength: 1, maxLength: 12 }),
        fc.array(fc.nat(11), { maxLength: 10 }),
        (name, slots, issues) => {
          const warps = makeWarps(slots.length, slots.map((s) => s.age));
          slots.forEach((s, i) => (warps.active[i] = s.live ? 1 : 0));
          const p = createWarpSchedulerPolicy(name, { numSlots: slots.length });
          const live = slots.flatMap((s, i) => (s.live ? [i] : []));
          for (const is of issues) {
            const order = orderOf(p, warps);
            expect([...order].sort((a, b) => a - b)).toEqual(live);
            if (live.length > 0) p.issued(warps, live[is % live.length]!, false);
          }
        },
      ),
    );
  });
});

describe('twoLevel extension hook', () => {
  it('a subclass with its own priority key reorders the active queue under outer gto', () => {
    class YoungestTwoLevel extends TwoLevelPolicy {
      protected override priorityKey(warps: SchedulerWarps, slot: number): number {
        return -warps.age[slot]!;
      }
    }
    const warps = makeWarps(8);
    const p = new YoungestTwoLevel({ numSlots: 8, readyQueueSize: 2, outer: 'gto', inner: 'gto' }, undefined, 'test-youngestTwoLevel');
    expect(p.name).toBe('test-youngestTwoLevel');
    // Arrivals enter the active queue by launch order, but promotion takes the youngest first,
    // and the inner order is youngest first too.
    expect(orderOf(p, warps)).toEqual([7, 6]);
    expect(p.queues()).toEqual({ ready: [7, 6], active: [5, 4, 3, 2, 1, 0], pending: [] });
  });
});

describe('twoLevel: active queue sorted on arrival (C2, 000 §3.4.2.2)', () => {
  /** A two-level scheduler whose active queue is kept sorted by a per-slot key table (as PATS by phase length), whatever `outer` says. */
  class KeyedTwoLevel extends TwoLevelPolicy {
    constructor(readonly keys: number[]) {
      super({ numSlots: 8, readyQueueSize: 2, inner: 'rr', outer: 'rr' }, undefined, 'test-keyedTwoLevel');
    }
    protected override sortsActiveQueue(): boolean {
      return true;
    }
    protected override activeQueueKey(_warps: SchedulerWarps, slot: number): number {
      return this.keys[slot]!;
    }
  }

  it('sorts by the subclass key, ties by age, when warps arrive at the active tail', () => {
    const warps = makeWarps(8);
    const p = new KeyedTwoLevel([3, 1, 2, 0, 2, 1, 0, 3]);
    // Launch: all 8 arrive; by key: 0 -> {3, 6}, 1 -> {1, 5}, 2 -> {2, 4}, 3 -> {0, 7}.
    orderOf(p, warps);
    expect(p.queues()).toEqual({ ready: [3, 6], active: [1, 5, 2, 4, 0, 7], pending: [] });
    // 3 stalls on a load: pending; the active head (1) enters the ready queue.
    warps.stalledLong.add(3);
    warps.longPending.add(3);
    orderOf(p, warps);
    expect(p.queues()).toEqual({ ready: [6, 1], active: [5, 2, 4, 0, 7], pending: [3] });
    // Keys change while nothing arrives: no sort (the logic is triggered by an arrival).
    p.keys[7] = -1;
    orderOf(p, warps);
    expect(p.queues().active).toEqual([5, 2, 4, 0, 7]);
    // The load returns: 3 arrives at the tail, the sort runs and puts 7 (key -1) and 3 (key 0) first.
    warps.stalledLong.delete(3);
    warps.longPending.delete(3);
    orderOf(p, warps);
    expect(p.queues()).toEqual({ ready: [6, 1], active: [7, 3, 5, 2, 4, 0], pending: [] });
  });

  it('outer rr of the base class keeps arrival order (RR "does not sort the warps")', () => {
    const warps = makeWarps(8, [0, 1, 2, 3, 4, 5, 6, 7]);
    const p = createWarpSchedulerPolicy('twoLevel', { numSlots: 8, readyQueueSize: 2 }) as TwoLevelPolicy;
    orderOf(p, warps);
    warps.stalledLong.add(0);
    warps.longPending.add(0);
    orderOf(p, warps); // 0 -> pending, 2 -> ready
    warps.stalledLong.delete(0);
    warps.longPending.delete(0);
    orderOf(p, warps); // 0 returns to the tail, not sorted to the front
    expect(p.queues()).toEqual({ ready: [1, 2], active: [3, 4, 5, 6, 7, 0], pending: [] });
  });

  it('is settled after an order() that moved nothing, unsettled after one that moved a warp', () => {
    const warps = makeWarps(8);
    const p = createWarpSchedulerPolicy('twoLevel', { numSlots: 8, readyQueueSize: 4 }) as TwoLevelPolicy;
    orderOf(p, warps); // arrivals, fill
    expect(p.settled()).toBe(false);
    orderOf(p, warps);
    expect(p.settled()).toBe(true);
    warps.stalledLong.add(1);
    warps.longPending.add(1);
    orderOf(p, warps);
    expect(p.settled()).toBe(false);
    orderOf(p, warps);
    expect(p.settled()).toBe(true);
  });

  it('validates idleStates', () => {
    expect((createWarpSchedulerPolicy('twoLevel', { numSlots: 8 }) as TwoLevelPolicy).idleStates).toBe('supervised');
    expect((createWarpSchedulerPolicy('twoLevel', { numSlots: 8, idleStates: 'considered' }) as TwoLevelPolicy).idleStates).toBe('considered');
    expect(() => createWarpSchedulerPolicy('twoLevel', { numSlots: 8, idleStates: 'all' as never })).toThrow(InputError);
  });
});

describe("twoLevelGpgpusim: GPGPU-Sim's two_level_active:n:0:1 (C3)", () => {
  function make(n = 3, size = 8): TwoLevelGpgpusimPolicy {
    return createWarpSchedulerPolicy('twoLevelGpgpusim', { numSlots: size, readyQueueSize: n }) as TwoLevelGpgpusimPolicy;
  }

  it('starts with slots 0..n-1 active and the rest pending; inner LRR moves the issuing warp to the back', () => {
    const warps = makeWarps(8);
    const p = make();
    expect(p.lists()).toEqual({ active: [0, 1, 2], pending: [3, 4, 5, 6, 7] });
    expect(orderOf(p, warps)).toEqual([0, 1, 2]);
    expect(p.settled()).toBe(true);
    p.issued(warps, 1, false);
    expect(orderOf(p, warps)).toEqual([2, 0, 1]);
    // A dual issue tells the policy twice: the second call changes nothing.
    p.issued(warps, 0, false);
    p.issued(warps, 0, false);
    expect(orderOf(p, warps)).toEqual([1, 2, 0]);
  });

  it('demotes waiting warps and long-latency readers in list order and promotes the pending front', () => {
    const warps = makeWarps(8);
    const p = make();
    orderOf(p, warps);
    p.issued(warps, 1, false); // active [2, 0, 1]
    warps.waiting.add(0); // at a barrier
    warps.readsLong.add(2); // next instruction reads a loaded register
    // Demote 2 then 0 (list order) to the pending tail; promote 3, 4.
    expect(orderOf(p, warps)).toEqual([1, 3, 4]);
    expect(p.lists()).toEqual({ active: [1, 3, 4], pending: [5, 6, 7, 2, 0] });
    expect(p.settled()).toBe(false);
    orderOf(p, warps);
    expect(p.settled()).toBe(true);
    expect(p.lists()).toEqual({ active: [1, 3, 4], pending: [5, 6, 7, 2, 0] });
  });

  it('a WAW on a long-latency register (stalledOnLongLatency without a long source) does not demote', () => {
    const warps = makeWarps(8);
    const p = make();
    warps.stalledLong.add(1);
    warps.longPending.add(1);
    expect(orderOf(p, warps)).toEqual([0, 1, 2]);
  });

  it('promotes unchecked: still-waiting warps come back and are demoted again next cycle', () => {
    const warps = makeWarps(8);
    const p = make();
    for (const s of [0, 1, 2, 3, 4, 5]) warps.waiting.add(s);
    // Cycle 1: 0, 1, 2 demoted; 3, 4, 5 promoted without a check.
    expect(orderOf(p, warps)).toEqual([3, 4, 5]);
    expect(p.lists()).toEqual({ active: [3, 4, 5], pending: [6, 7, 0, 1, 2] });
    // Cycle 2: 3, 4, 5 demoted; 6, 7 and 0 (still waiting) promoted.
    expect(orderOf(p, warps)).toEqual([6, 7, 0]);
    expect(p.lists()).toEqual({ active: [6, 7, 0], pending: [1, 2, 3, 4, 5] });
    expect(p.settled()).toBe(false);
    // Cycle 3: only 0 demoted; 1 promoted.
    expect(orderOf(p, warps)).toEqual([6, 7, 1]);
    expect(p.lists()).toEqual({ active: [6, 7, 1], pending: [2, 3, 4, 5, 0] });
  });

  it('demotes empty slots and finished warps (GPGPU-Sim functional_done) and writes live slots only', () => {
    const warps = makeWarps(6);
    warps.active[1] = 0;
    warps.active[4] = 0;
    const p = make(3, 6);
    // 1 demoted; 3 promoted.
    expect(orderOf(p, warps)).toEqual([0, 2, 3]);
    expect(p.lists()).toEqual({ active: [0, 2, 3], pending: [4, 5, 1] });
    // 0 finishes: demoted; 4 (empty) promoted unchecked, not written.
    warps.active[0] = 0;
    expect(orderOf(p, warps)).toEqual([2, 3]);
    expect(p.lists()).toEqual({ active: [2, 3, 4], pending: [5, 1, 0] });
    expect(orderOf(p, warps)).toEqual([2, 3, 5]);
  });

  it('refuses inner/outer other than rr, caps n at the slots, and resets to the initial lists', () => {
    expect(() => createWarpSchedulerPolicy('twoLevelGpgpusim', { numSlots: 8, inner: 'gto' })).toThrow(/only inner loose and outer strict round robin/);
    expect(() => createWarpSchedulerPolicy('twoLevelGpgpusim', { numSlots: 8, outer: 'gto' })).toThrow(InputError);
    expect(() => createWarpSchedulerPolicy('twoLevelGpgpusim', { numSlots: 8, readyQueueSize: 0 })).toThrow(InputError);
    const p = make(12, 4);
    expect(p.readyQueueSize).toBe(4);
    expect((createWarpSchedulerPolicy('twoLevelGpgpusim', { numSlots: 24 }) as TwoLevelGpgpusimPolicy).readyQueueSize).toBe(6);
    const warps = makeWarps(4);
    p.issued(warps, 0, false);
    expect(orderOf(p, warps)).toEqual([1, 2, 3, 0]);
    p.reset();
    expect(orderOf(p, warps)).toEqual([0, 1, 2, 3]);
    expect(warpSchedulerPolicyNames()).toContain('twoLevelGpgpusim');
  });
});
