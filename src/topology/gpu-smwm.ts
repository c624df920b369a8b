/**
 * Spec and resources of the SM Work Manager (`GPU.SMWM`) from a {@link GpuConfig} and the run's
 * kernel launches (DESIGN.md §6).
 */
import { InputError } from '../errors.ts';
import { activeCorePolicies, choosePolicy, ctaSchedulers, kernelSchedulers, type PolicyRegistry } from '../model/smwm/registry.ts';
import { maxWarpsPerSm, type GpuConfig } from '../config/index.ts';
import type { GpuContext } from '../model/gpu-context.ts';
import type { UnitInstanceConfig } from '../sim/unit.ts';
import type { KernelLaunchPlan, SmWorkManagerParams } from '../../machines/sm-work-manager/sm-work-manager.ts';

/** A launch as the scenario drivers plan it (the SMWM adds the CTA count from the kernel table). */
export type LaunchPlan = Omit<KernelLaunchPlan, 'ctaCount'>;

/**
 * @throws InputError for an unknown policy name or bad policy parameters (naming the field)
 *
 * The SMWM instance of a config: per-SM capacity, launch latency, the launches in order (with
 * their CTA counts from the kernel table), and the policy of each level.
 */
export function smWorkManagerInstance(config: GpuConfig, context: GpuContext, launches: readonly LaunchPlan[]): UnitInstanceConfig<SmWorkManagerParams> {
  const p = config.policies;
  const policies = { kernelScheduler: p.kernelScheduler, ctaScheduler: p.ctaScheduler, activeCores: p.activeCores ?? { kind: 'all' } };
  // Policy names and parameters are checked against the registries here, as input errors.
  for (const [family, registry] of [['kernelScheduler', kernelSchedulers], ['ctaScheduler', ctaSchedulers], ['activeCores', activeCorePolicies]] as const) {
    const chosen = choosePolicy(registry as PolicyRegistry<any>, policies[family] as { kind: string } & Record<string, unknown>);
    if (typeof chosen === 'string') throw new InputError({ file: `<config ${config.name}>` }, chosen, `policies.${family}`);
  }
  return {
    spec: {
      numSms: config.sm.count,
      capacity: { maxWarps: maxWarpsPerSm(config), maxCtas: config.sm.maxCtas, registers: config.sm.registers, sharedMemBytes: config.sm.sharedMemBytes },
      launches: launches.map((l) => ({ ...l, ctaCount: context.kernel(l.kernel).kernel.ctaCount })),
      launchLatencyCycles: config.kernel.launchLatencyCycles,
      policies,
    },
  };
}
