/**
 * IEEE-754 arithmetic the host references need to match a GPU bit for bit: fused multiply-add
 * in binary32 and binary64 with one rounding (PTX `fma.rn.f32` / `fma.rn.f64`, PTX ISA §9.7.3
 * floating-point `fma`; IEEE 754-2008 §5.4.1 fusedMultiplyAdd), and distances in units in the last place (ULP).
 *
 * Plain binary32 `+ - * /` and `sqrt` are `Math.fround` of the binary64 result: binary64 has
 * more than 2 * 24 + 2 significand bits, so rounding twice gives the correctly rounded binary32
 * result for those operations (Figueroa's double-rounding condition). A fused multiply-add has
 * three operands and no such guarantee, hence the functions here.
 */

const f32Buf = new Float32Array(1);
const u32OfF32 = new Uint32Array(f32Buf.buffer);
const f64Buf = new Float64Array(1);
const u64OfF64 = new BigUint64Array(f64Buf.buffer);

/** Raw bits of a binary32 value (after `Math.fround`). */
export function f32Bits(x: number): number {
  f32Buf[0] = x;
  return u32OfF32[0]!;
}

/** Raw bits of a binary64 value. */
export function f64Bits(x: number): bigint {
  f64Buf[0] = x;
  return u64OfF64[0]!;
}

/** The binary32 value with the given raw bits (`bits` taken modulo 2^32). */
export function f32FromBits(bits: number): number {
  u32OfF32[0] = bits >>> 0;
  return f32Buf[0]!;
}

/** The binary64 value with the given raw bits (`bits` taken modulo 2^64). */
export function f64FromBits(bits: bigint): number {
  u64OfF64[0] = BigInt.asUintN(64, bits);
  return f64Buf[0]!;
}

/**
 * The next binary32 value above `x` (toward +Infinity); `x` must be a binary32 value. NaN and
 * +Infinity map to themselves, -0 and +0 to the smallest positive subnormal.
 */
export function nextUpF32(x: number): number {
  if (Number.isNaN(x) || x === Infinity) return x;
  if (x === 0) return f32FromBits(1);
  const bits = f32Bits(x);
  return f32FromBits(x > 0 ? bits + 1 : bits - 1);
}

/** The next binary32 value below `x` (toward -Infinity); see {@link nextUpF32}. */
export function nextDownF32(x: number): number {
  return -nextUpF32(-x);
}

/** A finite non-zero binary64 value as `mag * 2^exp` with `mag` a positive integer. */
interface ExactParts {
  neg: boolean;
  mag: bigint;
  exp: number;
}

function decompose(x: number): ExactParts {
  const bits = f64Bits(x);
  const neg = bits >> 63n === 1n;
  const biased = Number((bits >> 52n) & 0x7ffn);
  const frac = bits & 0xf_ffff_ffff_ffffn;
  if (biased === 0) return { neg, mag: frac, exp: -1074 };
  return { neg, mag: frac | 0x10_0000_0000_0000n, exp: biased - 1075 };
}

function isNegative(x: number): boolean {
  return x < 0 || Object.is(x, -0);
}

function bitLength(n: bigint): number {
  return n.toString(2).length;
}

/**
 * Rounds `(-1)^neg * mag * 2^exp` (mag > 0) to nearest, ties to even, in a binary format with
 * `precision` significand bits, least significant subnormal bit 2^`minLsbExp` and largest finite
 * value `maxFinite`; returns the result as a JS number (exact for binary32 and binary64).
 */
function roundExact(neg: boolean, mag: bigint, exp: number, precision: number, minLsbExp: number, maxFinite: number): number {
  const msbExp = exp + bitLength(mag) - 1;
  const lsbExp = Math.max(msbExp - (precision - 1), minLsbExp);
  let sig: bigint;
  let sigExp: number;
  if (lsbExp <= exp) {
    sig = mag;
    sigExp = exp;
  } else {
    const shift = BigInt(lsbExp - exp);
    sig = mag >> shift;
    const rem = mag - (sig << shift);
    const half = 1n << (shift - 1n);
    if (rem > half || (rem === half && (sig & 1n) === 1n)) sig += 1n;
    sigExp = lsbExp;
  }
  // sig has at most precision + 1 bits (after a carry), so Number(sig) is exact; 2^sigExp is a
  // power of two within binary64's range or it overflows to Infinity, which is then correct.
  let value = Number(sig) * 2 ** sigExp;
  if (value > maxFinite) value = Infinity;
  return neg ? -value : value;
}

const F32_MAX = 3.4028234663852886e38;
const F64_MAX = Number.MAX_VALUE;

/**
 * `a * b + c` computed exactly and rounded once to the format (to nearest, ties to even).
 * NaN and infinite operands follow IEEE-754 (an infinite `c` with finite `a * b` gives `c`).
 */
