import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/errors.ts';
import { OpClass, StateSpace } from '../../src/isa/ir.ts';
import {
  archForBinaryVersion, classifyPtxOpcode, classifySassOpcode, ExecUnit, loadTraceConfig, parseTraceConfig,
  resolveGenericSpace, SASS_OPCODE_NAMES, SassArch, SassOpcodeMapper,
} from '../../src/frontends/accelsim/opcodes.ts';

const DATA = resolve(process.cwd(), 'data');
const TRACE_CFGS = join(DATA, 'gpgpusim-configs', 'accel-sim-trace-configs');
const where = { file: 'k.traceg', line: 9, column: 3 };
const W = [where.file, where.line, where.column] as const;

describe('SASS opcode table', () => {
  const cases: [SassArch, string, OpClass, ExecUnit, StateSpace, boolean][] = [
    [SassArch.Kepler, 'ISUB', OpClass.Alu, ExecUnit.Int, StateSpace.None, false],
    [SassArch.Kepler, 'LDG.E.CT', OpClass.Load, ExecUnit.Mem, StateSpace.Global, true],
    [SassArch.Kepler, 'PBK', OpClass.Branch, ExecUnit.Branch, StateSpace.None, false],
    [SassArch.Kepler, 'DFMA.RN', OpClass.Dp, ExecUnit.Dp, StateSpace.None, false],
    [SassArch.Pascal, 'XMAD.PSL.CBCC', OpClass.IntMul, ExecUnit.Int, StateSpace.None, false],
    [SassArch.Pascal, 'LDS.U.32', OpClass.Load, ExecUnit.Mem, StateSpace.Shared, false],
    [SassArch.Pascal, 'LDL.64', OpClass.Load, ExecUnit.Mem, StateSpace.Local, true],
    // LDC: a constant-space load, as Accel-Sim's trace_driven.cc executes it (case OP_LDC)
    [SassArch.Pascal, 'LDC.32', OpClass.Load, ExecUnit.Mem, StateSpace.Const, false],
    // IDIV: warpstate's marker for PTX integer div/rem written as SASS (sass-names.ts)
    [SassArch.Pascal, 'XMAD.IDIV', OpClass.IntDiv, ExecUnit.Int, StateSpace.None, false],
    [SassArch.Volta, 'IMAD.IDIV', OpClass.IntDiv, ExecUnit.Int, StateSpace.None, false],
    [SassArch.Pascal, 'FADD.IDIV', OpClass.Alu, ExecUnit.Sp, StateSpace.None, false],
    [SassArch.Pascal, 'ATOMS.ADD', OpClass.Atomic, ExecUnit.Mem, StateSpace.Shared, false],
    [SassArch.Pascal, 'ATOM.E.ADD', OpClass.Atomic, ExecUnit.Mem, StateSpace.Generic, true],
    [SassArch.Pascal, 'RED.E.ADD.F32.FTZ.RN', OpClass.Atomic, ExecUnit.Mem, StateSpace.Generic, true],
    [SassArch.Pascal, 'MUFU.RCP', OpClass.Sfu, ExecUnit.Sfu, StateSpace.None, false],
    [SassArch.Pascal, 'MEMBAR.GL', OpClass.Membar, ExecUnit.Mem, StateSpace.None, false],
    [SassArch.Pascal, 'TEX.B', OpClass.Other, ExecUnit.Tex, StateSpace.None, true],
    [SassArch.Volta, 'HMMA.884.F32.F32.STEP0', OpClass.Other, ExecUnit.Tensor, StateSpace.None, false],
    [SassArch.Volta, 'BSSY', OpClass.Branch, ExecUnit.Branch, StateSpace.None, false],
    [SassArch.Volta, 'IMAD.MOV.U32', OpClass.IntMul, ExecUnit.Int, StateSpace.None, false],
    [SassArch.Volta, 'STG.E.SYS', OpClass.Store, ExecUnit.Mem, StateSpace.Global, false],
    [SassArch.Volta, 'CALL.REL.NOINC', OpClass.Call, ExecUnit.Branch, StateSpace.None, false],
    [SassArch.Turing, 'UIADD3', OpClass.Alu, ExecUnit.Udp, StateSpace.None, false],
    [SassArch.Turing, 'LDSM.16.M88.4', OpClass.Load, ExecUnit.Mem, StateSpace.Shared, false],
    [SassArch.Turing, 'ST.E.64', OpClass.Store, ExecUnit.Mem, StateSpace.Generic, false],
    [SassArch.Ampere, 'LDGSTS.E.BYPASS.128', OpClass.Load, ExecUnit.Mem, StateSpace.Global, true],
    [SassArch.Ampere, 'DMMA.884', OpClass.Other, ExecUnit.Tensor, StateSpace.None, false],
    [SassArch.Ampere, 'HMNMX2', OpClass.Alu, ExecUnit.Sp, StateSpace.None, false],
    [SassArch.Ampere, 'EXIT', OpClass.Exit, ExecUnit.Branch, StateSpace.None, false],
    [SassArch.Ampere, 'BAR.SYNC.DEFER_BLOCKING', OpClass.Barrier, ExecUnit.None, StateSpace.None, false],
  ];
  for (const [arch, op, opClass, unit, space, longLatency] of cases) {
    it(`${op} on arch ${arch}`, () => {
      expect(classifySassOpcode(op, arch)).toEqual({ opClass, unit, space, longLatency });
    });
  }

  it('opcodes missing from an architecture', () => {
    expect(classifySassOpcode('HMMA.884', SassArch.Pascal)).toBeUndefined(); // tensor cores start with Volta
    expect(classifySassOpcode('XMAD', SassArch.Volta)).toBeUndefined(); // Volta dropped XMAD
    expect(classifySassOpcode('UIADD3', SassArch.Volta)).toBeUndefined(); // uniform datapath starts with Turing
    expect(classifySassOpcode('LDGSTS', SassArch.Turing)).toBeUndefined(); // async copy starts with Ampere
    expect(classifySassOpcode('ISUB', SassArch.Pascal)).toBeUndefined();
  });

  it('binary version to table', () => {
    expect([35, 52, 61, 70, 75, 86, 89].map(archForBinaryVersion)).toEqual([
      SassArch.Kepler, SassArch.Pascal, SassArch.Pascal, SassArch.Volta, SassArch.Turing, SassArch.Ampere, SassArch.Ampere,
    ]);
    expect(archForBinaryVersion(20)).toBeUndefined();
    expect(archForBinaryVersion(90)).toBeUndefined();
  });
});

