import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import {
  f32Bits,
  f32FromBits,
  fmaF32,
  fmaF32Exact,
  fmaF64,
  nextDownF32,
  nextUpF32,
  ulpDistanceF32,
  ulpDistanceF64,
} from '../../src/scenario/references/float.ts';

const same = (x: number, y: number): boolean => Object.is(x, y) || (Number.isNaN(x) && Number.isNaN(y));

describe('fmaF32 (fma.rn.f32)', () => {
  it('rounds once where rounding through binary64 would round twice', () => {
    // a * b = 4097 * 16773121 * 2^-60 = (2^36 + 1) * 2^-60 = 2^-24 + 2^-60.
    // Exact a*b + 1 = 1 + 2^-24 + 2^-60: just above the midpoint between 1 and 1 + 2^-23, so
    // the single rounding gives 1 + 2^-23. Through binary64 the 2^-60 is lost first, the sum
    // lands exactly on the midpoint, and ties-to-even gives 1.
    const a = 4097 * 2 ** -30;
    const b = 16773121 * 2 ** -30;
    expect(Math.fround(a)).toBe(a);
    expect(Math.fround(b)).toBe(b);
    expect(Math.fround(a * b + 1)).toBe(1); // the naive result
    expect(fmaF32(a, b, 1)).toBe(1 + 2 ** -23);
    expect(fmaF32Exact(a, b, 1)).toBe(1 + 2 ** -23);
  });

  it('breaks a binary64 tie downward when the exact value is below the midpoint', () => {
    // (2^11 - 1)(2^22 + 2^11 + 1) = 2^33 - 1, scaled: a * b = 2^-24 - 2^-57.
    // c = 1 + 2^-23 (odd significand): exact sum is 1 + 2^-23 + 2^-24 - 2^-57, just below the
    // midpoint to 1 + 2^-22, so the answer is 1 + 2^-23; the binary64 sum is the midpoint and
    // ties-to-even would pick 1 + 2^-22.
    const a = 2047 * 2 ** -21;
    const b = (2 ** 22 + 2 ** 11 + 1) * 2 ** -36;
    expect(a * b).not.toBe(2 ** -24); // a*b alone is exact in binary64
    const c = 1 + 2 ** -23;
    expect(Math.fround(a * b + c)).toBe(1 + 2 ** -22);
    expect(fmaF32(a, b, c)).toBe(1 + 2 ** -23);
    expect(fmaF32Exact(a, b, c)).toBe(1 + 2 ** -23);
  });

  it('handles subnormal results, signed zeros and special values', () => {
    // 2^-75 * 2^-75 = 2^-150: exactly half the smallest subnormal, ties to even (0).
    expect(fmaF32(2 ** -75, 2 ** -75, 0)).toBe(0);
    // 2^-75 * 3 * 2^-76 = 0.75 * 2^-149: rounds up to 2^-149.
    expect(fmaF32(2 ** -75, 3 * 2 ** -76, 0)).toBe(2 ** -149);
    expect(Object.is(fmaF32(-0, 5, -0), -0)).toBe(true);
    expect(Object.is(fmaF32(0, 5, -0), 0)).toBe(true);
    expect(Object.is(fmaF32(2, 3, -6), 0)).toBe(true); // exact cancellation gives +0
    expect(fmaF32(Infinity, 0, 1)).toBeNaN();
    expect(fmaF32(2, 3, -Infinity)).toBe(-Infinity);
    // Overflow: (2^127)(2) + 0 = 2^128, past the largest binary32.
    expect(fmaF32(2 ** 127, 2, 0)).toBe(Infinity);
    // Just under the overflow threshold 2^128 - 2^103 the result is the largest finite value.
    const max = 3.4028234663852886e38;
    expect(fmaF32(max, 1, 2 ** 102)).toBe(max);
  });

  it('agrees with the bigint path on the constructed midpoint families', () => {
    for (let j = 8; j <= 12; j++) {
      // (2^j + 1)(2^2j - 2^j + 1) = 2^3j + 1 and (2^j - 1)(2^2j + 2^j + 1) = 2^3j - 1.
      const pairs: [number, number][] = [
        [2 ** j + 1, 2 ** (2 * j) - 2 ** j + 1],
        [2 ** j - 1, 2 ** (2 * j) + 2 ** j + 1],
      ];
      for (const [m1, m2] of pairs) {
        for (const e of [-24, -23, 0, 10]) {
          const a = m1 * 2 ** (e - 3 * j);
          const b = m2;
          for (const c of [1, 1 + 2 ** -23, -1, 2 ** (e + 24), -(2 ** (e + 23)) * 3]) {
            expect(fmaF32(a, b, c)).toBe(fmaF32Exact(a, b, c));
          }
        }
      }
    }
  });

  it('matches the exact bigint fma on random binary32 triples', () => {
    const scaled = fc
      .tuple(fc.integer({ min: 1, max: 2 ** 24 - 1 }), fc.integer({ min: -80, max: 80 }), fc.boolean())
      .map(([m, e, neg]) => Math.fround((neg ? -m : m) * 2 ** e));
    const f32 = fc.oneof(fc.float(), scaled);
    fc.assert(
      fc.property(f32, f32, f32, (a, b, c) => same(fmaF32(a, b, c), fmaF32Exact(a, b, c))),
      { numRuns: 3000 },
    );
  });

  it('equals fround(a*b + c) whenever that sum is exact in binary64', () => {
    const f32 = fc.float({ noNaN: true, noDefaultInfinity: true });
    fc.assert(
      fc.property(f32, f32, f32, (a, b, c) => {
        const p = a * b;
        const s = p + c;
        fc.pre(s - p === c && s - c === p); // no rounding in the binary64 sum
        return same(fmaF32Exact(a, b, c), Math.fround(s));
      }),
      { numRuns: 1000 },
    );
  });
});

