/**
 * The SM Work Manager's tables and the pure functions over them: the kernel status block (000
 * Fig. 5.6) and core status table (000 Fig. 5.7) rows (types in `src/model/smwm/registry.ts`,
 * where the policies read them), the launch plan, stream-ordered kernel start and CTA
 * retirement. Plain code the statechart calls from its `assign` actions.
 */
import { z } from 'zod';
import type { CoreStatusRow, KernelStatusRow } from '../../src/model/smwm/registry.ts';

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

/** The mutable part of the SMWM context the dispatch updates (a copy of the statechart's). */
export interface DispatchTables {
  kernels: KernelStatusRow[];
  cores: CoreStatusRow[];
  rr: number;
  /** SM that received the latest CTA, -1 before the first (GPGPU-Sim m_last_cluster_issue). */
  lastSm?: number;
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
    lastSm: t.lastSm ?? -1,
    dispatched: t.dispatched,
  };
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
