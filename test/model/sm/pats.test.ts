/**
 * PATS policies (paper 000 §3.4.2.2; specs/warp-level.md §1.5, §1.10 (b)) on hand-made scheduler
 * warps: the phase tables are written by hand (distance and phase length per PC), so each expected
 * order follows from the paper's rules alone.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { FunctionAnnotation } from '../../../src/isa/annotations.ts';
import { PatsPolicy, PatsTwoLevelPolicy } from '../../../src/model/sm/pats.ts';
import { createWarpSchedulerPolicy, TwoLevelPolicy, type SchedulerWarps, type WarpSchedulerPolicy } from '../../../src/model/sm/warp-scheduler.ts';
import '../../../src/model/sm/warp-policies.ts';

/**
 * One function of 8 instructions in 3 phases: PCs 0-2 phase 0 (length 30), 3-4 phase 1 (length
 * 10), 5-7 phase 2 (length 20); the distance of PC p is what is left of its phase from p on.
 */
const TABLE = {
  instructionCount: 8,
  phaseCount: 3,
  phaseOf: Int32Array.of(0, 0, 0, 1, 1, 2, 2, 2),
  phaseDistance: Float64Array.of(30, 20, 10, 10, 5, 20, 12, 4),
  phaseLength: Float64Array.of(30, 10, 20),
} as unknown as FunctionAnnotation;

interface Warps extends SchedulerWarps {
  readonly stalledLong: Set<number>;
  readonly longPending: Set<number>;
}

/** `pcs[i]`: PC of slot i's next instruction (in {@link TABLE}); ages default to the slot. */
function warpsAt(pcs: number[], ages?: number[], tables: (readonly FunctionAnnotation[] | null)[] = pcs.map(() => [TABLE])): Warps {
  const size = pcs.length;
  const stalledLong = new Set<number>();
  const longPending = new Set<number>();
  return {
    size,
    warpIds: Int32Array.from({ length: size }, (_, i) => i),
    active: new Uint8Array(size).fill(1),
    age: Float64Array.from(ages ?? pcs.map((_, i) => i)),
    pc: Int32Array.from(pcs),
    fn: new Int32Array(size),
    tables,
    probe: {
      ready: (s) => !stalledLong.has(s),
      stalledOnLongLatency: (s) => stalledLong.has(s),
      longLatencyPending: (s) => longPending.has(s),
      waiting: () => false,
      readsLongLatency: () => false,
    },
    stalledLong,
    longPending,
  };
}

function orderOf(policy: WarpSchedulerPolicy, warps: SchedulerWarps): number[] {
  const out = new Int32Array(warps.size);
  return Array.from(out.subarray(0, policy.order(warps, out)));
}

describe('pats (single level)', () => {
  it('orders by the phase distance of the next instruction, then oldest first', () => {
    // distances: slot 0 pc 0 -> 30, slot 1 pc 4 -> 5, slot 2 pc 7 -> 4, slot 3 pc 3 -> 10, slot 4 pc 4 -> 5
    const w = warpsAt([0, 4, 7, 3, 4], [0, 4, 3, 2, 1]);
    const p = new PatsPolicy(5);
    // 2 (4); then 1 and 4 at 5: 4 is older (age 1 < 4); 3 (10); 0 (30)
    expect(orderOf(p, w)).toEqual([2, 4, 1, 3, 0]);
    // slot 0 issued to pc 2 (distance 10, tie with slot 3, and slot 0 is older); slot 2 finished
    w.pc![0] = 2;
    w.active[2] = 0;
    expect(orderOf(p, w)).toEqual([4, 1, 0, 3]);
  });

  it('treats a warp with no tables (a kernel without PTX IR) as distance 0', () => {
    const w = warpsAt([0, 1, 2], undefined, [[TABLE], null, [TABLE]]);
    expect(orderOf(new PatsPolicy(3), w)).toEqual([1, 2, 0]); // 0, 10, 30
  });

  it('gives the sorted order whatever the order it kept from earlier cycles (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 7 }), fc.integer({ min: 0, max: 5 }), fc.boolean()), { minLength: 1, maxLength: 12 }), fc.array(fc.integer({ min: 0, max: 7 }), { maxLength: 12 }), (rows, earlier) => {
        const w = warpsAt(rows.map((r) => r[0]), rows.map((r) => r[1]));
        rows.forEach((r, i) => (w.active[i] = r[2] ? 1 : 0));
        const used = new PatsPolicy(rows.length);
        // a history of other PCs first
        const h = warpsAt(rows.map((_, i) => earlier[i] ?? 0), rows.map((r) => r[1]));
        orderOf(used, h);
        const expected = rows
          .map((r, i) => ({ i, d: TABLE.phaseDistance[r[0]]!, a: r[1], live: r[2] }))
          .filter((x) => x.live)
          .sort((x, y) => x.d - y.d || x.a - y.a || x.i - y.i)
          .map((x) => x.i);
        expect(orderOf(used, w)).toEqual(expected);
        expect(orderOf(new PatsPolicy(rows.length), w)).toEqual(expected);
      }),
    );
  });

  it('is in the registry, reads the static tables and is pure', () => {
    const p = createWarpSchedulerPolicy('pats', { numSlots: 4 });
    expect(p).toBeInstanceOf(PatsPolicy);
    expect(p.usesStaticTables).toBe(true);
    expect(p.pureOrder).toBe(true);
  });
});

