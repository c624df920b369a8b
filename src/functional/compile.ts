/**
 * Translates a kernel's PTX IR into executable per-instruction closures over the warp register
 * file (see `exec-types.ts` for the layout), once per kernel entry (cached).
 *
 * Every data instruction becomes one closure `(warp, mask) => void` that loops over the active
 * lanes. Frequent forms (32-bit integer arithmetic, 64-bit address arithmetic, f32/f64
 * arithmetic in round-to-nearest, scalar loads/stores, compares) get dedicated loops on the typed
 * views; every other form goes through a generic lane loop that reads operands in the canonical
 * representation of `ops/` (numbers, bigints for 64-bit integers) and calls the scalar semantics
 * there. No object is allocated per lane or per executed instruction (BigInt values of 64-bit
 * integer ops aside).
 *
 * Source: PTX ISA 9.0 chapter 9 for each instruction's semantics (via `ops/`), §6.4 for operand
 * and address forms, §6.4.1 for generic addressing.
 */

import { InputError } from '../errors.ts';
import {
  BarOp,
  BarRedOp,
  BoolOp,
  CmpOp,
  MulMode,
  Opcode,
  OperandKind,
  Rounding,
  SCALAR_TYPE_BITS,
  SCALAR_TYPE_KIND,
  SPECIAL_REG_BITS,
  ScalarType,
  ShflMode,
  SpecialReg,
  StateSpace,
  Syscall,
  TypeKind,
  VarKind,
  VoteMode,
} from '../isa/ir.ts';
import type { Instruction, Operand, PtxFunction, PtxModule } from '../isa/ir.ts';
import { reconvergencePcs } from '../isa/cfg.ts';
import * as I from './ops/int.ts';
import * as F from './ops/float.ts';
import * as H from './ops/half.ts';
import * as C from './ops/cvt.ts';
import { combineBool, compareFloat, compareInt, slctF32 } from './ops/compare.ts';
import { atomic32, atomic64, atomicF64, type Atom32Kind } from './ops/atomic.ts';
import { bitsToF16, f16ToBits } from './ops/fp-bits.ts';
import { roundToIntegral, twoSumError, type RoundMode } from './ops/fp-round.ts';
import { K, NOSLOT, add64Pair, addrReg, addrRegOffset64, copy, generic, kindOf, mulWide32, plainArith, rd, shift64Pair, widthMask, type Kd, type Val } from './lanes.ts';
import { check, loadElem, memLoop, resolve, storeElem, windowBase } from './mem-access.ts';
import { InstrKind, type CallPlan, type CompiledInstr, type Exec, type ExecWarp, type FrameCopy, type IndirectCall, type Slot } from './exec-types.ts';
import { surfaceExec, texFetchExec, texQueryExec, type TexOperand } from './texture-exec.ts';

// ---------------------------------------------------------------------------------------------
// Kernel compilation
// ---------------------------------------------------------------------------------------------

/** A special register slot to fill when a warp is created (or refreshed, for clocks). */
export interface SpecialSlot {
  readonly sreg: SpecialReg;
  readonly component: number;
  readonly slot: number;
  readonly bits: number;
}

/** One function of a compiled kernel. */
export interface CompiledFunction {
  readonly fn: PtxFunction;
  readonly index: number;
  readonly code: readonly CompiledInstr[];
  /** Per register index: word slot (data) or predicate index. */
  readonly regSlots: Int32Array;
  /** Byte offset of the function's frame (params, returns, body `.local`/`.param`) in local space. */
  readonly frameBase: number;
}

/** A kernel entry compiled with every function it calls. */
export interface CompiledKernel {
  readonly module: PtxModule;
  readonly entry: number;
  /** By module function index; undefined for functions the kernel never calls. */
  readonly functions: readonly (CompiledFunction | undefined)[];
  /** u32 words of a warp register file. */
  readonly regWords: number;
  /** Predicate registers (index 0 is constant false, 1 constant true). */
  readonly predCount: number;
  /** Initial register-file contents (immediates). */
  readonly template: Uint32Array;
  /** Special-register slots to fill per warp. */
  readonly specials: readonly SpecialSlot[];
  /** Local memory per thread in bytes (all frames). */
  readonly localBytes: number;
  /** Largest call depth of the static call graph (the warp's call stack grows past it for calls through pointers). */
  readonly maxCallDepth: number;
}

const cache = new WeakMap<PtxFunction, CompiledKernel>();

/**
 * Compiles kernel `entryIndex` of `module` and every function it calls (cached per entry), the
 * possible targets of its indirect calls ({@link Instruction.callTargets}) included.
 *
 * Every function has one frame and one set of registers per warp, so a function must not be
 * active twice for one thread: direct recursion is refused here (and by the parser); a cycle
 * through an indirect call is allowed statically and refused when a thread actually re-enters a
 * function through a pointer (a fault report at run time, `warp.ts`).
 * @throws InputError when the kernel calls itself recursively or calls a function without a body.
 */
export function compileKernel(module: PtxModule, entryIndex: number): CompiledKernel {
  const entry = module.functions[entryIndex]!;
  const hit = cache.get(entry);
  if (hit) return hit;
  // call graph: depth-first, refusing cycles
  const order: number[] = [];
  const state = new Map<number, number>(); // 1 visiting, 2 done
  let maxDepth = 0;
  const visit = (fi: number, depth: number, site: Instruction | undefined, indirect = false): void => {
    const f = module.functions[fi]!;
    const st = state.get(fi);
    if (st === 1) {
      if (indirect) return; // a cycle through a pointer: checked per thread at run time
      throw new InputError({ file: module.file, line: site?.line ?? f.line }, `not supported: recursion (call to '${f.name}')`, f.name);
    }
    maxDepth = Math.max(maxDepth, depth);
    if (st === 2) return;
    if (site !== undefined && site.syscall !== Syscall.None) {
      // a runtime service (vprintf, __assertfail): only its parameter frame, no code
      state.set(fi, 2);
      order.push(fi);
      return;
    }
    if (!f.hasBody) {
      if (indirect) return; // a pointer to it faults at run time
      throw new InputError({ file: module.file, line: site?.line ?? f.line }, `call to '${f.name}', which has no body in this module`, f.name);
    }
    state.set(fi, 1);
    for (const ins of f.instructions) {
      if (ins.op !== Opcode.Call) continue;
      if (ins.callee >= 0) visit(ins.callee, ins.syscall !== Syscall.None ? depth : depth + 1, ins);
      else for (const t of ins.callTargets) visit(t, depth + 1, ins, true);
    }
    state.set(fi, 2);
    order.push(fi);
  };
  visit(entryIndex, 0, undefined);
  order.reverse(); // entry first

  const layout = new Layout();
  // frames
  let frame = 0;
  const frameBase = new Map<number, number>();
  for (const fi of order) {
    frame = Math.ceil(frame / 16) * 16;
    frameBase.set(fi, frame);
    frame += module.functions[fi]!.frameBytes;
  }
  const localBytes = Math.ceil(frame / 8) * 8;
  // registers of every function
  const regSlots = new Map<number, Int32Array>();
  for (const fi of order) {
    const f = module.functions[fi]!;
    const slots = new Int32Array(f.registers.length);
    for (const r of f.registers) slots[r.index] = r.isPred ? layout.allocPred() : layout.alloc(r.bits);
    regSlots.set(fi, slots);
  }
  const functions: (CompiledFunction | undefined)[] = new Array(module.functions.length).fill(undefined);
  for (const fi of order) {
    const f = module.functions[fi]!;
    const fc = new FnCompiler(module, f, regSlots.get(fi)!, layout, frameBase);
    const rpcs = f.hasBody ? reconvergencePcs(f) : [];
    const code = f.hasBody ? f.instructions.map((ins) => fc.compile(ins, rpcs[ins.index]!)) : [];
    functions[fi] = { fn: f, index: fi, code, regSlots: regSlots.get(fi)!, frameBase: frameBase.get(fi)! };
  }
  const template = new Uint32Array(layout.words);
  for (const im of layout.imms) {
    for (let l = 0; l < 32; l++) {
      if (im.bits === 64) {
        template[im.slot + 2 * l] = im.lo;
        template[im.slot + 2 * l + 1] = im.hi;
      } else template[im.slot + l] = im.lo;
    }
  }
  const compiled: CompiledKernel = {
    module,
    entry: entryIndex,
    functions,
    regWords: layout.words,
    predCount: layout.preds,
    template,
    specials: layout.specials,
    localBytes,
    maxCallDepth: maxDepth,
  };
  cache.set(entry, compiled);
  return compiled;
}

/** Allocation of register-file words, predicate indices, immediates and special slots. */
class Layout {
  words = 0;
  preds = 2; // 0: constant false, 1: constant true
  readonly imms: { slot: number; bits: number; lo: number; hi: number }[] = [];
  private readonly immMap = new Map<string, number>();
  readonly specials: SpecialSlot[] = [];
  private readonly specialMap = new Map<string, number>();

  alloc(bits: number): number {
    const s = this.words;
    this.words += bits === 64 ? 64 : 32;
    return s;
  }

  allocPred(): number {
    return this.preds++;
  }

