/**
 * Scalar semantics of the PTX floating-point instructions on `.f32` and `.f64` (PTX ISA 9.0
 * §9.7.3 "Floating-Point Instructions", §9.7.4 `testp`/`copysign`).
 *
 * Inputs and outputs are JS numbers (an f32 is a double that `Math.fround` leaves unchanged).
 * `mode` is a {@link RoundMode} (`.rn` when the instruction has none). `ftz` flushes subnormal
 * f32 inputs and results to zero of the same sign (a result is flushed when it is subnormal
 * after rounding). `sat` clamps the result to [0, 1] with NaN giving +0.
 *
 * Accuracy (all IEEE-rounded operations are exact, i.e. correctly rounded, in every direction):
 * - f32 `add/sub/mul/div/sqrt` in round-to-nearest: computed in double and rounded once to f32;
 *   this double rounding is innocuous because 53 >= 2*24 + 2 (S. A. Figueroa, "When is double
 *   rounding innocuous?", SIGNUM 30(3), 1995). Directed rounding uses the exact remainder.
 * - f32 `fma`: the f32 product is exact in a double; TwoSum gives the exact sum `s + e`, rounded
 *   once by `roundToFormat` (no double rounding).
 * - f64 `fma`: Boldo-Melquiond emulation (TwoProduct, TwoSum, round-to-odd) for round-to-nearest,
 *   exact BigInt arithmetic for directed rounding and for extreme exponents.
 * - `.approx` operations are computed in double and rounded to f32, which is at least as
 *   accurate as PTX's bounds: `rcp/sqrt/div.full/div.approx` <= 2 ulp (ours <= 1 ulp, `div.approx`
 *   follows the `a * (1/b)` definition), `rsqrt` <= 2^-22.9 relative, `ex2` <= 2 ulp, `lg2`
 *   <= 2^-22.6 absolute, `sin/cos` <= 2^-20.5 absolute in [-100*pi, 100*pi]. JS's `Math.sin`,
 *   `Math.cos`, `Math.log2` and `**` are accurate to about 1 ulp of a double, so the f32 result is
 *   within 1 ulp of the true value. Hardware uses lower-precision units: `.approx` results may
 *   differ from a real GPU in the last bits (and, for `sin/cos` of large arguments, by more).
 */

import { TestpOp } from '../../isa/ir.ts';
import {
  F32_MIN_NORMAL,
  F64_MIN_NORMAL,
  f64LoBits,
  ftzF32,
  nextDownF64,
  nextUpF64,
} from './fp-bits.ts';
import { exactAdd, exactDiv, exactMul, exactOf, exactSqrt, roundExact } from './fp-exact.ts';
import {
  FMT_F32,
  FMT_F64,
  overflowF64,
  roundF64,
  roundToFormat,
  twoProductError,
  twoSumError,
  type RoundMode,
} from './fp-round.ts';

/** `.sat` on a float result: clamp to [0, 1], NaN (and -0) give +0 (PTX ISA §9.7.3). */
export function sat01(x: number): number {
  if (x > 0) return x > 1 ? 1 : x;
  return 0; // negative, zero of either sign, or NaN
}

/** f32 result post-processing: `.ftz` flush then `.sat` clamp. */
function finishF32(r: number, ftz: boolean, sat: boolean): number {
  if (ftz) r = ftzF32(r);
  return sat ? sat01(r) : r;
}

/** Sign of an exact zero sum under `mode` (IEEE 754 §6.3): -0 when rounding toward -inf unless both addends are +0. */
function zeroSumSign(a: number, b: number, mode: RoundMode, s: number): number {
  if (mode !== 2) return s; // JS already applies the round-to-nearest rule, which RZ/RP share
  return Object.is(a, 0) && Object.is(b, 0) ? 0 : -0;
}

// ---------------------------------------------------------------------------------------------
// f32
// ---------------------------------------------------------------------------------------------

