/**
 * {@link FunctionalWarp}: 32 lanes executing one PTX instruction per {@link FunctionalWarp.step}.
 *
 * Control flow uses a SIMT reconvergence stack (GPGPU-Sim's model, Fung et al., MICRO 2007; paper
 * 002 §2): each entry is (function, PC, reconvergence PC, lane mask). The top entry runs. At a
 * divergent branch the top entry becomes the reconvergence entry (its PC set to the branch's
 * immediate post-dominator, from `src/isa/cfg.ts`) and the two paths are pushed, the
 * fall-through path on top (so it runs first); an entry is popped when its PC reaches its
 * reconvergence PC. If the top entry already reconverges at the same PC (a loop back edge), it is
 * replaced instead of nested, so divergent loops do not grow the stack.
 *
 * `exit` (and `ret` in the kernel) removes lanes from every entry; entries left without lanes
 * are popped. `call` pushes an entry for the callee that reconverges only when all its lanes
 * returned; `ret` in a `.func` removes the returning lanes from the callee's entries after
 * copying their return values. A `call` through a function pointer resolves each lane's pointer;
 * the lanes are grouped by callee and the groups are serialised through the stack: one call
 * entry per callee, pushed together, the group of the lowest lane on top, each running to its
 * return before the next starts, all reconverging after the call (as hardware serialises a
 * divergent indirect call, one target at a time). A pointer that names no function the call may
 * reach, and a thread entering a function it is already in (recursion through a pointer: every
 * function has one frame per thread), stop the kernel with a fault report. `bar.sync` blocks the whole warp until the CTA barrier completes
 * (barriers are per warp: a warp arrives with whatever lanes are active).
 *
 * Runtime calls (`call vprintf`, `call __assertfail`) are executed here, lane by lane in
 * increasing lane order, without entering a callee: `vprintf` formats the lane's arguments and
 * hands the text to the launch (printed after the kernel, by CTA then thread); `__assertfail`
 * and `trap` stop the kernel with a {@link FunctionalFault} naming the kernel, CTA and thread.
 *
 * Atomics and stores of one warp instruction are applied lane by lane in increasing lane order,
 * so for conflicting plain stores the highest lane wins and atomics see the results of lower
 * lanes (PTX leaves the order unspecified; this is warpstate's defined order).
 */

import { BarRedOp, functionAtAddress, SpecialReg, StateSpace, Syscall } from '../isa/ir.ts';
import type { Instruction } from '../isa/ir.ts';
import { InstrKind, type CallPlan, type CompiledInstr, type ExecWarp, type Slot } from './exec-types.ts';
import { resolve } from './mem-access.ts';
import { formatDevicePrintf, MAX_PRINTF_STRING } from './printf.ts';
import { CLOCK_SREGS, type CompiledFunction, type CompiledKernel } from './compile.ts';
import { popc32 as popcount } from './ops/int.ts';
import type { FunctionalCta } from './cta.ts';
import type { FunctionalKernel } from './kernel.ts';
import { ByteStore, FunctionalFault, MemoryAccessFault, type GlobalMemory } from './memory.ts';
import { TextureFault, type TextureTable } from './texture.ts';
import type { WarpStepInfo } from './step-info.ts';

// fields of a SIMT stack entry
const FN = 0;
const PC = 1;
const RPC = 2;
const MASK = 3;
const NEVER = -1; // reconvergence PC of the bottom entry
const NO_CALLS = new Int32Array(0);
const CALL_MARK = -2; // reconvergence PC of a call entry (it ends when all lanes returned)

/** One warp of a CTA. */
export class FunctionalWarp implements ExecWarp {
  /** The CTA this warp belongs to. */
  readonly cta: FunctionalCta;
  /** The launch. */
  readonly kernel: FunctionalKernel;
  /** Warp index in the CTA (`%warpid`). */
  readonly warpIndex: number;
  /** Lanes that hold threads (the last warp of a CTA may be partial). */
  readonly initialMask: number;

  // ExecWarp state read and written by the compiled instruction closures (see exec-types.ts):
  // register-file views, predicate masks, memories, and per-instruction scratch.
  readonly u32: Uint32Array;
  readonly i32: Int32Array;
  readonly f32: Float32Array;
  readonly f64: Float64Array;
  readonly u64: BigUint64Array;
  readonly s64: BigInt64Array;
  readonly preds: Int32Array;
  readonly gmem: GlobalMemory;
  readonly shared: ByteStore;
  readonly sharedBytes: number;
  readonly local: ByteStore;
  readonly localStride: number;
  readonly localBytes: number;
  readonly cnst: ByteStore;
  readonly constBytes: number;
  readonly param: ByteStore;
  readonly paramBytes: number;
  readonly symAddr: Float64Array;
  addresses: Float64Array;
  resolvedSpace = -1;
  laneSpace = 0;
  memStore: ByteStore;
  readonly scratch: Uint32Array;
  readonly textures: TextureTable;
  texels: Float64Array;
  texelCount = 0;
  texelBytes = 0;

