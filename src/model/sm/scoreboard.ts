/**
 * Per-warp scoreboard: the set of registers with a write in flight, as in the baseline pipeline
 * of paper 002 ch. 3 ("a warp is eligible to be scheduled if ... that instruction does not have
 * any dependence on previously executed instructions pending to finish. This condition is
 * typically checked using a scoreboard") and GPGPU-Sim's `Scoreboard`.
 *
 * - At issue, the destination registers of an instruction are reserved; at writeback they are
 *   released. An instruction may issue only when none of its sources (RAW) and none of its
 *   destinations (WAW) is reserved.
 * - Each reservation carries a long-latency flag: the producer is a long-latency memory
 *   instruction (global/local/generic loads, atomics: {@link Instruction.longLatency}). The
 *   two-level warp scheduler (000 §3.2) and the warp-state statistics (000 §5.3 "MEM
 *   scoreboard", 004 Fig. 3 "memory dependency") use it.
 *
 * Register numbering: one combined dense index space per function, the one the PTX IR uses for
 * {@link Instruction.srcRegs} / {@link Instruction.dstRegs} (predicates, data registers and the
 * hidden carry register `%cc` all have distinct indices in `PtxFunction.registers`). So
 * `numRegs` is `PtxFunction.registers.length`, and an instruction's `srcRegs`/`dstRegs` are
 * passed as they are; the guard predicate is already among `srcRegs`.
 *
 * Storage is one byte per (warp, register) plus two counters per warp, allocated once; no method
 * allocates.
 */
import { SimulationError } from '../../errors.ts';
import type { SourceLocation } from '../../errors.ts';
import type { Instruction } from '../../isa/ir.ts';
import { PARAMS_LOCATION, requireInt } from './validate.ts';

/** Parameters of a {@link Scoreboard}. */
export interface ScoreboardParams {
  /** Warp slots tracked (warps per SM, or per scheduler). Integer >= 1. */
  readonly numWarps: number;
  /**
   * Size of the register index space (the largest index + 1): `PtxFunction.registers.length`
   * for PTX, the architectural register count (+ predicates) for SASS. Integer >= 1.
   */
  readonly numRegs: number;
}

/**
 * Result of a scoreboard check, a small integer code. When several hazards apply the most
 * severe is reported, in this order: {@link RawLongLatency} > {@link WawLongLatency} >
 * {@link Raw} > {@link Waw} (a wait on a long-latency producer lasts longer, and RAW is the
 * true dependence).
 */
export const ScoreboardHazard = {
  /** No hazard: the instruction may issue. */
  None: 0,
  /** A source register has a short-latency write in flight. */
  Raw: 1,
  /** A source register has a long-latency (memory) write in flight. */
  RawLongLatency: 2,
  /** A destination register has a short-latency write in flight. */
  Waw: 3,
  /**
   * A destination register has a long-latency write in flight. Not among the three reasons the
   * design lists; kept separate so statistics can count it as a memory wait.
   */
  WawLongLatency: 4,
} as const;
/** A {@link ScoreboardHazard} code. */
export type ScoreboardHazard = (typeof ScoreboardHazard)[keyof typeof ScoreboardHazard];

/** Name of each {@link ScoreboardHazard}, indexed by code (trace reasons). */
export const SCOREBOARD_HAZARD_NAME: readonly string[] = Object.freeze(['none', 'raw', 'rawLongLatency', 'waw', 'wawLongLatency']);

/** True for the hazards caused by a long-latency (memory) producer. */
export function isLongLatencyHazard(hazard: ScoreboardHazard): boolean {
  return hazard === ScoreboardHazard.RawLongLatency || hazard === ScoreboardHazard.WawLongLatency;
}

/** Pending-state byte values. */
const FREE = 0;
const SHORT = 1;
const LONG = 2;

/**
 * The scoreboard of one SM (or one scheduler): `numWarps` x `numRegs` pending bits.
 *
 * Register indices must be in `[0, numRegs)`; {@link reserve} checks this, the hot-path
 * {@link check} does not.
 */