describe('PTX opcode names', () => {
  it('classifies as the PTX IR does', () => {
    expect(classifyPtxOpcode('ld.global.f32')).toMatchObject({ opClass: OpClass.Load, space: StateSpace.Global, longLatency: true });
    expect(classifyPtxOpcode('ld.shared.u32')).toMatchObject({ opClass: OpClass.Load, space: StateSpace.Shared, longLatency: false });
    expect(classifyPtxOpcode('ld.param.u64')).toMatchObject({ opClass: OpClass.Load, space: StateSpace.Param, longLatency: false });
    expect(classifyPtxOpcode('ld.u32')).toMatchObject({ space: StateSpace.Generic, longLatency: true });
    expect(classifyPtxOpcode('st.global.f32')).toMatchObject({ opClass: OpClass.Store, space: StateSpace.Global });
    expect(classifyPtxOpcode('atom.shared.add.u32')).toMatchObject({ opClass: OpClass.Atomic, longLatency: false });
    expect(classifyPtxOpcode('div.rn.f32')!.opClass).toBe(OpClass.Sfu);
    expect(classifyPtxOpcode('div.s32')!.opClass).toBe(OpClass.IntDiv);
    expect(classifyPtxOpcode('add.f64')!.opClass).toBe(OpClass.Dp);
    // the opcodes added in issue 10 item 4, in the IR's classes
    expect(['match.any.sync.b32', 'nanosleep.u32', 'bmsk.clamp.b32', 'trap'].map((o) => classifyPtxOpcode(o)!.opClass)).toEqual([OpClass.Other, OpClass.Other, OpClass.Alu, OpClass.Exit]);
    expect(classifyPtxOpcode('add.s32')!.opClass).toBe(OpClass.Alu);
    expect(classifyPtxOpcode('mul.lo.s32')!.opClass).toBe(OpClass.IntMul);
    expect(classifyPtxOpcode('mul.f32')!.opClass).toBe(OpClass.Alu);
    expect(classifyPtxOpcode('rsqrt.approx.f64')!.opClass).toBe(OpClass.Sfu);
    expect(classifyPtxOpcode('cvt.rn.f64.s32')!.opClass).toBe(OpClass.Dp);
    expect(classifyPtxOpcode('bar.sync')!.opClass).toBe(OpClass.Barrier);
    expect(classifyPtxOpcode('bar.warp.sync')!.opClass).toBe(OpClass.Other);
    expect(classifyPtxOpcode('bra.uni')!.opClass).toBe(OpClass.Branch);
    expect(classifyPtxOpcode('frobnicate.f32')).toBeUndefined();
  });
});

