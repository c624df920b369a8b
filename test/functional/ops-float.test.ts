import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import * as F from '../../src/functional/ops/float.ts';
import * as C from '../../src/functional/ops/cvt.ts';
import { compareFloat, compareInt, combineBool, setResult, slctF32, slctS32 } from '../../src/functional/ops/compare.ts';
import { bitsToF32, f32ToBits, bitsToF16 } from '../../src/functional/ops/fp-bits.ts';
import type { RoundMode } from '../../src/functional/ops/fp-round.ts';
import { BoolOp, CmpOp, TestpOp } from '../../src/isa/ir.ts';
import { F16, F32, F64, add, div, mul, ratOfDouble, ratOfInt, roundRat, type Mode } from './fp-reference.ts';

const RN = 0 as RoundMode;
const RZ = 1 as RoundMode;
const RM = 2 as RoundMode;
const RP = 3 as RoundMode;
const MAX32 = 3.4028234663852886e38;
const bits32 = (x: number) => f32ToBits(x);
const f32 = (b: number) => bitsToF32(b);
const sameValue = (got: number, want: number) => expect(Object.is(got, want) || (got !== got && want !== want)).toBe(true);

// ---------------------------------------------------------------------------------------------
// generators: f32 and f64 values from bit patterns, biased to interesting regions
// ---------------------------------------------------------------------------------------------

const f32Edge = [0, -0, 1, -1, 1.5, MAX32, -MAX32, 2 ** -126, 2 ** -149, -(2 ** -149), 2 ** -127, 3, 0.1, 1 + 2 ** -23, 16777216];
const arbF32 = fc.oneof(
  fc.constantFrom(...f32Edge.map(Math.fround)),
  fc.integer({ min: 0, max: 0xffffffff }).map(f32).filter((x) => x === x && Math.abs(x) !== Infinity),
  fc.tuple(fc.integer({ min: 0, max: 0x00ffffff }), fc.boolean()).map(([b, neg]) => f32(b | (neg ? 0x80000000 : 0))), // subnormals/small
  fc.integer({ min: 0x3f000000, max: 0x40800000 }).map(f32), // around 1
);
const f64Buf = new Float64Array(1);
const u64Buf = new BigUint64Array(f64Buf.buffer);
const f64OfBits = (b: bigint) => {
  u64Buf[0] = b;
  return f64Buf[0]!;
};
const arbF64 = fc.oneof(
  fc.constantFrom(0, -0, 1, -1, 0.1, Number.MAX_VALUE, 2 ** -1022, 5e-324, 1 + 2 ** -52, 3),
  fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }).map(f64OfBits).filter((x) => x === x && Math.abs(x) !== Infinity),
  fc.double({ min: -1e6, max: 1e6, noNaN: true }),
  fc.double({ min: 0.5, max: 2, noNaN: true }),
);
const arbMode = fc.constantFrom<RoundMode>(RN, RZ, RM, RP);
const RUNS = { numRuns: 300 };

/** Reference for a ∘ b in mode, with IEEE zero-sign rules for sums. */
function refSum(a: number, b: number, mode: Mode, fmt = F32): number {
  const q = add(ratOfDouble(a), ratOfDouble(b));
  if (q.n === 0n) {
    const bothNeg = Object.is(a, -0) && Object.is(b, -0);
    const zeroNeg = bothNeg || (mode === 2 && !(Object.is(a, 0) && Object.is(b, 0)));
    return zeroNeg ? -0 : 0;
  }
  return roundRat(q, mode, fmt);
}

