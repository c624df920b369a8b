/**
 * Warp scheduler policies: each cycle a policy writes the priority order of the warps a
 * scheduler supervises into a preallocated `Int32Array`; the scheduler then issues from the first
 * warp in that order that is ready ({@link selectWarp}). Policies are created by name from a
 * registry ({@link createWarpSchedulerPolicy}); later work (phase-aware, ELF, CCWS) adds a policy
 * with {@link registerWarpSchedulerPolicy} instead of editing the scheduler.
 *
 * Built-in policies (000 §2.2.3, §3.2, §3.4.2.2; 004 §2.3):
 * - `lrr`: loose round robin, the priority rotates after each issue: the order starts at the
 *   slot after the last issued warp and wraps around.
 * - `gto`: greedy then oldest: the last issued warp first (it keeps issuing while it is ready),
 *   then the other warps from oldest (lowest dynamic warp id) to youngest.
 * - `oldest`: every warp by age only.
 * - `twoLevel`: the two-level scheduler of 000 Fig. 3.1 with the pending queue of §3.4.2.2
 *   (Fig. 3.6). Only the `readyQueueSize` warps of the ready queue (the fetch group, "typically
 *   6 to 8") compete for issue. A ready-queue warp whose next instruction depends on a
 *   long-latency operation moves to the pending queue (optionally also a warp that just issued a
 *   long-latency instruction); when all its long-latency operations have completed it moves to
 *   the tail of the active queue; free ready-queue places are filled from the head of the active
 *   queue. The outer policy orders the active queue: `rr` keeps arrival order (FIFO), `gto` sorts
 *   it by launch order. The inner policy orders the ready queue: `rr` rotates after each issue
 *   (by slot, as `lrr`), `gto` is greedy then oldest. A warp waiting at a barrier (or in a
 *   `nanosleep`) is demoted too (000 fn. 1 counts synchronization as long-latency; C1 of
 *   `specs/warp-level.md` §4): kept in the ready queue, barrier waiters could fill it while the
 *   warps they wait for sit in the active queue, and the CTA would never finish. The active queue
 *   is sorted when warps arrive at its tail (000 §3.4.2.2 "the priority assignment logic is
 *   triggered at this point"), by {@link TwoLevelPolicy.activeQueueKey}, when
 *   {@link TwoLevelPolicy.sortsActiveQueue} says so (outer `gto`, or a subclass such as the
 *   phase-aware two-level scheduler).
 * - `twoLevelGpgpusim`: GPGPU-Sim's own `two_level_active:<n>:0:1` (shader.cc
 *   `two_level_active_scheduler`), the 2-LV baseline of 004 §4.3 (spec §2.8, C3): two lists only.
 *   Each cycle the active list (`readyQueueSize` warps) drops every warp that is `waiting()`
 *   (no live warp in the slot, at a barrier, asleep, atomics outstanding) or whose next
 *   instruction reads a register a long-latency load has not written yet, to the tail of the
 *   pending list, and refills from the pending front without checking those warps (they are
 *   demoted again next cycle if they still wait). Inner order loose round robin over the active
 *   list (the issuing warp goes to its back), outer strict round robin (FIFO); GPGPU-Sim
 *   implements no other prioritisation for it (it aborts).
 *
 * Slots are the scheduler's own warp indices `0 .. size-1`; a slot is live when `active[slot]`
 * is 1. Ages are dynamic warp ids: a counter stamped when a warp is launched, so a lower age is
 * an older warp; ties are broken by the lower slot. A slot whose age changes holds a new warp.
 *
 * No policy allocates in {@link WarpSchedulerPolicy.order} or
 * {@link WarpSchedulerPolicy.issued}: their state lives in typed arrays sized at creation.
 */
import { InputError, SimulationError } from '../../errors.ts';
import type { SourceLocation } from '../../errors.ts';
import type { FunctionAnnotation } from '../../isa/annotations.ts';
import { PARAMS_LOCATION, requireInt, requireOneOf } from './validate.ts';

/**
 * What a policy may ask about a warp this cycle. The scheduler (or its actor) implements it over
 * the iBuffer, scoreboard and execution units; one object, created once.
 */
export interface WarpProbe {
  /** The warp's next instruction can issue this cycle (buffered, no hazard, unit free). */
  ready(slot: number): boolean;
  /**
   * The warp's next instruction waits on a long-latency operation (a scoreboard
   * `rawLongLatency`/`wawLongLatency` hazard), or the warp waits at a barrier (GPGPU-Sim's
   * `shd_warp_t::waiting()`). The two-level policy moves such a ready-queue warp to its pending
   * queue.
   */
  stalledOnLongLatency(slot: number): boolean;
  /**
   * The warp has long-latency results outstanding ({@link Scoreboard.hasLongLatencyPending}) or
   * waits at a barrier. A pending-queue warp returns to the active queue when this becomes false.
   */
  longLatencyPending(slot: number): boolean;
  /**
   * GPGPU-Sim's `shd_warp_t::waiting()` for a live warp: it waits at a barrier, sleeps
   * (`nanosleep`) or has atomics outstanding (`m_n_atomic > 0`). Memory barriers do not wait in
   * warpstate (`membar` has no timing), so that case of `waiting()` never holds. A slot with no
   * live warp (`active[slot]` 0; GPGPU-Sim's `functional_done()`) is the policy's to check.
   * Used by `twoLevelGpgpusim`.
   */
  waiting(slot: number): boolean;
  /**
   * The warp's next instruction (iBuffer head) reads a register that a long-latency operation
   * has not written back yet (GPGPU-Sim `Scoreboard::islongop` over the instruction's sources;
   * a WAW on a long-latency destination does not count). False with an empty iBuffer. Used by
   * `twoLevelGpgpusim`.
   */
  readsLongLatency(slot: number): boolean;
}

