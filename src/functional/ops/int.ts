/**
 * Scalar semantics of the PTX integer instructions (PTX ISA 8.x/9.0 §9.7.1 "Integer Arithmetic
 * Instructions", §9.7.2 "Extended-Precision Integer Arithmetic", §9.7.8 "Logic and Shift").
 *
 * Representation (the contract of every function in `src/functional/ops/`):
 * - Integers of 8, 16 and 32 bits are JS `number`s holding the value the PTX type denotes:
 *   unsigned types as `0 .. 2^n-1`, signed types as `-2^(n-1) .. 2^(n-1)-1`, bit-size types
 *   (`.bN`) as unsigned. Inputs may be any integer-valued number (they are reduced modulo 2^n on
 *   entry, so a signed input to an unsigned operation is fine); outputs are always canonical.
 * - 64-bit integers are `bigint`s, canonical the same way (`0 .. 2^64-1` or `-2^63 .. 2^63-1`).
 *   V8 compiles `BigInt.asUintN(64, a + b)` on values read from a `BigUint64Array` to native
 *   64-bit arithmetic (measured here: 4-6 ns per add/mul, the same as a float add), so the
 *   executor uses the same representation in its register file.
 * - `bits` parameters are the operation width (8, 16, 32); `signed` selects the `.sN` type.
 *
 * Division by zero is unspecified in PTX; warpstate defines it the way NVIDIA hardware's integer
 * division sequences behave: the quotient is all ones (`2^n-1` unsigned, `-1` signed) and the
 * remainder is the dividend. Signed overflow `MIN / -1` wraps to `MIN` with remainder 0.
 * Division truncates toward zero and the remainder has the sign of the dividend (C semantics,
 * PTX ISA §9.7.1.8-9).
 */

/** Width of a `number`-represented PTX integer. */
export type IntBits = 8 | 16 | 32;

const TWO32 = 4294967296;
const TWO16 = 65536;

/**
 * Reduces an integer-valued number modulo 2^bits into the canonical range of the type.
 * @param v any integer-valued finite number (exact reduction for |v| < 2^53 and for every
 *   integral double, since ToInt32 is exact).
 */
export function wrapInt(v: number, bits: IntBits, signed: boolean): number {
  switch (bits) {
    case 32:
      return signed ? v | 0 : v >>> 0;
    case 16:
      return signed ? (v << 16) >> 16 : v & 0xffff;
    default:
      return signed ? (v << 24) >> 24 : v & 0xff;
  }
}

/** Reduces a bigint modulo 2^64 into the canonical range of `.u64`/`.b64` or `.s64`. */
export function wrap64(v: bigint, signed: boolean): bigint {
  return signed ? BigInt.asIntN(64, v) : BigInt.asUintN(64, v);
}

/** Smallest value of an integer type of `bits` width. */
export function intMin(bits: IntBits, signed: boolean): number {
  return signed ? -(2 ** (bits - 1)) : 0;
}

/** Largest value of an integer type of `bits` width. */
export function intMax(bits: IntBits, signed: boolean): number {
  return signed ? 2 ** (bits - 1) - 1 : 2 ** bits - 1;
}

const S64_MIN = -(1n << 63n);
const S64_MAX = (1n << 63n) - 1n;
const U64_MAX = (1n << 64n) - 1n;

// ---------------------------------------------------------------------------------------------
// add / sub / abs / neg / min / max
// ---------------------------------------------------------------------------------------------

/** `add.{u,s}{8,16,32}`: wrapping sum (PTX ISA §9.7.1.1). */
export function add(a: number, b: number, bits: IntBits, signed: boolean): number {
  return wrapInt(a + b, bits, signed);
}

/** `sub.{u,s}{16,32}`: wrapping difference (PTX ISA §9.7.1.2). */
export function sub(a: number, b: number, bits: IntBits, signed: boolean): number {
  return wrapInt(a - b, bits, signed);
}

/** `add.sat.s32`: sum clamped to `[-2^31, 2^31-1]` (PTX ISA §9.7.1.1). Inputs are s32 values. */
export function addSatS32(a: number, b: number): number {
  const s = (a | 0) + (b | 0);
  return s > 2147483647 ? 2147483647 : s < -2147483648 ? -2147483648 : s;
}