  imm(bits: number, lo: number, hi: number): number {
    const b = bits === 64 ? 64 : 32;
    const key = `${b}:${lo}:${hi}`;
    let s = this.immMap.get(key);
    if (s === undefined) {
      s = this.alloc(b);
      this.immMap.set(key, s);
      this.imms.push({ slot: s, bits: b, lo: lo >>> 0, hi: b === 64 ? hi >>> 0 : 0 });
    }
    return s;
  }

  special(sreg: SpecialReg, component: number): { slot: number; bits: number } {
    const key = `${sreg}:${component}`;
    const bits = SPECIAL_REG_BITS[sreg] === 64 ? 64 : 32;
    let s = this.specialMap.get(key);
    if (s === undefined) {
      s = this.alloc(bits);
      this.specialMap.set(key, s);
      this.specials.push({ sreg, component, slot: s, bits });
    }
    return { slot: s, bits };
  }
}

/** Special registers whose value is the caller's clock (refreshed before the instruction reads them). */
export const CLOCK_SREGS: ReadonlySet<number> = new Set([
  SpecialReg.Clock,
  SpecialReg.ClockHi,
  SpecialReg.Clock64,
  SpecialReg.Globaltimer,
  SpecialReg.GlobaltimerLo,
  SpecialReg.GlobaltimerHi,
]);

const NOOP: Exec = () => {};

/** Integer rounding mode of a PTX rounding code (`Rn/Rni` -> 0 ...), `Rn` for None. */
function modeOf(r: Rounding): RoundMode {
  if (r >= Rounding.Rni) return (r - Rounding.Rni) as RoundMode;
  if (r >= Rounding.Rn) return (r - Rounding.Rn) as RoundMode;
  return 0;
}

/** Compiles the instructions of one function. */
class FnCompiler {
  constructor(
    private readonly module: PtxModule,
    private readonly fn: PtxFunction,
    private readonly regSlots: Int32Array,
    private readonly layout: Layout,
    private readonly frameBase: ReadonlyMap<number, number>,
  ) {}

  private readsClock = false;

  /** Storage of a register operand. */
  private reg(o: Operand): Slot {
    const r = this.fn.registers[o.reg]!;
    return { slot: this.regSlots[o.reg]!, bits: r.isPred ? 1 : r.bits < 8 ? 8 : r.bits, neg: o.negate };
  }

  /** Storage of a source operand (register, immediate, special register); `bits` sizes immediates. */
  private src(o: Operand, bits: number): Slot {
    switch (o.kind) {
      case OperandKind.Reg:
        return this.reg(o);
      case OperandKind.Imm:
        if (bits === 1) return { slot: o.lo !== 0 || o.hi !== 0 ? 1 : 0, bits: 1, neg: false };
        return { slot: this.layout.imm(bits, o.lo, o.hi), bits: bits === 64 ? 64 : 32, neg: false };
      case OperandKind.Special: {
        if (CLOCK_SREGS.has(o.sreg)) this.readsClock = true;
        const sp = this.layout.special(o.sreg, o.component);
        return { slot: sp.slot, bits: sp.bits, neg: false };
      }
      default:
        throw this.unsupported(`operand '${o.text}'`);
    }
  }

  /** Predicate source (register or immediate). */
  private pred(o: Operand): Slot {
    return this.src(o, 1);
  }

  private unsupported(what: string, ins?: Instruction): InputError {
    return new InputError({ file: this.module.file, line: ins?.line, column: ins?.column }, `not supported: ${what}`, ins?.opText);
  }

  /** Address of a variable in its own space, as the run-time symbol table gives it. */
  private symbolSpace(o: Operand): StateSpace {
    const v = o.symbol!;
    if (v.space === StateSpace.Param && v.kind !== VarKind.KernelParam) return StateSpace.Local; // frame
    return v.space;
  }

  compile(ins: Instruction, rpc: number): CompiledInstr {
    this.readsClock = false;
    let kind: InstrKind = InstrKind.Normal;
    let exec: Exec = NOOP;
    let target = -1;
    let space: StateSpace = StateSpace.None;
    let barId: Slot | undefined;
    let barCount: Slot | undefined;
    let barPred: Slot | undefined;
    let barDst: Slot | undefined;
    let sleepNs: Slot | undefined;
    let isLoad = false;
    let isStore = false;
    let call: CallPlan | undefined;
    let indirect: IndirectCall | undefined;
    switch (ins.op) {
      case Opcode.Bra:
        kind = InstrKind.Branch;
        target = ins.src[0]!.target;
        break;
      case Opcode.Exit:
        kind = InstrKind.Exit;
        break;
      case Opcode.Ret:
        kind = InstrKind.Ret;
        break;
      case Opcode.Call:
        if (ins.callee < 0) {
          kind = InstrKind.CallIndirect;
          indirect = this.indirectCall(ins);
          break;
        }
        kind = ins.syscall !== Syscall.None ? InstrKind.Syscall : InstrKind.Call;
        call = this.callPlan(ins, ins.callee);
        break;
      case Opcode.Bar: {
        kind = InstrKind.Barrier;
        // bar.red: [id, (count,) c]; the predicate is last
        const nIdCount = ins.barRed !== BarRedOp.None ? ins.src.length - 1 : ins.src.length;
        barId = this.src(ins.src[0]!, 32);
        barCount = nIdCount > 1 ? this.src(ins.src[1]!, 32) : undefined;
        if (ins.barRed !== BarRedOp.None) {
          barPred = this.pred(ins.src[nIdCount]!);
          barDst = this.reg(ins.dst[0]!);
        }
        break;
      }
      case Opcode.Nanosleep:
        kind = InstrKind.Sleep;
        sleepNs = this.src(ins.src[0]!, 32);
        break;
      case Opcode.Trap:
        kind = InstrKind.Trap;
        break;
      case Opcode.Membar:
      case Opcode.BarWarpSync:
        kind = InstrKind.Nop;
        break;
      case Opcode.Tex:
      case Opcode.Tld4:
        kind = InstrKind.Texture;
        exec = texFetchExec(ins, this.texOperand(ins.src[0]!), this.vecSlots(ins.src[1]!, ins), this.vecDsts(ins.dst[0]!));
        space = StateSpace.Tex;
        isLoad = true;
        break;
      case Opcode.Suld:
      case Opcode.Sust: {
        kind = InstrKind.Memory;
        const isSt = ins.op === Opcode.Sust;
        exec = surfaceExec(ins, this.texOperand(ins.src[0]!), this.vecSlots(ins.src[1]!, ins), isSt ? this.vecSlots(ins.src[2]!, ins) : this.vecDsts(ins.dst[0]!));
        space = StateSpace.Global;
        isLoad = !isSt;
        isStore = isSt;
        break;
      }
      case Opcode.Txq:
      case Opcode.Suq:
        exec = texQueryExec(ins, this.texOperand(ins.src[0]!), this.reg(ins.dst[0]!));
        break;
      case Opcode.Ld:
      case Opcode.Ldu:
      case Opcode.St:
      case Opcode.Atom:
      case Opcode.Red: {
        kind = InstrKind.Memory;
        const m = this.memory(ins);
        exec = m.exec;
        space = m.space;
        isLoad = ins.op === Opcode.Ld || ins.op === Opcode.Ldu || ins.op === Opcode.Atom;
        isStore = ins.op === Opcode.St || ins.op === Opcode.Atom || ins.op === Opcode.Red;
        break;
      }
      default:
        exec = this.data(ins);
    }
    const guard = ins.guard >= 0 ? this.regSlots[ins.guard]! : -1;
    return {
      ins,
      kind,
      exec,
      guard,
      guardNeg: ins.guardNegate,
      target,
      rpc,
      readsClock: this.readsClock,
      space,
      accessBytes: ins.accessBytes,
      isLoad,
      isStore,
      barId,
      barCount,
      barArrive: ins.barOp === BarOp.Arrive,
      barRed: ins.barRed,
      barPred,
      barDst,
      sleepNs,
      syscall: ins.syscall,
      callee: ins.callee,
      call,
      indirect,
    };
  }

  /** The texture / surface operand of a texture or surface instruction: a handle register or a bound reference. */
  private texOperand(o: Operand): TexOperand {
    if (o.kind === OperandKind.Symbol) return { reg: undefined, symbol: o.symbol!.id };
    return { reg: this.reg(o), symbol: -1 };
  }

  /** Slots of a source vector (coordinates, stored values), immediates sized by their element registers' or 32 bits. */
  private vecSlots(o: Operand, ins: Instruction): Slot[] {
    const esz = SCALAR_TYPE_BITS[ins.type]!;
    return o.elems.map((e) => this.src(e, ins.op === Opcode.Sust && o === ins.src[2] ? Math.max(32, esz) : 32));
  }

  /** Slots of a destination vector (undefined for a sink `_`). */
  private vecDsts(o: Operand): (Slot | undefined)[] {
    return o.elems.map((e) => (e.kind === OperandKind.Reg ? this.reg(e) : undefined));
  }

  /**
   * An indirect call: its pointer register and a frame-transfer plan per function it may reach
   * (the compiled targets of {@link Instruction.callTargets}; body-less ones get none and fault
   * when called).
   */
  private indirectCall(ins: Instruction): IndirectCall {
    const plans: (CallPlan | undefined)[] = new Array<CallPlan | undefined>(this.module.functions.length).fill(undefined);
    for (const t of ins.callTargets) if (this.frameBase.has(t) && this.module.functions[t]!.hasBody) plans[t] = this.callPlan(ins, t);
    return { fptr: this.reg(ins.src[0]!), plans };
  }

