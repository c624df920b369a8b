/**
 * CTA dispatch of the SM Work Manager: the dispatch rule of `../specs/cta-kernel-level.md` §1.1
 * (power and pause state, the active-core policy, the kernel scheduler, the per-SM CTA limit,
 * the four resource checks of 000 §2.2.2, port room), SMs filled round robin. Plain code run
 * after every statechart event, never a statechart event itself (spec §1.1).
 */
import type { ActiveCorePolicy, ChosenPolicy, CtaSchedulerPolicy, KernelSchedulerPolicy } from '../../src/model/smwm/registry.ts';
import type { DispatchTables, KernelLaunchPlan, SmCapacity } from './tables.ts';

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
 * Fills SMs round robin (one CTA per SM per pass; a kernel's first pass starts after the SM
 * that last received a CTA) from the running kernels in launch order,
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
    // GPGPU-Sim gpgpu_sim::issue_block2core starts after the SM that last received a CTA
    // (m_last_cluster_issue): a kernel that follows a partial one starts on the next SMs.
    if (row.nextCta === 0 && (t.lastSm ?? -1) >= 0) t.rr = (t.lastSm! + 1) % n;
    let progress = true;
    while (row.nextCta < row.ctaCount && progress) {
      progress = false;
      for (let i = 0; i < n && row.nextCta < row.ctaCount; i++) {
        const sm = (t.rr + i) % n;
        if (!fits(t, env, k, sm)) continue;
        env.send(sm, row.kernel, row.nextCta++);
        t.lastSm = sm;
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