/** `sub.sat.s32`: difference clamped to the s32 range (PTX ISA §9.7.1.2). */
export function subSatS32(a: number, b: number): number {
  const s = (a | 0) - (b | 0);
  return s > 2147483647 ? 2147483647 : s < -2147483648 ? -2147483648 : s;
}

/** `add.{u,s,b}64`: wrapping 64-bit sum. */
export function add64(a: bigint, b: bigint, signed: boolean): bigint {
  return wrap64(a + b, signed);
}

/** `sub.{u,s,b}64`: wrapping 64-bit difference. */
export function sub64(a: bigint, b: bigint, signed: boolean): bigint {
  return wrap64(a - b, signed);
}

/**
 * Carry-out of `add.cc`/`addc.cc` on 32 bits: 1 when `a + b + carryIn` (unsigned) exceeds
 * 2^32-1 (PTX ISA §9.7.2.1-2). `carryIn` is 0 or 1.
 */
export function addCarryOut32(a: number, b: number, carryIn: number): number {
  return (a >>> 0) + (b >>> 0) + carryIn > 4294967295 ? 1 : 0;
}

/**
 * Borrow flag after `sub.cc`/`subc.cc` on 32 bits: PTX defines `subc` as `a - (b + CC.CF)` and
 * the flag written by `.cc` as the borrow-out, i.e. 1 when `a < b + borrowIn` as unsigned
 * numbers (PTX ISA §9.7.2.3-4). `borrowIn` is the flag read by `subc` (0 for plain `sub.cc`).
 */
export function subBorrowOut32(a: number, b: number, borrowIn: number): number {
  return (a >>> 0) < (b >>> 0) + borrowIn ? 1 : 0;
}

/** 64-bit {@link addCarryOut32}. */
export function addCarryOut64(a: bigint, b: bigint, carryIn: number): number {
  return BigInt.asUintN(64, a) + BigInt.asUintN(64, b) + BigInt(carryIn) > U64_MAX ? 1 : 0;
}

/** 64-bit {@link subBorrowOut32}. */
export function subBorrowOut64(a: bigint, b: bigint, borrowIn: number): number {
  return BigInt.asUintN(64, a) < BigInt.asUintN(64, b) + BigInt(borrowIn) ? 1 : 0;
}

/** `abs.s{16,32}`: absolute value; `abs(MIN) = MIN` (wraps, PTX ISA §9.7.1.10). */
export function abs(a: number, bits: IntBits): number {
  const v = wrapInt(a, bits, true);
  return wrapInt(v < 0 ? -v : v, bits, true);
}

/** `abs.s64`. */
export function abs64(a: bigint): bigint {
  const v = BigInt.asIntN(64, a);
  return BigInt.asIntN(64, v < 0n ? -v : v);
}

/** `neg.s{16,32}`: two's-complement negation, wrapping (PTX ISA §9.7.1.11). */
export function neg(a: number, bits: IntBits): number {
  return wrapInt(-a, bits, true);
}

/** `neg.s64`. */
export function neg64(a: bigint): bigint {
  return BigInt.asIntN(64, -a);
}

/** `min.{u,s}{16,32}` (PTX ISA §9.7.1.12). */
export function min(a: number, b: number, bits: IntBits, signed: boolean): number {
  const x = wrapInt(a, bits, signed);
  const y = wrapInt(b, bits, signed);
  return x < y ? x : y;
}

/** `max.{u,s}{16,32}` (PTX ISA §9.7.1.13). */
export function max(a: number, b: number, bits: IntBits, signed: boolean): number {
  const x = wrapInt(a, bits, signed);
  const y = wrapInt(b, bits, signed);
  return x > y ? x : y;
}

/** `min.{u,s}64`. */
export function min64(a: bigint, b: bigint, signed: boolean): bigint {
  const x = wrap64(a, signed);
  const y = wrap64(b, signed);
  return x < y ? x : y;
}

/** `max.{u,s}64`. */
export function max64(a: bigint, b: bigint, signed: boolean): bigint {
  const x = wrap64(a, signed);
  const y = wrap64(b, signed);
  return x > y ? x : y;
}

// ---------------------------------------------------------------------------------------------
// mul / mad / mul24 / mad24
// ---------------------------------------------------------------------------------------------

/** `mul.lo.{u,s}{16,32}`: low `bits` bits of the product (PTX ISA §9.7.1.3). */
export function mulLo(a: number, b: number, bits: IntBits, signed: boolean): number {
  return wrapInt(Math.imul(a, b), bits, signed);
}