describe('f32 arithmetic is correctly rounded in all four directions (property, rational reference)', () => {
  it('add, sub', () => {
    fc.assert(
      fc.property(arbF32, arbF32, arbMode, (a, b, m) => {
        sameValue(F.addF32(a, b, m, false, false), refSum(a, b, m));
        sameValue(F.subF32(a, b, m, false, false), refSum(a, -b, m));
      }),
      RUNS,
    );
  });

  it('mul', () => {
    fc.assert(
      fc.property(arbF32, arbF32, arbMode, (a, b, m) => {
        const q = mul(ratOfDouble(a), ratOfDouble(b));
        const want = q.n === 0n ? ((a < 0 || Object.is(a, -0)) !== (b < 0 || Object.is(b, -0)) ? -0 : 0) : roundRat(q, m, F32);
        sameValue(F.mulF32(a, b, m, false, false), want);
      }),
      RUNS,
    );
  });

  it('fma has a single rounding', () => {
    fc.assert(
      fc.property(arbF32, arbF32, arbF32, arbMode, (a, b, c, m) => {
        const p = mul(ratOfDouble(a), ratOfDouble(b));
        const q = add(p, ratOfDouble(c));
        let want: number;
        if (q.n === 0n) {
          const pNeg = p.n === 0n ? (a < 0 || Object.is(a, -0)) !== (b < 0 || Object.is(b, -0)) : p.n < 0n;
          const pZero = p.n === 0n;
          const cNegZero = Object.is(c, -0);
          const bothNegZero = pZero && pNeg && cNegZero;
          const bothPosZero = pZero && !pNeg && Object.is(c, 0);
          want = bothNegZero || (m === 2 && !bothPosZero) ? -0 : 0;
        } else want = roundRat(q, m, F32);
        sameValue(F.fmaF32(a, b, c, m, false, false), want);
      }),
      RUNS,
    );
  });

  it('div and sqrt', () => {
    fc.assert(
      fc.property(arbF32, arbF32.filter((x) => x !== 0), arbMode, (a, b, m) => {
        const q = div(ratOfDouble(a), ratOfDouble(b));
        const want = q.n === 0n ? ((a < 0 || Object.is(a, -0)) !== b < 0 ? -0 : 0) : roundRat(q, m, F32);
        sameValue(F.divF32(a, b, m, false), want);
        const x = Math.abs(a);
        if (x !== 0) sameValue(F.sqrtF32(x, m, false), roundRat(ratOfDouble(x), m, F32, false, true));
      }),
      RUNS,
    );
  });
});

describe('f64 arithmetic is correctly rounded in all four directions (property, rational reference)', () => {
  it('add, mul, div, sqrt', () => {
    fc.assert(
      fc.property(arbF64, arbF64, arbMode, (a, b, m) => {
        sameValue(F.addF64(a, b, m), refSum(a, b, m, F64));
        const p = mul(ratOfDouble(a), ratOfDouble(b));
        if (p.n !== 0n) sameValue(F.mulF64(a, b, m), roundRat(p, m, F64));
        if (b !== 0 && a !== 0) sameValue(F.divF64(a, b, m), roundRat(div(ratOfDouble(a), ratOfDouble(b)), m, F64));
        const x = Math.abs(a);
        if (x !== 0) sameValue(F.sqrtF64(x, m), roundRat(ratOfDouble(x), m, F64, false, true));
      }),
      { numRuns: 200 },
    );
  });

  it('fma has a single rounding (fast path and exact fallback)', () => {
    fc.assert(
      fc.property(arbF64, arbF64, arbF64, arbMode, (a, b, c, m) => {
        const q = add(mul(ratOfDouble(a), ratOfDouble(b)), ratOfDouble(c));
        if (q.n === 0n) return; // zero-sign cases are covered by hand below
        sameValue(F.fmaF64(a, b, c, m), roundRat(q, m, F64));
      }),
      { numRuns: 300 },
    );
  });

  it('fma near ties: (1+i*2^-26)(1+j*2^-27) has a 2^-53 term (half an ulp) plus tiny addends', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1 << 20 }), fc.integer({ min: 1, max: 1 << 20 }), fc.integer({ min: -60, max: 60 }), arbMode, (i, j, e, m) => {
        const a = 1 + i * 2 ** -26;
        const b = 1 + j * 2 ** -27;
        const c = (e < 0 ? -1 : 1) * 2 ** (-54 - Math.abs(e));
        const q = add(mul(ratOfDouble(a), ratOfDouble(b)), ratOfDouble(c));
        sameValue(F.fmaF64(a, b, c, m), roundRat(q, m, F64));
      }),
      { numRuns: 300 },
    );
  });
});