  /** Frame transfers of a call of function `calleeIndex`: caller arguments -> callee params, callee returns -> receivers. */
  private callPlan(ins: Instruction, calleeIndex: number): CallPlan {
    const callee = this.module.functions[calleeIndex]!;
    const calleeBase = this.frameBase.get(calleeIndex) ?? 0;
    const callerBase = this.frameBase.get(this.fn.index) ?? 0;
    const side = (o: Operand, size: number): { reg: Slot | undefined; varOff: number } => {
      if (o.kind === OperandKind.Symbol) return { reg: undefined, varOff: callerBase + o.symbol!.offset + o.offset };
      return { reg: this.src(o, size > 4 ? 64 : 32), varOff: 0 };
    };
    const args: FrameCopy[] = ins.callArgs.map((o, i) => {
      const p = callee.params[i];
      if (!p) throw this.unsupported(`call with more arguments than '${callee.name}' declares`, ins);
      return { ...side(o, p.sizeBytes), paramOff: calleeBase + p.offset, size: p.sizeBytes };
    });
    const rets: FrameCopy[] = ins.callRets.map((o, i) => {
      const p = callee.returns[i];
      if (!p) throw this.unsupported(`call with more return values than '${callee.name}' declares`, ins);
      return { ...side(o, p.sizeBytes), paramOff: calleeBase + p.offset, size: p.sizeBytes };
    });
    return { args, rets };
  }

  // -------------------------------------------------------------------------------------------
  // memory instructions
  // -------------------------------------------------------------------------------------------

  private memory(ins: Instruction): { exec: Exec; space: StateSpace } {
    const addr = ins.src[0]!;
    let space: StateSpace = ins.space;
    const base = addr.reg >= 0 ? this.reg(addr) : undefined;
    const symId = addr.symbol ? addr.symbol.id : -1;
    if (addr.symbol && space === StateSpace.Param) space = this.symbolSpace(addr);
    let off = addr.offset;
    if (addr.symbol && space === StateSpace.Generic) off += windowBase(this.symbolSpace(addr));
    const t = ins.type;
    const esz = Math.max(1, SCALAR_TYPE_BITS[t]! >> 3);
    const signed = SCALAR_TYPE_KIND[t] === TypeKind.Signed;
    const total = esz * ins.vec;
    const sp = space;
    // PTX: `[reg+imm]` is computed in the address size of the register, so a 32-bit register
    // plus an offset wraps modulo 2^32 (nvcc emits `temp - 64*tid` then `[%r+68]`, Rodinia nw).
    const wrap32 = base !== undefined && base.bits === 32;
    const wrap64 = base !== undefined && base.bits === 64 && symId < 0;
    const addrOf = wrap32
      ? (w: ExecWarp, l: number): number => (addrReg(w, base!, l) + (symId >= 0 ? w.symAddr[symId]! : 0) + off) >>> 0
      : wrap64
        ? (w: ExecWarp, l: number): number => addrRegOffset64(w, base!, l, off)
        : (w: ExecWarp, l: number): number => (base ? addrReg(w, base, l) : 0) + (symId >= 0 ? w.symAddr[symId]! : 0) + off;

    if (ins.op === Opcode.Ld || ins.op === Opcode.Ldu) {
      const d = ins.dst[0]!;
      const dsts: (Slot | undefined)[] = d.kind === OperandKind.Vec ? d.elems.map((e) => (e.kind === OperandKind.Reg ? this.reg(e) : undefined)) : [this.reg(d)];
      const n = dsts.length;
      const d0 = dsts[0];
      // uniform address (no base register) in param/const space: resolve once, broadcast
      if (!base && (sp === StateSpace.Param || sp === StateSpace.Const)) {
        return {
          space,
          exec: (w, mask) => {
            const a = (symId >= 0 ? w.symAddr[symId]! : 0) + off;
            const addrs = w.addresses;
            const first = 31 - Math.clz32(mask & -mask);
            addrs[first] = a;
            const o = resolve(w, sp, a, total, first);
            const st = w.memStore;
            for (let l = 0; l < 32; l++) {
              if (((mask >>> l) & 1) === 0) continue;
              addrs[l] = a;
              for (let e = 0; e < n; e++) {
                const de = dsts[e];
                if (de !== undefined) loadElem(w, st, o + e * esz, esz, signed, de, l);
              }
            }
          },
        };
      }
      // fast path: scalar 32-bit global/shared load with a register base into a 32-bit register
      if (n === 1 && esz === 4 && d0 && d0.bits === 32 && base && symId < 0 && (sp === StateSpace.Global || sp === StateSpace.Shared)) {
        const ds = d0.slot;
        if (sp === StateSpace.Global) {
          return {
            space,
            exec: (w, mask) => {
              const u32 = w.u32;
              const addrs = w.addresses;
              const gm = w.gmem;
              for (let l = 0; l < 32; l++) {
                if (((mask >>> l) & 1) === 0) continue;
                const a = wrap32 ? (addrReg(w, base, l) + off) >>> 0 : addrRegOffset64(w, base, l, off);
                addrs[l] = a;
                u32[ds + l] = gm.page(a, 4).u32[(a & 0xffff) >> 2]!;
              }
            },
          };
        }
        return {
          space,
          exec: (w, mask) => {
            const u32 = w.u32;
            const addrs = w.addresses;
            const sh = w.shared.u32;
            const lim = w.sharedBytes;
            for (let l = 0; l < 32; l++) {
              if (((mask >>> l) & 1) === 0) continue;
              const a = wrap32 ? (addrReg(w, base, l) + off) >>> 0 : addrRegOffset64(w, base, l, off);
              addrs[l] = a;
              if ((a & 3) !== 0 || !(a >= 0 && a + 4 <= lim)) check(a, 4, lim, 'shared');
              u32[ds + l] = sh[a >> 2]!;
            }
          },
        };
      }
      return {
        space,
        exec: memLoop(addrOf, sp, total, (w, st, o, l) => {
          for (let e = 0; e < n; e++) {
            const de = dsts[e];
            if (de !== undefined) loadElem(w, st, o + e * esz, esz, signed, de, l);
          }
        }),
      };
    }

    if (ins.op === Opcode.St) {
      const v = ins.src[1]!;
      const srcs: Slot[] = v.kind === OperandKind.Vec ? v.elems.map((e) => this.src(e, esz * 8)) : [this.src(v, esz * 8)];
      const n = srcs.length;
      const s0 = srcs[0]!;
      if (n === 1 && esz === 4 && s0.bits === 32 && base && symId < 0 && sp === StateSpace.Global) {
        const ss = s0.slot;
        return {
          space,
          exec: (w, mask) => {
            const u32 = w.u32;
            const addrs = w.addresses;
            const gm = w.gmem;
            for (let l = 0; l < 32; l++) {
              if (((mask >>> l) & 1) === 0) continue;
              const a = wrap32 ? (addrReg(w, base, l) + off) >>> 0 : addrRegOffset64(w, base, l, off);
              addrs[l] = a;
              gm.page(a, 4).u32[(a & 0xffff) >> 2] = u32[ss + l]!;
            }
          },
        };
      }
      return {
        space,
        exec: memLoop(addrOf, sp, total, (w, st, o, l) => {
          for (let e = 0; e < n; e++) storeElem(w, st, o + e * esz, esz, srcs[e]!, l);
        }),
      };
    }

    // atom / red: lanes in increasing lane order, each a read-modify-write
    const isAtom = ins.op === Opcode.Atom;
    const op = ins.atomOp;
    const d = isAtom ? this.reg(ins.dst[0]!) : undefined;
    const b = this.src(ins.src[1]!, esz * 8);
    const c = ins.src[2] ? this.src(ins.src[2], esz * 8) : NOSLOT;
    const k = kindOf(t);
    if (esz === 4) {
      const akind: Atom32Kind = k === K.F32 ? 'f32' : k === K.S32 ? 's32' : t === ScalarType.B32 ? 'b32' : 'u32';
      const rk = akind === 's32' ? K.S32 : K.U32;
      return {
        space,
        exec: memLoop(addrOf, sp, 4, (w, st, off, l) => {
          const o = off >> 2;
          const raw = st.u32[o]!;
          if (akind === 'f32') {
            // f32 add flushes subnormals on global memory only (PTX ISA atom notes)
            st.f32[o] = atomic32(op, st.f32[o]!, rd(w, K.F32, b, l) as number, rd(w, K.F32, c, l) as number, 'f32', w.laneSpace !== StateSpace.Shared);
          } else {
            st.u32[o] = atomic32(op, akind === 's32' ? raw | 0 : raw, rd(w, rk, b, l) as number, rd(w, rk, c, l) as number, akind, false);
          }
          if (d) w.u32[d.slot + l] = raw;
        }),
      };
    }
    const isF64 = k === K.F64;
    const signed64 = k === K.S64;
    return {
      space,
      exec: memLoop(addrOf, sp, 8, (w, st, off, l) => {
        const o = off >> 3;
        const lo = st.u32[2 * o]!;
        const hi = st.u32[2 * o + 1]!;
        if (isF64) {
          st.f64[o] = atomicF64(op, st.f64[o]!, rd(w, K.F64, b, l) as number);
        } else {
          const old = signed64 ? BigInt.asIntN(64, st.u64[o]!) : st.u64[o]!;
          st.u64[o] = atomic64(op, old, rd(w, k, b, l) as bigint, rd(w, k, c, l) as bigint, signed64);
        }
        if (d) {
          w.u32[d.slot + 2 * l] = lo;
          w.u32[d.slot + 2 * l + 1] = hi;
        }
      }),
    };
  }

