import { describe, expect, it } from 'vitest';
import { analyzePhases, phaseLatencyFunction, PhaseStart } from '../../src/isa/phase.ts';
import type { PipelineLatencyModel } from '../../src/isa/phase.ts';
import { OpClass } from '../../src/isa/ir.ts';
import { fixture, parse, parseKernel, reg } from './helpers.ts';

describe('phase analysis (paper 000 §3.3.1, §3.4.2.1)', () => {
  // The vector-add kernel of Fig. 3.2, straight-line: index computation, two global loads,
  // the add that consumes them, the store.
  const vecadd = [
    '.reg .b32 %r<5>; .reg .b64 %rd<8>; .reg .f32 %f<4>;',
    'ld.param.u64 %rd1, [k_a];', // 0
    'ld.param.u64 %rd2, [k_b];', // 1
    'ld.param.u64 %rd3, [k_c];', // 2
    'mov.u32 %r1, %ctaid.x;', // 3
    'mov.u32 %r2, %ntid.x;', // 4
    'mov.u32 %r3, %tid.x;', // 5
    'mad.lo.s32 %r4, %r1, %r2, %r3;', // 6
    'mul.wide.s32 %rd4, %r4, 4;', // 7
    'add.s64 %rd5, %rd1, %rd4;', // 8
    'add.s64 %rd6, %rd2, %rd4;', // 9
    'add.s64 %rd7, %rd3, %rd4;', // 10
    'ld.global.f32 %f1, [%rd5];', // 11
    'ld.global.f32 %f2, [%rd6];', // 12
    'add.f32 %f3, %f1, %f2;', // 13: first consumer of a loaded register
    'st.global.f32 [%rd7], %f3;', // 14
    'ret;', // 15
  ].join('\n');
  const params = '.param .u64 k_a, .param .u64 k_b, .param .u64 k_c';

  it('splits the paper vector-add example into two phases at the add that consumes the loads', () => {
    const fn = parseKernel(vecadd, params);
    const pa = analyzePhases(fn);
    expect(pa.phases.map((p) => [p.start, p.end, p.reason])).toEqual([
      [0, 13, PhaseStart.Block],
      [13, 16, PhaseStart.Dependence],
    ]);
    expect([...pa.phases[0]!.longOpRegs]).toEqual([reg(fn, '%f1'), reg(fn, '%f2')]);
    expect([...pa.phases[1]!.longOpRegs]).toEqual([]);
    expect([...pa.phaseOf]).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1]);
    // unit latency: distance counts instructions to the end of the phase
    expect([...pa.distance]).toEqual([13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 3, 2, 1]);
    expect(pa.phases.map((p) => p.length)).toEqual([13, 3]);
  });

  it('accumulates the given latencies backwards within each phase', () => {
    const fn = parseKernel(vecadd, params);
    // loads cost 2 cycles, everything else 1: phase 1 = 8 x 1 + 5 loads x 2 = 18; phase 2 = 3
    const pa = analyzePhases(fn, { latency: (i) => (i.opClass === OpClass.Load ? 2 : 1) });
    expect(pa.phases.map((p) => p.length)).toEqual([18, 3]);
    expect(pa.distance[12]).toBe(2);
    expect(pa.distance[11]).toBe(4);
    expect(pa.distance[10]).toBe(5);
    expect(pa.distance[0]).toBe(18);
    expect(pa.distance[13]).toBe(3);
  });

  it('clears the long-op set at each phase start, so loads issued together do not make short phases', () => {
    const fn = parseKernel(
      [
        '.reg .b32 %r<4>; .reg .b64 %rd<1>;',
        'ld.global.u32 %r0, [%rd0];', // 0
        'ld.global.u32 %r1, [%rd0+4];', // 1
        'add.s32 %r2, %r0, 1;', // 2: consumes %r0 -> new phase, set cleared
        'add.s32 %r3, %r1, 1;', // 3: %r1 was cleared, same phase
        'ld.global.u32 %r0, [%rd0+8];', // 4
        'add.s32 %r3, %r0, %r3;', // 5: consumes the new %r0 -> new phase
        'ret;', // 6
      ].join('\n'),
    );
    const pa = analyzePhases(fn);
    expect(pa.phases.map((p) => [p.start, p.end])).toEqual([
      [0, 2],
      [2, 5],
      [5, 7],
    ]);
    expect([...pa.phases[1]!.longOpRegs]).toEqual([reg(fn, '%r0')]);
  });

  it('a long-op register overwritten by a short op no longer ends the phase', () => {
    const fn = parseKernel(
      ['.reg .b32 %r<2>; .reg .b64 %rd<1>;', 'ld.global.u32 %r0, [%rd0];', 'mov.u32 %r0, 5;', 'add.s32 %r1, %r0, 1;', 'ret;'].join('\n'),
    );
    expect(analyzePhases(fn).phases).toHaveLength(1);
  });

  it('every basic block starts a phase; shared loads are short unless isLongOp says otherwise', () => {
    const fn = parseKernel(
      [
        '.reg .pred %p<1>; .reg .b32 %r<3>;',
        'ld.shared.u32 %r0, [%r2];', // 0
        'add.s32 %r1, %r0, 1;', // 1
        'setp.eq.s32 %p0, %r1, 0;', // 2
        '@%p0 bra L;', // 3
        'add.s32 %r1, %r1, 1;', // 4
        'L:',
        'ret;', // 5
      ].join('\n'),
    );
    expect(analyzePhases(fn).phases.map((p) => [p.start, p.reason])).toEqual([
      [0, PhaseStart.Block],
      [4, PhaseStart.Block],
      [5, PhaseStart.Block],
    ]);
    const withShared = analyzePhases(fn, { isLongOp: (i) => i.opClass === OpClass.Load });
    expect(withShared.phases.map((p) => [p.start, p.reason])).toEqual([
      [0, PhaseStart.Block],
      [1, PhaseStart.Dependence],
      [4, PhaseStart.Block],
      [5, PhaseStart.Block],
    ]);
  });

  it('real nvcc vecadd: blocks plus a dependence phase at add.f32', () => {
    const m = parse(fixture('kernels.ptx'));
    const fn = m.functions[m.functionByName.get('vecadd')!]!;
    const ins = fn.instructions;
    const bra = ins.findIndex((i) => i.opText === 'bra');
    const add = ins.findIndex((i) => i.opText === 'add.f32');
    const ret = ins.findIndex((i) => i.opText === 'ret');
    // the two loads are the two instructions before the add
    expect(ins[add - 1]!.opText).toBe('ld.global.f32');
    expect(ins[add - 2]!.opText).toBe('ld.global.f32');
    const pa = analyzePhases(fn);
    expect(pa.phases.map((p) => [p.start, p.end, p.reason])).toEqual([
      [0, bra + 1, PhaseStart.Block],
      [bra + 1, add, PhaseStart.Block],
      [add, ret, PhaseStart.Dependence],
      [ret, ret + 1, PhaseStart.Block],
    ]);
  });

  it('rejects a negative latency', () => {
    const fn = parseKernel(vecadd, params);
    expect(() => analyzePhases(fn, { latency: () => -1 })).toThrow(RangeError);
  });
});