/** `add{.rnd}{.ftz}{.sat}.f32` (PTX ISA §9.7.3.1). */
export function addF32(a: number, b: number, mode: RoundMode, ftz: boolean, sat: boolean): number {
  if (ftz) {
    a = ftzF32(a);
    b = ftzF32(b);
  }
  const s = a + b;
  let r: number;
  if (mode === 0) r = Math.fround(s);
  else if (s === 0) r = zeroSumSign(a, b, mode, s);
  else r = roundToFormat(s, twoSumError(a, b, s), mode, FMT_F32);
  return finishF32(r, ftz, sat);
}

/** `sub{.rnd}{.ftz}{.sat}.f32`: `a + (-b)` (PTX ISA §9.7.3.2). */
export function subF32(a: number, b: number, mode: RoundMode, ftz: boolean, sat: boolean): number {
  return addF32(a, -b, mode, ftz, sat);
}

/** `mul{.rnd}{.ftz}{.sat}.f32` (PTX ISA §9.7.3.3). The product of two f32 is exact in a double. */
export function mulF32(a: number, b: number, mode: RoundMode, ftz: boolean, sat: boolean): number {
  if (ftz) {
    a = ftzF32(a);
    b = ftzF32(b);
  }
  const p = a * b;
  const r = mode === 0 ? Math.fround(p) : roundToFormat(p, 0, mode, FMT_F32);
  return finishF32(r, ftz, sat);
}

/**
 * `fma.rnd{.ftz}{.sat}.f32` and `mad.rnd.f32`: `a*b + c` with a single rounding
 * (PTX ISA §9.7.3.4-5).
 */
export function fmaF32(
  a: number,
  b: number,
  c: number,
  mode: RoundMode,
  ftz: boolean,
  sat: boolean,
): number {
  if (ftz) {
    a = ftzF32(a);
    b = ftzF32(b);
    c = ftzF32(c);
  }
  const p = a * b; // exact (|p| <= 2^256, >= 2^-298 when nonzero)
  const s = p + c;
  let r: number;
  if (s !== s || s === Infinity || s === -Infinity) r = s;
  else if (s === 0) r = zeroSumSign(p, c, mode, s);
  else r = roundToFormat(s, twoSumError(p, c, s), mode, FMT_F32);
  return finishF32(r, ftz, sat);
}

/**
 * Sign (+1, -1, 0) of `a/b - q` for finite nonzero `a`, `b` and the double quotient `q`,
 * from the exact residual `a - q*b` (TwoProduct). Valid when |q|, |b| < 2^995 and
 * |a| >= 2^-968; callers check that.
 */
function divResidualSign(a: number, b: number, q: number): number {
  const p = q * b;
  const pe = twoProductError(q, b, p);
  const r = a - p - pe; // a - p is exact (Sterbenz); the sign survives the last rounding
  const s = r > 0 ? 1 : r < 0 ? -1 : 0;
  return b < 0 ? -s : s;
}

/** Sign of `sqrt(a) - q` for finite positive `a` and `q = Math.sqrt(a)` (same validity as above). */
function sqrtResidualSign(a: number, q: number): number {
  const p = q * q;
  const pe = twoProductError(q, q, p);
  const r = a - p - pe;
  return r > 0 ? 1 : r < 0 ? -1 : 0;
}

/** `div.rnd{.ftz}.f32`: IEEE division (PTX ISA §9.7.3.8). */
export function divF32(a: number, b: number, mode: RoundMode, ftz: boolean): number {
  if (ftz) {
    a = ftzF32(a);
    b = ftzF32(b);
  }
  const q = a / b;
  let r: number;
  if (mode === 0 || q !== q || q === 0 || q === Infinity || q === -Infinity) r = Math.fround(q);
  else r = roundToFormat(q, divResidualSign(a, b, q), mode, FMT_F32);
  return ftz ? ftzF32(r) : r;
}

/**
 * `div.full{.ftz}.f32`: PTX allows 2 ulp of error over the full range; warpstate returns the
 * correctly rounded quotient.
 */
export function divFullF32(a: number, b: number, ftz: boolean): number {
  return divF32(a, b, 0, ftz);
}

