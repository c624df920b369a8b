import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import * as I from '../../src/functional/ops/int.ts';
import { atomic32, atomic64 } from '../../src/functional/ops/atomic.ts';
import * as C from '../../src/functional/ops/cvt.ts';
import { AtomOp } from '../../src/isa/ir.ts';

// ---------------------------------------------------------------------------------------------
// An independent BigInt reference: every value is reduced with BigInt.asIntN/asUintN, products
// and quotients are taken on unbounded integers, bit operations go through masks.
// ---------------------------------------------------------------------------------------------

type W = 8 | 16 | 32;
const canon = (v: bigint, bits: number, signed: boolean): bigint =>
  signed ? BigInt.asIntN(bits, v) : BigInt.asUintN(bits, v);
const N = (v: bigint): number => Number(v);
const B = (v: number): bigint => BigInt(v);
const mask = (n: number): bigint => (1n << BigInt(n)) - 1n;

const ref = {
  add: (a: number, b: number, w: W, s: boolean) => N(canon(B(a) + B(b), w, s)),
  sub: (a: number, b: number, w: W, s: boolean) => N(canon(B(a) - B(b), w, s)),
  mulLo: (a: number, b: number, w: W, s: boolean) =>
    N(canon(canon(B(a), w, s) * canon(B(b), w, s), w, s)),
  mulHi: (a: number, b: number, w: W, s: boolean) =>
    N(canon((canon(B(a), w, s) * canon(B(b), w, s)) >> BigInt(w), w, s)),
  div: (a: number, b: number, w: W, s: boolean) => {
    const x = canon(B(a), w, s);
    const y = canon(B(b), w, s);
    if (y === 0n) return s ? -1 : N(mask(w));
    return N(canon(x / y, w, s));
  },
  rem: (a: number, b: number, w: W, s: boolean) => {
    const x = canon(B(a), w, s);
    const y = canon(B(b), w, s);
    if (y === 0n) return N(x);
    return N(canon(x % y, w, s));
  },
  shl: (a: number, n: number, w: W) => (n >= w ? 0 : N(canon(B(a) << B(n), w, false))),
  shr: (a: number, n: number, w: W, s: boolean) => {
    const x = canon(B(a), w, s);
    if (n >= w) return s && x < 0n ? -1 : 0;
    return N(x >> B(n));
  },
  bfe: (a: bigint, pos: number, len: number, msb: number, s: boolean): bigint => {
    const p = pos & 0xff;
    const l = len & 0xff;
    const width = msb + 1;
    const A = BigInt.asUintN(width, a);
    const eff = Math.min(l, Math.max(0, width - p));
    let field = eff > 0 ? (A >> BigInt(p)) & mask(eff) : 0n;
    if (s && l > 0) {
      const sbit = (A >> BigInt(Math.min(p + l - 1, msb))) & 1n;
      if (sbit) field |= mask(width) & ~mask(eff);
    }
    return canon(field, width, s);
  },
  bfi: (a: bigint, b: bigint, pos: number, len: number, msb: number): bigint => {
    const p = pos & 0xff;
    const l = len & 0xff;
    const width = msb + 1;
    const eff = Math.min(l, Math.max(0, width - p));
    if (eff === 0) return BigInt.asUintN(width, b);
    const m = mask(eff) << BigInt(p);
    return BigInt.asUintN(width, (b & ~m) | ((a << BigInt(p)) & m));
  },
  popc: (a: bigint, width: number) =>
    [...BigInt.asUintN(width, a).toString(2)].filter((c) => c === '1').length,
  clz: (a: bigint, width: number) => {
    const v = BigInt.asUintN(width, a);
    return v === 0n ? width : width - v.toString(2).length;
  },
  brev: (a: bigint, width: number) =>
    BigInt('0b' + [...BigInt.asUintN(width, a).toString(2).padStart(width, '0')].reverse().join('')),
};

