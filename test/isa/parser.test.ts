import { describe, expect, it } from 'vitest';
import {
  AtomOp,
  BarOp,
  BoolOp,
  CmpOp,
  Linkage,
  MemScope,
  MulMode,
  OpClass,
  Opcode,
  OperandKind,
  PrmtMode,
  Rounding,
  ScalarType,
  ShflMode,
  SpecialReg,
  StateSpace,
  TestpOp,
  VarKind,
  VoteMode,
} from '../../src/isa/ir.ts';
import type { Instruction, PtxFunction } from '../../src/isa/ir.ts';
import { HEADER, kernel, parse, parseKernel, reg } from './helpers.ts';

describe('module header', () => {
  it('reads .version, .target (with options) and .address_size after comments', () => {
    const m = parse('// generated\n/* block\n comment */\n.version 8.7\n.target sm_80, debug\n.address_size 64\n');
    expect(m.version).toEqual({ major: 8, minor: 7 });
    expect(m.target).toEqual(['sm_80', 'debug']);
    expect(m.addressSize).toBe(64);
    expect(m.functions).toEqual([]);
    expect(m.file).toBe('test.ptx');
  });

  it('defaults .address_size to 32 as PTX does', () => {
    expect(parse('.version 7.0\n.target sm_70\n').addressSize).toBe(32);
  });
});

