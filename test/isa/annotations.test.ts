import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { annotateFunction, annotateModule, CtrlClass } from '../../src/isa/annotations.ts';
import type { FunctionAnnotation } from '../../src/isa/annotations.ts';
import { analyzeElf, elfDecrement, ElfRecalc } from '../../src/isa/elf.ts';
import type { ElfRecalcRule } from '../../src/isa/elf.ts';
import { PhaseStart } from '../../src/isa/phase.ts';
import type { PipelineLatencyModel } from '../../src/isa/phase.ts';
import { fixture, parse, parseKernel } from './helpers.ts';

/** R-P2 pipeline model with the m2090 preset's numbers (see phase.test.ts). */
const M2090_PIPELINE: PipelineLatencyModel = {
  kind: 'pipeline',
  issueIntervalCycles: 2,
  opClasses: { alu: { latency: 4 }, intMul: { latency: 4 }, intDiv: { latency: 145 }, dp: { latency: 8 }, other: { latency: 32 } },
};

const fnIn = (text: string, name: string) => {
  const m = parse(text);
  return m.functions[m.functionByName.get(name)!]!;
};

describe('fixture pats.ptx', () => {
  const nvcc = ['/usr/local/bin/nvcc', '/usr/local/cuda/bin/nvcc'].find((p) => existsSync(p));
  it.skipIf(!nvcc)('is what nvcc makes of pats.cu (regenerated when nvcc is installed)', { timeout: 120_000 }, () => {
    const dir = mkdtempSync(join(tmpdir(), 'warpstate-pats-'));
    try {
      const out = join(dir, 'pats.ptx');
      execFileSync(nvcc!, ['-ptx', '-arch=compute_75', fileURLToPath(new URL('./fixtures/pats.cu', import.meta.url)), '-o', out], { stdio: 'pipe' });
      const fresh = parse(readFileSync(out, 'utf8'));
      const committed = parse(fixture('pats.ptx'));
      for (const name of ['vecadd_fig32', 'bar_phase']) {
        const ops = (m: typeof fresh) => m.functions[m.functionByName.get(name)!]!.instructions.map((i) => i.opText);
        expect(ops(fresh)).toEqual(ops(committed));
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('static annotation of a function (spec §6 item 1)', () => {
  it('vecadd (000 Fig. 3.2): phase tables with the pipeline model, ELF tables, control classes', () => {
    const a = annotateFunction(fnIn(fixture('pats.ptx'), 'vecadd_fig32'), { phaseLatency: M2090_PIPELINE });
    expect(a.instructionCount).toBe(19);
    // phases as derived in phase.test.ts: [0, 15) length 50, [15, 19) length 12
    expect(a.phaseCount).toBe(2);
    expect([...a.phaseStart]).toEqual([0, 15]);
    expect([...a.phaseReason]).toEqual([PhaseStart.Block, PhaseStart.Dependence]);
    expect([...a.phaseLength]).toEqual([50, 12]);
    expect(a.phaseOf[14]).toBe(0);
    expect(a.phaseOf[15]).toBe(1);
    expect(a.phaseDistance[0]).toBe(50);
    expect(a.phaseDistance[15]).toBe(12);
    // ELF: the two global loads (12, 14) are the only points; priorities count instructions to
    // the next one: 12 - pc before it, 1 at 13, nothing after 14 (255)
    expect(a.pointCount).toBe(2);
    expect([...a.pointPc]).toEqual([12, 14]);
    expect([...a.pointIsBranch]).toEqual([0, 0]);
    expect([...a.pointScore]).toEqual([0, 0]);
    const exact = [12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 1, 0, 255, 255, 255, 255];
    expect([...a.priority]).toEqual(exact);
    expect([...a.calcPriority]).toEqual(exact);
    expect([...a.isElfLoad].flatMap((v, pc) => (v ? [pc] : []))).toEqual([12, 14]);
    expect([...a.recalc].flatMap((v, pc) => (v === ElfRecalc.Always ? [pc] : []))).toEqual([12, 14]);
    expect(a.recalcRule).toBe('consistent');
    expect(a.ctrlClass[18]).toBe(CtrlClass.Ret);
    expect([...a.ctrlClass.subarray(0, 18)].every((c) => c === CtrlClass.None)).toBe(true);
  });

  it('control class of every kind of control instruction', () => {
    const text = `.version 9.0\n.target sm_75\n.address_size 64\n.func f()\n{\nret;\n}\n.visible .entry k()\n{\n${[
      '.reg .pred %p<1>; .reg .b32 %r<1>;',
      'add.s32 %r0, %r0, 1;', // 0 none
      'bar.sync 0;', // 1 barrier
      'membar.gl;', // 2 membar
      'call f;', // 3 call
      '@%p0 bra L;', // 4 branch
      '@%p0 exit;', // 5 exit
      'trap;', // 6 exit (class Exit)
      'L:',
      'ret;', // 7 ret
    ].join('\n')}\n}\n`;
    const m = parse(text);
    const all = annotateModule(m, { phaseLatency: 'unit' });
    expect(all).toHaveLength(2);
    const a = all[m.functionByName.get('k')!]!;
    expect([...a.ctrlClass]).toEqual([
      CtrlClass.None,
      CtrlClass.Barrier,
      CtrlClass.Membar,
      CtrlClass.Call,
      CtrlClass.Branch,
      CtrlClass.Exit,
      CtrlClass.Exit,
      CtrlClass.Ret,
    ]);
    // the callee has its own tables (R-P5): one instruction, one phase
    const f = all[m.functionByName.get('f')!]!;
    expect(f.instructionCount).toBe(1);
    expect(f.phaseCount).toBe(1);
    expect([...f.ctrlClass]).toEqual([CtrlClass.Ret]);
  });

  it('a function without a body gets an empty annotation', () => {
    const m = parse(
      `.version 9.0\n.target sm_75\n.address_size 64\n.extern .func (.param .b32 r) vprintf(.param .b64 a, .param .b64 b);\n.visible .entry k()\n{\nret;\n}\n`,
    );
    const all = annotateModule(m, { phaseLatency: M2090_PIPELINE });
    const v = all[m.functionByName.get('vprintf')!]!;
    expect(v.instructionCount).toBe(0);
    expect(v.phaseCount).toBe(0);
    expect(v.pointCount).toBe(0);
  });
});

describe('spec §1.10 (b), static part: the keys PATS reads for hand-made warps', () => {
  it('single level orders by (phase distance, age); two level keys by the current phase length (R-P6)', () => {
    const a = annotateFunction(fnIn(fixture('pats.ptx'), 'vecadd_fig32'), { phaseLatency: M2090_PIPELINE });
    // warps (age = launch order, R-P9) at PCs whose distances were derived in phase.test.ts:
    // pc 3 -> 44, pc 15 -> 12, pc 12 -> 8, pc 17 -> 4, pc 13 -> 6, pc 17 -> 4
    const warps = [3, 15, 12, 17, 13, 17].map((pc, age) => ({ pc, age }));
    const single = [...warps].sort((x, y) => a.phaseDistance[x.pc]! - a.phaseDistance[y.pc]! || x.age - y.age);
    expect(single.map((w) => w.age)).toEqual([3, 5, 4, 2, 1, 0]);
    // two level: phase 0 (pcs 3, 12, 13) has length 50, phase 1 (15, 17) length 12
    const key = (w: { pc: number }) => a.phaseLength[a.phaseOf[w.pc]!]!;
    expect(warps.map(key)).toEqual([50, 12, 50, 12, 50, 12]);
    const twoLevel = [...warps].sort((x, y) => key(x) - key(y) || x.age - y.age);
    expect(twoLevel.map((w) => w.age)).toEqual([1, 3, 5, 0, 2, 4]);
  });
});

describe('spec §2.11 (1): Algorithm 2 on 40 straight-line loads and 32 slots', () => {
  // Layout of elf-40-loads.ptx (see its header): L(2j) at 3+6j and L(2j+1) at 5+6j for j = 0..7,
  // L(16+k) at 51+4k for k = 0..23, ret at 144.
  const loadPcs = [...Array.from({ length: 8 }, (_, j) => [3 + 6 * j, 5 + 6 * j]).flat(), ...Array.from({ length: 24 }, (_, k) => 51 + 4 * k)];
  const fn = fnIn(fixture('elf-40-loads.ptx'), 'loads40');
  const n = 145;
  // exact priority of straight-line code: instructions to the next load at or after pc, 255 after the last
  const exact = Array.from({ length: n }, (_, pc) => {
    const next = loadPcs.find((l) => l >= pc);
    return next === undefined ? 255 : next - pc;
  });

  it('with enough slots nothing merges and the calculator equals the exact priority', () => {
    expect(fn.instructions).toHaveLength(n);
    const a = annotateFunction(fn, { phaseLatency: 'unit', elf: { maxProgramPoints: 40 } });
    expect(a.elfInitialPoints).toBe(40);
    expect(a.elfPointsBeforeMerge).toBe(40);
    expect([...a.pointPc]).toEqual(loadPcs);
    expect([...a.priority]).toEqual(exact);
    expect([...a.calcPriority]).toEqual(exact);
  });

  it('32 slots: the 8 closest pairs merge, the later load of each records the distance 2 (Alg. 2 l.16)', () => {
    // Merge 1 (l.1-15): minDistance starts at 255; L1's distance to L0 is getScore(L0+1)+1 = 2, the
    // first strict minimum; every later pair is 2 (not < 2) or 4. So L1.score = 2, L0 removed.
    // Merge k: merged loads are now 4 + 2 + 2 = 8 from their previous point, so the next untouched
    // pair (distance 2) wins, in PC order: L1, L3, ..., L15 absorb L0, L2, ..., L14.
    const a = annotateFunction(fn, { phaseLatency: 'unit' });
    expect(a.elfPointsBeforeMerge).toBe(40);
    expect(a.pointCount).toBe(32);
    const removed = Array.from({ length: 8 }, (_, j) => 3 + 6 * j);
    const kept = loadPcs.filter((pc) => !removed.includes(pc));
    expect([...a.pointPc]).toEqual(kept);
    expect([...a.pointScore]).toEqual([...new Array(8).fill(2), ...new Array(24).fill(0)]);
    // the calculator stays within the 8-bit score range everywhere
    expect([...a.calcPriority].every((p) => p >= 0 && p <= 255)).toBe(true);
    // before a removed load (e.g. pcs 0-2 before L0 at 3) the next point is the merged L(2j+1),
    // d = distance to it > 2, and §3.2's subtraction gives d - 2 = the distance to the removed
    // load; after it (pc 4) d = 1 <= 2 is kept: the distance to the merged load. So the calculator
    // is exact everywhere except on the removed loads themselves, where it gives 2 (to the
    // merged load, which is what the priority is right after the load issues and recalculates).
    const expected = exact.map((e, pc) => (removed.includes(pc) ? 2 : e));
    expect([...a.calcPriority]).toEqual(expected);
    expect([0, 1, 2, 4].map((pc) => a.calcPriority[pc])).toEqual([3, 2, 1, 1]);
    // every load recalculates (R-E2), the merged-away ones too; nothing else does
    expect([...a.recalc].flatMap((v, pc) => (v === ElfRecalc.Always ? [pc] : []))).toEqual(loadPcs);
    expect([...a.recalc].filter((v) => v !== ElfRecalc.None && v !== ElfRecalc.Always)).toEqual([]);
  });
});

/**
 * Replays one warp along a scripted path of PCs and returns, after each issue, the WPT the ELF
 * hardware would hold (recalculate from `calcPriority` when the instruction's code says so for
 * the outcome, else decrement) and the calculator's value at the next PC.
 */
function replayWpt(a: FunctionAnnotation, path: readonly number[]): { wpt: number[]; calc: number[] } {
  let wpt = a.calcPriority[path[0]!]!;
  const out = { wpt: [] as number[], calc: [] as number[] };
  for (let s = 0; s + 1 < path.length; s++) {
    const pc = path[s]!;
    const next = path[s + 1]!;
    const taken = next !== pc + 1;
    const code = a.recalc[pc]!;
    const recalc = code === ElfRecalc.Always || (code === ElfRecalc.OnTaken && taken) || (code === ElfRecalc.OnNotTaken && !taken);
    wpt = recalc ? a.calcPriority[next]! : elfDecrement(wpt, a.maxScore);
    out.wpt.push(wpt);
    out.calc.push(a.calcPriority[next]!);
  }
  return out;
}

describe('C14: recalculation rules on a loop nest (spec §2.6)', () => {
  const body = [
    '.reg .pred %p<2>; .reg .b32 %r<5>; .reg .b64 %rd<1>;',
    'mov.u32 %r0, 0;', // 0
    'OUTER:',
    'ld.global.u32 %r1, [%rd0];', // 1  load A
    'mov.u32 %r2, 0;', // 2
    'INNER:',
    'add.s32 %r2, %r2, 1;', // 3
    'ld.global.u32 %r3, [%rd0+4];', // 4  load B
    'add.s32 %r4, %r3, %r1;', // 5
    'setp.lt.u32 %p0, %r2, 2;', // 6
    '@%p0 bra INNER;', // 7  backward
    'add.s32 %r0, %r0, 1;', // 8
    'setp.lt.u32 %p1, %r0, 2;', // 9
    '@%p1 bra OUTER;', // 10 backward
    'st.global.u32 [%rd0], %r4;', // 11
    'ret;', // 12
  ].join('\n');
  // two outer iterations of two inner iterations each
  const inner = [3, 4, 5, 6, 7];
  const path = [0, 1, 2, ...inner, ...inner, 8, 9, 10, 1, 2, ...inner, ...inner, 8, 9, 10, 11, 12];

  it('Algorithm 1: both branches are points; the calculator is exact', () => {
    // branch 7: taken 7->3->4 = 2, fall-through first sweep 256 (10 still at MaxScore), then
    //   8, 9 and branch 10 (score 1) = 2 + 1 + 1 = 4; score 2, kept (2 != 4)
    // branch 10: taken 10->1 = 1, fall-through reaches ret: 256; score 1, kept
    const e = analyzeElf(parseKernel(body));
    expect(e.points.map((p) => [p.pc, p.isBranch, p.score])).toEqual([
      [1, false, 0],
      [4, false, 0],
      [7, true, 2],
      [10, true, 1],
    ]);
    // exact: 0->1; 2->3->4; 5->6->7->3->4 = 4 (shorter than the way out: 6); 8->9->10->1 = 3
    const exact = [1, 0, 2, 1, 0, 4, 3, 2, 3, 2, 1, 255, 255];
    expect([...e.priority]).toEqual(exact);
    expect([...e.calcPriority]).toEqual(exact);
  });

  it("'consistent' (default): the WPT equals the calculator at every step", () => {
    const a = annotateFunction(parseKernel(body), { phaseLatency: 'unit' });
    // branch 7: WPT 2 -> decremented 1; taken to 3 (1): right; not taken to 8 (3): recalculate
    // branch 10: WPT 1 -> 0; taken to 1 (0): right; not taken to 11 (255): recalculate
    expect(a.recalc[7]).toBe(ElfRecalc.OnNotTaken);
    expect(a.recalc[10]).toBe(ElfRecalc.OnNotTaken);
    const r = replayWpt(a, path);
    expect(r.wpt).toEqual(r.calc);
    // after the last branch falls through, no load is reachable: the WPT stays saturated
    expect(r.wpt.slice(-2)).toEqual([255, 255]);
  });

  it("'literal' (004 §3.2 as written) goes stale when a loop exits", () => {
    const rule: ElfRecalcRule = 'literal';
    const a = annotateFunction(parseKernel(body), { phaseLatency: 'unit', elf: { recalcRule: rule } });
    // both taken paths are shorter: bits set, recalculation only when taken
    expect(a.recalc[7]).toBe(ElfRecalc.OnTaken);
    expect(a.recalc[10]).toBe(ElfRecalc.OnTaken);
    const r = replayWpt(a, path);
    // path steps 0..: 0 1 2 3 4 5 6 7(T) 3 4 5 6 7(NT) -> 8. The WPT entering 7 is 2 (calculator
    // at 7), decremented to 1 on the not-taken exit, while the calculator at 8 gives 3.
    const exitStep = path.indexOf(8) - 1;
    expect(r.calc[exitStep]).toBe(3);
    expect(r.wpt[exitStep]).toBe(1);
  });
});

describe('spec §2.11 (2): toy timeline (004 Fig. 2 setting) driven by the annotation', () => {
  // 10 instructions, straight line: loads at 2 and 6. Toy timing: one issue per cycle; each
  // instruction depends on the previous one of its warp; ALU results after 1 cycle, loads after 4.
  const fn = parseKernel(
    [
      '.reg .b32 %r<4>; .reg .b64 %rd<1>;',
      'add.s32 %r0, %r0, 1;', // 0
      'add.s32 %r0, %r0, 1;', // 1
      'ld.global.u32 %r1, [%rd0];', // 2
      'add.s32 %r0, %r1, 1;', // 3
      'add.s32 %r0, %r0, 1;', // 4
      'add.s32 %r0, %r0, 1;', // 5
      'ld.global.u32 %r2, [%rd0+4];', // 6
      'add.s32 %r0, %r2, 1;', // 7
      'add.s32 %r0, %r0, 1;', // 8
      'ret;', // 9
    ].join('\n'),
  );
  const a = annotateFunction(fn, { phaseLatency: 'unit' });

  /** Cycle of each warp's first load issue, and the warp issued first. */
  function run(policy: 'elf' | 'gto'): { firstLoad: number[]; first: number } {
    // warp 0 (oldest) at pc 3, warp 1 at pc 0, warp 2 at pc 5; all ready at cycle 0
    const warps = [3, 0, 5].map((pc, age) => ({ pc, age, ready: 0, wpt: a.calcPriority[pc]!, firstLoad: -1, done: false }));
    let last = -1;
    let first = -1;
    for (let c = 0; c < 100 && warps.some((w) => w.firstLoad < 0); c++) {
      // GTO: the last issued warp, then the oldest; ELF: WPT ascending, ties in GTO order (R-E1)
      const order = warps
        .filter((w) => !w.done)
        .sort((x, y) => (policy === 'elf' ? x.wpt - y.wpt : 0) || (x.age === last ? -1 : y.age === last ? 1 : x.age - y.age));
      const w = order.find((x) => x.ready <= c);
      if (!w) continue;
      if (first < 0) first = w.age;
      const load = a.isElfLoad[w.pc] === 1;
      if (load && w.firstLoad < 0) w.firstLoad = c;
      w.ready = c + (load ? 4 : 1);
      w.wpt = a.recalc[w.pc] === ElfRecalc.Always ? a.calcPriority[w.pc + 1]! : elfDecrement(w.wpt, a.maxScore);
      w.done = a.ctrlClass[w.pc] === CtrlClass.Ret;
      w.pc++;
      last = w.age;
    }
    return { firstLoad: warps.map((w) => w.firstLoad), first };
  }

  it('ELF issues the warp closest to a load first and issues loads earlier than GTO', () => {
    // ELF, by hand: WPTs 3, 2, 1. c0 w2 (pc 5), c1 w2 load (pc 6; WPT -> 255), c2-c4 w1 pcs 0-2
    // (load at c4; WPT -> 3), c5 w1 waits for its load so w0 (WPT 3, tie) runs pcs 3-6: load at c8.
    const elf = run('elf');
    expect(elf.first).toBe(2);
    expect(elf.firstLoad).toEqual([8, 4, 1]);
    // GTO, by hand: c0-c3 w0 pcs 3-6 (load at c3), c4-c6 w1 pcs 0-2 (load at c6), c7-c9 w0 runs
    // to ret, c10-c13 w1 pcs 3-6, c14-c15 w2 pcs 5-6 (load at c15).
    const gto = run('gto');
    expect(gto.first).toBe(0);
    expect(gto.firstLoad).toEqual([3, 6, 15]);
    const sum = (v: number[]) => v.reduce((s, x) => s + x, 0);
    expect(sum(elf.firstLoad)).toBe(13);
    expect(sum(gto.firstLoad)).toBe(24);
  });
});
