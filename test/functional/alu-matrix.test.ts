/**
 * Every instruction form the executor compiles, run on a warp of per-lane inputs inside a tiny
 * generated kernel, checked against references written here: BigInt arithmetic for integers,
 * JS double arithmetic (rounded with Math.fround where a single f32 rounding of the double result
 * is exact: add/sub/mul/div/sqrt) and the rational reference of fp-reference.ts otherwise.
 */
import { describe, it, expect } from 'vitest';
import { FunctionalKernel, GlobalMemory, runFunctional } from '../../src/functional/index.ts';
import { ptx } from './helpers.ts';
import { F32, F64, add, div, mul, ratOfDouble, ratOfInt, roundRat } from './fp-reference.ts';

type T = 'u16' | 's16' | 'b16' | 'u32' | 's32' | 'b32' | 'u64' | 's64' | 'b64' | 'f32' | 'f64' | 'pred';
type V = bigint | number | boolean;

const SIZE: Record<T, number> = { u16: 2, s16: 2, b16: 2, u32: 4, s32: 4, b32: 4, u64: 8, s64: 8, b64: 8, f32: 4, f64: 8, pred: 4 };
const REG: Record<T, string> = { u16: '%h', s16: '%h', b16: '%h', u32: '%r', s32: '%r', b32: '%r', u64: '%rd', s64: '%rd', b64: '%rd', f32: '%f', f64: '%fd', pred: '%p' };
const isInt = (t: T) => t !== 'f32' && t !== 'f64' && t !== 'pred';
const bitsOf = (t: T) => SIZE[t] * 8;
const signed = (t: T) => t[0] === 's';
const canon = (t: T, v: bigint) => (signed(t) ? BigInt.asIntN(bitsOf(t), v) : BigInt.asUintN(bitsOf(t), v));

/** Deterministic value generator (LCG), biased to edge cases of the type. */
function values(t: T, n: number, seed: number): V[] {
  let s = seed >>> 0;
  const next = () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s;
  };
  const out: V[] = [];
  for (let i = 0; i < n; i++) {
    const r = next();
    if (isInt(t)) {
      const b = bitsOf(t);
      const edges = [0n, 1n, -1n, 2n, 3n, (1n << BigInt(b - 1)) - 1n, -(1n << BigInt(b - 1)), 5n, 31n, 32n, 63n, 64n, 100n, -7n];
      let v: bigint;
      if (i < edges.length) v = edges[i]!;
      else if (r % 3 === 0) v = BigInt(r % 200) - 100n;
      else v = (BigInt(next()) << 32n) | BigInt(next());
      out.push(canon(t, v));
    } else {
      const edges = [0, -0, 1, -1, 0.5, 3, -2.5, 1e30, 2 ** -130, -(2 ** -140), Infinity, -Infinity, NaN, 1e-310, 7.25];
      let v: number;
      if (i < edges.length) v = edges[i]!;
      else v = ((r / 4294967296 - 0.5) * 2 ** ((next() % 40) - 20));
      out.push(t === 'f32' ? Math.fround(v) : v);
    }
  }
  return out;
}

interface Case {
  /** PTX line with D, A, B, C placeholders. */
  readonly op: string;
  readonly d: T;
  readonly a: readonly T[];
  readonly ref: (...x: V[]) => V;
  /** Use operand values from this generator instead (e.g. shift amounts). */
  readonly gen?: readonly (((i: number) => V) | undefined)[];
}

const B = (v: V) => v as bigint;
const N = (v: V) => v as number;
const f32 = Math.fround;
const fmin = (a: number, b: number) => (a !== a ? b : b !== b ? a : a === 0 && b === 0 ? (Object.is(a, -0) || Object.is(b, -0) ? -0 : 0) : a < b ? a : b);
const fmax = (a: number, b: number) => (a !== a ? b : b !== b ? a : a === 0 && b === 0 ? (Object.is(a, 0) || Object.is(b, 0) ? 0 : -0) : a > b ? a : b);
const neg0 = (x: number) => x < 0 || Object.is(x, -0);
const roundF = (q: ReturnType<typeof ratOfDouble>, mode: 0 | 1 | 2 | 3, fmt = F32) => roundRat(q, mode, fmt);
const shiftAmt = (i: number): V => BigInt([0, 1, 7, 31, 32, 33, 63, 64, 65, 200, 0xffffffff][i % 11]! + (i > 11 ? i % 5 : 0));
const small = (i: number): V => BigInt(i % 40);