describe('hand-derived rounding cases', () => {
  it('f32 add: directed rounding, and the smaller ulp below a power of two', () => {
    const t = 2 ** -30;
    expect(F.addF32(1, t, RN, false, false)).toBe(1);
    expect(F.addF32(1, t, RZ, false, false)).toBe(1);
    expect(F.addF32(1, t, RM, false, false)).toBe(1);
    expect(F.addF32(1, t, RP, false, false)).toBe(1 + 2 ** -23);
    expect(F.addF32(-1, -t, RM, false, false)).toBe(-(1 + 2 ** -23));
    expect(F.addF32(-1, -t, RZ, false, false)).toBe(-1);
    expect(F.addF32(1, -t, RZ, false, false)).toBe(1 - 2 ** -24);
    expect(F.addF32(1, -t, RM, false, false)).toBe(1 - 2 ** -24);
    expect(F.addF32(1, -t, RP, false, false)).toBe(1);
    expect(Object.is(F.addF32(1, -1, RM, false, false), -0)).toBe(true);
    expect(Object.is(F.addF32(1, -1, RN, false, false), 0)).toBe(true);
  });

  it('f32 overflow per direction', () => {
    expect(F.mulF32(MAX32, 2, RN, false, false)).toBe(Infinity);
    expect(F.mulF32(MAX32, 2, RZ, false, false)).toBe(MAX32);
    expect(F.mulF32(MAX32, 2, RM, false, false)).toBe(MAX32);
    expect(F.mulF32(MAX32, 2, RP, false, false)).toBe(Infinity);
    expect(F.mulF32(-MAX32, 2, RP, false, false)).toBe(-MAX32);
    expect(F.mulF32(-MAX32, 2, RM, false, false)).toBe(-Infinity);
    expect(F.addF32(MAX32, 2 ** 103, RN, false, false)).toBe(Infinity); // exact tie -> even (inf)
    expect(F.addF32(MAX32, 2 ** 102, RN, false, false)).toBe(MAX32);
  });

  it('f32 div/sqrt in each direction (1/3 and sqrt 2 patterns)', () => {
    expect(bits32(F.divF32(1, 3, RN, false))).toBe(0x3eaaaaab);
    expect(bits32(F.divF32(1, 3, RZ, false))).toBe(0x3eaaaaaa);
    expect(bits32(F.divF32(1, 3, RM, false))).toBe(0x3eaaaaaa);
    expect(bits32(F.divF32(1, 3, RP, false))).toBe(0x3eaaaaab);
    expect(bits32(F.divF32(-1, 3, RM, false))).toBe(0xbeaaaaab);
    expect(bits32(F.sqrtF32(2, RN, false))).toBe(0x3fb504f3);
    expect(bits32(F.sqrtF32(2, RZ, false))).toBe(0x3fb504f3);
    expect(bits32(F.sqrtF32(2, RP, false))).toBe(0x3fb504f4);
    expect(F.sqrtF32(4, RP, false)).toBe(2);
    expect(F.rcpF32(4, RZ, false)).toBe(0.25);
  });

  it('f32 fma rounds once (a double-rounding result would differ)', () => {
    const a = 1 + 2 ** -12;
    // a*a = 1 + 2^-11 + 2^-24: exactly half an ulp above 1 + 2^-11 -> ties to even
    expect(F.fmaF32(a, a, 0, RN, false, false)).toBe(1 + 2 ** -11);
    // a tiny addend breaks the tie upward; rounding a*a+c to double first would lose it
    expect(F.fmaF32(a, a, 2 ** -60, RN, false, false)).toBe(1 + 2 ** -11 + 2 ** -23);
    expect(F.fmaF32(a, a, -(2 ** -60), RP, false, false)).toBe(1 + 2 ** -11 + 2 ** -23);
    expect(F.fmaF32(a, a, -(2 ** -60), RZ, false, false)).toBe(1 + 2 ** -11);
    expect(F.fmaF32(2, 3, -6, RM, false, false)).toBe(-0);
  });

  it('f64 directed rounding and fma', () => {
    expect(F.addF64(1, 2 ** -60, RP)).toBe(1 + 2 ** -52);
    expect(F.addF64(1, 2 ** -60, RZ)).toBe(1);
    expect(F.addF64(1, -(2 ** -60), RZ)).toBe(1 - 2 ** -53);
    expect(F.mulF64(Number.MAX_VALUE, 2, RZ)).toBe(Number.MAX_VALUE);
    expect(F.mulF64(Number.MAX_VALUE, 2, RN)).toBe(Infinity);
    expect(F.divF64(1, 3, RP) - F.divF64(1, 3, RZ)).toBe(2 ** -54);
    // regression (found by a property run): q*b near the top of the range must not overflow
    const big = div(ratOfDouble(Number.MAX_VALUE), ratOfDouble(-3582401459.752162));
    expect(F.divF64(Number.MAX_VALUE, -3582401459.752162, RZ)).toBe(roundRat(big, 1, F64));
    // (1 + 2^-26)(1 + 2^-27) = 1 + 2^-26 + 2^-27 + 2^-53: exactly half an ulp (2^-52) above
    // 1 + 2^-26 + 2^-27, whose last bit is even
    const a = 1 + 2 ** -26;
    const b = 1 + 2 ** -27;
    const base = 1 + 2 ** -26 + 2 ** -27;
    expect(F.fmaF64(a, b, 0, RN)).toBe(base); // tie -> even
    expect(a * b).toBe(base);
    expect(F.fmaF64(a, b, 2 ** -100, RN)).toBe(base + 2 ** -52); // a double-rounded a*b + c gives base
    expect(F.fmaF64(a, b, -(2 ** -100), RN)).toBe(base);
    expect(F.fmaF64(a, b, -(2 ** -100), RZ)).toBe(base);
    expect(F.fmaF64(a, b, 0, RP)).toBe(base + 2 ** -52);
    expect(F.fmaF64(1e300, 1e300, -Infinity, RN)).toBe(-Infinity); // finite product + inf
    expect(F.fmaF64(Infinity, 0, 1, RN)).toBeNaN();
    expect(Object.is(F.fmaF64(-0, 1, -0, RN), -0)).toBe(true);
    expect(Object.is(F.fmaF64(1, 1, -1, RM), -0)).toBe(true);
    // exact product overflows double but the sum is finite
    expect(F.fmaF64(2 ** 600, 2 ** 600, -(2 ** 1023), RN)).toBe(Infinity);
    expect(F.fmaF64(2 ** 1000, 2 ** 23, -(2 ** 1023), RN)).toBe(0);
  });

  it('subnormals with and without .ftz', () => {
    const s = 2 ** -140;
    expect(F.mulF32(2 ** -100, 2 ** -40, RN, false, false)).toBe(s);
    expect(F.mulF32(2 ** -100, 2 ** -40, RN, true, false)).toBe(0);
    expect(Object.is(F.mulF32(-(2 ** -100), 2 ** -40, RN, true, false), -0)).toBe(true);
    expect(F.addF32(s, s, RN, false, false)).toBe(2 * s);
    expect(F.addF32(s, 1, RN, true, false)).toBe(1);
    expect(Object.is(F.addF32(-s, 0, RN, true, false), 0)).toBe(true); // -0 + 0 = +0
    // 1.5 * 2^-149 ties between 1 and 2 units of 2^-149 -> even (2 units)
    expect(F.mulF32(1.5, 2 ** -149, RN, false, false)).toBe(2 ** -148);
    expect(F.mulF32(1.5, 2 ** -149, RZ, false, false)).toBe(2 ** -149);
    expect(F.mulF32(2 ** -149, 0.25, RP, false, false)).toBe(2 ** -149);
    expect(F.mulF32(2 ** -149, 0.25, RN, false, false)).toBe(0);
    expect(F.fmaF32(s, 1, 0, RN, true, false)).toBe(0);
    expect(F.divF32(s, 1, RN, true)).toBe(0);
    expect(F.sqrtF32(s, RN, false)).toBe(Math.fround(Math.sqrt(s)));
    expect(F.sqrtF32(s, RN, true)).toBe(0);
    expect(F.absF32(-s, true)).toBe(0);
    expect(F.absF32(-s, false)).toBe(s);
    expect(F.minFloat(-s, 0, true)).toBe(-0);
  });

  it('.sat clamps to [0,1] and maps NaN to +0', () => {
    expect(F.addF32(0.75, 0.5, RN, false, true)).toBe(1);
    expect(Object.is(F.addF32(-3, 1, RN, false, true), 0)).toBe(true);
    expect(F.mulF32(Infinity, 0, RN, false, true)).toBe(0);
    expect(F.fmaF32(0.5, 0.5, 0, RN, false, true)).toBe(0.25);
    expect(F.sat01(-0)).toBe(0);
  });

  it('NaN and infinity', () => {
    expect(F.addF32(Infinity, -Infinity, RN, false, false)).toBeNaN();
    expect(F.addF32(Infinity, 1, RZ, false, false)).toBe(Infinity);
    expect(F.mulF32(0, Infinity, RN, false, false)).toBeNaN();
    expect(F.divF32(1, 0, RN, false)).toBe(Infinity);
    expect(F.divF32(-1, 0, RZ, false)).toBe(-Infinity);
    expect(F.divF32(0, 0, RN, false)).toBeNaN();
    expect(F.sqrtF32(-1, RN, false)).toBeNaN();
    expect(Object.is(F.sqrtF32(-0, RN, false), -0)).toBe(true);
    expect(F.rsqrtApproxF32(0, false)).toBe(Infinity);
    expect(F.lg2ApproxF32(0, false)).toBe(-Infinity);
    expect(F.lg2ApproxF32(-1, false)).toBeNaN();
    expect(F.ex2ApproxF32(-Infinity, false)).toBe(0);
    expect(F.sinApproxF32(Infinity, false)).toBeNaN();
    expect(F.addF64(Infinity, -Infinity, RP)).toBeNaN();
    expect(F.divF64(1, -0, RZ)).toBe(-Infinity);
  });

  it('min/max: NaN ignored, -0 < +0', () => {
    expect(F.minFloat(NaN, 1, false)).toBe(1);
    expect(F.minFloat(2, NaN, false)).toBe(2);
    expect(F.minFloat(NaN, NaN, false)).toBeNaN();
    expect(Object.is(F.minFloat(0, -0, false), -0)).toBe(true);
    expect(Object.is(F.maxFloat(-0, 0, false), 0)).toBe(true);
    expect(F.maxFloat(-Infinity, NaN, false)).toBe(-Infinity);
    expect(F.maxFloat(3, -7, false)).toBe(3);
  });

  it('approx ops are within their bounds and div.approx follows its large-divisor rule', () => {
    expect(F.divApproxF32(1, 2 ** 127, false)).toBe(0);
    expect(F.divApproxF32(Infinity, 2 ** 127, false)).toBeNaN();
    expect(F.divApproxF32(6, 3, false)).toBe(2);
    expect(F.ex2ApproxF32(10, false)).toBe(1024);
    expect(F.lg2ApproxF32(0.125, false)).toBe(-3);
    expect(Math.abs(F.sinApproxF32(1, false) - Math.sin(1))).toBeLessThan(2 ** -20.5);
    expect(Math.abs(F.cosApproxF32(3, false) - Math.cos(3))).toBeLessThan(2 ** -20.5);
    expect(F.rcpApproxF32(3, false)).toBe(Math.fround(1 / 3));
    expect(F.rcpApproxFtzF64(2 ** 1023)).toBe(0); // subnormal result 2^-1023 flushed
    expect(F.rsqrtApproxF32(4, false)).toBe(0.5);
  });

  it('copysign takes the sign of a and the magnitude of b; testp classes', () => {
    expect(F.copysign(-1, 3)).toBe(-3);
    expect(F.copysign(1, -3)).toBe(3);
    expect(Object.is(F.copysign(-0, 0), -0)).toBe(true);
    expect(F.testp(TestpOp.Normal, 0, true)).toBe(true);
    expect(F.testp(TestpOp.Normal, 2 ** -130, true)).toBe(false);
    expect(F.testp(TestpOp.Subnormal, 2 ** -130, true)).toBe(true);
    expect(F.testp(TestpOp.Subnormal, 2 ** -130, false)).toBe(false); // normal as f64
    expect(F.testp(TestpOp.Finite, Infinity, true)).toBe(false);
    expect(F.testp(TestpOp.Infinite, -Infinity, true)).toBe(true);
    expect(F.testp(TestpOp.NotANumber, NaN, false)).toBe(true);
    expect(F.testp(TestpOp.Number, NaN, false)).toBe(false);
  });
});