/** The warps one scheduler supervises, as the policy sees them. Arrays are indexed by slot. */
export interface SchedulerWarps {
  /** Number of slots. */
  readonly size: number;
  /** Warp id (in the SM) of each slot, for traces and policies that need SM-wide state. */
  readonly warpIds: Int32Array;
  /** 1 when the slot holds a live warp, 0 when it is empty or its warp has finished. */
  readonly active: Uint8Array;
  /** Dynamic warp id of each slot's warp: lower is launched earlier. */
  readonly age: Float64Array;
  /**
   * PC of each slot's warp: the index of its next instruction in its function (`fn`), -1 when
   * the warp has finished. Written by the issue stage at CTA start and after every issue, so a
   * policy reads the PC of a warp's next instruction without asking (PATS looks up the phase
   * distance/length of it; C15 of `specs/warp-level.md` §4). Optional for compatibility: test
   * fakes and callers that have no PCs leave it out.
   */
  readonly pc?: Int32Array;
  /** Function index (in the kernel's module) of each slot's next instruction, with {@link pc}. */
  readonly fn?: Int32Array;
  /**
   * Static tables of each slot's kernel, by function (`tables[slot][fn].phaseDistance[pc]` ...;
   * `src/isa/annotations.ts`), or null when the kernel has none (an Accel-Sim trace). Filled by
   * the issue stage at CTA start, only for a policy with {@link WarpSchedulerPolicy.usesStaticTables}.
   */
  readonly tables?: (readonly FunctionAnnotation[] | null)[];
  /** Per-warp readiness queries. */
  readonly probe: WarpProbe;
}

/**
 * What the issue stage tells a policy about the instruction it just issued (the optional 4th
 * argument of {@link WarpSchedulerPolicy.issued}; C15). One object reused for every issue: read
 * it inside `issued`, never keep it. ELF needs the load / branch outcome and the next PC, PATS
 * the PC. The functional model's `WarpStepInfo` has this shape.
 */
export interface IssueEvent {
  /** Index of the issued instruction in its function (its PC). */
  readonly pc: number;
  /** Function of {@link pc}. */
  readonly functionIndex: number;
  /** The warp's next PC (top of its SIMT stack after the instruction), -1 when it finished. */
  readonly nextPc: number;
  /** Function of {@link nextPc}, -1 when the warp finished. */
  readonly nextFunctionIndex: number;
  /** Loads and value-returning atomics. */
  readonly isLoad: boolean;
  /** Stores, atomics and reductions. */
  readonly isStore: boolean;
  /** A branch split the warp (PTX execution only; false for Accel-Sim traces). */
  readonly diverged: boolean;
  /** A branch taken by every active lane, or a call or return (PTX execution only; compare `nextPc` with `pc + 1` for traces). */
  readonly jumped: boolean;
  /** The warp now waits at a CTA barrier. */
  readonly atBarrier: boolean;
  /** The warp finished with this instruction. */
  readonly exited: boolean;
  /** Lanes that executed it. */
  readonly activeCount: number;
}

/** A warp scheduling policy instance (one per scheduler; it may keep state). */
export interface WarpSchedulerPolicy {
  /** Registry name. */
  readonly name: string;
  /**
   * Writes the slots to consider this cycle, highest priority first, into `out` and returns how
   * many it wrote. Only live slots are written; a policy may leave some out (`twoLevel` writes
   * its ready queue only).
   *
   * @param warps the scheduler's warps.
   * @param out preallocated, length >= `warps.size`.
   * @throws SimulationError when `out` is too short or `warps.size` differs from the size the
   *   policy was created for.
   */
  order(warps: SchedulerWarps, out: Int32Array): number;
  /**
   * True when `order` only reads the policy's state and `warps` (calling it or not changes
   * nothing later): the issue stage then skips it in a cycle where no warp is ready. A policy
   * that updates queues in `order` (two-level) leaves it false or absent.
   */
  readonly pureOrder?: boolean;
  /**
   * Tells the policy that the scheduler issued an instruction of `slot` this cycle (once per
   * instruction: twice for a dual issue).
   *
   * @param longLatency the issued instruction is a long-latency one.
   * @param event what the instruction did (PC, next PC, load, branch outcome); passed by the
   *   issue stage, absent in callers that have no functional model. Reused: do not keep it.
   */
  issued(warps: SchedulerWarps, slot: number, longLatency: boolean, event?: IssueEvent): void;
  /**
   * False when the last {@link order} call changed the policy's state in a way a second call
   * with the same warps and readiness would change again (GPGPU-Sim's `two_level_active`
   * promotes pending warps unchecked, so its lists rotate every cycle while warps wait). The
   * issue stage does not sleep after an unsettled `order` (its sleep replay cannot redo the
   * calls it skips), so the result is the same as calling `order` every cycle. Absent: always
   * settled (a second call changes nothing), as `lrr`, `gto` and `oldest`.
   */
  settled?(): boolean;
  /**
   * True when the policy reads {@link SchedulerWarps.tables} (PATS, ELF): the issue stage then
   * has the kernel's static tables computed and filled in at CTA start.
   */
  readonly usesStaticTables?: boolean;
  /**
   * Fetch priority of the warp in `slot` (lower is fetched first under the `warpPriority` fetch
   * policy; ELF's coordinated fetch, 004 §3.1): stamped on the warp's fetch requests by the issue
   * stage. Absent: requests carry no priority.
   */
  fetchPriority?(warps: SchedulerWarps, slot: number): number;
  /** Forgets all history (new kernel). */
  reset(): void;
}

