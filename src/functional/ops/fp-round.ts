/**
 * Correct rounding of floating-point results in the four IEEE 754 rounding directions.
 *
 * The float operations compute their exact result as an unevaluated sum `s + e` of two doubles
 * (`s` the double nearest the exact value, `e` the exact remainder, from error-free
 * transformations: {@link twoSum}, {@link twoProductError}), or, when those cannot be exact
 * (extreme exponents), as an exact BigInt value (`fp-exact.ts`). This file rounds such a pair to
 * binary32, binary16, bfloat16 or binary64.
 *
 * Why it is exact: `s` is a double and |e| <= ulp64(s)/2. Scaled so that one unit is one ulp of
 * the target format, `s` becomes `q` whose fractional part is a multiple of ulp64(q), so the
 * tiny `e` can only matter when `q` is integral (then it decides directed rounding) or exactly
 * half-way (then it decides round-to-nearest). Both cases are tested explicitly.
 *
 * Source: IEEE 754-2019 §4.3 (rounding-direction attributes), §7.4 (overflow results under
 * directed rounding); T. J. Dekker, "A floating-point technique for extending the available
 * precision" (1971) and D. E. Knuth, TAOCP vol. 2 §4.2.2 (TwoSum, TwoProduct); S. Boldo and
 * G. Melquiond, "Emulation of FMA and correctly rounded sums: proved algorithms using rounding
 * to odd", IEEE TC 57(4), 2008 (used for f64 fma).
 */

import { F32_MAX, F64_MAX, exponentOf, nextDownF64, nextUpF64 } from './fp-bits.ts';

/**
 * Rounding direction: `Rn` nearest-even, `Rz` toward zero, `Rm` toward -inf, `Rp` toward +inf.
 * For `cvt` to an integral value the same codes select `.rni/.rzi/.rmi/.rpi`.
 */
export const RoundMode = { Rn: 0, Rz: 1, Rm: 2, Rp: 3 } as const;
/** A {@link RoundMode} code. */
export type RoundMode = (typeof RoundMode)[keyof typeof RoundMode];

/** A binary floating-point format narrower than (or equal to) binary64. */
export interface FpFormat {
  /** Precision in bits, including the implicit bit (24 for f32). */
  readonly precision: number;
  /** Exponent of the smallest normal number (-126 for f32). */
  readonly emin: number;
  /** Largest finite value. */
  readonly maxFinite: number;
}

/** IEEE binary32. */
export const FMT_F32: FpFormat = Object.freeze({ precision: 24, emin: -126, maxFinite: F32_MAX });
/** IEEE binary16. */
export const FMT_F16: FpFormat = Object.freeze({ precision: 11, emin: -14, maxFinite: 65504 });
/** bfloat16 (8 exponent bits, 8 bits of precision). */
export const FMT_BF16: FpFormat = Object.freeze({
  precision: 8,
  emin: -126,
  maxFinite: 3.3895313892515355e38,
});
/** IEEE binary64. */
export const FMT_F64: FpFormat = Object.freeze({ precision: 53, emin: -1022, maxFinite: F64_MAX });

/**
 * Error of the double addition `s = a + b` (Knuth's TwoSum): `a + b = s + e` exactly, provided
 * `s` is finite.
 */
export function twoSumError(a: number, b: number, s: number): number {
  const bb = s - a;
  return a - (s - bb) + (b - bb);
}

const SPLITTER = 134217729; // 2^27 + 1

/**
 * Error of the double product `p = a * b` (Dekker's TwoProduct with Veltkamp splitting):
 * `a * b = p + e` exactly, provided |a|, |b| < 2^995 and |p| >= 2^-969 (no overflow in the
 * split, no underflow in the partial products), or the product is zero.
 */
export function twoProductError(a: number, b: number, p: number): number {
  let t = SPLITTER * a;
  const ah = t - (t - a);
  const al = a - ah;
  t = SPLITTER * b;
  const bh = t - (t - b);
  const bl = b - bh;
  return ah * bh - p + ah * bl + al * bh + al * bl;
}

/**
 * Rounds `s` to an integer in direction `mode` (ties to even for `Rn`), as `cvt.rni/.rzi/.rmi/
 * .rpi` do; NaN and infinities pass through, -0 is kept.
 */