  // -------------------------------------------------------------------------------------------
  // data instructions
  // -------------------------------------------------------------------------------------------

  private data(ins: Instruction): Exec {
    const t = ins.type;
    const k = kindOf(t);
    const bits = SCALAR_TYPE_BITS[t]!;
    const isFloat = SCALAR_TYPE_KIND[t] === TypeKind.Float;
    if (t === ScalarType.F16 && (ins.op === Opcode.Add || ins.op === Opcode.Sub || ins.op === Opcode.Mul || ins.op === Opcode.Fma)) return this.half(ins);
    switch (ins.op) {
      case Opcode.Mov:
        return this.mov(ins);
      case Opcode.Cvta:
        return this.cvta(ins);
      case Opcode.Cvt:
        return this.cvt(ins);
      case Opcode.Setp:
      case Opcode.Set:
        return this.setp(ins);
      case Opcode.Selp: {
        const d = this.reg(ins.dst[0]!);
        const a = this.src(ins.src[0]!, bits);
        const b = this.src(ins.src[1]!, bits);
        const p = this.pred(ins.src[2]!);
        const words = bits === 64 ? 2 : 1;
        return (w, mask) => {
          const u32 = w.u32;
          let pm = w.preds[p.slot]!;
          if (p.neg) pm = ~pm;
          for (let l = 0; l < 32; l++) {
            if (((mask >>> l) & 1) === 0) continue;
            const s = (pm >>> l) & 1 ? a : b;
            if (words === 2) {
              u32[d.slot + 2 * l] = u32[s.slot + 2 * l]!;
              u32[d.slot + 2 * l + 1] = u32[s.slot + 2 * l + 1]!;
            } else u32[d.slot + l] = u32[s.slot + l]!;
          }
        };
      }
      case Opcode.Slct: {
        const d = this.reg(ins.dst[0]!);
        const a = this.src(ins.src[0]!, bits);
        const b = this.src(ins.src[1]!, bits);
        const cIsF = ins.type2 === ScalarType.F32;
        const c = this.src(ins.src[2]!, 32);
        const ftz = ins.ftz;
        return generic(d, k, [a, b, c], [k, k, cIsF ? K.F32 : K.S32], (x, y, z) =>
          cIsF ? (slctF32(0, 1, z as number, ftz) === 0 ? x : y) : (z as number) >= 0 ? x : y,
        );
      }
      case Opcode.Shfl:
        return this.shfl(ins);
      case Opcode.Vote:
        return this.vote(ins);
      case Opcode.Match:
        return this.match(ins);
      case Opcode.Activemask: {
        const d = this.reg(ins.dst[0]!);
        return (w, mask) => {
          for (let l = 0; l < 32; l++) if ((mask >>> l) & 1) w.u32[d.slot + l] = mask;
        };
      }
      case Opcode.Testp: {
        const d = this.reg(ins.dst[0]!);
        const a = this.src(ins.src[0]!, bits);
        const op = ins.testOp;
        const f32 = t === ScalarType.F32;
        return generic(d, K.Pred, [a], [k], (x) => (F.testp(op, x as number, f32) ? 1 : 0));
      }
      default:
        return isFloat ? this.floatOp(ins, k) : this.intOp(ins, k, bits);
    }
  }

  private mov(ins: Instruction): Exec {
    const t = ins.type;
    const bits = SCALAR_TYPE_BITS[t]!;
    const dOp = ins.dst[0]!;
    const aOp = ins.src[0]!;
    if (dOp.kind === OperandKind.Vec) {
      // unpack: {d0, d1, ...} = a
      const a = this.src(aOp, bits);
      const n = dOp.elems.length;
      const ew = bits / n;
      const ds = dOp.elems.map((e) => (e.kind === OperandKind.Reg ? this.reg(e) : undefined));
      return (w, mask) => {
        for (let l = 0; l < 32; l++) {
          if (((mask >>> l) & 1) === 0) continue;
          const lo = w.u32[a.bits === 64 ? a.slot + 2 * l : a.slot + l]!;
          const hi = a.bits === 64 ? w.u32[a.slot + 2 * l + 1]! : 0;
          for (let e = 0; e < n; e++) {
            const de = ds[e];
            if (de === undefined) continue;
            if (ew === 32) w.u32[de.slot + l] = e === 0 ? lo : hi;
            else {
              const bitPos = e * ew;
              const word = bitPos >= 32 ? hi : lo;
              w.u32[de.slot + l] = (word >>> (bitPos & 31)) & widthMask(ew);
            }
          }
        }
      };
    }
    if (aOp.kind === OperandKind.Vec) {
      const d = this.reg(dOp);
      const n = aOp.elems.length;
      const ew = bits / n;
      const ss = aOp.elems.map((e) => this.src(e, ew));
      return (w, mask) => {
        for (let l = 0; l < 32; l++) {
          if (((mask >>> l) & 1) === 0) continue;
          let lo = 0;
          let hi = 0;
          for (let e = 0; e < n; e++) {
            const s = ss[e]!;
            const v = w.u32[s.bits === 64 ? s.slot + 2 * l : s.slot + l]! & widthMask(ew);
            const bitPos = e * ew;
            if (bitPos >= 32) hi |= v << (bitPos - 32);
            else lo |= v << bitPos;
          }
          if (d.bits === 64) {
            w.u32[d.slot + 2 * l] = lo;
            w.u32[d.slot + 2 * l + 1] = hi;
          } else w.u32[d.slot + l] = lo & widthMask(d.bits);
        }
      };
    }
    const d = this.reg(dOp);
    if (t === ScalarType.Pred) {
      const p = this.pred(aOp);
      return (w, mask) => {
        let v = w.preds[p.slot]!;
        if (p.neg) v = ~v;
        w.preds[d.slot] = (w.preds[d.slot]! & ~mask) | (v & mask);
      };
    }
    if (aOp.kind === OperandKind.Symbol) {
      const id = aOp.symbol!.id;
      const off = aOp.offset;
      return generic(d, bits === 64 ? K.U64 : K.U32, [], [], (_a, _b, _c, _d, w) => {
        const v = w.symAddr[id]! + off;
        return bits === 64 ? BigInt(v) : v >>> 0;
      });
    }
    const a = this.src(aOp, bits);
    return copy(d, a, bits);
  }

  private cvta(ins: Instruction): Exec {
    const d = this.reg(ins.dst[0]!);
    const aOp = ins.src[0]!;
    const is64 = SCALAR_TYPE_BITS[ins.type] === 64;
    const base = windowBase(ins.space);
    const delta = ins.cvtaTo ? -base : base;
    if (aOp.kind === OperandKind.Symbol) {
      const id = aOp.symbol!.id;
      const off = aOp.offset;
      return generic(d, is64 ? K.U64 : K.U32, [], [], (_a, _b, _c, _d, w) => {
        const v = w.symAddr[id]! + off + delta;
        return is64 ? BigInt(v) : v >>> 0;
      });
    }
    const a = this.src(aOp, is64 ? 64 : 32);
    if (delta === 0) return copy(d, a, is64 ? 64 : 32);
    return (w, mask) => {
      for (let l = 0; l < 32; l++) {
        if (((mask >>> l) & 1) === 0) continue;
        const v = addrReg(w, a, l) + delta;
        if (is64) {
          const i = d.slot + 2 * l;
          w.u32[i] = v;
          w.u32[i + 1] = Math.floor(v / 4294967296);
        } else w.u32[d.slot + l] = v;
      }
    };
  }

