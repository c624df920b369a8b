/**
 * Lane-level building blocks of the compiled instructions: value kinds, reading and writing one
 * lane of a register in the canonical representation of `ops/`, the generic lane loop, and the
 * specialised loops of the most frequent instruction forms (copies, 64-bit add/sub/shift on word
 * pairs, `mul.wide.{s,u}32`, round-to-nearest f32/f64 arithmetic).
 *
 * Register-file layout: see `exec-types.ts`.
 */

import { Opcode, ScalarType } from '../isa/ir.ts';
import type { Exec, ExecWarp, Slot } from './exec-types.ts';

// ---------------------------------------------------------------------------------------------
// Value kinds
// ---------------------------------------------------------------------------------------------

/** Value kind of an operand as an instruction reads it. */
export const K = { U8: 0, S8: 1, U16: 2, S16: 3, U32: 4, S32: 5, U64: 6, S64: 7, F16: 8, F32: 9, F64: 10, Pred: 11 } as const;
/** A {@link K} code. */
export type Kd = (typeof K)[keyof typeof K];

/** {@link K} of each `ScalarType` code (bit types read as unsigned; `None`/`Pred` as Pred). */
const KIND_BY_TYPE: readonly Kd[] = [
  K.Pred, // None
  K.U8, K.U16, K.U32, K.U64, // B8..B64
  K.U8, K.U16, K.U32, K.U64, // U8..U64
  K.S8, K.S16, K.S32, K.S64, // S8..S64
  K.F16, K.F32, K.F64,
  K.Pred,
];

/** Kind of a scalar type (bit types read as unsigned). */
export function kindOf(t: ScalarType): Kd {
  return KIND_BY_TYPE[t] ?? K.Pred;
}

/** A lane value in the canonical representation of `ops/`. */
export type Val = number | bigint;
/** Per-lane function of the generic loop. */
export type ValFn = (a: Val, b: Val, c: Val, d: Val, w: ExecWarp, l: number) => Val;

/** Placeholder slot for absent operands. */
export const NOSLOT: Slot = { slot: 0, bits: 32, neg: false };

// ---------------------------------------------------------------------------------------------
// Generic lane access
// ---------------------------------------------------------------------------------------------

/** Reads lane `l` of `s` as kind `k`, canonical (numbers; bigints for 64-bit integers; 0/1 for predicates). */
export function rd(w: ExecWarp, k: Kd, s: Slot, l: number): Val {
  const i = s.bits === 64 ? s.slot + 2 * l : s.slot + l;
  switch (k) {
    case K.U8:
      return w.u32[i]! & 0xff;
    case K.S8:
      return (w.u32[i]! << 24) >> 24;
    case K.U16:
    case K.F16:
      return w.u32[i]! & 0xffff;
    case K.S16:
      return (w.u32[i]! << 16) >> 16;
    case K.U32:
      return w.u32[i]!;
    case K.S32:
      return w.i32[i]!;
    case K.F32:
      return w.f32[i]!;
    case K.F64:
      return w.f64[(s.slot >> 1) + l]!;
    case K.U64:
      return s.bits === 64 ? w.u64[(s.slot >> 1) + l]! : BigInt(w.u32[i]!);
    case K.S64:
      return s.bits === 64 ? w.s64[(s.slot >> 1) + l]! : BigInt(w.i32[i]!);
    default: {
      const bit = (w.preds[s.slot]! >>> l) & 1;
      return s.neg ? bit ^ 1 : bit;
    }
  }
}

/** Writes `v` (canonical for kind `k`) into lane `l` of register `s`, extending or truncating to its width. */
export function wr(w: ExecWarp, k: Kd, s: Slot, l: number, v: Val): void {
  if (k === K.Pred) {
    const m = 1 << l;
    w.preds[s.slot] = v ? w.preds[s.slot]! | m : w.preds[s.slot]! & ~m;
    return;
  }
  if (typeof v === 'bigint') {
    if (s.bits === 64) w.u64[(s.slot >> 1) + l] = v;
    else w.u32[s.slot + l] = Number(BigInt.asUintN(32, v)) & widthMask(s.bits);
    return;
  }
  switch (s.bits) {
    case 64:
      if (k === K.F64) w.f64[(s.slot >> 1) + l] = v;
      else {
        const i = s.slot + 2 * l;
        w.u32[i] = v;
        w.u32[i + 1] = v < 0 ? 0xffffffff : 0;
      }
      return;
    case 32:
      if (k === K.F32) w.f32[s.slot + l] = v;
      else w.u32[s.slot + l] = v;
      return;
    default:
      w.u32[s.slot + l] = v & widthMask(s.bits);
  }
}

