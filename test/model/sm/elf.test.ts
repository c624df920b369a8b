/**
 * The `elf` warp scheduler policy (paper 004 §3, §3.2; specs/warp-level.md §2.5 A-C, §2.6,
 * §2.10, §2.11 items 2 and 7) on hand-made scheduler warps. Tables are written by hand (calculator
 * priority, recalculation code, load flag, control class per PC) so each expected WPT and order
 * follows from the paper's rules alone; one test runs the real static pass on a PTX loop nest and
 * walks its control flow.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../../src/errors.ts';
import { annotateFunction, CtrlClass, type FunctionAnnotation } from '../../../src/isa/annotations.ts';
import { branchTarget } from '../../../src/isa/cfg.ts';
import { ElfRecalc } from '../../../src/isa/elf.ts';
import { Opcode } from '../../../src/isa/ir.ts';
import { ELF_STATISTICS, ElfPolicy, ElfStat } from '../../../src/model/sm/elf-policy.ts';
import { combinedStatistic, policyStatistics } from '../../../src/model/sm/policy-stats.ts';
import { createWarpSchedulerPolicy, type IssueEvent, type SchedulerWarps, type WarpSchedulerPolicy } from '../../../src/model/sm/warp-scheduler.ts';
import '../../../src/model/sm/warp-policies.ts';
import { parseKernel } from '../../isa/helpers.ts';

interface TableSpec {
  calc: number[];
  recalc?: number[];
  priority?: number[];
  loads?: number[];
  ctrl?: number[];
  maxScore?: number;
  points?: [number, number, number];
}

/** A hand-made {@link FunctionAnnotation} (only the ELF and control fields). */
function table(t: TableSpec): FunctionAnnotation {
  const n = t.calc.length;
  const [initial, before, loaded] = t.points ?? [0, 0, 0];
  return {
    instructionCount: n,
    maxScore: t.maxScore ?? 255,
    elfInitialPoints: initial,
    elfPointsBeforeMerge: before,
    pointCount: loaded,
    calcPriority: Int32Array.from(t.calc),
    recalc: Uint8Array.from(t.recalc ?? new Array(n).fill(ElfRecalc.None)),
    priority: Int32Array.from(t.priority ?? t.calc),
    isElfLoad: Uint8Array.from(t.loads ?? new Array(n).fill(0)),
    ctrlClass: Uint8Array.from(t.ctrl ?? new Array(n).fill(CtrlClass.None)),
    recalcRule: 'consistent',
  } as unknown as FunctionAnnotation;
}

/**
 * Straight-line program of 10 instructions with loads at PCs 2 and 7 (the setting of 004 Fig. 2):
 * the calculator gives the distance to the next load, 255 after the last one.
 */
const STRAIGHT = table({
  calc: [2, 1, 0, 4, 3, 2, 1, 0, 255, 255],
  recalc: [0, 0, ElfRecalc.Always, 0, 0, 0, 0, ElfRecalc.Always, 0, 0],
  loads: [0, 0, 1, 0, 0, 0, 0, 1, 0, 0],
  ctrl: [0, 0, 0, 0, 0, 0, 0, 0, 0, CtrlClass.Exit],
  points: [2, 2, 2],
});

interface Warps extends SchedulerWarps {
  readonly notReady: Set<number>;
}

/** `pcs[i]`: PC of slot i's next instruction (function 0); ages default to the slot. */
function warpsAt(pcs: number[], tables: (readonly FunctionAnnotation[] | null)[] | readonly FunctionAnnotation[], ages?: number[]): Warps {
  const size = pcs.length;
  const notReady = new Set<number>();
  const perSlot = Array.isArray(tables) && tables.length === size && (tables[0] === null || Array.isArray(tables[0])) ? (tables as (readonly FunctionAnnotation[] | null)[]) : pcs.map(() => tables as readonly FunctionAnnotation[]);
  return {
    size,
    warpIds: Int32Array.from({ length: size }, (_, i) => i),
    active: new Uint8Array(size).fill(1),
    age: Float64Array.from(ages ?? pcs.map((_, i) => i)),
    pc: Int32Array.from(pcs),
    fn: new Int32Array(size),
    tables: perSlot,
    probe: {
      ready: (s) => !notReady.has(s),
      stalledOnLongLatency: () => false,
      longLatencyPending: () => false,
      waiting: () => false,
      readsLongLatency: () => false,
    },
    notReady,
  };
}