/**
 * High 32 bits of the unsigned 64-bit product of two u32 values, computed exactly with 16-bit
 * limbs (every partial sum stays below 2^53).
 */
export function umulHi32(a: number, b: number): number {
  const x = a >>> 0;
  const y = b >>> 0;
  const xh = x >>> 16;
  const xl = x & 0xffff;
  const yh = y >>> 16;
  const yl = y & 0xffff;
  const mid = xh * yl + xl * yh; // < 2^33
  const low = xl * yl; // < 2^32
  return (xh * yh + Math.floor((mid * TWO16 + low) / TWO32)) >>> 0;
}

/**
 * High 32 bits of the signed 64-bit product of two s32 values, from the unsigned high half with
 * the usual correction `hi_s = hi_u - (a<0 ? b : 0) - (b<0 ? a : 0) (mod 2^32)`.
 */
export function smulHi32(a: number, b: number): number {
  let h = umulHi32(a, b);
  if ((a | 0) < 0) h -= b >>> 0;
  if ((b | 0) < 0) h -= a >>> 0;
  return h | 0;
}

/** `mul.hi.{u,s}{16,32}`: high `bits` bits of the 2*bits-bit product (PTX ISA §9.7.1.3). */
export function mulHi(a: number, b: number, bits: IntBits, signed: boolean): number {
  if (bits === 32) return signed ? smulHi32(a, b) : umulHi32(a, b);
  const x = wrapInt(a, bits, signed);
  const y = wrapInt(b, bits, signed);
  // The full product of two 16-bit (or 8-bit) values is exact in a double.
  return wrapInt(Math.floor((x * y) / 2 ** bits), bits, signed);
}

/**
 * `mul.wide.{u,s}16`: the full 32-bit product of two 16-bit values (PTX ISA §9.7.1.3), as a
 * 32-bit value of the same signedness.
 */
export function mulWide16(a: number, b: number, signed: boolean): number {
  return wrapInt(wrapInt(a, 16, signed) * wrapInt(b, 16, signed), 32, signed);
}

/** `mul.wide.{u,s}32`: the full 64-bit product of two 32-bit values, as a canonical bigint. */
export function mulWide32(a: number, b: number, signed: boolean): bigint {
  const x = wrapInt(a, 32, signed);
  const y = wrapInt(b, 32, signed);
  const p = x * y;
  // |p| < 2^53 is exact in a double; otherwise multiply as bigints.
  if (p > -9007199254740992 && p < 9007199254740992) return BigInt(p);
  return BigInt(x) * BigInt(y);
}

/** `mul.lo.{u,s}64`. */
export function mulLo64(a: bigint, b: bigint, signed: boolean): bigint {
  return wrap64(a * b, signed);
}

/** `mul.hi.{u,s}64`: high 64 bits of the 128-bit product. */
export function mulHi64(a: bigint, b: bigint, signed: boolean): bigint {
  const x = wrap64(a, signed);
  const y = wrap64(b, signed);
  return wrap64((x * y) >> 64n, signed);
}

/** `mad.lo.{u,s}{16,32}`: `(a*b).lo + c`, wrapping (PTX ISA §9.7.1.4). */
export function madLo(a: number, b: number, c: number, bits: IntBits, signed: boolean): number {
  return wrapInt(Math.imul(a, b) + (c | 0), bits, signed);
}

/**
 * `mad.hi{.sat}.{u,s}{16,32}`: `(a*b).hi + c`, wrapping; `.sat` (only `.s32`) clamps the sum to
 * the s32 range (PTX ISA §9.7.1.4).
 */
export function madHi(
  a: number,
  b: number,
  c: number,
  bits: IntBits,
  signed: boolean,
  sat: boolean,
): number {
  const h = mulHi(a, b, bits, signed);
  if (sat && signed && bits === 32) return addSatS32(h, c);
  return wrapInt(h + wrapInt(c, bits, signed), bits, signed);
}

/** `mad.wide.{u,s}16`: 32-bit product plus a 32-bit `c`, wrapping to 32 bits. */
export function madWide16(a: number, b: number, c: number, signed: boolean): number {
  return wrapInt(mulWide16(a, b, signed) + wrapInt(c, 32, signed), 32, signed);
}

/** `mad.wide.{u,s}32`: 64-bit product plus a 64-bit `c`, wrapping to 64 bits. */
export function madWide32(a: number, b: number, c: bigint, signed: boolean): bigint {
  return wrap64(mulWide32(a, b, signed) + c, signed);
}

