/**
 * Bit-level helpers for IEEE 754 binary16/32/64 values held in JS numbers: bit patterns,
 * neighbours (next up / next down), subnormal tests and flush-to-zero.
 *
 * Values of every float type are JS `number`s: an f32 is a double that `Math.fround` leaves
 * unchanged, an f16 a double exactly representable in binary16. NaN payloads are not kept
 * (every NaN result is the quiet NaN JS produces; stored through a `Float32Array` it reads back
 * as 0x7fc00000, where NVIDIA hardware writes the canonical 0x7fffffff).
 *
 * Source: IEEE 754-2019 §3.4 (binary interchange formats); PTX ISA §4.2.2 (floating-point
 * subnormal flushing with `.ftz`).
 */

const scratch = new ArrayBuffer(8);
const f64v = new Float64Array(scratch);
const f32v = new Float32Array(scratch);
const u32v = new Uint32Array(scratch);

// The word order of f64 halves below assumes a little-endian host, as every Node platform is.
if (new Uint8Array(new Uint32Array([1]).buffer)[0] !== 1) {
  throw new Error('warpstate requires a little-endian host');
}

/** Largest finite f32, (2 - 2^-23) * 2^127. */
export const F32_MAX = 3.4028234663852886e38;
/** Smallest positive normal f32, 2^-126. */
export const F32_MIN_NORMAL = 1.1754943508222875e-38;
/** Smallest positive subnormal f32, 2^-149. */
export const F32_MIN_SUBNORMAL = 1.401298464324817e-45;
/** Largest finite f64. */
export const F64_MAX = Number.MAX_VALUE;
/** Smallest positive normal f64, 2^-1022. */
export const F64_MIN_NORMAL = 2.2250738585072014e-308;
/** Largest finite f16, 65504. */
export const F16_MAX = 65504;

/** Bit pattern (u32) of the f32 nearest to `x` (exact when `x` is an f32). */
export function f32ToBits(x: number): number {
  f32v[0] = x;
  return u32v[0]!;
}

/** The f32 value of a 32-bit pattern, as a number. */
export function bitsToF32(bits: number): number {
  u32v[0] = bits;
  return f32v[0]!;
}

/** High 32 bits (u32) of the f64 pattern of `x`. */
export function f64HiBits(x: number): number {
  f64v[0] = x;
  return u32v[1]!;
}

/** Low 32 bits (u32) of the f64 pattern of `x`. */
export function f64LoBits(x: number): number {
  f64v[0] = x;
  return u32v[0]!;
}

/** The f64 with pattern `hi:lo` (two u32 halves). */
export function bitsToF64(lo: number, hi: number): number {
  u32v[0] = lo;
  u32v[1] = hi;
  return f64v[0]!;
}

/** The 64-bit pattern of `x` as an unsigned bigint. */
export function f64ToBigBits(x: number): bigint {
  f64v[0] = x;
  return (BigInt(u32v[1]!) << 32n) | BigInt(u32v[0]!);
}

/** The f64 with the 64-bit pattern `bits` (taken modulo 2^64). */
export function bigBitsToF64(bits: bigint): number {
  const b = BigInt.asUintN(64, bits);
  return bitsToF64(Number(b & 0xffffffffn), Number(b >> 32n));
}

/** Smallest f32 greater than `x` (an f32); NaN and +Inf are returned unchanged, -0 and +0 give 2^-149. */
export function nextUpF32(x: number): number {
  if (x !== x || x === Infinity) return x;
  if (x === 0) return F32_MIN_SUBNORMAL;
  const b = f32ToBits(x);
  return bitsToF32(x > 0 ? b + 1 : b - 1);
}

/** Largest f32 less than `x` (an f32); NaN and -Inf are returned unchanged. */
export function nextDownF32(x: number): number {
  return -nextUpF32(-x);
}

