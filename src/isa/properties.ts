/**
 * Static per-instruction properties for the timing model (GitHub issue 3, item 3): execution
 * class, registers read and written, bytes accessed, long-latency flag.
 *
 * The parser fills these fields on every {@link Instruction} it returns; the functions are
 * exported so that code building instructions by hand (tests, trace front ends) can reuse them.
 * The class choices are documented on {@link OpClass}.
 */
import {
  OpClass,
  Opcode,
  OperandKind,
  SCALAR_TYPE_BITS,
  ScalarType,
  StateSpace,
} from './ir.ts';
import type { Instruction, Operand } from './ir.ts';

/**
 * Execution-unit class of an instruction (see {@link OpClass} for the rules).
 *
 * @param ins a decoded instruction (only `op`, `type`, `type2`, `approx`, `space` are read).
 * @returns the class code.
 */
export function classifyInstruction(
  ins: Pick<Instruction, 'op' | 'type' | 'type2' | 'approx'>,
): OpClass {
  const f64 = ins.type === ScalarType.F64;
  switch (ins.op) {
    case Opcode.Ld:
    case Opcode.Ldu:
    case Opcode.Tex:
    case Opcode.Tld4:
    case Opcode.Suld:
      return OpClass.Load;
    case Opcode.St:
    case Opcode.Sust:
      return OpClass.Store;
    case Opcode.Atom:
    case Opcode.Red:
      return OpClass.Atomic;
    case Opcode.Bar:
      return OpClass.Barrier;
    case Opcode.Bra:
      return OpClass.Branch;
    case Opcode.Membar:
      return OpClass.Membar;
    case Opcode.Call:
      return OpClass.Call;
    case Opcode.Ret:
      return OpClass.Ret;
    case Opcode.Exit:
    case Opcode.Trap:
      return OpClass.Exit;
    case Opcode.Shfl:
    case Opcode.Vote:
    case Opcode.Match:
    case Opcode.Activemask:
    case Opcode.BarWarpSync:
    case Opcode.Nanosleep:
      return OpClass.Other;
    case Opcode.Mul:
    case Opcode.Mad:
      if (ins.type === ScalarType.F32 || ins.type === ScalarType.F16) return OpClass.Alu;
      if (f64) return OpClass.Dp;
      return OpClass.IntMul;
    case Opcode.Mul24:
    case Opcode.Mad24:
    case Opcode.Madc:
      return OpClass.IntMul;
    case Opcode.Div:
      if (ins.type === ScalarType.F32) return OpClass.Sfu;
      if (f64) return OpClass.Dp;
      return OpClass.IntDiv;
    case Opcode.Rem:
      return OpClass.IntDiv;
    case Opcode.Rcp:
    case Opcode.Rsqrt:
      if (f64 && !ins.approx) return OpClass.Dp;
      return OpClass.Sfu;
    case Opcode.Sqrt:
      return f64 ? OpClass.Dp : OpClass.Sfu;
    case Opcode.Ex2:
    case Opcode.Lg2:
    case Opcode.Sin:
    case Opcode.Cos:
      return OpClass.Sfu;
    case Opcode.Add:
    case Opcode.Sub:
    case Opcode.Fma:
    case Opcode.Min:
    case Opcode.Max:
    case Opcode.Abs:
    case Opcode.Neg:
    case Opcode.Copysign:
      return f64 ? OpClass.Dp : OpClass.Alu;
    case Opcode.Cvt:
      return f64 || ins.type2 === ScalarType.F64 ? OpClass.Dp : OpClass.Alu;
    default:
      return OpClass.Alu;
  }
}

/**
 * Bytes accessed per thread by a memory instruction: element size x vector width for
 * `ld/ldu/st/suld/sust`, element size for `atom/red`, the 16 destination bytes for `tex`/`tld4`
 * (the texels a fetch reads depend on the bound texture: the functional model reports their
 * size per step); 0 for every other instruction.
 */
export function accessBytes(ins: Pick<Instruction, 'op' | 'type' | 'vec'>): number {
  switch (ins.op) {
    case Opcode.Ld:
    case Opcode.Ldu:
    case Opcode.St:
    case Opcode.Suld:
    case Opcode.Sust:
    case Opcode.Tex:
    case Opcode.Tld4:
      return (SCALAR_TYPE_BITS[ins.type]! >> 3) * ins.vec;
    case Opcode.Atom:
    case Opcode.Red:
      return SCALAR_TYPE_BITS[ins.type]! >> 3;
    default:
      return 0;
  }
}

/**
 * Whether an instruction's result (or completion) comes back after a long, variable memory
 * latency: `ld`/`ldu` from global, local or generic space, and `atom`/`red` outside shared
 * memory, and `tex`/`tld4`/`suld`. These are the producers of "long-op registers" in phase analysis (paper 000
 * §3.4.2.1) and the loads ELF counts (paper 004 §3.1 excludes shared, const and param loads).
 */
export function isLongLatency(ins: Pick<Instruction, 'op' | 'space'>): boolean {
  switch (ins.op) {
    case Opcode.Ld:
    case Opcode.Ldu:
      return ins.space === StateSpace.Global || ins.space === StateSpace.Local || ins.space === StateSpace.Generic;
    case Opcode.Tex:
    case Opcode.Tld4:
    case Opcode.Suld:
      return true;
    case Opcode.Atom:
    case Opcode.Red:
      return ins.space !== StateSpace.Shared;
    default:
      return false;
  }
}

function pushUnique(list: number[], r: number): void {
  if (r >= 0 && list.indexOf(r) < 0) list.push(r);
}

function collectRead(op: Operand, out: number[]): void {
  switch (op.kind) {
    case OperandKind.Reg:
    case OperandKind.Addr:
      pushUnique(out, op.reg);
      break;
    case OperandKind.Vec:
      for (const e of op.elems) collectRead(e, out);
      break;
    default:
      break;
  }
}

/**
 * Registers an instruction reads and writes, deduplicated, in first-use order.
 *
 * Reads: the guard predicate, every source operand's register, address base registers, vector
 * elements, `call` argument registers, and the carry register for `addc/subc/madc`. Writes: every
 * destination register (both of `p|q`, vector elements) and the carry register when `.cc`.
 *
 * @param ins the instruction.
 * @param carryReg index of the function's hidden carry register, or -1.
 * @returns `[srcRegs, dstRegs]` as fresh Int32Arrays.
 */
export function instructionRegisters(
  ins: Pick<Instruction, 'op' | 'guard' | 'src' | 'dst' | 'callArgs' | 'callRets' | 'cc'>,
  carryReg: number,
): [Int32Array, Int32Array] {
  const src: number[] = [];
  const dst: number[] = [];
  if (ins.guard >= 0) src.push(ins.guard);
  for (const o of ins.src) collectRead(o, src);
  for (const o of ins.callArgs) collectRead(o, src);
  if ((ins.op === Opcode.Addc || ins.op === Opcode.Subc || ins.op === Opcode.Madc) && carryReg >= 0) pushUnique(src, carryReg);
  for (const o of ins.dst) {
    if (o.kind === OperandKind.Reg) pushUnique(dst, o.reg);
    else if (o.kind === OperandKind.Vec) {
      for (const e of o.elems) if (e.kind === OperandKind.Reg) pushUnique(dst, e.reg);
    }
  }
  for (const o of ins.callRets) if (o.kind === OperandKind.Reg) pushUnique(dst, o.reg);
  if (ins.cc && carryReg >= 0) pushUnique(dst, carryReg);
  return [Int32Array.from(src), Int32Array.from(dst)];
}