/** Inner/outer ordering choice of the two-level policy. */
export type TwoLevelOrder = 'rr' | 'gto';

/** Warps the scheduler idle-time states are classified over ({@link WarpSchedulerPolicyOptions.idleStates}). */
export type IdleStatesScope = 'supervised' | 'considered';

/** The values of {@link IdleStatesScope}. */
export const IDLE_STATES_SCOPES: readonly IdleStatesScope[] = Object.freeze(['supervised', 'considered']);

/** Options given to a policy factory. Policies ignore options they do not use. */
export interface WarpSchedulerPolicyOptions {
  /** Slots the scheduler supervises (warps per SM / schedulers per SM). Integer >= 1. */
  readonly numSlots: number;
  /** `twoLevel`: ready-queue (fetch group) size; default 6 (000 Table 3.1). Integer >= 1, capped at `numSlots`. */
  readonly readyQueueSize?: number;
  /** `twoLevel`: order within the ready queue; default `rr`. */
  readonly inner?: TwoLevelOrder;
  /** `twoLevel`: order of the active queue (which warp enters the ready queue next); default `rr`. */
  readonly outer?: TwoLevelOrder;
  /**
   * `twoLevel`: also move a warp to the pending queue as soon as it issues a long-latency
   * instruction (GPGPU-Sim-style fetch groups), not only when it stalls on one; default false.
   */
  readonly demoteOnLongLatencyIssue?: boolean;
  /**
   * `twoLevel` and `twoLevelGpgpusim`: which warps the scheduler idle-time states (000 §3.5.3)
   * and the stall kinds (004 Fig. 3) are classified over. `supervised` (default, today's
   * numbers): every live warp of the scheduler. `considered`: the warps the policy offered this
   * cycle (its ready queue / active list), as GPGPU-Sim's `shader_cycle_distro` loop over
   * `m_next_cycle_prioritized_warps` and so 000 Fig. 3.8 count (C11 of `specs/warp-level.md`).
   * Warp states (000 §5.3) are always over every warp. Read by the issue stage, not the policy.
   */
  readonly idleStates?: IdleStatesScope;
  /** Options of policies registered later. */
  readonly [option: string]: unknown;
}

/**
 * Creates a policy instance.
 *
 * @throws InputError for a bad option (`where` names the file the options came from).
 */
export type WarpSchedulerPolicyFactory = (options: WarpSchedulerPolicyOptions, where: SourceLocation) => WarpSchedulerPolicy;

// ---------------------------------------------------------------------------------------------
// Shared helpers
// ---------------------------------------------------------------------------------------------

function checkOrderArgs(name: string, size: number, warps: SchedulerWarps, out: Int32Array): void {
  if (warps.size !== size) {
    throw new SimulationError(`warp scheduler ${name}: created for ${size} slots, called with ${warps.size}`, { size, got: warps.size });
  }
  if (out.length < size) {
    throw new SimulationError(`warp scheduler ${name}: order array has ${out.length} entries, needs ${size}`, { size, got: out.length });
  }
}

/** True when slot `a` is older than slot `b` (lower age, then lower slot). */
function older(age: Float64Array, a: number, b: number): boolean {
  const x = age[a]!;
  const y = age[b]!;
  return x < y || (x === y && a < b);
}

/** Sorts `list[from .. to)` by age, oldest first (insertion sort: linear when nearly sorted). */
function sortByAge(list: Int32Array, from: number, to: number, age: Float64Array): void {
  for (let i = from + 1; i < to; i++) {
    const s = list[i]!;
    let j = i - 1;
    while (j >= from && older(age, s, list[j]!)) {
      list[j + 1] = list[j]!;
      j--;
    }
    list[j + 1] = s;
  }
}

/**
 * The live slots of a scheduler kept sorted by age across cycles. Each {@link update} drops
 * slots that left or changed warp, appends new ones and re-sorts, which costs O(size) when
 * nothing changed. Exported for policies registered later.
 */
export class AgeOrder {
  /** Live slots, oldest first; valid entries are `list[0 .. count)`. */
  readonly list: Int32Array;
  /** Number of valid entries in {@link list}. */
  count = 0;
  private readonly member: Uint8Array;
  private readonly seenAge: Float64Array;

  /** @param size slots supervised. */
  constructor(readonly size: number) {
    this.list = new Int32Array(size);
    this.member = new Uint8Array(size);
    this.seenAge = new Float64Array(size);
  }