describe('cvt', () => {
  it('int -> f32/f64 correctly rounded for 64-bit values beyond 2^53 (no double rounding)', () => {
    // 2^60 + 2^36 + 1 is just above the f32 midpoint 2^60 + 2^36: rounds up. Number() first would
    // round to 2^60 + 2^36 (the +1 is lost at double precision) and then tie to even (2^60).
    expect(C.cvtInt64ToF32((1n << 60n) + (1n << 36n) + 1n, RN, false)).toBe(2 ** 60 + 2 ** 37);
    expect(C.cvtInt64ToF32((1n << 60n) + (1n << 36n), RN, false)).toBe(2 ** 60);
    expect(C.cvtInt64ToF64((1n << 53n) + 1n, RN, false)).toBe(2 ** 53);
    expect(C.cvtInt64ToF64((1n << 53n) + 1n, RP, false)).toBe(2 ** 53 + 2);
    expect(C.cvtInt64ToF64(-((1n << 53n) + 1n), RM, false)).toBe(-(2 ** 53 + 2));
    expect(C.cvtInt64ToF64((1n << 64n) - 1n, RZ, false)).toBe(2 ** 64 - 2 ** 11);
    expect(C.cvtIntToF32(16777217, RN, false)).toBe(16777216);
    expect(C.cvtIntToF32(16777217, RP, false)).toBe(16777218);
    expect(C.cvtIntToF32(16777219, RN, false)).toBe(16777220); // tie -> even
    expect(C.cvtIntToF32(-16777217, RZ, false)).toBe(-16777216);
  });

  it('int64 -> float property vs the rational reference', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(1n << 63n), max: (1n << 64n) - 1n }), arbMode, (v, m) => {
        sameValue(C.cvtInt64ToF32(v, m, false), roundRat(ratOfInt(v), m, F32));
        sameValue(C.cvtInt64ToF64(v, m, false), roundRat(ratOfInt(v), m, F64));
      }),
      RUNS,
    );
  });

  it('f64 -> f32 and -> f16 property vs the rational reference', () => {
    fc.assert(
      fc.property(arbF64, arbMode, (x, m) => {
        if (x === 0) return;
        sameValue(C.cvtF64ToF32(x, m, false, false), roundRat(ratOfDouble(x), m, F32));
        sameValue(bitsToF16(C.cvtFloatToF16(x, m, false)), roundRat(ratOfDouble(x), m, F16));
      }),
      RUNS,
    );
  });

  it('float -> int: rounding, clamping, NaN -> 0', () => {
    expect(C.cvtFloatToInt(2.5, RN, 32, true, false)).toBe(2);
    expect(C.cvtFloatToInt(3.5, RN, 32, true, false)).toBe(4);
    expect(C.cvtFloatToInt(-2.5, RN, 32, true, false)).toBe(-2);
    expect(C.cvtFloatToInt(-2.5, RM, 32, true, false)).toBe(-3);
    expect(C.cvtFloatToInt(-2.5, RP, 32, true, false)).toBe(-2);
    expect(C.cvtFloatToInt(-2.7, RZ, 32, true, false)).toBe(-2);
    expect(C.cvtFloatToInt(NaN, RZ, 32, true, false)).toBe(0);
    expect(C.cvtFloatToInt(1e10, RZ, 32, true, false)).toBe(2147483647);
    expect(C.cvtFloatToInt(-1e10, RZ, 32, true, false)).toBe(-2147483648);
    expect(C.cvtFloatToInt(Infinity, RZ, 32, false, false)).toBe(0xffffffff);
    expect(C.cvtFloatToInt(-1.5, RZ, 32, false, false)).toBe(0);
    expect(C.cvtFloatToInt(300, RN, 8, false, false)).toBe(255);
    expect(C.cvtFloatToInt(-300, RN, 16, true, false)).toBe(-300);
    expect(C.cvtFloatToInt(-40000, RN, 16, true, false)).toBe(-32768);
    expect(Object.is(C.cvtFloatToInt(-0.2, RN, 32, true, false), 0)).toBe(true);
    expect(C.cvtFloatToInt(0.7, RP, 32, true, true)).toBe(1);
    expect(C.cvtFloatToInt(2 ** -130, RP, 32, true, true)).toBe(0); // ftz before rounding up
    expect(C.cvtFloatToInt(2 ** -130, RP, 32, true, false)).toBe(1);
    expect(C.cvtFloatToInt64(2 ** 64, RZ, false, false)).toBe((1n << 64n) - 1n);
    expect(C.cvtFloatToInt64(2 ** 63, RZ, true, false)).toBe((1n << 63n) - 1n);
    expect(C.cvtFloatToInt64(-(2 ** 63), RZ, true, false)).toBe(-(1n << 63n));
    expect(C.cvtFloatToInt64(-1e30, RZ, true, false)).toBe(-(1n << 63n));
    expect(C.cvtFloatToInt64(2 ** 60 + 2 ** 40, RN, true, false)).toBe((1n << 60n) + (1n << 40n));
    expect(C.cvtFloatToInt64(NaN, RN, true, false)).toBe(0n);
  });

  it('int -> int: truncation, extension by source type, .sat', () => {
    expect(C.cvtIntToInt(-1, 32, false, false)).toBe(0xffffffff); // cvt.u32.s8 of 0xff
    expect(C.cvtIntToInt(255, 8, true, false)).toBe(-1); // cvt.s8.u32 of 255
    expect(C.cvtIntToInt(0x12345, 16, false, false)).toBe(0x2345);
    expect(C.cvtIntToInt(-5, 8, false, true)).toBe(0);
    expect(C.cvtIntToInt(0xffffffff, 32, true, true)).toBe(0x7fffffff);
    expect(C.cvtIntToInt(200, 8, true, true)).toBe(127);
    expect(C.cvtInt64ToInt(-1n, 32, false, false)).toBe(0xffffffff);
    expect(C.cvtInt64ToInt(1n << 40n, 32, true, true)).toBe(2147483647);
    expect(C.cvtInt64ToInt((1n << 40n) + 7n, 16, false, false)).toBe(7);
    expect(C.cvtIntToInt64(-1, false, false)).toBe((1n << 64n) - 1n);
    expect(C.cvtIntToInt64(-1, false, true)).toBe(0n);
    expect(C.cvtIntToInt64(0xffffffff, true, false)).toBe(0xffffffffn);
    expect(C.cvtIntToInt64((1n << 64n) - 1n, true, true)).toBe((1n << 63n) - 1n);
  });

  it('float -> float: narrowing in each direction, ftz, sat, round to integral', () => {
    expect(C.cvtF64ToF32(0.1, RN, false, false)).toBe(Math.fround(0.1));
    expect(bits32(C.cvtF64ToF32(0.1, RZ, false, false))).toBe(0x3dcccccc);
    expect(bits32(C.cvtF64ToF32(0.1, RP, false, false))).toBe(0x3dcccccd);
    expect(C.cvtF64ToF32(1e39, RN, false, false)).toBe(Infinity);
    expect(C.cvtF64ToF32(1e39, RZ, false, false)).toBe(MAX32);
    expect(C.cvtF64ToF32(-1e39, RP, false, false)).toBe(-MAX32);
    expect(C.cvtF64ToF32(1e-40, RN, true, false)).toBe(0);
    expect(C.cvtF64ToF32(1e-40, RN, false, false)).toBe(Math.fround(1e-40));
    expect(C.cvtF64ToF32(1e-50, RP, false, false)).toBe(2 ** -149);
    expect(C.cvtF32ToF64(2 ** -130, true, false)).toBe(0);
    expect(C.cvtF32ToF64(2 ** -130, false, false)).toBe(2 ** -130);
    expect(C.cvtF32ToF32(1.5, RN, false, false)).toBe(2);
    expect(C.cvtF32ToF32(2.5, RN, false, false)).toBe(2);
    expect(Object.is(C.cvtF32ToF32(-0.5, RN, false, false), -0)).toBe(true);
    expect(C.cvtF32ToF32(-1.5, RZ, false, false)).toBe(-1);
    expect(C.cvtF32ToF32(1.25, RM, false, false)).toBe(1);
    expect(C.cvtF32ToF32(1.25, RP, false, false)).toBe(2);
    expect(C.cvtF32ToF32(1.25, undefined, false, true)).toBe(1);
    expect(C.cvtF64ToF64(NaN, undefined, true)).toBe(0);
    expect(C.cvtF64ToF64(-2.5, RP, false)).toBe(-2);
  });

  it('f16 and bf16', () => {
    expect(C.cvtFloatToF16(1 / 3, RN, false)).toBe(0x3555);
    expect(C.cvtFloatToF16(65520, RN, false)).toBe(0x7c00); // max + half ulp ties to even -> inf
    expect(C.cvtFloatToF16(65519, RN, false)).toBe(0x7bff);
    expect(C.cvtFloatToF16(1e6, RZ, false)).toBe(0x7bff);
    expect(C.cvtFloatToF16(2 ** -24, RN, false)).toBe(0x0001);
    expect(C.cvtFloatToF16(-2, RN, false)).toBe(0xc000);
    expect(C.cvtF16ToFloat(0x3c00, false)).toBe(1);
    expect(C.cvtF16ToFloat(0x0001, false)).toBe(2 ** -24);
    expect(C.cvtF16ToFloat(0xfc00, false)).toBe(-Infinity);
    expect(C.cvtIntToF16(2049, RN)).toBe(0x6800); // 2048 (tie to even)
    expect(C.cvtIntToF16(2049n, RP)).toBe(0x6801); // 2050
    expect(C.cvtFloatToBf16(1 + 2 ** -8, RN)).toBe(0x3f80); // tie -> even 1.0
    expect(C.cvtFloatToBf16(1 + 2 ** -8, RP)).toBe(0x3f81);
    expect(C.cvtBf16ToFloat(0x3fc0)).toBe(1.5);
  });
});