function orderOf(policy: WarpSchedulerPolicy, warps: SchedulerWarps): number[] {
  const out = new Int32Array(warps.size);
  return Array.from(out.subarray(0, policy.order(warps, out)));
}

/** An issue event: `pc` -> `nextPc` in function 0 (or the given functions); -1 = exited. */
function ev(pc: number, nextPc: number, fn = 0, nextFn = nextPc < 0 ? -1 : fn): IssueEvent {
  return { pc, functionIndex: fn, nextPc, nextFunctionIndex: nextFn, isLoad: false, isStore: false, diverged: false, jumped: false, atBarrier: false, exited: nextPc < 0, activeCount: 32 };
}

/** Issues `pc -> nextPc` for `slot`: writes the next PC into the warps first, as the issue stage does. */
function issue(p: ElfPolicy, w: SchedulerWarps, slot: number, pc: number, nextPc: number, fn = 0, nextFn = nextPc < 0 ? -1 : fn): void {
  w.pc![slot] = nextPc;
  w.fn![slot] = nextFn;
  if (nextPc < 0) w.active[slot] = 0;
  p.issued(w, slot, false, ev(pc, nextPc, fn, nextFn));
}

const stat = (p: ElfPolicy, name: string) => p.statisticValue(ELF_STATISTICS.findIndex((s) => s.name === name));

describe('elf: order (004 §3, spec §2.5 B, R-E1)', () => {
  it('starts every warp at the calculator value of its PC and orders lowest WPT first, ties oldest', () => {
    // slot 0 pc 3 -> 4, slot 1 pc 0 -> 2, slot 2 pc 5 -> 2, slot 3 pc 6 -> 1, slot 4 pc 8 -> 255
    const w = warpsAt([3, 0, 5, 6, 8], [STRAIGHT], [0, 4, 1, 2, 3]);
    const p = new ElfPolicy(5);
    // 3 (1); 2 and 1 at 2: slot 2 is older (age 1 < 4); 0 (4); 4 (255: no load ahead, last)
    expect(orderOf(p, w)).toEqual([3, 2, 1, 0, 4]);
    expect(Array.from(p.wpt)).toEqual([4, 2, 2, 1, 255]);
  });

  it('puts the last issued warp first among equal priorities (greedy), then oldest', () => {
    const w = warpsAt([0, 1, 5], [STRAIGHT]); // 2, 1, 2
    const p = new ElfPolicy(3);
    expect(orderOf(p, w)).toEqual([1, 0, 2]);
    issue(p, w, 1, 1, 2); // slot 1: 1 -> 0 (decrement, pc 2 is the load)
    issue(p, w, 1, 2, 3); // the load: recalculated, calc[3] = 4
    issue(p, w, 2, 5, 6); // slot 2: 2 -> 1, and it is the greedy warp now
    expect(Array.from(p.wpt)).toEqual([2, 4, 1]);
    expect(orderOf(p, w)).toEqual([2, 0, 1]);
    // make slots 0 and 2 equal (1): slot 0 issues (decrement to 1) and becomes greedy
    issue(p, w, 0, 0, 1);
    expect(Array.from(p.wpt)).toEqual([1, 4, 1]);
    expect(orderOf(p, w)).toEqual([0, 2, 1]);
    // then slot 2 issues (1 -> 0) and leads by WPT alone
    issue(p, w, 2, 6, 7);
    expect(orderOf(p, w)).toEqual([2, 0, 1]);
  });

  it('leaves out finished warps and restarts a slot that gets a new warp (new age)', () => {
    const w = warpsAt([6, 3], [STRAIGHT]);
    const p = new ElfPolicy(2);
    expect(orderOf(p, w)).toEqual([0, 1]);
    issue(p, w, 0, 9, -1); // slot 0 exits
    expect(orderOf(p, w)).toEqual([1]);
    w.active[0] = 1;
    w.age[0] = 7;
    w.pc![0] = 0; // a new warp at pc 0: calc 2 < 4
    w.fn![0] = 0;
    expect(orderOf(p, w)).toEqual([0, 1]);
    expect(p.wpt[0]).toBe(2);
  });

  it('treats warps without tables (no PTX IR) as priority 0: greedy then oldest', () => {
    const w = warpsAt([0, 1, 2], [null, null, null], [2, 0, 1]);
    const p = new ElfPolicy(3);
    expect(orderOf(p, w)).toEqual([1, 2, 0]);
    p.issued(w, 0, false, ev(0, 1));
    expect(orderOf(p, w)).toEqual([0, 1, 2]);
  });

  it('gives the sorted order whatever happened before (property: the kept order is only a cache)', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 9 }), fc.integer({ min: 0, max: 50 }), fc.boolean()), { minLength: 1, maxLength: 12 }), fc.array(fc.integer({ min: 0, max: 9 }), { maxLength: 12 }), (rows, earlier) => {
        const size = rows.length;
        const p = new ElfPolicy(size);
        const w = warpsAt(rows.map((_, i) => earlier[i] ?? 0), [STRAIGHT], rows.map((_, i) => 100 + i));
        orderOf(p, w); // an earlier state with other warps in every slot
        rows.forEach(([pc, age, live], s) => {
          w.pc![s] = pc;
          w.age[s] = age * 64 + s; // distinct ages (a new warp in every slot)
          w.active[s] = live ? 1 : 0;
        });
        const expected = rows
          .map(([pc, age, live], s) => ({ s, key: STRAIGHT.calcPriority[pc]!, age: age * 64 + s, live }))
          .filter((x) => x.live)
          .sort((a, b) => a.key - b.key || a.age - b.age)
          .map((x) => x.s);
        expect(orderOf(p, w)).toEqual(expected);
      }),
    );
  });
});