describe('registers', () => {
  it('numbers every register densely, expands %r<N> ranges and vector registers', () => {
    const fn = parseKernel(
      ['.reg .pred %p<3>;', '.reg .b32 %r<4>;', '.reg .f64 %fd<2>;', '.reg .v2 .f32 %v;', '.reg .b16 %h, %h2;', 'ret;'].join('\n'),
    );
    const names = fn.registers.map((r) => r.name);
    expect(names).toEqual(['%p0', '%p1', '%p2', '%r0', '%r1', '%r2', '%r3', '%fd0', '%fd1', '%v.x', '%v.y', '%h', '%h2']);
    fn.registers.forEach((r, i) => expect(r.index).toBe(i));
    expect(fn.registers.slice(0, 3).map((r) => [r.isPred, r.classIndex, r.bits])).toEqual([
      [true, 0, 1],
      [true, 1, 1],
      [true, 2, 1],
    ]);
    expect(fn.registers.slice(3).map((r) => r.classIndex)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(fn.registers[7]).toMatchObject({ type: ScalarType.F64, bits: 64, isPred: false });
    expect(fn.registers[9]).toMatchObject({ type: ScalarType.F32, bits: 32 });
    expect(fn.numPredRegs).toBe(3);
    expect(fn.numDataRegs).toBe(10);
    expect(fn.ccReg).toBe(-1);
  });

  it('gives registers of scoped { } blocks their own indices and lets them shadow', () => {
    const fn = parseKernel(
      [
        '.reg .b32 %r<2>;',
        '{',
        '  .reg .b32 %r0;',
        '  .reg .b32 t;',
        '  mov.u32 t, %laneid;',
        '  mov.u32 %r0, t;',
        '}',
        'mov.u32 %r0, 5;',
        'ret;',
      ].join('\n'),
    );
    // outer %r0, %r1 = 0, 1; inner %r0 = 2, t = 3
    expect(fn.registers.map((r) => [r.name, r.scopeDepth])).toEqual([
      ['%r0', 0],
      ['%r1', 0],
      ['%r0', 1],
      ['t', 1],
    ]);
    expect(fn.instructions[0]!.dst[0]!.reg).toBe(3);
    expect(fn.instructions[1]!.dst[0]!.reg).toBe(2);
    expect(fn.instructions[1]!.src[0]!.reg).toBe(3);
    expect(fn.instructions[2]!.dst[0]!.reg).toBe(0);
  });
});

describe('functions, parameters and directives', () => {
  it('lays kernel parameters out with their alignment and reads .ptr and performance directives', () => {
    const m = parse(
      HEADER +
        [
          '.visible .entry k(',
          '  .param .u32 k_a,',
          '  .param .u64 .ptr .global .align 16 k_b,',
          '  .param .b8 k_c[3],',
          '  .param .align 16 .b8 k_d[20]',
          ')',
          '.maxntid 256, 2',
          '.minnctapersm 2',
          '.maxnreg 40',
          '{',
          'ret;',
          '}',
        ].join('\n'),
    );
    const fn = m.functions[0]!;
    expect(fn.isEntry).toBe(true);
    expect(fn.linkage).toBe(Linkage.Visible);
    // u32 at 0 (4 bytes); u64 aligned to 8 -> 8..16; b8[3] -> 16..19; align 16 -> 32..52
    expect(fn.params.map((p) => [p.name, p.offset, p.sizeBytes, p.align])).toEqual([
      ['k_a', 0, 4, 4],
      ['k_b', 8, 8, 8],
      ['k_c', 16, 3, 1],
      ['k_d', 32, 20, 16],
    ]);
    expect(fn.paramBytes).toBe(52);
    expect(fn.params[1]!.ptr).toEqual({ space: StateSpace.Global, align: 16 });
    expect(fn.params[0]!.ptr).toBeUndefined();
    expect(fn.params.every((p) => p.kind === VarKind.KernelParam && p.space === StateSpace.Param)).toBe(true);
    expect(fn.perf).toEqual({ maxntid: [256, 2, 1], reqntid: undefined, minnctapersm: 2, maxnreg: 40, maxnctapersm: undefined });
  });

  it('merges a .func prototype with its later definition and resolves calls through .param call sequences', () => {
    const text =
      HEADER +
      [
        '.func (.param .b32 f_ret) f(.param .b32 f_a, .param .b64 f_b);',
        '.visible .entry k(.param .u64 k_p0)',
        '{',
        '  .reg .b32 %r<2>;',
        '  .reg .b64 %rd<2>;',
        '  { // callseq 0, 0',
        '  .param .b32 param0;',
        '  st.param.b32 [param0+0], %r0;',
        '  .param .b64 param1;',
        '  st.param.b64 [param1+0], %rd0;',
        '  .param .b32 retval0;',
        '  call.uni (retval0),',
        '  f,',
        '  (',
        '  param0,',
        '  param1',
        '  );',
        '  ld.param.b32 %r1, [retval0+0];',
        '  } // callseq 0',
        '  ret;',
        '}',
        '.weak .func (.param .b32 f_ret) f(.param .b32 f_a, .param .b64 f_b)',
        '{',
        '  .reg .b32 %r<3>;',
        '  ld.param.b32 %r0, [f_a];',
        '  add.s32 %r1, %r0, 1;',
        '  st.param.b32 [f_ret+0], %r1;',
        '  ret;',
        '}',
      ].join('\n');
    const m = parse(text);
    expect(m.functions.map((f) => f.name)).toEqual(['f', 'k']);
    const f = m.functions[0]!;
    const k = m.functions[1]!;
    expect(f.hasBody).toBe(true);
    expect(f.isEntry).toBe(false);
    expect(f.linkage).toBe(Linkage.Weak);
    // frame of f: f_a 0..4, f_b aligned to 8 -> 8..16, f_ret 16..20
    expect(f.params.map((p) => [p.name, p.kind, p.offset])).toEqual([
      ['f_a', VarKind.FuncParam, 0],
      ['f_b', VarKind.FuncParam, 8],
    ]);
    expect(f.returns.map((p) => [p.name, p.kind, p.offset])).toEqual([['f_ret', VarKind.FuncReturn, 16]]);
    expect(f.frameBytes).toBe(20);
    const call = k.instructions[2]!;
    expect(call.op).toBe(Opcode.Call);
    expect(call.uni).toBe(true);
    expect(call.callee).toBe(0);
    expect(call.callArgs.map((o) => [o.kind, o.symbol!.name])).toEqual([
      [OperandKind.Symbol, 'param0'],
      [OperandKind.Symbol, 'param1'],
    ]);
    expect(call.callRets.map((o) => o.symbol!.name)).toEqual(['retval0']);
    expect(call.opClass).toBe(OpClass.Call);
    // call-sequence .param variables live in k's frame: param0 0..4, param1 8..16, retval0 16..20
    expect(k.localVars.map((v) => [v.name, v.kind, v.space, v.offset])).toEqual([
      ['param0', VarKind.Function, StateSpace.Param, 0],
      ['param1', VarKind.Function, StateSpace.Param, 8],
      ['retval0', VarKind.Function, StateSpace.Param, 16],
    ]);
    expect(k.frameBytes).toBe(20);
    expect(k.instructions[0]!.src[0]!.symbol!.name).toBe('param0');
    expect(m.variables.map((v) => v.id)).toEqual(m.variables.map((_, i) => i));
  });

  it('keeps .extern/.weak prototypes without bodies and reads .reqntid', () => {
    const m = parse(
      HEADER +
        [
          '.extern .func (.param .b32 r) ext(.param .b32 a);',
          '.visible .entry k()',
          '.reqntid 64, 2, 2',
          '{',
          '  ret;',
          '}',
        ].join('\n'),
    );
    const ext = m.functions[0]!;
    expect(ext).toMatchObject({ name: 'ext', hasBody: false, linkage: Linkage.Extern, isEntry: false, instructions: [] });
    expect(ext.returns.map((r) => r.name)).toEqual(['r']);
    expect(m.functions[1]!.perf.reqntid).toEqual([64, 2, 2]);
  });

  it('accepts a call with register arguments and no return value', () => {
    const m = parse(
      HEADER +
        [
          '.func g(.param .b32 g_a)',
          '{',
          '  ret;',
          '}',
          '.visible .entry k()',
          '{',
          '  .reg .b32 %r<1>;',
          '  call g, (%r0);',
          '  call g, (7);',
          '  exit;',
          '}',
        ].join('\n'),
    );
    const k = m.functions[1]!;
    expect(k.instructions[0]!.callArgs[0]!).toMatchObject({ kind: OperandKind.Reg, reg: 0 });
    expect(k.instructions[0]!.srcRegs).toEqual(Int32Array.from([0]));
    expect(k.instructions[1]!.callArgs[0]!).toMatchObject({ kind: OperandKind.Imm, lo: 7 });
    expect(k.instructions[0]!.callRets).toEqual([]);
  });
});

describe('variables and initialisers', () => {
  const prelude = [
    '.global .align 4 .u32 gsc = 7;',
    '.global .align 4 .b32 garr[4] = {1, -2, 0x10, 017};',
    '.const .align 4 .f32 cf[3] = {0f3F800000, 1.5, -2};',
    '.const .align 8 .f64 cd = 0d4008000000000000;',
    '.global .align 8 .u64 gp = generic(garr);',
    '.global .align 8 .u64 gp2[2] = {garr+4, 0};',
    '.global .b8 bytes[] = {1, 2, 3};',
    '.global .u16 grid[2][2] = {{1, 2}, {3, 4}};',
    '.shared .align 4 .b8 tile[2][32];',
    '.shared .align 4 .b8 unused[4];',
    '.extern .shared .align 16 .b8 dyn[];',
  ].join('\n');
  const body = ['.reg .b32 %r<3>;', '.shared .align 8 .b8 loc[12];', 'mov.u32 %r0, tile;', 'mov.u32 %r1, dyn;', 'mov.u32 %r2, loc;', 'ret;'].join('\n');

  it('encodes initialisers little-endian and records address relocations', () => {
    const m = parse(kernel(body, '.param .u64 k_p0', prelude));
    const g = (name: string) => m.globals.find((v) => v.name === name)!;
    expect([...g('gsc').init!]).toEqual([7, 0, 0, 0]);
    // 1, -2 (two's complement), 0x10, octal 017 = 15
    expect([...g('garr').init!]).toEqual([1, 0, 0, 0, 0xfe, 0xff, 0xff, 0xff, 0x10, 0, 0, 0, 15, 0, 0, 0]);
    // 1.0f = 0x3F800000, 1.5f = 0x3FC00000, -2.0f = 0xC0000000
    expect([...g('cf').init!]).toEqual([0, 0, 0x80, 0x3f, 0, 0, 0xc0, 0x3f, 0, 0, 0, 0xc0]);
    // 3.0 = 0x4008000000000000
    expect([...g('cd').init!]).toEqual([0, 0, 0, 0, 0, 0, 0x08, 0x40]);
    expect(g('gp').init).toEqual(new Uint8Array(8));
    expect(g('gp').relocations).toEqual([{ byteOffset: 0, size: 8, symbol: 'garr', addend: 0, generic: true }]);
    expect(g('gp2').sizeBytes).toBe(16);
    expect(g('gp2').relocations).toEqual([{ byteOffset: 0, size: 8, symbol: 'garr', addend: 4, generic: false }]);
    expect(g('bytes').sizeBytes).toBe(3);
    expect([...g('bytes').init!]).toEqual([1, 2, 3]);
    expect([...g('grid').init!]).toEqual([1, 0, 2, 0, 3, 0, 4, 0]);
    expect(g('tile')).toMatchObject({ sizeBytes: 64, dims: [2, 32], align: 4, space: StateSpace.Shared, init: undefined });
    expect(g('dyn')).toMatchObject({ isDynamicShared: true, sizeBytes: 0, linkage: Linkage.Extern });
    expect(g('cf').space).toBe(StateSpace.Const);
    expect(m.globals.every((v) => v.kind === VarKind.Module && v.functionIndex === -1)).toBe(true);
  });

  it('lays out the static shared memory a kernel uses and puts dynamic shared memory after it', () => {
    const m = parse(kernel(body, '.param .u64 k_p0', prelude));
    const k = m.functions[0]!;
    const layout = k.sharedLayout!;
    const id = (name: string) => m.variables.find((v) => v.name === name)!.id;
    // tile (64 B, align 4) at 0; loc (12 B, align 8) at 64; static = 76; dynamic at 76 rounded up to 16 = 80
    expect(layout.offsets[id('tile')]).toBe(0);
    expect(layout.offsets[id('loc')]).toBe(64);
    expect(layout.staticBytes).toBe(76);
    expect(layout.dynamicOffset).toBe(80);
    expect(layout.offsets[id('dyn')]).toBe(80);
    expect(layout.offsets[id('unused')]).toBe(-1);
    expect(layout.offsets[id('gsc')]).toBe(-1);
    expect(k.instructions[0]!.src[0]).toMatchObject({ kind: OperandKind.Symbol, offset: 0 });
    expect(k.instructions[0]!.src[0]!.symbol!.name).toBe('tile');
  });
});

describe('labels, guards and branches', () => {
  it('resolves labels to instruction indices and decodes @%p / @!%p guards', () => {
    const fn = parseKernel(
      [
        '.reg .pred %p<2>;',
        '.reg .b32 %r<2>;',
        'setp.eq.s32 %p0, %r0, 0;',
        '@%p0 bra $L_end;',
        '@!%p0 bra.uni $L_mid;',
        '$L_mid:',
        'add.s32 %r1, %r0, 1;',
        '$L_end:',
        'ret;',
      ].join('\n'),
    );
    expect([...fn.labels.entries()]).toEqual([
      ['$L_mid', 3],
      ['$L_end', 4],
    ]);
    const b1 = fn.instructions[1]!;
    expect(b1).toMatchObject({ op: Opcode.Bra, guard: 0, guardNegate: false, uni: false });
    expect(b1.src[0]).toMatchObject({ kind: OperandKind.Label, label: '$L_end', target: 4 });
    const b2 = fn.instructions[2]!;
    expect(b2).toMatchObject({ guard: 0, guardNegate: true, uni: true });
    expect(b2.src[0]!.target).toBe(3);
    expect(b2.srcRegs).toEqual(Int32Array.from([0]));
    expect(fn.instructions[0]!.guard).toBe(-1);
  });
});

describe('operands', () => {
  const decls = [
    '.reg .pred %p<4>;',
    '.reg .b16 %rs<4>;',
    '.reg .b32 %r<8>;',
    '.reg .b64 %rd<8>;',
    '.reg .f32 %f<8>;',
    '.reg .f64 %fd<8>;',
  ].join('\n');
  const prelude = '.global .align 4 .b32 garr[4];\n.shared .align 4 .f32 svar[8];\n.const .align 4 .f32 cvar[4];';
  /** Decodes one instruction in a kernel with the standard declarations. */
  const one = (line: string): { ins: Instruction; fn: PtxFunction } => {
    const fn = parseKernel(`${decls}\n${line}\nret;`, '.param .u64 k_p0', prelude);
    return { ins: fn.instructions[0]!, fn };
  };

  it.each([
    ['mov.u32 %r0, 0x10;', 16, 0, 16],
    ['mov.u32 %r0, -1;', 0xffffffff, 0xffffffff, -1],
    ['mov.b32 %r0, 017;', 15, 0, 15],
    ['mov.b32 %r0, 0b101;', 5, 0, 5],
    ['mov.b32 %r0, 42U;', 42, 0, 42],
    ['mov.f32 %f0, 0f3F800000;', 0x3f800000, 0, 1],
    ['mov.f32 %f0, 1.5;', 0x3fc00000, 0, 1.5],
    ['mov.f32 %f0, -0f3F800000;', 0xbf800000, 0, -1],
    ['mov.f32 %f0, 2;', 0x40000000, 0, 2],
    ['mov.f64 %fd0, 0d4008000000000000;', 0, 0x40080000, 3],
    ['mov.f64 %fd0, 0f3F800000;', 0, 0x3ff00000, 1],
    ['mov.f64 %fd0, 2.5e1;', 0, 0x40390000, 25],
    ['mov.u64 %rd0, 18446744073709551615;', 0xffffffff, 0xffffffff, 18446744073709551615],
    ['mov.b16 %rs0, 0xFFFF;', 0xffff, 0, 0xffff],
    ['mov.pred %p0, 1;', 1, 0, 1],
    ['mov.b32 %r0, 0f3F800000;', 0x3f800000, 0, 0x3f800000],
  ])('encodes the immediate of %s', (line, lo, hi, value) => {
    const src = one(line).ins.src[0]!;
    expect(src.kind).toBe(OperandKind.Imm);
    expect(src.lo).toBe(lo);
    expect(src.hi).toBe(hi);
    expect(src.value).toBe(value);
    expect(src.bits).toBe(BigInt(hi) * 2n ** 32n + BigInt(lo));
  });

  it('encodes a negative immediate in a u32 position as its 32-bit pattern (mul.wide.u32 by -1431655765)', () => {
    const src = one('mul.wide.u32 %rd1, %r0, -1431655765;').ins.src[1]!;
    // 2^32 - 0x55555555 = 0xAAAAAAAB
    expect(src.lo).toBe(0xaaaaaaab);
  });

  it.each([
    ['ld.global.u32 %r0, [%rd1];', '%rd1', undefined, 0],
    ['ld.global.u32 %r0, [%rd1+16];', '%rd1', undefined, 16],
    ['ld.global.u32 %r0, [%rd1+-4];', '%rd1', undefined, -4],
    ['ld.global.u32 %r0, [%rd1-8];', '%rd1', undefined, -8],
    ['ld.param.u64 %rd0, [k_p0];', undefined, 'k_p0', 0],
    ['ld.global.u32 %r0, [garr+4];', undefined, 'garr', 4],
    ['ld.u32 %r0, [garr];', undefined, 'garr', 0],
    ['ld.shared.f32 %f0, [svar+8];', undefined, 'svar', 8],
    ['ld.const.f32 %f0, [cvar];', undefined, 'cvar', 0],
    ['ld.global.u32 %r0, [0x100];', undefined, undefined, 256],
    ['st.shared.f32 [%r1+4], %f0;', '%r1', undefined, 4],
  ])('decodes the address of %s', (line, base, sym, offset) => {
    const { ins, fn } = one(line);
    const addr = ins.op === Opcode.St ? ins.src[0]! : ins.src[0]!;
    expect(addr.kind).toBe(OperandKind.Addr);
    expect(addr.reg).toBe(base === undefined ? -1 : reg(fn, base));
    expect(addr.symbol?.name).toBe(sym);
    expect(addr.offset).toBe(offset);
  });

  it('decodes vector loads and stores, sinks, and mov pack/unpack', () => {
    let r = one('ld.global.v4.f32 {%f0, %f1, %f2, %f3}, [%rd0+16];');
    expect(r.ins.vec).toBe(4);
    expect(r.ins.accessBytes).toBe(16);
    expect(r.ins.dst[0]!.kind).toBe(OperandKind.Vec);
    expect(r.ins.dst[0]!.elems.map((e) => e.reg)).toEqual(['%f0', '%f1', '%f2', '%f3'].map((n) => reg(r.fn, n)));
    expect([...r.ins.dstRegs]).toEqual(['%f0', '%f1', '%f2', '%f3'].map((n) => reg(r.fn, n)));
    r = one('ld.global.v2.f32 {%f0, _}, [%rd0];');
    expect(r.ins.dst[0]!.elems.map((e) => e.kind)).toEqual([OperandKind.Reg, OperandKind.Sink]);
    expect([...r.ins.dstRegs]).toEqual([reg(r.fn, '%f0')]);
    r = one('st.global.v2.f32 [%rd0], {%f0, %f1};');
    expect([...r.ins.srcRegs]).toEqual(['%rd0', '%f0', '%f1'].map((n) => reg(r.fn, n)));
    expect(r.ins.dst).toEqual([]);
    r = one('mov.b64 {%r0, %r1}, %rd0;');
    expect(r.ins.dst[0]!.elems.map((e) => e.reg)).toEqual([reg(r.fn, '%r0'), reg(r.fn, '%r1')]);
    r = one('mov.b64 %rd1, {%r0, %r1};');
    expect(r.ins.src[0]!.kind).toBe(OperandKind.Vec);
    r = one('mov.b32 {%rs0, %rs1}, %r0;');
    expect(r.ins.dst[0]!.elems).toHaveLength(2);
    r = one('st.global.v4.u32 [%rd0], {%r0, 0, %r1, 7};');
    expect(r.ins.src[1]!.elems.map((e) => e.kind)).toEqual([OperandKind.Reg, OperandKind.Imm, OperandKind.Reg, OperandKind.Imm]);
  });

  it('reads special registers with components', () => {
    let r = one('mov.u32 %r0, %tid.y;');
    expect(r.ins.src[0]).toMatchObject({ kind: OperandKind.Special, sreg: SpecialReg.Tid, component: 1 });
    r = one('mov.u64 %rd0, %clock64;');
    expect(r.ins.src[0]).toMatchObject({ sreg: SpecialReg.Clock64, component: -1 });
    r = one('mov.u32 %r0, %lanemask_lt;');
    expect(r.ins.src[0]!.sreg).toBe(SpecialReg.LanemaskLt);
    r = one('mov.u32 %r0, WARP_SZ;');
    expect(r.ins.src[0]!.sreg).toBe(SpecialReg.WarpSize);
    r = one('cvt.u64.u32 %rd0, %ctaid.z;');
    expect(r.ins.src[0]).toMatchObject({ sreg: SpecialReg.Ctaid, component: 2 });
    for (const [name, code] of [
      ['%ntid.x', SpecialReg.Ntid],
      ['%nctaid.x', SpecialReg.Nctaid],
      ['%laneid', SpecialReg.Laneid],
      ['%warpid', SpecialReg.Warpid],
      ['%nwarpid', SpecialReg.Nwarpid],
      ['%smid', SpecialReg.Smid],
      ['%nsmid', SpecialReg.Nsmid],
      ['%clock', SpecialReg.Clock],
      ['%lanemask_eq', SpecialReg.LanemaskEq],
      ['%lanemask_le', SpecialReg.LanemaskLe],
      ['%lanemask_ge', SpecialReg.LanemaskGe],
      ['%lanemask_gt', SpecialReg.LanemaskGt],
    ] as const) {
      expect(one(`mov.u32 %r0, ${name};`).ins.src[0]!.sreg).toBe(code);
    }
    expect(one('mov.u64 %rd0, %gridid;').ins.src[0]!.sreg).toBe(SpecialReg.Gridid);
  });

  it('lists source and destination registers (guard, address base, deduplicated, p|q)', () => {
    let r = one('@%p1 st.global.v2.f32 [%rd2+8], {%f3, %f4};');
    expect([...r.ins.srcRegs]).toEqual(['%p1', '%rd2', '%f3', '%f4'].map((n) => reg(r.fn, n)));
    expect([...r.ins.dstRegs]).toEqual([]);
    r = one('setp.eq.and.s32 %p0|%p1, %r0, %r0, %p2;');
    expect([...r.ins.srcRegs]).toEqual(['%r0', '%p2'].map((n) => reg(r.fn, n)));
    expect([...r.ins.dstRegs]).toEqual(['%p0', '%p1'].map((n) => reg(r.fn, n)));
    r = one('atom.global.cas.b32 %r0, [%rd1], %r2, %r3;');
    expect([...r.ins.srcRegs]).toEqual(['%rd1', '%r2', '%r3'].map((n) => reg(r.fn, n)));
    expect([...r.ins.dstRegs]).toEqual([reg(r.fn, '%r0')]);
  });
});

describe('instruction decoding', () => {
  const decls = [
    '.reg .pred %p<4>;',
    '.reg .b16 %rs<4>;',
    '.reg .b32 %r<8>;',
    '.reg .b64 %rd<8>;',
    '.reg .f32 %f<8>;',
    '.reg .f64 %fd<8>;',
  ].join('\n');
  const prelude = '.shared .align 4 .f32 svar[8];';
  const cases: [string, Partial<Record<keyof Instruction, unknown>>][] = [
    ['add.s32 %r0, %r1, %r2;', { op: Opcode.Add, type: ScalarType.S32, opClass: OpClass.Alu }],
    ['add.sat.s32 %r0, %r1, 5;', { op: Opcode.Add, sat: true }],
    ['sub.rn.ftz.sat.f32 %f0, %f1, %f2;', { op: Opcode.Sub, rounding: Rounding.Rn, ftz: true, sat: true, type: ScalarType.F32, opClass: OpClass.Alu }],
    ['add.f64 %fd0, %fd1, %fd2;', { op: Opcode.Add, opClass: OpClass.Dp }],
    ['mul.hi.u64 %rd0, %rd1, %rd2;', { op: Opcode.Mul, mulMode: MulMode.Hi, type: ScalarType.U64, opClass: OpClass.IntMul }],
    ['mul.wide.s32 %rd0, %r1, %r2;', { op: Opcode.Mul, mulMode: MulMode.Wide, type: ScalarType.S32 }],
    ['mul.rn.f32 %f0, %f1, %f2;', { op: Opcode.Mul, rounding: Rounding.Rn, opClass: OpClass.Alu }],
    ['mad.lo.s32 %r0, %r1, %r2, %r3;', { op: Opcode.Mad, mulMode: MulMode.Lo, opClass: OpClass.IntMul }],
    ['mad.wide.u32 %rd0, %r1, %r2, %rd3;', { op: Opcode.Mad, mulMode: MulMode.Wide, type: ScalarType.U32 }],
    ['mad.hi.sat.s32 %r0, %r1, %r2, %r3;', { op: Opcode.Mad, mulMode: MulMode.Hi, sat: true }],
    ['mad.rn.f64 %fd0, %fd1, %fd2, %fd3;', { op: Opcode.Mad, opClass: OpClass.Dp }],
    ['mul24.lo.s32 %r0, %r1, %r2;', { op: Opcode.Mul24, mulMode: MulMode.Lo, opClass: OpClass.IntMul }],
    ['mad24.hi.u32 %r0, %r1, %r2, %r3;', { op: Opcode.Mad24, mulMode: MulMode.Hi }],
    ['div.s64 %rd0, %rd1, %rd2;', { op: Opcode.Div, type: ScalarType.S64, opClass: OpClass.IntDiv }],
    ['div.approx.ftz.f32 %f0, %f1, %f2;', { op: Opcode.Div, approx: true, ftz: true, opClass: OpClass.Sfu }],
    ['div.full.f32 %f0, %f1, %f2;', { op: Opcode.Div, full: true, approx: false }],
    ['div.rn.f64 %fd0, %fd1, %fd2;', { op: Opcode.Div, rounding: Rounding.Rn, opClass: OpClass.Dp }],
    ['rem.u32 %r0, %r1, 7;', { op: Opcode.Rem, opClass: OpClass.IntDiv }],
    ['abs.s32 %r0, %r1;', { op: Opcode.Abs, type: ScalarType.S32 }],
    ['abs.ftz.f32 %f0, %f1;', { op: Opcode.Abs, ftz: true, type: ScalarType.F32 }],
    ['neg.f64 %fd0, %fd1;', { op: Opcode.Neg, opClass: OpClass.Dp }],
    ['min.u16 %rs0, %rs1, %rs2;', { op: Opcode.Min, type: ScalarType.U16 }],
    ['max.ftz.f32 %f0, %f1, %f2;', { op: Opcode.Max, ftz: true }],
    ['and.pred %p0, %p1, %p2;', { op: Opcode.And, type: ScalarType.Pred }],
    ['or.b64 %rd0, %rd1, 255;', { op: Opcode.Or, type: ScalarType.B64 }],
    ['xor.b32 %r0, %r1, %r2;', { op: Opcode.Xor }],
    ['not.b16 %rs0, %rs1;', { op: Opcode.Not, type: ScalarType.B16 }],
    ['cnot.b32 %r0, %r1;', { op: Opcode.Cnot }],
    ['shl.b64 %rd0, %rd1, 3;', { op: Opcode.Shl, type: ScalarType.B64 }],
    ['shr.s32 %r0, %r1, %r2;', { op: Opcode.Shr, type: ScalarType.S32 }],
    ['bfe.u32 %r0, %r1, 8, 4;', { op: Opcode.Bfe, type: ScalarType.U32 }],
    ['bfi.b32 %r0, %r1, %r2, 8, 4;', { op: Opcode.Bfi }],
    ['clz.b64 %r0, %rd1;', { op: Opcode.Clz, type: ScalarType.B64 }],
    ['popc.b32 %r0, %r1;', { op: Opcode.Popc }],
    ['brev.b64 %rd0, %rd1;', { op: Opcode.Brev }],
    ['bfind.shiftamt.u32 %r0, %r1;', { op: Opcode.Bfind, shiftAmt: true }],
    ['prmt.b32.f4e %r0, %r1, %r2, %r3;', { op: Opcode.Prmt, prmtMode: PrmtMode.F4e }],
    ['prmt.b32 %r0, %r1, %r2, 0x5410;', { op: Opcode.Prmt, prmtMode: PrmtMode.Default }],
    ['shf.r.clamp.b32 %r0, %r1, %r2, %r3;', { op: Opcode.Shf, shfRight: true, clamp: true }],
    ['shf.l.wrap.b32 %r0, %r1, %r2, 5;', { op: Opcode.Shf, shfRight: false, clamp: false }],
    ['setp.ge.and.s32 %p0|%p1, %r0, %r1, !%p2;', { op: Opcode.Setp, cmp: CmpOp.Ge, boolOp: BoolOp.And, type: ScalarType.S32 }],
    ['setp.lo.u32 %p0, %r0, 3;', { op: Opcode.Setp, cmp: CmpOp.Lt }],
    ['setp.hs.b64 %p0, %rd0, %rd1;', { op: Opcode.Setp, cmp: CmpOp.Ge, type: ScalarType.B64 }],
    ['setp.nan.f32 %p0, %f0, %f1;', { op: Opcode.Setp, cmp: CmpOp.Nan }],
    ['setp.geu.ftz.f32 %p0, %f0, 0f00000000;', { op: Opcode.Setp, cmp: CmpOp.Geu, ftz: true }],
    ['setp.neu.f64 %p0, %fd0, %fd1;', { cmp: CmpOp.Neu, type: ScalarType.F64, opClass: OpClass.Alu }],
    ['setp.num.xor.f64 %p0, %fd0, %fd1, %p1;', { cmp: CmpOp.Num, boolOp: BoolOp.Xor }],
    ['set.lt.u32.f32 %r0, %f0, %f1;', { op: Opcode.Set, cmp: CmpOp.Lt, type: ScalarType.U32, type2: ScalarType.F32 }],
    ['selp.f32 %f0, %f1, 0f00000000, %p0;', { op: Opcode.Selp, type: ScalarType.F32 }],
    ['slct.f32.s32 %f0, %f1, %f2, %r0;', { op: Opcode.Slct, type: ScalarType.F32, type2: ScalarType.S32 }],
    ['fma.rn.f32 %f0, %f1, %f2, %f3;', { op: Opcode.Fma, rounding: Rounding.Rn, opClass: OpClass.Alu }],
    ['fma.rz.f64 %fd0, %fd1, %fd2, %fd3;', { op: Opcode.Fma, rounding: Rounding.Rz, opClass: OpClass.Dp }],
    ['rcp.rn.f32 %f0, %f1;', { op: Opcode.Rcp, rounding: Rounding.Rn, opClass: OpClass.Sfu }],
    ['rcp.approx.ftz.f64 %fd0, %fd1;', { op: Opcode.Rcp, approx: true, ftz: true, opClass: OpClass.Sfu }],
    ['rcp.rn.f64 %fd0, %fd1;', { op: Opcode.Rcp, opClass: OpClass.Dp }],
    ['sqrt.approx.f32 %f0, %f1;', { op: Opcode.Sqrt, approx: true, opClass: OpClass.Sfu }],
    ['sqrt.rn.f64 %fd0, %fd1;', { op: Opcode.Sqrt, opClass: OpClass.Dp }],
    ['rsqrt.approx.f64 %fd0, %fd1;', { op: Opcode.Rsqrt, approx: true, opClass: OpClass.Sfu }],
    ['ex2.approx.ftz.f32 %f0, %f1;', { op: Opcode.Ex2, opClass: OpClass.Sfu }],
    ['lg2.approx.f32 %f0, %f1;', { op: Opcode.Lg2 }],
    ['sin.approx.f32 %f0, %f1;', { op: Opcode.Sin }],
    ['cos.approx.ftz.f32 %f0, %f1;', { op: Opcode.Cos, ftz: true }],
    ['copysign.f32 %f0, %f1, %f2;', { op: Opcode.Copysign }],
    ['testp.notanumber.f64 %p0, %fd0;', { op: Opcode.Testp, testOp: TestpOp.NotANumber, type: ScalarType.F64 }],
    ['testp.finite.f32 %p0, %f0;', { testOp: TestpOp.Finite }],
    ['cvt.rzi.s32.f32 %r0, %f0;', { op: Opcode.Cvt, rounding: Rounding.Rzi, type: ScalarType.S32, type2: ScalarType.F32, opClass: OpClass.Alu }],
    ['cvt.rn.f32.s64 %f0, %rd0;', { rounding: Rounding.Rn, type: ScalarType.F32, type2: ScalarType.S64 }],
    ['cvt.rn.ftz.sat.f32.f64 %f0, %fd0;', { ftz: true, sat: true, opClass: OpClass.Dp }],
    ['cvt.f64.f32 %fd0, %f0;', { rounding: Rounding.None, type: ScalarType.F64, type2: ScalarType.F32 }],
    ['cvt.u64.u32 %rd0, %r0;', { type: ScalarType.U64, type2: ScalarType.U32 }],
    ['cvt.s32.s8 %r0, %r1;', { type: ScalarType.S32, type2: ScalarType.S8 }],
    ['cvt.u32.u16 %r0, %rs0;', { type2: ScalarType.U16 }],
    ['cvt.sat.u8.s32 %r0, %r1;', { sat: true, type: ScalarType.U8 }],
    ['cvt.rn.f16.f32 %rs0, %f0;', { type: ScalarType.F16, type2: ScalarType.F32 }],
    ['cvt.f32.f16 %f0, %rs0;', { type: ScalarType.F32, type2: ScalarType.F16 }],
    ['cvt.rni.f32.f32 %f0, %f1;', { rounding: Rounding.Rni }],
    ['cvta.to.global.u64 %rd0, %rd1;', { op: Opcode.Cvta, cvtaTo: true, space: StateSpace.Global }],
    ['cvta.shared.u64 %rd0, svar;', { op: Opcode.Cvta, cvtaTo: false, space: StateSpace.Shared }],
    ['ld.global.nc.L1::no_allocate.f32 %f0, [%rd0];', { op: Opcode.Ld, nc: true, space: StateSpace.Global, longLatency: true, accessBytes: 4, opClass: OpClass.Load }],
    ['ld.volatile.shared.u32 %r0, [%r1];', { volatile: true, space: StateSpace.Shared, longLatency: false }],
    ['ld.relaxed.gpu.global.u32 %r0, [%rd0];', { scope: MemScope.Gpu }],
    ['ld.global.ca.v2.u64 {%rd0, %rd1}, [%rd2];', { vec: 2, accessBytes: 16 }],
    ['ldu.global.f32 %f0, [%rd0];', { op: Opcode.Ldu, longLatency: true }],
    ['ld.local.u8 %r0, [%rd0];', { space: StateSpace.Local, type: ScalarType.U8, longLatency: true, accessBytes: 1 }],
    ['ld.s32 %rd0, [%rd1];', { space: StateSpace.Generic, longLatency: true }],
    ['ld.param.u64 %rd0, [k_p0];', { space: StateSpace.Param, longLatency: false }],
    ['st.global.cs.u16 [%rd0], %rs0;', { op: Opcode.St, type: ScalarType.U16, opClass: OpClass.Store, accessBytes: 2, longLatency: false }],
    ['st.release.sys.global.b32 [%rd0], %r0;', { scope: MemScope.Sys }],
    ['atom.global.cas.b32 %r0, [%rd0], %r1, %r2;', { op: Opcode.Atom, atomOp: AtomOp.Cas, opClass: OpClass.Atomic, longLatency: true }],
    ['atom.shared.add.u32 %r0, [%r1], 1;', { atomOp: AtomOp.Add, space: StateSpace.Shared, longLatency: false }],
    ['atom.add.f32 %f0, [%rd0], %f1;', { space: StateSpace.Generic, type: ScalarType.F32 }],
    ['atom.acq_rel.gpu.global.exch.b64 %rd0, [%rd1], %rd2;', { atomOp: AtomOp.Exch, scope: MemScope.Gpu, accessBytes: 8 }],
    ['atom.global.inc.u32 %r0, [%rd0], 9;', { atomOp: AtomOp.Inc }],
    ['atom.global.dec.u32 %r0, [%rd0], 9;', { atomOp: AtomOp.Dec }],
    ['atom.global.min.s64 %rd0, [%rd1], %rd2;', { atomOp: AtomOp.Min }],
    ['atom.global.or.b32 %r0, [%rd0], 1;', { atomOp: AtomOp.Or }],
    ['red.global.add.f64 [%rd0], %fd0;', { op: Opcode.Red, atomOp: AtomOp.Add, opClass: OpClass.Atomic }],
    ['red.shared.max.s32 [%r0], %r1;', { op: Opcode.Red, atomOp: AtomOp.Max, space: StateSpace.Shared }],
    ['bar.sync 0;', { op: Opcode.Bar, barOp: BarOp.Sync, opClass: OpClass.Barrier }],
    ['barrier.sync.aligned 1, 64;', { op: Opcode.Bar, barOp: BarOp.Sync }],
    ['barrier.cta.sync 0;', { op: Opcode.Bar, barOp: BarOp.Sync }],
    ['bar.arrive 2, 64;', { op: Opcode.Bar, barOp: BarOp.Arrive }],
    ['bar.warp.sync -1;', { op: Opcode.BarWarpSync, opClass: OpClass.Other }],
    ['membar.gl;', { op: Opcode.Membar, scope: MemScope.Gpu, opClass: OpClass.Membar }],
    ['membar.cta;', { op: Opcode.Membar, scope: MemScope.Cta }],
    ['fence.sc.sys;', { op: Opcode.Membar, scope: MemScope.Sys }],
    ['fence.acq_rel.gpu;', { op: Opcode.Membar, scope: MemScope.Gpu }],
    ['shfl.sync.bfly.b32 %r0|%p0, %r1, 4, 31, -1;', { op: Opcode.Shfl, shflMode: ShflMode.Bfly, opClass: OpClass.Other }],
    ['shfl.sync.idx.b32 %r0, %r1, %r2, 31, %r3;', { op: Opcode.Shfl, shflMode: ShflMode.Idx }],
    ['shfl.sync.up.b32 %r0, %r1, 1, 0, -1;', { shflMode: ShflMode.Up }],
    ['vote.sync.any.pred %p0, !%p1, -1;', { op: Opcode.Vote, voteMode: VoteMode.Any }],
    ['vote.sync.ballot.b32 %r0, %p1, %r2;', { op: Opcode.Vote, voteMode: VoteMode.Ballot, type: ScalarType.B32 }],
    ['vote.sync.uni.pred %p0, %p1, -1;', { voteMode: VoteMode.Uni }],
    ['activemask.b32 %r0;', { op: Opcode.Activemask, opClass: OpClass.Other }],
    ['exit;', { op: Opcode.Exit, opClass: OpClass.Exit }],
    ['ret.uni;', { op: Opcode.Ret, uni: true, opClass: OpClass.Ret }],
  ];

  it.each(cases)('%s', (line, expected) => {
    const fn = parseKernel(`${decls}\n${line}\nret;`, '.param .u64 k_p0', prelude);
    const ins = fn.instructions[0]!;
    expect(ins).toMatchObject(expected);
    expect(ins.opText).toBe(line.split(/[\s;]/)[0]);
    expect(ins.index).toBe(0);
  });

  it('allocates the hidden carry register for add.cc/addc/mad.cc/madc and wires it into src/dst lists', () => {
    const fn = parseKernel(
      `${decls}\nadd.cc.u32 %r0, %r1, %r2;\naddc.cc.u32 %r3, %r4, %r5;\nmadc.hi.u32 %r6, %r1, %r2, 0;\nsub.cc.u32 %r0, %r1, 1;\nsubc.u32 %r3, %r4, 0;\nmad.lo.cc.u32 %r0, %r1, %r2, %r3;\nret;`,
    );
    expect(fn.ccReg).toBeGreaterThanOrEqual(0);
    const cc = fn.registers[fn.ccReg]!;
    expect(cc).toMatchObject({ name: '%cc', isPred: true, bits: 1 });
    const [add, addc, madc, sub, subc, mad] = fn.instructions;
    expect(add!.cc).toBe(true);
    expect([...add!.dstRegs]).toEqual([reg(fn, '%r0'), fn.ccReg]);
    expect([...add!.srcRegs]).not.toContain(fn.ccReg);
    expect(addc!.op).toBe(Opcode.Addc);
    expect([...addc!.srcRegs]).toContain(fn.ccReg);
    expect([...addc!.dstRegs]).toContain(fn.ccReg);
    expect(madc!.op).toBe(Opcode.Madc);
    expect([...madc!.srcRegs]).toContain(fn.ccReg);
    expect([...madc!.dstRegs]).not.toContain(fn.ccReg);
    expect(sub!.cc).toBe(true);
    expect(subc!.op).toBe(Opcode.Subc);
    expect(mad!.cc).toBe(true);
  });

  it('keeps .loc positions on instructions and reads the .file table', () => {
    const m = parse(
      HEADER +
        [
          '.visible .entry k()',
          '{',
          '  .reg .b32 %r<2>;',
          '  add.s32 %r0, %r0, 1;',
          '  .loc 1 10 5',
          '  add.s32 %r0, %r0, 1;',
          '  .loc 2 3 0, function_name $L__info_string0, inlined_at 1 12 3',
          '  .pragma "nounroll";',
          '  add.s32 %r1, %r0, 1;',
          '  ret;',
          '}',
          '.file 1 "a.cu"',
          '.file 2 "b.h", 1700000000, 42',
          '.section .debug_str',
          '{',
          '$L__info_string0:',
          '.b8 95,90,0',
          '}',
          '.section .debug_info',
          '{',
          '.b32 5',
          '.b64 $L__info_string0',
          '{ .b8 1 }',
          '}',
        ].join('\n'),
    );
    const ins = m.functions[0]!.instructions;
    expect(ins[0]!.debugLoc).toBeUndefined();
    expect(ins[1]!.debugLoc).toEqual({ file: 1, line: 10, column: 5 });
    expect(ins[2]!.debugLoc).toEqual({ file: 2, line: 3, column: 0 });
    expect(ins[3]!.debugLoc).toEqual({ file: 2, line: 3, column: 0 });
    expect([...m.debugFiles.entries()]).toEqual([
      [1, 'a.cu'],
      [2, 'b.h'],
    ]);
    // source positions of instructions in the .ptx file
    expect(ins.map((x) => x.line)).toEqual([7, 9, 12, 13]);
    expect(ins[0]!.column).toBe(3);
  });

  it('gives every instruction and every operand the same set of fields (monomorphic shapes)', () => {
    const fn = parseKernel(`${decls}\n${cases.map((c) => c[0]).join('\n')}\nret;`, '.param .u64 k_p0', prelude);
    const insKeys = Object.keys(fn.instructions[0]!).join();
    const opKeys = Object.keys(fn.instructions[0]!.dst[0]!).join();
    for (const ins of fn.instructions) {
      expect(Object.keys(ins).join()).toBe(insKeys);
      for (const o of [...ins.dst, ...ins.src, ...ins.callArgs, ...ins.callRets]) {
        expect(Object.keys(o).join()).toBe(opKeys);
        for (const e of o.elems) expect(Object.keys(e).join()).toBe(opKeys);
      }
    }
    expect(fn.instructions).toHaveLength(cases.length + 1);
  });
});
