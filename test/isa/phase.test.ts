import { describe, expect, it } from 'vitest';
import { analyzePhases, PhaseStart } from '../../src/isa/phase.ts';
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