function fmaExact(a: number, b: number, c: number, precision: number, minLsbExp: number, maxFinite: number): number {
  if (!Number.isFinite(a) || !Number.isFinite(b)) return a * b + c;
  if (!Number.isFinite(c)) return c;
  const productIsZero = a === 0 || b === 0;
  if (productIsZero && c === 0) {
    // Exact zero: -0 only when both addends are -0 (round to nearest).
    const productNeg = isNegative(a) !== isNegative(b);
    return productNeg && isNegative(c) ? -0 : 0;
  }
  // Signed exact integers scaled to a common exponent.
  let pMag = 0n;
  let pExp = 0;
  let pNeg = false;
  if (!productIsZero) {
    const pa = decompose(a);
    const pb = decompose(b);
    pMag = pa.mag * pb.mag;
    pExp = pa.exp + pb.exp;
    pNeg = pa.neg !== pb.neg;
  }
  let cMag = 0n;
  let cExp = 0;
  let cNeg = false;
  if (c !== 0) {
    const pc = decompose(c);
    cMag = pc.mag;
    cExp = pc.exp;
    cNeg = pc.neg;
  }
  if (productIsZero) return roundExact(cNeg, cMag, cExp, precision, minLsbExp, maxFinite);
  if (c === 0) return roundExact(pNeg, pMag, pExp, precision, minLsbExp, maxFinite);
  const exp = Math.min(pExp, cExp);
  const pInt = (pNeg ? -pMag : pMag) << BigInt(pExp - exp);
  const cInt = (cNeg ? -cMag : cMag) << BigInt(cExp - exp);
  const sum = pInt + cInt;
  if (sum === 0n) return 0; // exact cancellation of non-zero terms gives +0
  return roundExact(sum < 0n, sum < 0n ? -sum : sum, exp, precision, minLsbExp, maxFinite);
}

/**
 * Binary32 fused multiply-add with a single rounding, as PTX `fma.rn.f32` without `.ftz`
 * (subnormals kept; PTX ISA §9.7.3, `fma`). Operands are first rounded to binary32.
 *
 * The product of two binary32 values is exact in binary64, so the only rounding error of
 * `p + c` in binary64 comes from the sum, and TwoSum recovers it exactly. Rounding the binary64
 * sum to binary32 is then correct unless the sum fell exactly on a binary32 midpoint while the
 * exact value did not (binary32 midpoints are binary64 values, so no midpoint lies strictly
 * between the two); there the sign of the error breaks the tie. Overflows take the bigint path.
 */
export function fmaF32(a: number, b: number, c: number): number {
  const fa = Math.fround(a);
  const fb = Math.fround(b);
  const fc = Math.fround(c);
  if (!Number.isFinite(fa) || !Number.isFinite(fb) || !Number.isFinite(fc)) {
    return Math.fround(fa * fb + fc); // IEEE-754 rules for NaN and infinities
  }
  const p = fa * fb; // exact: 48 significant bits, exponent well inside binary64's range
  const s = p + fc; // also exact when it is zero, with the IEEE sign of zero
  const bb = s - p;
  const err = p - (s - bb) + (fc - bb); // TwoSum: p + fc = s + err exactly
  const r = Math.fround(s);
  if (err === 0 || r === s) return r;
  if (!Number.isFinite(r)) return Math.fround(fmaExact(fa, fb, fc, 24, -149, F32_MAX));
  const other = r > s ? nextDownF32(r) : nextUpF32(r);
  if ((r + other) / 2 !== s) return r;
  // s is exactly halfway between r and other; the exact value lies on the side of err.
  const upper = r > other ? r : other;
  const lower = r > other ? other : r;
  return err > 0 ? upper : lower;
}

/**
 * Binary64 fused multiply-add with a single rounding, as PTX `fma.rn.f64` (PTX ISA §9.7.3, `fma`)
 * and C `fma()`. Computed exactly with bigints, then rounded to nearest even.
 */
export function fmaF64(a: number, b: number, c: number): number {
  return fmaExact(a, b, c, 53, -1074, F64_MAX);
}

/**
 * Reference (slow, always exact) binary32 fused multiply-add, for testing {@link fmaF32}.
 */
export function fmaF32Exact(a: number, b: number, c: number): number {
  return fmaExact(Math.fround(a), Math.fround(b), Math.fround(c), 24, -149, F32_MAX);
}

/**
 * Distance in binary32 ULPs between two binary32 values: the number of representable values
 * stepped over going from one to the other, with +0 and -0 equal. Two NaNs are at distance 0, a
 * NaN and a number at Infinity.
 */
export function ulpDistanceF32(x: number, y: number): number {
  const xn = Number.isNaN(x);
  const yn = Number.isNaN(y);
  if (xn || yn) return xn && yn ? 0 : Infinity;
  return Math.abs(orderedF32(x) - orderedF32(y));
}

/** Distance in binary64 ULPs; same conventions as {@link ulpDistanceF32}. */
export function ulpDistanceF64(x: number, y: number): number {
  const xn = Number.isNaN(x);
  const yn = Number.isNaN(y);
  if (xn || yn) return xn && yn ? 0 : Infinity;
  const d = orderedF64(x) - orderedF64(y);
  return Number(d < 0n ? -d : d);
}

function orderedF32(x: number): number {
  const bits = f32Bits(x);
  return bits >= 0x8000_0000 ? -(bits - 0x8000_0000) : bits;
}

function orderedF64(x: number): bigint {
  const bits = f64Bits(x);
  return bits >= 0x8000_0000_0000_0000n ? -(bits - 0x8000_0000_0000_0000n) : bits;
}