/** `mad.lo.{u,s}64`. */
export function madLo64(a: bigint, b: bigint, c: bigint, signed: boolean): bigint {
  return wrap64(a * b + c, signed);
}

/** `mad.hi.{u,s}64`. */
export function madHi64(a: bigint, b: bigint, c: bigint, signed: boolean): bigint {
  return wrap64(mulHi64(a, b, signed) + c, signed);
}

/** Sign-extends (signed) or zero-extends bits 23..0 of a 32-bit value. */
function low24(a: number, signed: boolean): number {
  return signed ? (a << 8) >> 8 : a & 0xffffff;
}

/**
 * `mul24.{lo,hi}.{u,s}32`: product of the low 24 bits of `a` and `b` (sign-extended from bit 23
 * for `.s32`): `.lo` returns bits 31..0 of the 48-bit product, `.hi` bits 47..16
 * (PTX ISA §9.7.1.5).
 */
export function mul24(a: number, b: number, hi: boolean, signed: boolean): number {
  const p = low24(a, signed) * low24(b, signed); // |p| <= 2^47: exact
  if (!hi) return wrapInt(p, 32, signed);
  return wrapInt(Math.floor(p / TWO16), 32, signed);
}

/**
 * `mad24.{lo,hi}{.sat}.{u,s}32`: {@link mul24} plus `c`; `.sat` (`.hi.s32` only) clamps to the
 * s32 range (PTX ISA §9.7.1.6).
 */
export function mad24(
  a: number,
  b: number,
  c: number,
  hi: boolean,
  signed: boolean,
  sat: boolean,
): number {
  const m = mul24(a, b, hi, signed);
  if (sat && signed) return addSatS32(m, c);
  return wrapInt(m + wrapInt(c, 32, signed), 32, signed);
}

// ---------------------------------------------------------------------------------------------
// div / rem
// ---------------------------------------------------------------------------------------------

/**
 * `div.{u,s}{16,32}`: quotient truncated toward zero (PTX ISA §9.7.1.8). Division by zero gives
 * all ones (`2^bits-1` unsigned, `-1` signed); `MIN / -1` wraps to `MIN`.
 *
 * `Math.trunc(x / y)` is exact here: for |x|, |y| < 2^32 a non-integral quotient lies at least
 * 1/|y| from the nearest integer, a relative distance >= 2^-32, far above the double rounding
 * error 2^-53, so rounding never crosses an integer.
 */
export function div(a: number, b: number, bits: IntBits, signed: boolean): number {
  const x = wrapInt(a, bits, signed);
  const y = wrapInt(b, bits, signed);
  if (y === 0) return signed ? -1 : intMax(bits, false);
  return wrapInt(Math.trunc(x / y), bits, signed);
}

/**
 * `rem.{u,s}{16,32}`: remainder with the sign of the dividend (PTX ISA §9.7.1.9); remainder by
 * zero is the dividend.
 */
export function rem(a: number, b: number, bits: IntBits, signed: boolean): number {
  const x = wrapInt(a, bits, signed);
  const y = wrapInt(b, bits, signed);
  if (y === 0) return x;
  return wrapInt(x % y, bits, signed); // JS % on integers is exact and truncating
}

/** `div.{u,s}64`: see {@link div}; division by zero gives all ones. */
export function div64(a: bigint, b: bigint, signed: boolean): bigint {
  const x = wrap64(a, signed);
  const y = wrap64(b, signed);
  if (y === 0n) return signed ? -1n : U64_MAX;
  return wrap64(x / y, signed); // bigint division truncates toward zero
}

/** `rem.{u,s}64`: see {@link rem}. */
export function rem64(a: bigint, b: bigint, signed: boolean): bigint {
  const x = wrap64(a, signed);
  const y = wrap64(b, signed);
  if (y === 0n) return x;
  return wrap64(x % y, signed);
}

// ---------------------------------------------------------------------------------------------
// logic and shifts
// ---------------------------------------------------------------------------------------------

/** `and.b{16,32}` (result unsigned). */
export function and(a: number, b: number, bits: IntBits): number {
  return wrapInt(a & b, bits, false);
}

/** `or.b{16,32}`. */
export function or(a: number, b: number, bits: IntBits): number {
  return wrapInt(a | b, bits, false);
}