  /** Re-syncs with `warps.active` / `warps.age`. */
  update(warps: SchedulerWarps): void {
    const { active, age } = warps;
    let n = 0;
    for (let i = 0; i < this.count; i++) {
      const s = this.list[i]!;
      if (active[s] === 1 && age[s] === this.seenAge[s]) this.list[n++] = s;
      else this.member[s] = 0;
    }
    for (let s = 0; s < this.size; s++) {
      if (active[s] === 1 && this.member[s] === 0) {
        this.list[n++] = s;
        this.member[s] = 1;
        this.seenAge[s] = age[s]!;
      }
    }
    this.count = n;
    sortByAge(this.list, 0, n, age);
  }

  /** Empties the order. */
  reset(): void {
    this.count = 0;
    this.member.fill(0);
  }
}

// ---------------------------------------------------------------------------------------------
// lrr, gto, oldest
// ---------------------------------------------------------------------------------------------

/** Loose round robin: starts after the last issued slot. Before any issue it starts at slot 0. */
class LrrPolicy implements WarpSchedulerPolicy {
  readonly name = 'lrr';
  readonly pureOrder = true;
  private last: number;

  constructor(private readonly size: number) {
    this.last = size - 1;
  }

  order(warps: SchedulerWarps, out: Int32Array): number {
    checkOrderArgs(this.name, this.size, warps, out);
    const active = warps.active;
    let n = 0;
    let s = this.last;
    for (let k = 0; k < this.size; k++) {
      s = s + 1 === this.size ? 0 : s + 1;
      if (active[s] === 1) out[n++] = s;
    }
    return n;
  }

  issued(_warps: SchedulerWarps, slot: number): void {
    this.last = slot;
  }

  reset(): void {
    this.last = this.size - 1;
  }
}

/**
 * Greedy then oldest (`greedy` true) or oldest only (`greedy` false). The greedy warp is the last
 * issued one, as long as the same warp still occupies its slot.
 */
class AgePolicy implements WarpSchedulerPolicy {
  /** The age order re-syncs from `warps` at each call: skipping calls changes nothing. */
  readonly pureOrder = true;
  private readonly ages: AgeOrder;
  private greedySlot = -1;
  private greedyAge = 0;

  constructor(
    readonly name: string,
    private readonly size: number,
    private readonly greedy: boolean,
  ) {
    this.ages = new AgeOrder(size);
  }

  order(warps: SchedulerWarps, out: Int32Array): number {
    checkOrderArgs(this.name, this.size, warps, out);
    this.ages.update(warps);
    let n = 0;
    let g = this.greedySlot;
    if (g >= 0 && (warps.active[g] !== 1 || warps.age[g] !== this.greedyAge)) g = -1;
    if (g >= 0) out[n++] = g;
    const list = this.ages.list;
    for (let i = 0; i < this.ages.count; i++) {
      const s = list[i]!;
      if (s !== g) out[n++] = s;
    }
    return n;
  }

  issued(warps: SchedulerWarps, slot: number): void {
    if (!this.greedy) return;
    this.greedySlot = slot;
    this.greedyAge = warps.age[slot]!;
  }

  reset(): void {
    this.greedySlot = -1;
    this.ages.reset();
  }
}

// ---------------------------------------------------------------------------------------------
// twoLevel
// ---------------------------------------------------------------------------------------------

const NOWHERE = 0;
const IN_READY = 1;
const IN_ACTIVE = 2;
const IN_PENDING = 3;

/** A queue of slots in an Int32Array (small: removal shifts). */
class SlotQueue {
  readonly items: Int32Array;
  length = 0;

  constructor(capacity: number) {
    this.items = new Int32Array(capacity);
  }

  push(slot: number): void {
    this.items[this.length++] = slot;
  }

  /** Removes the entry at `index`, keeping order. */
  removeAt(index: number): void {
    this.items.copyWithin(index, index + 1, this.length);
    this.length--;
  }

  remove(slot: number): void {
    for (let i = 0; i < this.length; i++) {
      if (this.items[i] === slot) {
        this.removeAt(i);
        return;
      }
    }
  }
}

/** Snapshot of the two-level queues (for traces and tests; allocates). */
export interface TwoLevelQueues {
  /** Ready queue (fetch group), in queue order. */
  readonly ready: readonly number[];
  /** Active queue, head first. */
  readonly active: readonly number[];
  /** Pending queue (warps waiting on long-latency operations), in arrival order. */
  readonly pending: readonly number[];
}

/**
 * The two-level policy (see the module comment). Subclass it and override
 * {@link TwoLevelPolicy.priorityKey} for two-level variants.
 */
export class TwoLevelPolicy implements WarpSchedulerPolicy {
  /** Registry name. */
  readonly name: string;
  /** Ready-queue capacity. */
  readonly readyQueueSize: number;
  /** Order within the ready queue. */
  readonly inner: TwoLevelOrder;
  /** Order of the active queue. */
  readonly outer: TwoLevelOrder;
  /** Demote on issuing a long-latency instruction, not only on stalling on one. */
  readonly demoteOnLongLatencyIssue: boolean;
  /** Warps the issue stage classifies scheduler idle-time states over (read by the issue stage). */
  readonly idleStates: IdleStatesScope;

  private readonly size: number;
  private readonly ready: SlotQueue;
  private readonly active: SlotQueue;
  private readonly pending: SlotQueue;
  /** Per slot: NOWHERE, IN_READY, IN_ACTIVE, IN_PENDING. */
  private readonly where: Uint8Array;
  /** Per slot: age seen when the warp entered the queues. */
  private readonly seenAge: Float64Array;
  /** Scratch for newly arrived slots. */
  private readonly arrivals: Int32Array;
  private lastIssued = -1;
  private lastIssuedAge = 0;
  /** The last {@link order} call moved a warp between queues (see {@link settled}). */
  private moved = false;