/**
 * The R-P2 `pipeline` model with the m2090 preset's numbers (000 Table 3.1: one instruction every
 * 2 cycles per scheduler; GPGPU-Sim latencies fp add 4, int mul 4, int div 145, dp mad 8, shfl 32,
 * as `execUnitsParams` maps them to opcode classes). EXEC classes cost max(2, latency), every
 * other instruction 2.
 */
const M2090_PIPELINE: PipelineLatencyModel = {
  kind: 'pipeline',
  issueIntervalCycles: 2,
  opClasses: { alu: { latency: 4 }, intMul: { latency: 4 }, intDiv: { latency: 145 }, dp: { latency: 8 }, other: { latency: 32 } },
};

describe('C13: barriers start phases (R-P1) and configured latencies (R-P2, R-P3) - spec §1.10 (a)', () => {
  const m = parse(fixture('pats.ptx'));
  const fnOf = (name: string) => m.functions[m.functionByName.get(name)!]!;

  // vecadd_fig32 is the CUDA of 000 Fig. 3.2 compiled by nvcc 13 (pats.cu). Its 19 PTX instructions:
  //  0-2 ld.param x3 | 3-5 cvta x3 | 6-8 mov x3 | 9 mad.lo.s32 | 10 mul.wide.s32 | 11 add.s64
  //  12 ld.global %r5 | 13 add.s64 | 14 ld.global %r6 | 15 add.s32 %r7, %r6, %r5 | 16 add.s64
  //  17 st.global | 18 ret
  // As in the figure: two phases, the second starting at the add that consumes both loaded
  // registers (Fig. 3.2's "IADD32 R1,R1,R0"). The figure's lengths (18 and 10) come from
  // GT200 SASS with a latency table the text does not give (spec §1.2); ours are derived below.
  it('vecadd (000 Fig. 3.2): two phases, the second at the add of the two loads', () => {
    const fn = fnOf('vecadd_fig32');
    expect(fn.instructions).toHaveLength(19);
    expect(fn.instructions[15]!.opText).toBe('add.s32');
    const unit = analyzePhases(fn, { latency: 'unit' });
    expect(unit.phases.map((p) => [p.start, p.end, p.reason])).toEqual([
      [0, 15, PhaseStart.Block],
      [15, 19, PhaseStart.Dependence],
    ]);
    // unit latency: lengths are instruction counts
    expect(unit.phases.map((p) => p.length)).toEqual([15, 4]);
  });

  it('vecadd (000 Fig. 3.2) with the pipeline latency model', () => {
    const pa = analyzePhases(fnOf('vecadd_fig32'), { latency: M2090_PIPELINE });
    // Backwards within phase 1: ld.global (14) 2; add.s64 (13) 4 -> 6; ld.global (12) 2 -> 8;
    // add.s64, mul.wide, mad, 3 mov, 3 cvta (11..3) 4 each -> 12, 16, ..., 44; 3 ld.param 2 each
    // -> 46, 48, 50. Phase 2: ret 2; st.global 2 -> 4; add.s64 4 -> 8; add.s32 4 -> 12.
    expect([...pa.distance]).toEqual([50, 48, 46, 44, 40, 36, 32, 28, 24, 20, 16, 12, 8, 6, 2, 12, 8, 4, 2]);
    expect(pa.phases.map((p) => p.length)).toEqual([50, 12]);
    // R-P3: saturation clamps distances and lengths
    const capped = analyzePhases(fnOf('vecadd_fig32'), { latency: M2090_PIPELINE, maxPhaseDistance: 20 });
    expect([...capped.distance]).toEqual([20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 16, 12, 8, 6, 2, 12, 8, 4, 2]);
    expect(capped.phases.map((p) => p.length)).toEqual([20, 12]);
  });

  // bar_phase (pats.cu), 23 instructions:
  //  0-1 ld.param | 2-3 cvta | 4-6 mov | 7 mad.lo.s32 | 8 mul.wide.s32 | 9 add.s64
  //  10 ld.global %r5 | 11 shl | 12 mov (symbol) | 13 add.s32 | 14 st.shared [%r8], %r5
  //  15 bar.sync 0 | 16 xor | 17 add.s32 | 18 ld.shared | 19 mul.lo.s32 | 20 add.s64
  //  21 st.global | 22 ret
  it('the instruction after bar.sync starts a phase (R-P1, 000 footnote 1)', () => {
    const fn = fnOf('bar_phase');
    expect(fn.instructions[15]!.opText).toBe('bar.sync');
    const pa = analyzePhases(fn, { latency: M2090_PIPELINE });
    // 14 reads %r5 from the global load at 10: dependence; 16 follows the barrier: barrier.
    // (Before C13 there was no barrier rule: [0, 14) and [14, 23).)
    expect(pa.phases.map((p) => [p.start, p.end, p.reason])).toEqual([
      [0, 14, PhaseStart.Block],
      [14, 16, PhaseStart.Dependence],
      [16, 23, PhaseStart.Barrier],
    ]);
    // phase 0: 2 ld.param x2 + 8 EXEC ops (2..9) x4 + ld.global 2 + shl, mov, add x4 = 4+32+2+12 = 50
    // phase 1: st.shared 2 + bar.sync 2 = 4
    // phase 2: xor 4, add 4, ld.shared 2, mul.lo 4, add.s64 4, st.global 2, ret 2 = 22
    expect(pa.phases.map((p) => p.length)).toEqual([50, 4, 22]);
    expect([...pa.distance.subarray(14)]).toEqual([4, 2, 22, 18, 14, 12, 8, 4, 2]);
    // the pre-C13 behaviour is available by turning synchronization off
    const noSync = analyzePhases(fn, { isSync: () => false });
    expect(noSync.phases.map((p) => [p.start, p.reason])).toEqual([
      [0, PhaseStart.Block],
      [14, PhaseStart.Dependence],
    ]);
  });

  it('membar/fence also end a phase; a register loaded before it is cleared from the long-op set', () => {
    const fn = parseKernel(
      [
        '.reg .b32 %r<4>; .reg .b64 %rd<1>;',
        'ld.global.u32 %r0, [%rd0];', // 0
        'membar.gl;', // 1
        'add.s32 %r1, %r2, 1;', // 2: after the membar -> new phase (barrier)
        'add.s32 %r3, %r0, 1;', // 3: reads %r0, but the set was cleared at 2: same phase
        'fence.sc.cta;', // 4
        'ret;', // 5: after the fence -> new phase
      ].join('\n'),
    );
    const pa = analyzePhases(fn);
    expect(pa.phases.map((p) => [p.start, p.reason])).toEqual([
      [0, PhaseStart.Block],
      [2, PhaseStart.Barrier],
      [5, PhaseStart.Barrier],
    ]);
  });

  it('pipeline model: EXEC classes cost max(issue interval, latency), the rest the issue interval', () => {
    const fn = parseKernel(
      [
        '.reg .b32 %r<3>; .reg .f32 %f<2>; .reg .f64 %fd<2>; .reg .b64 %rd<1>;',
        'div.s32 %r0, %r1, %r2;', // intDiv: 145
        'sqrt.approx.f32 %f0, %f1;', // sfu: not in the table -> issue interval 2
        'add.f64 %fd0, %fd1, %fd1;', // dp: 8
        'shfl.sync.bfly.b32 %r0, %r1, 1, 31, -1;', // other: 32
        'st.global.u32 [%rd0], %r0;', // store: 2
        'bar.sync 0;', // barrier: 2
        'ret;', // 2
      ].join('\n'),
    );
    const lat = phaseLatencyFunction(M2090_PIPELINE);
    expect(fn.instructions.map((i) => lat(i))).toEqual([145, 2, 8, 32, 2, 2, 2]);
    // an issue interval above the latency wins
    const slow = phaseLatencyFunction({ kind: 'pipeline', issueIntervalCycles: 10, opClasses: { intDiv: { latency: 145 }, dp: { latency: 8 } } });
    expect(fn.instructions.map((i) => slow(i))).toEqual([145, 10, 10, 10, 10, 10, 10]);
    expect(phaseLatencyFunction('unit')(fn.instructions[0]!)).toBe(1);
    expect(() => phaseLatencyFunction({ kind: 'pipeline', issueIntervalCycles: -1, opClasses: {} })).toThrow(RangeError);
    expect(() => phaseLatencyFunction({ kind: 'pipeline', issueIntervalCycles: 1, opClasses: { alu: { latency: Number.NaN } } })).toThrow(RangeError);
    expect(() => analyzePhases(fn, { maxPhaseDistance: -1 })).toThrow(RangeError);
  });
});
