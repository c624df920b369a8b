/**
 * Exact (BigInt) floating-point arithmetic, the slow but always-correct path behind the fast
 * double-based float operations: used where error-free transformations break down (extreme
 * exponents, f64 `fma` with directed rounding) and for 64-bit integer to float conversions.
 *
 * A finite value is `(-1)^neg * mant * 2^exp` with `mant` a non-negative bigint; `sticky` marks
 * a value known only to lie strictly between `mant * 2^exp` and `(mant + 1) * 2^exp` (the
 * truncated result of a division or square root).
 *
 * Source: IEEE 754-2019 §4.3 (rounding), §6.3 (sign of exact zero results); the guard/sticky
 * rounding of J. Coonen, "An implementation guide to a proposed standard for floating-point
 * arithmetic", IEEE Computer 13(1), 1980.
 */

import { exponentOf } from './fp-bits.ts';
import type { FpFormat, RoundMode } from './fp-round.ts';

/** An exact binary value `(-1)^neg * mant * 2^exp` (+ a sticky tail, see the file comment). */
export interface ExactValue {
  neg: boolean;
  mant: bigint;
  exp: number;
  sticky: boolean;
}

/** Decomposes a finite double into an exact value (mantissa up to 53 bits). */
export function exactOf(x: number): ExactValue {
  const neg = x < 0 || Object.is(x, -0);
  const m = Math.abs(x);
  if (m === 0) return { neg, mant: 0n, exp: 0, sticky: false };
  const E = exponentOf(m);
  const shift = (E < -1022 ? -1022 : E) - 52; // exponent of the ulp of m
  // m / 2^shift is an integer < 2^53; scale in two steps to stay inside the double range.
  const half = Math.trunc(-shift / 2);
  const mant = m * 2 ** half * 2 ** (-shift - half);
  return { neg, mant: BigInt(mant), exp: shift, sticky: false };
}

/** Exact value of a bigint integer. */
export function exactOfBigInt(v: bigint): ExactValue {
  return { neg: v < 0n, mant: v < 0n ? -v : v, exp: 0, sticky: false };
}

function bitLength(v: bigint): number {
  return v === 0n ? 0 : v.toString(2).length;
}

/** Exact sum of two exact values (no sticky tails). The sign of an exact zero follows `mode`. */
export function exactAdd(a: ExactValue, b: ExactValue, mode: RoundMode): ExactValue {
  const exp = a.exp < b.exp ? a.exp : b.exp;
  const ma = (a.neg ? -a.mant : a.mant) << BigInt(a.exp - exp);
  const mb = (b.neg ? -b.mant : b.mant) << BigInt(b.exp - exp);
  const s = ma + mb;
  if (s === 0n) {
    // IEEE 754 §6.3: x + (-x) is +0 except toward -inf; (-0) + (-0) is -0.
    const neg = a.mant === 0n && b.mant === 0n ? a.neg && b.neg || (mode === 2 && (a.neg || b.neg)) : mode === 2;
    return { neg, mant: 0n, exp: 0, sticky: false };
  }
  return { neg: s < 0n, mant: s < 0n ? -s : s, exp, sticky: false };
}

/** Exact product. */
export function exactMul(a: ExactValue, b: ExactValue): ExactValue {
  return { neg: a.neg !== b.neg, mant: a.mant * b.mant, exp: a.exp + b.exp, sticky: false };
}

/**
 * Quotient `a / b` (b nonzero) to at least `bits` significant bits, truncated, with the sticky
 * flag set when the remainder is nonzero.
 */
export function exactDiv(a: ExactValue, b: ExactValue, bits: number): ExactValue {
  const k = Math.max(0, bits + 2 + bitLength(b.mant) - bitLength(a.mant));
  const num = a.mant << BigInt(k);
  const q = num / b.mant;
  return { neg: a.neg !== b.neg, mant: q, exp: a.exp - b.exp - k, sticky: q * b.mant !== num };
}

/** Integer square root (floor) of a non-negative bigint (Newton's method). */
export function isqrt(n: bigint): bigint {
  if (n < 2n) return n;
  let x = 1n << BigInt((bitLength(n) >> 1) + 1);
  for (;;) {
    const y = (x + n / x) >> 1n;
    if (y >= x) return x;
    x = y;
  }
}

/** Square root of a non-negative exact value to at least `bits` significant bits, truncated, with sticky. */
export function exactSqrt(a: ExactValue, bits: number): ExactValue {
  let mant = a.mant;
  let exp = a.exp;
  // make room for 2*bits+4 bits in the radicand, with an even exponent
  let k = Math.max(0, 2 * bits + 4 - bitLength(mant));
  if ((exp - k) % 2 !== 0) k += 1;
  mant <<= BigInt(k);
  exp -= k;
  const r = isqrt(mant);
  return { neg: a.neg, mant: r, exp: exp / 2, sticky: r * r !== mant };
}

/**
 * Rounds an exact value to `fmt` (f16/bf16/f32/f64) in direction `mode`. Overflow gives infinity
 * or the largest finite value per IEEE 754 §7.4; zero keeps the value's sign.
 */
export function roundExact(v: ExactValue, mode: RoundMode, fmt: FpFormat): number {
  if (v.mant === 0n && !v.sticky) return v.neg ? -0 : 0;
  const p = fmt.precision;
  const away = (mode === 3 && !v.neg) || (mode === 2 && v.neg);
  const bl = bitLength(v.mant);
  const E = v.exp + bl - 1; // exponent of the leading bit
  const ulpExp = (E > fmt.emin ? E : fmt.emin) - (p - 1);
  const shift = ulpExp - v.exp;
  let n: bigint;
  let rem: number; // -1: below half, 0: exactly half, 1: above half; with inexact flag
  let inexact: boolean;
  if (shift <= 0) {
    n = v.mant << BigInt(-shift);
    inexact = v.sticky;
    rem = -1;
  } else {
    n = v.mant >> BigInt(shift);
    const r = v.mant - (n << BigInt(shift));
    const half = 1n << BigInt(shift - 1);
    inexact = r !== 0n || v.sticky;
    rem = r > half ? 1 : r < half ? -1 : v.sticky ? 1 : 0;
  }
  if (inexact) {
    if (mode === 0) {
      if (rem > 0 || (rem === 0 && (n & 1n) === 1n)) n += 1n;
    } else if (away) n += 1n;
  }
  // n < 2^54 here, so the conversion is exact; scale in two steps to avoid 2^-1074 underflow issues
  let r = Number(n);
  const h = Math.trunc(ulpExp / 2);
  r = r * 2 ** h * 2 ** (ulpExp - h);
  if (r > fmt.maxFinite) r = mode === 0 || away ? Infinity : fmt.maxFinite;
  return v.neg ? -r : r;
}