  /**
   * @param options `numSlots`, `readyQueueSize`, `inner`, `outer`, `demoteOnLongLatencyIssue`,
   *   `idleStates`.
   * @param where file the options came from, for errors.
   * @param name registry name (a subclass passes its own).
   * @throws InputError for a bad option.
   */
  constructor(options: WarpSchedulerPolicyOptions, where: SourceLocation = PARAMS_LOCATION, name = 'twoLevel') {
    this.name = name;
    this.size = requireInt(options.numSlots, 'warpScheduler.numSlots', 1, 1 << 16, where);
    const rq = requireInt(options.readyQueueSize ?? 6, 'warpScheduler.readyQueueSize', 1, 1 << 16, where);
    this.readyQueueSize = Math.min(rq, this.size);
    this.inner = requireOneOf(options.inner ?? 'rr', 'warpScheduler.inner', ['rr', 'gto'], where);
    this.outer = requireOneOf(options.outer ?? 'rr', 'warpScheduler.outer', ['rr', 'gto'], where);
    const demote = options.demoteOnLongLatencyIssue ?? false;
    if (typeof demote !== 'boolean') throw new InputError(where, `expected true or false, got ${typeof demote}`, 'warpScheduler.demoteOnLongLatencyIssue');
    this.demoteOnLongLatencyIssue = demote;
    this.idleStates = requireOneOf(options.idleStates ?? 'supervised', 'warpScheduler.idleStates', IDLE_STATES_SCOPES, where);
    this.ready = new SlotQueue(this.size);
    this.active = new SlotQueue(this.size);
    this.pending = new SlotQueue(this.size);
    this.where = new Uint8Array(this.size);
    this.seenAge = new Float64Array(this.size);
    this.arrivals = new Int32Array(this.size);
  }

  order(warps: SchedulerWarps, out: Int32Array): number {
    checkOrderArgs(this.name, this.size, warps, out);
    const { active, age, probe } = warps;
    const where = this.where;

    // 1. Warps that finished (or whose slot was reused) leave their queue; new warps arrive at
    //    the tail of the active queue in launch order.
    let arrivals = 0;
    for (let s = 0; s < this.size; s++) {
      const w = where[s]!;
      if (w !== NOWHERE && (active[s] !== 1 || age[s] !== this.seenAge[s])) {
        this.queueOf(w).remove(s);
        where[s] = NOWHERE;
      }
      if (where[s] === NOWHERE && active[s] === 1) this.arrivals[arrivals++] = s;
    }
    sortByAge(this.arrivals, 0, arrivals, age);
    for (let i = 0; i < arrivals; i++) {
      const s = this.arrivals[i]!;
      this.seenAge[s] = age[s]!;
      this.active.push(s);
      where[s] = IN_ACTIVE;
    }
    let arrived = arrivals > 0;

    // 2. Pending warps whose long-latency operations all completed go to the active queue tail.
    for (let i = 0; i < this.pending.length; ) {
      const s = this.pending.items[i]!;
      if (!probe.longLatencyPending(s)) {
        this.pending.removeAt(i);
        this.active.push(s);
        where[s] = IN_ACTIVE;
        arrived = true;
      } else {
        i++;
      }
    }

    // 3. Ready warps stalled on a long-latency operation (or waiting at a barrier) move to the
    //    pending queue.
    let demoted = false;
    for (let i = 0; i < this.ready.length; ) {
      const s = this.ready.items[i]!;
      if (probe.stalledOnLongLatency(s)) {
        this.ready.removeAt(i);
        this.pending.push(s);
        where[s] = IN_PENDING;
        demoted = true;
      } else {
        i++;
      }
    }

    // 4. Priority assignment: a warp arrived at the active tail, so the active queue is sorted
    //    (000 §3.4.2.2), for policies that sort it; then the ready queue is filled from its head.
    if (arrived && this.sortsActiveQueue()) this.sortActiveQueue(warps);
    let filled = false;
    while (this.ready.length < this.readyQueueSize && this.active.length > 0) {
      const s = this.active.items[0]!;
      this.active.removeAt(0);
      this.ready.push(s);
      where[s] = IN_READY;
      filled = true;
    }
    this.moved = arrived || demoted || filled;

    // 5. Inner order of the ready queue.
    let n = 0;
    let g = this.lastIssued;
    if (g >= 0 && (where[g] !== IN_READY || age[g] !== this.lastIssuedAge)) g = -1;
    if (this.inner === 'rr') {
      // Rotate from the last issued slot even when that warp has left the ready queue.
      let s = this.lastIssued >= 0 ? this.lastIssued : this.size - 1;
      for (let k = 0; k < this.size; k++) {
        s = s + 1 === this.size ? 0 : s + 1;
        if (where[s] === IN_READY) out[n++] = s;
      }
    } else {
      if (g >= 0) out[n++] = g;
      const start = n;
      for (let i = 0; i < this.ready.length; i++) {
        const s = this.ready.items[i]!;
        if (s !== g) out[n++] = s;
      }
      this.sortByPriority(out, start, n, warps);
    }
    return n;
  }

