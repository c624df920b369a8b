/**
 * Half-precision `add`, `sub`, `mul` and `fma` of `.f16` values and `.f16x2` pairs (PTX ISA 9.0
 * §9.7.4; issue 10 item 4: cheap enough to execute instead of refusing). Each expected bit
 * pattern is worked out by hand in binary16 (1 sign, 5 exponent bits biased by 15, 10 fraction
 * bits; ulp of [1, 2) is 2^-10, smallest subnormal 2^-24).
 */
import { describe, expect, it } from 'vitest';
import { FunctionalKernel, GlobalMemory, runFunctional } from '../../src/functional/index.ts';
import { halfArith, HalfOp } from '../../src/functional/ops/half.ts';
import { Opcode, OpClass, ScalarType } from '../../src/isa/ir.ts';
import { ptx } from './helpers.ts';

const ADD = HalfOp.Add;
const SUB = HalfOp.Sub;
const MUL = HalfOp.Mul;
const FMA = HalfOp.Fma;
const h = (op: HalfOp, a: number, b: number, c = 0, ftz = false, sat = false) => halfArith(op, a, b, c, ftz, sat);

describe('binary16 arithmetic (ops/half.ts)', () => {
  it('rounds to nearest, ties to even', () => {
    // 1 + 2^-11 (0x1000) is half way between 1 (even) and 1 + 2^-10: 1
    expect(h(ADD, 0x3c00, 0x1000)).toBe(0x3c00);
    // 1 + 3 * 2^-11 (0x1600 = 1.5 * 2^-10) is half way between 1 + 2^-10 (odd) and 1 + 2^-9: 1 + 2^-9
    expect(h(ADD, 0x3c00, 0x1600)).toBe(0x3c02);
    // (1 + 2^-10)^2 = 1 + 2^-9 + 2^-20: 1 + 2^-9
    expect(h(MUL, 0x3c01, 0x3c01)).toBe(0x3c02);
  });

  it('fma rounds once: (1 + 2^-10)^2 - (1 + 2^-9) is 2^-20, a subnormal (16 x 2^-24); .ftz flushes it', () => {
    expect(h(FMA, 0x3c01, 0x3c01, 0xbc02)).toBe(0x0010);
    expect(h(FMA, 0x3c01, 0x3c01, 0xbc02, true)).toBe(0x0000);
    // rounding the product first would give 1 + 2^-9 and a sum of +0
    expect(h(ADD, h(MUL, 0x3c01, 0x3c01), 0xbc02)).toBe(0x0000);
  });

  it('overflows to infinity: 65504 + 16 = 65520 ties to 65536 (even), past the largest finite value', () => {
    expect(h(ADD, 0x7bff, 0x4c00)).toBe(0x7c00);
    expect(h(MUL, 0x7bff, 0xc000)).toBe(0xfc00); // 65504 * -2
    expect(h(ADD, 0x7bff, 0x3c00)).toBe(0x7bff); // 65505 rounds back to 65504
  });

  it('zeros keep IEEE signs; NaN results are 0x7E00', () => {
    expect(h(SUB, 0x3c00, 0x3c00)).toBe(0x0000); // 1 - 1 = +0
    expect(h(SUB, 0x8000, 0x0000)).toBe(0x8000); // -0 - 0 = -0
    expect(h(ADD, 0x7c00, 0xfc00)).toBe(0x7e00); // inf - inf
    expect(h(MUL, 0x7e00, 0x3c00)).toBe(0x7e00);
    expect(h(FMA, 0x7c00, 0x0000, 0x3c00)).toBe(0x7e00); // inf * 0 + 1
  });

  it('.ftz flushes subnormal inputs; .sat clamps to [0, 1] and sends NaN and -0 to +0', () => {
    expect(h(ADD, 0x0001, 0x0000)).toBe(0x0001); // 2^-24 stays without .ftz
    expect(h(ADD, 0x0001, 0x0000, 0, true)).toBe(0x0000);
    expect(h(ADD, 0x8001, 0x8000, 0, true)).toBe(0x8000); // sign kept
    expect(h(ADD, 0x3a00, 0x3800, 0, false, true)).toBe(0x3c00); // 0.75 + 0.5 = 1.25 -> 1
    expect(h(MUL, 0xb800, 0x4000, 0, false, true)).toBe(0x0000); // -0.5 * 2 = -1 -> 0
    expect(h(ADD, 0x7c00, 0xfc00, 0, false, true)).toBe(0x0000); // NaN -> +0
    expect(h(SUB, 0x8000, 0x0000, 0, false, true)).toBe(0x0000); // -0 -> +0
  });
});

