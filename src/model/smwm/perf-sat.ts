/**
 * Perf-Sat arithmetic (000 §4.3.2; `../specs/cta-kernel-level.md` §2): the stalled-cycle count
 * of a sample, the comparison, the initial and conservative CTA counts and the sample period.
 * Pure functions, no XState: the statechart that uses them is
 * `machines/sm-work-manager/perf-sat.ts`.
 */
import { z } from 'zod';

/**
 * Parameters of the Perf-Sat CTA scheduler (spec §2.3, §10 `policies.ctaScheduler =
 * {kind: 'perfSat', toggleLimit, initial}`), the config object minus `kind`.
 * - `toggleLimit`: detection ends when the machine toggles *more than* this many times within a
 *   phase (000 §4.3.2.2: "if the state machine toggles more than three times"; default 3).
 * - `initial`: `'half'` = ⌈nMax/2⌉ (000 §4.3.2.1, the paper's only choice), or a CTA count
 *   (clamped to [1, nMax − 1] so that phase 2 can try one more).
 */
export const perfSatParams = z.strictObject({
  toggleLimit: z.int().min(0).max(64).default(3).describe('detection stops after more than this many toggles within a phase (count; 000 §4.3.2.2: 3)'),
  initial: z.union([z.literal('half'), z.int().min(1)]).default('half').describe("initial CTA limit: 'half' = ceil(nMax/2) (000 §4.3.2.1) or a count (CTAs)"),
});

/** Validated Perf-Sat parameters. */
export type PerfSatParams = z.infer<typeof perfSatParams>;

/**
 * Scheduler-cycles of one sample window that Perf-Sat reads (spec §1.3 `sm.sample` fields),
 * summed over the SM's warp schedulers.
 */
export interface PerfSatSampleCounts {
  /** Scheduler-cycles in state 2 (a warp has an instruction, none ready: scoreboard), 000 §3.5.3. */
  readonly notReady: number;
  /** Scheduler-cycles in state 3 (a ready warp blocked by a busy pipeline), 000 §3.5.3. */
  readonly pipelineStall: number;
}

/**
 * The stalled-cycle count S of a sample: scoreboard plus pipeline stalls (000 §4.3.2.1: "N+1
 * active blocks are a better choice, if the sum of the pipeline and scoreboarding stalls is
 * lower than at N active blocks. We refer to this sum as the stalled cycle count"). Idle
 * (state 1) and paused cycles are not part of it (spec §2.1).
 * @returns scheduler-cycles (≥ 0)
 */
export function stalledCycles(s: PerfSatSampleCounts): number {
  return s.notReady + s.pipelineStall;
}

/**
 * Is the current sample better than the stored one? Strict: equal counts are *not* better, so
 * ties favour fewer CTAs (spec R5).
 */
export function isBetter(current: number, previous: number): boolean {
  return current < previous;
}

/**
 * Initial CTA limit n0: ⌈nMax/2⌉ (000 §4.3.2.1 "Our thread block scheduler issues ⌈Nmax/2⌉ CTAs
 * on each core at initialization"), or `initial` clamped to [1, max(1, nMax − 1)].
 * @param nMax most CTAs of the kernel one SM can hold (occupancy), ≥ 1
 * @throws RangeError when nMax < 1 or is not an integer
 */
export function initialLimit(nMax: number, initial: PerfSatParams['initial'] = 'half'): number {
  if (!Number.isInteger(nMax) || nMax < 1) throw new RangeError(`Perf-Sat nMax must be an integer >= 1, got ${nMax}`);
  if (initial === 'half') return Math.ceil(nMax / 2);
  return Math.min(Math.max(1, initial), Math.max(1, nMax - 1));
}

/**
 * The CTA count Perf-Sat settles on when phase 2 toggles too often: one above the initial
 * count, ⌈nMax/2 + 1⌉ = ⌈nMax/2⌉ + 1 with the paper's initial count (000 §4.3.2.2: "The optimal
 * count is conservatively set as ⌈Nmax/2 + 1⌉, if the state machine toggles more than three
 * times"), never above nMax.
 */
export function conservativeLimit(n0: number, nMax: number): number {
  return Math.min(n0 + 1, nMax);
}

/**
 * Sample period: the cycles until the first CTA of the kernel completed on this SM times nMax
 * (000 §4.3.2.2 phase 1: "The sampling period is then set as One_TB_cycles*Nmax").
 * @param oneCtaCycles core cycles from the first CTA's dispatch to its completion (≥ 1)
 * @returns core cycles (≥ 1)
 */
export function samplePeriod(oneCtaCycles: number, nMax: number): number {
  return Math.max(1, Math.round(oneCtaCycles)) * nMax;
}
