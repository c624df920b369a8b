/**
 * Phase analysis for phase-aware warp scheduling (paper 000, Awatramani 2017, §3.3.1 and
 * §3.4.2.1 "Front-end"; spec `warp-level.md` §1.3 and resolutions R-P1..R-P3, R-P5).
 *
 * Definition (§3.3.1): a phase is a set of consecutive instructions none of which has an input
 * operand produced by a long-latency instruction of the same set.
 *
 * Construction (§3.4.2.1; spec §1.3 steps 2-4), reproduced here:
 * 1. A *long-op register* is a destination of a long-latency instruction. The code is scanned top
 *    to bottom keeping the set of long-op registers of the current phase (empty at the start).
 * 2. A new phase starts, and the set is cleared, at (in this order of precedence for
 *    {@link Phase.reason}):
 *    - the first instruction of every basic block ("each basic block starts a new phase"; this
 *      also covers branches, which 000 footnote 1 counts as long-latency: a `bra`/`ret`/`exit`
 *      ends its block);
 *    - the instruction after a synchronization instruction (R-P1: 000 footnote 1 counts
 *      "synchronization instructions" as long-latency, but `bar`/`membar` have no destination
 *      register, so the long-op rule can never fire on them);
 *    - the first instruction that reads a register in the set ("The first instruction that
 *      consumes any register currently in the set marks the start of a new phase").
 *    Then that instruction's destinations are added to the set if it is long-latency.
 * 3. The code is then walked backwards accumulating instruction latencies: each instruction's
 *    *phase distance* is the sum of latencies from it to the end of its phase (itself included),
 *    and each phase's *length* is the distance of its first instruction (§3.3.2: "computed by
 *    summing the instruction latencies, from the last to the first instruction of a phase").
 *
 * Choices where the paper is silent (documented, not invented semantics):
 * - A register in the set that is overwritten by a short-latency instruction leaves the set (its
 *   pending long-latency value is dead, so a later reader does not wait for it).
 * - "Long-latency" (for the long-op set) defaults to {@link Instruction.longLatency}
 *   (global/local/generic loads, texture/surface loads, non-shared atomics: the GLD of Fig. 3.2);
 *   pass `isLongOp` to change it. Stores have no destination and so never add to the set.
 * - Synchronization (R-P1) defaults to the `Barrier` class (`bar.sync`, `barrier.sync`,
 *   `bar.arrive`, `bar.red`) and the `Membar` class (`membar`, `fence`), the instructions the
 *   spec names; `bar.warp.sync` (warp-level, class `Other`) is not included. Pass `isSync` to
 *   change it.
 * - `call` does not start a phase (it does not end a basic block, and footnote 1 does not name
 *   it); each function is analysed on its own (R-P5), a warp inside a `.func` uses that
 *   function's tables.
 * - Latency (R-P2) is a {@link PhaseLatencyModel}: `'unit'` (1 per instruction, distances count
 *   instructions; the default of this function, kept for comparison), a
 *   {@link PipelineLatencyModel} (the spec's default for the timing model, built from the
 *   configured opcode timing), or any function of the instruction.
 * - Saturation (R-P3): none by default; `maxPhaseDistance` clamps distances and lengths.
 */
import { buildCfg } from './cfg.ts';
import type { Cfg } from './cfg.ts';
import { OP_CLASS_NAME, OpClass } from './ir.ts';
import type { Instruction, PtxFunction } from './ir.ts';

/**
 * The R-P2 `pipeline` latency model (spec `warp-level.md` §1.3): an instruction executed by an
 * EXEC pipeline (classes `alu`, `intMul`, `intDiv`, `sfu`, `dp`, `other`) costs
 * `max(issueIntervalCycles, opClasses[class].latency)` cycles; every other instruction (memory
 * issue, branch, barrier, membar, call, ret, exit) costs `issueIntervalCycles`: a load does not
 * block its warp inside its own phase (its consumer starts the next phase), so its memory latency
 * is not part of the phase length.
 *
 * Shape-compatible with the timing model's numbers: `issueIntervalCycles` is
 * `config.sm.issueIntervalCycles` and `opClasses` may be `execUnitsParams(config).opClasses`
 * (`src/topology/gpu-sm.ts`, the same table EXEC uses). A class missing from `opClasses` costs
 * `issueIntervalCycles`.
 */