/** `xor.b{16,32}`. */
export function xor(a: number, b: number, bits: IntBits): number {
  return wrapInt(a ^ b, bits, false);
}

/** `not.b{16,32}`: one's complement. */
export function not(a: number, bits: IntBits): number {
  return wrapInt(~a, bits, false);
}

/** `cnot.b{16,32,64}`: 1 if `a` is zero, else 0 (PTX ISA §9.7.8.5). */
export function cnot(a: number, bits: IntBits): number {
  return wrapInt(a, bits, false) === 0 ? 1 : 0;
}

/** `cnot.b64`. */
export function cnot64(a: bigint): bigint {
  return BigInt.asUintN(64, a) === 0n ? 1n : 0n;
}

/**
 * `shl.b{16,32}`: shift left; `s` is an unsigned 32-bit amount and amounts >= the width give 0
 * (PTX ISA §9.7.8.7: shift amounts greater than the register width are clamped to the width).
 */
export function shl(a: number, s: number, bits: IntBits): number {
  const n = s >>> 0;
  if (n >= bits) return 0;
  return wrapInt(a << n, bits, false);
}

/**
 * `shr.{b,u,s}{16,32}`: shift right; logical for `.b`/`.u`, arithmetic (sign fill) for `.s`.
 * Amounts >= the width give 0, or all sign bits for `.s` (PTX ISA §9.7.8.8).
 */
export function shr(a: number, s: number, bits: IntBits, signed: boolean): number {
  const n = s >>> 0;
  const v = wrapInt(a, bits, signed);
  if (signed) return n >= bits ? (v < 0 ? -1 : 0) : v >> n;
  if (n >= bits) return 0;
  return bits === 32 ? v >>> n : v >> n;
}

/** `shl.b64`: amounts >= 64 give 0. `s` is a u32. */
export function shl64(a: bigint, s: number): bigint {
  const n = s >>> 0;
  if (n >= 64) return 0n;
  return BigInt.asUintN(64, a << BigInt(n));
}

/** `shr.{b,u,s}64`: amounts >= 64 give 0 (or the sign fill for `.s64`). */
export function shr64(a: bigint, s: number, signed: boolean): bigint {
  const n = s >>> 0;
  const v = wrap64(a, signed);
  if (n >= 64) return signed && v < 0n ? -1n : 0n;
  return v >> BigInt(n); // bigint >> is arithmetic; v is non-negative when unsigned
}

// ---------------------------------------------------------------------------------------------
// bit-field and bit-count operations
// ---------------------------------------------------------------------------------------------

/**
 * `bfe.{u,s}32`: extract the bit field of `len` bits starting at `pos` (PTX ISA §9.7.1.17).
 * Only bits 7..0 of `pos` and `len` are used. Bits past bit 31 read as the fill bit: zero for
 * `.u32`, for `.s32` the field's top bit `a[min(pos+len-1, 31)]` (zero when `len` is 0).
 */
export function bfe32(a: number, pos: number, len: number, signed: boolean): number {
  const p = pos & 0xff;
  const l = len & 0xff;
  const x = a >>> 0;
  let sbit = 0;
  if (signed && l !== 0) sbit = (x >>> Math.min(p + l - 1, 31)) & 1;
  let d = 0;
  for (let i = 0; i < 32; i++) {
    const bit = i < l && p + i <= 31 ? (x >>> (p + i)) & 1 : sbit;
    d |= bit << i;
  }
  return signed ? d | 0 : d >>> 0;
}

/** `bfe.{u,s}64`: see {@link bfe32}; the most significant bit is 63. */
export function bfe64(a: bigint, pos: number, len: number, signed: boolean): bigint {
  const p = pos & 0xff;
  const l = len & 0xff;
  const x = BigInt.asUintN(64, a);
  let sbit = 0n;
  if (signed && l !== 0) sbit = (x >> BigInt(Math.min(p + l - 1, 63))) & 1n;
  let d = 0n;
  for (let i = 0; i < 64; i++) {
    const bit = i < l && p + i <= 63 ? (x >> BigInt(p + i)) & 1n : sbit;
    d |= bit << BigInt(i);
  }
  return signed ? BigInt.asIntN(64, d) : d;
}

/**
 * `bfi.b32 f, a, b, c, d`: copy `b`, then insert the low `len` bits of `a` at bit `pos`, bits
 * past 31 dropped (PTX ISA §9.7.1.18). Only bits 7..0 of `pos` and `len` are used.
 */
