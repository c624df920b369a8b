/**
 * Scalar semantics of `cvt` between every pair of PTX integer and float types
 * (PTX ISA 9.0 §9.7.9.21 `cvt`, §6.5 "Type Conversion", Tables 15-16).
 *
 * Representations as in `int.ts` and `float.ts`: integers up to 32 bits are numbers, 64-bit
 * integers bigints, f32/f64 numbers, f16 and bf16 16-bit patterns (numbers 0..0xffff).
 *
 * Rules implemented:
 * - int -> int: the source value (sign- or zero-extended by the *source* type) is reduced
 *   modulo 2^n into the destination type; with `.sat` it is clamped to the destination range
 *   instead.
 * - float -> int: rounded to an integral value by `.rni/.rzi/.rmi/.rpi` ({@link RoundMode}
 *   codes), then clamped to the destination range (PTX saturates float->int conversions by
 *   default); NaN gives 0. `.ftz` flushes a subnormal f32 source first.
 * - int -> float: correctly rounded in the given direction, also for 64-bit integers beyond
 *   2^53 (f64) or 2^24 (f32).
 * - float -> float: narrowing is correctly rounded; widening is exact; same-size conversions
 *   with an integral rounding mode round to an integral value in that format. `.ftz` flushes
 *   subnormal f32 inputs and results. `.sat` clamps a float result to [0, 1] (NaN -> +0).
 */

import { bf16ToBits, bitsToBf16, bitsToF16, f16ToBits, ftzF32 } from './fp-bits.ts';
import { exactOfBigInt, roundExact } from './fp-exact.ts';
import {
  FMT_BF16,
  FMT_F16,
  FMT_F32,
  FMT_F64,
  roundF32,
  roundToFormat,
  roundToIntegral,
  type FpFormat,
  type RoundMode,
} from './fp-round.ts';
import { sat01 } from './float.ts';
import { intMax, intMin, wrap64, wrapInt, type IntBits } from './int.ts';

const TWO53 = 9007199254740992;

// ---------------------------------------------------------------------------------------------
// int -> int
// ---------------------------------------------------------------------------------------------

/**
 * `cvt{.sat}.{u,s}{8,16,32}.<int>` from a number source: `v` is the source value (canonical
 * for its type, e.g. -1 for an s8 0xff).
 */
export function cvtIntToInt(v: number, dstBits: IntBits, dstSigned: boolean, sat: boolean): number {
  if (sat) {
    const lo = intMin(dstBits, dstSigned);
    const hi = intMax(dstBits, dstSigned);
    return v < lo ? lo : v > hi ? hi : v;
  }
  return wrapInt(v, dstBits, dstSigned);
}

/** `cvt{.sat}.{u,s}{8,16,32}.{u,s}64`: 64-bit source (canonical bigint) to a narrower type. */
export function cvtInt64ToInt(v: bigint, dstBits: IntBits, dstSigned: boolean, sat: boolean): number {
  if (sat) {
    const lo = BigInt(intMin(dstBits, dstSigned));
    const hi = BigInt(intMax(dstBits, dstSigned));
    return Number(v < lo ? lo : v > hi ? hi : v);
  }
  return wrapInt(Number(BigInt.asIntN(32, v)), dstBits, dstSigned);
}

const S64_MIN = -(1n << 63n);
const S64_MAX = (1n << 63n) - 1n;
const U64_MAX = (1n << 64n) - 1n;

/** `cvt{.sat}.{u,s}64.<int>` from a 64-bit (bigint) or narrower (number) source value. */
export function cvtIntToInt64(v: bigint | number, dstSigned: boolean, sat: boolean): bigint {
  const x = typeof v === 'bigint' ? v : BigInt(v);
  if (sat) {
    const lo = dstSigned ? S64_MIN : 0n;
    const hi = dstSigned ? S64_MAX : U64_MAX;
    return x < lo ? lo : x > hi ? hi : x;
  }
  return wrap64(x, dstSigned);
}

// ---------------------------------------------------------------------------------------------
// float -> int
// ---------------------------------------------------------------------------------------------

/**
 * `cvt.<irnd>{.ftz}{.sat}.{u,s}{8,16,32}.{f32,f64,f16}`: round to integral in direction `mode`,
 * clamp to the destination range, NaN -> 0. `ftzInput` flushes a subnormal f32 source.
 */
export function cvtFloatToInt(
  x: number,
  mode: RoundMode,
  dstBits: IntBits,
  dstSigned: boolean,
  ftzInput: boolean,
): number {
  if (x !== x) return 0;
  if (ftzInput) x = ftzF32(x);
  const r = roundToIntegral(x, mode);
  const lo = intMin(dstBits, dstSigned);
  const hi = intMax(dstBits, dstSigned);
  if (r < lo) return lo;
  if (r > hi) return hi;
  return r + 0; // -0 -> 0
}