export function widthMask(bits: number): number {
  return bits >= 32 ? 0xffffffff : bits === 16 ? 0xffff : 0xff;
}

/** Generic lane loop: `dst = f(srcs...)` for every lane in the mask. */
export function generic(dst: Slot, dk: Kd, srcs: readonly Slot[], sks: readonly Kd[], f: ValFn): Exec {
  const n = srcs.length;
  const s0 = srcs[0] ?? NOSLOT;
  const s1 = srcs[1] ?? NOSLOT;
  const s2 = srcs[2] ?? NOSLOT;
  const s3 = srcs[3] ?? NOSLOT;
  const k0 = sks[0] ?? K.U32;
  const k1 = sks[1] ?? K.U32;
  const k2 = sks[2] ?? K.U32;
  const k3 = sks[3] ?? K.U32;
  return (w, mask) => {
    for (let l = 0; l < 32; l++) {
      if (((mask >>> l) & 1) === 0) continue;
      const a = n > 0 ? rd(w, k0, s0, l) : 0;
      const b = n > 1 ? rd(w, k1, s1, l) : 0;
      const c = n > 2 ? rd(w, k2, s2, l) : 0;
      const d = n > 3 ? rd(w, k3, s3, l) : 0;
      wr(w, dk, dst, l, f(a, b, c, d, w, l));
    }
  };
}

/** Reads lane `l` of an address register (32- or 64-bit) as a number. */
export function addrReg(w: ExecWarp, s: Slot, l: number): number {
  if (s.bits === 64) {
    const i = s.slot + 2 * l;
    return w.u32[i]! + w.u32[i + 1]! * 4294967296;
  }
  return w.u32[s.slot + l]!;
}

/**
 * A 64-bit register plus an immediate offset as an address, wrapping modulo 2^64 as PTX
 * defines `[reg+imm]` (a register holding `p - 8` as two's complement, plus 8, is `p`).
 * Exact for every address below 2^53; anything that wraps elsewhere lands far outside every
 * memory window and faults there.
 * @param off immediate offset, |off| < 2^31
 */
export function addrRegOffset64(w: ExecWarp, s: Slot, l: number, off: number): number {
  const i = s.slot + 2 * l;
  const lo = w.u32[i]!;
  const hi = w.u32[i + 1]!;
  const v = lo + off;
  if (v >= 4294967296) return hi === 0xffffffff ? v - 4294967296 : (hi + 1) * 4294967296 + (v - 4294967296);
  if (v < 0) return hi === 0 ? 18446744073709551616 + v : (hi - 1) * 4294967296 + (v + 4294967296);
  return hi * 4294967296 + v;
}

// ---------------------------------------------------------------------------------------------
// Specialised lane loops
// ---------------------------------------------------------------------------------------------

/** Register/immediate copy of `bits` bits. */
export function copy(d: Slot, a: Slot, bits: number): Exec {
  if (bits === 64) {
    return (w, mask) => {
      const u = w.u32;
      for (let l = 0; l < 32; l++) {
        if (((mask >>> l) & 1) === 0) continue;
        u[d.slot + 2 * l] = u[a.slot + 2 * l]!;
        u[d.slot + 2 * l + 1] = a.bits === 64 ? u[a.slot + 2 * l + 1]! : 0;
      }
    };
  }
  const m = widthMask(Math.min(bits, d.bits));
  return (w, mask) => {
    const u = w.u32;
    for (let l = 0; l < 32; l++) if ((mask >>> l) & 1) u[d.slot + l] = u[a.bits === 64 ? a.slot + 2 * l : a.slot + l]! & m;
  };
}

/** 64-bit add/sub on word pairs (carry by comparison, no BigInt). */
export function add64Pair(d: Slot, a: Slot, b: Slot, isSub: boolean): Exec {
  return (w, mask) => {
    const u = w.u32;
    for (let l = 0; l < 32; l++) {
      if (((mask >>> l) & 1) === 0) continue;
      const ia = a.slot + 2 * l;
      const ib = b.slot + 2 * l;
      const id = d.slot + 2 * l;
      const alo = u[ia]!;
      const blo = u[ib]!;
      const ahi = u[ia + 1]!;
      const bhi = u[ib + 1]!;
      if (isSub) {
        const lo = alo - blo;
        u[id] = lo;
        u[id + 1] = ahi - bhi - (lo < 0 ? 1 : 0);
      } else {
        const lo = alo + blo;
        u[id] = lo;
        u[id + 1] = ahi + bhi + (lo > 4294967295 ? 1 : 0);
      }
    }
  };
}