describe('patsTwoLevel', () => {
  // 8 warps, ready queue 2. Phase lengths by PC: 0-2 -> 30, 3-4 -> 10, 5-7 -> 20.
  // slot:      0   1   2   3   4   5   6   7
  // pc:        0   3   5   3   1   4   7   6
  // length:   30  10  20  10  30  10  20  20
  const pcs = [0, 3, 5, 3, 1, 4, 7, 6];
  const ready = (p: WarpSchedulerPolicy, w: SchedulerWarps): number[] => orderOf(p, w).sort((a, b) => a - b);

  it('sorts the active queue by phase length on arrival, fills the ready queue from its head, demotes and promotes', () => {
    const w = warpsAt(pcs);
    const p = new PatsTwoLevelPolicy({ numSlots: 8, readyQueueSize: 2 });
    // arrival of all 8, sorted by (length, age): 1, 3, 5 (10); 2, 6, 7 (20); 0, 4 (30)
    expect(ready(p, w)).toEqual([1, 3]);
    // 1 and 3 wait on a load: pending; 5 and 2 come from the active head
    w.stalledLong.add(1).add(3);
    w.longPending.add(1).add(3);
    expect(ready(p, w)).toEqual([2, 5]);
    // 1's load returns: it arrives at the active tail, the sort puts it first (length 10)
    w.stalledLong.delete(1);
    w.longPending.delete(1);
    expect(ready(p, w)).toEqual([2, 5]);
    // 2 and 5 wait: the ready queue refills with 1 (sorted ahead) and 6 (oldest of the 20s left)
    w.stalledLong.add(2).add(5);
    w.longPending.add(2).add(5);
    expect(ready(p, w)).toEqual([1, 6]);
  });

  it('differs from twoLevel with an unsorted (rr) active queue, which keeps arrival order', () => {
    const w = warpsAt(pcs);
    const p = new TwoLevelPolicy({ numSlots: 8, readyQueueSize: 2, outer: 'rr' });
    expect(ready(p, w)).toEqual([0, 1]); // launch order
    w.stalledLong.add(0).add(1);
    w.longPending.add(0).add(1);
    expect(ready(p, w)).toEqual([2, 3]);
  });

  it("key 'distance' sorts by the distance of the next instruction instead", () => {
    // distance by slot (pc): 0 (0) 30, 1 (3) 10, 2 (5) 20, 3 (3) 10, 4 (1) 20, 5 (4) 5, 6 (7) 4, 7 (6) 12
    const w = warpsAt(pcs);
    const p = new PatsTwoLevelPolicy({ numSlots: 8, readyQueueSize: 3, key: 'distance' });
    expect(ready(p, w)).toEqual([1, 5, 6]); // 4 (slot 6), 5 (slot 5), 10 (slot 1, older than slot 3)
  });

  it('refuses a bad key, naming the field', () => {
    expect(() => new PatsTwoLevelPolicy({ numSlots: 8, key: 'phase' })).toThrow(/warpScheduler\.key/);
  });
});
