/**
 * {@link runFunctional}: executes a whole grid without timing (issue 3 item 6, the core of the
 * functional-only run mode) and reports instruction counts and speed.
 *
 * Order: CTAs one after the other in linear order (x fastest); inside a CTA, warps round-robin,
 * each running up to `quantum` instructions before the next warp gets its turn, skipping warps
 * that wait at a barrier. The result of a race-free kernel does not depend on this order. A CTA
 * whose live warps all wait at barriers that cannot complete is a deadlock, reported as a
 * {@link FunctionalFault} with the barrier state.
 */

import { FunctionalFault } from './memory.ts';
import type { FunctionalKernel } from './kernel.ts';
import { WarpStepInfo } from './step-info.ts';

/** Options of {@link runFunctional}. */
export interface RunOptions {
  /** Instructions a warp runs before the next warp's turn (default 64). */
  readonly quantum?: number;
  /** Abort with a `limit` fault after this many warp instructions (default: unlimited). */
  readonly maxWarpInstructions?: number;
  /** `%smid` of every CTA (default 0). */
  readonly smId?: number;
  /** Run only these linear CTA indices (default: the whole grid). */
  readonly ctas?: readonly number[];
  /** Called after every executed warp instruction (tracing, tests); slows the run down. */
  readonly onStep?: (info: WarpStepInfo, warpIndex: number, ctaIndex: number) => void;
}

/** What a functional run did. */
export interface RunResult {
  /** Thread instructions executed (sum over warp instructions of the active lanes). */
  readonly threadInstructions: number;
  /** Warp instructions executed. */
  readonly warpInstructions: number;
  /** CTAs executed. */
  readonly ctas: number;
  /** Wall-clock time of the run in milliseconds (host time, for the speed report only). */
  readonly elapsedMs: number;
  /** Thread instructions per second of host time. */
  readonly threadInstructionsPerSecond: number;
}

/**
 * Executes every CTA of `kernel` to completion.
 * @throws FunctionalFault on a bad memory access, a barrier deadlock, or when
 *   `maxWarpInstructions` is exceeded; `details` carries the counts executed so far.
 */
export function runFunctional(kernel: FunctionalKernel, options: RunOptions = {}): RunResult {
  const quantum = options.quantum ?? 64;
  const limit = options.maxWarpInstructions ?? Infinity;
  const info = new WarpStepInfo();
  const onStep = options.onStep;
  let warpInsts = 0;
  let threadInsts = 0;
  let ctas = 0;
  const t0 = performance.now();
  const ids = options.ctas ?? undefined;
  const n = ids ? ids.length : kernel.ctaCount;
  for (let c = 0; c < n; c++) {
    const ctaIndex = ids ? ids[c]! : c;
    const cta = kernel.createCta(ctaIndex, options.smId ?? 0);
    const warps = cta.warps;
    try {
      while (!cta.done) {
        let progressed = false;
        for (let wi = 0; wi < warps.length; wi++) {
          const w = warps[wi]!;
          for (let q = 0; q < quantum && w.ready; q++) {
            w.step(info);
            progressed = true;
            warpInsts++;
            threadInsts += info.activeCount;
            if (onStep) onStep(info, wi, ctaIndex);
            if (warpInsts > limit) {
              throw new FunctionalFault(`${kernel.file}: kernel ${kernel.entry.name} exceeded the limit of ${limit} warp instructions`, {
                kind: 'limit',
                kernel: kernel.entry.name,
                cta: cta.ctaId,
                warp: wi,
                reason: `more than ${limit} warp instructions`,
              });
            }
          }
        }
        if (!progressed && !cta.done) {
          const state = cta.barrierState();
          const text = state.map((b) => `barrier ${b.id}: ${b.arrived}/${b.needed} warps arrived, waiting warps [${b.waiting.join(', ')}]`).join('; ');
          throw new FunctionalFault(`${kernel.file}: deadlock in kernel ${kernel.entry.name}, CTA (${cta.ctaId.join(',')}): ${text}`, {
            kind: 'deadlock',
            kernel: kernel.entry.name,
            cta: cta.ctaId,
            reason: text,
          });
        }
      }
    } catch (e) {
      if (e instanceof FunctionalFault) {
        throw new FunctionalFault(e.message, { ...e.details, threadInstructions: threadInsts, warpInstructions: warpInsts });
      }
      throw e;
    }
    ctas++;
    kernel.releaseCta(cta);
  }
  // a subset of the grid never completes it: write what its CTAs printed
  if (ids) kernel.flushDeviceOutput();
  const elapsedMs = performance.now() - t0;
  return {
    threadInstructions: threadInsts,
    warpInstructions: warpInsts,
    ctas,
    elapsedMs,
    threadInstructionsPerSecond: elapsedMs > 0 ? (threadInsts * 1000) / elapsedMs : 0,
  };
}
