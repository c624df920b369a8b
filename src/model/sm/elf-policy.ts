/**
 * ELF, Earliest Load First warp scheduling (paper 004, Park, Park and Mahlke, SC'15, §3 and
 * §3.2; spec `warp-level.md` §2.5 A-C, §2.6, §2.10, resolutions R-E1, R-E2, R-E3, R-E10): the
 * warp-scheduling part only. Coordinated fetch is the fetch policy `warpPriority`
 * (`src/model/sm/fetch-policy.ts`), to which this policy hands its priority through
 * {@link ElfPolicy.fetchPriority}; NewCAR and the L1I prefetcher are other units.
 *
 * The warp priority table (WPT, 004 Fig. 4, Table 3: 8 bits per warp slot) holds each warp's
 * priority, "the number of remaining instructions to the next memory load hence lower value in
 * the priority means higher priority to issue an instruction" (§3). Its values come from the
 * priority calculator, precomputed per PC by the static pass (`src/isa/elf.ts`
 * `elfCalculatorPriority` over the loaded program points, in {@link FunctionAnnotation.calcPriority}):
 *
 * - A (warp start, §3.2): `WPT = calcPriority[startPc]` when the policy first sees a warp.
 * - B (each issue slot, §2.5 B): live warps ordered by WPT ascending; ties (R-E1) greedy then
 *   oldest: the last issued warp first, then by age (dynamic warp id), then slot. A warp at the
 *   saturated priority (`maxScore`, 255: no load reachable within the score range) sorts last
 *   among live warps unless all are saturated.
 * - C (after issuing instruction `I` at `pc`, the next PC known, §3.2 "the priority calculator is
 *   triggered only in two cases: when a memory load operation is issued, or when a branch has
 *   altered the priority"): with `taken = nextFn != fn || nextPc != pc + 1`,
 *   1. `I` is a counted load (`isElfLoad`, merged away or not, R-E2) -> recalculate (`elf_recalc_load`);
 *   2. `I` is a branch whose recalculation code ({@link ElfRecalc}, from the configured rule R-E3,
 *      spec §2.6) holds for this outcome (`Always`, `OnTaken && taken`, `OnNotTaken && !taken`)
 *      -> recalculate (`elf_recalc_branch`);
 *   3. `I` is not a branch and the PC left the fall-through (a SIMT reconvergence pop to the other
 *      side of a divergence, a `call`, a `ret`; R-E10) -> recalculate (`elf_recalc_other`);
 *   4. the rule `'always'` (Fig. 8's naive scheme) marks `I` -> recalculate (`elf_recalc_naive`);
 *   5. otherwise `WPT = elfDecrement(WPT, maxScore)` (§3.2 "it can be decreased by one most of the
 *      time"; saturated stays saturated, never below 0) (`elf_decrements`: recalculations avoided).
 *   A recalculation writes `calcPriority[nextPc]` of the next PC's function. "Priorities of not
 *   issued warps are not changed hence no computation is required" (§3.2). Each instruction of a
 *   dual issue is a separate update. A warp that exited is not updated.
 *
 * Statistics (spec §2.10; per policy instance, summed over the SM's schedulers by the issue
 * stage, {@link PolicyStatisticsSource}): the five counters above, `elf_priority_error` (sum over
 * updates of |WPT - exact priority at the next PC|, the exact priority being the shortest
 * instruction count to a counted load on any path, `FunctionAnnotation.priority`), and the
 * program-point counts of Table 2 / Algorithm 1 (`elf_pp_initial`, `elf_pp_before_merge`,
 * `elf_pp_loaded`) of the function warps start in (the kernel entry), the largest over the
 * kernels the SM ran. Fig. 8's reduction is `1 - recalcs / warp_insts`, recalcs = the four
 * `elf_recalc_*` counters.
 *
 * A warp whose kernel has no tables (an Accel-Sim trace; the trace front end refuses this policy
 * before a run) keeps WPT 0: greedy-then-oldest order.
 *
 * Cost: `order` re-sorts (insertion sort over a kept permutation of the slots, linear when nearly
 * sorted) only after an issue or a warp arrival/exit, and otherwise copies the kept order;
 * nothing allocates after construction.
 */
import type { SourceLocation } from '../../errors.ts';
import { SimulationError } from '../../errors.ts';
import { CtrlClass, type FunctionAnnotation } from '../../isa/annotations.ts';
import { ElfRecalc, elfDecrement, type ElfRecalcRule } from '../../isa/elf.ts';
import type { PolicyStatistic, PolicyStatisticsSource } from './policy-stats.ts';
import { PARAMS_LOCATION, requireInt, requireOneOf } from './validate.ts';
import { registerWarpSchedulerPolicy, type IssueEvent, type SchedulerWarps, type WarpSchedulerPolicy, type WarpSchedulerPolicyOptions } from './warp-scheduler.ts';

