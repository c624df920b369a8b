/**
 * Spec and resources of the SM Work Manager (`GPU.SMWM`) from a {@link GpuConfig} and the run's
 * kernel launches (DESIGN.md §6).
 */
import { maxWarpsPerSm, type GpuConfig } from '../config/index.ts';
import type { GpuContext } from '../model/gpu-context.ts';
import type { UnitInstanceConfig } from '../sim/unit.ts';
import type { KernelLaunchPlan, SmWorkManagerParams } from '../../machines/sm-work-manager/sm-work-manager.ts';

/** A launch as the scenario drivers plan it (the SMWM adds the CTA count from the kernel table). */
export type LaunchPlan = Omit<KernelLaunchPlan, 'ctaCount'>;

/**
 * The SMWM instance of a config: per-SM capacity, launch latency, the launches in order (with
 * their CTA counts from the kernel table), and the policy of each level.
 */
export function smWorkManagerInstance(config: GpuConfig, context: GpuContext, launches: readonly LaunchPlan[]): UnitInstanceConfig<SmWorkManagerParams> {
  const p = config.policies;
  return {
    spec: {
      numSms: config.sm.count,
      capacity: { maxWarps: maxWarpsPerSm(config), maxCtas: config.sm.maxCtas, registers: config.sm.registers, sharedMemBytes: config.sm.sharedMemBytes },
      launches: launches.map((l) => ({ ...l, ctaCount: context.kernel(l.kernel).kernel.ctaCount })),
      launchLatencyCycles: config.kernel.launchLatencyCycles,
      policies: { kernelScheduler: p.kernelScheduler, ctaScheduler: p.ctaScheduler, activeCores: p.activeCores ?? { kind: 'all' } },
    },
  };
}
