/**
 * Trace-driven kernels for the GPU timing model: an Accel-Sim kernel trace seen through the
 * same interface as an execution-driven PTX kernel ({@link TimingKernel}), so traces run
 * through the same SM pipeline, memory hierarchy and SM Work Manager (issue 5).
 *
 * Static code: the streaming pass that opens the trace finds every PC and the line of its first
 * instance, decoded as the PC's static instruction (only this table is kept); a PC's index is `pc / instruction size`
 * (the gcd of PC gaps), so code that never executed keeps its place. A warp's `pc` is the index
 * of its next dynamic instruction, so fetch, the iBuffer and its flush on a non-sequential next
 * PC behave exactly as for PTX. Registers: `R<n>` is index n,
 * predicate `P<n>` is 256 + n (one scoreboard space). CTAs are read lazily, one at a time, when
 * the SM Work Manager dispatches them, and dropped when they finish. Barriers (`BAR`,
 * `bar.sync`) hold a warp until every unfinished warp of its CTA arrives.
 */
import { InputError } from '../../errors.ts';
import { WarpStepInfo } from '../../functional/step-info.ts';
import { OpClass, StateSpace, type Instruction } from '../../isa/ir.ts';
import type { TimingCta, TimingKernel, TimingWarp } from '../../model/gpu-context.ts';
import type { InstExecTiming } from '../../model/sm/exec-units.ts';
import { ExecUnit } from './opcodes.ts';
import type { PackedTraceCta, TraceKernel } from './kernel-file.ts';

/** Scoreboard index of predicate register P<n>. */
export const PREDICATE_BASE = 256;
/** Size of the trace register space (R0-R255, P0-P7). */
export const TRACE_REG_COUNT = PREDICATE_BASE + 8;

/**
 * A static trace instruction: the IR fields the SM reads, plus its own unit timing when the run
 * has a trace.config ({@link TraceTimingOptions.unitTiming}).
 */
type StaticInst = Pick<Instruction, 'opClass' | 'srcRegs' | 'dstRegs' | 'longLatency' | 'line'> & Partial<InstExecTiming> & {
  /** State space of a memory instruction (from the opcode table), `None` otherwise. */
  readonly space: StateSpace;
};

/** Options of {@link TraceTimingKernel}. */
export interface TraceTimingOptions {
  /**
   * True: each instruction carries its opcode's unit class, latency and initiation interval from
   * the trace's opcode mapper (Accel-Sim `trace.config` timing, `InstExecTiming`). False
   * (default): instructions are timed by their opcode class from the GPU config, exactly as the
   * PTX run a trace was written from (so a written trace replays that run's cycles).
   */
  readonly unitTiming?: boolean;
}

function regsOf(regs: Int32Array, preds: Int32Array): Int32Array {
  const out = new Int32Array(regs.length + preds.length);
  out.set(regs, 0);
  for (let i = 0; i < preds.length; i++) out[regs.length + i] = PREDICATE_BASE + preds[i]!;
  return out;
}

function gcd(a: number, b: number): number {
  while (b !== 0) [a, b] = [b, a % b];
  return a;
}

/** Static entry for a PC the trace never executed (fetched, then flushed, never issued). */
const PLACEHOLDER: StaticInst = Object.freeze({ opClass: OpClass.Alu, srcRegs: new Int32Array(0), dstRegs: new Int32Array(0), longLatency: false, line: 0, space: StateSpace.None });