/**
 * `div.approx{.ftz}.f32`: `a * (1/b)` with both steps rounded to f32; for 2^126 < |b| < 2^128 the
 * result is 0 (NaN when `a` is infinite), as PTX ISA §9.7.3.8 specifies.
 */
export function divApproxF32(a: number, b: number, ftz: boolean): number {
  if (ftz) {
    a = ftzF32(a);
    b = ftzF32(b);
  }
  const mb = Math.abs(b);
  if (mb > 8.507059173023462e37 && mb < Infinity) {
    if (a === Infinity || a === -Infinity || a !== a) return NaN;
    return (a < 0 || Object.is(a, -0)) !== b < 0 ? -0 : 0;
  }
  const r = Math.fround(a * Math.fround(1 / b));
  return ftz ? ftzF32(r) : r;
}

/** `rcp.rnd{.ftz}.f32`: IEEE reciprocal (PTX ISA §9.7.3.10). */
export function rcpF32(a: number, mode: RoundMode, ftz: boolean): number {
  return divF32(1, a, mode, ftz);
}

/** `rcp.approx{.ftz}.f32`: reciprocal, within 1 ulp (PTX bound: 1 ulp). */
export function rcpApproxF32(a: number, ftz: boolean): number {
  if (ftz) a = ftzF32(a);
  const r = Math.fround(1 / a);
  return ftz ? ftzF32(r) : r;
}

/** `sqrt.rnd{.ftz}.f32`: IEEE square root (PTX ISA §9.7.3.11). */
export function sqrtF32(a: number, mode: RoundMode, ftz: boolean): number {
  if (ftz) a = ftzF32(a);
  const q = Math.sqrt(a);
  let r: number;
  if (mode === 0 || q !== q || q === 0 || q === Infinity) r = Math.fround(q);
  else r = roundToFormat(q, sqrtResidualSign(a, q), mode, FMT_F32);
  return ftz ? ftzF32(r) : r;
}

/** `sqrt.approx{.ftz}.f32`. */
export function sqrtApproxF32(a: number, ftz: boolean): number {
  return sqrtF32(a, 0, ftz);
}

/** `rsqrt.approx{.ftz}.f32`: `1/sqrt(a)` (PTX ISA §9.7.3.12). */
export function rsqrtApproxF32(a: number, ftz: boolean): number {
  if (ftz) a = ftzF32(a);
  const r = Math.fround(1 / Math.sqrt(a));
  return ftz ? ftzF32(r) : r;
}

/** `ex2.approx{.ftz}.f32`: 2^a (PTX ISA §9.7.3.17). */
export function ex2ApproxF32(a: number, ftz: boolean): number {
  if (ftz) a = ftzF32(a);
  const r = Math.fround(2 ** a);
  return ftz ? ftzF32(r) : r;
}

/** `lg2.approx{.ftz}.f32`: log2(a); lg2(±0) = -inf, lg2(negative) = NaN (PTX ISA §9.7.3.16). */
export function lg2ApproxF32(a: number, ftz: boolean): number {
  if (ftz) a = ftzF32(a);
  return Math.fround(Math.log2(a));
}

/** `sin.approx{.ftz}.f32` (PTX ISA §9.7.3.14). */
export function sinApproxF32(a: number, ftz: boolean): number {
  if (ftz) a = ftzF32(a);
  const r = Math.fround(Math.sin(a));
  return ftz ? ftzF32(r) : r;
}

/** `cos.approx{.ftz}.f32` (PTX ISA §9.7.3.15). */
export function cosApproxF32(a: number, ftz: boolean): number {
  if (ftz) a = ftzF32(a);
  return Math.fround(Math.cos(a));
}

/** `abs{.ftz}.f32`: clears the sign (PTX ISA §9.7.3.6). */
export function absF32(a: number, ftz: boolean): number {
  return Math.abs(ftz ? ftzF32(a) : a);
}

/** `neg{.ftz}.f32`: flips the sign (PTX ISA §9.7.3.7). */
export function negF32(a: number, ftz: boolean): number {
  return -(ftz ? ftzF32(a) : a);
}

