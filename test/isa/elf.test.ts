import { describe, expect, it } from 'vitest';
import { analyzeElf, elfCalculatorPriority, ElfRecalc, elfPriorities } from '../../src/isa/elf.ts';
import { fixture, parse, parseKernel } from './helpers.ts';

const DECLS = '.reg .pred %p<2>; .reg .b32 %r<6>; .reg .b64 %rd<2>;';
const build = (lines: string[]) => parseKernel([DECLS, ...lines].join('\n'));
const calcAll = (e: ReturnType<typeof analyzeElf>, n: number) =>
  Array.from({ length: n }, (_, pc) => elfCalculatorPriority(e.points, pc, e.maxScore));

describe('ELF priorities and program points (paper 004 §3.1-3.2)', () => {
  // A loop whose body loads; the loop-back branch is a program point.
  const loop = [
    'ld.param.u64 %rd1, [k_p0];', // 0 (param load: not a program point)
    'mov.u32 %r1, 0;', // 1
    'LOOP:',
    'add.s32 %r1, %r1, 1;', // 2
    'ld.global.u32 %r2, [%rd1];', // 3  load point
    'add.s32 %r3, %r2, 1;', // 4
    'add.s32 %r4, %r3, 1;', // 5
    'setp.lt.u32 %p1, %r1, 10;', // 6
    '@%p1 bra LOOP;', // 7  backward branch point
    'add.s32 %r4, %r4, 1;', // 8
    'ret;', // 9
  ];

  it('computes exact shortest distances to the next global load', () => {
    // 0->1->2->3: 3; the loop body 4..7 goes round through 2 to 3; after the loop no load: saturated
    expect([...elfPriorities(build(loop))]).toEqual([3, 2, 1, 0, 5, 4, 3, 2, 255, 255]);
  });

  it('finds the load and the loop branch, scores the branch with its taken path, and sets its recalculation bit', () => {
    const e = analyzeElf(build(loop));
    expect(e.maxScore).toBe(255);
    expect(e.initialPointCount).toBe(2);
    expect(e.pointsBeforeMerge).toBe(2);
    // branch: taken path 7 -> 2 -> 3 = 2 instructions; fall-through reaches ret (no load): 255
    expect(e.points).toEqual([
      { pc: 3, isBranch: false, score: 0, recalcOnTaken: false },
      { pc: 7, isBranch: true, score: 2, recalcOnTaken: true },
    ]);
    // the hardware calculator reproduces the exact priorities here
    expect(calcAll(e, 10)).toEqual([...e.priority]);
    expect([...e.calcPriority]).toEqual([3, 2, 1, 0, 5, 4, 3, 2, 255, 255]);
    // C14 (spec §2.6, R-E3), default 'consistent': at the branch the WPT holds the calculator's 2
    // (the taken path); after a decrement it is 1. Taken -> pc 2, whose calculated priority is 1:
    // right. Not taken -> pc 8, calculated 255 (no load after the loop): wrong, so the branch
    // recalculates when NOT taken. (Before C14 the code was the literal OnTaken.)
    expect(e.recalcRule).toBe('consistent');
    expect([...e.recalc]).toEqual([0, 0, 0, ElfRecalc.Always, 0, 0, 0, ElfRecalc.OnNotTaken, 0, 0]);
    // 'literal' (004 §3.2 as written): the taken path (2) is shorter than the fall-through (255),
    // so the bit is set and a taken branch recalculates
    const lit = analyzeElf(build(loop), { recalcRule: 'literal' });
    expect([...lit.recalc]).toEqual([0, 0, 0, ElfRecalc.Always, 0, 0, 0, ElfRecalc.OnTaken, 0, 0]);
    expect(lit.points).toEqual(e.points);
    // 'always': the naive scheme, every instruction
    expect([...analyzeElf(build(loop), { recalcRule: 'always' }).recalc]).toEqual(new Array(10).fill(ElfRecalc.Always));
  });

  it('ignores forward branches by default, and scores them with branches: "all"', () => {
    const lines = ['@%p0 bra SKIP;', 'add.s32 %r0, %r0, 1;', 'add.s32 %r0, %r0, 1;', 'SKIP:', 'ld.global.u32 %r1, [%rd0];', 'ret;'];
    const fn = build(lines);
    expect([...elfPriorities(fn)]).toEqual([1, 2, 1, 0, 255]);
    expect(analyzeElf(fn).points).toEqual([{ pc: 3, isBranch: false, score: 0, recalcOnTaken: false }]);
    // taken: 0 -> 3 = 1; fall-through: 0 -> 1 -> 2 -> 3 = 3
    expect(analyzeElf(fn, { branches: 'all' }).points).toEqual([
      { pc: 0, isBranch: true, score: 1, recalcOnTaken: true },
      { pc: 3, isBranch: false, score: 0, recalcOnTaken: false },
    ]);
  });

  it('drops meaningless branches: same score as the fall-through, or the maximum score', () => {
    // fall-through reaches the load in 1, the taken path never gets there sooner
    const sameAsFallThrough = build(['LOOP:', 'add.s32 %r0, %r0, 1;', '@%p0 bra LOOP;', 'ld.global.u32 %r1, [%rd0];', 'ret;']);
    let e = analyzeElf(sameAsFallThrough);
    expect(e.initialPointCount).toBe(2);
    expect(e.points).toEqual([{ pc: 2, isBranch: false, score: 0, recalcOnTaken: false }]);
    // a loop with no load anywhere: the branch keeps the maximum score
    const noLoad = build(['L:', 'add.s32 %r0, %r0, 1;', '@%p0 bra L;', 'ret;']);
    e = analyzeElf(noLoad);
    expect(e.initialPointCount).toBe(1);
    expect(e.points).toEqual([]);
    expect([...e.priority]).toEqual([255, 255, 255]);
  });

  it('merges the two closest loads first (Algorithm 2) and the calculator subtracts the merged score', () => {
    const fn = build([
      'add.s32 %r0, %r0, 1;', // 0
      'ld.global.u32 %r1, [%rd0];', // 1  A
      'add.s32 %r0, %r0, 1;', // 2
      'ld.global.u32 %r2, [%rd0+4];', // 3  B (2 after A)
      'add.s32 %r0, %r0, 1;', // 4
      'add.s32 %r0, %r0, 1;', // 5
      'add.s32 %r0, %r0, 1;', // 6
      'ld.global.u32 %r3, [%rd0+8];', // 7  C (4 after B)
      'ret;', // 8
    ]);
    expect([...elfPriorities(fn)]).toEqual([1, 0, 1, 0, 3, 2, 1, 0, 255]);
    let e = analyzeElf(fn, { maxProgramPoints: 2 });
    expect(e.pointsBeforeMerge).toBe(3);
    // A is merged into B, which records the distance 2
    expect(e.points).toEqual([
      { pc: 3, isBranch: false, score: 2, recalcOnTaken: false },
      { pc: 7, isBranch: false, score: 0, recalcOnTaken: false },
    ]);
    // before A the calculator gives 3 - 2 = 1 (the distance to A); at A itself the paper's rule gives 2
    expect(calcAll(e, 9)).toEqual([1, 2, 1, 0, 3, 2, 1, 0, 255]);
    e = analyzeElf(fn, { maxProgramPoints: 1 });
    // B is then merged into C, which records the distance 4 from B
    expect(e.points).toEqual([{ pc: 7, isBranch: false, score: 4, recalcOnTaken: false }]);
    expect(elfCalculatorPriority(e.points, 0, e.maxScore)).toBe(3);
  });

  it('subtracts the branch score when a branch point is merged into the following load (Alg. 2 line 11)', () => {
    const fn = build([
      'ld.global.u32 %r1, [%rd0];', // 0  A
      'LOOP:',
      'ld.global.u32 %r2, [%rd0+4];', // 1  B
      'add.s32 %r0, %r0, 1;', // 2
      'add.s32 %r0, %r0, 1;', // 3
      '@%p0 bra LOOP;', // 4  taken: 1, fall-through: 3
      'add.s32 %r0, %r0, 1;', // 5
      'add.s32 %r0, %r0, 1;', // 6
      'ld.global.u32 %r3, [%rd0+8];', // 7  C
      'ret;', // 8
    ]);
    const exact = [0, 0, 3, 2, 1, 2, 1, 0, 255];
    expect([...elfPriorities(fn)]).toEqual(exact);
    const full = analyzeElf(fn);
    expect(full.points.map((p) => [p.pc, p.isBranch, p.score])).toEqual([
      [0, false, 0],
      [1, false, 0],
      [4, true, 1],
      [7, false, 0],
    ]);
    expect(calcAll(full, 9)).toEqual(exact);
    // 3 slots: A (distance 1 to B) merges into B
    let e = analyzeElf(fn, { maxProgramPoints: 3 });
    expect(e.points.map((p) => [p.pc, p.isBranch, p.score])).toEqual([
      [1, false, 1],
      [4, true, 1],
      [7, false, 0],
    ]);
    // 2 slots: the branch merges into C: distance 3, minus the branch score 1
    e = analyzeElf(fn, { maxProgramPoints: 2 });
    expect(e.points.map((p) => [p.pc, p.isBranch, p.score])).toEqual([
      [1, false, 1],
      [7, false, 2],
    ]);
    // from pc 2 the calculator sees C at distance 5 > 2 and reports 3: the way round the loop to B
    expect(elfCalculatorPriority(e.points, 2, e.maxScore)).toBe(3);
    // C14: the merged-away branch is no longer a point. The calculator at pc 4 sees C at distance
    // 3 > 2 and gives 1; decremented: 0. Taken -> pc 1 (B, score 1, distance 0): 0, right. Not
    // taken -> pc 5: C at distance 2, not > 2, so 2: wrong -> recalculate when not taken.
    // (Before C14 a branch that was not a point got no code at all.)
    expect(e.calcPriority[4]).toBe(1);
    expect(e.recalc[4]).toBe(ElfRecalc.OnNotTaken);
    // literal: every branch has the bit (§3.2 "extends the instruction format of each branch");
    // path scores before merging: taken 1 (to B) < fall-through 3 (to C): set -> on taken
    expect(analyzeElf(fn, { maxProgramPoints: 2, recalcRule: 'literal' }).recalc[4]).toBe(ElfRecalc.OnTaken);
    // the loads recalculate whether or not they survived the merge (R-E2): A (pc 0) was merged away
    expect([0, 1, 7].map((pc) => e.recalc[pc])).toEqual([ElfRecalc.Always, ElfRecalc.Always, ElfRecalc.Always]);
  });

  it('Alg. 2 l.11 lowers the running minimum itself, so a later pair at the unreduced distance loses', () => {
    const fn = build([
      'ld.global.u32 %r1, [%rd0];', // 0  A
      'add.s32 %r0, %r0, 1;', // 1
      'add.s32 %r0, %r0, 1;', // 2
      'add.s32 %r0, %r0, 1;', // 3
      'add.s32 %r0, %r0, 1;', // 4
      'LOOP:',
      'ld.global.u32 %r2, [%rd0+4];', // 5  B
      'add.s32 %r0, %r0, 1;', // 6
      '@%p0 bra LOOP;', // 7  taken 7->5 = 1, fall-through 7->8->9->10 = 3: score 1, kept
      'add.s32 %r0, %r0, 1;', // 8
      'add.s32 %r0, %r0, 1;', // 9
      'ld.global.u32 %r3, [%rd0+8];', // 10 C
      'add.s32 %r0, %r0, 1;', // 11
      'ld.global.u32 %r4, [%rd0+12];', // 12 D
      'ret;', // 13
    ]);
    expect(analyzeElf(fn).points.map((p) => [p.pc, p.isBranch, p.score])).toEqual([
      [0, false, 0],
      [5, false, 0],
      [7, true, 1],
      [10, false, 0],
      [12, false, 0],
    ]);
    // 4 slots, one merge. l.5 distances: B from A 5; C from the branch getScore(8) + 1 = 3 < 5, so
    // minDistance = 3, then l.11 subtracts the branch score: 2. D from C: 2, not < 2. So C absorbs
    // the branch with score 2. (Comparing D with the unreduced 3 would have merged C into D.)
    const e = analyzeElf(fn, { maxProgramPoints: 4 });
    expect(e.points.map((p) => [p.pc, p.isBranch, p.score])).toEqual([
      [0, false, 0],
      [5, false, 0],
      [10, false, 2],
      [12, false, 0],
    ]);
  });

  it('falls back to dropping a branch when no load can absorb its predecessor', () => {
    const fn = build(['L:', 'ld.global.u32 %r1, [%rd0];', 'add.s32 %r0, %r0, 1;', '@%p0 bra L;', 'ret;']);
    expect(analyzeElf(fn).points.map((p) => p.pc)).toEqual([0, 2]);
    expect(analyzeElf(fn, { maxProgramPoints: 1 }).points.map((p) => p.pc)).toEqual([0]);
  });

  it('saturates priorities and scores at 2^scoreBits - 1', () => {
    const adds = Array.from({ length: 300 }, () => 'add.s32 %r0, %r0, 1;');
    const fn = build([...adds, 'ld.global.u32 %r1, [%rd0];', 'ret;']);
    let e = analyzeElf(fn);
    expect(e.priority[0]).toBe(255);
    expect(e.priority[100]).toBe(200);
    expect(elfCalculatorPriority(e.points, 0, e.maxScore)).toBe(255);
    e = analyzeElf(fn, { scoreBits: 4 });
    expect(e.maxScore).toBe(15);
    expect(e.priority[290]).toBe(10);
    expect(e.priority[0]).toBe(15);
  });

  it('real nvcc vecadd: the two global loads are the program points', () => {
    const m = parse(fixture('kernels.ptx'));
    const fn = m.functions[m.functionByName.get('vecadd')!]!;
    const loads = fn.instructions.flatMap((i, pc) => (i.opText === 'ld.global.f32' ? [pc] : []));
    expect(loads).toHaveLength(2);
    const e = analyzeElf(fn);
    expect(e.points.map((p) => p.pc)).toEqual(loads);
    expect(e.priority[0]).toBe(loads[0]);
  });

  it('rejects bad options', () => {
    const fn = build(['ret;']);
    expect(() => analyzeElf(fn, { maxProgramPoints: 0 })).toThrow(RangeError);
    expect(() => analyzeElf(fn, { scoreBits: 0 })).toThrow(RangeError);
  });
});
