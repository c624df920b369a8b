/**
 * Per-cycle classifiers and counters for three SM statistics:
 *
 * 1. Scheduler idle-time states (000 §3.5.3): "At any given cycle ... the scheduler can be in
 *    either one of the four states: 1 - no warps have a new instruction, 2 - all warps that have
 *    an instruction are not ready (waiting for an operand from a previous instruction), 3 - all
 *    warps that have a ready instruction cannot issue due to a pipeline stall, or 4 - at least
 *    one warp can issue an instruction." Scheduler idle time is the sum of states 1-3.
 * 2. The 8 warp states (000 §5.3): instruction buffer empty, ALU scoreboard, MEM scoreboard, ALU
 *    stall, MEM stall, can issue ALU inst., can issue MEM inst., warp completed.
 * 3. The stall breakdown of 004 Fig. 3 (§2.4), over cycles when a scheduler could not issue:
 *    memory conflict (the load/store unit cannot accept more instructions), memory dependency (a
 *    source operand waits for a memory request to come back), fetch (waiting for instruction
 *    fetch), other (conflict and dependency stalls of the other functional units).
 *
 * A warp's situation in a cycle is a bit set of {@link WarpFlag}s built by the issue stage (one
 * integer per warp, no objects); the classifiers are pure functions of those integers.
 *
 * Precedence (the papers give the definitions, not an order; these are the rules used here):
 * - Warp state ({@link classifyWarp}): completed > waiting (barrier; not one of the paper's 8,
 *   see {@link WarpState.Waiting}) > iBuffer empty > MEM scoreboard > ALU scoreboard > stall
 *   (MEM if the next instruction goes to the LSU, else ALU) > can issue (MEM/ALU). A warp with
 *   both a hazard and a busy unit is a scoreboard wait: the hazard is checked first at issue.
 *   When an instruction waits on both a memory and an ALU producer it is MEM scoreboard ("at
 *   least one of the operands is waiting on a MEM inst.").
 * - Scheduler state ({@link classifySchedulerCycle}): the most advanced warp decides: any warp
 *   can issue -> state 4; else any warp with a ready instruction -> 3; else any warp with an
 *   instruction -> 2; else 1. Warps that are completed, at a barrier or with an empty iBuffer
 *   have no instruction (as in GPGPU-Sim, which skips waiting warps).
 * - Stall kind ({@link classifyStall}): refines states 1-3. State 3: memory conflict if any
 *   ready warp is blocked by the LSU, else other. State 2: memory dependency if any warp waits
 *   on a memory producer, else other. State 1: fetch if any warp is waiting for its iBuffer to be
 *   filled, else other (all warps at barriers or completed, or no warps). State 4: none.
 * "ALU" here is every non-memory instruction (SP, SFU, DP, INT, branches); "MEM" is whatever the
 * issue stage sends to the LSU. A memory producer is one the scoreboard flags long-latency.
 */
import { ScoreboardHazard } from './scoreboard.ts';

/** Bits describing one warp in one cycle (OR them together). */
export const WarpFlag = {
  /** The warp finished and waits for the other warps of its CTA. */
  Completed: 1,
  /** The warp waits at a barrier (or memory barrier) for other warps. */
  Waiting: 2,
  /** The warp has no decoded instruction (waiting for fetch). */
  IBufferEmpty: 4,
  /** Its next instruction is a memory instruction (goes to the LSU). */
  MemInst: 8,
  /** An operand of its next instruction waits on a non-memory (short-latency) producer. */
  DepAlu: 16,
  /** An operand of its next instruction waits on a memory (long-latency) producer. */
  DepMem: 32,
  /** The unit its next instruction needs cannot accept it this cycle (pipeline stall). */
  UnitBusy: 64,
} as const;

/** Mask of flags meaning "no instruction to consider". */
const NO_INST = WarpFlag.Completed | WarpFlag.Waiting | WarpFlag.IBufferEmpty;
/** Mask of dependence flags. */
const DEP = WarpFlag.DepAlu | WarpFlag.DepMem;

/** The {@link WarpFlag} bits for a scoreboard check result. */
export function hazardFlags(hazard: ScoreboardHazard): number {
  switch (hazard) {
    case ScoreboardHazard.None:
      return 0;
    case ScoreboardHazard.Raw:
    case ScoreboardHazard.Waw:
      return WarpFlag.DepAlu;
    case ScoreboardHazard.RawLongLatency:
    case ScoreboardHazard.WawLongLatency:
      return WarpFlag.DepMem;
  }
}

/** The scheduler idle-time states of 000 §3.5.3 (codes 0-3 are the paper's states 1-4). */
export const SchedulerState = {
  /** State 1: no warp has a new instruction. */
  NoInstruction: 0,
  /** State 2: every warp with an instruction waits for an operand. */
  NotReady: 1,
  /** State 3: every warp with a ready instruction is blocked by a pipeline stall. */
  PipelineStall: 2,
  /** State 4: at least one warp can issue. */
  CanIssue: 3,
} as const;
/** A {@link SchedulerState} code. */
export type SchedulerState = (typeof SchedulerState)[keyof typeof SchedulerState];
/** Stat names of the scheduler states, indexed by code. */
export const SCHEDULER_STATE_NAME: readonly string[] = Object.freeze(['noInstruction', 'notReady', 'pipelineStall', 'canIssue']);