/**
 * `min{.ftz}.f32` / `min.f64`: the smaller value; a NaN operand is ignored (both NaN: NaN);
 * -0 is taken as smaller than +0 (PTX ISA §9.7.3.9).
 */
export function minFloat(a: number, b: number, ftz: boolean): number {
  if (ftz) {
    a = ftzF32(a);
    b = ftzF32(b);
  }
  if (a !== a) return b;
  if (b !== b) return a;
  if (a === 0 && b === 0) return Object.is(a, -0) || Object.is(b, -0) ? -0 : 0;
  return a < b ? a : b;
}

/** `max{.ftz}.f32` / `max.f64`: see {@link minFloat}; +0 is taken as larger than -0. */
export function maxFloat(a: number, b: number, ftz: boolean): number {
  if (ftz) {
    a = ftzF32(a);
    b = ftzF32(b);
  }
  if (a !== a) return b;
  if (b !== b) return a;
  if (a === 0 && b === 0) return Object.is(a, 0) || Object.is(b, 0) ? 0 : -0;
  return a > b ? a : b;
}

/** `copysign.{f32,f64} d, a, b`: the magnitude of `b` with the sign of `a` (PTX ISA §9.7.3.x). */
export function copysign(a: number, b: number): number {
  const neg = a < 0 || Object.is(a, -0); // the sign of a NaN `a` is not observable in JS: taken as +
  const m = Math.abs(b);
  return neg ? -m : m;
}

/**
 * `testp.op.{f32,f64}` (PTX ISA §9.7.3.x): `Finite`, `Infinite`, `Number` (not NaN),
 * `NotANumber`, `Normal` (normal or zero, as PTX counts zeros as normal), `Subnormal`.
 * `op` is a {@link TestpOp} code; `isF32` selects the f32 subnormal range.
 */
export function testp(op: number, a: number, isF32: boolean): boolean {
  const m = Math.abs(a);
  const minNormal = isF32 ? F32_MIN_NORMAL : F64_MIN_NORMAL;
  switch (op) {
    case TestpOp.Finite:
      return m < Infinity;
    case TestpOp.Infinite:
      return m === Infinity;
    case TestpOp.Number:
      return a === a;
    case TestpOp.NotANumber:
      return a !== a;
    case TestpOp.Normal:
      return m === 0 || (m >= minNormal && m < Infinity);
    case TestpOp.Subnormal:
      return m > 0 && m < minNormal;
    default:
      return false;
  }
}

// ---------------------------------------------------------------------------------------------
// f64
// ---------------------------------------------------------------------------------------------

const BIG = 3.9231885846166754e299; // 2^995
const TINY = 4.1763559906024e-292; // 2^-968
const TINY_FMA = 1.1891370253121093e-271; // 2^-900
const BIG_FMA = 1.0715086071862673e301; // 2^1000

/** `add{.rnd}.f64` (PTX ISA §9.7.3.1). */
export function addF64(a: number, b: number, mode: RoundMode): number {
  const s = a + b;
  if (mode === 0) return s;
  if (s === Infinity || s === -Infinity) {
    return a - a === 0 && b - b === 0 ? overflowF64(s < 0, mode) : s;
  }
  if (s !== s) return s;
  if (s === 0) return zeroSumSign(a, b, mode, s);
  return roundF64(s, twoSumError(a, b, s), mode);
}

/** `sub{.rnd}.f64`. */
export function subF64(a: number, b: number, mode: RoundMode): number {
  return addF64(a, -b, mode);
}

/** `mul{.rnd}.f64` (PTX ISA §9.7.3.3). */
export function mulF64(a: number, b: number, mode: RoundMode): number {
  const p = a * b;
  if (mode === 0 || p !== p) return p;
  const finiteInputs = a - a === 0 && b - b === 0;
  if (!finiteInputs || a === 0 || b === 0) return p;
  const ma = Math.abs(a);
  const mb = Math.abs(b);
  const mp = Math.abs(p);
  if (ma < BIG && mb < BIG && mp >= TINY && mp < Infinity) {
    return roundF64(p, twoProductError(a, b, p), mode);
  }
  return roundExact(exactMul(exactOf(a), exactOf(b)), mode, FMT_F64);
}

