/**
 * ELF (Earliest Load First) static analysis: per-instruction priority and program points
 * (paper 004, Park, Park and Mahlke, SC'15, §3.1 "Finding Program Points", Algorithms 1 and 2,
 * and §3.2 "Priority Calculator"; spec `warp-level.md` §2.2-§2.7, resolutions R-E2, R-E3).
 *
 * - The *priority* of an instruction is the number of instructions to the next memory load along
 *   the shortest path (lower = issue first). Loads counted are those that go to memory: `ld`/`ldu`
 *   from global, local or generic space; shared, const and param loads are not (§3.1).
 * - *Program points* are those loads and the branches (backward branches only, as in the paper,
 *   unless `branches: 'all'`). Each has a *score*: 0 for a load; for a branch, the minimum
 *   distance to a load over the taken and fall-through paths (Algorithm 1, lines 10-24). Scores
 *   saturate at `2^scoreBits - 1` (8 bits: 255, §4). Branches whose score is the maximum or equals
 *   the fall-through score are dropped (lines 25-31), then points are merged (Algorithm 2) until at
 *   most `maxProgramPoints` remain (lines 32-34; 32 slots, §4).
 * - The hardware *priority calculator* (§3.2, {@link elfCalculatorPriority}) recomputes a warp's
 *   priority from the program points only when the warp issues an instruction whose
 *   *recalculation code* ({@link ElfRecalc}) says so; otherwise the priority is decremented
 *   ({@link elfDecrement}). Every counted load recalculates (§3.2 "when a memory load operation is
 *   issued", R-E2). For branches, §3.2's recalculation-bit sentence contradicts the calculator
 *   (spec §2.6, R-E3), so the rule is an option ({@link ElfRecalcRule}): `'consistent'` (default),
 *   `'literal'` (the sentence as written) or `'always'` (the naive scheme of Fig. 8).
 *
 * Where the algorithms leave something open, choices are documented on each function. Notably
 * `getScore` (lines 36-46) walks straight-line code in PC order (as the listing does: `nextInst`
 * is the next instruction, not the executed successor) and stops with the maximum score at an
 * unguarded `ret`/`exit` (nothing after it runs), and an unguarded branch has no fall-through path.
 */
import { Opcode, StateSpace } from './ir.ts';
import type { Instruction, PtxFunction } from './ir.ts';
import { branchTarget, instructionSuccessors } from './cfg.ts';

/** Options of {@link analyzeElf}. */
export interface ElfOptions {
  /** Program point slots in the hardware (paper §4: 32). */
  readonly maxProgramPoints?: number;
  /** Bits of the score field (paper §4: 8, so scores saturate at 255). */
  readonly scoreBits?: number;
  /** Which branches are program points: `'backward'` (the paper's choice) or `'all'`. */
  readonly branches?: 'backward' | 'all';
  /** When a branch recalculates the priority (R-E3, spec §2.6); default `'consistent'`. */
  readonly recalcRule?: ElfRecalcRule;
}

/**
 * Which branch outcomes trigger the priority calculator (spec §2.6, R-E3):
 * - `'consistent'` (default): a branch recalculates exactly on the outcomes after which the
 *   decremented priority ({@link elfDecrement} of the calculator's value at the branch) differs
 *   from the calculator's value at the instruction the warp goes to. Without merging this is: a
 *   surviving branch program point when *not taken* (the calculator assumed its minimum path, which
 *   Algorithm 1 lines 25-31 guarantee is the taken path), and a branch that is not a program point
 *   when *taken* to a target whose calculated priority differs from the fall-through's (the
 *   calculator assumed the fall-through: the next point in PC order).
 * - `'literal'`: 004 §3.2 as written: every branch carries a recalculation bit, set "when the taken
 *   path has fewer remaining instructions to the next program point than the fall-through path"
 *   (path scores `getScore(target) + 1` vs `getScore(next) + 1` of Algorithm 1, before merging);
 *   bit set: recalculate when taken; bit clear: recalculate when not taken.
 * - `'always'`: every issued instruction recalculates (the naive scheme Fig. 8 compares with).
 */
export type ElfRecalcRule = 'consistent' | 'literal' | 'always';

