/**
 * smWorkManager: the SM Work Manager (GPU.SMWM): kernel launch, the kernel status block
 * (000 Fig. 5.6) and core status table (000 Fig. 5.7), and round-robin CTA dispatch with the
 * four resource checks of 000 §2.2.2 (threads/warp slots, CTA slots, registers, shared memory).
 *
 * Its kernel-level control is a statechart (DESIGN.md §3): `idle` (no kernel launched yet or
 * all launched ones finished) and `active` (some kernel has CTAs resident or to dispatch), with
 * `done` once every kernel of the run has finished. Events: `kernel.launch` (a delayed self-event
 * per kernel at its launch time plus the launch latency, `-gpgpu_kernel_launch_latency`) and
 * `cta.done` from the SMs (one event per finished CTA: far below one per warp instruction).
 * Dispatch is event-driven: on launch, and whenever a CTA finishes, every SM is refilled round
 * robin (one CTA per SM per pass) from the oldest kernel that still has CTAs, so several kernels
 * are in flight in launch order (the left-over policy; other kernel policies plug in later).
 *
 * The limit checker of 003 eq. 3.1 refuses impossible launches before the run (see
 * `src/topology/gpu.ts`); here a kernel whose CTA fits nowhere would never start, so the
 * topology checks `ctasPerSm >= 1` for every kernel first.
 */
import { raise, setup } from 'xstate';
import { z } from 'zod';
import type { Message } from '../../src/messaging/message.ts';
import type { OutPort } from '../../src/messaging/port.ts';
import type { Counter } from '../../src/stats/registry.ts';
import { defineUnit, type UnitIo } from '../../src/sim/unit.ts';
import type { GpuContext } from '../../src/model/gpu-context.ts';
import { GpuKind, type CtaDispatch, type CtaDone } from '../../src/protocol/gpu.ts';

/** Per-SM capacity the resource checks use. */
export interface SmCapacity {
  readonly maxWarps: number;
  readonly maxCtas: number;
  readonly registers: number;
  readonly sharedMemBytes: number;
}

/** A kernel to launch: its id in the context, resources per CTA, and launch time. */
export interface KernelLaunchPlan {
  readonly kernel: number;
  /** Earliest launch, core cycles from the start of the run. */
  readonly atCycle: number;
  readonly warpsPerCta: number;
  /** Registers per CTA after allocation granularity. */
  readonly registersPerCta: number;
  /** Shared memory per CTA after allocation granularity, bytes. */
  readonly sharedBytesPerCta: number;
  /** CUDA stream: a kernel starts only after every earlier kernel of its stream finished. */
  readonly stream: number;
}

/** Parameters of {@link smWorkManager}. */
export interface SmWorkManagerParams {
  readonly context: GpuContext;
  readonly numSms: number;
  readonly capacity: SmCapacity;
  readonly launches: readonly KernelLaunchPlan[];
  /** Cycles between a launch and its first CTA dispatch. */
  readonly launchLatencyCycles: number;
}

/** One row of the kernel status block (000 Fig. 5.6). */
export interface KernelStatus {
  readonly plan: KernelLaunchPlan;
  readonly ctaCount: number;
  state: 'pending' | 'launched' | 'running' | 'done';
  nextCta: number;
  ctasDone: number;
  /** Core cycle the kernel started dispatching, and finished. */
  startCycle: number;
  endCycle: number;
  warpInsts: number;
  threadInsts: number;
}

/** One row of the core status table (000 Fig. 5.7). */
export interface CoreStatus {
  ctas: number;
  warps: number;
  registers: number;
  sharedBytes: number;
  /** Resident CTAs per kernel id. */
  readonly perKernel: Map<number, number>;
}

/** Statechart context. */
export interface SmwmContext {
  readonly io: UnitIo;
  readonly p: SmWorkManagerParams;
  readonly kernels: KernelStatus[];
  readonly cores: CoreStatus[];
  readonly dispatch: OutPort[];
  /** Round-robin pointer over SMs. */
  rr: number;
  readonly ctasDispatched: Counter;
}