/** ELF parameters of the policy config (spec §2.7; they drive the static pass through `staticAnalysisOptions`). */
export interface ElfPolicyOptions {
  /** Program-point slots of the priority calculator (004 §4: 32; Fig. 9(a) sweeps 16, 32, 48, infinite: use 65536). */
  readonly programPoints: number;
  /** Bits of the score field and of a WPT entry (004 §4: 8, so priorities saturate at 255). */
  readonly scoreBits: number;
  /** Which branches are program points (004 §3.1: backward only). */
  readonly branches: 'backward' | 'all';
  /** When a branch recalculates the priority (spec §2.6, R-E3; default `'consistent'`). */
  readonly recalcRule: ElfRecalcRule;
}

/** Defaults of {@link ElfPolicyOptions} (004 §4, §3.1; spec §2.6, §2.7). */
export const ELF_POLICY_DEFAULTS: ElfPolicyOptions = Object.freeze({ programPoints: 32, scoreBits: 8, branches: 'backward', recalcRule: 'consistent' });

/**
 * Reads and checks the ELF options of a warp scheduler config (absent fields take
 * {@link ELF_POLICY_DEFAULTS}).
 *
 * @throws InputError naming the field for a value out of range (programPoints 1..65536, scoreBits
 *   1..16, branches `backward`/`all`, recalcRule `consistent`/`literal`/`always`).
 */
export function elfPolicyOptions(o: Readonly<Record<string, unknown>>, where: SourceLocation = PARAMS_LOCATION): ElfPolicyOptions {
  const d = ELF_POLICY_DEFAULTS;
  return {
    programPoints: requireInt(o.programPoints ?? d.programPoints, 'warpScheduler.programPoints', 1, 65536, where),
    scoreBits: requireInt(o.scoreBits ?? d.scoreBits, 'warpScheduler.scoreBits', 1, 16, where),
    branches: requireOneOf(o.branches ?? d.branches, 'warpScheduler.branches', ['backward', 'all'] as const, where),
    recalcRule: requireOneOf(o.recalcRule ?? d.recalcRule, 'warpScheduler.recalcRule', ['consistent', 'literal', 'always'] as const, where),
  };
}

/** Indices of {@link ELF_STATISTICS}. */
export const ElfStat = {
  RecalcLoad: 0,
  RecalcBranch: 1,
  RecalcOther: 2,
  RecalcNaive: 3,
  Decrements: 4,
  PriorityError: 5,
  PointsInitial: 6,
  PointsBeforeMerge: 7,
  PointsLoaded: 8,
} as const;

/** The statistics of the `elf` policy (spec §2.10), in {@link ElfStat} order. */
export const ELF_STATISTICS: readonly PolicyStatistic[] = Object.freeze([
  { name: 'elf_recalc_load', unit: 'count', combine: 'sum', description: 'WPT recalculations after issuing a counted memory load (004 §3.2, spec R-E2)' },
  { name: 'elf_recalc_branch', unit: 'count', combine: 'sum', description: "WPT recalculations after a branch whose recalculation code held for its outcome (004 §3.2 recalculation bit, spec §2.6 rule)" },
  { name: 'elf_recalc_other', unit: 'count', combine: 'sum', description: 'WPT recalculations after a non-branch instruction that left the fall-through: SIMT reconvergence pop, call, return (spec R-E10)' },
  { name: 'elf_recalc_naive', unit: 'count', combine: 'sum', description: "WPT recalculations the 'always' rule adds on other instructions (004 Fig. 8 naive scheme)" },
  { name: 'elf_decrements', unit: 'count', combine: 'sum', description: 'WPT updates by decrement, i.e. recalculations avoided (004 §3.2, Fig. 8)' },
  { name: 'elf_priority_error', unit: 'instructions', combine: 'sum', description: 'sum over WPT updates of |WPT - exact distance to the next counted load| (spec §2.6)' },
  { name: 'elf_pp_initial', unit: 'points', combine: 'max', description: 'program points found by Algorithm 1 l.1-9 in the kernel entry function (largest over the kernels run)' },
  { name: 'elf_pp_before_merge', unit: 'points', combine: 'max', description: 'program points before merging, 004 Table 2 "PP" (kernel entry function; largest over the kernels run)' },
  { name: 'elf_pp_loaded', unit: 'points', combine: 'max', description: 'program points loaded into the priority calculator (<= slots; kernel entry function; largest over the kernels run)' },
] as const);