export function bfi32(a: number, b: number, pos: number, len: number): number {
  const p = pos & 0xff;
  const l = len & 0xff;
  let f = b >>> 0;
  for (let i = 0; i < l && p + i <= 31; i++) {
    const bit = (a >>> i) & 1;
    f = bit ? f | (1 << (p + i)) : f & ~(1 << (p + i));
  }
  return f >>> 0;
}

/** `bfi.b64`: see {@link bfi32}. */
export function bfi64(a: bigint, b: bigint, pos: number, len: number): bigint {
  const p = pos & 0xff;
  const l = len & 0xff;
  let f = BigInt.asUintN(64, b);
  const x = BigInt.asUintN(64, a);
  for (let i = 0; i < l && p + i <= 63; i++) {
    const m = 1n << BigInt(p + i);
    f = (x >> BigInt(i)) & 1n ? f | m : f & ~m;
  }
  return BigInt.asUintN(64, f);
}

/** `clz.b32`: number of leading zero bits (32 for 0). */
export function clz32(a: number): number {
  return Math.clz32(a);
}

/** `clz.b64`: number of leading zero bits (64 for 0), as a u32 number. */
export function clz64(a: bigint): number {
  const x = BigInt.asUintN(64, a);
  const hi = Number(x >> 32n);
  return hi !== 0 ? Math.clz32(hi) : 32 + Math.clz32(Number(x & 0xffffffffn));
}

/** `popc.b32`: number of one bits. */
export function popc32(a: number): number {
  let x = a >>> 0;
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
}

/** `popc.b64`: number of one bits, as a u32 number. */
export function popc64(a: bigint): number {
  const x = BigInt.asUintN(64, a);
  return popc32(Number(x >> 32n)) + popc32(Number(x & 0xffffffffn));
}

/** `brev.b32`: bit reversal. */
export function brev32(a: number): number {
  let x = a >>> 0;
  x = ((x >>> 1) & 0x55555555) | ((x & 0x55555555) << 1);
  x = ((x >>> 2) & 0x33333333) | ((x & 0x33333333) << 2);
  x = ((x >>> 4) & 0x0f0f0f0f) | ((x & 0x0f0f0f0f) << 4);
  x = ((x >>> 8) & 0x00ff00ff) | ((x & 0x00ff00ff) << 8);
  x = (x >>> 16) | (x << 16);
  return x >>> 0;
}

/** `brev.b64`: bit reversal. */
export function brev64(a: bigint): bigint {
  const x = BigInt.asUintN(64, a);
  const hi = brev32(Number(x >> 32n));
  const lo = brev32(Number(x & 0xffffffffn));
  return (BigInt(lo) << 32n) | BigInt(hi);
}

/**
 * `bfind{.shiftamt}.{u,s}32`: bit position of the most significant non-sign bit (the highest 1,
 * or for negative signed inputs the highest 0), or 0xffffffff when there is none; with
 * `.shiftamt` the left shift that moves that bit to bit 31 (PTX ISA §9.7.1.16).
 */
export function bfind32(a: number, signed: boolean, shiftAmt: boolean): number {
  let x = a >>> 0;
  if (signed && x & 0x80000000) x = ~x >>> 0;
  if (x === 0) return 0xffffffff;
  const pos = 31 - Math.clz32(x);
  return shiftAmt ? 31 - pos : pos;
}

/** `bfind{.shiftamt}.{u,s}64`: see {@link bfind32}; the most significant bit is 63. */
export function bfind64(a: bigint, signed: boolean, shiftAmt: boolean): number {
  let x = BigInt.asUintN(64, a);
  if (signed && x >> 63n) x = BigInt.asUintN(64, ~x);
  if (x === 0n) return 0xffffffff;
  const pos = 63 - clz64(x);
  return shiftAmt ? 63 - pos : pos;
}

/**
 * `shf.{l,r}.{clamp,wrap}.b32 d, a, b, c`: funnel shift of the 64-bit value `b:a` (b high) by
 * `n = clamp ? min(c, 32) : c & 31`; `.l` returns the high 32 bits of the left-shifted value,
 * `.r` the low 32 bits of the right-shifted value (PTX ISA §9.7.8.9).
 */
