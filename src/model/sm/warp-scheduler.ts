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
 *   (by slot, as `lrr`), `gto` is greedy then oldest.
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
  /** Per-warp readiness queries. */
  readonly probe: WarpProbe;
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
   * Tells the policy that the scheduler issued an instruction of `slot` this cycle.
   *
   * @param longLatency the issued instruction is a long-latency one.
   */
  issued(warps: SchedulerWarps, slot: number, longLatency: boolean): void;
  /** Forgets all history (new kernel). */
  reset(): void;
}

/** Inner/outer ordering choice of the two-level policy. */
export type TwoLevelOrder = 'rr' | 'gto';

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

  /**
   * @param options `numSlots`, `readyQueueSize`, `inner`, `outer`, `demoteOnLongLatencyIssue`.
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

    // 2. Pending warps whose long-latency operations all completed go to the active queue tail.
    for (let i = 0; i < this.pending.length; ) {
      const s = this.pending.items[i]!;
      if (!probe.longLatencyPending(s)) {
        this.pending.removeAt(i);
        this.active.push(s);
        where[s] = IN_ACTIVE;
      } else {
        i++;
      }
    }

    // 3. Ready warps stalled on a long-latency operation move to the pending queue.
    for (let i = 0; i < this.ready.length; ) {
      const s = this.ready.items[i]!;
      if (probe.stalledOnLongLatency(s)) {
        this.ready.removeAt(i);
        this.pending.push(s);
        where[s] = IN_PENDING;
      } else {
        i++;
      }
    }

    // 4. Fill the ready queue from the head of the active queue (sorted by priority for outer gto).
    if (this.outer === 'gto') this.sortByPriority(this.active.items, 0, this.active.length, warps);
    while (this.ready.length < this.readyQueueSize && this.active.length > 0) {
      const s = this.active.items[0]!;
      this.active.removeAt(0);
      this.ready.push(s);
      where[s] = IN_READY;
    }

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

  /** Insertion sort of `list[from .. to)` by {@link priorityKey}, then age, then slot. */
  private sortByPriority(list: Int32Array, from: number, to: number, warps: SchedulerWarps): void {
    const age = warps.age;
    for (let i = from + 1; i < to; i++) {
      const s = list[i]!;
      const ks = this.priorityKey(warps, s);
      let j = i - 1;
      while (j >= from) {
        const t = list[j]!;
        const kt = this.priorityKey(warps, t);
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

  reset(): void {
    this.ready.length = 0;
    this.active.length = 0;
    this.pending.length = 0;
    this.where.fill(NOWHERE);
    this.lastIssued = -1;
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
 * @param name a registered name (`lrr`, `gto`, `oldest`, `twoLevel`, ...).
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