// value generators biased toward edges
const edge32 = [0, 1, 2, -1, -2, 0x7fffffff, -0x80000000, 0x80000000, 0xffffffff, 0x7ffffffe, 12345, -12345];
const arb32 = fc.oneof(
  fc.constantFrom(...edge32),
  fc.integer({ min: -0x80000000, max: 0xffffffff }),
  fc.integer({ min: -300, max: 300 }),
);
const edge64 = [0n, 1n, -1n, (1n << 63n) - 1n, -(1n << 63n), (1n << 64n) - 1n, 1n << 32n, (1n << 32n) - 1n];
const arb64 = fc.oneof(
  fc.constantFrom(...edge64),
  fc.bigInt({ min: -(1n << 63n), max: (1n << 64n) - 1n }),
  fc.bigInt({ min: -1000n, max: 1000n }),
);
const arbShift = fc.oneof(fc.integer({ min: 0, max: 70 }), fc.integer({ min: 0, max: 0xffffffff }));
const arbWidth = fc.constantFrom<W>(8, 16, 32);
const RUNS = { numRuns: 400 };

describe('integer ops on 8/16/32 bits vs a BigInt reference (property)', () => {
  it('add, sub, mul.lo, mul.hi wrap like the reference', () => {
    fc.assert(
      fc.property(arb32, arb32, arbWidth, fc.boolean(), (a, b, w, s) => {
        expect(I.add(a, b, w, s)).toBe(ref.add(a, b, w, s));
        expect(I.sub(a, b, w, s)).toBe(ref.sub(a, b, w, s));
        expect(I.mulLo(a, b, w, s)).toBe(ref.mulLo(a, b, w, s));
        expect(I.mulHi(a, b, w, s)).toBe(ref.mulHi(a, b, w, s));
      }),
      RUNS,
    );
  });

  it('div and rem truncate toward zero, with the defined division-by-zero results', () => {
    fc.assert(
      fc.property(arb32, arb32, arbWidth, fc.boolean(), (a, b, w, s) => {
        expect(I.div(a, b, w, s)).toBe(ref.div(a, b, w, s));
        expect(I.rem(a, b, w, s)).toBe(ref.rem(a, b, w, s));
      }),
      RUNS,
    );
  });

  it('shl/shr, including shift amounts >= width', () => {
    fc.assert(
      fc.property(arb32, arbShift, arbWidth, fc.boolean(), (a, n, w, s) => {
        expect(I.shl(a, n, w)).toBe(ref.shl(a, n, w));
        expect(I.shr(a, n, w, s)).toBe(ref.shr(a, n, w, s));
      }),
      RUNS,
    );
  });

  it('min, max, abs, neg, and/or/xor/not, cnot', () => {
    fc.assert(
      fc.property(arb32, arb32, arbWidth, fc.boolean(), (a, b, w, s) => {
        const x = canon(B(a), w, s);
        const y = canon(B(b), w, s);
        expect(I.min(a, b, w, s)).toBe(N(x < y ? x : y));
        expect(I.max(a, b, w, s)).toBe(N(x > y ? x : y));
        const xs = canon(B(a), w, true);
        expect(I.abs(a, w)).toBe(N(canon(xs < 0n ? -xs : xs, w, true)));
        expect(I.neg(a, w)).toBe(N(canon(-B(a), w, true)));
        expect(I.and(a, b, w)).toBe(N(canon(B(a) & B(b), w, false)));
        expect(I.or(a, b, w)).toBe(N(canon(B(a) | B(b), w, false)));
        expect(I.xor(a, b, w)).toBe(N(canon(B(a) ^ B(b), w, false)));
        expect(I.not(a, w)).toBe(N(canon(~B(a), w, false)));
        expect(I.cnot(a, w)).toBe(canon(B(a), w, false) === 0n ? 1 : 0);
      }),
      RUNS,
    );
  });

  it('mul.wide, mad.lo/.hi/.wide', () => {
    fc.assert(
      fc.property(arb32, arb32, arb32, fc.boolean(), (a, b, c, s) => {
        const x = canon(B(a), 32, s);
        const y = canon(B(b), 32, s);
        expect(I.mulWide32(a, b, s)).toBe(x * y);
        const x16 = canon(B(a), 16, s);
        const y16 = canon(B(b), 16, s);
        expect(I.mulWide16(a, b, s)).toBe(N(canon(x16 * y16, 32, s)));
        expect(I.madLo(a, b, c, 32, s)).toBe(N(canon(x * y + B(c), 32, s)));
        expect(I.madLo(a, b, c, 16, s)).toBe(N(canon(x16 * y16 + B(c), 16, s)));
        expect(I.madHi(a, b, c, 32, s, false)).toBe(N(canon(((x * y) >> 32n) + B(c), 32, s)));
        expect(I.madWide32(a, b, B(c), s)).toBe(canon(x * y + B(c), 64, s));
        expect(I.madWide16(a, b, c, s)).toBe(N(canon(x16 * y16 + B(c), 32, s)));
      }),
      RUNS,
    );
  });

  it('add.sat.s32, sub.sat.s32, mad.hi.sat.s32 clamp to the s32 range', () => {
    const clamp = (v: bigint) => N(v > 2147483647n ? 2147483647n : v < -2147483648n ? -2147483648n : v);
    fc.assert(
      fc.property(arb32, arb32, arb32, (a, b, c) => {
        const x = canon(B(a), 32, true);
        const y = canon(B(b), 32, true);
        const z = canon(B(c), 32, true);
        expect(I.addSatS32(a, b)).toBe(clamp(x + y));
        expect(I.subSatS32(a, b)).toBe(clamp(x - y));
        expect(I.madHi(a, b, c, 32, true, true)).toBe(clamp(((x * y) >> 32n) + z));
      }),
      RUNS,
    );
  });

  it('mul24/mad24 use the low 24 bits (sign-extended for .s32)', () => {
    fc.assert(
      fc.property(arb32, arb32, arb32, fc.boolean(), fc.boolean(), (a, b, c, hi, s) => {
        const x = s ? BigInt.asIntN(24, B(a)) : BigInt.asUintN(24, B(a));
        const y = s ? BigInt.asIntN(24, B(b)) : BigInt.asUintN(24, B(b));
        const p = x * y;
        const want = N(canon(hi ? p >> 16n : p, 32, s));
        expect(I.mul24(a, b, hi, s)).toBe(want);
        expect(I.mad24(a, b, c, hi, s, false)).toBe(N(canon(B(want) + B(c), 32, s)));
      }),
      RUNS,
    );
  });

  it('carry out of add.cc and borrow out of sub.cc match the 33-bit sum/difference', () => {
    fc.assert(
      fc.property(arb32, arb32, fc.constantFrom(0, 1), (a, b, cin) => {
        const ua = BigInt.asUintN(32, B(a));
        const ub = BigInt.asUintN(32, B(b));
        expect(I.addCarryOut32(a, b, cin)).toBe(Number((ua + ub + B(cin)) >> 32n));
        expect(I.subBorrowOut32(a, b, cin)).toBe(ua - ub - B(cin) < 0n ? 1 : 0);
      }),
      RUNS,
    );
  });

  it('bfe/bfi 32-bit match the masked reference, including pos/len beyond 31 and >255', () => {
    const arbPos = fc.oneof(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 0, max: 0xffffffff }));
    fc.assert(
      fc.property(arb32, arb32, arbPos, arbPos, fc.boolean(), (a, b, pos, len, s) => {
        expect(I.bfe32(a, pos, len, s)).toBe(N(ref.bfe(B(a), pos, len, 31, s)));
        expect(I.bfi32(a, b, pos, len)).toBe(N(ref.bfi(BigInt.asUintN(32, B(a)), BigInt.asUintN(32, B(b)), pos, len, 31)));
      }),
      RUNS,
    );
  });

  it('bfind and shf match bit-scan / 64-bit shift references', () => {
    fc.assert(
      fc.property(arb32, arb32, arbShift, fc.boolean(), fc.boolean(), (a, b, c, s, flag) => {
        const msbRef = (v: bigint, width: number, signed: boolean) => {
          let x = BigInt.asUintN(width, v);
          if (signed && x >> BigInt(width - 1)) x = BigInt.asUintN(width, ~x);
          const pos = x === 0n ? -1 : x.toString(2).length - 1;
          if (pos < 0) return 0xffffffff;
          return flag ? width - 1 - pos : pos;
        };
        expect(I.bfind32(a, s, flag)).toBe(msbRef(B(a), 32, s));
        expect(I.bfind64(B(a) * 0x10001n, s, flag)).toBe(msbRef(B(a) * 0x10001n, 64, s));
        const n = flag ? Math.min(c, 32) : c & 31;
        const v = (BigInt.asUintN(32, B(b)) << 32n) | BigInt.asUintN(32, B(a));
        const left = N(BigInt.asUintN(32, (v << B(n)) >> 32n));
        const right = N(BigInt.asUintN(32, v >> B(n)));
        expect(I.shf(a, b, c, false, flag)).toBe(left);
        expect(I.shf(a, b, c, true, flag)).toBe(right);
      }),
      RUNS,
    );
  });

  it('clz, popc, brev on 32 bits', () => {
    fc.assert(
      fc.property(arb32, (a) => {
        expect(I.clz32(a)).toBe(ref.clz(B(a), 32));
        expect(I.popc32(a)).toBe(ref.popc(B(a), 32));
        expect(I.brev32(a)).toBe(N(ref.brev(B(a), 32)));
      }),
      RUNS,
    );
  });
});