/** One program point slot (paper 004 Fig. 4: valid, branch bit, PC, score). */
export interface ElfProgramPoint {
  /** Instruction index. */
  readonly pc: number;
  /** True for a branch point, false for a load point. */
  readonly isBranch: boolean;
  /**
   * Branch: minimum distance (instructions, the branch included) to a load after it. Load: 0, or
   * after merging the distance recorded by Algorithm 2 line 16.
   */
  readonly score: number;
  /**
   * Branch only: the literal recalculation bit of §3.2 (taken path shorter than the fall-through
   * path, path scores of Algorithm 1 before merging), whatever {@link ElfOptions.recalcRule} is.
   */
  readonly recalcOnTaken: boolean;
}

/**
 * When issuing an instruction triggers the priority calculator (§3.2), one code per instruction
 * ({@link ElfAnalysis.recalc}); on every other issue the priority is decremented
 * ({@link elfDecrement}).
 */
export const ElfRecalc = {
  /** Never: the priority is decremented. */
  None: 0,
  /**
   * On every issue: every counted load (R-E2, merged away or not); a branch both of whose
   * outcomes need it (`'consistent'`); every instruction under `'always'`.
   */
  Always: 1,
  /** When the branch is taken. */
  OnTaken: 2,
  /** When the branch is not taken (falls through). */
  OnNotTaken: 3,
} as const;
/** An {@link ElfRecalc} code. */
export type ElfRecalc = (typeof ElfRecalc)[keyof typeof ElfRecalc];

/** Result of {@link analyzeElf}. */
export interface ElfAnalysis {
  /** Saturation value of scores and priorities (`2^scoreBits - 1`). */
  readonly maxScore: number;
  /** Final program points, ordered by PC (at most `maxProgramPoints`). */
  readonly points: readonly ElfProgramPoint[];
  /** Loads and (selected) branches found by Algorithm 1 lines 1-9. */
  readonly initialPointCount: number;
  /** Points left after removing meaningless branches, before merging (paper Table 2 "PP"). */
  readonly pointsBeforeMerge: number;
  /** Exact priority of every instruction: shortest instruction count to a load, saturated at `maxScore`. */
  readonly priority: Int32Array;
  /**
   * The hardware calculator's priority at every instruction ({@link elfCalculatorPriority} over
   * {@link points}), in instructions, 0..maxScore: what a recalculation writes to the WPT when
   * the warp's next instruction is that PC.
   */
  readonly calcPriority: Int32Array;
  /** When issuing each instruction triggers the priority calculator ({@link ElfRecalc} codes). */
  readonly recalc: Uint8Array;
  /** The branch rule `recalc` was computed with. */
  readonly recalcRule: ElfRecalcRule;
}

/**
 * The warp priority table's update when an issue does not trigger the calculator (004 §3.2:
 * "it can be decreased by one most of the time"; spec §2.5 C): `max(0, prio - 1)`, except that a
 * saturated priority stays saturated. `maxScore` stands for "no load within maxScore instructions"
 * (spec §2.12: the WPT "saturates at 255"; such a warp sorts last), so decrementing it would claim
 * a distance the table does not know. The `'consistent'` rule ({@link ElfRecalcRule}) assumes
 * exactly this update; a policy must use it.
 *
 * @param prio the warp's current priority (0..maxScore).
 * @param maxScore the saturation value ({@link ElfAnalysis.maxScore}).
 */
export function elfDecrement(prio: number, maxScore: number): number {
  return prio >= maxScore ? maxScore : prio > 0 ? prio - 1 : 0;
}

/** Whether `ins` is a memory load ELF counts (global, local or generic `ld`/`ldu`; paper 004 §3.1). */
export function isElfLoad(ins: Pick<Instruction, 'op' | 'space'>): boolean {
  return (
    (ins.op === Opcode.Ld || ins.op === Opcode.Ldu) &&
    (ins.space === StateSpace.Global || ins.space === StateSpace.Local || ins.space === StateSpace.Generic)
  );
}

/**
 * Exact per-instruction priority: the fewest instructions from each instruction to a load
 * ({@link isElfLoad}) along any path (0 at a load), saturated at `maxScore`; `maxScore` when no
 * load is reachable. Computed by a breadth-first search backwards from every load over the
 * instruction-level CFG.
 */