const cases: Case[] = [
  // 32-bit integer
  { op: 'add.u32 D, A, B', d: 'u32', a: ['u32', 'u32'], ref: (a, b) => canon('u32', B(a) + B(b)) },
  { op: 'sub.s32 D, A, B', d: 's32', a: ['s32', 's32'], ref: (a, b) => canon('s32', B(a) - B(b)) },
  { op: 'add.sat.s32 D, A, B', d: 's32', a: ['s32', 's32'], ref: (a, b) => { const s = B(a) + B(b); return s > 2147483647n ? 2147483647n : s < -2147483648n ? -2147483648n : s; } },
  { op: 'mul.lo.s32 D, A, B', d: 's32', a: ['s32', 's32'], ref: (a, b) => canon('s32', B(a) * B(b)) },
  { op: 'mul.hi.u32 D, A, B', d: 'u32', a: ['u32', 'u32'], ref: (a, b) => (B(a) * B(b)) >> 32n },
  { op: 'mul.hi.s32 D, A, B', d: 's32', a: ['s32', 's32'], ref: (a, b) => canon('s32', (B(a) * B(b)) >> 32n) },
  { op: 'mul.wide.s32 D, A, B', d: 's64', a: ['s32', 's32'], ref: (a, b) => B(a) * B(b) },
  { op: 'mul.wide.u32 D, A, B', d: 'u64', a: ['u32', 'u32'], ref: (a, b) => B(a) * B(b) },
  { op: 'mad.lo.s32 D, A, B, C', d: 's32', a: ['s32', 's32', 's32'], ref: (a, b, c) => canon('s32', B(a) * B(b) + B(c)) },
  { op: 'mad.hi.u32 D, A, B, C', d: 'u32', a: ['u32', 'u32', 'u32'], ref: (a, b, c) => canon('u32', ((B(a) * B(b)) >> 32n) + B(c)) },
  { op: 'mad.wide.s32 D, A, B, C', d: 's64', a: ['s32', 's32', 's64'], ref: (a, b, c) => canon('s64', B(a) * B(b) + B(c)) },
  { op: 'mul24.hi.s32 D, A, B', d: 's32', a: ['s32', 's32'], ref: (a, b) => canon('s32', (BigInt.asIntN(24, B(a)) * BigInt.asIntN(24, B(b))) >> 16n) },
  { op: 'mad24.lo.u32 D, A, B, C', d: 'u32', a: ['u32', 'u32', 'u32'], ref: (a, b, c) => canon('u32', BigInt.asUintN(24, B(a)) * BigInt.asUintN(24, B(b)) + B(c)) },
  { op: 'div.s32 D, A, B', d: 's32', a: ['s32', 's32'], ref: (a, b) => (B(b) === 0n ? -1n : canon('s32', B(a) / B(b))) },
  { op: 'rem.s32 D, A, B', d: 's32', a: ['s32', 's32'], ref: (a, b) => (B(b) === 0n ? B(a) : B(a) % B(b)) },
  { op: 'div.u32 D, A, B', d: 'u32', a: ['u32', 'u32'], ref: (a, b) => (B(b) === 0n ? 0xffffffffn : B(a) / B(b)) },
  { op: 'abs.s32 D, A', d: 's32', a: ['s32'], ref: (a) => canon('s32', B(a) < 0n ? -B(a) : B(a)) },
  { op: 'neg.s32 D, A', d: 's32', a: ['s32'], ref: (a) => canon('s32', -B(a)) },
  { op: 'min.s32 D, A, B', d: 's32', a: ['s32', 's32'], ref: (a, b) => (B(a) < B(b) ? B(a) : B(b)) },
  { op: 'max.u32 D, A, B', d: 'u32', a: ['u32', 'u32'], ref: (a, b) => (B(a) > B(b) ? B(a) : B(b)) },
  { op: 'and.b32 D, A, B', d: 'b32', a: ['b32', 'b32'], ref: (a, b) => B(a) & B(b) },
  { op: 'or.b32 D, A, B', d: 'b32', a: ['b32', 'b32'], ref: (a, b) => B(a) | B(b) },
  { op: 'xor.b32 D, A, B', d: 'b32', a: ['b32', 'b32'], ref: (a, b) => B(a) ^ B(b) },
  { op: 'not.b32 D, A', d: 'b32', a: ['b32'], ref: (a) => canon('u32', ~B(a)) },
  { op: 'cnot.b32 D, A', d: 'b32', a: ['b32'], ref: (a) => (B(a) === 0n ? 1n : 0n) },
  { op: 'shl.b32 D, A, B', d: 'b32', a: ['b32', 'u32'], gen: [undefined, shiftAmt], ref: (a, b) => (B(b) >= 32n ? 0n : canon('u32', B(a) << B(b))) },
  { op: 'shr.s32 D, A, B', d: 's32', a: ['s32', 'u32'], gen: [undefined, shiftAmt], ref: (a, b) => B(a) >> (B(b) >= 32n ? 31n : B(b)) },
  { op: 'shr.u32 D, A, B', d: 'u32', a: ['u32', 'u32'], gen: [undefined, shiftAmt], ref: (a, b) => (B(b) >= 32n ? 0n : B(a) >> B(b)) },
  { op: 'bfe.u32 D, A, B, C', d: 'u32', a: ['u32', 'u32', 'u32'], gen: [undefined, small, small], ref: (a, b, c) => { const p = Number(B(b)); const l = Number(B(c)); const e = Math.max(0, Math.min(l, 32 - p)); return e === 0 ? 0n : (B(a) >> BigInt(p)) & ((1n << BigInt(e)) - 1n); } },
  { op: 'bfe.s32 D, A, B, C', d: 's32', a: ['s32', 'u32', 'u32'], gen: [undefined, small, small], ref: (a, b, c) => { const p = Number(B(b)); const l = Number(B(c)); if (l === 0) return 0n; const x = BigInt.asUintN(32, B(a)); const top = Math.min(p + l - 1, 31); const e = Math.max(0, Math.min(l, 32 - p)); let f = e === 0 ? 0n : (x >> BigInt(p)) & ((1n << BigInt(e)) - 1n); if ((x >> BigInt(top)) & 1n) f |= ~((1n << BigInt(e)) - 1n); return BigInt.asIntN(32, f); } },
  { op: 'bfi.b32 D, A, B, C, E', d: 'b32', a: ['b32', 'b32', 'u32', 'u32'], gen: [undefined, undefined, small, small], ref: (a, b, c, e) => { const p = Number(B(c)); const l = Math.max(0, Math.min(Number(B(e)), 32 - p)); const m = ((1n << BigInt(l)) - 1n) << BigInt(p); return BigInt.asUintN(32, (B(b) & ~m) | ((B(a) << BigInt(p)) & m)); } },
  { op: 'clz.b32 D, A', d: 'u32', a: ['b32'], ref: (a) => BigInt(B(a) === 0n ? 32 : 32 - B(a).toString(2).length) },
  { op: 'popc.b32 D, A', d: 'u32', a: ['b32'], ref: (a) => BigInt([...B(a).toString(2)].filter((x) => x === '1').length) },
  { op: 'brev.b32 D, A', d: 'b32', a: ['b32'], ref: (a) => BigInt('0b' + [...B(a).toString(2).padStart(32, '0')].reverse().join('')) },
  { op: 'bfind.u32 D, A', d: 'u32', a: ['u32'], ref: (a) => (B(a) === 0n ? 0xffffffffn : BigInt(B(a).toString(2).length - 1)) },
  { op: 'prmt.b32 D, A, B, C', d: 'b32', a: ['b32', 'b32', 'b32'], ref: (a, b, c) => { const all = (B(b) << 32n) | B(a); let d = 0n; for (let i = 0n; i < 4n; i++) { const sel = (B(c) >> (4n * i)) & 0xfn; let byte = (all >> (8n * (sel & 7n))) & 0xffn; if (sel & 8n) byte = byte & 0x80n ? 0xffn : 0n; d |= byte << (8n * i); } return d; } },
  { op: 'shf.l.wrap.b32 D, A, B, C', d: 'b32', a: ['b32', 'b32', 'u32'], gen: [undefined, undefined, shiftAmt], ref: (a, b, c) => { const n = B(c) & 31n; return BigInt.asUintN(32, (((B(b) << 32n) | B(a)) << n) >> 32n); } },
  { op: 'shf.r.clamp.b32 D, A, B, C', d: 'b32', a: ['b32', 'b32', 'u32'], gen: [undefined, undefined, shiftAmt], ref: (a, b, c) => { const n = B(c) > 32n ? 32n : B(c); return BigInt.asUintN(32, ((B(b) << 32n) | B(a)) >> n); } },
  { op: 'setp.lt.s32 D, A, B', d: 'pred', a: ['s32', 's32'], ref: (a, b) => B(a) < B(b) },
  { op: 'setp.hs.u32 D, A, B', d: 'pred', a: ['u32', 'u32'], ref: (a, b) => B(a) >= B(b) },
  { op: 'set.gt.u32.s32 D, A, B', d: 'u32', a: ['s32', 's32'], ref: (a, b) => (B(a) > B(b) ? 0xffffffffn : 0n) },
  { op: 'slct.s32.s32 D, A, B, C', d: 's32', a: ['s32', 's32', 's32'], ref: (a, b, c) => (B(c) >= 0n ? B(a) : B(b)) },
  // 16-bit integer
  { op: 'add.u16 D, A, B', d: 'u16', a: ['u16', 'u16'], ref: (a, b) => canon('u16', B(a) + B(b)) },
  { op: 'mul.lo.s16 D, A, B', d: 's16', a: ['s16', 's16'], ref: (a, b) => canon('s16', B(a) * B(b)) },
  { op: 'mul.wide.s16 D, A, B', d: 's32', a: ['s16', 's16'], ref: (a, b) => B(a) * B(b) },
  { op: 'shr.s16 D, A, B', d: 's16', a: ['s16', 'u32'], gen: [undefined, shiftAmt], ref: (a, b) => B(a) >> (B(b) >= 16n ? 15n : B(b)) },
  { op: 'min.s16 D, A, B', d: 's16', a: ['s16', 's16'], ref: (a, b) => (B(a) < B(b) ? B(a) : B(b)) },
  { op: 'xor.b16 D, A, B', d: 'b16', a: ['b16', 'b16'], ref: (a, b) => B(a) ^ B(b) },
  // 64-bit integer
  { op: 'add.s64 D, A, B', d: 's64', a: ['s64', 's64'], ref: (a, b) => canon('s64', B(a) + B(b)) },
  { op: 'sub.u64 D, A, B', d: 'u64', a: ['u64', 'u64'], ref: (a, b) => canon('u64', B(a) - B(b)) },
  { op: 'mul.lo.u64 D, A, B', d: 'u64', a: ['u64', 'u64'], ref: (a, b) => canon('u64', B(a) * B(b)) },
  { op: 'mul.hi.s64 D, A, B', d: 's64', a: ['s64', 's64'], ref: (a, b) => canon('s64', (B(a) * B(b)) >> 64n) },
  { op: 'mad.lo.s64 D, A, B, C', d: 's64', a: ['s64', 's64', 's64'], ref: (a, b, c) => canon('s64', B(a) * B(b) + B(c)) },
  { op: 'div.u64 D, A, B', d: 'u64', a: ['u64', 'u64'], ref: (a, b) => (B(b) === 0n ? (1n << 64n) - 1n : B(a) / B(b)) },
  { op: 'rem.s64 D, A, B', d: 's64', a: ['s64', 's64'], ref: (a, b) => (B(b) === 0n ? B(a) : B(a) % B(b)) },
  { op: 'shl.b64 D, A, B', d: 'b64', a: ['b64', 'u32'], gen: [undefined, shiftAmt], ref: (a, b) => (B(b) >= 64n ? 0n : canon('u64', B(a) << B(b))) },
  { op: 'shr.s64 D, A, B', d: 's64', a: ['s64', 'u32'], gen: [undefined, shiftAmt], ref: (a, b) => B(a) >> (B(b) >= 64n ? 63n : B(b)) },
  { op: 'shr.u64 D, A, B', d: 'u64', a: ['u64', 'u32'], gen: [undefined, shiftAmt], ref: (a, b) => (B(b) >= 64n ? 0n : B(a) >> B(b)) },
  { op: 'and.b64 D, A, B', d: 'b64', a: ['b64', 'b64'], ref: (a, b) => B(a) & B(b) },
  { op: 'not.b64 D, A', d: 'b64', a: ['b64'], ref: (a) => canon('u64', ~B(a)) },
  { op: 'min.s64 D, A, B', d: 's64', a: ['s64', 's64'], ref: (a, b) => (B(a) < B(b) ? B(a) : B(b)) },
  { op: 'max.u64 D, A, B', d: 'u64', a: ['u64', 'u64'], ref: (a, b) => (B(a) > B(b) ? B(a) : B(b)) },
  { op: 'neg.s64 D, A', d: 's64', a: ['s64'], ref: (a) => canon('s64', -B(a)) },
  { op: 'setp.lt.s64 D, A, B', d: 'pred', a: ['s64', 's64'], ref: (a, b) => B(a) < B(b) },
  { op: 'setp.ne.b64 D, A, B', d: 'pred', a: ['b64', 'b64'], ref: (a, b) => B(a) !== B(b) },
  { op: 'popc.b64 D, A', d: 'u32', a: ['b64'], ref: (a) => BigInt([...B(a).toString(2)].filter((x) => x === '1').length) },
  { op: 'clz.b64 D, A', d: 'u32', a: ['b64'], ref: (a) => BigInt(B(a) === 0n ? 64 : 64 - B(a).toString(2).length) },
  { op: 'bfe.u64 D, A, B, C', d: 'u64', a: ['u64', 'u32', 'u32'], gen: [undefined, small, small], ref: (a, b, c) => { const p = Number(B(b)); const l = Number(B(c)); const e = Math.max(0, Math.min(l, 64 - p)); return e === 0 ? 0n : (B(a) >> BigInt(p)) & ((1n << BigInt(e)) - 1n); } },
  // conversions
  { op: 'cvt.s64.s32 D, A', d: 's64', a: ['s32'], ref: (a) => B(a) },
  { op: 'cvt.u64.u32 D, A', d: 'u64', a: ['u32'], ref: (a) => B(a) },
  { op: 'cvt.u32.u64 D, A', d: 'u32', a: ['u64'], ref: (a) => canon('u32', B(a)) },
  { op: 'cvt.s16.s32 D, A', d: 's16', a: ['s32'], ref: (a) => canon('s16', B(a)) },
  { op: 'cvt.sat.u16.s32 D, A', d: 'u16', a: ['s32'], ref: (a) => (B(a) < 0n ? 0n : B(a) > 65535n ? 65535n : B(a)) },
  { op: 'cvt.s32.s16 D, A', d: 's32', a: ['s16'], ref: (a) => B(a) },
  { op: 'cvt.rn.f32.s32 D, A', d: 'f32', a: ['s32'], ref: (a) => f32(Number(B(a))) },
  { op: 'cvt.rz.f32.u32 D, A', d: 'f32', a: ['u32'], ref: (a) => roundF(ratOfInt(B(a)), 1) },
  { op: 'cvt.rn.f32.s64 D, A', d: 'f32', a: ['s64'], ref: (a) => roundF(ratOfInt(B(a)), 0) },
  { op: 'cvt.rp.f64.u64 D, A', d: 'f64', a: ['u64'], ref: (a) => roundF(ratOfInt(B(a)), 3, F64) },
  { op: 'cvt.rzi.s32.f32 D, A', d: 's32', a: ['f32'], ref: (a) => { const x = N(a); if (x !== x) return 0n; const t = Math.trunc(x); return t > 2147483647 ? 2147483647n : t < -2147483648 ? -2147483648n : BigInt(t); } },
  { op: 'cvt.rmi.u32.f32 D, A', d: 'u32', a: ['f32'], ref: (a) => { const x = N(a); if (x !== x) return 0n; const t = Math.floor(x); return t > 4294967295 ? 4294967295n : t < 0 ? 0n : BigInt(t); } },
  { op: 'cvt.rzi.s64.f64 D, A', d: 's64', a: ['f64'], ref: (a) => { const x = N(a); if (x !== x) return 0n; const t = Math.trunc(x); return t >= 2 ** 63 ? (1n << 63n) - 1n : t < -(2 ** 63) ? -(1n << 63n) : BigInt(t); } },
  { op: 'cvt.f64.f32 D, A', d: 'f64', a: ['f32'], ref: (a) => N(a) },
  { op: 'cvt.rn.f32.f64 D, A', d: 'f32', a: ['f64'], ref: (a) => f32(N(a)) },
  { op: 'cvt.rm.f32.f64 D, A', d: 'f32', a: ['f64'], ref: (a) => (N(a) === 0 || N(a) !== N(a) || Math.abs(N(a)) === Infinity ? N(a) : roundF(ratOfDouble(N(a)), 2)) },
  { op: 'cvt.rpi.f32.f32 D, A', d: 'f32', a: ['f32'], ref: (a) => Math.ceil(N(a)) },
  // f32
  { op: 'add.f32 D, A, B', d: 'f32', a: ['f32', 'f32'], ref: (a, b) => f32(N(a) + N(b)) },
  { op: 'sub.f32 D, A, B', d: 'f32', a: ['f32', 'f32'], ref: (a, b) => f32(N(a) - N(b)) },
  { op: 'mul.f32 D, A, B', d: 'f32', a: ['f32', 'f32'], ref: (a, b) => f32(N(a) * N(b)) },
  { op: 'add.sat.f32 D, A, B', d: 'f32', a: ['f32', 'f32'], ref: (a, b) => { const s = f32(N(a) + N(b)); return s > 1 ? 1 : s > 0 ? s : 0; } },
  { op: 'mul.ftz.f32 D, A, B', d: 'f32', a: ['f32', 'f32'], ref: (a, b) => { const ftz = (x: number) => (Math.abs(x) < 2 ** -126 ? (neg0(x) ? -0 : 0) : x); return ftz(f32(ftz(N(a)) * ftz(N(b)))); } },
  { op: 'mul.rz.f32 D, A, B', d: 'f32', a: ['f32', 'f32'], ref: (a, b) => { const p = N(a) * N(b); return p === 0 || p !== p || Math.abs(p) === Infinity ? f32(p) : roundF(mul(ratOfDouble(N(a)), ratOfDouble(N(b))), 1); } },
  { op: 'fma.rn.f32 D, A, B, C', d: 'f32', a: ['f32', 'f32', 'f32'], ref: (a, b, c) => { const s = N(a) * N(b) + N(c); if (s !== s || Math.abs(s) === Infinity) return f32(s); const q = add(mul(ratOfDouble(N(a)), ratOfDouble(N(b))), ratOfDouble(N(c))); return q.n === 0n ? f32(s) : roundF(q, 0); } },
  { op: 'div.rn.f32 D, A, B', d: 'f32', a: ['f32', 'f32'], ref: (a, b) => f32(N(a) / N(b)) },
  { op: 'div.rp.f32 D, A, B', d: 'f32', a: ['f32', 'f32'], ref: (a, b) => { const q = N(a) / N(b); return q === 0 || q !== q || Math.abs(q) === Infinity ? f32(q) : roundF(div(ratOfDouble(N(a)), ratOfDouble(N(b))), 3); } },
  { op: 'sqrt.rn.f32 D, A', d: 'f32', a: ['f32'], ref: (a) => f32(Math.sqrt(N(a))) },
  { op: 'abs.f32 D, A', d: 'f32', a: ['f32'], ref: (a) => Math.abs(N(a)) },
  { op: 'neg.f32 D, A', d: 'f32', a: ['f32'], ref: (a) => -N(a) },
  { op: 'min.f32 D, A, B', d: 'f32', a: ['f32', 'f32'], ref: (a, b) => fmin(N(a), N(b)) },
  { op: 'max.f32 D, A, B', d: 'f32', a: ['f32', 'f32'], ref: (a, b) => fmax(N(a), N(b)) },
  { op: 'copysign.f32 D, A, B', d: 'f32', a: ['f32', 'f32'], ref: (a, b) => (neg0(N(a)) ? -Math.abs(N(b)) : Math.abs(N(b))) },
  { op: 'setp.ltu.f32 D, A, B', d: 'pred', a: ['f32', 'f32'], ref: (a, b) => N(a) !== N(a) || N(b) !== N(b) || N(a) < N(b) },
  { op: 'setp.ne.f32 D, A, B', d: 'pred', a: ['f32', 'f32'], ref: (a, b) => N(a) === N(a) && N(b) === N(b) && N(a) !== N(b) },
  { op: 'testp.subnormal.f32 D, A', d: 'pred', a: ['f32'], ref: (a) => N(a) !== 0 && Math.abs(N(a)) < 2 ** -126 },
  { op: 'selp.f32 D, A, B, P', d: 'f32', a: ['f32', 'f32'], ref: (a) => a },
  // f64
  { op: 'add.f64 D, A, B', d: 'f64', a: ['f64', 'f64'], ref: (a, b) => N(a) + N(b) },
  { op: 'mul.f64 D, A, B', d: 'f64', a: ['f64', 'f64'], ref: (a, b) => N(a) * N(b) },
  { op: 'sub.rm.f64 D, A, B', d: 'f64', a: ['f64', 'f64'], ref: (a, b) => { const s = N(a) - N(b); if (s !== s || Math.abs(s) === Infinity) return s; const q = add(ratOfDouble(N(a)), ratOfDouble(-N(b))); return q.n === 0n ? (Object.is(N(a), 0) && Object.is(-N(b), 0) ? 0 : -0) : roundF(q, 2, F64); } },
  { op: 'fma.rn.f64 D, A, B, C', d: 'f64', a: ['f64', 'f64', 'f64'], ref: (a, b, c) => { const s = N(a) * N(b) + N(c); if (s !== s || Math.abs(s) === Infinity) return s; const q = add(mul(ratOfDouble(N(a)), ratOfDouble(N(b))), ratOfDouble(N(c))); return q.n === 0n ? s : roundF(q, 0, F64); } },
  { op: 'div.rn.f64 D, A, B', d: 'f64', a: ['f64', 'f64'], ref: (a, b) => N(a) / N(b) },
  { op: 'sqrt.rn.f64 D, A', d: 'f64', a: ['f64'], ref: (a) => Math.sqrt(N(a)) },
  { op: 'neg.f64 D, A', d: 'f64', a: ['f64'], ref: (a) => -N(a) },
  { op: 'abs.f64 D, A', d: 'f64', a: ['f64'], ref: (a) => Math.abs(N(a)) },
  { op: 'min.f64 D, A, B', d: 'f64', a: ['f64', 'f64'], ref: (a, b) => fmin(N(a), N(b)) },
  { op: 'setp.geu.f64 D, A, B', d: 'pred', a: ['f64', 'f64'], ref: (a, b) => N(a) !== N(a) || N(b) !== N(b) || N(a) >= N(b) },
  { op: 'selp.b64 D, A, B, P', d: 'b64', a: ['b64', 'b64'], ref: (a) => a },
];