describe('64-bit integer ops vs the BigInt reference (property)', () => {
  const c64 = (v: bigint, s: boolean) => canon(v, 64, s);
  it('add/sub/mul.lo/mul.hi/mad/div/rem/min/max', () => {
    fc.assert(
      fc.property(arb64, arb64, arb64, fc.boolean(), (a, b, c, s) => {
        const x = c64(a, s);
        const y = c64(b, s);
        expect(I.add64(a, b, s)).toBe(c64(a + b, s));
        expect(I.sub64(a, b, s)).toBe(c64(a - b, s));
        expect(I.mulLo64(a, b, s)).toBe(c64(x * y, s));
        expect(I.mulHi64(a, b, s)).toBe(c64((x * y) >> 64n, s));
        expect(I.madLo64(a, b, c, s)).toBe(c64(x * y + c, s));
        expect(I.madHi64(a, b, c, s)).toBe(c64(((x * y) >> 64n) + c, s));
        expect(I.div64(a, b, s)).toBe(y === 0n ? (s ? -1n : mask(64)) : c64(x / y, s));
        expect(I.rem64(a, b, s)).toBe(y === 0n ? x : c64(x % y, s));
        expect(I.min64(a, b, s)).toBe(x < y ? x : y);
        expect(I.max64(a, b, s)).toBe(x > y ? x : y);
        const xs = c64(a, true);
        expect(I.abs64(a)).toBe(c64(xs < 0n ? -xs : xs, true));
        expect(I.neg64(a)).toBe(c64(-a, true));
      }),
      RUNS,
    );
  });

  it('shl/shr 64 with amounts >= 64', () => {
    fc.assert(
      fc.property(arb64, arbShift, fc.boolean(), (a, n, s) => {
        expect(I.shl64(a, n)).toBe(n >= 64 ? 0n : c64(a << B(n), false));
        const x = c64(a, s);
        expect(I.shr64(a, n, s)).toBe(n >= 64 ? (s && x < 0n ? -1n : 0n) : x >> B(n));
      }),
      RUNS,
    );
  });

  it('bfe/bfi/clz/popc/brev 64 and carries', () => {
    const arbPos = fc.oneof(fc.integer({ min: 0, max: 70 }), fc.integer({ min: 0, max: 0xffffffff }));
    fc.assert(
      fc.property(arb64, arb64, arbPos, arbPos, fc.boolean(), fc.constantFrom(0, 1), (a, b, pos, len, s, cin) => {
        expect(I.bfe64(a, pos, len, s)).toBe(ref.bfe(a, pos, len, 63, s));
        expect(I.bfi64(a, b, pos, len)).toBe(ref.bfi(BigInt.asUintN(64, a), BigInt.asUintN(64, b), pos, len, 63));
        expect(I.clz64(a)).toBe(ref.clz(a, 64));
        expect(I.popc64(a)).toBe(ref.popc(a, 64));
        expect(I.brev64(a)).toBe(ref.brev(a, 64));
        const ua = BigInt.asUintN(64, a);
        const ub = BigInt.asUintN(64, b);
        expect(I.addCarryOut64(a, b, cin)).toBe(Number((ua + ub + B(cin)) >> 64n));
        expect(I.subBorrowOut64(a, b, cin)).toBe(ua - ub - B(cin) < 0n ? 1 : 0);
      }),
      RUNS,
    );
  });
});

