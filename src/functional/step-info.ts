/**
 * {@link WarpStepInfo}: what one executed warp instruction tells the timing model. The caller
 * owns one instance and passes it to every `FunctionalWarp.step`, which overwrites every field:
 * nothing is allocated per step (issue 3 item 4; DESIGN.md §3 "Cost").
 */

import type { Instruction } from '../isa/ir.ts';
import { StateSpace } from '../isa/ir.ts';

/** Per-step report of a warp instruction; reuse one instance across steps. */
export class WarpStepInfo {
  /** Index of the executed instruction in its function (the PC). -1 when nothing executed. */
  pc = -1;
  /** Index (in `PtxModule.functions`) of the function holding the instruction. */
  functionIndex = -1;
  /**
   * The decoded instruction: opcode class (`opClass`), source and destination registers
   * (`srcRegs`, `dstRegs`), long-latency flag, text and line. Undefined when nothing executed.
   */
  instruction: Instruction | undefined = undefined;
  /** Lanes of the warp at this PC (top of the SIMT stack) before the guard predicate, as a u32 mask. */
  warpMask = 0;
  /** Lanes that executed the instruction (warpMask and the guard), as a u32 mask. */
  activeMask = 0;
  /** Number of lanes in {@link activeMask} (thread instructions executed by this step). */
  activeCount = 0;
  /**
   * Effective byte address of each lane's access (valid for lanes in {@link activeMask} of a
   * memory instruction), in the space given by {@link space}; for generic accesses the generic
   * address. Caller-visible, reused.
   */
  readonly addresses = new Float64Array(32);
  /** Bytes accessed per lane (element size x vector width; for `tex`/`tld4` the texel size), 0 for non-memory instructions. */
  accessBytes = 0;
  /**
   * `tex`/`tld4` (space `StateSpace.Tex`): byte address of every texel the fetch read, lanes in
   * increasing order, each lane's texels in filter order (1 for point sampling, 2/4/8 for linear
   * 1D/2D/3D, 4 for `tld4`; border texels read nothing). Valid entries: {@link texelCount}.
   * Caller-visible, reused; not written for other instructions.
   */
  readonly texels = new Float64Array(256);
  /** Valid entries of {@link texels} after a `tex`/`tld4` (not reset for other instructions). */
  texelCount = 0;
  /**
   * State space actually accessed: the instruction's space, or for a generic access the space
   * every active lane resolved to (`StateSpace.Generic` when lanes resolved to different
   * spaces). `StateSpace.None` for non-memory instructions.
   */
  space: StateSpace = StateSpace.None;
  /** True for loads and atomics that return a value, false for stores and `red`. */
  isLoad = false;
  /** True for stores, atomics and reductions (memory is written). */
  isStore = false;
  /** True when a branch split the warp (some active lanes took it, some did not), or a call through pointers named several callees. */
  diverged = false;
  /** True when the instruction was a taken branch for every active lane, or a call or return. */
  jumped = false;
  /** PC the warp executes next (top of its SIMT stack after the step), -1 when the warp is done. */
  nextPc = -1;
  /** Function of {@link nextPc}. */
  nextFunctionIndex = -1;
  /** Lanes that will execute at {@link nextPc} (before its guard). */
  nextMask = 0;
  /** The warp now waits at a CTA barrier. */
  atBarrier = false;
  /** The warp has finished (all its lanes exited). */
  exited = false;
  /** SIMT stack depth after the step. */
  stackDepth = 0;
  /**
   * `nanosleep`: the sleep the warp asked for, in nanoseconds (the largest value of its active
   * lanes, at most 1 ms as PTX bounds it); 0 for every other instruction. The timing model keeps
   * the warp from issuing for that long; the functional model ignores it.
   */
  sleepNs = 0;

  /** Resets the per-instruction fields (called by `step`). */
  reset(): void {
    this.pc = -1;
    this.functionIndex = -1;
    this.instruction = undefined;
    this.warpMask = 0;
    this.activeMask = 0;
    this.activeCount = 0;
    this.accessBytes = 0;
    this.space = StateSpace.None;
    this.isLoad = false;
    this.isStore = false;
    this.diverged = false;
    this.jumped = false;
    this.sleepNs = 0;
  }
}