  /**
   * Priority key of a warp for the `gto` orderings: lower goes first; equal keys fall back to
   * age, then slot. The default is the age (launch order). A subclass overrides it to make
   * another two-level policy with the same queues, e.g. the phase-aware two-level scheduler
   * that sorts the active queue by phase length (000 §3.4.2.2), and registers it under a new
   * name. Called O(queue length) times per cycle; must not allocate.
   */
  protected priorityKey(warps: SchedulerWarps, slot: number): number {
    return warps.age[slot]!;
  }

  /**
   * Whether the active queue is kept sorted by {@link activeQueueKey} (re-sorted in a cycle when a
   * warp arrives at its tail: launched, or back from the pending queue). Default: only for
   * outer `gto`; outer `rr` keeps arrival order (000 §3.4.2.2: RR "does not sort the warps"). A
   * subclass returns true to sort by its own key whatever `outer` says, e.g. two-level PATS
   * (phase length). Called once per cycle in which a warp arrived.
   */
  protected sortsActiveQueue(): boolean {
    return this.outer === 'gto';
  }

  /**
   * Key of the active-queue sort: lower enters the ready queue first; equal keys fall back to
   * age, then slot. Default {@link priorityKey} (launch order for `gto`). A subclass overrides it
   * to sort the active queue by another key (PATS: the length of the phase of the warp's next
   * instruction) without changing the inner order. The sort runs on arrival only, so a key must
   * not change while the warp waits in the active queue (a waiting warp issues nothing; a key of
   * the warp's next instruction qualifies); a subclass whose keys change otherwise calls
   * {@link sortActiveQueue} itself. Must not allocate.
   */
  protected activeQueueKey(warps: SchedulerWarps, slot: number): number {
    return this.priorityKey(warps, slot);
  }

  /** Sorts the whole active queue by {@link activeQueueKey}, then age, then slot (stable; linear when nearly sorted). */
  protected sortActiveQueue(warps: SchedulerWarps): void {
    this.sortBy(this.active.items, 0, this.active.length, warps, true);
  }

  /** Insertion sort of `list[from .. to)` by {@link priorityKey}, then age, then slot. */
  private sortByPriority(list: Int32Array, from: number, to: number, warps: SchedulerWarps): void {
    this.sortBy(list, from, to, warps, false);
  }

  /** Insertion sort of `list[from .. to)` by {@link activeQueueKey} (`activeKey`) or {@link priorityKey}, then age, then slot. */
  private sortBy(list: Int32Array, from: number, to: number, warps: SchedulerWarps, activeKey: boolean): void {
    const age = warps.age;
    for (let i = from + 1; i < to; i++) {
      const s = list[i]!;
      const ks = activeKey ? this.activeQueueKey(warps, s) : this.priorityKey(warps, s);
      let j = i - 1;
      while (j >= from) {
        const t = list[j]!;
        const kt = activeKey ? this.activeQueueKey(warps, t) : this.priorityKey(warps, t);
        if (!(ks < kt || (ks === kt && older(age, s, t)))) break;
        list[j + 1] = t;
        j--;
      }
      list[j + 1] = s;
    }
  }

  issued(warps: SchedulerWarps, slot: number, longLatency: boolean): void {
    this.lastIssued = slot;
    this.lastIssuedAge = warps.age[slot]!;
    if (longLatency && this.demoteOnLongLatencyIssue && this.where[slot] === IN_READY) {
      this.ready.remove(slot);
      this.pending.push(slot);
      this.where[slot] = IN_PENDING;
    }
  }

  /**
   * True when the last {@link order} call moved no warp between queues: a second call with the
   * same warps and readiness then changes nothing. (A call that moved one may move it back: a
   * warp in `nanosleep` is demoted, returns at once since nothing long is pending, and is
   * demoted again.)
   */
  settled(): boolean {
    return !this.moved;
  }

  reset(): void {
    this.ready.length = 0;
    this.active.length = 0;
    this.pending.length = 0;
    this.where.fill(NOWHERE);
    this.lastIssued = -1;
    this.moved = false;
  }

  /** The three queues as arrays (allocates; for traces and tests). */
  queues(): TwoLevelQueues {
    const take = (q: SlotQueue): number[] => Array.from(q.items.subarray(0, q.length));
    return { ready: take(this.ready), active: take(this.active), pending: take(this.pending) };
  }

  private queueOf(w: number): SlotQueue {
    return w === IN_READY ? this.ready : w === IN_ACTIVE ? this.active : this.pending;
  }
}

// ---------------------------------------------------------------------------------------------
// twoLevelGpgpusim
// ---------------------------------------------------------------------------------------------

/** Snapshot of the `twoLevelGpgpusim` lists (for traces and tests; allocates). */
export interface TwoLevelGpgpusimLists {
  /** Active list (`m_next_cycle_prioritized_warps`), in priority order: every slot, live or not. */
  readonly active: readonly number[];
  /** Pending list (`m_pending_warps`), front first. */
  readonly pending: readonly number[];
}