describe('prmt (all modes) vs a byte-table reference', () => {
  // PTX ISA prmt table, written as the doc lists it: source byte of d.b3, d.b2, d.b1, d.b0.
  const table: Record<number, number[][]> = {
    1: [[3, 2, 1, 0], [4, 3, 2, 1], [5, 4, 3, 2], [6, 5, 4, 3]], // f4e
    2: [[5, 6, 7, 0], [6, 7, 0, 1], [7, 0, 1, 2], [0, 1, 2, 3]], // b4e
    3: [[0, 0, 0, 0], [1, 1, 1, 1], [2, 2, 2, 2], [3, 3, 3, 3]], // rc8
    4: [[3, 2, 1, 0], [3, 2, 1, 1], [3, 2, 2, 2], [3, 3, 3, 3]], // ecl
    5: [[0, 0, 0, 0], [1, 1, 1, 0], [2, 2, 1, 0], [3, 2, 1, 0]], // ecr
    6: [[1, 0, 1, 0], [3, 2, 3, 2], [1, 0, 1, 0], [3, 2, 3, 2]], // rc16
  };
  const byteOf = (a: number, b: number, i: number) =>
    i < 4 ? (a >>> (8 * i)) & 0xff : (b >>> (8 * (i - 4))) & 0xff;

  it('specialized modes follow the table', () => {
    const a = 0x33221100;
    const b = 0x77665544;
    for (let mode = 1; mode <= 6; mode++) {
      for (let sel = 0; sel < 4; sel++) {
        const [b3, b2, b1, b0] = table[mode]![sel]!;
        const want = ((byteOf(a, b, b3!) << 24) | (byteOf(a, b, b2!) << 16) | (byteOf(a, b, b1!) << 8) | byteOf(a, b, b0!)) >>> 0;
        // only c[1:0] matters in these modes
        expect(I.prmt(a, b, sel | 0xabcd0, mode)).toBe(want);
      }
    }
  });

  it('generic mode: nibble selectors with sign replication', () => {
    // bytes {b,a} = 77 66 55 44 | 33 22 11 00 ... use bytes with sign bits for replication
    const a = 0x80_7f_01_fe;
    const b = 0x00_ff_10_81;
    expect(I.prmt(a, b, 0x3210, 0)).toBe(a >>> 0);
    expect(I.prmt(a, b, 0x7654, 0)).toBe(b >>> 0);
    expect(I.prmt(a, b, 0x0123, 0)).toBe(0xfe017f80);
    // selector 8 = byte 0 (0xfe, negative) sign-replicated -> 0xff; 0xb = byte 3 (0x80) -> 0xff;
    // 0xa = byte 2 (0x7f) -> 0x00; 0x4 = byte 4 (0x81) copied
    expect(I.prmt(a, b, 0x8ba4, 0)).toBe(0xffff0081);
    fc.assert(
      fc.property(arb32, arb32, fc.integer({ min: 0, max: 0xffff }), (x, y, c) => {
        let want = 0;
        for (let i = 0; i < 4; i++) {
          const sel = (c >> (4 * i)) & 0xf;
          let byte = byteOf(x >>> 0, y >>> 0, sel & 7);
          if (sel & 8) byte = byte >= 0x80 ? 0xff : 0;
          want += byte * 2 ** (8 * i);
        }
        expect(I.prmt(x, y, c, 0)).toBe(want);
      }),
      RUNS,
    );
  });
});

