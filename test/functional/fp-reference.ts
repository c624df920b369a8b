/**
 * Test-only reference for correctly rounded floating point, formulated independently of
 * `src/functional/ops`: values are exact rationals (BigInt numerator/denominator) and rounding
 * finds the two neighbouring representable values by binary search over the bit patterns of
 * the format (positive patterns are ordered like their values), then picks per IEEE 754 rules.
 */

export interface Rat {
  n: bigint; // numerator (sign carried here)
  d: bigint; // denominator > 0
}

const buf = new ArrayBuffer(8);
const f64 = new Float64Array(buf);
const u64 = new BigUint64Array(buf);
const f32 = new Float32Array(buf);
const u32 = new Uint32Array(buf);

export function ratOfDouble(x: number): Rat {
  f64[0] = x;
  const bits = u64[0]!;
  const neg = bits >> 63n === 1n;
  const e = Number((bits >> 52n) & 0x7ffn);
  const frac = bits & ((1n << 52n) - 1n);
  const mant = e === 0 ? frac : frac | (1n << 52n);
  const exp = (e === 0 ? 1 : e) - 1075;
  let n = neg ? -mant : mant;
  let d = 1n;
  if (exp >= 0) n <<= BigInt(exp);
  else d <<= BigInt(-exp);
  return { n, d };
}

export const add = (a: Rat, b: Rat): Rat => ({ n: a.n * b.d + b.n * a.d, d: a.d * b.d });
export const mul = (a: Rat, b: Rat): Rat => ({ n: a.n * b.n, d: a.d * b.d });
export const div = (a: Rat, b: Rat): Rat =>
  b.n < 0n ? { n: -a.n * b.d, d: a.d * -b.n } : { n: a.n * b.d, d: a.d * b.n };
export const ratOfInt = (v: bigint): Rat => ({ n: v, d: 1n });

/** Compares a and b: -1, 0, 1. */
export function cmp(a: Rat, b: Rat): number {
  const l = a.n * b.d;
  const r = b.n * a.d;
  return l < r ? -1 : l > r ? 1 : 0;
}

interface Fmt {
  /** value (as Rat, positive) of a non-negative bit pattern; `null` for the infinity pattern */
  value(bits: bigint): Rat | null;
  maxBits: bigint; // pattern of the largest finite value
  toNumber(bits: bigint, neg: boolean): number;
}

export const F32: Fmt = {
  value(bits) {
    if (bits >= 0x7f800000n) return null;
    u32[0] = Number(bits);
    return ratOfDouble(f32[0]!);
  },
  maxBits: 0x7f7fffffn,
  toNumber(bits, neg) {
    u32[0] = Number(bits);
    const v = f32[0]!;
    return neg ? -v : v;
  },
};

export const F64: Fmt = {
  value(bits) {
    if (bits >= 0x7ff0000000000000n) return null;
    u64[0] = bits;
    return ratOfDouble(f64[0]!);
  },
  maxBits: 0x7fefffffffffffffn,
  toNumber(bits, neg) {
    u64[0] = bits;
    const v = f64[0]!;
    return neg ? -v : v;
  },
};

export const F16: Fmt = {
  value(bits) {
    if (bits >= 0x7c00n) return null;
    const b = Number(bits);
    const e = b >> 10;
    const f = b & 0x3ff;
    return e === 0
      ? { n: BigInt(f), d: 1n << 24n }
      : { n: BigInt(f | 0x400) << BigInt(Math.max(0, e - 25)), d: 1n << BigInt(Math.max(0, 25 - e)) };
  },
  maxBits: 0x7bffn,
  toNumber(bits, neg) {
    const r = F16.value(bits);
    const v = r === null ? Infinity : Number(r.n) / Number(r.d);
    return neg ? -v : v;
  },
};

/** Mode: 0 nearest-even, 1 toward zero, 2 toward -inf, 3 toward +inf. */
export type Mode = 0 | 1 | 2 | 3;

/**
 * Rounds a rational to the format. `sqrtOf` switches to rounding sqrt(q) (q >= 0), comparing
 * squares instead of values. Returns the number (as the format's value), with a zero keeping
 * `zeroNeg` as sign.
 */
export function roundRat(q: Rat, mode: Mode, fmt: Fmt, zeroNeg = false, sqrtOf = false): number {
  const neg = q.n < 0n;
  const mag: Rat = { n: neg ? -q.n : q.n, d: q.d };
  if (mag.n === 0n) return zeroNeg ? -0 : 0;
  // compare candidate value v against the target
  const cmpT = (v: Rat): number => (sqrtOf ? cmp(mul(v, v), mag) : cmp(v, mag));
  // largest pattern whose value <= target
  let lo = 0n;
  let hi = fmt.maxBits;
  if (cmpT(fmt.value(hi)!) <= 0) lo = hi;
  else {
    while (hi - lo > 1n) {
      const mid = (lo + hi) >> 1n;
      if (cmpT(fmt.value(mid)!) <= 0) lo = mid;
      else hi = mid;
    }
  }
  const below = lo;
  const belowVal = fmt.value(below)!;
  if (cmpT(belowVal) === 0) return fmt.toNumber(below, neg);
  const above = below + 1n; // may be the infinity pattern
  const away = (mode === 3 && !neg) || (mode === 2 && neg);
  let pick: bigint;
  if (mode === 0) {
    // midpoint of below and above; for above = inf, the midpoint is max + ulp/2
    let aboveVal = fmt.value(above);
    if (aboveVal === null) {
      const prev = fmt.value(below - 1n)!;
      aboveVal = add(belowVal, add(belowVal, { n: -prev.n, d: prev.d }));
    }
    const midV: Rat = { n: belowVal.n * aboveVal.d + aboveVal.n * belowVal.d, d: 2n * belowVal.d * aboveVal.d };
    const c = cmpT(midV);
    if (c > 0) pick = below;
    else if (c < 0) pick = above;
    else pick = below % 2n === 0n ? below : above;
  } else pick = away ? above : below;
  if (fmt.value(pick) === null) return neg ? -Infinity : Infinity;
  return fmt.toNumber(pick, neg);
}