export function elfPriorities(fn: Pick<PtxFunction, 'instructions'>, maxScore = 255): Int32Array {
  const ins = fn.instructions;
  const n = ins.length;
  const preds: number[][] = Array.from({ length: n }, () => []);
  for (let i = 0; i < n; i++) {
    for (const s of instructionSuccessors(ins, i)) if (s < n) preds[s]!.push(i);
  }
  const dist = new Int32Array(n).fill(-1);
  const queue: number[] = [];
  for (let i = 0; i < n; i++) {
    if (isElfLoad(ins[i]!)) {
      dist[i] = 0;
      queue.push(i);
    }
  }
  for (let q = 0; q < queue.length; q++) {
    const v = queue[q]!;
    for (const p of preds[v]!) {
      if (dist[p]! < 0) {
        dist[p] = dist[v]! + 1;
        queue.push(p);
      }
    }
  }
  for (let i = 0; i < n; i++) dist[i] = dist[i]! < 0 ? maxScore : Math.min(dist[i]!, maxScore);
  return dist;
}

interface Point {
  pc: number;
  isBranch: boolean;
  score: number;
  recalcOnTaken: boolean;
}

function isBranchPoint(ins: Instruction, i: number, mode: 'backward' | 'all'): boolean {
  return ins.op === Opcode.Bra && (mode === 'all' || branchTarget(ins) <= i);
}

/**
 * Runs Algorithms 1 and 2 of paper 004, the recalculation codes (§3.2, R-E3) and the exact
 * priority analysis.
 *
 * Algorithm 1 ("Finding Program Points"), line by line:
 * - l.1-9: every counted load ({@link isElfLoad}) becomes a point with score 0 (l.2-4); every
 *   branch (`bra`; backward only unless `branches: 'all'`, §3.1) a point with score MaxScore
 *   (l.5-7). MaxScore = `2^scoreBits - 1`.
 * - l.10-24: repeat until nothing changes: for each branch point in PC order, `nextScore =
 *   getScore(next) + 1` (l.15), `targetScore = getScore(target) + 1` (l.16), and the score becomes
 *   `min(nextScore, targetScore)` if that is lower (l.17-21). Scores are updated in place, so later
 *   branches of the same sweep see them, as in the listing. Choice: an unguarded `bra` has no
 *   fall-through path (its `nextScore` is +infinity).
 * - l.25-31: in PC order, a branch point is removed if its score is MaxScore or equals
 *   `getScore(next) + 1` (l.27); removals are in place, so later tests see them.
 * - l.32-34: while more points than `maxProgramPoints`, merge once (Algorithm 2, see
 *   {@link mergeOnce}).
 * - `getScore` (l.36-46): from an instruction, walk the next instructions in PC order counting
 *   them (l.43-44); at the first program point return `min(count + point.score, MaxScore)`
 *   (l.39-41); past the last instruction return MaxScore (l.46). Choice: an unguarded `ret`/`exit`
 *   also returns MaxScore (nothing after it runs: the kernel's "end" of l.38 for that path).
 *
 * Recalculation codes (not part of the listings): the literal bit of §3.2 is computed for every
 * branch from the path scores after l.25-31 and before merging; the `'consistent'` rule from the
 * calculator over the final points (see {@link ElfRecalcRule}). Every counted load gets
 * {@link ElfRecalc.Always} (R-E2).
 *
 * @param fn a parsed function (`instructions`: `op`, `space`, `guard`, branch targets).
 * @param options slots, score width, branch selection, recalculation rule.
 * @returns program points (PC order), recalculation codes, calculator and exact priorities
 *   (instructions).
 * @throws RangeError for `maxProgramPoints < 1`, `scoreBits` outside 1..16, or an unknown
 *   `recalcRule`.
 */