describe('integer edge cases (PTX ISA rules, values worked out by hand)', () => {
  it('signed division and remainder by negative numbers truncate toward zero', () => {
    expect(I.div(-7, 2, 32, true)).toBe(-3);
    expect(I.rem(-7, 2, 32, true)).toBe(-1);
    expect(I.div(7, -2, 32, true)).toBe(-3);
    expect(I.rem(7, -2, 32, true)).toBe(1);
    expect(I.div(-7, -2, 32, true)).toBe(3);
    expect(I.rem(-7, -2, 32, true)).toBe(-1);
    expect(I.div64(-7n, 2n, true)).toBe(-3n);
    expect(I.rem64(7n, -2n, true)).toBe(1n);
    expect(I.div(-32768, -1, 16, true)).toBe(-32768); // MIN / -1 wraps
    expect(I.rem(-32768, -1, 16, true)).toBe(0);
    expect(I.div(-2147483648, -1, 32, true)).toBe(-2147483648);
    expect(I.div64(-(1n << 63n), -1n, true)).toBe(-(1n << 63n));
  });

  it('division by zero gives all ones, remainder by zero the dividend', () => {
    expect(I.div(5, 0, 32, false)).toBe(0xffffffff);
    expect(I.div(5, 0, 16, false)).toBe(0xffff);
    expect(I.div(5, 0, 32, true)).toBe(-1);
    expect(I.rem(5, 0, 32, false)).toBe(5);
    expect(I.rem(-5, 0, 32, true)).toBe(-5);
    expect(I.div64(5n, 0n, false)).toBe(0xffffffffffffffffn);
  });

  it('unsigned division treats the bit pattern as unsigned', () => {
    expect(I.div(-1, 2, 32, false)).toBe(0x7fffffff);
    expect(I.rem(-1, 10, 32, false)).toBe(5); // 4294967295 % 10
  });

  it('shifts by >= width clamp; shr.s fills with the sign', () => {
    expect(I.shl(1, 31, 32)).toBe(0x80000000);
    expect(I.shl(1, 32, 32)).toBe(0);
    expect(I.shl(1, 0xffffffff, 32)).toBe(0);
    expect(I.shr(-8, 1, 32, true)).toBe(-4);
    expect(I.shr(-8, 1, 32, false)).toBe(0x7ffffffc);
    expect(I.shr(-8, 40, 32, true)).toBe(-1);
    expect(I.shr(8, 40, 32, true)).toBe(0);
    expect(I.shr(0x8000, 3, 16, true)).toBe(-4096);
    expect(I.shr64(-(1n << 63n), 64, true)).toBe(-1n);
    expect(I.shl64(1n, 63)).toBe(1n << 63n);
    expect(I.shl64(1n, 64)).toBe(0n);
  });

  it('wraparound and saturation', () => {
    expect(I.add(0x7fffffff, 1, 32, true)).toBe(-2147483648);
    expect(I.add(0xffffffff, 1, 32, false)).toBe(0);
    expect(I.addSatS32(0x7fffffff, 1)).toBe(0x7fffffff);
    expect(I.subSatS32(-2147483648, 1)).toBe(-2147483648);
    expect(I.abs(-2147483648, 32)).toBe(-2147483648);
    expect(I.neg(-32768, 16)).toBe(-32768);
    expect(I.mulHi(0xffffffff, 0xffffffff, 32, false)).toBe(0xfffffffe);
    expect(I.mulHi(-1, -1, 32, true)).toBe(0);
    expect(I.mulHi(-2147483648, -2147483648, 32, true)).toBe(0x40000000);
    expect(I.mulWide32(-2147483648, -2147483648, true)).toBe(1n << 62n);
    expect(I.mulWide32(0xffffffff, 0xffffffff, false)).toBe(0xfffffffe00000001n);
  });

  it('bfe examples', () => {
    expect(I.bfe32(0xf0, 4, 4, false)).toBe(0xf);
    expect(I.bfe32(0xf0, 4, 4, true)).toBe(-1); // field 1111 sign-extends
    expect(I.bfe32(0x70, 4, 4, true)).toBe(7);
    expect(I.bfe32(0x80000000, 28, 8, true)).toBe(-8); // field runs past bit 31: fill with bit 31
    expect(I.bfe32(0x12345678, 0, 0, true)).toBe(0); // len 0 -> 0
    expect(I.bfe32(0x12345678, 0x104, 4, false)).toBe(7); // pos uses bits 7..0 only
    expect(I.bfi32(0xff, 0, 8, 4)).toBe(0xf00);
    expect(I.bfi32(0xff, 0xffffffff, 30, 4)).toBe(0xffffffff);
    expect(I.bfi32(0, 0xffffffff, 30, 4)).toBe(0x3fffffff);
  });

  it('clz/popc/brev examples', () => {
    expect(I.clz32(0)).toBe(32);
    expect(I.clz32(1)).toBe(31);
    expect(I.clz64(0n)).toBe(64);
    expect(I.clz64(1n << 40n)).toBe(23);
    expect(I.popc32(0xffffffff)).toBe(32);
    expect(I.popc64(-1n)).toBe(64);
    expect(I.brev32(1)).toBe(0x80000000);
    expect(I.brev64(1n)).toBe(1n << 63n);
  });

  it('mul24 examples', () => {
    // 0x00ffffff as s24 is -1
    expect(I.mul24(0x00ffffff, 2, false, true)).toBe(-2);
    expect(I.mul24(0x00ffffff, 2, false, false)).toBe(0x1fffffe);
    // high part: bits 47..16 of 0xffffff * 0xffffff = 0xfffffe000001
    expect(I.mul24(0xffffff, 0xffffff, true, false)).toBe(0xfffffe00);
    expect(I.mul24(0x7f000123, 3, false, false)).toBe(0x369); // top byte ignored
  });
});