describe('trace.config timing', () => {
  it('reads the GTX 1080 gpgpusim.trace.config beside the shared traces', () => {
    const t = loadTraceConfig(join(DATA, 'accelsim-traces', 'gtx1080-config', 'gpgpusim.trace.config'));
    // values as written in the file
    expect(t[ExecUnit.Int]).toEqual({ latency: 2, initiation: 2 });
    expect(t[ExecUnit.Sp]).toEqual({ latency: 2, initiation: 1 });
    expect(t[ExecUnit.Dp]).toEqual({ latency: 64, initiation: 64 });
    expect(t[ExecUnit.Sfu]).toEqual({ latency: 21, initiation: 8 });
    expect(t[ExecUnit.Tensor]).toEqual({ latency: 32, initiation: 32 });
    expect(t[ExecUnit.Branch]).toEqual({ latency: 4, initiation: 4 });
    expect(t[ExecUnit.Tex]).toEqual({ latency: 200, initiation: 4 });
    expect(t[ExecUnit.Udp]).toEqual({ latency: 4, initiation: 1 });
  });

  it('reads the per-architecture trace.config files', () => {
    const kepler = loadTraceConfig(join(TRACE_CFGS, 'SM3_KEPLER_TITAN', 'trace.config'));
    expect(kepler[ExecUnit.Sfu]).toEqual({ latency: 200, initiation: 2 });
    expect(kepler[ExecUnit.Dp]).toEqual({ latency: 20, initiation: 2 });
    const qv100 = loadTraceConfig(join(TRACE_CFGS, 'SM7_QV100', 'trace.config'));
    expect(qv100[ExecUnit.Dp]).toEqual({ latency: 8, initiation: 4 });
    expect(qv100[ExecUnit.Tensor]).toEqual({ latency: 2, initiation: 2 });
    const titanv = loadTraceConfig(join(TRACE_CFGS, 'SM7_TITANV', 'trace.config'));
    expect(titanv[ExecUnit.Tensor]).toEqual({ latency: 8, initiation: 4 });
    const rtx2060 = loadTraceConfig(join(TRACE_CFGS, 'SM75_RTX2060', 'trace.config'));
    expect(rtx2060[ExecUnit.Tensor]).toEqual({ latency: 16, initiation: 16 });
  });

  it('the mapper applies the timing to each opcode', () => {
    const timing = loadTraceConfig(join(DATA, 'accelsim-traces', 'gtx1080-config', 'gpgpusim.trace.config'));
    const m = new SassOpcodeMapper({ timing });
    const ffma = m.lookup('FFMA', SassArch.Pascal, ...W);
    expect([ffma.latency, ffma.initiation]).toEqual([2, 1]);
    const mufu = m.lookup('MUFU.EX2', SassArch.Pascal, ...W);
    expect([mufu.latency, mufu.initiation]).toEqual([21, 8]);
    const a = m.lookup('LDG.E', SassArch.Pascal, ...W);
    const b = m.lookup('LDG.E.CG', SassArch.Pascal, ...W);
    expect(a).toBe(b);
    expect(a.id).toBe(SASS_OPCODE_NAMES.indexOf('LDG'));
    expect(a.name).toBe('LDG');
    // PTX names get ids past the table, the same one each time
    const p1 = m.lookup('ld.global.f32', SassArch.Pascal, ...W);
    expect(p1.id).toBe(SASS_OPCODE_NAMES.length);
    expect(m.lookup('ld.global.f32', SassArch.Pascal, ...W).id).toBe(p1.id);
    expect(m.lookup('add.f64', SassArch.Pascal, ...W).id).toBe(SASS_OPCODE_NAMES.length + 1);
  });

  it('a malformed latency pair is an InputError with its line', () => {
    expect(() => parseTraceConfig('# c\n-trace_opcode_latency_initiation_sp 4;1\n', 'x.config')).toThrow(InputError);
    try {
      parseTraceConfig('# c\n-trace_opcode_latency_initiation_sp 4;1\n', 'x.config');
    } catch (e) {
      expect((e as InputError).line).toBe(2);
      expect((e as InputError).field).toBe('-trace_opcode_latency_initiation_sp');
    }
  });
});

describe('unknown opcodes and generic addresses', () => {
  it('error policy throws at the given location; alu policy counts', () => {
    const strict = new SassOpcodeMapper();
    expect(() => strict.lookup('FOO.BAR', SassArch.Volta, ...W)).toThrow(/k\.traceg:9:3: FOO\.BAR: unknown SASS opcode for volta/);
    const lax = new SassOpcodeMapper({ unknownOpcode: 'alu' });
    const a = lax.lookup('FOO.BAR', SassArch.Volta, ...W);
    lax.lookup('FOO', SassArch.Volta, 'k.traceg', 20);
    lax.lookup('FOO.BAR', SassArch.Volta, 'k.traceg', 30);
    expect(a.opClass).toBe(OpClass.Alu);
    expect(a.known).toBe(false);
    expect(lax.unknown.get('volta:FOO')).toEqual({ name: 'FOO', arch: 'volta', first: where, count: 3 });
    expect(lax.unknownCount).toBe(3);
  });

  it('resolveGenericSpace uses the shared and local windows', () => {
    const shm = 0x7f2b5a000000;
    const loc = 0x7f2b58000000;
    expect(resolveGenericSpace(StateSpace.Generic, shm + 0x40, shm, loc)).toBe(StateSpace.Shared);
    expect(resolveGenericSpace(StateSpace.Generic, loc + 8, shm, loc)).toBe(StateSpace.Local);
    expect(resolveGenericSpace(StateSpace.Generic, 0x7f2b2d500000, shm, loc)).toBe(StateSpace.Global);
    expect(resolveGenericSpace(StateSpace.Shared, 0x10, shm, loc)).toBe(StateSpace.Shared);
  });
});