/** Calculator priority of `pc` in function `fn` of `tables` (0 without a table entry). */
function calcAt(tables: readonly FunctionAnnotation[] | null | undefined, fn: number, pc: number): number {
  if (tables == null || fn < 0) return 0;
  const t = tables[fn];
  return t !== undefined && pc >= 0 && pc < t.instructionCount ? t.calcPriority[pc]! : 0;
}

/**
 * The `elf` warp scheduler policy (see the module comment). Exposes its WPT for tests and traces.
 */
export class ElfPolicy implements WarpSchedulerPolicy, PolicyStatisticsSource {
  readonly name = 'elf';
  /** `order` reads the WPT and `warps`; what it keeps is a cache of a unique sorted order. */
  readonly pureOrder = true;
  readonly usesStaticTables = true;
  readonly statistics = ELF_STATISTICS;
  /** The options the policy was configured with (the static pass applies them). */
  readonly options: ElfPolicyOptions;
  /** Warp priority table: per slot, instructions to the next load (0..maxScore). */
  readonly wpt: Int32Array;
  private readonly size: number;
  /** Permutation of all slots, kept sorted (live first, by WPT, greedy, age, slot). */
  private readonly perm: Int32Array;
  private readonly seenLive: Uint8Array;
  private readonly seenAge: Float64Array;
  private dirty = true;
  private greedySlot = -1;
  private greedyAge = 0;
  private readonly counters = new Float64Array(ELF_STATISTICS.length);

  /**
   * @param numSlots warps the scheduler supervises (integer >= 1).
   * @param options ELF options ({@link elfPolicyOptions}); defaults {@link ELF_POLICY_DEFAULTS}.
   */
  constructor(numSlots: number, options: ElfPolicyOptions = ELF_POLICY_DEFAULTS) {
    this.size = numSlots;
    this.options = options;
    this.wpt = new Int32Array(numSlots);
    this.perm = Int32Array.from({ length: numSlots }, (_, i) => i);
    this.seenLive = new Uint8Array(numSlots);
    this.seenAge = new Float64Array(numSlots).fill(-1);
  }

  /** Current value of statistic `index` ({@link ElfStat}). */
  statisticValue(index: number): number {
    return this.counters[index] ?? 0;
  }

  /** A new warp in `slot` (its age changed) at `pc` of `fn`: 004 §3.2, WPT = calc(PC start). */
  private start(warps: SchedulerWarps, slot: number, pc: number, fn: number): void {
    this.seenAge[slot] = warps.age[slot]!;
    const tables = warps.tables?.[slot];
    this.wpt[slot] = calcAt(tables, fn, pc);
    this.dirty = true;
    const t = tables != null && fn >= 0 ? tables[fn] : undefined;
    if (t !== undefined) {
      const c = this.counters;
      if (t.elfInitialPoints > c[ElfStat.PointsInitial]!) c[ElfStat.PointsInitial] = t.elfInitialPoints;
      if (t.elfPointsBeforeMerge > c[ElfStat.PointsBeforeMerge]!) c[ElfStat.PointsBeforeMerge] = t.elfPointsBeforeMerge;
      if (t.pointCount > c[ElfStat.PointsLoaded]!) c[ElfStat.PointsLoaded] = t.pointCount;
    }
  }

  /** Notices arrivals (new ages) and exits of live warps since the last look. */
  private sync(warps: SchedulerWarps): void {
    const { active, age } = warps;
    const pcs = warps.pc;
    const fns = warps.fn;
    for (let s = 0; s < this.size; s++) {
      const live = active[s] === 1 ? 1 : 0;
      if (live !== this.seenLive[s]) {
        this.seenLive[s] = live;
        this.dirty = true;
      }
      if (live === 1 && age[s] !== this.seenAge[s]) this.start(warps, s, pcs === undefined ? -1 : pcs[s]!, fns === undefined ? -1 : fns[s]!);
    }
  }

  /** Whether slot `a` comes before slot `b` (both distinct). `g`: the valid greedy slot or -1. */
  private before(warps: SchedulerWarps, a: number, b: number, g: number): boolean {
    const la = warps.active[a] === 1;
    const lb = warps.active[b] === 1;
    if (la !== lb) return la;
    if (!la) return a < b;
    const ka = this.wpt[a]!;
    const kb = this.wpt[b]!;
    if (ka !== kb) return ka < kb;
    if (a === g) return true;
    if (b === g) return false;
    const x = warps.age[a]!;
    const y = warps.age[b]!;
    return x < y || (x === y && a < b);
  }