describe('atomic combine functions', () => {
  it('inc/dec wrap in [0, b]', () => {
    expect(atomic32(AtomOp.Inc, 0, 3, 0, 'u32', false)).toBe(1);
    expect(atomic32(AtomOp.Inc, 3, 3, 0, 'u32', false)).toBe(0);
    expect(atomic32(AtomOp.Inc, 7, 3, 0, 'u32', false)).toBe(0);
    expect(atomic32(AtomOp.Dec, 0, 3, 0, 'u32', false)).toBe(3);
    expect(atomic32(AtomOp.Dec, 5, 3, 0, 'u32', false)).toBe(3);
    expect(atomic32(AtomOp.Dec, 2, 3, 0, 'u32', false)).toBe(1);
    expect(atomic32(AtomOp.Inc, 0xfffffffe, 0xffffffff, 0, 'u32', false)).toBe(0xffffffff);
  });

  it('cas, exch, min/max signedness, add wrap', () => {
    expect(atomic32(AtomOp.Cas, 5, 5, 9, 'b32', false)).toBe(9);
    expect(atomic32(AtomOp.Cas, 5, 6, 9, 'b32', false)).toBe(5);
    expect(atomic32(AtomOp.Exch, 5, 6, 0, 'b32', false)).toBe(6);
    expect(atomic32(AtomOp.Min, -1, 1, 0, 's32', false)).toBe(-1);
    expect(atomic32(AtomOp.Min, 0xffffffff, 1, 0, 'u32', false)).toBe(1);
    expect(atomic32(AtomOp.Add, 0xffffffff, 2, 0, 'u32', false)).toBe(1);
    expect(atomic32(AtomOp.Add, 0x7fffffff, 1, 0, 's32', false)).toBe(-2147483648);
    expect(atomic32(AtomOp.Xor, 0xff00, 0x0ff0, 0, 'b32', false)).toBe(0xf0f0);
    expect(atomic64(AtomOp.Add, (1n << 64n) - 1n, 1n, 0n, false)).toBe(0n);
    expect(atomic64(AtomOp.Max, -5n, 3n, 0n, true)).toBe(3n);
    expect(atomic64(AtomOp.Cas, 7n, 7n, 1n, false)).toBe(1n);
  });

  it('f32 add: subnormals flushed on global (ftz), kept on shared', () => {
    const sub = 2 ** -140;
    expect(atomic32(AtomOp.Add, 0, sub, 0, 'f32', true)).toBe(0);
    expect(atomic32(AtomOp.Add, 0, sub, 0, 'f32', false)).toBe(sub);
    expect(atomic32(AtomOp.Add, 1.5, 2.25, 0, 'f32', true)).toBe(3.75);
  });
});