/** The 8 warp states of 000 §5.3 (codes 0-7 in the paper's order) and one extension. */
export const WarpState = {
  /** 1. Instruction buffer empty: waiting for instruction fetch. */
  IBufferEmpty: 0,
  /** 2. ALU scoreboard: an operand waits on a previous ALU instruction. */
  AluScoreboard: 1,
  /** 3. MEM scoreboard: an operand waits on a MEM instruction. */
  MemScoreboard: 2,
  /** 4. ALU stall: ready to issue an ALU instruction, but the execution unit is busy. */
  AluStall: 3,
  /** 5. MEM stall: ready to issue a MEM instruction, but the load/store unit is stalled. */
  MemStall: 4,
  /** 6. Can issue ALU inst. */
  CanIssueAlu: 5,
  /** 7. Can issue MEM inst. */
  CanIssueMem: 6,
  /** 8. Warp completed: finished, waiting for the other warps of its CTA. */
  Completed: 7,
  /**
   * Extension (not in 000 §5.3, whose add/stream kernels have no barriers): waiting at a barrier.
   * Add it to `iBufferEmpty` or report it apart.
   */
  Waiting: 8,
} as const;
/** A {@link WarpState} code. */
export type WarpState = (typeof WarpState)[keyof typeof WarpState];
/** Number of {@link WarpState} codes (8 + the extension). */
export const WARP_STATE_COUNT = 9;
/** Stat names of the warp states, indexed by code. */
export const WARP_STATE_NAME: readonly string[] = Object.freeze([
  'iBufferEmpty', 'aluScoreboard', 'memScoreboard', 'aluStall', 'memStall', 'canIssueAlu', 'canIssueMem', 'completed', 'waiting',
]);

/** Stall classes of 004 Fig. 3, and `None` for a cycle that is not a stall. */
export const StallKind = {
  MemoryConflict: 0,
  MemoryDependency: 1,
  Fetch: 2,
  Other: 3,
  /** The scheduler could issue: not a stall cycle. */
  None: 4,
} as const;
/** A {@link StallKind} code. */
export type StallKind = (typeof StallKind)[keyof typeof StallKind];
/** Stat names of the stall kinds, indexed by code. */
export const STALL_KIND_NAME: readonly string[] = Object.freeze(['memoryConflict', 'memoryDependency', 'fetch', 'other', 'none']);

/** The 000 §5.3 state of one warp from its {@link WarpFlag}s (precedence in the module comment). */
export function classifyWarp(flags: number): WarpState {
  if (flags & WarpFlag.Completed) return WarpState.Completed;
  if (flags & WarpFlag.Waiting) return WarpState.Waiting;
  if (flags & WarpFlag.IBufferEmpty) return WarpState.IBufferEmpty;
  if (flags & WarpFlag.DepMem) return WarpState.MemScoreboard;
  if (flags & WarpFlag.DepAlu) return WarpState.AluScoreboard;
  const mem = (flags & WarpFlag.MemInst) !== 0;
  if (flags & WarpFlag.UnitBusy) return mem ? WarpState.MemStall : WarpState.AluStall;
  return mem ? WarpState.CanIssueMem : WarpState.CanIssueAlu;
}

/** Bits of a {@link WarpFlag} set. */
const FLAG_MASK = 127;

/** {@link classifyWarp} of every flag set, precomputed (read once per warp per issue cycle). */
const WARP_STATE_OF_FLAGS: Uint8Array = Uint8Array.from({ length: FLAG_MASK + 1 }, (_, f) => classifyWarp(f));

/**
 * The 000 §3.5.3 state of a scheduler in one cycle, from the flags of its warps.
 *
 * @param flags per-warp {@link WarpFlag}s; entries `[0, count)` are used.
 * @param count number of warps (0 gives `NoInstruction`).
 */
export function classifySchedulerCycle(flags: ArrayLike<number>, count: number): SchedulerState {
  let best: SchedulerState = SchedulerState.NoInstruction;
  for (let i = 0; i < count; i++) {
    const f = flags[i]!;
    if (f & NO_INST) continue;
    if (f & DEP) {
      if (best < SchedulerState.NotReady) best = SchedulerState.NotReady;
      continue;
    }
    if (f & WarpFlag.UnitBusy) {
      best = SchedulerState.PipelineStall;
      continue;
    }
    return SchedulerState.CanIssue;
  }
  return best;
}

/**
 * The 004 Fig. 3 stall class of a scheduler cycle (precedence in the module comment), or
 * `StallKind.None` when some warp can issue.
 *
 * @param flags per-warp {@link WarpFlag}s; entries `[0, count)` are used.
 * @param count number of warps.
 */
