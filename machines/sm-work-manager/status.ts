/**
 * The SM Work Manager's tables and the pure functions over them: the kernel status block (000
 * Fig. 5.6), the core status table (000 Fig. 5.7), stream-ordered kernel start, CTA retirement,
 * and the dispatch rule of `../specs/cta-kernel-level.md` §1.1 (power and pause state, the
 * kernel scheduler, the per-SM CTA limit, the four resource checks of 000 §2.2.2, port room).
 * Plain code: the statechart calls it after every event; nothing here is a statechart event.
 */
import { z } from 'zod';
import type { ActiveCorePolicy, ChosenPolicy, CoreStatusRow, CtaSchedulerPolicy, KernelSchedulerPolicy, KernelStatusRow } from '../../src/model/smwm/registry.ts';

/** A kernel to launch: resources per CTA and launch time (JSON). */
export const kernelLaunchPlanSchema = z.strictObject({
  kernel: z.int().min(0).describe('kernel id in the run\'s kernel table'),
  ctaCount: z.int().min(1).describe('CTAs in the grid (CTAs)'),
  atCycle: z.int().min(0).describe('earliest launch, core cycles from the start of the run (cycles)'),
  warpsPerCta: z.int().min(1).describe('warps per CTA (warps)'),
  registersPerCta: z.int().min(0).describe('registers per CTA after allocation granularity (registers)'),
  sharedBytesPerCta: z.int().min(0).describe('shared memory per CTA after allocation granularity (bytes)'),
  stream: z.int().describe('CUDA stream: a kernel starts only after every earlier kernel of its stream finished'),
});

/** A kernel to launch. */
export type KernelLaunchPlan = z.infer<typeof kernelLaunchPlanSchema>;

/** Per-SM capacity the resource checks use. */
export interface SmCapacity {
  readonly maxWarps: number;
  readonly maxCtas: number;
  readonly registers: number;
  readonly sharedMemBytes: number;
}

/** The chosen policy of each level. */
export interface SmwmPolicies {
  readonly kernelScheduler: ChosenPolicy<KernelSchedulerPolicy>;
  readonly ctaScheduler: ChosenPolicy<CtaSchedulerPolicy>;
  readonly activeCores: ChosenPolicy<ActiveCorePolicy>;
}

/** What dispatch needs besides the tables. */
export interface DispatchEnv {
  readonly capacity: SmCapacity;
  readonly plans: readonly KernelLaunchPlan[];
  readonly policies: SmwmPolicies;
  /** Room in `dispatch[sm]`. */
  hasRoom(sm: number): boolean;
  /** Sends `cta.dispatch` of (kernel id, CTA index) to SM `sm`. */
  send(sm: number, kernel: number, cta: number): void;
}

/** The mutable part of the SMWM context the dispatch updates (a copy of the statechart's). */
export interface DispatchTables {
  kernels: KernelStatusRow[];
  cores: CoreStatusRow[];
  rr: number;
  dispatched: number;
}

/** A fresh core status row. */
export function emptyCore(): CoreStatusRow {
  return { ctas: 0, warps: 0, registers: 0, sharedBytes: 0, perKernel: {}, power: 'on', paused: false };
}

/** Copies the tables so the statechart's context is replaced, never mutated (`assign`). */
export function copyTables(t: DispatchTables): DispatchTables {
  return {
    kernels: t.kernels.map((k) => ({ ...k })),
    cores: t.cores.map((c) => ({ ...c, perKernel: { ...c.perKernel } })),
    rr: t.rr,
    dispatched: t.dispatched,
  };
}

/** May a CTA of kernel row `k` go to SM `sm` now (spec §1.1 rules 1-5)? */
function fits(t: DispatchTables, env: DispatchEnv, k: number, sm: number): boolean {
  const c = t.cores[sm]!;
  const cap = env.capacity;
  const pl = env.plans[k]!;
  const p = env.policies;
  return (
    c.power === 'on' &&
    !c.paused &&
    p.activeCores.policy.wantsOn(t, p.activeCores.params, sm) &&
    p.kernelScheduler.policy.allows(t, p.kernelScheduler.params, k, sm) &&
    (c.perKernel[pl.kernel] ?? 0) < p.ctaScheduler.policy.limit(t, p.ctaScheduler.params, k, sm) &&
    c.ctas + 1 <= cap.maxCtas &&
    c.warps + pl.warpsPerCta <= cap.maxWarps &&
    c.registers + pl.registersPerCta <= cap.registers &&
    c.sharedBytes + pl.sharedBytesPerCta <= cap.sharedMemBytes &&
    env.hasRoom(sm)
  );
}

/**
 * Fills SMs round robin (one CTA per SM per pass) from the running kernels in launch order,
 * as long as CTAs fit; mutates `t` (a copy) and sends through `env`.
 * @returns CTAs dispatched
 */
export function dispatchCtas(t: DispatchTables, env: DispatchEnv): number {
  let sent = 0;
  const n = t.cores.length;
  for (let k = 0; k < t.kernels.length; k++) {
    const row = t.kernels[k]!;
    if (row.state !== 'running') continue;
    const pl = env.plans[k]!;
    let progress = true;
    while (row.nextCta < row.ctaCount && progress) {
      progress = false;
      for (let i = 0; i < n && row.nextCta < row.ctaCount; i++) {
        const sm = (t.rr + i) % n;
        if (!fits(t, env, k, sm)) continue;
        env.send(sm, row.kernel, row.nextCta++);
        const c = t.cores[sm]!;
        c.ctas++;
        c.warps += pl.warpsPerCta;
        c.registers += pl.registersPerCta;
        c.sharedBytes += pl.sharedBytesPerCta;
        c.perKernel[row.kernel] = (c.perKernel[row.kernel] ?? 0) + 1;
        t.dispatched++;
        sent++;
        progress = true;
      }
      t.rr = (t.rr + 1) % n;
    }
  }
  return sent;
}

/** Starts launched kernels whose stream has no unfinished earlier kernel (CUDA stream order). */
export function startReadyKernels(kernels: KernelStatusRow[], cycle: number): void {
  for (let i = 0; i < kernels.length; i++) {
    const k = kernels[i]!;
    if (k.state !== 'launched') continue;
    let blocked = false;
    for (let j = 0; j < i; j++) {
      const e = kernels[j]!;
      if (e.stream === k.stream && e.state !== 'done') blocked = true;
    }
    if (blocked) continue;
    k.state = 'running';
    k.startCycle = cycle;
  }
}

/**
 * Frees a finished CTA's resources and adds its instruction counts.
 * @returns true when its kernel finished
 */
export function retireCta(t: DispatchTables, plans: readonly KernelLaunchPlan[], done: { kernel: number; sm: number; warpInsts: number; threadInsts: number }, cycle: number): boolean {
  const k = t.kernels.findIndex((x) => x.kernel === done.kernel);
  const row = t.kernels[k]!;
  const pl = plans[k]!;
  const c = t.cores[done.sm]!;
  c.ctas--;
  c.warps -= pl.warpsPerCta;
  c.registers -= pl.registersPerCta;
  c.sharedBytes -= pl.sharedBytesPerCta;
  c.perKernel[done.kernel] = (c.perKernel[done.kernel] ?? 1) - 1;
  row.ctasDone++;
  row.warpInsts += done.warpInsts;
  row.threadInsts += done.threadInsts;
  if (row.ctasDone === row.ctaCount) {
    row.state = 'done';
    row.endCycle = cycle;
    return true;
  }
  return false;
}