/** Smallest double greater than `x`; NaN and +Inf unchanged, zeros give 2^-1074. */
export function nextUpF64(x: number): number {
  if (x !== x || x === Infinity) return x;
  if (x === 0) return Number.MIN_VALUE;
  f64v[0] = x;
  let lo = u32v[0]!;
  let hi = u32v[1]!;
  if (x > 0) {
    if (lo === 0xffffffff) {
      lo = 0;
      hi = (hi + 1) >>> 0;
    } else lo += 1;
  } else if (lo === 0) {
    lo = 0xffffffff;
    hi = (hi - 1) >>> 0;
  } else lo -= 1;
  return bitsToF64(lo, hi);
}

/** Largest double less than `x`; NaN and -Inf unchanged. */
export function nextDownF64(x: number): number {
  return -nextUpF64(-x);
}

/** True when `x` (an f32) is subnormal: nonzero with magnitude below 2^-126. */
export function isSubnormalF32(x: number): boolean {
  return x !== 0 && x < F32_MIN_NORMAL && x > -F32_MIN_NORMAL;
}

/** True when `x` is a subnormal double. */
export function isSubnormalF64(x: number): boolean {
  return x !== 0 && x < F64_MIN_NORMAL && x > -F64_MIN_NORMAL;
}

/** `.ftz` on an f32 operand or result: subnormals become zero of the same sign (PTX ISA §4.2.2). */
export function ftzF32(x: number): number {
  if (x !== 0 && x < F32_MIN_NORMAL && x > -F32_MIN_NORMAL) return x < 0 ? -0 : 0;
  return x;
}

/** True for -0 (and for no other value). */
export function isNegZero(x: number): boolean {
  return x === 0 && 1 / x < 0;
}

/** True when the sign bit of `x` is set (negative values, -0, and NaNs with the sign bit). */
export function signBit(x: number): boolean {
  return x < 0 || (x === 0 && 1 / x < 0);
}

/** Unbiased binary exponent of a finite nonzero double: floor(log2(|x|)), exact, also for subnormals. */
export function exponentOf(x: number): number {
  f64v[0] = x;
  const be = (u32v[1]! >>> 20) & 0x7ff;
  if (be !== 0) return be - 1023;
  // Subnormal double: scale into the normal range first (exact).
  f64v[0] = x * 18014398509481984; // 2^54
  return ((u32v[1]! >>> 20) & 0x7ff) - 1023 - 54;
}

/**
 * Bit pattern (u16) of the binary16 value `x` (which must be exactly representable in
 * binary16, e.g. a result of `roundToFormat` with the f16 format; NaN gives 0x7e00).
 */
export function f16ToBits(x: number): number {
  if (x !== x) return 0x7e00;
  const sign = signBit(x) ? 0x8000 : 0;
  const m = Math.abs(x);
  if (m === Infinity) return sign | 0x7c00;
  if (m === 0) return sign;
  if (m < 6.103515625e-5) return sign | Math.round(m * 16777216); // subnormal: m / 2^-24
  const e = exponentOf(m);
  const frac = Math.round((m / 2 ** e - 1) * 1024);
  return sign | ((e + 15) << 10) | frac;
}

/** The binary16 value of a 16-bit pattern, as a number (NaN for NaN patterns). */
export function bitsToF16(bits: number): number {
  const b = bits & 0xffff;
  const sign = b & 0x8000 ? -1 : 1;
  const e = (b >>> 10) & 0x1f;
  const f = b & 0x3ff;
  if (e === 0x1f) return f === 0 ? sign * Infinity : NaN;
  if (e === 0) return sign * f * 5.960464477539063e-8; // f * 2^-24
  return sign * (1 + f / 1024) * 2 ** (e - 15);
}

/** Bit pattern (u16) of the bfloat16 value `x` (exactly representable in bfloat16; NaN gives 0x7fc0). */
export function bf16ToBits(x: number): number {
  if (x !== x) return 0x7fc0;
  return f32ToBits(x) >>> 16;
}

/** The bfloat16 value of a 16-bit pattern. */
export function bitsToBf16(bits: number): number {
  return bitsToF32((bits & 0xffff) << 16);
}