  private cvt(ins: Instruction): Exec {
    const dt = ins.type;
    const at = ins.type2;
    const dk = kindOf(dt);
    const ak = kindOf(at);
    const d = this.reg(ins.dst[0]!);
    const a = this.src(ins.src[0]!, SCALAR_TYPE_BITS[at]!);
    const dF = SCALAR_TYPE_KIND[dt] === TypeKind.Float;
    const aF = SCALAR_TYPE_KIND[at] === TypeKind.Float;
    const dBits = SCALAR_TYPE_BITS[dt]!;
    const aBits = SCALAR_TYPE_BITS[at]!;
    const dSigned = SCALAR_TYPE_KIND[dt] === TypeKind.Signed;
    const mode = modeOf(ins.rounding);
    const sat = ins.sat;
    const ftz = ins.ftz;
    const irnd = ins.rounding >= Rounding.Rni ? mode : undefined;
    if (!dF && !aF) {
      // int -> int; fast paths for the common widenings and truncations
      if (!sat && dBits === 64 && aBits === 32 && a.bits === 32) {
        const sx = SCALAR_TYPE_KIND[at] === TypeKind.Signed;
        return (w, mask) => {
          const u32 = w.u32;
          for (let l = 0; l < 32; l++) {
            if (((mask >>> l) & 1) === 0) continue;
            const v = u32[a.slot + l]!;
            u32[d.slot + 2 * l] = v;
            u32[d.slot + 2 * l + 1] = sx && v & 0x80000000 ? 0xffffffff : 0;
          }
        };
      }
      if (!sat && dBits === 32 && aBits === 64 && d.bits === 32) {
        return (w, mask) => {
          for (let l = 0; l < 32; l++) if ((mask >>> l) & 1) w.u32[d.slot + l] = w.u32[a.slot + 2 * l]!;
        };
      }
      if (dBits === 64) return generic(d, dk, [a], [ak], (x) => C.cvtIntToInt64(x, dSigned, sat));
      if (aBits === 64) return generic(d, dk, [a], [ak], (x) => C.cvtInt64ToInt(x as bigint, dBits as I.IntBits, dSigned, sat));
      return generic(d, dk, [a], [ak], (x) => C.cvtIntToInt(x as number, dBits as I.IntBits, dSigned, sat));
    }
    if (dF && aF) {
      if (dt === ScalarType.F16) {
        if (at === ScalarType.F16) {
          return generic(d, dk, [a], [ak], (x) => {
            let v = bitsToF16(x as number);
            if (irnd !== undefined) v = roundToIntegral(v, irnd);
            if (sat) v = F.sat01(v);
            return f16ToBits(v);
          });
        }
        return generic(d, dk, [a], [ak], (x) => C.cvtFloatToF16(x as number, mode, sat));
      }
      if (at === ScalarType.F16) {
        return generic(d, dk, [a], [ak], (x) => C.cvtF16ToFloat(x as number, sat));
      }
      if (dt === ScalarType.F32 && at === ScalarType.F64) return generic(d, dk, [a], [ak], (x) => C.cvtF64ToF32(x as number, mode, ftz, sat));
      if (dt === ScalarType.F64 && at === ScalarType.F32) {
        if (!ftz && !sat) {
          return (w, mask) => {
            for (let l = 0; l < 32; l++) if ((mask >>> l) & 1) w.f64[(d.slot >> 1) + l] = w.f32[a.slot + l]!;
          };
        }
        return generic(d, dk, [a], [ak], (x) => C.cvtF32ToF64(x as number, ftz, sat));
      }
      if (dt === ScalarType.F32) return generic(d, dk, [a], [ak], (x) => C.cvtF32ToF32(x as number, irnd, ftz, sat));
      return generic(d, dk, [a], [ak], (x) => C.cvtF64ToF64(x as number, irnd, sat));
    }
    if (dF) {
      // int -> float
      if (dt === ScalarType.F32) {
        if (aBits === 64) return generic(d, dk, [a], [ak], (x) => C.cvtInt64ToF32(x as bigint, mode, sat));
        if (mode === 0 && !sat) {
          const sx = ak === K.S32;
          if (aBits === 32) {
            return (w, mask) => {
              for (let l = 0; l < 32; l++) if ((mask >>> l) & 1) w.f32[d.slot + l] = sx ? w.i32[a.slot + l]! : w.u32[a.slot + l]!;
            };
          }
        }
        return generic(d, dk, [a], [ak], (x) => C.cvtIntToF32(x as number, mode, sat));
      }
      if (dt === ScalarType.F64) {
        if (aBits === 64) return generic(d, dk, [a], [ak], (x) => C.cvtInt64ToF64(x as bigint, mode, sat));
        return generic(d, dk, [a], [ak], (x) => C.cvtIntToF64(x as number, sat));
      }
      return generic(d, dk, [a], [ak], (x) => C.cvtIntToF16(x, mode));
    }
    // float -> int
    const ftzIn = ftz && at === ScalarType.F32;
    const srcVal = at === ScalarType.F16 ? (x: Val) => bitsToF16(x as number) : (x: Val) => x as number;
    if (dBits === 64) return generic(d, dk, [a], [ak], (x) => C.cvtFloatToInt64(srcVal(x), mode, dSigned, ftzIn));
    return generic(d, dk, [a], [ak], (x) => C.cvtFloatToInt(srcVal(x), mode, dBits as I.IntBits, dSigned, ftzIn));
  }

  private setp(ins: Instruction): Exec {
    const isSet = ins.op === Opcode.Set;
    const st = isSet ? ins.type2 : ins.type;
    const sk = kindOf(st);
    const bits = SCALAR_TYPE_BITS[st]!;
    const a = this.src(ins.src[0]!, bits);
    const b = this.src(ins.src[1]!, bits);
    const hasC = ins.boolOp !== BoolOp.None;
    const c = hasC ? this.pred(ins.src[2]!) : NOSLOT;
    const op = ins.cmp;
    const boolOp = ins.boolOp;
    const isF = SCALAR_TYPE_KIND[st] === TypeKind.Float;
    const ftz = ins.ftz;
    const cmpLane = (w: ExecWarp, l: number): boolean => {
      if (isF) return compareFloat(op, rd(w, sk, a, l) as number, rd(w, sk, b, l) as number, ftz);
      return compareInt(op, rd(w, sk, a, l), rd(w, sk, b, l));
    };
    if (isSet) {
      const d = this.reg(ins.dst[0]!);
      const dt = ins.type;
      return (w, mask) => {
        let cm = hasC ? w.preds[c.slot]! : 0;
        if (c.neg) cm = ~cm;
        for (let l = 0; l < 32; l++) {
          if (((mask >>> l) & 1) === 0) continue;
          const r = combineBool(cmpLane(w, l), boolOp, ((cm >>> l) & 1) === 1);
          if (dt === ScalarType.F32) w.f32[d.slot + l] = r ? 1 : 0;
          else w.u32[d.slot + l] = r ? 0xffffffff : 0;
        }
      };
    }
    const p = this.reg(ins.dst[0]!);
    const q = ins.dst[1] ? this.reg(ins.dst[1]) : undefined;
    // fast path: plain setp on s32/u32 registers or immediates
    if (!hasC && !q && bits === 32 && !isF) {
      const signed = sk === K.S32;
      const as = a.slot;
      const bs = b.slot;
      return (w, mask) => {
        const arr = signed ? w.i32 : w.u32;
        let t = 0;
        for (let l = 0; l < 32; l++) {
          if (((mask >>> l) & 1) === 0) continue;
          const x = arr[as + l]!;
          const y = arr[bs + l]!;
          let r: boolean;
          switch (op) {
            case CmpOp.Eq:
              r = x === y;
              break;
            case CmpOp.Ne:
              r = x !== y;
              break;
            case CmpOp.Lt:
              r = x < y;
              break;
            case CmpOp.Le:
              r = x <= y;
              break;
            case CmpOp.Gt:
              r = x > y;
              break;
            default:
              r = x >= y;
          }
          if (r) t |= 1 << l;
        }
        w.preds[p.slot] = (w.preds[p.slot]! & ~mask) | (t & mask);
      };
    }
    return (w, mask) => {
      let cm = hasC ? w.preds[c.slot]! : 0;
      if (c.neg) cm = ~cm;
      let pt = 0;
      let qt = 0;
      for (let l = 0; l < 32; l++) {
        if (((mask >>> l) & 1) === 0) continue;
        const r = cmpLane(w, l);
        const cb = ((cm >>> l) & 1) === 1;
        if (combineBool(r, boolOp, cb)) pt |= 1 << l;
        if (combineBool(!r, boolOp, cb)) qt |= 1 << l;
      }
      w.preds[p.slot] = (w.preds[p.slot]! & ~mask) | (pt & mask);
      if (q) w.preds[q.slot] = (w.preds[q.slot]! & ~mask) | (qt & mask);
    };
  }

  private shfl(ins: Instruction): Exec {
    const d = this.reg(ins.dst[0]!);
    const p = ins.dst[1] ? this.reg(ins.dst[1]) : undefined;
    const a = this.src(ins.src[0]!, 32);
    const b = this.src(ins.src[1]!, 32);
    const c = this.src(ins.src[2]!, 32);
    const mode = ins.shflMode;
    return (w, mask) => {
      const u32 = w.u32;
      const src = w.scratch;
      // every lane's a (inactive lanes contribute their current register value: PTX leaves it unspecified)
      for (let l = 0; l < 32; l++) src[l] = u32[a.bits === 64 ? a.slot + 2 * l : a.slot + l]!;
      let pt = 0;
      for (let l = 0; l < 32; l++) {
        if (((mask >>> l) & 1) === 0) continue;
        const bval = u32[b.slot + l]! & 0x1f;
        const cv = u32[c.slot + l]!;
        const cval = cv & 0x1f;
        const segmask = (cv >>> 8) & 0x1f;
        const maxLane = (l & segmask) | (cval & ~segmask);
        const minLane = l & segmask;
        let j: number;
        let pval: boolean;
        switch (mode) {
          case ShflMode.Up:
            j = l - bval;
            pval = j >= maxLane;
            break;
          case ShflMode.Down:
            j = l + bval;
            pval = j <= maxLane;
            break;
          case ShflMode.Bfly:
            j = l ^ bval;
            pval = j <= maxLane;
            break;
          default:
            j = minLane | (bval & ~segmask);
            pval = j <= maxLane;
        }
        if (!pval) j = l;
        u32[d.slot + l] = src[j]!;
        if (pval) pt |= 1 << l;
      }
      if (p) w.preds[p.slot] = (w.preds[p.slot]! & ~mask) | (pt & mask);
    };
  }