/** Builds the kernel of one case: loads each operand from its array, runs the op, stores D. */
function kernelFor(c: Case): string {
  const regs = c.a.map((t, i) => `${REG[t]}${i + 1}`);
  const dReg = `${REG[c.d]}5`;
  let body = c.op.replace('D', dReg).replace('A', regs[0] ?? '').replace('B', regs[1] ?? '').replace(/\bC\b/, regs[2] ?? '').replace(/\bE\b/, regs[3] ?? '').replace(/\bP\b/, '%p3');
  const lines: string[] = [];
  c.a.forEach((t, i) => {
    lines.push(`mul.lo.u64 %rd20, %rd30, ${SIZE[t]};`);
    lines.push(`add.s64 %rd21, %rd${11 + i}, %rd20;`);
    lines.push(`ld.global.${t === 'b16' || t === 'u16' || t === 's16' ? 'b16' : t} ${regs[i]}, [%rd21];`);
  });
  lines.push('setp.ne.u32 %p3, 0, 1;'); // selp selects A (p true)
  lines.push(body + ';');
  let dStore = dReg;
  let dt: string = c.d;
  if (c.d === 'pred') {
    lines.push(`selp.u32 %r9, 1, 0, ${dReg};`);
    dStore = '%r9';
    dt = 'u32';
  }
  lines.push(`mul.lo.u64 %rd20, %rd30, ${SIZE[c.d]};`);
  lines.push(`add.s64 %rd21, %rd15, %rd20;`);
  lines.push(`st.global.${dt === 'u16' || dt === 's16' ? 'b16' : dt} [%rd21], ${dStore};`);
  body = lines.join('\n  ');
  return `
.visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pe, .param .u64 pd)
{
  .reg .pred %p<6>;
  .reg .b16 %h<10>;
  .reg .b32 %r<10>;
  .reg .b64 %rd<40>;
  .reg .f32 %f<10>;
  .reg .f64 %fd<10>;
  ld.param.u64 %rd11, [pa];
  ld.param.u64 %rd12, [pb];
  ld.param.u64 %rd13, [pc];
  ld.param.u64 %rd14, [pe];
  ld.param.u64 %rd15, [pd];
  mov.u32 %r8, %tid.x;
  cvt.u64.u32 %rd30, %r8;
  ${body}
  ret;
}`;
}

