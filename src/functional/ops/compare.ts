/**
 * Comparisons and selects: `setp`, `set`, `selp`, `slct` (PTX ISA 9.0 §9.7.4
 * "Comparison and Selection Instructions", Tables 21-23 for the operators).
 *
 * `op` is a `CmpOp` code from `src/isa/ir.ts`. Integer operands are canonical values of the
 * compared type (signed or unsigned numbers/bigints), so one JS comparison implements both
 * the signed (`lt`) and the unsigned (`lo`) operators. Float operators: `eq..ge` are ordered
 * (false when either operand is NaN), `equ..geu` unordered (true when either is NaN), `num`
 * true when neither is NaN, `nan` when either is.
 */

import { BoolOp, CmpOp } from '../../isa/ir.ts';
import { ftzF32 } from './fp-bits.ts';

/** Integer comparison (numbers or bigints of the same compared type). `Num`/`Nan` are not integer operators: false. */
export function compareInt(op: number, a: number | bigint, b: number | bigint): boolean {
  switch (op) {
    case CmpOp.Eq:
      return a === b;
    case CmpOp.Ne:
      return a !== b;
    case CmpOp.Lt:
      return a < b;
    case CmpOp.Le:
      return a <= b;
    case CmpOp.Gt:
      return a > b;
    case CmpOp.Ge:
      return a >= b;
    default:
      return false;
  }
}

/**
 * Float comparison with PTX's ordered/unordered rules. `ftz` (`setp.ftz.f32`) flushes subnormal
 * operands to zero first. +0 and -0 compare equal.
 */
export function compareFloat(op: number, a: number, b: number, ftz: boolean): boolean {
  if (ftz) {
    a = ftzF32(a);
    b = ftzF32(b);
  }
  const unordered = a !== a || b !== b;
  switch (op) {
    case CmpOp.Eq:
      return a === b;
    case CmpOp.Ne:
      return !unordered && a !== b;
    case CmpOp.Lt:
      return a < b;
    case CmpOp.Le:
      return a <= b;
    case CmpOp.Gt:
      return a > b;
    case CmpOp.Ge:
      return a >= b;
    case CmpOp.Equ:
      return unordered || a === b;
    case CmpOp.Neu:
      return unordered || a !== b;
    case CmpOp.Ltu:
      return unordered || a < b;
    case CmpOp.Leu:
      return unordered || a <= b;
    case CmpOp.Gtu:
      return unordered || a > b;
    case CmpOp.Geu:
      return unordered || a >= b;
    case CmpOp.Num:
      return !unordered;
    case CmpOp.Nan:
      return unordered;
    default:
      return false;
  }
}

/**
 * Combines a comparison result with the predicate operand `c` of `setp.op.bool`/`set.op.bool`
 * (`.and/.or/.xor`; `BoolOp.None` returns `t`). PTX ISA §9.7.4.2: `p = BoolOp(t, c)` and, for the
 * second destination, `q = BoolOp(!t, c)`.
 */
export function combineBool(t: boolean, boolOp: number, c: boolean): boolean {
  switch (boolOp) {
    case BoolOp.And:
      return t && c;
    case BoolOp.Or:
      return t || c;
    case BoolOp.Xor:
      return t !== c;
    default:
      return t;
  }
}

/**
 * Value `set` writes for a result `t` (PTX ISA §9.7.4.1): integer destinations get all ones
 * (0xffffffff for `.u32`, -1 for `.s32`) or 0; `.f32` gets 1.0 or 0.0.
 * `dst` is `'u32' | 's32' | 'f32'`.
 */
export function setResult(t: boolean, dst: 'u32' | 's32' | 'f32'): number {
  if (dst === 'f32') return t ? 1 : 0;
  if (dst === 's32') return t ? -1 : 0;
  return t ? 0xffffffff : 0;
}

/** `selp.type d, a, b, c`: `c ? a : b` (PTX ISA §9.7.4.3). */
export function selp<T>(a: T, b: T, c: boolean): T {
  return c ? a : b;
}

/** `slct.dtype.s32 d, a, b, c`: `c >= 0 ? a : b` (PTX ISA §9.7.4.4). */
export function slctS32(a: number, b: number, c: number): number {
  return (c | 0) >= 0 ? a : b;
}

/**
 * `slct{.ftz}.dtype.f32 d, a, b, c`: `c >= 0.0 ? a : b`; -0 counts as >= 0, NaN selects `b`
 * (PTX ISA §9.7.4.4). `.ftz` flushes a subnormal `c`.
 */
export function slctF32(a: number, b: number, c: number, ftz: boolean): number {
  if (ftz) c = ftzF32(c);
  return c >= 0 ? a : b;
}