/** `mul.wide.{s,u}32`: exact product in a double when it fits 53 bits, else BigInt. */
export function mulWide32(d: Slot, a: Slot, b: Slot, signed: boolean): Exec {
  return (w, mask) => {
    const u = w.u32;
    const i = w.i32;
    for (let l = 0; l < 32; l++) {
      if (((mask >>> l) & 1) === 0) continue;
      const x = signed ? i[a.slot + l]! : u[a.slot + l]!;
      const y = signed ? i[b.slot + l]! : u[b.slot + l]!;
      const p = x * y;
      const id = d.slot + 2 * l;
      if (p > -9007199254740992 && p < 9007199254740992) {
        u[id] = p;
        u[id + 1] = Math.floor(p / 4294967296);
      } else {
        w.u64[(d.slot >> 1) + l] = BigInt(x) * BigInt(y);
      }
    }
  };
}

/** 64-bit shifts on word pairs; amounts >= 64 clamp (0, or the sign fill for shr.s64). */
export function shift64Pair(d: Slot, a: Slot, b: Slot, isShl: boolean, signed: boolean): Exec {
  return (w, mask) => {
    const u = w.u32;
    for (let l = 0; l < 32; l++) {
      if (((mask >>> l) & 1) === 0) continue;
      const ia = a.slot + 2 * l;
      const id = d.slot + 2 * l;
      const lo = u[ia]!;
      const hi = u[ia + 1]!;
      const s = u[b.bits === 64 ? b.slot + 2 * l : b.slot + l]!;
      let rlo: number;
      let rhi: number;
      if (isShl) {
        if (s >= 64) {
          rlo = 0;
          rhi = 0;
        } else if (s >= 32) {
          rlo = 0;
          rhi = lo << (s - 32);
        } else if (s === 0) {
          rlo = lo;
          rhi = hi;
        } else {
          rlo = lo << s;
          rhi = (hi << s) | (lo >>> (32 - s));
        }
      } else {
        const fill = signed && hi & 0x80000000 ? 0xffffffff : 0;
        if (s >= 64) {
          rlo = fill;
          rhi = fill;
        } else if (s >= 32) {
          rhi = fill;
          rlo = signed ? (hi | 0) >> (s - 32) : hi >>> (s - 32);
        } else if (s === 0) {
          rlo = lo;
          rhi = hi;
        } else {
          rlo = (lo >>> s) | (hi << (32 - s));
          rhi = signed ? (hi | 0) >> s : hi >>> s;
        }
      }
      u[id] = rlo;
      u[id + 1] = rhi;
    }
  };
}

/** f32/f64 add/sub/mul in round-to-nearest without .ftz/.sat: the typed-array store rounds once. */
export function plainArith(d: Slot, a: Slot, b: Slot, op: number, is32: boolean): Exec {
  if (is32) {
    if (op === Opcode.Add) {
      return (w, mask) => {
        const f = w.f32;
        for (let l = 0; l < 32; l++) if ((mask >>> l) & 1) f[d.slot + l] = f[a.slot + l]! + f[b.slot + l]!;
      };
    }
    if (op === Opcode.Sub) {
      return (w, mask) => {
        const f = w.f32;
        for (let l = 0; l < 32; l++) if ((mask >>> l) & 1) f[d.slot + l] = f[a.slot + l]! - f[b.slot + l]!;
      };
    }
    return (w, mask) => {
      const f = w.f32;
      for (let l = 0; l < 32; l++) if ((mask >>> l) & 1) f[d.slot + l] = f[a.slot + l]! * f[b.slot + l]!;
    };
  }
  const dh = d.slot >> 1;
  const ah = a.slot >> 1;
  const bh = b.slot >> 1;
  return (w, mask) => {
    const f = w.f64;
    for (let l = 0; l < 32; l++) {
      if (((mask >>> l) & 1) === 0) continue;
      const x = f[ah + l]!;
      const y = f[bh + l]!;
      f[dh + l] = op === Opcode.Add ? x + y : op === Opcode.Sub ? x - y : x * y;
    }
  };
}