export class Scoreboard {
  /** Warp slots tracked. */
  readonly numWarps: number;
  /** Register index space size. */
  readonly numRegs: number;
  /** Reason of the last {@link canIssue} that returned false ({@link ScoreboardHazard.None} after a true). */
  lastHazard: ScoreboardHazard = ScoreboardHazard.None;

  /** `[warp * numRegs + reg]`: FREE, SHORT or LONG. */
  private readonly pending: Uint8Array;
  /** Reserved registers per warp. */
  private readonly pendingCounts: Int32Array;
  /** Reserved long-latency registers per warp. */
  private readonly longCounts: Int32Array;

  /**
   * @param params sizes (see {@link ScoreboardParams}).
   * @param where file the parameters came from, for errors.
   * @throws InputError when a size is not a positive integer.
   */
  constructor(params: ScoreboardParams, where: SourceLocation = PARAMS_LOCATION) {
    this.numWarps = requireInt(params.numWarps, 'scoreboard.numWarps', 1, 1 << 16, where);
    this.numRegs = requireInt(params.numRegs, 'scoreboard.numRegs', 1, 1 << 20, where);
    this.pending = new Uint8Array(this.numWarps * this.numRegs);
    this.pendingCounts = new Int32Array(this.numWarps);
    this.longCounts = new Int32Array(this.numWarps);
  }

  /**
   * Checks the RAW and WAW hazards of an instruction of `warp`.
   *
   * @param warp warp slot, `[0, numWarps)`.
   * @param srcRegs registers read (e.g. {@link Instruction.srcRegs}, guard included).
   * @param dstRegs registers written (e.g. {@link Instruction.dstRegs}).
   * @returns the most severe hazard (see {@link ScoreboardHazard}), or `None`.
   */
  check(warp: number, srcRegs: ArrayLike<number>, dstRegs: ArrayLike<number>): ScoreboardHazard {
    return this.checkOffset(warp, srcRegs, dstRegs, 0);
  }

  /**
   * {@link check} of registers `srcRegs[i] + offset` and `dstRegs[i] + offset`: the issue stage
   * passes the instruction's own register lists and the offset of the warp's function in its
   * combined register space, so nothing is copied per check (the hot path).
   */
  checkOffset(warp: number, srcRegs: ArrayLike<number>, dstRegs: ArrayLike<number>, offset: number): ScoreboardHazard {
    if (this.pendingCounts[warp] === 0) return ScoreboardHazard.None;
    const base = warp * this.numRegs + offset;
    const pending = this.pending;
    let raw = false;
    for (let i = 0; i < srcRegs.length; i++) {
      const p = pending[base + srcRegs[i]!];
      if (p === LONG) return ScoreboardHazard.RawLongLatency;
      if (p === SHORT) raw = true;
    }
    let waw = false;
    for (let i = 0; i < dstRegs.length; i++) {
      const p = pending[base + dstRegs[i]!];
      if (p === LONG) return ScoreboardHazard.WawLongLatency;
      if (p === SHORT) waw = true;
    }
    if (raw) return ScoreboardHazard.Raw;
    return waw ? ScoreboardHazard.Waw : ScoreboardHazard.None;
  }

  /**
   * True when the instruction has no hazard. When false, {@link lastHazard} holds the reason.
   * Same arguments as {@link check}.
   */
  canIssue(warp: number, srcRegs: ArrayLike<number>, dstRegs: ArrayLike<number>): boolean {
    const hazard = this.check(warp, srcRegs, dstRegs);
    this.lastHazard = hazard;
    return hazard === ScoreboardHazard.None;
  }