  private vote(ins: Instruction): Exec {
    const d = this.reg(ins.dst[0]!);
    const a = this.pred(ins.src[0]!);
    const mode = ins.voteMode;
    return (w, mask) => {
      let pv = w.preds[a.slot]!;
      if (a.neg) pv = ~pv;
      const t = pv & mask;
      if (mode === VoteMode.Ballot) {
        for (let l = 0; l < 32; l++) if ((mask >>> l) & 1) w.u32[d.slot + l] = t;
        return;
      }
      let r: boolean;
      if (mode === VoteMode.All) r = t === mask;
      else if (mode === VoteMode.Any) r = t !== 0;
      else r = t === 0 || t === mask;
      w.preds[d.slot] = r ? w.preds[d.slot]! | mask : w.preds[d.slot]! & ~mask;
    };
  }

  /**
   * `add/sub/mul/fma` of `.f16` (16-bit registers, zero-extended in their words) and `.f16x2`
   * (a pair per 32-bit register, element 0 in bits 0-15): {@link H.halfArith} per element.
   */
  private half(ins: Instruction): Exec {
    const d = this.reg(ins.dst[0]!);
    const a = this.src(ins.src[0]!, 32);
    const b = this.src(ins.src[1]!, 32);
    const c = ins.src.length > 2 ? this.src(ins.src[2]!, 32) : a;
    const pair = ins.vec === 2;
    const op = ins.op === Opcode.Add ? H.HalfOp.Add : ins.op === Opcode.Sub ? H.HalfOp.Sub : ins.op === Opcode.Mul ? H.HalfOp.Mul : H.HalfOp.Fma;
    const ftz = ins.ftz;
    const sat = ins.sat;
    return (w, mask) => {
      const u = w.u32;
      for (let l = 0; l < 32; l++) {
        if (((mask >>> l) & 1) === 0) continue;
        const x = u[a.slot + l]!;
        const y = u[b.slot + l]!;
        const z = u[c.slot + l]!;
        let r = H.halfArith(op, x & 0xffff, y & 0xffff, z & 0xffff, ftz, sat);
        if (pair) r |= H.halfArith(op, x >>> 16, y >>> 16, z >>> 16, ftz, sat) << 16;
        u[d.slot + l] = r;
      }
    };
  }

  /**
   * `match.any.sync.{b32,b64} d, a, membermask`: d = the lanes of membermask (among those
   * executing) whose `a` equals this lane's; `match.all.sync.{b32,b64} d{|p}, a, membermask`:
   * d = membermask and p = true when every executing lane of membermask has the same `a`, else
   * d = 0 and p = false (PTX ISA §9.7.13.x; CUDA `__match_any_sync`, `__match_all_sync`). Lanes
   * of membermask that do not execute the instruction are left out (PTX: undefined).
   */
  private match(ins: Instruction): Exec {
    const d = this.reg(ins.dst[0]!);
    const p = ins.dst.length > 1 ? this.reg(ins.dst[1]!) : undefined;
    const a = this.src(ins.src[0]!, SCALAR_TYPE_BITS[ins.type]!);
    const mm = this.src(ins.src[1]!, 32);
    const all = ins.voteMode === VoteMode.All;
    const wide = a.bits === 64;
    return (w, mask) => {
      const u = w.u32;
      const res = w.scratch;
      let pTrue = 0;
      // every result first: d may be a or membermask
      for (let l = 0; l < 32; l++) {
        if (((mask >>> l) & 1) === 0) continue;
        const m = u[mm.slot + l]!;
        const group = m & mask;
        const lo = wide ? u[a.slot + 2 * l]! : u[a.slot + l]!;
        const hi = wide ? u[a.slot + 2 * l + 1]! : 0;
        let same = 0;
        for (let j = 0; j < 32; j++) {
          if (((group >>> j) & 1) === 0) continue;
          if (wide ? u[a.slot + 2 * j] === lo && u[a.slot + 2 * j + 1] === hi : u[a.slot + j] === lo) same |= 1 << j;
        }
        if (all) {
          const eq = same === group;
          res[l] = eq ? m : 0;
          if (eq) pTrue |= 1 << l;
        } else res[l] = same;
      }
      for (let l = 0; l < 32; l++) if ((mask >>> l) & 1) u[d.slot + l] = res[l]!;
      if (p !== undefined) w.preds[p.slot] = (w.preds[p.slot]! & ~mask) | pTrue;
    };
  }

  // -------------------------------------------------------------------------------------------
  // integer
  // -------------------------------------------------------------------------------------------