describe('elf: WPT update after an issue (004 §3.2, spec §2.5 C, R-E2, R-E3, R-E10)', () => {
  // pc: 0 add, 1 bra (OnTaken) -> 4, 2 bra (OnNotTaken) -> 0, 3 call, 4 add, 5 ld, 6 add, 7 ret (fn 1)
  const T = table({
    calc: [5, 4, 9, 8, 1, 0, 20, 30],
    priority: [5, 4, 9, 8, 1, 0, 19, 30],
    recalc: [0, ElfRecalc.OnTaken, ElfRecalc.OnNotTaken, 0, 0, ElfRecalc.Always, 0, 0],
    loads: [0, 0, 0, 0, 0, 1, 0, 0],
    ctrl: [0, CtrlClass.Branch, CtrlClass.Branch, CtrlClass.Call, 0, 0, 0, CtrlClass.Ret],
  });
  const F = table({ calc: [7, 6, 255], ctrl: [0, 0, CtrlClass.Ret] });

  it('decrements on an ordinary instruction, recalculates after a counted load (R-E2)', () => {
    const w = warpsAt([0], [T, F]);
    const p = new ElfPolicy(1);
    expect(p.fetchPriority(w, 0)).toBe(5); // A: calc(PC start)
    issue(p, w, 0, 4, 5); // add: 5 - 1 = 4 (no recalculation: the stale value stays)
    expect(p.wpt[0]).toBe(4);
    issue(p, w, 0, 5, 6); // the load: calc[6] = 20
    expect(p.wpt[0]).toBe(20);
    expect(stat(p, 'elf_decrements')).toBe(1);
    expect(stat(p, 'elf_recalc_load')).toBe(1);
  });

  it('recalculates after a branch only on the outcome its code names', () => {
    const w = warpsAt([1], [T, F]);
    const p = new ElfPolicy(1);
    expect(p.wpt[0]).toBe(0);
    orderOf(p, w); // sees the warp: WPT 4
    issue(p, w, 0, 1, 2); // OnTaken, not taken: 4 -> 3
    expect(p.wpt[0]).toBe(3);
    issue(p, w, 0, 2, 0); // OnNotTaken, taken to 0: 3 -> 2
    expect(p.wpt[0]).toBe(2);
    issue(p, w, 0, 0, 1); // 2 -> 1
    issue(p, w, 0, 1, 4); // OnTaken, taken: calc[4] = 1
    expect(p.wpt[0]).toBe(1);
    issue(p, w, 0, 2, 3); // OnNotTaken, not taken: calc[3] = 8 (the branch pc need not be where the warp was)
    expect(p.wpt[0]).toBe(8);
    expect(stat(p, 'elf_recalc_branch')).toBe(2);
    expect(stat(p, 'elf_decrements')).toBe(3);
  });

  it('recalculates when a non-branch leaves the fall-through: call, ret, SIMT pop (R-E10)', () => {
    const w = warpsAt([3], [T, F]);
    const p = new ElfPolicy(1);
    orderOf(p, w); // WPT 8
    issue(p, w, 0, 3, 0, 0, 1); // call -> fn 1 pc 0: calc 7
    expect(p.wpt[0]).toBe(7);
    issue(p, w, 0, 0, 1, 1, 1); // 7 -> 6
    issue(p, w, 0, 1, 2, 1, 1); // 6 -> 5 (calc would say 255: the decrement keeps the path it assumed)
    issue(p, w, 0, 2, 4, 1, 0); // ret -> fn 0 pc 4: calc 1
    expect(p.wpt[0]).toBe(1);
    issue(p, w, 0, 6, 2); // add at 6 whose next PC is 2: a reconvergence pop, calc[2] = 9
    expect(p.wpt[0]).toBe(9);
    expect(stat(p, 'elf_recalc_other')).toBe(3);
    expect(stat(p, 'elf_decrements')).toBe(2);
  });

  it("recalculates every issue under the 'always' codes (Fig. 8 naive), counting the extra ones as naive", () => {
    const A = table({ calc: [3, 2, 1, 0, 255], recalc: new Array(5).fill(ElfRecalc.Always), loads: [0, 0, 0, 1, 0] });
    const w = warpsAt([0], [A]);
    const p = new ElfPolicy(1);
    orderOf(p, w);
    for (let pc = 0; pc < 4; pc++) issue(p, w, 0, pc, pc + 1);
    expect(p.wpt[0]).toBe(255);
    expect([stat(p, 'elf_recalc_naive'), stat(p, 'elf_recalc_load'), stat(p, 'elf_decrements')]).toEqual([3, 1, 0]);
  });

  it('saturated stays saturated (no load ahead), never below 0; an exit changes nothing', () => {
    const S = table({ calc: [255, 255, 0, 0, 0], maxScore: 255 });
    const w = warpsAt([0], [S]);
    const p = new ElfPolicy(1);
    orderOf(p, w);
    issue(p, w, 0, 0, 1);
    expect(p.wpt[0]).toBe(255);
    const Z = table({ calc: [0, 0, 0] });
    const w2 = warpsAt([0], [Z]);
    const q = new ElfPolicy(1);
    orderOf(q, w2);
    issue(q, w2, 0, 0, 1);
    expect(q.wpt[0]).toBe(0);
    issue(q, w2, 0, 1, -1); // exit
    expect(q.wpt[0]).toBe(0);
    expect(stat(q, 'elf_decrements')).toBe(1);
  });

  it('sums |WPT - exact| over updates (spec §2.6 elf_priority_error)', () => {
    const w = warpsAt([4], [T, F]);
    const p = new ElfPolicy(1);
    orderOf(p, w); // WPT 1
    issue(p, w, 0, 4, 5); // 0 vs exact 0
    issue(p, w, 0, 5, 6); // recalc 20 vs exact 19: 1
    issue(p, w, 0, 6, 7); // 19 vs exact 30: 11
    expect(stat(p, 'elf_priority_error')).toBe(12);
  });
});