  /**
   * Value of `%clock64` (cycles) for the next instruction. The timing model sets it before each
   * `step`; otherwise it counts this warp's executed instructions (it is incremented after every
   * step).
   */
  clock = 0;
  /** Value of `%globaltimer` in nanoseconds; defaults to {@link clock}. Set it with the clock when timing. */
  globalTimerNs: number | undefined = undefined;

  /** Lanes that have exited. */
  exitedMask = 0;
  /** True once every lane exited. */
  done = false;
  /** Barrier id the warp waits at, or -1. */
  atBarrier = -1;
  /** `bar.red` in flight (set by the CTA, written back at the barrier's release): barrier id or -1, reduction, lanes, destination. */
  redBarrier = -1;
  redOp: BarRedOp = BarRedOp.None;
  redMask = 0;
  redDst: Slot | undefined = undefined;
  /** Warp instructions executed. */
  warpInstructions = 0;
  /** Thread instructions executed (sum of active lanes). */
  threadInstructions = 0;

  // SIMT stack: entry i at stack[4i .. 4i+3] = function, pc, reconvergence pc, lane mask
  private stack: Int32Array;
  private depth = 0;
  // call frames: SIMT stack index of each call entry and its frame transfers (grown by calls through pointers)
  private callEntry: Int32Array;
  private callPlans: (CallPlan | undefined)[];
  private callDepth = 0;
  // indirect calls: callee of each lane, and the groups of lanes per callee (allocated on first use)
  private laneCallee: Int32Array = NO_CALLS;
  private groupCallee: Int32Array = NO_CALLS;
  private groupMask: Int32Array = NO_CALLS;

  private readonly code: readonly (CompiledFunction | undefined)[];
  private readonly clockSlots: readonly { sreg: number; slot: number }[];

  constructor(cta: FunctionalCta, warpIndex: number) {
    this.cta = cta;
    const k = cta.kernel;
    this.kernel = k;
    this.warpIndex = warpIndex;
    const ck: CompiledKernel = k.compiled;
    const buf = new ArrayBuffer(Math.max(8, ck.regWords * 4));
    this.u32 = new Uint32Array(buf);
    this.u32.set(ck.template);
    this.i32 = new Int32Array(buf);
    this.f32 = new Float32Array(buf);
    this.f64 = new Float64Array(buf);
    this.u64 = new BigUint64Array(buf);
    this.s64 = new BigInt64Array(buf);
    this.preds = new Int32Array(ck.predCount);
    this.preds[1] = -1; // constant true
    this.gmem = k.memory;
    this.shared = cta.shared;
    this.sharedBytes = k.sharedBytes;
    this.localStride = k.localStride;
    this.localBytes = k.localBytes;
    this.local = this.localBytes > 0 ? new ByteStore(32 * this.localStride) : k.emptyStore;
    this.scratch = k.scratch;
    this.addresses = k.scratchAddresses;
    this.cnst = k.cnst;
    this.constBytes = k.constBytes;
    this.param = k.param;
    this.paramBytes = k.paramBytes;
    this.symAddr = k.symAddr;
    this.memStore = this.local;
    this.textures = k.textures;
    this.texels = k.scratchTexels;
    this.code = ck.functions;

    const first = warpIndex * 32;
    const n = Math.max(0, Math.min(32, k.threadsPerCta - first));
    this.initialMask = n === 32 ? -1 : (1 << n) - 1;
    this.fillSpecials();
    this.clockSlots = ck.specials.filter((s) => CLOCK_SREGS.has(s.sreg)).map((s) => ({ sreg: s.sreg, slot: s.slot }));

    this.stack = new Int32Array(4 * 8);
    this.callEntry = ck.maxCallDepth > 0 ? new Int32Array(ck.maxCallDepth + 2) : NO_CALLS;
    this.callPlans = ck.maxCallDepth > 0 ? new Array<CallPlan | undefined>(ck.maxCallDepth + 2).fill(undefined) : [];
    if (this.initialMask === 0 || this.code[ck.entry]!.code.length === 0) this.done = true;
    else this.push(ck.entry, 0, NEVER, this.initialMask);
  }

  /**
   * Returns the warp to its launch state for the CTA's current id (used when a finished CTA is
   * recycled by `FunctionalKernel.createCta`): registers, predicates and local memory cleared,
   * special registers refilled, SIMT stack at the entry.
   */
  reset(): void {
    const ck = this.kernel.compiled;
    this.u32.set(ck.template);
    if (ck.regWords < this.u32.length) this.u32.fill(0, ck.regWords);
    this.preds.fill(0);
    this.preds[1] = -1;
    if (this.localBytes > 0) this.local.u8.fill(0);
    this.fillSpecials();
    this.exitedMask = 0;
    this.atBarrier = -1;
    this.redBarrier = -1;
    this.warpInstructions = 0;
    this.threadInstructions = 0;
    this.clock = 0;
    this.globalTimerNs = undefined;
    this.depth = 0;
    this.callDepth = 0;
    this.done = this.initialMask === 0 || this.code[ck.entry]!.code.length === 0;
    if (!this.done) this.push(ck.entry, 0, NEVER, this.initialMask);
  }

