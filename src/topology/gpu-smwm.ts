/**
 * Spec and resources of the SM Work Manager (`GPU.SMWM`) from a {@link GpuConfig} and the run's
 * kernel launches (DESIGN.md §6).
 */
import { maxWarpsPerSm, type GpuConfig } from '../config/index.ts';
import type { GpuContext } from '../model/gpu-context.ts';
import type { UnitInstanceConfig } from '../sim/unit.ts';
import type { KernelLaunchPlan, SmWorkManagerParams } from '../../machines/sm-work-manager/sm-work-manager.ts';

/** The SMWM instance of a config: per-SM capacity, launch latency, the launches in order. */
export function smWorkManagerInstance(config: GpuConfig, context: GpuContext, launches: readonly KernelLaunchPlan[]): UnitInstanceConfig<SmWorkManagerParams> {
  return {
    spec: {
      context,
      numSms: config.sm.count,
      capacity: { maxWarps: maxWarpsPerSm(config), maxCtas: config.sm.maxCtas, registers: config.sm.registers, sharedMemBytes: config.sm.sharedMemBytes },
      launches,
      launchLatencyCycles: config.kernel.launchLatencyCycles,
    },
  };
}