describe('add/sub/mul/fma .f16 and .f16x2 in kernels', () => {
  const KERNEL = `
.visible .entry k(.param .u64 io)
{
  .reg .b16 %rs<8>; .reg .b32 %r<8>; .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [io];
  ld.global.u32 %r1, [%rd1];
  ld.global.u32 %r2, [%rd1+4];
  ld.global.u32 %r3, [%rd1+8];
  add.f16x2 %r4, %r1, %r2;
  sub.rn.ftz.f16x2 %r5, %r1, %r2;
  fma.rn.sat.f16x2 %r6, %r1, %r2, %r3;
  mov.b32 {%rs1, %rs2}, %r1;
  mul.f16 %rs3, %rs1, %rs2;
  fma.rn.f16 %rs4, %rs1, %rs2, %rs1;
  st.global.u32 [%rd1+12], %r4;
  st.global.u32 [%rd1+16], %r5;
  st.global.u32 [%rd1+20], %r6;
  st.global.u16 [%rd1+24], %rs3;
  st.global.u16 [%rd1+26], %rs4;
  ret;
}
`;

  it('decode: type F16, a pair for .f16x2, ALU class (mul too)', () => {
    const ins = ptx(KERNEL).functions[0]!.instructions.filter((i) => i.type === ScalarType.F16);
    expect(ins.map((i) => [i.op, i.vec, i.opClass, i.ftz, i.sat])).toEqual([
      [Opcode.Add, 2, OpClass.Alu, false, false],
      [Opcode.Sub, 2, OpClass.Alu, true, false],
      [Opcode.Fma, 2, OpClass.Alu, false, true],
      [Opcode.Mul, 1, OpClass.Alu, false, false],
      [Opcode.Fma, 1, OpClass.Alu, false, false],
    ]);
  });

  it('each element of a pair computed alone, element 0 in the low 16 bits', () => {
    // a = (1.5, -2), b = (0.25, 3), c = (-0.25, 0.5)
    const memory = new GlobalMemory();
    const io = memory.upload(new Uint16Array([0x3e00, 0xc000, 0x3400, 0x4200, 0xb400, 0x3800, 0, 0, 0, 0, 0, 0, 0, 0]), 256, 'io');
    runFunctional(new FunctionalKernel({ module: ptx(KERNEL), entry: 'k', grid: 1, block: 1, args: [io], memory }));
    const out = Array.from(new Uint16Array(memory.read(io, 28).slice().buffer)).slice(6);
    expect(out).toEqual([
      0x3f00, 0x3c00, // a + b = (1.75, 1)
      0x3d00, 0xc500, // a - b = (1.25, -5)
      0x3000, 0x0000, // sat(a * b + c) = sat(0.375 - 0.25, -6 + 0.5) = (0.125, 0)
      0xc200, // 1.5 * -2 = -3
      0xbe00, // 1.5 * -2 + 1.5 = -1.5
    ]);
  });

  it('refuses other roundings, fma without .rn and .relu', () => {
    expect(() => ptx(KERNEL.replace('add.f16x2', 'add.rz.f16x2'))).toThrow(/not supported: 'add.f16x2' with a rounding other than .rn/);
    expect(() => ptx(KERNEL.replace('fma.rn.f16 ', 'fma.f16 '))).toThrow(/'fma.f16' needs .rn/);
    expect(() => ptx(KERNEL.replace('fma.rn.f16 ', 'fma.rn.relu.f16 '))).toThrow(/not supported: modifier '.relu' on 'fma'/);
  });
});