  /** Lanes at the current PC (top of the SIMT stack), or 0 when done. */
  get activeMask(): number {
    return this.depth > 0 ? this.stack[4 * (this.depth - 1) + MASK]! : 0;
  }

  /** PC of the next instruction, or -1 when done. */
  get pc(): number {
    return this.depth > 0 ? this.stack[4 * (this.depth - 1) + PC]! : -1;
  }

  /** Function index of the next instruction, or -1 when done. */
  get functionIndex(): number {
    return this.depth > 0 ? this.stack[4 * (this.depth - 1) + FN]! : -1;
  }

  /**
   * The instruction the next {@link step} executes (undefined when done): the timing model reads
   * its opcode class and registers (`opClass`, `srcRegs`, `dstRegs`) before issuing it.
   */
  get nextInstruction(): Instruction | undefined {
    if (this.depth === 0) return undefined;
    return this.code[this.stack[4 * (this.depth - 1) + FN]!]!.code[this.stack[4 * (this.depth - 1) + PC]!]?.ins;
  }

  /** True when the warp can execute (not done, not waiting at a barrier). */
  get ready(): boolean {
    return !this.done && this.atBarrier < 0;
  }

  /** SIMT stack depth. */
  get stackDepth(): number {
    return this.depth;
  }

  private push(fn: number, pc: number, rpc: number, mask: number): void {
    if (4 * this.depth === this.stack.length) {
      const b = new Int32Array(this.stack.length * 2);
      b.set(this.stack);
      this.stack = b;
    }
    const i = 4 * this.depth++;
    const s = this.stack;
    s[i + FN] = fn;
    s[i + PC] = pc;
    s[i + RPC] = rpc;
    s[i + MASK] = mask;
  }

  /** Pops entries that reached their reconvergence PC or lost all their lanes. */
  private settle(): void {
    while (this.depth > 0) {
      const t = this.depth - 1;
      if (this.stack[4 * t + MASK] !== 0 && this.stack[4 * t + PC] !== this.stack[4 * t + RPC]) break;
      this.depth--;
      if (this.callDepth > 0 && this.callEntry[this.callDepth]! >= this.depth) this.callDepth--;
    }
    if (this.depth === 0 && !this.done) {
      this.done = true;
      this.cta.warpExited(this);
    }
  }