describe('elf: statistics published per SM (spec §2.10)', () => {
  it('exposes its statistics to the issue stage, summed over schedulers; program points as the largest', () => {
    const a = new ElfPolicy(2);
    const b = new ElfPolicy(2);
    const w = warpsAt([0, 6], [STRAIGHT]);
    orderOf(a, w);
    issue(a, w, 0, 0, 1);
    issue(a, w, 1, 6, 7);
    issue(a, w, 1, 7, 8);
    const SMALL = table({ calc: [0, 1], points: [1, 1, 1] });
    orderOf(b, warpsAt([0, 0], [SMALL]));
    const sources = [a, b].map((x) => policyStatistics(x)!);
    expect(sources.every((s) => s !== null)).toBe(true);
    const v = (name: string) => combinedStatistic(sources, ELF_STATISTICS.findIndex((s) => s.name === name));
    expect(v('elf_decrements')).toBe(2);
    expect(v('elf_recalc_load')).toBe(1);
    expect(v('elf_pp_before_merge')).toBe(2); // max(2, 1)
    expect(v('elf_pp_loaded')).toBe(2);
    expect(ELF_STATISTICS.map((s) => s.name)).toEqual([
      'elf_recalc_load', 'elf_recalc_branch', 'elf_recalc_other', 'elf_recalc_naive', 'elf_decrements', 'elf_priority_error', 'elf_pp_initial', 'elf_pp_before_merge', 'elf_pp_loaded',
    ]);
    expect(ElfStat.PointsLoaded).toBe(ELF_STATISTICS.length - 1);
    expect(policyStatistics(createWarpSchedulerPolicy('gto', { numSlots: 2 }))).toBeNull();
  });
});