/** `div.rnd.f64` (PTX ISA §9.7.3.8). */
export function divF64(a: number, b: number, mode: RoundMode): number {
  const q = a / b;
  if (mode === 0 || q !== q || a === 0 || b === 0) return q;
  if (a - a !== 0 || b - b !== 0) return q; // infinite operand: exact result
  const mq = Math.abs(q);
  const ma = Math.abs(a);
  if (mq < BIG && Math.abs(b) < BIG && ma >= TINY && ma < BIG && mq >= TINY) {
    return roundF64(q, divResidualSign(a, b, q), mode);
  }
  return roundExact(exactDiv(exactOf(a), exactOf(b), 60), mode, FMT_F64);
}

/** `rcp.rnd.f64`. */
export function rcpF64(a: number, mode: RoundMode): number {
  return divF64(1, a, mode);
}

/** `rcp.approx.ftz.f64`: reciprocal (PTX: approximate; here correctly rounded), subnormals flushed. */
export function rcpApproxFtzF64(a: number): number {
  if (a !== 0 && Math.abs(a) < F64_MIN_NORMAL) a = a < 0 ? -0 : 0;
  const r = 1 / a;
  return r !== 0 && Math.abs(r) < F64_MIN_NORMAL ? (r < 0 ? -0 : 0) : r;
}

/** `sqrt.rnd.f64` (PTX ISA §9.7.3.11). */
export function sqrtF64(a: number, mode: RoundMode): number {
  const q = Math.sqrt(a);
  if (mode === 0 || q !== q || q === 0 || q === Infinity) return q;
  if (a >= TINY && a < BIG) return roundF64(q, sqrtResidualSign(a, q), mode);
  return roundExact(exactSqrt(exactOf(a), 60), mode, FMT_F64);
}

/** `rsqrt.approx{.ftz}.f64`: `1/sqrt(a)` in double. */
export function rsqrtApproxF64(a: number): number {
  return 1 / Math.sqrt(a);
}

/** `abs.f64`. */
export function absF64(a: number): number {
  return Math.abs(a);
}

/** `neg.f64`. */
export function negF64(a: number): number {
  return -a;
}

/** `fma.rnd.f64` / `mad.rnd.f64`: `a*b + c` with one rounding (PTX ISA §9.7.3.4). */
export function fmaF64(a: number, b: number, c: number, mode: RoundMode): number {
  const aFinite = a - a === 0;
  const bFinite = b - b === 0;
  if (!aFinite || !bFinite) return a * b + c; // infinite or NaN product: IEEE rules in JS agree
  if (c - c !== 0) return c; // finite product plus inf/NaN
  if (a === 0 || b === 0) return addF64(a * b, c, mode); // exact zero product, signed
  const p = a * b;
  const ma = Math.abs(a);
  const mb = Math.abs(b);
  const mp = Math.abs(p);
  const mc = Math.abs(c);
  if (
    mode === 0 &&
    ma < BIG &&
    mb < BIG &&
    mp >= TINY_FMA &&
    mp < BIG_FMA &&
    (c === 0 || (mc >= TINY_FMA && mc < BIG_FMA))
  ) {
    const pe = twoProductError(a, b, p);
    const s = c + p;
    const ms = Math.abs(s);
    if (s === 0 || (ms >= TINY_FMA && ms < BIG_FMA)) {
      const se = twoSumError(c, p, s);
      let v = se + pe;
      const ve = twoSumError(se, pe, v);
      // round v to odd (Boldo-Melquiond): an inexact even v moves to its odd neighbour
      if (ve !== 0 && (f64LoBits(v) & 1) === 0) v = ve > 0 ? nextUpF64(v) : nextDownF64(v);
      return s + v;
    }
  }
  const exact = exactAdd(exactMul(exactOf(a), exactOf(b)), exactOf(c), mode);
  return roundExact(exact, mode, FMT_F64);
}