/**
 * GPGPU-Sim's two-list two-level scheduler, `-gpgpu_scheduler two_level_active:<n>:0:1`
 * (shader.cc `two_level_active_scheduler`; 004 §4.3's 2-LV baseline; `specs/warp-level.md` §2.8,
 * C3). Written from the description of its behaviour, not from its code.
 *
 * - Lists hold the scheduler's warp slots (hardware warps), live or not: slots `0 .. n-1` start in
 *   the active list and the rest in the pending list, in slot order (GPGPU-Sim
 *   `add_supervised_warp_id`). A CTA launched into a slot keeps the slot's place.
 * - {@link order}, every issue cycle: each active slot whose warp is `waiting()` (no live warp,
 *   at a barrier, asleep, atomics outstanding: {@link WarpProbe.waiting}) or whose next
 *   instruction reads a long-latency register ({@link WarpProbe.readsLongLatency}) moves to the
 *   pending tail, in list order; then the pending front moves to the active tail until the active
 *   list holds `n` slots again, without checking it (outer strict round robin). It writes the
 *   live slots of the active list, in list order.
 * - {@link issued}: inner loose round robin over the list: the list restarts after the issuing
 *   slot, which goes to its back (GPGPU-Sim `do_on_warp_issued` with `order_lrr`).
 *
 * `n` is capped at the scheduler's slots (GPGPU-Sim would take from an empty pending list).
 * Differences from {@link TwoLevelPolicy} (000 Fig. 3.6): no third (active) queue, no check
 * before promotion, demotion on a long-latency *source* only (not WAW), demotion of barrier,
 * atomic and empty-slot waits, no choice of inner/outer order.
 */
export class TwoLevelGpgpusimPolicy implements WarpSchedulerPolicy {
  /** Registry name. */
  readonly name: string;
  /** Active-list size `n` (GPGPU-Sim `m_max_active_warps`), capped at the slots. */
  readonly readyQueueSize: number;
  /** Warps the issue stage classifies scheduler idle-time states over (read by the issue stage). */
  readonly idleStates: IdleStatesScope;

  private readonly size: number;
  /** Active list: `active[0 .. activeLength)`. */
  private readonly active: Int32Array;
  private activeLength = 0;
  /** Pending list: a ring of `size` entries, `pendingLength` of them from `pendingHead`. */
  private readonly pending: Int32Array;
  private pendingHead = 0;
  private pendingLength = 0;
  /** Scratch for the rotation in {@link issued}. */
  private readonly rotated: Int32Array;
  private demoted = 0;
  private initialized = false;

  /**
   * @param options `numSlots`, `readyQueueSize` (default 6, the commented
   *   `two_level_active:6:0:1` of GPGPU-Sim's configs), `idleStates`; `inner`/`outer` are
   *   refused unless `rr` (GPGPU-Sim implements only inner LRR and outer SRR and aborts otherwise).
   * @param where file the options came from, for errors.
   * @param name registry name.
   * @throws InputError for a bad option.
   */
  constructor(options: WarpSchedulerPolicyOptions, where: SourceLocation = PARAMS_LOCATION, name = 'twoLevelGpgpusim') {
    this.name = name;
    this.size = requireInt(options.numSlots, 'warpScheduler.numSlots', 1, 1 << 16, where);
    const n = requireInt(options.readyQueueSize ?? 6, 'warpScheduler.readyQueueSize', 1, 1 << 16, where);
    this.readyQueueSize = Math.min(n, this.size);
    for (const k of ['inner', 'outer'] as const) {
      const v = options[k];
      if (v !== undefined && v !== 'rr') {
        throw new InputError(where, `GPGPU-Sim's two_level_active implements only inner loose and outer strict round robin ('rr'), got '${String(v)}' (the 000 Fig. 3.6 scheduler 'twoLevel' takes 'gto')`, `warpScheduler.${k}`);
      }
    }
    this.idleStates = requireOneOf(options.idleStates ?? 'supervised', 'warpScheduler.idleStates', IDLE_STATES_SCOPES, where);
    this.active = new Int32Array(this.size);
    this.pending = new Int32Array(this.size);
    this.rotated = new Int32Array(this.size);
  }

  private init(): void {
    this.activeLength = 0;
    this.pendingHead = 0;
    this.pendingLength = 0;
    for (let s = 0; s < this.size; s++) {
      if (s < this.readyQueueSize) this.active[this.activeLength++] = s;
      else this.pending[this.pendingLength++] = s;
    }
    this.demoted = 0;
    this.initialized = true;
  }

  order(warps: SchedulerWarps, out: Int32Array): number {
    checkOrderArgs(this.name, this.size, warps, out);
    if (!this.initialized) this.init();
    const { active: live, probe } = warps;
    const list = this.active;
    const size = this.size;
    // Demote waiting warps and warps whose next instruction reads a long-latency register.
    let kept = 0;
    let demoted = 0;
    for (let i = 0; i < this.activeLength; i++) {
      const s = list[i]!;
      if (live[s] !== 1 || probe.waiting(s) || probe.readsLongLatency(s)) {
        let at = this.pendingHead + this.pendingLength;
        if (at >= size) at -= size;
        this.pending[at] = s;
        this.pendingLength++;
        demoted++;
      } else {
        list[kept++] = s;
      }
    }
    this.activeLength = kept;
    // Promote the pending front, unchecked, until the active list is full again.
    while (this.activeLength < this.readyQueueSize && this.pendingLength > 0) {
      list[this.activeLength++] = this.pending[this.pendingHead]!;
      this.pendingHead = this.pendingHead + 1 === size ? 0 : this.pendingHead + 1;
      this.pendingLength--;
    }
    this.demoted = demoted;
    let n = 0;
    for (let i = 0; i < this.activeLength; i++) {
      const s = list[i]!;
      if (live[s] === 1) out[n++] = s;
    }
    return n;
  }