function fits(ctx: SmwmContext, sm: number, k: KernelStatus): boolean {
  const c = ctx.cores[sm]!;
  const cap = ctx.p.capacity;
  const pl = k.plan;
  return (
    c.ctas + 1 <= cap.maxCtas &&
    c.warps + pl.warpsPerCta <= cap.maxWarps &&
    c.registers + pl.registersPerCta <= cap.registers &&
    c.sharedBytes + pl.sharedBytesPerCta <= cap.sharedMemBytes &&
    ctx.dispatch[sm]!.hasRoom
  );
}

/** Fills every SM round robin from the oldest running kernels; returns CTAs dispatched. */
function dispatchCtas(ctx: SmwmContext): number {
  let sent = 0;
  const n = ctx.p.numSms;
  for (const k of ctx.kernels) {
    if (k.state !== 'running') continue;
    let progress = true;
    while (k.nextCta < k.ctaCount && progress) {
      progress = false;
      for (let i = 0; i < n && k.nextCta < k.ctaCount; i++) {
        const sm = (ctx.rr + i) % n;
        if (!fits(ctx, sm, k)) continue;
        const d: CtaDispatch = { kernel: k.plan.kernel, cta: k.nextCta++ };
        ctx.dispatch[sm]!.send(GpuKind.ctaDispatch, d);
        const c = ctx.cores[sm]!;
        c.ctas++;
        c.warps += k.plan.warpsPerCta;
        c.registers += k.plan.registersPerCta;
        c.sharedBytes += k.plan.sharedBytesPerCta;
        c.perKernel.set(k.plan.kernel, (c.perKernel.get(k.plan.kernel) ?? 0) + 1);
        ctx.ctasDispatched.value++;
        sent++;
        progress = true;
      }
      ctx.rr = (ctx.rr + 1) % n;
    }
  }
  return sent;
}

/** Starts launched kernels whose stream has no unfinished earlier kernel (CUDA stream order). */
function startReadyKernels(ctx: SmwmContext): void {
  for (let i = 0; i < ctx.kernels.length; i++) {
    const k = ctx.kernels[i]!;
    if (k.state !== 'launched') continue;
    let blocked = false;
    for (let j = 0; j < i; j++) {
      const e = ctx.kernels[j]!;
      if (e.plan.stream === k.plan.stream && e.state !== 'done') blocked = true;
    }
    if (blocked) continue;
    k.state = 'running';
    k.startCycle = ctx.io.cycle;
  }
}

/** Frees a finished CTA's resources; returns true when its kernel finished. */
function retire(ctx: SmwmContext, msg: Message<CtaDone>): boolean {
  const d = msg.payload;
  const k = ctx.kernels.find((x) => x.plan.kernel === d.kernel)!;
  const c = ctx.cores[d.sm]!;
  c.ctas--;
  c.warps -= k.plan.warpsPerCta;
  c.registers -= k.plan.registersPerCta;
  c.sharedBytes -= k.plan.sharedBytesPerCta;
  c.perKernel.set(d.kernel, (c.perKernel.get(d.kernel) ?? 1) - 1);
  k.ctasDone++;
  k.warpInsts += d.warpInsts;
  k.threadInsts += d.threadInsts;
  if (k.ctasDone === k.ctaCount) {
    k.state = 'done';
    k.endCycle = ctx.io.cycle;
    return true;
  }
  return false;
}

