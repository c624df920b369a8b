/**
 * ELF (Earliest Load First) static analysis: per-instruction priority and program points
 * (paper 004, Park, Park and Mahlke, SC'15, §3.1 "Finding Program Points", Algorithms 1 and 2,
 * and §3.2 "Priority Calculator").
 *
 * - The *priority* of an instruction is the number of instructions to the next memory load along
 *   the shortest path (lower = issue first). Loads counted are those that go to memory: `ld`/`ldu`
 *   from global, local or generic space; shared, const and param loads are not (§3.1).
 * - *Program points* are those loads and the branches (backward branches only, as in the paper,
 *   unless `branches: 'all'`). Each has a *score*: 0 for a load; for a branch, the minimum
 *   distance to a load over the taken and fall-through paths (Algorithm 1, lines 10-24). Scores
 *   saturate at `2^scoreBits - 1` (8 bits: 255, §4). Branches whose score is the maximum or equals
 *   the fall-through score are dropped (lines 25-31), then points are merged (Algorithm 2) until at
 *   most `maxProgramPoints` remain (32 slots, §4).
 * - The hardware *priority calculator* (§3.2) recomputes a warp's priority from the program points
 *   only when the warp issues a load program point, or a branch program point whose recalculation
 *   bit matches its outcome (taken / not taken); otherwise the priority is decremented.
 *
 * Where the algorithms leave something open, choices are documented on each function. Notably
 * `getScore` (lines 36-46) walks straight-line code and stops with the maximum score at an
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
}

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
  /** Branch only: the recalculation bit (taken path shorter than the fall-through path). */
  readonly recalcOnTaken: boolean;
}

/** When issuing an instruction triggers the priority calculator (§3.2). */
export const ElfRecalc = {
  /** Never: the priority is decremented. */
  None: 0,
  /** Always: a load program point. */
  Always: 1,
  /** When the branch is taken (recalculation bit set). */
  OnTaken: 2,
  /** When the branch is not taken (recalculation bit clear). */
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
  /** When issuing each instruction triggers the priority calculator. */
  readonly recalc: Uint8Array;
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
 * Runs Algorithms 1 and 2 of paper 004 and the exact priority analysis.
 *
 * @param fn a parsed function.
 * @param options slots, score width, branch selection.
 * @returns program points, recalculation triggers and exact priorities.
 * @throws RangeError for `maxProgramPoints < 1` or `scoreBits` outside 1..16.
 */
export function analyzeElf(fn: Pick<PtxFunction, 'instructions'>, options: ElfOptions = {}): ElfAnalysis {
  const slots = options.maxProgramPoints ?? 32;
  const bits = options.scoreBits ?? 8;
  const mode = options.branches ?? 'backward';
  if (!Number.isInteger(slots) || slots < 1) throw new RangeError(`analyzeElf: maxProgramPoints must be >= 1, got ${slots}`);
  if (!Number.isInteger(bits) || bits < 1 || bits > 16) throw new RangeError(`analyzeElf: scoreBits must be 1..16, got ${bits}`);
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

  // getScore, lines 36-46: walk straight-line code to the next program point.
  const getScore = (start: number): number => {
    let score = 0;
    for (let pc = start; pc < n; pc++) {
      const p = pointAt[pc];
      if (p) return Math.min(score + p.score, maxScore);
      const x = ins[pc]!;
      if ((x.op === Opcode.Ret || x.op === Opcode.Exit) && x.guard < 0) return maxScore;
      score++;
    }
    return maxScore;
  };
  const hasFallThrough = (p: Point): boolean => ins[p.pc]!.guard >= 0;
  const pathScores = (p: Point): { next: number; target: number } => {
    const next = hasFallThrough(p) ? getScore(p.pc + 1) + 1 : Number.POSITIVE_INFINITY;
    const target = getScore(branchTarget(ins[p.pc]!)) + 1;
    return { next, target };
  };

  // lines 10-24: iterate branch scores to a fixed point
  for (let changed = true; changed; ) {
    changed = false;
    for (let i = 0; i < n; i++) {
      const p = pointAt[i];
      if (!p || !p.isBranch) continue;
      const { next, target } = pathScores(p);
      const m = Math.min(next, target);
      if (m < p.score) {
        p.score = m;
        changed = true;
      }
    }
  }
  // lines 25-31: drop meaningless branch points
  for (let i = 0; i < n; i++) {
    const p = pointAt[i];
    if (!p || !p.isBranch) continue;
    const next = getScore(p.pc + 1) + 1;
    if (p.score >= maxScore || p.score === next) pointAt[i] = undefined;
  }
  // recalculation bits (§3.2), from the point set before merging
  for (let i = 0; i < n; i++) {
    const p = pointAt[i];
    if (!p || !p.isBranch) continue;
    const { next, target } = pathScores(p);
    p.recalcOnTaken = target < next;
  }
  const pointsBeforeMerge = pointAt.filter((p) => p !== undefined).length;

  // lines 32-34 with Algorithm 2
  let count = pointsBeforeMerge;
  while (count > slots) {
    mergeOnce(pointAt, getScore, maxScore);
    count--;
  }

  const points: ElfProgramPoint[] = [];
  const recalc = new Uint8Array(n);
  for (const p of pointAt) {
    if (!p) continue;
    points.push({ pc: p.pc, isBranch: p.isBranch, score: p.score, recalcOnTaken: p.recalcOnTaken });
    recalc[p.pc] = p.isBranch ? (p.recalcOnTaken ? ElfRecalc.OnTaken : ElfRecalc.OnNotTaken) : ElfRecalc.Always;
  }
  return {
    maxScore,
    points,
    initialPointCount,
    pointsBeforeMerge,
    priority: elfPriorities(fn, maxScore),
    recalc,
  };
}

/**
 * Algorithm 2 (merging program points), as written: among load points, find the one closest to
 * its previous program point (distance `getScore(prev.next) + 1`, minus the previous point's
 * score when that is a branch, line 11, which also lowers the running minimum); store that
 * distance as the load's score and remove the previous point. If no load qualifies (every load
 * is the first point, or all distances reach the maximum score), the last branch point is dropped
 * (or the last point when there is no branch), a fallback the paper does not need to state.
 */
function mergeOnce(pointAt: (Point | undefined)[], getScore: (pc: number) => number, maxScore: number): void {
  let minDistance = maxScore;
  let memInst: Point | undefined;
  let prevInst: Point | undefined;
  let prev: Point | undefined;
  for (const p of pointAt) {
    if (!p) continue;
    if (!p.isBranch && prev) {
      const curr = getScore(prev.pc + 1) + 1;
      if (curr < minDistance) {
        minDistance = curr;
        memInst = p;
        prevInst = prev;
        if (prev.isBranch) minDistance -= prev.score;
      }
    }
    prev = p;
  }
  if (memInst && prevInst) {
    memInst.score = Math.max(0, Math.min(minDistance, maxScore));
    pointAt[prevInst.pc] = undefined;
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