function popcount(x: number): number {
  x = x - ((x >>> 1) & 0x55555555);
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

class TraceTimingCta implements TimingCta {
  readonly warps: TraceTimingWarp[];
  /** Warps waiting at the barrier. */
  arrived = 0;
  /** The CTA's instructions ({@link PackedTraceCta}). */
  readonly packed: PackedTraceCta;
  /** Static index of each instruction's PC (looked up once, here). */
  readonly staticIndex: Int32Array;

  constructor(kernel: TraceTimingKernel, packed: PackedTraceCta) {
    this.packed = packed;
    const n = packed.pc.length;
    this.staticIndex = new Int32Array(n);
    for (let i = 0; i < n; i++) this.staticIndex[i] = kernel.staticIndex(packed.pc[i]!);
    this.warps = [];
    for (let w = 0; w < packed.first.length; w++) this.warps.push(new TraceTimingWarp(kernel, this, packed.first[w]!, packed.count[w]!));
  }

  /** A warp reached a barrier: release everyone when all unfinished warps are there. */
  arrive(): void {
    this.arrived++;
    this.tryRelease();
  }

  tryRelease(): void {
    let live = 0;
    for (const w of this.warps) if (!w.done || w.atBarrier >= 0) live++;
    if (this.arrived > 0 && this.arrived >= live) {
      for (const w of this.warps) w.atBarrier = -1;
      this.arrived = 0;
    }
  }
}

class TraceTimingWarp implements TimingWarp {
  atBarrier = -1;
  clock = 0;
  /** Index (in the CTA's arrays) of the next instruction; `end` when done. */
  private cursor: number;
  private readonly end: number;
  private readonly code: StaticInst[];
  private readonly cta: TraceTimingCta;

  constructor(kernel: TraceTimingKernel, cta: TraceTimingCta, first: number, count: number) {
    this.code = kernel.module.functions[0]!.instructions;
    this.cta = cta;
    this.cursor = first;
    this.end = first + count;
  }

  get done(): boolean {
    return this.cursor >= this.end;
  }

  get pc(): number {
    return this.cursor < this.end ? this.cta.staticIndex[this.cursor]! : -1;
  }

  get functionIndex(): number {
    return this.done ? -1 : 0;
  }

  get nextInstruction(): StaticInst | undefined {
    return this.cursor < this.end ? this.code[this.cta.staticIndex[this.cursor]!] : undefined;
  }

  step(info: WarpStepInfo): void {
    const i = this.cursor++;
    const cta = this.cta;
    const packed = cta.packed;
    const pc = cta.staticIndex[i]!;
    const ins = this.code[pc]!;
    const opClass = ins.opClass;
    const mem = opClass === OpClass.Load || opClass === OpClass.Store || opClass === OpClass.Atomic;
    const mask = packed.activeMask[i]! >>> 0;
    info.pc = pc;
    info.functionIndex = 0;
    info.warpMask = mask;
    info.activeMask = mask;
    info.activeCount = popcount(mask);
    info.accessBytes = mem ? packed.memWidth[i]! : 0;
    const space = ins.space;
    info.space = mem ? (space === StateSpace.None ? StateSpace.Global : space) : StateSpace.None;
    info.isLoad = opClass === OpClass.Load || opClass === OpClass.Atomic;
    info.isStore = opClass === OpClass.Store;
    if (mem) {
      // a memory opcode traced with mem_width 0 has no addresses: nothing to copy
      const at = packed.addressAt[i]!;
      if (at >= 0) {
        const dst = info.addresses;
        const src = packed.addresses;
        for (let lane = 0; lane < 32; lane++) dst[lane] = src[at + lane]!;
      }
    }
    info.exited = this.done;
    info.atBarrier = false;
    const hasNext = this.cursor < this.end;
    info.nextPc = hasNext ? cta.staticIndex[this.cursor]! : -1;
    info.nextFunctionIndex = hasNext ? 0 : -1;
    if (opClass === OpClass.Barrier) {
      this.atBarrier = 0;
      info.atBarrier = true;
      cta.arrive();
    } else if (this.done) {
      cta.tryRelease();
    }
  }
}

/** An Accel-Sim kernel trace as a {@link TimingKernel}. */
export class TraceTimingKernel implements TimingKernel {
  readonly trace: TraceKernel;
  readonly module: { functions: { instructions: StaticInst[]; registers: unknown[] }[] };
  readonly ctaCount: number;
  readonly threadsPerCta: number;
  /** Warp instructions in the whole trace. */
  readonly instructionCount: number;
  /**
   * The trace's PC step (bytes; the gcd of its PC gaps): the L1I fetches at the trace's own PCs,
   * as Accel-Sim does (8 for Kepler-Pascal SASS with control words, 16 for Volta and later and
   * for traces warpstate writes).
   */
  readonly instructionBytes: number;
  private readonly indexOfPc = new Map<number, number>();

  /**
   * Builds the kernel's static code from the first instance of each PC (the trace's open pass
   * located them; no CTA is decoded here).
   * @throws InputError for a malformed first line of a PC (file, line)
   */
  constructor(trace: TraceKernel, options: TraceTimingOptions = {}) {
    const own = options.unitTiming ?? false;
    this.trace = trace;
    this.ctaCount = trace.ctaCount;
    const b = trace.header.blockDim;
    this.threadsPerCta = b.x * b.y * b.z;
    // the open pass found every PC and where it first appears: decode one line per PC
    const firstByPc = trace.staticInstructions();
    this.instructionCount = trace.instructionCount;
    const pcs = [...firstByPc.keys()].sort((a, b) => a - b);
    // Index = pc / instruction size (the gcd of PC gaps), so code never executed keeps its place
    // (fetch brings it and the iBuffer flushes it as for PTX); holes get an inert placeholder.
    let g = 0;
    for (let i = 1; i < pcs.length; i++) g = gcd(g, pcs[i]! - pcs[i - 1]!);
    if (g === 0) g = pcs.length > 0 && pcs[0]! > 0 ? pcs[0]! : 8;
    const maxIndex = pcs.length > 0 ? Math.floor(pcs[pcs.length - 1]! / g) : 0;
    const dense = maxIndex < 1 << 20;
    // Sparse code (a gap over 2^20 instructions) is indexed in PC order: no common step left.
    this.instructionBytes = dense ? g : 16;
    const code: StaticInst[] = dense ? new Array<StaticInst>(maxIndex + 1).fill(PLACEHOLDER) : [];
    pcs.forEach((pc, i) => {
      const index = dense ? Math.floor(pc / g) : i;
      this.indexOfPc.set(pc, index);
      const ins = firstByPc.get(pc)!;
      const base = {
        opClass: ins.opClass,
        srcRegs: regsOf(ins.srcRegs, ins.srcPreds),
        dstRegs: regsOf(ins.dstRegs, ins.dstPreds),
        longLatency: ins.info.longLatency,
        line: ins.traceLine,
        space: ins.info.space,
      };
      code[index] = own
        ? {
            ...base,
            // Memory instructions are timed by the LSU and memory system, barriers by no unit.
            execClass: ins.info.pipe === ExecUnit.Mem || ins.info.pipe === ExecUnit.None ? -1 : ins.info.pipe,
            execLatency: ins.info.latency,
            execInitiation: ins.info.initiation,
          }
        : base;
    });
    this.module = { functions: [{ instructions: code, registers: new Array(TRACE_REG_COUNT) }] };
  }

  /** Static index of a PC seen in the trace. */
  staticIndex(pc: number): number {
    const i = this.indexOfPc.get(pc);
    if (i === undefined) throw new InputError({ file: this.trace.header.name }, `PC 0x${pc.toString(16)} was not indexed`);
    return i;
  }

  createCta(index: number): TimingCta {
    return new TraceTimingCta(this, this.trace.packedCta(index));
  }

  releaseCta(): void {
    // CTAs are not reused: each is read from the trace on demand.
  }
}

export { WarpStepInfo };