/** Builds the SMWM statechart. */
export function smWorkManagerMachine(p: SmWorkManagerParams) {
  return setup({
    types: {
      context: {} as SmwmContext,
      input: {} as UnitIo,
      events: {} as { type: 'cta.done'; message: Message<CtaDone> } | { type: 'kernel.launch'; kernel: number } | { type: 'wake' },
    },
    actions: {
      launchKernel: ({ context, event }) => {
        if (event.type !== 'kernel.launch') return;
        context.kernels.find((x) => x.plan.kernel === event.kernel)!.state = 'launched';
        startReadyKernels(context);
        dispatchCtas(context);
      },
      retireCta: ({ context, event }) => {
        if (event.type === 'cta.done' && retire(context, event.message)) startReadyKernels(context);
      },
      dispatch: ({ context }) => {
        dispatchCtas(context);
      },
      signalEndOfWork: ({ context }) => {
        context.io.endOfWork();
      },
    },
    guards: {
      allDone: ({ context }) => context.kernels.every((k) => k.state === 'done'),
      noneRunning: ({ context }) => !context.kernels.some((k) => k.state === 'running' || k.state === 'launched'),
    },
  }).createMachine({
    id: 'smWorkManager',
    context: ({ input }) => {
      const kernels: KernelStatus[] = p.launches.map((plan) => ({
        plan,
        ctaCount: p.context.kernel(plan.kernel).kernel.ctaCount,
        state: 'pending' as const,
        nextCta: 0,
        ctasDone: 0,
        startCycle: -1,
        endCycle: -1,
        warpInsts: 0,
        threadInsts: 0,
      }));
      // Per-kernel statistics, GPGPU-Sim style (kernel[<id>].gpu_sim_cycle ...).
      for (const k of kernels) {
        const name = `kernel[${k.plan.kernel}]`;
        const cycles = () => (k.endCycle >= 0 ? k.endCycle - k.startCycle : 0);
        input.stats.derived(`${name}.start_cycle`, () => k.startCycle, 'core cycle the kernel started dispatching', 'cycles');
        input.stats.derived(`${name}.gpu_sim_cycle`, cycles, 'core cycles from first dispatch to last CTA done', 'cycles');
        input.stats.derived(`${name}.gpu_sim_insn`, () => k.threadInsts, 'thread instructions', 'count');
        input.stats.derived(`${name}.warp_insts`, () => k.warpInsts, 'warp instructions', 'count');
        input.stats.derived(`${name}.gpu_ipc`, () => (cycles() > 0 ? k.threadInsts / cycles() : 0), 'thread instructions per core cycle', 'insn/cycle');
      }
      return {
      io: input,
      p,
      kernels,
      cores: Array.from({ length: p.numSms }, () => ({ ctas: 0, warps: 0, registers: 0, sharedBytes: 0, perKernel: new Map<number, number>() })),
      dispatch: Array.from({ length: p.numSms }, (_, i) => input.out(`dispatch[${i}]`)),
      rr: 0,
      ctasDispatched: input.counter('ctas_dispatched', 'CTAs dispatched to SMs'),
      };
    },
    entry: p.launches.map((plan) => raise({ type: 'kernel.launch', kernel: plan.kernel } as const, { delay: plan.atCycle + p.launchLatencyCycles })),
    initial: 'idle',
    states: {
      idle: {
        always: [{ guard: 'allDone', target: 'done' }],
        on: { 'kernel.launch': { target: 'active', actions: 'launchKernel' } },
      },
      active: {
        on: {
          'kernel.launch': { actions: 'launchKernel' },
          'cta.done': { actions: ['retireCta', 'dispatch'] },
          wake: { actions: 'dispatch' },
        },
        always: [{ guard: 'allDone', target: 'done' }, { guard: 'noneRunning', target: 'idle' }],
      },
      done: { type: 'final', entry: 'signalEndOfWork' },
    },
  });
}

/** The unit kind `smWorkManager`. */
export const smWorkManager = defineUnit<SmWorkManagerParams>({
  kind: 'smWorkManager',
  description: 'SM Work Manager: kernel launch with latency, kernel status block, core status table, round-robin CTA dispatch with the four resource checks.',
  source: '000 §2.2.2, Figs. 5.6-5.7; GPGPU-Sim issue_block2core',
  spec: z.custom<SmWorkManagerParams>((v) => typeof v === 'object' && v !== null && 'launches' in v, 'built by the GPU topology'),
  delivery: 'perMessage',
  ports: [
    { name: 'dispatch', direction: 'out', description: 'CTAs to SM i', messageKinds: [GpuKind.ctaDispatch], countParam: 'numSms', capacity: 16 },
    { name: 'done', direction: 'in', description: 'finished CTAs from SM i', messageKinds: [GpuKind.ctaDone], countParam: 'numSms', capacity: 16 },
  ],
  stats: [{ name: 'ctas_dispatched', unit: 'count', description: 'CTAs dispatched to SMs' }],
  logic: (p) => smWorkManagerMachine(p),
  pendingWork: (snap: { context: SmwmContext }) => {
    const open = snap.context.kernels.filter((k) => k.state !== 'done');
    return open.length === 0 ? null : open.map((k) => `kernel ${k.plan.kernel} ${k.state}: ${k.ctasDone}/${k.ctaCount} CTAs done, ${k.nextCta} dispatched`).join('; ');
  },
});