function encode(t: T, vals: readonly V[]): Uint8Array {
  const buf = new ArrayBuffer(Math.max(8, vals.length * SIZE[t]));
  const dv = new DataView(buf);
  vals.forEach((v, i) => {
    const o = i * SIZE[t];
    if (t === 'f32') dv.setFloat32(o, N(v), true);
    else if (t === 'f64') dv.setFloat64(o, N(v), true);
    else if (SIZE[t] === 2) dv.setUint16(o, Number(BigInt.asUintN(16, B(v))), true);
    else if (SIZE[t] === 4) dv.setUint32(o, Number(BigInt.asUintN(32, B(v))), true);
    else dv.setBigUint64(o, BigInt.asUintN(64, B(v)), true);
  });
  return new Uint8Array(buf);
}

function decode(t: T, bytes: Uint8Array, i: number): V {
  const dv = new DataView(bytes.buffer, bytes.byteOffset);
  const o = i * SIZE[t];
  if (t === 'pred') return dv.getUint32(o, true) === 1;
  if (t === 'f32') return dv.getFloat32(o, true);
  if (t === 'f64') return dv.getFloat64(o, true);
  const raw = SIZE[t] === 2 ? BigInt(dv.getUint16(o, true)) : SIZE[t] === 4 ? BigInt(dv.getUint32(o, true)) : dv.getBigUint64(o, true);
  return canon(t, raw);
}