describe('comparisons and selects', () => {
  it('ordered and unordered float comparisons', () => {
    const ops: [number, boolean, boolean][] = [
      // op, result for (1, NaN), result for (1, 2)
      [CmpOp.Eq, false, false],
      [CmpOp.Ne, false, true],
      [CmpOp.Lt, false, true],
      [CmpOp.Le, false, true],
      [CmpOp.Gt, false, false],
      [CmpOp.Ge, false, false],
      [CmpOp.Equ, true, false],
      [CmpOp.Neu, true, true],
      [CmpOp.Ltu, true, true],
      [CmpOp.Leu, true, true],
      [CmpOp.Gtu, true, false],
      [CmpOp.Geu, true, false],
      [CmpOp.Num, false, true],
      [CmpOp.Nan, true, false],
    ];
    for (const [op, withNaN, ordered] of ops) {
      expect(compareFloat(op, 1, NaN, false)).toBe(withNaN);
      expect(compareFloat(op, 1, 2, false)).toBe(ordered);
    }
    expect(compareFloat(CmpOp.Eq, 0, -0, false)).toBe(true);
    expect(compareFloat(CmpOp.Eq, 2 ** -140, 0, true)).toBe(true);
    expect(compareFloat(CmpOp.Eq, 2 ** -140, 0, false)).toBe(false);
  });

  it('integer comparisons, bool combine, set values, slct', () => {
    expect(compareInt(CmpOp.Lt, -1, 0)).toBe(true); // signed
    expect(compareInt(CmpOp.Lt, 0xffffffff, 0)).toBe(false); // unsigned (lo)
    expect(compareInt(CmpOp.Ge, 5n, 5n)).toBe(true);
    expect(combineBool(true, BoolOp.And, false)).toBe(false);
    expect(combineBool(false, BoolOp.Or, true)).toBe(true);
    expect(combineBool(true, BoolOp.Xor, true)).toBe(false);
    expect(setResult(true, 'u32')).toBe(0xffffffff);
    expect(setResult(true, 's32')).toBe(-1);
    expect(setResult(true, 'f32')).toBe(1);
    expect(setResult(false, 'f32')).toBe(0);
    expect(slctS32(1, 2, -1)).toBe(2);
    expect(slctS32(1, 2, 0)).toBe(1);
    expect(slctF32(1, 2, -0, false)).toBe(1);
    expect(slctF32(1, 2, NaN, false)).toBe(2);
    expect(slctF32(1, 2, -(2 ** -140), true)).toBe(1); // flushed to -0 >= 0
    expect(slctF32(1, 2, -(2 ** -140), false)).toBe(2);
  });
});

