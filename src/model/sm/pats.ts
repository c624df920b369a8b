/**
 * Phase-aware warp scheduling, PATS (paper 000 chapter 3; `specs/warp-level.md` §1): the
 * scheduler prefers "the warp that is at the shortest next phase" (§3.4.1), using the phase
 * tables the compiler pass computes (`src/isa/phase.ts`, carried per instruction by
 * `src/isa/annotations.ts`; the issue stage hands them to the policy in
 * {@link SchedulerWarps.tables}).
 *
 * - `pats` (§3.4.2.2 "Single Level Schedulers", spec §1.5): every issue slot, the live warps in
 *   order of the phase distance of their next instruction ("Warp at an instruction with the
 *   lowest distance from the next phase is chosen"), ties by age ("For warps that are at the same
 *   distance, the oldest warp is chosen first"), then slot.
 * - `patsTwoLevel` (§3.4.2.2 "Two Level Schedulers", Fig. 3.6, spec §1.5): paper 000's
 *   three-queue two-level scheduler ({@link TwoLevelPolicy}) whose priority assignment logic
 *   sorts the active queue when a warp arrives at its tail by the length of the phase holding
 *   each warp's next instruction (R-P6; option `key: 'distance'` uses the distance), ties by age.
 *   Barrier waiters are demoted to the pending queue (R-P7, as every two-level policy here).
 *
 * A warp whose kernel has no tables (an Accel-Sim trace) sorts with distance 0: age order. The
 * trace front end refuses these policies before a run (they need PTX IR).
 */
import type { SourceLocation } from '../../errors.ts';
import { SimulationError } from '../../errors.ts';
import type { FunctionAnnotation } from '../../isa/annotations.ts';
import { registerWarpSchedulerPolicy, TwoLevelPolicy, type SchedulerWarps, type WarpSchedulerPolicy, type WarpSchedulerPolicyOptions } from './warp-scheduler.ts';
import { PARAMS_LOCATION, requireInt, requireOneOf } from './validate.ts';

/** Which phase figure orders the two-level active queue (R-P6). */
export type PatsKey = 'length' | 'distance';

/** The table of the function holding `slot`'s next instruction, when its PC is in it. */
function tableAtPc(warps: SchedulerWarps, slot: number): FunctionAnnotation | undefined {
  const tables = warps.tables?.[slot];
  if (tables == null) return undefined;
  const fn = warps.fn![slot]!;
  const pc = warps.pc![slot]!;
  const t = fn >= 0 ? tables[fn] : undefined;
  return t !== undefined && pc >= 0 && pc < t.instructionCount ? t : undefined;
}

/**
 * Phase distance (cycles, from the configured latency model) of the next instruction of the warp
 * in `slot`, or 0 when it has no table entry (no tables, finished warp).
 */
export function phaseDistanceOf(warps: SchedulerWarps, slot: number): number {
  const t = tableAtPc(warps, slot);
  return t === undefined ? 0 : t.phaseDistance[warps.pc![slot]!]!;
}

/**
 * Length (cycles) of the phase holding the next instruction of the warp in `slot` (000 §3.4.2.2
 * "length information is required only once for an entire phase"), or 0 without a table entry.
 */
export function phaseLengthOf(warps: SchedulerWarps, slot: number): number {
  const t = tableAtPc(warps, slot);
  return t === undefined ? 0 : t.phaseLength[t.phaseOf[warps.pc![slot]!]!]!;
}

/**
 * Single-level PATS. Keys are recomputed only for warps whose PC, function or age (a new warp)
 * changed since the last call; the order is kept between calls and re-sorted by insertion sort,
 * linear while few warps change place (a warp's distance changes only when it issues), and
 * returned as it was when nothing changed. Allocation-free after construction.
 */
export class PatsPolicy implements WarpSchedulerPolicy {
  readonly name = 'pats';
  /** `order` reads only the warps; what it keeps is a cache (the sorted order is unique). */
  readonly pureOrder = true;
  readonly usesStaticTables = true;
  private readonly size: number;
  /** Last call's order (slots), `count` of them. */
  private readonly kept: Int32Array;
  private count = 0;
  /** Per slot, as seen at the last call: live (1/0), PC, function, age; and the key. */
  private readonly seenLive: Uint8Array;
  private readonly seenPc: Int32Array;
  private readonly seenFn: Int32Array;
  private readonly seenAge: Float64Array;
  private readonly key: Float64Array;
  /** Slots live now but not at the last call (or holding a new warp). */
  private readonly arrived: Int32Array;