  /**
   * Executes the next instruction and describes it in `info` (overwriting every field).
   * @throws FunctionalFault on a bad memory access (naming kernel, function, PC, line, lane,
   *   address), or when called on a finished warp or one waiting at a barrier.
   */
  step(info: WarpStepInfo): void {
    info.reset();
    if (this.done || this.atBarrier >= 0) {
      throw new FunctionalFault(`step() on a warp that is ${this.done ? 'finished' : 'waiting at a barrier'}`, {
        kind: 'unsupported',
        kernel: this.kernel.entry.name,
        cta: this.cta.ctaId,
        warp: this.warpIndex,
        reason: this.done ? 'warp finished' : 'warp at barrier',
      });
    }
    const t = this.depth - 1;
    const fnIdx = this.stack[4 * t + FN]!;
    const pc = this.stack[4 * t + PC]!;
    const mask = this.stack[4 * t + MASK]!;
    const ci = this.code[fnIdx]!.code[pc]!;
    let exec = mask;
    if (ci.guard >= 0) {
      const g = this.preds[ci.guard]!;
      exec &= ci.guardNeg ? ~g : g;
    }
    info.pc = pc;
    info.functionIndex = fnIdx;
    info.instruction = ci.ins;
    info.warpMask = mask >>> 0;
    info.activeMask = exec >>> 0;
    const count = popcount(exec);
    info.activeCount = count;
    this.warpInstructions++;
    this.threadInstructions += count;

    switch (ci.kind) {
      case InstrKind.Normal:
        if (exec !== 0) {
          if (ci.readsClock) this.refreshClock();
          ci.exec(this, exec);
        }
        this.advance(t, pc + 1);
        break;
      case InstrKind.Memory:
        info.accessBytes = ci.accessBytes;
        info.isLoad = ci.isLoad;
        info.isStore = ci.isStore;
        info.space = ci.space;
        if (exec !== 0) {
          this.addresses = info.addresses;
          info.addresses.fill(NaN);
          this.execMemory(ci, exec, fnIdx, pc);
          if (ci.space === StateSpace.Generic && this.resolvedSpace >= 0) info.space = this.resolvedSpace as StateSpace;
        }
        this.advance(t, pc + 1);
        break;
      case InstrKind.Texture:
        // tex / tld4: a memory instruction whose texel addresses go to the timing model
        info.isLoad = true;
        info.space = StateSpace.Tex;
        info.texelCount = 0;
        info.accessBytes = 0;
        if (exec !== 0) {
          this.addresses = info.addresses;
          this.texels = info.texels;
          info.addresses.fill(NaN);
          this.execMemory(ci, exec, fnIdx, pc);
          info.texelCount = this.texelCount;
          info.accessBytes = this.texelBytes;
        }
        this.advance(t, pc + 1);
        break;
      case InstrKind.Branch:
        this.branch(info, ci, t, fnIdx, pc, mask, exec);
        break;
      case InstrKind.Exit:
        this.exitLanes(t, pc, exec);
        break;
      case InstrKind.Ret:
        if (this.callDepth === 0) this.exitLanes(t, pc, exec);
        else this.returnLanes(t, pc, exec);
        info.jumped = exec !== 0;
        break;
      case InstrKind.Call:
        if (exec === 0) this.advance(t, pc + 1);
        else {
          this.callFunction(ci, t, pc, exec);
          info.jumped = true;
        }
        break;
      case InstrKind.CallIndirect:
        if (exec === 0) this.advance(t, pc + 1);
        else {
          info.diverged = this.callIndirect(ci, t, fnIdx, pc, exec) > 1;
          info.jumped = true;
        }
        break;
      case InstrKind.Barrier:
        this.advance(t, pc + 1);
        if (exec !== 0) {
          const id = this.laneValue(ci.barId!.slot, ci.barId!.bits, exec) & 15;
          const count = ci.barCount ? this.laneValue(ci.barCount.slot, ci.barCount.bits, exec) : 0;
          if (ci.barRed !== BarRedOp.None) {
            const p = ci.barPred!;
            const v = p.slot === 0 ? 0 : p.slot === 1 ? -1 : this.preds[p.slot]!;
            this.cta.arriveRed(this, id, count, ci.barRed, (p.neg ? ~v : v) & exec, exec, ci.barDst!);
          } else this.cta.arrive(this, id, count, !ci.barArrive);
        }
        break;
      case InstrKind.Syscall:
        if (exec !== 0) this.syscall(ci, fnIdx, pc, exec);
        this.advance(t, pc + 1);
        break;
      case InstrKind.Sleep:
        if (exec !== 0) {
          // PTX: the sleep lasts at most 2t and never more than 1 ms; warpstate sleeps t (the
          // largest of the active lanes), capped at 1 ms
          const s = ci.sleepNs!;
          let ns = 0;
          for (let l = 0; l < 32; l++) if ((exec >>> l) & 1 && this.u32[s.slot + l]! > ns) ns = this.u32[s.slot + l]!;
          info.sleepNs = ns > 1_000_000 ? 1_000_000 : ns;
        }
        this.advance(t, pc + 1);
        break;
      case InstrKind.Trap:
        if (exec !== 0) throw this.programFault('trap', ci, fnIdx, pc, 31 - Math.clz32(exec & -exec), 'trap', {});
        this.advance(t, pc + 1);
        break;
      default:
        this.advance(t, pc + 1);
    }
    this.clock++;
    this.fillNext(info);
  }

  private fillNext(info: WarpStepInfo): void {
    // falling off the end of a function is an implicit return (not an instruction): done here,
    // so that the next PC is always a real instruction
    while (this.depth > 0 && this.stack[4 * (this.depth - 1) + PC]! >= this.code[this.stack[4 * (this.depth - 1) + FN]!]!.code.length) {
      this.implicitReturn();
    }
    info.atBarrier = this.atBarrier >= 0;
    info.exited = this.done;
    info.stackDepth = this.depth;
    if (this.depth > 0) {
      const t = this.depth - 1;
      info.nextPc = this.stack[4 * t + PC]!;
      info.nextFunctionIndex = this.stack[4 * t + FN]!;
      info.nextMask = this.stack[4 * t + MASK]! >>> 0;
    } else {
      info.nextPc = -1;
      info.nextFunctionIndex = -1;
      info.nextMask = 0;
    }
  }

  /** Value of a (uniform) operand: the first active lane's. */
  private laneValue(slot: number, bits: number, mask: number): number {
    const l = 31 - Math.clz32(mask & -mask);
    return this.u32[bits === 64 ? slot + 2 * l : slot + l]!;
  }

  private advance(t: number, next: number): void {
    if (t === this.depth - 1) this.stack[4 * t + PC] = next;
    this.settle();
  }