describe('.approx functions stay within the documented error bounds (property)', () => {
  const ulp32 = (x: number) => {
    const a = Math.abs(x);
    return a < 2 ** -126 ? 2 ** -149 : 2 ** (Math.floor(Math.log2(a)) - 23);
  };
  it('ex2 <= 2 ulp, lg2 and sin/cos absolute bounds, rsqrt relative bound, rcp/sqrt/div.approx <= 2 ulp', () => {
    fc.assert(
      fc.property(fc.double({ min: -100, max: 100, noNaN: true }), fc.double({ min: 0.5, max: 2, noNaN: true }), fc.double({ min: 1e-30, max: 1e30, noNaN: true }), (x, m, p) => {
        x = Math.fround(x);
        m = Math.fround(m);
        p = Math.fround(p);
        const e = 2 ** x;
        expect(Math.abs(F.ex2ApproxF32(x, false) - e)).toBeLessThanOrEqual(2 * ulp32(e));
        expect(Math.abs(F.lg2ApproxF32(m, false) - Math.log2(m))).toBeLessThanOrEqual(2 ** -22.6);
        const s = Math.fround(x / 32); // inside [-pi, pi]
        expect(Math.abs(F.sinApproxF32(s, false) - Math.sin(s))).toBeLessThanOrEqual(2 ** -20.5);
        expect(Math.abs(F.cosApproxF32(s, false) - Math.cos(s))).toBeLessThanOrEqual(2 ** -20.5);
        const r = 1 / Math.sqrt(p);
        expect(Math.abs(F.rsqrtApproxF32(p, false) - r) / r).toBeLessThanOrEqual(2 ** -22.9);
        expect(Math.abs(F.rcpApproxF32(p, false) - 1 / p)).toBeLessThanOrEqual(2 * ulp32(1 / p));
        expect(Math.abs(F.sqrtApproxF32(p, false) - Math.sqrt(p))).toBeLessThanOrEqual(2 * ulp32(Math.sqrt(p)));
        const q = m / p;
        if (Math.abs(p) <= 2 ** 126) expect(Math.abs(F.divApproxF32(m, p, false) - q)).toBeLessThanOrEqual(2 * ulp32(q));
      }),
      { numRuns: 300 },
    );
  });
});
