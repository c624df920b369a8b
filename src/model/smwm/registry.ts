/**
 * Policy registries of the SM Work Manager (DESIGN.md §6: every policy chosen by name from a
 * registry; `../specs/cta-kernel-level.md` §1.1): kernel schedulers (which kernel may place CTAs
 * on which SM), CTA schedulers (the per-SM CTA limit of each kernel), and active-core policies
 * (which SMs are powered and take work). Each entry is pure functions over the kernel status
 * block and core status table (000 Figs. 5.6-5.7) plus a zod schema of its parameters; a later
 * technique (Perf-Sat, DYNCTA, ONAC, Seq-Det, Warped-Slicer) registers itself here and, where
 * it needs one, brings a child statechart in its own folder.
 */
import { z } from 'zod';

/** One row of the kernel status block (000 Fig. 5.6), JSON-serialisable. */
export interface KernelStatusRow {
  /** Kernel id in the run's kernel table. */
  readonly kernel: number;
  readonly ctaCount: number;
  readonly stream: number;
  state: 'pending' | 'launched' | 'running' | 'done';
  nextCta: number;
  ctasDone: number;
  /** Core cycle the kernel started dispatching, and finished (-1: not yet). */
  startCycle: number;
  endCycle: number;
  warpInsts: number;
  threadInsts: number;
}

/** Power state of an SM as the SM Work Manager knows it from the acknowledgements. */
export type CorePower = 'on' | 'gating' | 'gated' | 'waking';

/** One row of the core status table (000 Fig. 5.7), JSON-serialisable. */
export interface CoreStatusRow {
  ctas: number;
  warps: number;
  registers: number;
  sharedBytes: number;
  /** Resident CTAs per kernel id (JSON object keyed by the id). */
  perKernel: Record<string, number>;
  power: CorePower;
  /** Paused by a lifecycle acknowledgement (`paused`/`draining`). */
  paused: boolean;
}

/** What every policy may read. */
export interface SmwmView {
  readonly kernels: readonly KernelStatusRow[];
  readonly cores: readonly CoreStatusRow[];
}

/** A policy entry: its name, source, parameter schema (the config object minus `kind`). */
interface PolicyBase<P> {
  readonly name: string;
  readonly description: string;
  /** Paper section or GPGPU-Sim function it mirrors. */
  readonly source: string;
  readonly params: z.ZodType<P>;
}

/** Kernel scheduler: may kernel row `k` place a CTA on SM `sm` now (resources aside)? */
export interface KernelSchedulerPolicy<P = unknown> extends PolicyBase<P> {
  allows(view: SmwmView, params: P, k: number, sm: number): boolean;
}

/** CTA scheduler: how many CTAs of kernel row `k` SM `sm` may hold (Infinity: resources only). */
export interface CtaSchedulerPolicy<P = unknown> extends PolicyBase<P> {
  limit(view: SmwmView, params: P, k: number, sm: number): number;
}

/** Active-core policy: should SM `sm` be powered and take work? */
export interface ActiveCorePolicy<P = unknown> extends PolicyBase<P> {
  wantsOn(view: SmwmView, params: P, sm: number): boolean;
}

/** A registry of one policy family. */
export class PolicyRegistry<T extends PolicyBase<any>> {
  private readonly entries = new Map<string, T>();
  constructor(readonly family: string) {}

  /** @throws Error when the name is taken */
  register(entry: T): void {
    if (this.entries.has(entry.name)) throw new Error(`${this.family} policy '${entry.name}' registered twice`);
    this.entries.set(entry.name, entry);
  }

  get(name: string): T | undefined {
    return this.entries.get(name);
  }

  /** Names in registration order (the default first). */
  names(): string[] {
    return [...this.entries.keys()];
  }
}

/** Kernel schedulers. */
export const kernelSchedulers = new PolicyRegistry<KernelSchedulerPolicy<any>>('kernelScheduler');
/** CTA schedulers. */
export const ctaSchedulers = new PolicyRegistry<CtaSchedulerPolicy<any>>('ctaScheduler');
/** Active-core policies. */
export const activeCorePolicies = new PolicyRegistry<ActiveCorePolicy<any>>('activeCores');

const noParams = z.strictObject({});

kernelSchedulers.register({
  name: 'inOrder',
  description: 'kernels take CTAs in launch order; a later kernel takes SMs an earlier one cannot fill (no partitioning)',
  source: '000 §5.3 (left-over without strict ordering); GPGPU-Sim select_kernel with concurrent kernels',
  params: noParams,
  allows: () => true,
});

ctaSchedulers.register({
  name: 'roundRobin',
  description: 'round robin over SMs, as many CTAs as the four resource checks allow',
  source: '000 §2.2.2; GPGPU-Sim issue_block2core',
  params: noParams,
  limit: () => Infinity,
});

ctaSchedulers.register({
  name: 'fixedLimit',
  description: 'round robin with at most ctasPerSm CTAs of a kernel per SM (oracle sweeps over the CTA limit)',
  source: '000 §4.3.3.2 ("executed separately at each count by modifying the thread block limit per core")',
  params: z.strictObject({ ctasPerSm: z.int().min(1).max(64).describe('CTAs of one kernel per SM at most (CTAs)') }),
  limit: (_view, p: { ctasPerSm: number }) => p.ctasPerSm,
});

activeCorePolicies.register({
  name: 'all',
  description: 'every SM is powered and takes work',
  source: 'baseline of 000 §4.4',
  params: noParams,
  wantsOn: () => true,
});

activeCorePolicies.register({
  name: 'fixed',
  description: 'only SMs 0..count-1 take work; the others are power-gated (oracle sweeps over the core count)',
  source: '000 §4.4.3.2 ("executing them separately at each core count")',
  params: z.strictObject({ count: z.int().min(1).describe('SMs that take work (SMs)') }),
  wantsOn: (_view, p: { count: number }, sm) => sm < p.count,
});

activeCorePolicies.register({
  name: 'gateIdle',
  description: 'an SM with no resident CTA while no kernel has CTAs left to dispatch is power-gated; it is woken when work appears',
  source: '000 §4.4.2 (unused cores are power-gated)',
  params: noParams,
  wantsOn: (view, _p, sm) => view.cores[sm]!.ctas > 0 || view.kernels.some((k) => (k.state === 'running' || k.state === 'launched') && k.nextCta < k.ctaCount),
});

/** A policy chosen from the config: its registry entry and validated parameters. */
export interface ChosenPolicy<T> {
  readonly policy: T;
  readonly params: unknown;
}

/**
 * Looks up `config.kind` in `registry` and validates the other fields with the entry's schema.
 * @returns the entry and its parameters, or a message naming the field and the known names
 */
export function choosePolicy<T extends PolicyBase<any>>(registry: PolicyRegistry<T>, config: { kind: string } & Record<string, unknown>): ChosenPolicy<T> | string {
  const policy = registry.get(config.kind);
  if (policy === undefined) return `unknown ${registry.family} policy '${config.kind}' (known: ${registry.names().join(', ')})`;
  const { kind: _kind, ...rest } = config;
  const parsed = policy.params.safeParse(rest);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return `${registry.family} '${config.kind}': ${issue.path.join('.') || 'parameters'}: ${issue.message}`;
  }
  return { policy, params: parsed.data };
}