  /** @param numSlots warps the scheduler supervises (integer >= 1) */
  constructor(numSlots: number) {
    this.size = numSlots;
    this.kept = new Int32Array(numSlots);
    this.seenLive = new Uint8Array(numSlots);
    this.seenPc = new Int32Array(numSlots).fill(-2);
    this.seenFn = new Int32Array(numSlots).fill(-2);
    this.seenAge = new Float64Array(numSlots).fill(-1);
    this.key = new Float64Array(numSlots);
    this.arrived = new Int32Array(numSlots);
  }

  order(warps: SchedulerWarps, out: Int32Array): number {
    if (warps.size !== this.size) throw new SimulationError(`warp scheduler pats: created for ${this.size} slots, called with ${warps.size}`, { size: this.size, got: warps.size });
    if (out.length < this.size) throw new SimulationError(`warp scheduler pats: order array has ${out.length} entries, needs ${this.size}`, { size: this.size, got: out.length });
    const { active, age } = warps;
    const pcs = warps.pc;
    const fns = warps.fn;
    const key = this.key;
    let changed = false;
    let arrivals = 0;
    for (let s = 0; s < this.size; s++) {
      const live = active[s] === 1 ? 1 : 0;
      const pc = pcs === undefined ? -1 : pcs[s]!;
      const fn = fns === undefined ? -1 : fns[s]!;
      const a = age[s]!;
      const newWarp = a !== this.seenAge[s];
      if (live === this.seenLive[s] && !newWarp && pc === this.seenPc[s] && fn === this.seenFn[s]) continue;
      changed = true;
      if (live === 1 && (this.seenLive[s] === 0 || newWarp)) this.arrived[arrivals++] = s;
      this.seenLive[s] = live;
      this.seenPc[s] = pc;
      this.seenFn[s] = fn;
      this.seenAge[s] = a;
      if (live === 1) key[s] = phaseDistanceOf(warps, s);
    }
    let n = 0;
    if (!changed) {
      for (let i = 0; i < this.count; i++) out[i] = this.kept[i]!;
      return this.count;
    }
    // last call's warps that are still the same live warps, in last call's order, then arrivals
    for (let i = 0; i < this.count; i++) {
      const s = this.kept[i]!;
      if (this.seenLive[s] === 1 && !this.isArrival(s, arrivals)) out[n++] = s;
    }
    for (let i = 0; i < arrivals; i++) out[n++] = this.arrived[i]!;
    // insertion sort by (distance, age, slot)
    for (let i = 1; i < n; i++) {
      const s = out[i]!;
      const ks = key[s]!;
      const as = age[s]!;
      let j = i - 1;
      while (j >= 0) {
        const t = out[j]!;
        const kt = key[t]!;
        if (kt < ks || (kt === ks && (age[t]! < as || (age[t] === as && t < s)))) break;
        out[j + 1] = t;
        j--;
      }
      out[j + 1] = s;
    }
    for (let i = 0; i < n; i++) this.kept[i] = out[i]!;
    this.count = n;
    return n;
  }

  /** Whether slot `s` is among this call's `arrivals` (a few at most: CTA starts). */
  private isArrival(s: number, arrivals: number): boolean {
    for (let i = 0; i < arrivals; i++) if (this.arrived[i] === s) return true;
    return false;
  }

  issued(): void {
    // no history: the distance of the warp's new next instruction orders it next call
  }

  reset(): void {
    this.count = 0;
    this.seenLive.fill(0);
    this.seenAge.fill(-1);
  }
}

/**
 * Two-level PATS: {@link TwoLevelPolicy} with the active queue sorted on arrival by phase length
 * (or distance), whatever `outer` says.
 */
export class PatsTwoLevelPolicy extends TwoLevelPolicy {
  readonly usesStaticTables = true;
  /** Phase figure of the active-queue sort. */
  readonly key: PatsKey;

  /**
   * @param options the {@link TwoLevelPolicy} options plus `key` (`length`, default, or `distance`).
   * @throws InputError for a bad option.
   */
  constructor(options: WarpSchedulerPolicyOptions, where: SourceLocation = PARAMS_LOCATION) {
    super(options, where, 'patsTwoLevel');
    this.key = requireOneOf(options.key ?? 'length', 'warpScheduler.key', ['length', 'distance'] as const, where);
  }

  protected override sortsActiveQueue(): boolean {
    return true;
  }

  protected override activeQueueKey(warps: SchedulerWarps, slot: number): number {
    return this.key === 'length' ? phaseLengthOf(warps, slot) : phaseDistanceOf(warps, slot);
  }
}

registerWarpSchedulerPolicy('pats', (o, where) => new PatsPolicy(requireInt(o.numSlots, 'warpScheduler.numSlots', 1, 1 << 16, where)));
registerWarpSchedulerPolicy('patsTwoLevel', (o, where) => new PatsTwoLevelPolicy(o, where));