describe('elf: registry and options (spec §2.7)', () => {
  it('is registered, uses static tables, and checks its options', () => {
    const p = createWarpSchedulerPolicy('elf', { numSlots: 4, programPoints: 16, recalcRule: 'literal' }) as ElfPolicy;
    expect(p.usesStaticTables).toBe(true);
    expect(p.options).toEqual({ programPoints: 16, scoreBits: 8, branches: 'backward', recalcRule: 'literal' });
    expect(() => createWarpSchedulerPolicy('elf', { numSlots: 4, recalcRule: 'sometimes' })).toThrow(InputError);
    expect(() => createWarpSchedulerPolicy('elf', { numSlots: 4, scoreBits: 17 })).toThrow(/scoreBits/);
    expect(() => createWarpSchedulerPolicy('elf', { numSlots: 4, programPoints: 0 })).toThrow(/programPoints/);
  });
});

describe("elf on the real static pass: a loop nest (spec §2.6 unit test, 'consistent' vs 'literal')", () => {
  const DECLS = '.reg .pred %p<2>; .reg .b32 %r<6>; .reg .b64 %rd<2>;';
  const body = [
    DECLS,
    'ld.param.u64 %rd1, [k_p0];', // 0
    'mov.u32 %r1, 0;', // 1
    'OUTER:',
    'mov.u32 %r2, 0;', // 2
    'ld.global.u32 %r3, [%rd1];', // 3  load
    'INNER:',
    'add.s32 %r2, %r2, 1;', // 4
    'add.s32 %r4, %r3, %r2;', // 5
    'add.s32 %r4, %r4, 1;', // 6
    'setp.lt.u32 %p1, %r2, 3;', // 7
    '@%p1 bra INNER;', // 8  backward, meaningless (its score is the fall-through's): not a point
    'add.s32 %r1, %r1, 1;', // 9
    'ld.global.u32 %r5, [%rd1];', // 10 load
    'add.s32 %r5, %r5, 1;', // 11
    'setp.lt.u32 %p1, %r1, 2;', // 12
    '@%p1 bra OUTER;', // 13 backward branch point, score 2 (taken path)
    'ret;', // 14
  ].join('\n');
  const fn = parseKernel(body);

  /** Walks the nest (inner loop 3 times, outer twice) issuing every instruction; returns the WPT checks. */
  function walk(rule: 'consistent' | 'literal') {
    const t = annotateFunction(fn, { phaseLatency: 'unit', elf: { recalcRule: rule } });
    const w = warpsAt([0], [t]);
    const p = new ElfPolicy(1);
    orderOf(p, w);
    const mismatches: number[] = [];
    const trips = new Map<number, number>();
    let pc = 0;
    let issues = 0;
    for (;;) {
      const ins = fn.instructions[pc]!;
      let next = pc + 1;
      if (ins.op === Opcode.Bra) {
        const n = (trips.get(pc) ?? 0) + 1;
        const taken = pc === 8 ? n % 3 !== 0 : n < 2; // inner: 3 iterations per entry; outer: 2
        trips.set(pc, n);
        if (taken) next = branchTarget(ins);
      }
      if (ins.op === Opcode.Ret) {
        issue(p, w, 0, pc, -1);
        break;
      }
      issue(p, w, 0, pc, next);
      issues++;
      if (p.wpt[0] !== t.calcPriority[next]) mismatches.push(pc);
      pc = next;
    }
    return { t, p, issues, mismatches };
  }

  it("'consistent' (default): the WPT equals the calculator at every step; 4 load and 5 branch recalculations of 46 updates", () => {
    const { t, p, issues, mismatches } = walk('consistent');
    expect([...t.calcPriority]).toEqual([3, 2, 1, 0, 6, 5, 4, 3, 2, 1, 0, 4, 3, 2, 255]);
    expect(t.recalc[8]).toBe(ElfRecalc.OnTaken);
    expect(t.recalc[13]).toBe(ElfRecalc.OnNotTaken);
    expect(issues).toBe(46); // 2 + 2 x (2 + 3 x 5 + 5)
    expect(mismatches).toEqual([]);
    // loads at 3 and 10, twice each; inner taken 2 x 2, outer not taken once
    expect([stat(p, 'elf_recalc_load'), stat(p, 'elf_recalc_branch'), stat(p, 'elf_recalc_other'), stat(p, 'elf_decrements')]).toEqual([4, 5, 0, 37]);
    // the calculator is exact on this nest, so is the WPT
    expect(stat(p, 'elf_priority_error')).toBe(0);
    // Fig. 8 bound (spec §2.11 item 7): 1 - (loads + branches) / insts <= reduction <= 1
    const reduction = stat(p, 'elf_decrements') / issues;
    expect(reduction).toBeGreaterThanOrEqual(1 - (4 + 8) / issues);
  });

  it("'literal' (004 §3.2 as written) recalculates on the other outcomes and drifts from the calculator (C14)", () => {
    const { t, p, mismatches } = walk('literal');
    expect(t.recalc[8]).toBe(ElfRecalc.OnNotTaken);
    expect(t.recalc[13]).toBe(ElfRecalc.OnTaken);
    expect(mismatches.length).toBeGreaterThan(0);
    expect([stat(p, 'elf_recalc_load'), stat(p, 'elf_recalc_branch'), stat(p, 'elf_decrements')]).toEqual([4, 3, 39]);
    // per outer iteration the inner loop's taken branches leave the WPT 5,5,4,3,2 and 6,5,4,3,2
    // below the exact distance (39); the outer exit keeps 1 where no load follows (254)
    expect(stat(p, 'elf_priority_error')).toBe(39 + 39 + 254);
  });
});