  private branch(info: WarpStepInfo, ci: CompiledInstr, t: number, fn: number, pc: number, mask: number, taken: number): void {
    const notTaken = mask & ~taken;
    if (taken === 0 || ci.target === pc + 1) {
      this.advance(t, pc + 1);
      return;
    }
    if (notTaken === 0) {
      info.jumped = true;
      this.advance(t, ci.target);
      return;
    }
    info.diverged = true;
    const rpc = ci.rpc;
    if (this.stack[4 * t + RPC] === rpc) {
      // the current entry already waits for reconvergence at rpc below: replace it
      this.depth--;
    } else {
      this.stack[4 * t + PC] = rpc;
    }
    if (ci.target !== rpc) this.push(fn, ci.target, rpc, taken);
    if (pc + 1 !== rpc) this.push(fn, pc + 1, rpc, notTaken);
    this.settle();
  }

  private exitLanes(t: number, pc: number, lanes: number): void {
    if (lanes === 0) {
      this.advance(t, pc + 1);
      return;
    }
    this.exitedMask |= lanes;
    const keep = ~lanes;
    for (let i = 0; i < this.depth; i++) this.stack[4 * i + MASK] = this.stack[4 * i + MASK]! & keep;
    if (this.stack[4 * t + MASK] !== 0) this.stack[4 * t + PC] = pc + 1;
    this.settle();
  }

  private callFunction(ci: CompiledInstr, t: number, pc: number, lanes: number): void {
    const plan = ci.call!;
    for (const a of plan.args) this.copyToFrame(a.reg, a.varOff, a.paramOff, a.size, lanes);
    this.stack[4 * t + PC] = pc + 1; // continuation of every lane of the entry
    this.pushCall(ci.callee, plan, lanes);
    this.settle();
  }

  /** Pushes the call entry of `callee` for `lanes` and its call frame (growing the frame arrays past the static depth). */
  private pushCall(callee: number, plan: CallPlan, lanes: number): void {
    if (this.callDepth + 1 >= this.callEntry.length) {
      const n = Math.max(8, 2 * this.callEntry.length);
      const e = new Int32Array(n);
      e.set(this.callEntry);
      this.callEntry = e;
      this.callPlans.length = n;
    }
    this.push(callee, 0, CALL_MARK, lanes);
    this.callDepth++;
    this.callEntry[this.callDepth] = this.depth - 1;
    this.callPlans[this.callDepth] = plan;
  }

  /**
   * A call through a function pointer for `lanes`: resolves each lane's callee (a fault for a
   * pointer that names no function the call may reach, or a function the thread is already in),
   * copies every lane's arguments, and pushes one call entry per distinct callee, the group of the
   * lowest lane on top (it runs first); the caller continues after the call when all returned.
   * @returns the number of distinct callees
   */
  private callIndirect(ci: CompiledInstr, t: number, fnIdx: number, pc: number, lanes: number): number {
    const ind = ci.indirect!;
    if (this.laneCallee === NO_CALLS) {
      this.laneCallee = new Int32Array(32);
      this.groupCallee = new Int32Array(32);
      this.groupMask = new Int32Array(32);
    }
    const s = ind.fptr;
    const nFns = this.code.length;
    for (let l = 0; l < 32; l++) {
      if (((lanes >>> l) & 1) === 0) continue;
      const v = s.bits === 64 ? this.u32[s.slot + 2 * l]! + this.u32[s.slot + 2 * l + 1]! * 4294967296 : this.u32[s.slot + l]!;
      const f = functionAtAddress(v, nFns);
      if (f < 0 || ind.plans[f] === undefined) {
        const what = f < 0 ? `call through a pointer that is no function (0x${v.toString(16)})` : `call through a pointer to '${this.kernel.module.functions[f]!.name}', which this call cannot reach (${this.kernel.module.functions[f]!.hasBody ? 'another prototype, or not in its call targets' : 'no body in this module'})`;
        throw this.programFault('call', ci, fnIdx, pc, l, what, {});
      }
      this.laneCallee[l] = f;
    }
    // group by callee, in order of each group's lowest lane
    let groups = 0;
    let rest = lanes;
    while (rest !== 0) {
      const first = 31 - Math.clz32(rest & -rest);
      const f = this.laneCallee[first]!;
      let m = 0;
      for (let l = first; l < 32; l++) if ((rest >>> l) & 1 && this.laneCallee[l] === f) m |= 1 << l;
      rest &= ~m;
      // recursion through a pointer: a lane of the group is already in f
      for (let i = 0; i < this.depth; i++) {
        const inside = this.stack[4 * i + MASK]! & m;
        if (this.stack[4 * i + FN] === f && inside !== 0) {
          const lane = 31 - Math.clz32(inside & -inside);
          throw this.programFault('unsupported', ci, fnIdx, pc, lane, `not supported: recursion through a function pointer ('${this.kernel.module.functions[f]!.name}' is already running in this thread)`, {});
        }
      }
      this.groupCallee[groups] = f;
      this.groupMask[groups++] = m;
    }
    for (let g = 0; g < groups; g++) {
      const plan = ind.plans[this.groupCallee[g]!]!;
      for (const a of plan.args) this.copyToFrame(a.reg, a.varOff, a.paramOff, a.size, this.groupMask[g]!);
    }
    this.stack[4 * t + PC] = pc + 1; // where every lane continues once all callees returned
    for (let g = groups - 1; g >= 0; g--) this.pushCall(this.groupCallee[g]!, ind.plans[this.groupCallee[g]!]!, this.groupMask[g]!);
    this.settle();
    return groups;
  }