  order(warps: SchedulerWarps, out: Int32Array): number {
    if (warps.size !== this.size) throw new SimulationError(`warp scheduler elf: created for ${this.size} slots, called with ${warps.size}`, { size: this.size, got: warps.size });
    if (out.length < this.size) throw new SimulationError(`warp scheduler elf: order array has ${out.length} entries, needs ${this.size}`, { size: this.size, got: out.length });
    this.sync(warps);
    const perm = this.perm;
    if (this.dirty) {
      this.dirty = false;
      let g = this.greedySlot;
      if (g >= 0 && (warps.active[g] !== 1 || warps.age[g] !== this.greedyAge)) g = -1;
      for (let i = 1; i < this.size; i++) {
        const s = perm[i]!;
        let j = i - 1;
        while (j >= 0 && this.before(warps, s, perm[j]!, g)) {
          perm[j + 1] = perm[j]!;
          j--;
        }
        perm[j + 1] = s;
      }
    }
    let n = 0;
    const active = warps.active;
    for (let i = 0; i < this.size; i++) {
      const s = perm[i]!;
      if (active[s] !== 1) break; // live slots come first
      out[n++] = s;
    }
    return n;
  }

  issued(warps: SchedulerWarps, slot: number, _longLatency: boolean, event?: IssueEvent): void {
    const age = warps.age[slot]!;
    if (age !== this.seenAge[slot]) this.start(warps, slot, event !== undefined ? event.pc : (warps.pc?.[slot] ?? -1), event !== undefined ? event.functionIndex : (warps.fn?.[slot] ?? -1));
    this.greedySlot = slot;
    this.greedyAge = age;
    this.dirty = true;
    const tables = warps.tables?.[slot];
    if (tables == null) return;
    const c = this.counters;
    if (event === undefined) {
      // no functional model: the outcome is unknown; the calculator at the warp's new PC
      const pc = warps.pc?.[slot] ?? -1;
      if (pc < 0) return;
      this.wpt[slot] = calcAt(tables, warps.fn?.[slot] ?? -1, pc);
      c[ElfStat.RecalcOther]!++;
      return;
    }
    if (event.exited || event.nextPc < 0) return;
    const pc = event.pc;
    const fn = event.functionIndex;
    const t = fn >= 0 ? tables[fn] : undefined;
    if (t === undefined || pc < 0 || pc >= t.instructionCount) return;
    const nextPc = event.nextPc;
    const nextFn = event.nextFunctionIndex;
    const taken = nextFn !== fn || nextPc !== pc + 1;
    const code = t.recalc[pc]!;
    let cause = -1;
    if (t.isElfLoad[pc] === 1) cause = ElfStat.RecalcLoad;
    else if (t.ctrlClass[pc] === CtrlClass.Branch) {
      if (code === ElfRecalc.Always || (code === ElfRecalc.OnTaken && taken) || (code === ElfRecalc.OnNotTaken && !taken)) cause = ElfStat.RecalcBranch;
    } else if (taken) cause = ElfStat.RecalcOther;
    else if (code === ElfRecalc.Always) cause = ElfStat.RecalcNaive;
    let w: number;
    if (cause >= 0) {
      w = calcAt(tables, nextFn, nextPc);
      c[cause]!++;
    } else {
      w = elfDecrement(this.wpt[slot]!, t.maxScore);
      c[ElfStat.Decrements]!++;
    }
    this.wpt[slot] = w;
    const nt = nextFn >= 0 ? tables[nextFn] : undefined;
    if (nt !== undefined && nextPc < nt.instructionCount) {
      const e = w - nt.priority[nextPc]!;
      c[ElfStat.PriorityError]! += e < 0 ? -e : e;
    }
  }

  /**
   * The warp's WPT (instructions to its next load), stamped on its fetch requests: the
   * `warpPriority` fetch policy then fetches in ELF's issue order (004 §3.3; the interleave of
   * the schedulers' orders, spec §2.5 D, is the fetch policy's).
   */
  fetchPriority(warps: SchedulerWarps, slot: number): number {
    if (warps.active[slot] === 1 && warps.age[slot] !== this.seenAge[slot]) this.start(warps, slot, warps.pc?.[slot] ?? -1, warps.fn?.[slot] ?? -1);
    return this.wpt[slot]!;
  }

  /** Forgets the WPT and the order (the statistics accumulate over the run). */
  reset(): void {
    this.wpt.fill(0);
    this.seenLive.fill(0);
    this.seenAge.fill(-1);
    for (let i = 0; i < this.size; i++) this.perm[i] = i;
    this.greedySlot = -1;
    this.dirty = true;
  }
}

registerWarpSchedulerPolicy('elf', (o: WarpSchedulerPolicyOptions, where) => new ElfPolicy(requireInt(o.numSlots, 'warpScheduler.numSlots', 1, 1 << 16, where), elfPolicyOptions(o, where)));