/** Veltkamp split and Dekker's TwoProduct: a * b = hi + lo exactly (no fma used). */
function twoProduct(a: number, b: number): [number, number] {
  const split = (x: number): [number, number] => {
    const t = 134217729 * x; // 2^27 + 1
    const hi = t - (t - x);
    return [hi, x - hi];
  };
  const p = a * b;
  const [ah, al] = split(a);
  const [bh, bl] = split(b);
  const err = al * bl - (((p - ah * bh) - al * bh) - ah * bl);
  return [p, err];
}

describe('fmaF64 (fma.rn.f64)', () => {
  it('keeps the low bits of a product that a separate multiply loses', () => {
    // (1 + 2^-27)^2 - 1 = 2^-26 + 2^-54 exactly; a*b - 1 in binary64 gives 2^-26.
    const a = 1 + 2 ** -27;
    expect(a * a - 1).toBe(2 ** -26);
    expect(fmaF64(a, a, -1)).toBe(2 ** -26 + 2 ** -54);
  });

  it('recovers the exact product error, as Dekker TwoProduct does', () => {
    const moderate = fc.double({ min: -1e100, max: 1e100, noNaN: true }).filter((x) => x === 0 || Math.abs(x) > 1e-100);
    fc.assert(
      fc.property(moderate, moderate, (a, b) => {
        const [p, err] = twoProduct(a, b);
        return same(fmaF64(a, b, -p), err === 0 ? 0 : err);
      }),
      { numRuns: 2000 },
    );
  });

  it('equals a*b + c when the product is exact (binary32 factors)', () => {
    const f32 = fc.float({ noNaN: true, noDefaultInfinity: true });
    const f64 = fc.double({ noNaN: true, noDefaultInfinity: true });
    fc.assert(
      fc.property(f32, f32, f64, (a, b, c) => same(fmaF64(a, b, c), a * b + c)),
      { numRuns: 2000 },
    );
  });

  it('rounds subnormal results and propagates specials', () => {
    // 2^-537 * 2^-538 = 2^-1075: half the smallest subnormal, ties to even (0).
    expect(fmaF64(2 ** -537, 2 ** -538, 0)).toBe(0);
    // 3 * 2^-1076 = 0.75 * 2^-1074 rounds up to 2^-1074.
    expect(fmaF64(3 * 2 ** -538, 2 ** -538, 0)).toBe(2 ** -1074);
    expect(fmaF64(NaN, 1, 1)).toBeNaN();
    expect(fmaF64(1e300, 1e300, -Infinity)).toBe(-Infinity);
    expect(fmaF64(1e300, 1e300, 0)).toBe(Infinity);
  });
});

describe('ULP distances and neighbours', () => {
  it('counts representable values between two floats', () => {
    expect(ulpDistanceF32(1, 1 + 2 ** -23)).toBe(1);
    expect(ulpDistanceF32(1, 1 - 2 ** -24)).toBe(1);
    expect(ulpDistanceF32(2 ** -149, -(2 ** -149))).toBe(2);
    expect(ulpDistanceF32(0, -0)).toBe(0);
    expect(ulpDistanceF32(NaN, NaN)).toBe(0);
    expect(ulpDistanceF32(NaN, 1)).toBe(Infinity);
    expect(ulpDistanceF64(1, 1 + Number.EPSILON)).toBe(1);
    expect(ulpDistanceF64(-0, 5e-324)).toBe(1);
    expect(ulpDistanceF64(1, 2)).toBe(2 ** 52);
  });

  it('steps binary32 neighbours through zero and the binades', () => {
    expect(nextUpF32(1)).toBe(1 + 2 ** -23);
    expect(nextDownF32(1)).toBe(1 - 2 ** -24);
    expect(nextUpF32(0)).toBe(2 ** -149);
    expect(nextDownF32(0)).toBe(-(2 ** -149));
    expect(nextUpF32(-(2 ** -149))).toBe(-0);
    expect(f32FromBits(f32Bits(1.5))).toBe(1.5);
    expect(f32Bits(1)).toBe(0x3f80_0000);
  });
});
