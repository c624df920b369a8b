/**
 * Combine functions of `atom` and `red` (PTX ISA 9.0 §9.7.13.5-6): given the old memory value
 * and the operands, the value written back. `atom` returns the old value in its destination;
 * these functions only compute the new one.
 *
 * ```
 * inc(r, s) = (r >= s) ? 0 : r + 1          (.u32)
 * dec(r, s) = (r == 0 || r > s) ? s : r - 1  (.u32)
 * cas(r, s, t) = (r == s) ? t : r
 * exch(r, s) = s
 * ```
 * `op` is an `AtomOp` code from `src/isa/ir.ts`.
 */

import { AtomOp } from '../../isa/ir.ts';
import { addF32 } from './float.ts';
import { wrap64, wrapInt } from './int.ts';

/** Interpretation of a 32-bit atomic operand. */
export type Atom32Kind = 'u32' | 's32' | 'b32' | 'f32';

/**
 * New value of a 32-bit atomic. `old`, `b`, `c` are values of `kind` (u32/b32 as 0..2^32-1, s32
 * signed, f32 numbers). `ftz` applies to `.f32 add` on global memory (see `atomAddF32`).
 * Returns the value in the same representation. Unsupported op/kind pairs (refused by the
 * parser) return `old`.
 */
export function atomic32(op: number, old: number, b: number, c: number, kind: Atom32Kind, ftz: boolean): number {
  if (kind === 'f32') {
    if (op === AtomOp.Add) return addF32(old, b, 0, ftz, false);
    if (op === AtomOp.Exch) return b;
    if (op === AtomOp.Cas) return old === b ? c : old;
    return old;
  }
  const signed = kind === 's32';
  switch (op) {
    case AtomOp.Add:
      return wrapInt(old + b, 32, signed);
    case AtomOp.Min:
      return old < b ? old : b;
    case AtomOp.Max:
      return old > b ? old : b;
    case AtomOp.Inc:
      return (old >>> 0) >= (b >>> 0) ? 0 : wrapInt(old + 1, 32, signed);
    case AtomOp.Dec:
      return old === 0 || (old >>> 0) > (b >>> 0) ? b : wrapInt(old - 1, 32, signed);
    case AtomOp.Cas:
      return old === b ? c : old;
    case AtomOp.Exch:
      return b;
    case AtomOp.And:
      return wrapInt(old & b, 32, signed);
    case AtomOp.Or:
      return wrapInt(old | b, 32, signed);
    case AtomOp.Xor:
      return wrapInt(old ^ b, 32, signed);
    default:
      return old;
  }
}

/**
 * New value of a 64-bit integer atomic (`.u64 .s64 .b64`; canonical bigints, `signed` for
 * `.s64`). `inc`/`dec` are defined by PTX for `.u32` only; on 64 bits they use the same formulas.
 */
export function atomic64(op: number, old: bigint, b: bigint, c: bigint, signed: boolean): bigint {
  switch (op) {
    case AtomOp.Add:
      return wrap64(old + b, signed);
    case AtomOp.Min:
      return old < b ? old : b;
    case AtomOp.Max:
      return old > b ? old : b;
    case AtomOp.Inc:
      return BigInt.asUintN(64, old) >= BigInt.asUintN(64, b) ? 0n : wrap64(old + 1n, signed);
    case AtomOp.Dec:
      return old === 0n || BigInt.asUintN(64, old) > BigInt.asUintN(64, b) ? b : wrap64(old - 1n, signed);
    case AtomOp.Cas:
      return old === b ? c : old;
    case AtomOp.Exch:
      return b;
    case AtomOp.And:
      return wrap64(old & b, signed);
    case AtomOp.Or:
      return wrap64(old | b, signed);
    case AtomOp.Xor:
      return wrap64(old ^ b, signed);
    default:
      return old;
  }
}

/** New value of `atom.add.f64` (round to nearest), `exch` and `cas` on `.f64` bit patterns are done as `.b64`. */
export function atomicF64(op: number, old: number, b: number): number {
  if (op === AtomOp.Add) return old + b;
  if (op === AtomOp.Exch) return b;
  return old;
}