  private returnLanes(t: number, pc: number, lanes: number): void {
    if (lanes === 0) {
      this.advance(t, pc + 1);
      return;
    }
    const plan = this.callPlans[this.callDepth]!;
    for (const r of plan.rets) this.copyFromFrame(r.reg, r.varOff, r.paramOff, r.size, lanes);
    const base = this.callEntry[this.callDepth]!;
    const keep = ~lanes;
    for (let i = base; i < this.depth; i++) this.stack[4 * i + MASK] = this.stack[4 * i + MASK]! & keep;
    if (this.stack[4 * t + MASK] !== 0) this.stack[4 * t + PC] = pc + 1;
    this.settle();
  }

  /** A function ran past its last instruction: `ret` for every lane of the top entry. */
  private implicitReturn(): void {
    const t = this.depth - 1;
    const lanes = this.stack[4 * t + MASK]!;
    if (this.callDepth === 0) this.exitLanes(t, this.stack[4 * t + PC]!, lanes);
    else this.returnLanes(t, this.stack[4 * t + PC]!, lanes);
  }

  /** Writes a register (or copies a caller `.param` variable) into a callee parameter, per lane. */
  private copyToFrame(reg: { slot: number; bits: number } | undefined, varOff: number, paramOff: number, size: number, lanes: number): void {
    const u8 = this.local.u8;
    for (let l = 0; l < 32; l++) {
      if (((lanes >>> l) & 1) === 0) continue;
      const base = l * this.localStride;
      if (reg) {
        const lo = this.u32[reg.bits === 64 ? reg.slot + 2 * l : reg.slot + l]!;
        const hi = reg.bits === 64 ? this.u32[reg.slot + 2 * l + 1]! : 0;
        for (let k = 0; k < size; k++) u8[base + paramOff + k] = k < 4 ? (lo >>> (8 * k)) & 0xff : k < 8 ? (hi >>> (8 * (k - 4))) & 0xff : 0;
      } else {
        u8.copyWithin(base + paramOff, base + varOff, base + varOff + size);
      }
    }
  }

  /** Copies a callee return parameter into a register or a caller `.param` variable, per lane. */
  private copyFromFrame(reg: { slot: number; bits: number } | undefined, varOff: number, paramOff: number, size: number, lanes: number): void {
    const u8 = this.local.u8;
    for (let l = 0; l < 32; l++) {
      if (((lanes >>> l) & 1) === 0) continue;
      const base = l * this.localStride + paramOff;
      if (reg) {
        let lo = 0;
        let hi = 0;
        for (let k = 0; k < size && k < 8; k++) {
          const b = u8[base + k]!;
          if (k < 4) lo |= b << (8 * k);
          else hi |= b << (8 * (k - 4));
        }
        if (reg.bits === 64) {
          this.u32[reg.slot + 2 * l] = lo;
          this.u32[reg.slot + 2 * l + 1] = hi;
        } else this.u32[reg.slot + l] = reg.bits === 32 ? lo : lo & (reg.bits === 16 ? 0xffff : 0xff);
      } else {
        const vb = l * this.localStride + varOff;
        u8.copyWithin(vb, base, base + size);
      }
    }
  }

  private refreshClock(): void {
    const c = this.clock;
    const g = this.globalTimerNs ?? c;
    for (const s of this.clockSlots) {
      let v: number;
      switch (s.sreg) {
        case SpecialReg.Clock:
          v = c % 4294967296;
          break;
        case SpecialReg.ClockHi:
          v = Math.floor(c / 4294967296);
          break;
        case SpecialReg.GlobaltimerLo:
          v = g % 4294967296;
          break;
        case SpecialReg.GlobaltimerHi:
          v = Math.floor(g / 4294967296);
          break;
        case SpecialReg.Globaltimer:
          this.fill64(s.slot, g);
          continue;
        default:
          this.fill64(s.slot, c);
          continue;
      }
      for (let l = 0; l < 32; l++) this.u32[s.slot + l] = v;
    }
  }

  private fill64(slot: number, v: number): void {
    const lo = v % 4294967296;
    const hi = Math.floor(v / 4294967296);
    for (let l = 0; l < 32; l++) {
      this.u32[slot + 2 * l] = lo;
      this.u32[slot + 2 * l + 1] = hi;
    }
  }