describe('elf: toy timeline of 004 Fig. 2 (spec §2.11 item 2)', () => {
  /**
   * One scheduler, one issue per cycle; ALU ops 1 cycle, loads 4 cycles, each instruction
   * dependent on the previous one of its warp; program {@link STRAIGHT}. Warps W0..W3 (oldest
   * first) at PCs 3, 0, 5, 6. Returns the issue cycle of every load and the first issues.
   */
  function timeline(policy: WarpSchedulerPolicy): { loads: number[]; first: string[] } {
    const w = warpsAt([3, 0, 5, 6], [STRAIGHT]);
    const readyAt = [0, 0, 0, 0];
    const loads: number[] = [];
    const first: string[] = [];
    const out = new Int32Array(4);
    for (let c = 0; c < 200 && w.active.some((x) => x === 1); c++) {
      for (let s = 0; s < 4; s++) if (readyAt[s]! > c) w.notReady.add(s);
      else w.notReady.delete(s);
      const n = policy.order(w, out);
      for (let i = 0; i < n; i++) {
        const s = out[i]!;
        if (!w.probe.ready(s)) continue;
        const pc = w.pc![s]!;
        const isLoad = STRAIGHT.isElfLoad[pc] === 1;
        if (isLoad) loads.push(c);
        if (first.length < 6) first.push(`W${s}@${pc}`);
        const next = pc + 1 < 10 ? pc + 1 : -1;
        readyAt[s] = c + (isLoad ? 4 : 1);
        w.pc![s] = next;
        w.fn![s] = next < 0 ? -1 : 0;
        if (next < 0) w.active[s] = 0;
        policy.issued(w, s, isLoad, { ...ev(pc, next), isLoad });
        break;
      }
    }
    return { loads, first };
  }

  it('ELF issues the warp closest to a load first and issues the loads earlier than GTO', () => {
    const elf = timeline(new ElfPolicy(4));
    const gto = timeline(createWarpSchedulerPolicy('gto', { numSlots: 4 }));
    // ELF: W3 (1 to its load), its load; W1 (2, older than W2) up to its load; then W2 (hand-derived)
    expect(elf.first).toEqual(['W3@6', 'W3@7', 'W1@0', 'W1@1', 'W1@2', 'W2@5']);
    expect(elf.loads).toEqual([1, 4, 7, 12, 17]);
    // GTO: W0 runs to its load (cycle 4), then W1 (7), W0 again, W2 (12), W1 (17), W3 (21)
    expect(gto.first).toEqual(['W0@3', 'W0@4', 'W0@5', 'W0@6', 'W0@7', 'W1@0']);
    expect(gto.loads).toEqual([4, 7, 12, 17, 21]);
    const sum = (x: number[]) => x.reduce((a, b) => a + b, 0);
    expect(sum(elf.loads)).toBeLessThan(sum(gto.loads)); // 41 < 61
  });
});