export function roundToIntegral(s: number, mode: RoundMode): number {
  switch (mode) {
    case 1:
      return Math.trunc(s);
    case 2:
      return Math.floor(s);
    case 3:
      return Math.ceil(s);
    default: {
      if (s !== s || s === Infinity || s === -Infinity) return s;
      const fl = Math.floor(s);
      const frac = s - fl; // exact
      let r: number;
      if (frac > 0.5) r = fl + 1;
      else if (frac < 0.5) r = fl;
      else r = fl % 2 === 0 ? fl : fl + 1;
      // keep the sign of zero (round(-0.3) is -0)
      return r === 0 && s < 0 ? -0 : r === 0 && Object.is(s, -0) ? -0 : r;
    }
  }
}

/**
 * Rounds the exact value `s + e` to the format `fmt` in direction `mode` and returns it as a
 * number. `s` must be a double, `e` its remainder with |e| <= ulp64(s)/2 (0 when `s` is exact).
 * Overflow gives infinity or the largest finite value as IEEE 754 §7.4 prescribes for the
 * direction; a zero result keeps the sign of the exact value. NaN and infinite `s` pass through.
 *
 * Valid for formats of precision <= 53 whose smallest subnormal is >= 2^-1074 and whose
 * (scaled) ulp stays in the double range: f16, bf16, f32; for f64 use {@link roundF64}.
 */
export function roundToFormat(s: number, e: number, mode: RoundMode, fmt: FpFormat): number {
  if (s !== s || s === Infinity || s === -Infinity || s === 0) return s;
  const neg = s < 0;
  const m = neg ? -s : s;
  const em = neg ? -e : e; // remainder in the direction of growing magnitude
  const away = (mode === 3 && !neg) || (mode === 2 && neg); // round magnitude up
  const p = fmt.precision;
  const E = exponentOf(m);
  const ulpExp = (E > fmt.emin ? E : fmt.emin) - (p - 1);
  const q = m * 2 ** -ulpExp; // exact: a power-of-two scaling inside the double range
  const fl = Math.floor(q);
  const frac = q - fl;
  let n: number;
  if (frac === 0) {
    n = fl;
    if (em !== 0 && mode !== 0) {
      if (away) {
        if (em > 0) n = fl + 1;
      } else if (em < 0) {
        // toward zero from an exactly representable magnitude
        if (fl === 2 ** (p - 1) && E > fmt.emin) {
          const r = m - 2 ** (ulpExp - 1); // the binade below has half the ulp
          return neg ? -r : r;
        }
        n = fl - 1;
      }
    }
  } else if (mode === 0) {
    if (frac > 0.5) n = fl + 1;
    else if (frac < 0.5) n = fl;
    else if (em > 0) n = fl + 1;
    else if (em < 0) n = fl;
    else n = fl % 2 === 0 ? fl : fl + 1;
  } else {
    n = away ? fl + 1 : fl;
  }
  let r = n * 2 ** ulpExp;
  if (r > fmt.maxFinite) r = mode === 0 || away ? Infinity : fmt.maxFinite;
  return neg ? -r : r;
}

/**
 * Rounds `s + e` to f32 in direction `mode`. Fast path: round-to-nearest of an exact `s`
 * (`e === 0`) is `Math.fround`.
 */
export function roundF32(s: number, e: number, mode: RoundMode): number {
  if (mode === 0 && e === 0) return Math.fround(s);
  return roundToFormat(s, e, mode, FMT_F32);
}

/**
 * Result of an f64 operation whose exact value overflows the double range, in direction `mode`
 * (IEEE 754 §7.4): infinity of the sign, or the largest finite double when rounding toward zero
 * or away from that infinity.
 */
export function overflowF64(neg: boolean, mode: RoundMode): number {
  if (mode === 0) return neg ? -Infinity : Infinity;
  if (mode === 1) return neg ? -F64_MAX : F64_MAX;
  if (mode === 3) return neg ? -F64_MAX : Infinity;
  return neg ? -Infinity : F64_MAX;
}

/**
 * Rounds `s + e` to f64, where `s` = RN(exact) is already a double: for `Rn` the result is `s`;
 * for the directed modes `s` moves one ulp when the remainder `e` points past it.
 */
export function roundF64(s: number, e: number, mode: RoundMode): number {
  if (mode === 0 || e === 0) return s;
  if (mode === 3) return e > 0 ? nextUpF64(s) : s;
  if (mode === 2) return e < 0 ? nextDownF64(s) : s;
  // toward zero: move toward zero when the remainder points toward zero
  if (s > 0 && e < 0) return nextDownF64(s);
  if (s < 0 && e > 0) return nextUpF64(s);
  return s;
}