export function classifyStall(flags: ArrayLike<number>, count: number): StallKind {
  let ready = false;
  let lsuBlocked = false;
  let hasInst = false;
  let memDep = false;
  let fetch = false;
  for (let i = 0; i < count; i++) {
    const f = flags[i]!;
    if (f & NO_INST) {
      if ((f & (WarpFlag.Completed | WarpFlag.Waiting)) === 0) fetch = true;
      continue;
    }
    hasInst = true;
    if (f & DEP) {
      if (f & WarpFlag.DepMem) memDep = true;
      continue;
    }
    if ((f & WarpFlag.UnitBusy) === 0) return StallKind.None;
    ready = true;
    if (f & WarpFlag.MemInst) lsuBlocked = true;
  }
  if (ready) return lsuBlocked ? StallKind.MemoryConflict : StallKind.Other;
  if (hasInst) return memDep ? StallKind.MemoryDependency : StallKind.Other;
  return fetch ? StallKind.Fetch : StallKind.Other;
}

/**
 * Cycle counters for the three statistics of one scheduler (or one SM). Plain typed arrays
 * indexed by the state codes; {@link recordCycle} classifies and counts without allocating.
 */
export class SchedStatsCounters {
  /** Cycles per {@link SchedulerState}. */
  readonly schedulerStates = new Float64Array(4);
  /** Warp-cycles per {@link WarpState}. */
  readonly warpStates = new Float64Array(WARP_STATE_COUNT);
  /** Cycles per {@link StallKind} (the `None` entry counts the cycles that were not stalls). */
  readonly stalls = new Float64Array(5);

  /**
   * Counts one cycle of a scheduler whose warps have the given flags: its scheduler state, its
   * stall kind and each warp's state.
   *
   * @returns the scheduler state.
   */
  recordCycle(flags: ArrayLike<number>, count: number): SchedulerState {
    return this.recordCycles(flags, count, 1);
  }

  /**
   * Counts `cycles` identical cycles of a scheduler whose warps keep the given flags (ISSUE
   * asleep: nothing could change them), as `cycles` calls of {@link recordCycle} would.
   *
   * @param cycles number of cycles (an integer >= 0)
   * @returns the scheduler state.
   */
  recordCycles(flags: ArrayLike<number>, count: number, cycles: number): SchedulerState {
    const state = this.recordSchedulerCycles(flags, count, cycles);
    this.recordWarpCycles(flags, count, cycles);
    return state;
  }

  /**
   * The scheduler half of {@link recordCycles}: counts `cycles` cycles of the scheduler state
   * (000 §3.5.3) and stall kind (004 Fig. 3) of the given warps. The issue stage passes the warps
   * the policy offered when the policy's `idleStates` is `considered` (GPGPU-Sim classifies over
   * `m_next_cycle_prioritized_warps`, C11), else every live warp. Allocation-free.
   *
   * @param cycles number of cycles (an integer >= 0)
   * @returns the scheduler state.
   */
  recordSchedulerCycles(flags: ArrayLike<number>, count: number, cycles: number): SchedulerState {
    const state = classifySchedulerCycle(flags, count);
    if (cycles === 0) return state;
    this.schedulerStates[state]! += cycles;
    this.stalls[classifyStall(flags, count)]! += cycles;
    return state;
  }

  /**
   * The warp half of {@link recordCycles}: counts `cycles` warp-cycles in each warp's state
   * (000 §5.3), over every live warp of the scheduler. Allocation-free.
   *
   * @param cycles number of cycles (an integer >= 0)
   */
  recordWarpCycles(flags: ArrayLike<number>, count: number, cycles: number): void {
    if (cycles === 0) return;
    const warpStates = this.warpStates;
    for (let i = 0; i < count; i++) warpStates[WARP_STATE_OF_FLAGS[flags[i]! & FLAG_MASK]!]! += cycles;
  }

  /** Cycles in states 1-3 (000 §3.5.3 scheduler idle time). */
  idleCycles(): number {
    return this.schedulerStates[0]! + this.schedulerStates[1]! + this.schedulerStates[2]!;
  }

  /** Adds another counter set into this one (per-SM totals from per-scheduler counters). */
  add(other: SchedStatsCounters): void {
    for (let i = 0; i < 4; i++) this.schedulerStates[i]! += other.schedulerStates[i]!;
    for (let i = 0; i < WARP_STATE_COUNT; i++) this.warpStates[i]! += other.warpStates[i]!;
    for (let i = 0; i < 5; i++) this.stalls[i]! += other.stalls[i]!;
  }

  /** Zeroes every counter. */
  reset(): void {
    this.schedulerStates.fill(0);
    this.warpStates.fill(0);
    this.stalls.fill(0);
  }

  /** Named counts (`schedulerStates.noInstruction`, ...) for stats output; allocates. */
  toJSON(): { schedulerStates: Record<string, number>; warpStates: Record<string, number>; stalls: Record<string, number> } {
    const named = (names: readonly string[], values: Float64Array): Record<string, number> => {
      const out: Record<string, number> = {};
      for (let i = 0; i < names.length; i++) out[names[i]!] = values[i]!;
      return out;
    };
    return {
      schedulerStates: named(SCHEDULER_STATE_NAME, this.schedulerStates),
      warpStates: named(WARP_STATE_NAME, this.warpStates),
      stalls: named(STALL_KIND_NAME, this.stalls),
    };
  }
}
