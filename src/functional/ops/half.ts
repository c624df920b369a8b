/**
 * Half-precision arithmetic: `add`, `sub`, `mul` and `fma` of `.f16` values and of `.f16x2`
 * pairs (PTX ISA 9.0 §9.7.4 "Half Precision Floating-Point Instructions"), on 16-bit patterns.
 *
 * Each result is the exact value rounded once to binary16, to nearest even (`.rn`, the only
 * rounding these instructions take): the sum, difference or product of two binary16 values is
 * exact in binary64 (at most 22 significant bits, exponents within the double range), and the
 * fused `a * b + c` is the exact product plus `c` as an unevaluated sum `s + e` (TwoSum),
 * rounded by `roundToFormat`. `.ftz` flushes subnormal inputs and results to zero of the same
 * sign; `.sat` clamps the result to [0, 1] (NaN gives +0). A NaN result is the quiet NaN 0x7E00
 * (PTX leaves the payload unspecified).
 */

import { bitsToF16, f16ToBits } from './fp-bits.ts';
import { FMT_F16, roundToFormat, twoSumError } from './fp-round.ts';

/** The half-precision operations, as small integer codes. */
export const HalfOp = { Add: 0, Sub: 1, Mul: 2, Fma: 3 } as const;
/** A {@link HalfOp} code. */
export type HalfOp = (typeof HalfOp)[keyof typeof HalfOp];

/** Smallest normal binary16 magnitude, 2^-14. */
const F16_MIN_NORMAL = 6.103515625e-5;

function flush(x: number): number {
  return x !== 0 && x > -F16_MIN_NORMAL && x < F16_MIN_NORMAL ? (x < 0 ? -0 : 0) : x;
}

/**
 * One binary16 operation on bit patterns.
 * @param op the operation.
 * @param a first operand, a 16-bit pattern (higher bits ignored).
 * @param b second operand.
 * @param c addend of `fma` (ignored otherwise).
 * @param ftz flush subnormal inputs and the result to sign-preserving zero (`.ftz`).
 * @param sat clamp the result to [0.0, 1.0], NaN to +0.0 (`.sat`).
 * @returns the result's 16-bit pattern.
 */
export function halfArith(op: HalfOp, a: number, b: number, c: number, ftz: boolean, sat: boolean): number {
  let x = bitsToF16(a);
  let y = bitsToF16(b);
  let z = op === HalfOp.Fma ? bitsToF16(c) : 0;
  if (ftz) {
    x = flush(x);
    y = flush(y);
    z = flush(z);
  }
  let s: number;
  let e = 0;
  switch (op) {
    case HalfOp.Add:
      s = x + y; // exact
      break;
    case HalfOp.Sub:
      s = x - y; // exact
      break;
    case HalfOp.Mul:
      s = x * y; // exact: 11 x 11 significant bits
      break;
    default: {
      const p = x * y; // exact
      s = p + z;
      if (s - s === 0) e = twoSumError(p, z, s); // finite: p + z = s + e exactly
    }
  }
  let r = roundToFormat(s, e, 0, FMT_F16);
  if (ftz) r = flush(r);
  if (sat) r = r !== r || r <= 0 ? 0 : r > 1 ? 1 : r;
  return f16ToBits(r);
}