/** `cvt.<irnd>{.ftz}.{u,s}64.<float>`: see {@link cvtFloatToInt}; the result is a bigint. */
export function cvtFloatToInt64(x: number, mode: RoundMode, dstSigned: boolean, ftzInput: boolean): bigint {
  if (x !== x) return 0n;
  if (ftzInput) x = ftzF32(x);
  const r = roundToIntegral(x, mode);
  if (dstSigned) {
    if (r >= 9223372036854775808) return S64_MAX;
    if (r < -9223372036854775808) return S64_MIN;
  } else {
    if (r >= 18446744073709551616) return U64_MAX;
    if (r < 0) return 0n;
  }
  return BigInt(r + 0);
}

// ---------------------------------------------------------------------------------------------
// int -> float
// ---------------------------------------------------------------------------------------------

/** `cvt.<frnd>{.sat}.f32.<int>` from a number (<= 32-bit) source. */
export function cvtIntToF32(v: number, mode: RoundMode, sat: boolean): number {
  const r = roundF32(v, 0, mode);
  return sat ? sat01(r) : r;
}

/** `cvt{.sat}.f64.<int>` from a number source: exact. */
export function cvtIntToF64(v: number, sat: boolean): number {
  return sat ? sat01(v) : v;
}

/** Rounds a 64-bit integer to `fmt` (bigint/number comparisons below are exact in JS). */
function int64ToFormat(v: bigint, mode: RoundMode, fmt: FpFormat): number {
  if (v > -TWO53 && v < TWO53) {
    const n = Number(v);
    return fmt === FMT_F64 ? n : roundToFormat(n, 0, mode, fmt);
  }
  return roundExact(exactOfBigInt(v), mode, fmt);
}

/** `cvt.<frnd>{.sat}.f32.{u,s}64`: correctly rounded. */
export function cvtInt64ToF32(v: bigint, mode: RoundMode, sat: boolean): number {
  const r = int64ToFormat(v, mode, FMT_F32);
  return sat ? sat01(r) : r;
}

/** `cvt.<frnd>{.sat}.f64.{u,s}64`: correctly rounded. */
export function cvtInt64ToF64(v: bigint, mode: RoundMode, sat: boolean): number {
  const r = int64ToFormat(v, mode, FMT_F64);
  return sat ? sat01(r) : r;
}

/** `cvt.<frnd>.f16.<int>`: the f16 bit pattern of the rounded value (number or bigint source). */
export function cvtIntToF16(v: number | bigint, mode: RoundMode): number {
  const r =
    typeof v === 'bigint' ? int64ToFormat(v, mode, FMT_F16) : roundToFormat(v, 0, mode, FMT_F16);
  return f16ToBits(r);
}

// ---------------------------------------------------------------------------------------------
// float -> float
// ---------------------------------------------------------------------------------------------

/**
 * `cvt.<frnd>{.ftz}{.sat}.f32.f64`: correctly rounded narrowing; `.ftz` flushes a subnormal
 * result.
 */
export function cvtF64ToF32(x: number, mode: RoundMode, ftz: boolean, sat: boolean): number {
  let r = roundF32(x, 0, mode);
  if (ftz) r = ftzF32(r);
  return sat ? sat01(r) : r;
}

/** `cvt{.ftz}{.sat}.f64.f32`: exact widening; `.ftz` flushes a subnormal source. */
export function cvtF32ToF64(x: number, ftz: boolean, sat: boolean): number {
  const r = ftz ? ftzF32(x) : x;
  return sat ? sat01(r) : r;
}

/**
 * `cvt{.irnd}{.ftz}{.sat}.f32.f32`: with an integral rounding mode (`irnd` not undefined) rounds
 * to an integral f32; otherwise only `.ftz`/`.sat` apply.
 */
export function cvtF32ToF32(x: number, irnd: RoundMode | undefined, ftz: boolean, sat: boolean): number {
  let r = ftz ? ftzF32(x) : x;
  if (irnd !== undefined) r = roundToIntegral(r, irnd);
  return sat ? sat01(r) : r;
}

/** `cvt{.irnd}{.sat}.f64.f64`: see {@link cvtF32ToF32}. */
export function cvtF64ToF64(x: number, irnd: RoundMode | undefined, sat: boolean): number {
  let r = x;
  if (irnd !== undefined) r = roundToIntegral(r, irnd);
  return sat ? sat01(r) : r;
}

/** `cvt.<frnd>{.sat}.f16.{f32,f64}`: correctly rounded, as an f16 bit pattern. */
export function cvtFloatToF16(x: number, mode: RoundMode, sat: boolean): number {
  let r = roundToFormat(x, 0, mode, FMT_F16);
  if (sat) r = sat01(r);
  return f16ToBits(r);
}

/** `cvt{.ftz}{.sat}.{f32,f64}.f16`: exact widening of an f16 bit pattern. */
export function cvtF16ToFloat(bits: number, sat: boolean): number {
  const r = bitsToF16(bits);
  return sat ? sat01(r) : r;
}

/** `cvt.<frnd>.bf16.{f32,f64}`: correctly rounded, as a bf16 bit pattern. */
export function cvtFloatToBf16(x: number, mode: RoundMode): number {
  return bf16ToBits(roundToFormat(x, 0, mode, FMT_BF16));
}

/** `cvt.{f32,f64}.bf16`: exact widening of a bf16 bit pattern. */
export function cvtBf16ToFloat(bits: number): number {
  return bitsToBf16(bits);
}