  private intOp(ins: Instruction, k: Kd, bits: number): Exec {
    const op = ins.op;
    const signed = k === K.S8 || k === K.S16 || k === K.S32 || k === K.S64;
    const ib = (bits === 64 ? 32 : bits) as I.IntBits;
    const wide64 = bits === 64;
    const dOp = ins.dst[0]!;
    const d = this.reg(dOp);
    const src = (i: number, b = bits): Slot => this.src(ins.src[i]!, b);
    const cc = ins.cc;
    const ccSlot = this.fn.ccReg >= 0 ? this.regSlots[this.fn.ccReg]! : 0;
    switch (op) {
      case Opcode.Add:
      case Opcode.Sub:
      case Opcode.Addc:
      case Opcode.Subc: {
        const isSub = op === Opcode.Sub || op === Opcode.Subc;
        const carryIn = op === Opcode.Addc || op === Opcode.Subc;
        const a = src(0);
        const b = src(1);
        if (carryIn || cc) return this.carryAdd(d, a, b, isSub, carryIn, cc, ccSlot, bits);
        if (ins.sat) return generic(d, k, [a, b], [k, k], (x, y) => (isSub ? I.subSatS32(x as number, y as number) : I.addSatS32(x as number, y as number)));
        if (bits === 32) {
          const as = a.slot;
          const bs = b.slot;
          const ds = d.slot;
          if (isSub) {
            return (w, mask) => {
              const u = w.u32;
              for (let l = 0; l < 32; l++) if ((mask >>> l) & 1) u[ds + l] = u[as + l]! - u[bs + l]!;
            };
          }
          return (w, mask) => {
            const u = w.u32;
            for (let l = 0; l < 32; l++) if ((mask >>> l) & 1) u[ds + l] = u[as + l]! + u[bs + l]!;
          };
        }
        if (wide64) return add64Pair(d, a, b, isSub);
        return generic(d, k, [a, b], [k, k], (x, y) => (isSub ? I.sub(x as number, y as number, ib, signed) : I.add(x as number, y as number, ib, signed)));
      }
      case Opcode.Mul: {
        const mode = ins.mulMode;
        const a = src(0);
        const b = src(1);
        if (mode === MulMode.Wide) {
          if (bits === 32) return mulWide32(d, a, b, signed);
          return generic(d, signed ? K.S32 : K.U32, [a, b], [k, k], (x, y) => I.mulWide16(x as number, y as number, signed));
        }
        if (wide64) {
          return generic(d, k, [a, b], [k, k], (x, y) => (mode === MulMode.Hi ? I.mulHi64(x as bigint, y as bigint, signed) : I.mulLo64(x as bigint, y as bigint, signed)));
        }
        if (mode === MulMode.Lo && bits === 32) {
          return (w, mask) => {
            const u = w.u32;
            for (let l = 0; l < 32; l++) if ((mask >>> l) & 1) u[d.slot + l] = Math.imul(u[a.slot + l]!, u[b.slot + l]!);
          };
        }
        return generic(d, k, [a, b], [k, k], (x, y) => (mode === MulMode.Hi ? I.mulHi(x as number, y as number, ib, signed) : I.mulLo(x as number, y as number, ib, signed)));
      }
      case Opcode.Mad:
      case Opcode.Madc: {
        const mode = ins.mulMode;
        const a = src(0);
        const b = src(1);
        const dBits = mode === MulMode.Wide ? bits * 2 : bits;
        const c = src(2, dBits);
        const carryIn = op === Opcode.Madc;
        if (carryIn || cc) return this.carryMad(d, a, b, c, mode === MulMode.Hi, carryIn, cc, ccSlot, bits, k, signed);
        if (mode === MulMode.Wide) {
          if (bits === 32) {
            const dk = signed ? K.S64 : K.U64;
            return generic(d, dk, [a, b, c], [k, k, dk], (x, y, z) => I.madWide32(x as number, y as number, z as bigint, signed));
          }
          const dk = signed ? K.S32 : K.U32;
          return generic(d, dk, [a, b, c], [k, k, dk], (x, y, z) => I.madWide16(x as number, y as number, z as number, signed));
        }
        if (wide64) {
          return generic(d, k, [a, b, c], [k, k, k], (x, y, z) => (mode === MulMode.Hi ? I.madHi64(x as bigint, y as bigint, z as bigint, signed) : I.madLo64(x as bigint, y as bigint, z as bigint, signed)));
        }
        if (mode === MulMode.Lo && bits === 32) {
          return (w, mask) => {
            const u = w.u32;
            for (let l = 0; l < 32; l++) if ((mask >>> l) & 1) u[d.slot + l] = Math.imul(u[a.slot + l]!, u[b.slot + l]!) + u[c.slot + l]!;
          };
        }
        const sat = ins.sat;
        return generic(d, k, [a, b, c], [k, k, k], (x, y, z) =>
          mode === MulMode.Hi ? I.madHi(x as number, y as number, z as number, ib, signed, sat) : I.madLo(x as number, y as number, z as number, ib, signed),
        );
      }
      case Opcode.Mul24:
      case Opcode.Mad24: {
        const hi = ins.mulMode === MulMode.Hi;
        const a = src(0);
        const b = src(1);
        if (op === Opcode.Mul24) return generic(d, k, [a, b], [k, k], (x, y) => I.mul24(x as number, y as number, hi, signed));
        const c = src(2);
        const sat = ins.sat;
        return generic(d, k, [a, b, c], [k, k, k], (x, y, z) => I.mad24(x as number, y as number, z as number, hi, signed, sat));
      }
      case Opcode.Div:
      case Opcode.Rem: {
        const a = src(0);
        const b = src(1);
        const isDiv = op === Opcode.Div;
        if (wide64) return generic(d, k, [a, b], [k, k], (x, y) => (isDiv ? I.div64(x as bigint, y as bigint, signed) : I.rem64(x as bigint, y as bigint, signed)));
        return generic(d, k, [a, b], [k, k], (x, y) => (isDiv ? I.div(x as number, y as number, ib, signed) : I.rem(x as number, y as number, ib, signed)));
      }
      case Opcode.Abs:
      case Opcode.Neg: {
        const a = src(0);
        const isAbs = op === Opcode.Abs;
        if (wide64) return generic(d, k, [a], [k], (x) => (isAbs ? I.abs64(x as bigint) : I.neg64(x as bigint)));
        return generic(d, k, [a], [k], (x) => (isAbs ? I.abs(x as number, ib) : I.neg(x as number, ib)));
      }
      case Opcode.Min:
      case Opcode.Max: {
        const a = src(0);
        const b = src(1);
        const isMin = op === Opcode.Min;
        if (wide64) return generic(d, k, [a, b], [k, k], (x, y) => (isMin ? I.min64(x as bigint, y as bigint, signed) : I.max64(x as bigint, y as bigint, signed)));
        return generic(d, k, [a, b], [k, k], (x, y) => (isMin ? I.min(x as number, y as number, ib, signed) : I.max(x as number, y as number, ib, signed)));
      }
      case Opcode.And:
      case Opcode.Or:
      case Opcode.Xor:
      case Opcode.Not:
        return this.logic(ins, d, bits);
      case Opcode.Cnot: {
        const a = src(0);
        if (wide64) return generic(d, k, [a], [k], (x) => I.cnot64(x as bigint));
        return generic(d, k, [a], [k], (x) => I.cnot(x as number, ib));
      }
      case Opcode.Shl:
      case Opcode.Shr: {
        const a = src(0);
        const b = src(1, 32);
        const isShl = op === Opcode.Shl;
        if (bits === 32) {
          const as = a.slot;
          const bs = b.slot;
          const ds = d.slot;
          if (isShl) {
            return (w, mask) => {
              const u = w.u32;
              for (let l = 0; l < 32; l++) {
                if (((mask >>> l) & 1) === 0) continue;
                const s = u[bs + l]!;
                u[ds + l] = s >= 32 ? 0 : u[as + l]! << s;
              }
            };
          }
          if (signed) {
            return (w, mask) => {
              const u = w.u32;
              const i = w.i32;
              for (let l = 0; l < 32; l++) {
                if (((mask >>> l) & 1) === 0) continue;
                const s = u[bs + l]!;
                u[ds + l] = i[as + l]! >> (s >= 32 ? 31 : s);
              }
            };
          }
          return (w, mask) => {
            const u = w.u32;
            for (let l = 0; l < 32; l++) {
              if (((mask >>> l) & 1) === 0) continue;
              const s = u[bs + l]!;
              u[ds + l] = s >= 32 ? 0 : u[as + l]! >>> s;
            }
          };
        }
        if (wide64) return shift64Pair(d, a, b, isShl, signed);
        return generic(d, k, [a, b], [k, K.U32], (x, y) => (isShl ? I.shl(x as number, y as number, ib) : I.shr(x as number, y as number, ib, signed)));
      }
      case Opcode.Bfe: {
        const a = src(0);
        const b = src(1, 32);
        const c = src(2, 32);
        if (wide64) return generic(d, k, [a, b, c], [k, K.U32, K.U32], (x, y, z) => I.bfe64(x as bigint, y as number, z as number, signed));
        return generic(d, k, [a, b, c], [k, K.U32, K.U32], (x, y, z) => I.bfe32(x as number, y as number, z as number, signed));
      }
      case Opcode.Bfi: {
        const a = src(0);
        const b = src(1);
        const c = src(2, 32);
        const e = src(3, 32);
        if (wide64) return generic(d, k, [a, b, c, e], [k, k, K.U32, K.U32], (x, y, z, v) => I.bfi64(x as bigint, y as bigint, z as number, v as number));
        return generic(d, k, [a, b, c, e], [k, k, K.U32, K.U32], (x, y, z, v) => I.bfi32(x as number, y as number, z as number, v as number));
      }
      case Opcode.Clz:
      case Opcode.Popc:
      case Opcode.Bfind:
      case Opcode.Brev: {
        const a = src(0);
        if (op === Opcode.Brev) {
          if (wide64) return generic(d, k, [a], [k], (x) => I.brev64(x as bigint));
          return generic(d, k, [a], [k], (x) => I.brev32(x as number));
        }
        const sa = ins.shiftAmt;
        return generic(d, K.U32, [a], [k], (x) => {
          if (op === Opcode.Clz) return wide64 ? I.clz64(x as bigint) : I.clz32(x as number);
          if (op === Opcode.Popc) return wide64 ? I.popc64(x as bigint) : I.popc32(x as number);
          return wide64 ? I.bfind64(x as bigint, signed, sa) : I.bfind32(x as number, signed, sa);
        });
      }
      case Opcode.Prmt: {
        const a = src(0);
        const b = src(1);
        const c = src(2);
        const pm = ins.prmtMode;
        return generic(d, K.U32, [a, b, c], [K.U32, K.U32, K.U32], (x, y, z) => I.prmt(x as number, y as number, z as number, pm));
      }
      case Opcode.Bmsk: {
        const a = src(0, 32);
        const b = src(1, 32);
        const clamp = ins.clamp;
        return generic(d, K.U32, [a, b], [K.U32, K.U32], (x, y) => I.bmsk(x as number, y as number, clamp));
      }
      case Opcode.Shf: {
        const a = src(0, 32);
        const b = src(1, 32);
        const c = src(2, 32);
        const right = ins.shfRight;
        const clamp = ins.clamp;
        return generic(d, K.U32, [a, b, c], [K.U32, K.U32, K.U32], (x, y, z) => I.shf(x as number, y as number, z as number, right, clamp));
      }
      default:
        throw this.unsupported(`'${ins.opText}'`, ins);
    }
  }

  private logic(ins: Instruction, d: Slot, bits: number): Exec {
    const op = ins.op;
    if (ins.type === ScalarType.Pred) {
      const a = this.pred(ins.src[0]!);
      const b = op === Opcode.Not ? a : this.pred(ins.src[1]!);
      return (w, mask) => {
        let x = w.preds[a.slot]!;
        if (a.neg) x = ~x;
        let y = w.preds[b.slot]!;
        if (b.neg) y = ~y;
        const r = op === Opcode.And ? x & y : op === Opcode.Or ? x | y : op === Opcode.Xor ? x ^ y : ~x;
        w.preds[d.slot] = (w.preds[d.slot]! & ~mask) | (r & mask);
      };
    }
    const a = this.src(ins.src[0]!, bits);
    const b = op === Opcode.Not ? a : this.src(ins.src[1]!, bits);
    const words = bits === 64 ? 2 : 1;
    const m = widthMask(bits);
    return (w, mask) => {
      const u = w.u32;
      for (let l = 0; l < 32; l++) {
        if (((mask >>> l) & 1) === 0) continue;
        for (let k = 0; k < words; k++) {
          const ia = a.bits === 64 ? a.slot + 2 * l + k : a.slot + l;
          const ib = b.bits === 64 ? b.slot + 2 * l + k : b.slot + l;
          const x = u[ia]!;
          const y = u[ib]!;
          const r = op === Opcode.And ? x & y : op === Opcode.Or ? x | y : op === Opcode.Xor ? x ^ y : ~x;
          u[words === 2 ? d.slot + 2 * l + k : d.slot + l] = r & m;
        }
      }
    };
  }