export function shf(a: number, b: number, c: number, right: boolean, clamp: boolean): number {
  const c32 = c >>> 0;
  const n = clamp ? (c32 > 32 ? 32 : c32) : c32 & 31;
  const lo = a >>> 0;
  const hi = b >>> 0;
  if (n === 0) return right ? lo : hi;
  if (n === 32) return right ? hi : lo;
  return right ? ((hi << (32 - n)) | (lo >>> n)) >>> 0 : ((hi << n) | (lo >>> (32 - n))) >>> 0;
}

/**
 * `bmsk.{clamp,wrap}.b32 d, a, b` (PTX ISA 9.0 §9.7.1.x `bmsk`, sm_70+): a mask of `b` one-bits
 * starting at bit `a`. Both operands are taken mod 32 (`.wrap`); with `.clamp` a position >= 32
 * gives 0 and a width >= 32 runs to bit 31. A width of 0 gives 0; a field that runs past bit 31
 * is cut there.
 * @param a bit position (u32). @param b width (u32). @returns the mask (u32).
 */
export function bmsk(a: number, b: number, clamp: boolean): number {
  const a32 = a >>> 0;
  const b32 = b >>> 0;
  const a1 = a32 & 31;
  const b1 = b32 & 31;
  if (clamp && a32 >= 32) return 0;
  const low = (0xffffffff << a1) >>> 0; // bits from a1 up
  // the bits from a1 + b1 up are cleared, unless the field reaches bit 31 (or clamps to it)
  if (a1 + b1 >= 32 || (clamp && b32 >= 32)) return low;
  if (b1 === 0) return 0;
  return (low & ~(0xffffffff << (a1 + b1))) >>> 0;
}

/**
 * Byte-index table of the `prmt` modes `.f4e .b4e .rc8 .ecl .ecr .rc16` (PTX ISA §9.7.9.7,
 * `prmt` Table "Permute selector"): row = mode - 1, then 4 entries per selector value
 * `c[1:0]` = 0..3, giving the source byte of d.b0, d.b1, d.b2, d.b3 in that order.
 */
const PRMT_TABLE = new Uint8Array([
  // f4e: forward 4 extract
  0, 1, 2, 3, 1, 2, 3, 4, 2, 3, 4, 5, 3, 4, 5, 6,
  // b4e: backward 4 extract
  0, 7, 6, 5, 1, 0, 7, 6, 2, 1, 0, 7, 3, 2, 1, 0,
  // rc8: replicate 8
  0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3,
  // ecl: edge clamp left
  0, 1, 2, 3, 1, 1, 2, 3, 2, 2, 2, 3, 3, 3, 3, 3,
  // ecr: edge clamp right
  0, 0, 0, 0, 0, 1, 1, 1, 0, 1, 2, 2, 0, 1, 2, 3,
  // rc16: replicate 16
  0, 1, 0, 1, 2, 3, 2, 3, 0, 1, 0, 1, 2, 3, 2, 3,
]);

/**
 * `prmt.b32{.mode} d, a, b, c`: byte permute of the 8 bytes `{b, a}` (a = bytes 0..3,
 * b = bytes 4..7) (PTX ISA §9.7.9.7).
 * - `mode` 0 (generic): each nibble `c[4i+3:4i]` selects the source byte of `d.b_i` with its 3
 *   low bits; when its bit 3 is set the selected byte's sign bit is replicated over the byte.
 * - `mode` 1..6 = `.f4e .b4e .rc8 .ecl .ecr .rc16`: `c[1:0]` selects a row of the fixed table.
 */
export function prmt(a: number, b: number, c: number, mode: number): number {
  const lo = a >>> 0;
  const hi = b >>> 0;
  let d = 0;
  if (mode === 0) {
    for (let i = 0; i < 4; i++) {
      const sel = (c >>> (4 * i)) & 0xf;
      const idx = sel & 7;
      let byte = idx < 4 ? (lo >>> (8 * idx)) & 0xff : (hi >>> (8 * (idx - 4))) & 0xff;
      if (sel & 8) byte = byte & 0x80 ? 0xff : 0;
      d |= byte << (8 * i);
    }
  } else {
    const row = (mode - 1) * 16 + (c & 3) * 4;
    for (let i = 0; i < 4; i++) {
      const idx = PRMT_TABLE[row + i]!;
      const byte = idx < 4 ? (lo >>> (8 * idx)) & 0xff : (hi >>> (8 * (idx - 4))) & 0xff;
      d |= byte << (8 * i);
    }
  }
  return d >>> 0;
}

export { S64_MIN, S64_MAX, U64_MAX };