  private fillSpecials(): void {
    const k = this.kernel;
    const cta = this.cta;
    const [bx, by] = k.block;
    for (const s of k.compiled.specials) {
      const comp = s.component < 0 ? 0 : s.component;
      for (let l = 0; l < 32; l++) {
        const tid = this.warpIndex * 32 + l;
        let v = 0;
        switch (s.sreg) {
          case SpecialReg.Tid:
            v = comp === 0 ? tid % bx : comp === 1 ? Math.floor(tid / bx) % by : Math.floor(tid / (bx * by));
            break;
          case SpecialReg.Ntid:
            v = k.block[comp]!;
            break;
          case SpecialReg.Ctaid:
            v = cta.ctaId[comp]!;
            break;
          case SpecialReg.Nctaid:
            v = k.grid[comp]!;
            break;
          case SpecialReg.Laneid:
            v = l;
            break;
          case SpecialReg.Warpid:
            v = this.warpIndex;
            break;
          case SpecialReg.Nwarpid:
            v = k.nwarpid;
            break;
          case SpecialReg.Smid:
            v = cta.smId;
            break;
          case SpecialReg.Nsmid:
            v = k.nsmid;
            break;
          case SpecialReg.Gridid:
            v = k.gridId;
            break;
          case SpecialReg.LanemaskEq:
            v = 2 ** l;
            break;
          case SpecialReg.LanemaskLe:
            v = 2 ** (l + 1) - 1;
            break;
          case SpecialReg.LanemaskLt:
            v = 2 ** l - 1;
            break;
          case SpecialReg.LanemaskGe:
            v = 4294967296 - 2 ** l;
            break;
          case SpecialReg.LanemaskGt:
            v = 4294967296 - 2 ** (l + 1);
            break;
          case SpecialReg.DynamicSmemSize:
            v = k.dynamicSharedBytes;
            break;
          case SpecialReg.TotalSmemSize:
            v = k.sharedBytes;
            break;
          case SpecialReg.WarpSize:
            v = 32;
            break;
          case SpecialReg.Envreg:
            v = k.envRegs[s.component] ?? 0;
            break;
          default:
            v = 0; // clocks: refreshed when read
        }
        if (s.bits === 64) {
          this.u32[s.slot + 2 * l] = v % 4294967296;
          this.u32[s.slot + 2 * l + 1] = Math.floor(v / 4294967296);
        } else this.u32[s.slot + l] = v;
      }
    }
  }

  /** Thread index (x, y, z) in the CTA of lane `l`. */
  private threadIndex(l: number): [number, number, number] {
    const [bx, by] = this.kernel.block;
    const tid = this.warpIndex * 32 + l;
    return [tid % bx, Math.floor(tid / bx) % by, Math.floor(tid / (bx * by))];
  }

  /**
   * A fault the program raised itself (`trap`, a failed `assert`): what the device printed
   * so far is flushed first, as the CUDA runtime prints the printf buffer before reporting it.
   */
  private programFault(kind: 'trap' | 'assert' | 'call' | 'unsupported', ci: CompiledInstr, fnIdx: number, pc: number, lane: number, what: string, extra: Partial<Record<'assertion' | 'sourceFile' | 'sourceFunction', string> & { sourceLine: number }>): FunctionalFault {
    this.kernel.flushDeviceOutput();
    const fn = this.code[fnIdx]!.fn;
    const ins = ci.ins;
    const thread = this.threadIndex(lane);
    const msg =
      `${this.kernel.file}:${ins.line}: ${what} in kernel ${this.kernel.entry.name}, CTA (${this.cta.ctaId.join(',')}), thread (${thread.join(',')}) ` +
      `(function ${fn.name}, pc ${pc} '${ins.opText}', warp ${this.warpIndex}, lane ${lane})`;
    return new FunctionalFault(msg, {
      kind,
      kernel: this.kernel.entry.name,
      function: fn.name,
      pc,
      line: ins.line,
      opText: ins.opText,
      cta: this.cta.ctaId,
      warp: this.warpIndex,
      lane,
      thread,
      reason: what,
      ...extra,
    });
  }

  /** Reads `size` (1, 4 or 8) bytes at generic address `a` as lane `l` sees it (little-endian). */
  private readGeneric(a: number, size: 1 | 4 | 8, l: number): bigint {
    const o = resolve(this, StateSpace.Generic, a, size, l);
    const st = this.memStore;
    if (size === 1) return BigInt(st.u8[o]!);
    if (size === 4) return BigInt(st.u32[o >> 2]!);
    return BigInt(st.u32[o >> 2]!) | (BigInt(st.u32[(o >> 2) + 1]!) << 32n);
  }

  /** The NUL-terminated string at generic address `a` for lane `l` (bytes as Latin-1, at most `max`). */
  private readString(a: number, l: number, max: number): string {
    let s = '';
    for (let i = 0; i < max; i++) {
      const c = Number(this.readGeneric(a + i, 1, l));
      if (c === 0) break;
      s += String.fromCharCode(c);
    }
    return s;
  }