describe('integer cvt vs the BigInt reference (property)', () => {
  const arbBits = fc.constantFrom<W>(8, 16, 32);
  it('narrow <-> narrow, 64 -> narrow, any -> 64, with and without .sat', () => {
    fc.assert(
      fc.property(arb32, arbWidth, fc.boolean(), arbBits, fc.boolean(), fc.boolean(), (v, sw, ss, dw, ds, sat) => {
        const src = canon(B(v), sw, ss); // the source value as its type reads it
        const lo = ds ? -(1n << BigInt(dw - 1)) : 0n;
        const hi = ds ? (1n << BigInt(dw - 1)) - 1n : (1n << BigInt(dw)) - 1n;
        const want = sat ? (src < lo ? lo : src > hi ? hi : src) : canon(src, dw, ds);
        expect(C.cvtIntToInt(N(src), dw, ds, sat)).toBe(N(want));
        const lo64 = ds ? -(1n << 63n) : 0n;
        const hi64 = ds ? (1n << 63n) - 1n : (1n << 64n) - 1n;
        expect(C.cvtIntToInt64(N(src), ds, sat)).toBe(sat ? (src < lo64 ? lo64 : src > hi64 ? hi64 : src) : canon(src, 64, ds));
      }),
      RUNS,
    );
    fc.assert(
      fc.property(arb64, fc.boolean(), arbBits, fc.boolean(), fc.boolean(), (v, ss, dw, ds, sat) => {
        const src = canon(v, 64, ss);
        const lo = ds ? -(1n << BigInt(dw - 1)) : 0n;
        const hi = ds ? (1n << BigInt(dw - 1)) - 1n : (1n << BigInt(dw)) - 1n;
        expect(C.cvtInt64ToInt(src, dw, ds, sat)).toBe(N(sat ? (src < lo ? lo : src > hi ? hi : src) : canon(src, dw, ds)));
      }),
      RUNS,
    );
  });
});