export interface PipelineLatencyModel {
  readonly kind: 'pipeline';
  /** Cycles between two issues of one scheduler (>= 0; m2090: 2, 000 Table 3.1). */
  readonly issueIntervalCycles: number;
  /** Latency in cycles per opcode-class name ({@link OP_CLASS_NAME}: `alu`, `intMul` ...). */
  readonly opClasses: Readonly<Partial<Record<string, { readonly latency: number }>>>;
}

/**
 * How {@link analyzePhases} prices one instruction, in cycles (R-P2):
 * - `'unit'`: 1 per instruction (distances then count instructions);
 * - a {@link PipelineLatencyModel} (`kind: 'pipeline'`);
 * - a function of the instruction (e.g. a trace's own per-instruction latency).
 */
export type PhaseLatencyModel = 'unit' | PipelineLatencyModel | ((ins: Instruction) => number);

/** Opcode classes an EXEC pipeline executes (R-P2): they cost their configured latency. */
const PIPELINE_CLASS = (() => {
  const t = new Uint8Array(OP_CLASS_NAME.length);
  for (const c of [OpClass.Alu, OpClass.IntMul, OpClass.IntDiv, OpClass.Sfu, OpClass.Dp, OpClass.Other]) t[c] = 1;
  return t;
})();

/**
 * The per-instruction latency function of a {@link PhaseLatencyModel}.
 *
 * @param model the model.
 * @returns a function giving cycles per instruction (the built-in models read only `ins.opClass`).
 * @throws RangeError when a pipeline model has a negative or non-finite issue interval or latency.
 */
export function phaseLatencyFunction(model: PhaseLatencyModel): (ins: Instruction) => number {
  if (model === 'unit') return () => 1;
  if (typeof model === 'function') return model;
  const issue = model.issueIntervalCycles;
  if (!(issue >= 0) || !Number.isFinite(issue)) throw new RangeError(`phase latency: issueIntervalCycles must be a finite number >= 0, got ${issue}`);
  // one entry per OpClass code: resolved once, so the per-instruction cost is a table read
  const table = new Float64Array(OP_CLASS_NAME.length).fill(issue);
  for (let c = 0; c < OP_CLASS_NAME.length; c++) {
    if (!PIPELINE_CLASS[c]) continue;
    const name = OP_CLASS_NAME[c]!;
    const lat = model.opClasses[name]?.latency;
    if (lat === undefined) continue;
    if (!(lat >= 0) || !Number.isFinite(lat)) throw new RangeError(`phase latency: opClasses.${name}.latency must be a finite number >= 0, got ${lat}`);
    table[c] = Math.max(issue, lat);
  }
  return (ins) => table[ins.opClass]!;
}

/** Whether `ins` is a synchronization instruction that ends its phase (R-P1 default): the `Barrier` and `Membar` classes. */
export function isPhaseSync(ins: Pick<Instruction, 'opClass'>): boolean {
  return ins.opClass === OpClass.Barrier || ins.opClass === OpClass.Membar;
}

/** Options of {@link analyzePhases}. */
export interface PhaseOptions {
  /** Latency model (R-P2), in cycles; default `'unit'` (1 per instruction). */
  readonly latency?: PhaseLatencyModel;
  /** Whether an instruction's destinations become long-op registers (default: `ins.longLatency`). */
  readonly isLongOp?: (ins: Instruction) => boolean;
  /** Whether the instruction after `ins` starts a phase (R-P1; default: {@link isPhaseSync}). */
  readonly isSync?: (ins: Instruction) => boolean;
  /**
   * Saturation of distances and lengths in cycles (R-P3; e.g. 511, or 255 to model a one-byte
   * opcode extension). Default: none.
   */
  readonly maxPhaseDistance?: number;
  /** A CFG of the function, reused when given. */
  readonly cfg?: Cfg;
}

/** Why a phase starts where it does. */
export const PhaseStart = {
  /** First instruction of a basic block. */
  Block: 0,
  /** First instruction that reads a long-op register of the previous phase. */
  Dependence: 1,
  /** Instruction after a synchronization instruction (R-P1, 000 footnote 1). */
  Barrier: 2,
} as const;
/** A {@link PhaseStart} code. */
export type PhaseStart = (typeof PhaseStart)[keyof typeof PhaseStart];

/** One phase: instructions `[start, end)`. */
export interface Phase {
  /** Phase number (program order). */
  readonly index: number;
  /** First instruction. */
  readonly start: number;
  /** One past the last instruction. */
  readonly end: number;
  /** Sum of latencies of its instructions, in cycles (the paper's phase length), clamped at `maxPhaseDistance`. */
  readonly length: number;
  /** Why it starts here. */
  readonly reason: PhaseStart;
  /** Long-op registers produced in this phase and still pending at its end (register indices, ascending). */
  readonly longOpRegs: Int32Array;
}