  issued(_warps: SchedulerWarps, slot: number, _longLatency = false): void {
    if (!this.initialized) this.init();
    const list = this.active;
    const len = this.activeLength;
    let p = -1;
    for (let i = 0; i < len; i++) {
      if (list[i] === slot) {
        p = i;
        break;
      }
    }
    if (p < 0 || p === len - 1) return; // not listed, or already at the back
    const r = this.rotated;
    let k = 0;
    for (let i = p + 1; i < len; i++) r[k++] = list[i]!;
    for (let i = 0; i <= p; i++) r[k++] = list[i]!;
    list.set(r.subarray(0, len));
  }

  /** True when the last {@link order} demoted (and so promoted) nothing: the lists did not move. */
  settled(): boolean {
    return this.demoted === 0;
  }

  reset(): void {
    this.initialized = false;
    this.activeLength = 0;
    this.pendingLength = 0;
    this.demoted = 0;
  }

  /** The two lists as arrays (allocates; for traces and tests). */
  lists(): TwoLevelGpgpusimLists {
    if (!this.initialized) this.init();
    const pending: number[] = [];
    for (let i = 0; i < this.pendingLength; i++) pending.push(this.pending[(this.pendingHead + i) % this.size]!);
    return { active: Array.from(this.active.subarray(0, this.activeLength)), pending };
  }
}

// ---------------------------------------------------------------------------------------------
// Registry
// ---------------------------------------------------------------------------------------------

const registry = new Map<string, WarpSchedulerPolicyFactory>();

/**
 * Adds a policy under `name` (what configs and scenarios write, e.g. `warpScheduler: gto`).
 *
 * @param replace allow replacing an existing policy of that name (default false).
 * @throws SimulationError when the name is taken and `replace` is false, or is empty.
 */
export function registerWarpSchedulerPolicy(name: string, factory: WarpSchedulerPolicyFactory, replace = false): void {
  if (name === '') throw new SimulationError('warp scheduler policy name must not be empty');
  if (registry.has(name) && !replace) throw new SimulationError(`warp scheduler policy '${name}' is already registered`, { name });
  registry.set(name, factory);
}

/**
 * The factory registered under `name`, or undefined: lets a policy wrap another one (a
 * decorator that adds a load mask or statistics to GTO) without knowing its class.
 */
export function warpSchedulerPolicyFactory(name: string): WarpSchedulerPolicyFactory | undefined {
  return registry.get(name);
}

/** True when a policy of that name is registered. */
export function hasWarpSchedulerPolicy(name: string): boolean {
  return registry.has(name);
}

/** Registered policy names, in registration order. */
export function warpSchedulerPolicyNames(): string[] {
  return [...registry.keys()];
}

/**
 * Creates a policy instance by name.
 *
 * @param name a registered name (`lrr`, `gto`, `oldest`, `twoLevel`, `twoLevelGpgpusim`, ...).
 * @param options sizes and policy options.
 * @param where file the configuration came from.
 * @throws InputError for an unknown name (listing the known ones) or a bad option.
 */
export function createWarpSchedulerPolicy(name: string, options: WarpSchedulerPolicyOptions, where: SourceLocation = PARAMS_LOCATION): WarpSchedulerPolicy {
  const factory = registry.get(name);
  if (factory === undefined) {
    throw new InputError(where, `unknown warp scheduler policy '${name}' (known: ${warpSchedulerPolicyNames().join(', ')})`, 'warpScheduler.policy');
  }
  return factory(options, where);
}

registerWarpSchedulerPolicy('lrr', (o, where) => new LrrPolicy(requireInt(o.numSlots, 'warpScheduler.numSlots', 1, 1 << 16, where)));
registerWarpSchedulerPolicy('gto', (o, where) => new AgePolicy('gto', requireInt(o.numSlots, 'warpScheduler.numSlots', 1, 1 << 16, where), true));
registerWarpSchedulerPolicy('oldest', (o, where) => new AgePolicy('oldest', requireInt(o.numSlots, 'warpScheduler.numSlots', 1, 1 << 16, where), false));
registerWarpSchedulerPolicy('twoLevel', (o, where) => new TwoLevelPolicy(o, where));
registerWarpSchedulerPolicy('twoLevelGpgpusim', (o, where) => new TwoLevelGpgpusimPolicy(o, where));

// ---------------------------------------------------------------------------------------------
// Selection
// ---------------------------------------------------------------------------------------------

/**
 * One scheduling decision: orders the warps with `policy` and returns the first slot in that
 * order whose warp is ready (`warps.probe.ready`), or -1 when none is. Does not call
 * {@link WarpSchedulerPolicy.issued}: the scheduler does, once the instruction really issues.
 *
 * @param scratch preallocated, length >= `warps.size`; holds the order afterwards.
 */
export function selectWarp(policy: WarpSchedulerPolicy, warps: SchedulerWarps, scratch: Int32Array): number {
  const n = policy.order(warps, scratch);
  for (let i = 0; i < n; i++) {
    const s = scratch[i]!;
    if (warps.probe.ready(s)) return s;
  }
  return -1;
}