export function analyzeElf(fn: Pick<PtxFunction, 'instructions'>, options: ElfOptions = {}): ElfAnalysis {
  const slots = options.maxProgramPoints ?? 32;
  const bits = options.scoreBits ?? 8;
  const mode = options.branches ?? 'backward';
  const rule = options.recalcRule ?? 'consistent';
  if (!Number.isInteger(slots) || slots < 1) throw new RangeError(`analyzeElf: maxProgramPoints must be >= 1, got ${slots}`);
  if (!Number.isInteger(bits) || bits < 1 || bits > 16) throw new RangeError(`analyzeElf: scoreBits must be 1..16, got ${bits}`);
  if (rule !== 'consistent' && rule !== 'literal' && rule !== 'always') throw new RangeError(`analyzeElf: recalcRule must be 'consistent', 'literal' or 'always', got ${String(rule)}`);
  const maxScore = (1 << bits) - 1;
  const ins = fn.instructions;
  const n = ins.length;

  // Algorithm 1, lines 1-9
  const pointAt = new Array<Point | undefined>(n).fill(undefined);
  for (let i = 0; i < n; i++) {
    const x = ins[i]!;
    if (isElfLoad(x)) pointAt[i] = { pc: i, isBranch: false, score: 0, recalcOnTaken: false };
    else if (isBranchPoint(x, i, mode)) pointAt[i] = { pc: i, isBranch: true, score: maxScore, recalcOnTaken: false };
  }
  const initialPointCount = pointAt.filter((p) => p !== undefined).length;

  // getScore, lines 36-46: walk straight-line code (PC order) to the next program point.
  const getScore = (start: number): number => {
    let score = 0; // l.37
    for (let pc = start; pc < n; pc++) {
      const p = pointAt[pc];
      if (p) return Math.min(score + p.score, maxScore); // l.39-41
      const x = ins[pc]!;
      if ((x.op === Opcode.Ret || x.op === Opcode.Exit) && x.guard < 0) return maxScore; // choice: path ends
      score++; // l.43-44
    }
    return maxScore; // l.46
  };
  const hasFallThrough = (pc: number): boolean => ins[pc]!.guard >= 0;
  // l.15-16 path scores of a branch (also used for the literal recalculation bit)
  const nextScoreOf = (pc: number): number => (hasFallThrough(pc) ? getScore(pc + 1) + 1 : Number.POSITIVE_INFINITY);
  const targetScoreOf = (pc: number): number => getScore(branchTarget(ins[pc]!)) + 1;

  // lines 10-24: iterate branch scores to a fixed point
  for (let changed = true; changed; ) {
    changed = false; // l.12
    for (let i = 0; i < n; i++) {
      const p = pointAt[i];
      if (!p || !p.isBranch) continue; // l.13-14
      const m = Math.min(nextScoreOf(i), targetScoreOf(i)); // l.15-17
      if (m < p.score) {
        p.score = m; // l.18-20
        changed = true;
      }
    }
  }
  // lines 25-31: drop meaningless branch points
  for (let i = 0; i < n; i++) {
    const p = pointAt[i];
    if (!p || !p.isBranch) continue;
    if (p.score >= maxScore || p.score === getScore(p.pc + 1) + 1) pointAt[i] = undefined; // l.27-28
  }
  // §3.2 literal recalculation bit of every branch, from the point set before merging
  const literalBit = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    if (ins[i]!.op !== Opcode.Bra) continue;
    literalBit[i] = targetScoreOf(i) < nextScoreOf(i) ? 1 : 0;
    const p = pointAt[i];
    if (p) p.recalcOnTaken = literalBit[i] === 1;
  }
  const pointsBeforeMerge = pointAt.filter((p) => p !== undefined).length;

  // lines 32-34 with Algorithm 2
  let count = pointsBeforeMerge;
  while (count > slots) {
    mergeOnce(pointAt, getScore, maxScore);
    count--;
  }

  const points: ElfProgramPoint[] = [];
  for (const p of pointAt) {
    if (p) points.push({ pc: p.pc, isBranch: p.isBranch, score: p.score, recalcOnTaken: p.recalcOnTaken });
  }
  const calcPriority = new Int32Array(n);
  for (let pc = 0; pc < n; pc++) calcPriority[pc] = elfCalculatorPriority(points, pc, maxScore);

  const recalc = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const x = ins[i]!;
    if (rule === 'always' || isElfLoad(x)) {
      recalc[i] = ElfRecalc.Always;
      continue;
    }
    if (x.op !== Opcode.Bra) continue;
    if (rule === 'literal') {
      recalc[i] = literalBit[i] ? ElfRecalc.OnTaken : ElfRecalc.OnNotTaken;
      continue;
    }
    // 'consistent': compare the decremented priority with the calculator where the warp goes
    const dec = elfDecrement(calcPriority[i]!, maxScore);
    const target = branchTarget(x);
    // a successor past the last instruction is the exit: the warp is done, nothing to recalculate
    const takenWrong = target < n && calcPriority[target] !== dec;
    const fallWrong = hasFallThrough(i) && i + 1 < n && calcPriority[i + 1] !== dec;
    recalc[i] = takenWrong && fallWrong ? ElfRecalc.Always : takenWrong ? ElfRecalc.OnTaken : fallWrong ? ElfRecalc.OnNotTaken : ElfRecalc.None;
  }
  return {
    maxScore,
    points,
    initialPointCount,
    pointsBeforeMerge,
    priority: elfPriorities(fn, maxScore),
    calcPriority,
    recalc,
    recalcRule: rule,
  };
}