  /**
   * Runs a memory or texture instruction on lanes `exec`, turning a bad address into a memory
   * fault report and a texture or surface fault (bounds `.trap`, bad handle) into a trap report.
   * @throws FunctionalFault for either; any other error unchanged
   */
  private execMemory(ci: CompiledInstr, exec: number, fnIdx: number, pc: number): void {
    try {
      ci.exec(this, exec);
    } catch (e) {
      if (e instanceof MemoryAccessFault) throw this.memoryFault(ci, fnIdx, pc, exec, e);
      if (e instanceof TextureFault) throw this.programFault('trap', ci, fnIdx, pc, e.lane, e.reason, {});
      throw e;
    }
  }

  /**
   * Executes a runtime call for `lanes`, in increasing lane order (CUDA device runtime:
   * `vprintf(format, args)`, `__assertfail(message, file, line, function, charSize)`).
   * @throws FunctionalFault for a failed assertion, or a bad address in the arguments
   */
  private syscall(ci: CompiledInstr, fnIdx: number, pc: number, lanes: number): void {
    const plan = ci.call!;
    for (const a of plan.args) this.copyToFrame(a.reg, a.varOff, a.paramOff, a.size, lanes);
    const u8 = this.local.u8;
    const param = (l: number, k: number): number => {
      const base = l * this.localStride + plan.args[k]!.paramOff;
      let v = 0;
      for (let b = plan.args[k]!.size - 1; b >= 0; b--) v = v * 256 + u8[base + b]!;
      return v;
    };
    for (let l = 0; l < 32; l++) {
      if (((lanes >>> l) & 1) === 0) continue;
      try {
        if (ci.syscall === Syscall.AssertFail) {
          const line = param(l, 2);
          const assertion = this.readString(param(l, 0), l, MAX_PRINTF_STRING);
          const sourceFile = this.readString(param(l, 1), l, MAX_PRINTF_STRING);
          const sourceFunction = this.readString(param(l, 3), l, MAX_PRINTF_STRING);
          throw this.programFault('assert', ci, fnIdx, pc, l, `${sourceFile}:${line}: ${sourceFunction}: Assertion \`${assertion}\` failed`, { assertion, sourceFile, sourceLine: line, sourceFunction });
        }
        const format = this.readString(param(l, 0), l, MAX_PRINTF_STRING);
        const args = param(l, 1);
        const out = formatDevicePrintf(format, {
          arg: (off, size) => this.readGeneric(args + off, size, l),
          string: (a, max) => this.readString(Number(a), l, max),
        });
        this.kernel.recordDeviceOutput(this.cta.ctaId, this.warpIndex * 32 + l, out.text);
        // vprintf returns the number of arguments it read
        for (const r of plan.rets) {
          const base = l * this.localStride + r.paramOff;
          for (let b = 0; b < r.size; b++) u8[base + b] = b < 4 ? (out.argCount >>> (8 * b)) & 0xff : 0;
        }
      } catch (e) {
        if (e instanceof MemoryAccessFault) {
          const f = this.programFault('trap', ci, fnIdx, pc, l, `${e.reason} ${e.size}-byte ${e.space} read at address 0x${e.address.toString(16)} in the arguments of ${ci.syscall === Syscall.Vprintf ? 'printf' : 'assert'}`, {});
          throw new FunctionalFault(f.message, { ...f.details, kind: 'memory', address: e.address, space: e.space, size: e.size });
        }
        throw e;
      }
    }
    for (const r of plan.rets) this.copyFromFrame(r.reg, r.varOff, r.paramOff, r.size, lanes);
  }

  private memoryFault(ci: CompiledInstr, fnIdx: number, pc: number, exec: number, e: MemoryAccessFault): FunctionalFault {
    const lane = this.faultLane(exec);
    const fn = this.code[fnIdx]!.fn;
    const ins = ci.ins;
    const where = `${this.kernel.file}:${ins.line}`;
    const msg =
      `${where}: ${e.reason} ${e.size}-byte ${e.space} access at address 0x${e.address.toString(16)} ` +
      `(kernel ${this.kernel.entry.name}, function ${fn.name}, pc ${pc} '${ins.opText}', ` +
      `cta (${this.cta.ctaId.join(',')}), warp ${this.warpIndex}, lane ${lane})`;
    return new FunctionalFault(msg, {
      kind: 'memory',
      kernel: this.kernel.entry.name,
      function: fn.name,
      pc,
      line: ins.line,
      opText: ins.opText,
      cta: this.cta.ctaId,
      warp: this.warpIndex,
      lane,
      address: e.address,
      space: e.space,
      size: e.size,
      reason: e.reason,
    });
  }

  /**
   * The lane whose access faulted: addresses are cleared to NaN before a memory instruction and
   * lanes run in increasing order, each writing its address before accessing memory, so it is
   * the last lane with an address.
   */
  private faultLane(exec: number): number {
    let last = -1;
    for (let l = 0; l < 32; l++) if ((exec >>> l) & 1 && this.addresses[l] === this.addresses[l]) last = l;
    return last;
  }
}