/** Result of {@link analyzePhases}. */
export interface PhaseAnalysis {
  /** Phases in program order. */
  readonly phases: readonly Phase[];
  /** Phase index of every instruction (length = instruction count). */
  readonly phaseOf: Int32Array;
  /**
   * Phase distance of every instruction: latency sum from it (included) to the end of its phase,
   * in cycles, clamped at `maxPhaseDistance` (length = instruction count).
   */
  readonly distance: Float64Array;
}

/**
 * Splits a function into phases and computes phase distances and lengths (paper 000 §3.4.2.1;
 * spec §1.3 steps 2-4 with R-P1..R-P3).
 *
 * @param fn a parsed function (instructions with `srcRegs`, `dstRegs`, `longLatency`, `opClass`;
 *   `registers` sizes the long-op set).
 * @param options latency model, long-op and synchronization predicates, saturation, and an
 *   optional prebuilt CFG.
 * @returns phases, phase of each instruction and phase distance of each instruction (cycles).
 * @throws RangeError if the latency model gives a negative or non-finite value, or
 *   `maxPhaseDistance` is not a number >= 0.
 */
export function analyzePhases(fn: Pick<PtxFunction, 'instructions' | 'registers'>, options: PhaseOptions = {}): PhaseAnalysis {
  const ins = fn.instructions;
  const n = ins.length;
  const latency = phaseLatencyFunction(options.latency ?? 'unit');
  const isLongOp = options.isLongOp ?? ((x: Instruction) => x.longLatency);
  const isSync = options.isSync ?? isPhaseSync;
  const cap = options.maxPhaseDistance ?? Number.POSITIVE_INFINITY;
  if (!(cap >= 0)) throw new RangeError(`analyzePhases: maxPhaseDistance must be >= 0, got ${cap}`);
  const cfg = options.cfg ?? buildCfg(fn);
  const blockStart = new Uint8Array(n);
  for (const b of cfg.blocks) blockStart[b.start] = 1;

  let maxReg = fn.registers.length - 1;
  for (const x of ins) for (const r of x.dstRegs) if (r > maxReg) maxReg = r;
  const pending = new Uint8Array(Math.max(maxReg + 1, 1));
  const pendingList: number[] = [];
  const phaseOf = new Int32Array(n);
  const starts: number[] = [];
  const reasons: PhaseStart[] = [];
  const longOps: Int32Array[] = [];
  const closePhase = (): void => {
    if (starts.length > longOps.length) {
      longOps.push(Int32Array.from(pendingList.filter((r) => pending[r]).sort((a, b) => a - b)));
    }
    for (const r of pendingList) pending[r] = 0;
    pendingList.length = 0;
  };
  let afterSync = false;
  for (let i = 0; i < n; i++) {
    const x = ins[i]!;
    let start = true;
    let reason: PhaseStart = PhaseStart.Block;
    if (blockStart[i] !== 1) {
      if (afterSync) reason = PhaseStart.Barrier;
      else {
        start = false;
        for (const r of x.srcRegs) {
          if (pending[r]) {
            start = true;
            reason = PhaseStart.Dependence;
            break;
          }
        }
      }
    }
    if (start) {
      closePhase();
      starts.push(i);
      reasons.push(reason);
    }
    phaseOf[i] = starts.length - 1;
    const long = isLongOp(x);
    for (const r of x.dstRegs) {
      if (long) {
        if (!pending[r]) {
          pending[r] = 1;
          pendingList.push(r);
        }
      } else {
        pending[r] = 0;
      }
    }
    afterSync = isSync(x);
  }
  closePhase();

  // step 4: backwards, the running latency sum within each phase
  const distance = new Float64Array(n);
  let sum = 0;
  for (let i = n - 1; i >= 0; i--) {
    const l = latency(ins[i]!);
    if (!(l >= 0) || !Number.isFinite(l)) throw new RangeError(`analyzePhases: latency of instruction ${i} is ${l}`);
    const sameNext = i + 1 < n && phaseOf[i + 1] === phaseOf[i];
    sum = l + (sameNext ? sum : 0);
    distance[i] = Math.min(sum, cap);
  }
  const phases: Phase[] = starts.map((start, p) => ({
    index: p,
    start,
    end: p + 1 < starts.length ? starts[p + 1]! : n,
    length: distance[start]!,
    reason: reasons[p]!,
    longOpRegs: longOps[p]!,
  }));
  return { phases, phaseOf, distance };
}
