/**
 * Phase analysis for phase-aware warp scheduling (paper 000, Awatramani 2017, §3.3.1 and
 * §3.4.2.1 "Front-end").
 *
 * Definition (§3.3.1): a phase is a set of consecutive instructions none of which has an input
 * operand produced by a long-latency instruction of the same set.
 *
 * Construction (§3.4.2.1), reproduced here:
 * 1. A *long-op register* is a destination of a long-latency instruction. The code is scanned top
 *    to bottom keeping the set of long-op registers of the current phase (empty at the start).
 * 2. The first instruction that reads any register in the set starts a new phase; the set is
 *    cleared at the start of every phase (then that instruction's own long-op destinations are
 *    added). Every basic block also starts a new phase.
 * 3. The code is then walked backwards accumulating instruction latencies: each instruction's
 *    *phase distance* is the sum of latencies from it to the end of its phase (itself included),
 *    and each phase's *length* is the distance of its first instruction.
 *
 * Choices where the paper is silent (documented, not invented semantics):
 * - A register in the set that is overwritten by a short-latency instruction leaves the set (its
 *   pending long-latency value is dead, so a later reader does not wait for it).
 * - "Long-latency" defaults to {@link Instruction.longLatency} (global/local/generic loads and
 *   non-shared atomics: the GLD of Fig. 3.2); pass `isLongOp` to change it.
 * - Latency defaults to 1 per instruction (distances then count instructions); the timing model
 *   passes its configured per-class latencies.
 */
import { buildCfg } from './cfg.ts';
import type { Cfg } from './cfg.ts';
import type { Instruction, PtxFunction } from './ir.ts';

/** Options of {@link analyzePhases}. */
export interface PhaseOptions {
  /** Latency of one instruction in cycles (default: 1 for every instruction). */
  readonly latency?: (ins: Instruction) => number;
  /** Whether an instruction's destinations become long-op registers (default: `ins.longLatency`). */
  readonly isLongOp?: (ins: Instruction) => boolean;
  /** A CFG of the function, reused when given. */
  readonly cfg?: Cfg;
}

/** Why a phase starts where it does. */
export const PhaseStart = {
  /** First instruction of a basic block. */
  Block: 0,
  /** First instruction that reads a long-op register of the previous phase. */
  Dependence: 1,
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
  /** Sum of latencies of its instructions, in cycles (the paper's phase length). */
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
  /** Phase index of every instruction. */
  readonly phaseOf: Int32Array;
  /** Phase distance of every instruction: latency sum from it to the end of its phase, in cycles. */
  readonly distance: Float64Array;
}

/**
 * Splits a function into phases and computes phase distances and lengths.
 *
 * @param fn a parsed function (instructions with `srcRegs`, `dstRegs`, `longLatency`).
 * @param options latency model, long-op predicate, and an optional prebuilt CFG.
 * @returns phases, phase of each instruction and phase distance of each instruction.
 * @throws RangeError if the latency function returns a negative or non-finite value.
 */
export function analyzePhases(fn: Pick<PtxFunction, 'instructions' | 'registers'>, options: PhaseOptions = {}): PhaseAnalysis {
  const ins = fn.instructions;
  const n = ins.length;
  const latency = options.latency ?? (() => 1);
  const isLongOp = options.isLongOp ?? ((x: Instruction) => x.longLatency);
  const cfg = options.cfg ?? buildCfg(fn);
  const blockStart = new Uint8Array(n);
  for (const b of cfg.blocks) blockStart[b.start] = 1;

  const pending = new Uint8Array(Math.max(fn.registers.length, 1));
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
  for (let i = 0; i < n; i++) {
    const x = ins[i]!;
    let start = blockStart[i] === 1;
    let reason: PhaseStart = PhaseStart.Block;
    if (!start) {
      for (const r of x.srcRegs) {
        if (pending[r]) {
          start = true;
          reason = PhaseStart.Dependence;
          break;
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
  }
  closePhase();

  const distance = new Float64Array(n);
  for (let i = n - 1; i >= 0; i--) {
    const l = latency(ins[i]!);
    if (!(l >= 0) || !Number.isFinite(l)) throw new RangeError(`analyzePhases: latency of instruction ${i} is ${l}`);
    const sameNext = i + 1 < n && phaseOf[i + 1] === phaseOf[i];
    distance[i] = l + (sameNext ? distance[i + 1]! : 0);
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