/**
 * Algorithm 2 ("Merging Program Points"), as written, line by line:
 * - l.1: `minDistance = MaxScore`.
 * - l.2-4: for each *load* point in PC order, take its previous program point (load or branch).
 *   The first point has none and is skipped (the listing does not say; nothing precedes it).
 * - l.5: `currDistance = getScore(prev.next) + 1`, i.e. the instruction distance from the previous
 *   point to this load plus this load's current score (non-zero if it already absorbed a point).
 * - l.6-9: if `currDistance < minDistance` (strict: the first such pair in PC order wins ties),
 *   remember it: `minDistance = currDistance`, the load and its previous point.
 * - l.10-12: if that previous point is a branch, `minDistance -= prev.score`. As written, this
 *   lowers the running minimum itself, so later candidates are compared with the reduced value.
 * - l.16: the chosen load's score becomes `minDistance` (kept within 0..MaxScore).
 * - l.17: the previous point is removed.
 * Fallback the paper does not need to state: if no load qualifies (every load is the first point,
 * or every distance reaches MaxScore), the last branch point is dropped, or the last point when
 * there is no branch, so that lines 32-34 terminate.
 */
function mergeOnce(pointAt: (Point | undefined)[], getScore: (pc: number) => number, maxScore: number): void {
  let minDistance = maxScore; // l.1
  let memInst: Point | undefined;
  let prevInst: Point | undefined;
  let prev: Point | undefined;
  for (const p of pointAt) {
    if (!p) continue;
    if (!p.isBranch && prev) {
      // l.3-4
      const curr = getScore(prev.pc + 1) + 1; // l.5
      if (curr < minDistance) {
        // l.6-9
        minDistance = curr;
        memInst = p;
        prevInst = prev;
        if (prev.isBranch) minDistance -= prev.score; // l.10-12
      }
    }
    prev = p;
  }
  if (memInst && prevInst) {
    memInst.score = Math.max(0, Math.min(minDistance, maxScore)); // l.16
    pointAt[prevInst.pc] = undefined; // l.17
    return;
  }
  let victim: Point | undefined;
  let lastAny: Point | undefined;
  for (const p of pointAt) {
    if (!p) continue;
    lastAny = p;
    if (p.isBranch) victim = p;
  }
  const drop = victim ?? lastAny;
  if (drop) pointAt[drop.pc] = undefined;
}

/**
 * The hardware priority calculator (paper 004 §3.2): the priority of a warp at `pc` from the
 * program points alone. The closest point at or after `pc` (points are ordered by PC, so a
 * priority encoder picks it) gives the distance: for a branch point, the distance to the branch
 * plus its score; for a load point, the distance to the load, minus the load's score when that is
 * larger than the score (a merged point, §3.2). Saturates at `maxScore`; `maxScore` when no point
 * follows.
 *
 * @param points program points ordered by PC (as {@link analyzeElf} returns them).
 * @param pc the instruction index the warp will issue next.
 * @param maxScore saturation value.
 */
export function elfCalculatorPriority(points: readonly ElfProgramPoint[], pc: number, maxScore: number): number {
  let lo = 0;
  let hi = points.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (points[mid]!.pc < pc) lo = mid + 1;
    else hi = mid;
  }
  if (lo >= points.length) return maxScore;
  const p = points[lo]!;
  const d = p.pc - pc;
  let prio: number;
  if (p.isBranch) prio = d + p.score;
  else prio = p.score > 0 && d > p.score ? d - p.score : d;
  return Math.min(prio, maxScore);
}