  /**
   * Marks the destination registers of an issued instruction as pending.
   *
   * @param warp warp slot.
   * @param dstRegs registers written.
   * @param longLatency true when the producer is a long-latency memory instruction.
   * @throws SimulationError when a register index is out of range or already pending (the
   *   issue stage should have seen the WAW hazard).
   */
  reserve(warp: number, dstRegs: ArrayLike<number>, longLatency: boolean): void {
    this.checkWarp(warp);
    const base = warp * this.numRegs;
    const mark = longLatency ? LONG : SHORT;
    for (let i = 0; i < dstRegs.length; i++) {
      const reg = dstRegs[i]!;
      if (!(Number.isInteger(reg) && reg >= 0 && reg < this.numRegs)) {
        throw new SimulationError(`scoreboard: register ${reg} out of range [0, ${this.numRegs}) for warp ${warp}`, { warp, reg, numRegs: this.numRegs });
      }
      if (this.pending[base + reg] !== FREE) {
        throw new SimulationError(`scoreboard: register ${reg} of warp ${warp} reserved twice (WAW not checked before issue)`, { warp, reg });
      }
      this.pending[base + reg] = mark;
      this.pendingCounts[warp]!++;
      if (longLatency) this.longCounts[warp]!++;
    }
  }

  /**
   * Releases one register at writeback.
   *
   * @returns true when it was pending, false when it was not (nothing changes).
   */
  releaseReg(warp: number, reg: number): boolean {
    const at = warp * this.numRegs + reg;
    const p = this.pending[at];
    if (p === undefined || p === FREE || reg < 0 || reg >= this.numRegs) return false;
    this.pending[at] = FREE;
    this.pendingCounts[warp]!--;
    if (p === LONG) this.longCounts[warp]!--;
    return true;
  }

  /**
   * Releases the destination registers of a completed instruction.
   *
   * @returns how many of them were pending.
   */
  release(warp: number, dstRegs: ArrayLike<number>): number {
    let n = 0;
    for (let i = 0; i < dstRegs.length; i++) if (this.releaseReg(warp, dstRegs[i]!)) n++;
    return n;
  }

  /** True when `reg` of `warp` has a write in flight. */
  isPending(warp: number, reg: number): boolean {
    return reg >= 0 && reg < this.numRegs && this.pending[warp * this.numRegs + reg] !== FREE;
  }

  /** True when `reg` of `warp` has a long-latency write in flight. */
  isLongLatencyPending(warp: number, reg: number): boolean {
    return reg >= 0 && reg < this.numRegs && this.pending[warp * this.numRegs + reg] === LONG;
  }

  /** Number of registers of `warp` with a write in flight. */
  pendingCount(warp: number): number {
    return this.pendingCounts[warp] ?? 0;
  }

  /** Number of registers of `warp` with a long-latency write in flight. */
  longLatencyPendingCount(warp: number): number {
    return this.longCounts[warp] ?? 0;
  }

  /**
   * True when `warp` has any long-latency result outstanding (the two-level scheduler keeps such
   * a warp in its pending queue, 000 §3.4.2.2).
   */
  hasLongLatencyPending(warp: number): boolean {
    return (this.longCounts[warp] ?? 0) > 0;
  }

  /** Clears every reservation of `warp` (warp exit, slot reuse by a new CTA). */
  clearWarp(warp: number): void {
    this.checkWarp(warp);
    if (this.pendingCounts[warp] === 0) return;
    this.pending.fill(FREE, warp * this.numRegs, (warp + 1) * this.numRegs);
    this.pendingCounts[warp] = 0;
    this.longCounts[warp] = 0;
  }

  /** Clears every reservation of every warp. */
  reset(): void {
    this.pending.fill(FREE);
    this.pendingCounts.fill(0);
    this.longCounts.fill(0);
    this.lastHazard = ScoreboardHazard.None;
  }

  private checkWarp(warp: number): void {
    if (!(Number.isInteger(warp) && warp >= 0 && warp < this.numWarps)) {
      throw new SimulationError(`scoreboard: warp ${warp} out of range [0, ${this.numWarps})`, { warp, numWarps: this.numWarps });
    }
  }
}

/** Convenience for PTX: {@link Scoreboard.check} of an {@link Instruction}'s own register lists. */
export function checkInstruction(scoreboard: Scoreboard, warp: number, ins: Pick<Instruction, 'srcRegs' | 'dstRegs'>): ScoreboardHazard {
  return scoreboard.check(warp, ins.srcRegs, ins.dstRegs);
}