  /** add.cc / addc / sub.cc / subc (carry or borrow in the `%cc` predicate register). */
  private carryAdd(d: Slot, a: Slot, b: Slot, isSub: boolean, carryIn: boolean, cc: boolean, ccSlot: number, bits: number): Exec {
    const wide = bits === 64;
    return (w, mask) => {
      const flags = w.preds[ccSlot]!;
      let out = 0;
      for (let l = 0; l < 32; l++) {
        if (((mask >>> l) & 1) === 0) continue;
        const cin = carryIn ? (flags >>> l) & 1 : 0;
        if (wide) {
          const x = rd(w, K.U64, a, l) as bigint;
          const y = rd(w, K.U64, b, l) as bigint;
          const r = isSub ? x - y - BigInt(cin) : x + y + BigInt(cin);
          w.u64[(d.slot >> 1) + l] = r;
          if ((isSub ? I.subBorrowOut64(x, y, cin) : I.addCarryOut64(x, y, cin)) === 1) out |= 1 << l;
        } else {
          const x = w.u32[a.slot + l]!;
          const y = w.u32[b.slot + l]!;
          w.u32[d.slot + l] = isSub ? x - y - cin : x + y + cin;
          if ((isSub ? I.subBorrowOut32(x, y, cin) : I.addCarryOut32(x, y, cin)) === 1) out |= 1 << l;
        }
      }
      if (cc) w.preds[ccSlot] = (flags & ~mask) | (out & mask);
    };
  }

  /** mad.cc / madc (.lo/.hi), carry in the `%cc` predicate register. */
  private carryMad(d: Slot, a: Slot, b: Slot, c: Slot, hi: boolean, carryIn: boolean, cc: boolean, ccSlot: number, bits: number, k: Kd, signed: boolean): Exec {
    const wide = bits === 64;
    return (w, mask) => {
      const flags = w.preds[ccSlot]!;
      let out = 0;
      for (let l = 0; l < 32; l++) {
        if (((mask >>> l) & 1) === 0) continue;
        const cin = carryIn ? (flags >>> l) & 1 : 0;
        if (wide) {
          const x = rd(w, k, a, l) as bigint;
          const y = rd(w, k, b, l) as bigint;
          const p = BigInt.asUintN(64, hi ? I.mulHi64(x, y, signed) : I.mulLo64(x, y, signed));
          const z = rd(w, K.U64, c, l) as bigint;
          w.u64[(d.slot >> 1) + l] = p + z + BigInt(cin);
          if (I.addCarryOut64(p, z, cin)) out |= 1 << l;
        } else {
          const x = rd(w, k, a, l) as number;
          const y = rd(w, k, b, l) as number;
          const p = (hi ? I.mulHi(x, y, 32, signed) : I.mulLo(x, y, 32, signed)) >>> 0;
          const z = w.u32[c.slot + l]!;
          w.u32[d.slot + l] = p + z + cin;
          if (I.addCarryOut32(p, z, cin)) out |= 1 << l;
        }
      }
      if (cc) w.preds[ccSlot] = (flags & ~mask) | (out & mask);
    };
  }

  // -------------------------------------------------------------------------------------------
  // floating point
  // -------------------------------------------------------------------------------------------

  private floatOp(ins: Instruction, k: Kd): Exec {
    const op = ins.op;
    const is32 = k === K.F32;
    const bits = is32 ? 32 : 64;
    const d = this.reg(ins.dst[0]!);
    const src = (i: number): Slot => this.src(ins.src[i]!, bits);
    const mode = modeOf(ins.rounding);
    const ftz = ins.ftz;
    const sat = ins.sat;
    const plain = mode === 0 && !ftz && !sat;
    switch (op) {
      case Opcode.Add:
      case Opcode.Sub:
      case Opcode.Mul: {
        const a = src(0);
        const b = src(1);
        if (plain) return plainArith(d, a, b, op, is32);
        if (is32) {
          return generic(d, k, [a, b], [k, k], (x, y) =>
            op === Opcode.Mul ? F.mulF32(x as number, y as number, mode, ftz, sat) : op === Opcode.Sub ? F.subF32(x as number, y as number, mode, ftz, sat) : F.addF32(x as number, y as number, mode, ftz, sat),
          );
        }
        return generic(d, k, [a, b], [k, k], (x, y) =>
          op === Opcode.Mul ? F.mulF64(x as number, y as number, mode) : op === Opcode.Sub ? F.subF64(x as number, y as number, mode) : F.addF64(x as number, y as number, mode),
        );
      }
      case Opcode.Fma:
      case Opcode.Mad: {
        const a = src(0);
        const b = src(1);
        const c = src(2);
        if (is32 && plain) {
          return (w, mask) => {
            const f = w.f32;
            for (let l = 0; l < 32; l++) {
              if (((mask >>> l) & 1) === 0) continue;
              const x = f[a.slot + l]!;
              const y = f[b.slot + l]!;
              const z = f[c.slot + l]!;
              const p = x * y; // exact
              const s = p + z;
              // exact sum: a single f32 rounding on store; otherwise the full single-rounding path
              f[d.slot + l] = twoSumError(p, z, s) === 0 ? s : F.fmaF32(x, y, z, 0, false, false);
            }
          };
        }
        if (is32) return generic(d, k, [a, b, c], [k, k, k], (x, y, z) => F.fmaF32(x as number, y as number, z as number, mode, ftz, sat));
        return generic(d, k, [a, b, c], [k, k, k], (x, y, z) => F.fmaF64(x as number, y as number, z as number, mode));
      }
      case Opcode.Div: {
        const a = src(0);
        const b = src(1);
        if (!is32) return generic(d, k, [a, b], [k, k], (x, y) => F.divF64(x as number, y as number, mode));
        if (ins.approx) return generic(d, k, [a, b], [k, k], (x, y) => F.divApproxF32(x as number, y as number, ftz));
        if (ins.full) return generic(d, k, [a, b], [k, k], (x, y) => F.divFullF32(x as number, y as number, ftz));
        return generic(d, k, [a, b], [k, k], (x, y) => F.divF32(x as number, y as number, mode, ftz));
      }
      case Opcode.Rcp:
      case Opcode.Sqrt:
      case Opcode.Rsqrt:
      case Opcode.Ex2:
      case Opcode.Lg2:
      case Opcode.Sin:
      case Opcode.Cos: {
        const a = src(0);
        const approx = ins.approx;
        let f: (x: number) => number;
        switch (op) {
          case Opcode.Rcp:
            f = is32 ? (approx ? (x) => F.rcpApproxF32(x, ftz) : (x) => F.rcpF32(x, mode, ftz)) : approx ? (x) => F.rcpApproxFtzF64(x) : (x) => F.rcpF64(x, mode);
            break;
          case Opcode.Sqrt:
            f = is32 ? (approx ? (x) => F.sqrtApproxF32(x, ftz) : (x) => F.sqrtF32(x, mode, ftz)) : (x) => F.sqrtF64(x, mode);
            break;
          case Opcode.Rsqrt:
            f = is32 ? (x) => F.rsqrtApproxF32(x, ftz) : (x) => F.rsqrtApproxF64(x);
            break;
          case Opcode.Ex2:
            f = (x) => F.ex2ApproxF32(x, ftz);
            break;
          case Opcode.Lg2:
            f = (x) => F.lg2ApproxF32(x, ftz);
            break;
          case Opcode.Sin:
            f = (x) => F.sinApproxF32(x, ftz);
            break;
          default:
            f = (x) => F.cosApproxF32(x, ftz);
        }
        return generic(d, k, [a], [k], (x) => f(x as number));
      }
      case Opcode.Abs:
      case Opcode.Neg: {
        const a = src(0);
        const isAbs = op === Opcode.Abs;
        if (!ftz) {
          // sign-bit operations, exact for every value including NaN payloads
          const hiOff = is32 ? 0 : 1;
          const stride = is32 ? 1 : 2;
          return (w, mask) => {
            const u = w.u32;
            for (let l = 0; l < 32; l++) {
              if (((mask >>> l) & 1) === 0) continue;
              if (!is32) u[d.slot + 2 * l] = u[a.slot + 2 * l]!;
              const v = u[a.slot + stride * l + hiOff]!;
              u[d.slot + stride * l + hiOff] = isAbs ? v & 0x7fffffff : v ^ 0x80000000;
            }
          };
        }
        return generic(d, k, [a], [k], (x) => (isAbs ? F.absF32(x as number, true) : F.negF32(x as number, true)));
      }
      case Opcode.Min:
      case Opcode.Max: {
        const a = src(0);
        const b = src(1);
        const isMin = op === Opcode.Min;
        return generic(d, k, [a, b], [k, k], (x, y) => (isMin ? F.minFloat(x as number, y as number, ftz) : F.maxFloat(x as number, y as number, ftz)));
      }
      case Opcode.Copysign: {
        const a = src(0);
        const b = src(1);
        const hiOff = is32 ? 0 : 1;
        const stride = is32 ? 1 : 2;
        return (w, mask) => {
          const u = w.u32;
          for (let l = 0; l < 32; l++) {
            if (((mask >>> l) & 1) === 0) continue;
            if (!is32) u[d.slot + 2 * l] = u[b.slot + 2 * l]!;
            const sign = u[a.slot + stride * l + hiOff]! & 0x80000000;
            u[d.slot + stride * l + hiOff] = (u[b.slot + stride * l + hiOff]! & 0x7fffffff) | sign;
          }
        };
      }
      default:
        throw this.unsupported(`'${ins.opText}'`, ins);
    }
  }
}
