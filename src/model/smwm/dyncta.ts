/**
 * DYNCTA rule table (Kayiran et al., PACT 2013, as 000 §4.3.4.2, §4.4.5.1 and 004 §4.3, §5
 * describe it; `../specs/cta-kernel-level.md` §3). Pure functions, no XState: the statechart
 * that uses them is `machines/sm-work-manager/dyncta.ts`.
 *
 * 000 §4.3.4.2: "They start by issuing ⌈Nmax⌉ thread blocks. They increase the number of blocks
 * if C_idle is higher than a threshold. Once, C_idle is less than the threshold, they further
 * increase (or decrease) the block count if C_mem is lower (or higher) than another threshold.
 * Values for both the thresholds, as well as the sampling period are found empirically."
 * 000 §4.4.5.1: "When the sampled idle time is lower than a threshold and the sampled memory
 * stall time falls within an empirical range, the optimal number of CTAs is captured."
 */
import { z } from 'zod';

/**
 * Parameters of the DYNCTA CTA scheduler (spec §3.3, §10 `policies.ctaScheduler = {kind:
 * 'dyncta', ...}`), the config object minus `kind`.
 *
 * Sources: papers 000 and 004 give **no values** ("found empirically"; 004 §5: "the choice of
 * the thresholds is dependent on micro-architecture"). The defaults are the spec's recollection
 * of Kayiran et al. PACT 2013 (sampling period 2048 cycles, t_idle 16, [t_mem_l, t_mem_h] =
 * [128, 384]) and are **unverified**: check the original before quoting them (spec §3.3). The
 * initial count is ⌈nMax/2⌉: the extracted text's "⌈Nmax⌉" lost its denominator (spec R10).
 */
export const dynctaParams = z.strictObject({
  samplingCycles: z.int().min(1).default(2048).describe('sampling window (core cycles; unverified default from Kayiran et al. PACT 2013, spec §3.3)'),
  tIdle: z.number().min(0).default(16).describe('C_idle threshold: at or above it the limit grows (cycles per window; unverified default)'),
  tMemLow: z.number().min(0).default(128).describe('C_mem below it: the limit grows (cycles per window; unverified default)'),
  tMemHigh: z.number().min(0).default(384).describe('C_mem above it: the limit shrinks (cycles per window; unverified default)'),
  initial: z.enum(['half', 'max']).default('half').describe("initial limit: 'half' = ceil(nMax/2) (spec R10) or 'max' = nMax"),
}).refine((p) => p.tMemLow <= p.tMemHigh, { message: 'tMemLow must not exceed tMemHigh', path: ['tMemLow'] });

/** Validated DYNCTA parameters. */
export type DynctaParams = z.infer<typeof dynctaParams>;

/** The counters of one DYNCTA sampling window (spec §1.3, R9). */
export interface DynctaSample {
  /** Issue cycles in which every scheduler of the SM was idle: no warp had an instruction (cycles). */
  readonly cIdle: number;
  /**
   * Issue cycles in which no warp could issue and every warp with an instruction waited on a
   * long-latency (memory) operand (cycles).
   */
  readonly cMem: number;
}

/** Which row of the rule table fired. */
export type DynctaRule = 'idleHigh' | 'memLow' | 'memHigh' | 'inRange';

/**
 * The row of the DYNCTA rule table a sample selects, first match wins (spec §3.2):
 * `cIdle ≥ tIdle` → `idleHigh` (grow); else `cMem < tMemLow` → `memLow` (grow); else
 * `cMem > tMemHigh` → `memHigh` (shrink); else `inRange` (keep: "falls within an empirical range").
 */
export function dynctaRule(s: DynctaSample, p: Pick<DynctaParams, 'tIdle' | 'tMemLow' | 'tMemHigh'>): DynctaRule {
  if (s.cIdle >= p.tIdle) return 'idleHigh';
  if (s.cMem < p.tMemLow) return 'memLow';
  if (s.cMem > p.tMemHigh) return 'memHigh';
  return 'inRange';
}

/**
 * The next CTA limit: one more for `idleHigh`/`memLow` (at most nMax), one fewer for `memHigh`
 * (at least 1), unchanged for `inRange`.
 * @param n current limit (CTAs)
 * @param nMax most CTAs of the kernel one SM can hold (CTAs)
 */
export function dynctaNext(n: number, nMax: number, rule: DynctaRule): number {
  if (rule === 'idleHigh' || rule === 'memLow') return Math.min(n + 1, nMax);
  if (rule === 'memHigh') return Math.max(n - 1, 1);
  return n;
}

/**
 * Initial DYNCTA limit: ⌈nMax/2⌉ (spec R10) or nMax.
 * @throws RangeError when nMax < 1 or is not an integer
 */
export function dynctaInitial(nMax: number, initial: DynctaParams['initial'] = 'half'): number {
  if (!Number.isInteger(nMax) || nMax < 1) throw new RangeError(`DYNCTA nMax must be an integer >= 1, got ${nMax}`);
  return initial === 'max' ? nMax : Math.ceil(nMax / 2);
}