function same(got: V, want: V): boolean {
  if (typeof got === 'number' && typeof want === 'number') return Object.is(got, want) || (got !== got && want !== want);
  return got === want;
}

describe('every compiled instruction form matches an independent reference on 64 lanes', () => {
  const LANES = 64;
  for (const [ci, c] of cases.entries()) {
    it(c.op, () => {
      const m = ptx(kernelFor(c), `case${ci}.ptx`);
      const mem = new GlobalMemory();
      const inputs = c.a.map((t, i) => {
        const g = c.gen?.[i];
        return g ? Array.from({ length: LANES }, (_, l) => (isInt(t) ? canon(t, B(g(l))) : g(l))) : values(t, LANES, 1234 + 77 * i + ci);
      });
      const ptrs = [0, 1, 2, 3].map((i) => (i < inputs.length ? mem.upload(encode(c.a[i]!, inputs[i]!)) : mem.allocate(8)));
      const out = mem.allocate(LANES * SIZE[c.d]);
      runFunctional(new FunctionalKernel({ module: m, entry: 'k', grid: 1, block: LANES, args: [...ptrs, out], memory: mem }));
      const bytes = mem.read(out, LANES * SIZE[c.d]);
      const bad: string[] = [];
      for (let l = 0; l < LANES; l++) {
        const want = c.ref(...inputs.map((v) => v[l]!));
        const got = decode(c.d, bytes, l);
        if (!same(got, want)) bad.push(`lane ${l}: (${inputs.map((v) => String(v[l])).join(', ')}) -> got ${String(got)}, want ${String(want)}`);
      }
      expect(bad.slice(0, 5)).toEqual([]);
    });
  }
});
