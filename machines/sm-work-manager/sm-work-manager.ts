/**
 * smWorkManager: the SM Work Manager (`GPU.SMWM`): kernel launch with latency, the kernel status
 * block (000 Fig. 5.6) and core status table (000 Fig. 5.7), CTA dispatch with the four resource
 * checks of 000 §2.2.2, and control of each SM's lifecycle (pause, power gating).
 *
 * A statechart a person can read (`warpstate units smWorkManager --diagram mermaid`), with four
 * parallel regions (`../specs/cta-kernel-level.md` §1.1):
 * - `kernels`: `idle` -kernel.launch-> `active` -[allDone]-> `done` (signals the end of the
 *   workload); `active` -[noneRunning]-> `idle` between launches;
 * - `mapping`: the kernel-scheduler policy (which kernel may place CTAs on which SM);
 * - `coreCount`: the active-core policy (which SMs are powered and take work);
 * - `ctaLimit`: the CTA-scheduler policy (per-SM CTA limit of each kernel).
 * The policy regions enter the state named after the policy the config chose
 * (`policies.kernelScheduler`, `policies.activeCores`, `policies.ctaScheduler`), from the
 * registries of `src/model/smwm/registry.ts`; a policy registered by a later block appears as
 * `other`. Dispatch itself (`dispatchCtas`) is a plain function run after every event, never a
 * statechart event. Events: `kernel.launch` (a delayed self-event per kernel at its launch time
 * plus `-gpgpu_kernel_launch_latency`), `cta.done` from the SMs (one per finished CTA, far below
 * one per warp instruction), `ctrl.ack` from the SMs' lifecycles, and `wake` (port room).
 *
 * The context is JSON (the tables, the round-robin pointer, the policy names and parameters) and
 * is replaced with `assign`, never mutated; ports stay outside it. Control (spec §1.2): the
 * active-core policy decides which SMs should be on; an SM with no resident CTA that should be
 * off gets `ctrl.gate`, a gated SM that should be on gets `ctrl.wake`; `ctrl.ack` updates the
 * core status table, and no CTA goes to a gating, gated, waking or paused SM.
 */
import { assign, enqueueActions, setup, type AnyActorRef } from 'xstate';
import { z } from 'zod';
import { InputError } from '../../src/errors.ts';
import type { Message } from '../../src/messaging/message.ts';
import type { OutPort } from '../../src/messaging/port.ts';
import { activeCorePolicies, choosePolicy, ctaSchedulers, kernelSchedulers, type ChosenPolicy, type CoreStatusRow, type KernelStatusRow, type PolicyRegistry } from '../../src/model/smwm/registry.ts';
import { defineUnit, type UnitIo } from '../../src/sim/unit.ts';
import { GpuKind, type CtaDispatch, type CtaDone, type CtrlAck } from '../../src/protocol/gpu.ts';
import { dispatchCtas, type DispatchEnv, type SmwmPolicies } from './dispatch.ts';
import { copyTables, emptyCore, kernelLaunchPlanSchema, retireCta, startReadyKernels, type DispatchTables } from './tables.ts';

export type { KernelLaunchPlan } from './tables.ts';

const policyConfig = z.looseObject({ kind: z.string().min(1) });

/** Spec of {@link smWorkManager}. */
export const smWorkManagerSpec = z.strictObject({
  numSms: z.int().min(1).describe('SMs: port arrays dispatch, done, ctrl, status (SMs)'),
  capacity: z
    .strictObject({
      maxWarps: z.int().min(1).describe('warp slots per SM (warps)'),
      maxCtas: z.int().min(1).describe('CTA slots per SM (CTAs) [-gpgpu_shader_cta]'),
      registers: z.int().min(1).describe('registers per SM (registers) [-gpgpu_shader_registers]'),
      sharedMemBytes: z.int().min(0).describe('shared memory per SM (bytes) [-gpgpu_shmem_size]'),
    })
    .describe('per-SM resources the four checks of 000 §2.2.2 use'),
  launchLatencyCycles: z.int().min(0).describe('delay from a launch to its first CTA dispatch (core cycles) [-gpgpu_kernel_launch_latency]'),
  launches: z.array(kernelLaunchPlanSchema).describe('kernels to launch, in launch order'),
  policies: z
    .strictObject({
      kernelScheduler: policyConfig.describe('kernel scheduler {kind, ...params} (registry kernelScheduler)'),
      ctaScheduler: policyConfig.describe('CTA scheduler {kind, ...params} (registry ctaScheduler)'),
      activeCores: policyConfig.describe('active-core policy {kind, ...params} (registry activeCores)'),
    })
    .describe('the policy of each level, by name from the registries of src/model/smwm/registry.ts'),
});

/** Spec of {@link smWorkManager}. */
export type SmWorkManagerParams = z.infer<typeof smWorkManagerSpec>;

/** Statechart context: JSON-serialisable. */
export interface SmwmContext extends DispatchTables {
  readonly numSms: number;
  /** Policy name per level (the region states) and validated parameters. */
  readonly policyNames: { readonly kernelScheduler: string; readonly ctaScheduler: string; readonly activeCores: string };
}

/** What each instance keeps outside its JSON context: io, ports, chosen policies. */
interface Wiring {
  readonly io: UnitIo;
  readonly spec: SmWorkManagerParams;
  readonly dispatch: OutPort[];
  readonly ctrl: OutPort[];
  readonly policies: SmwmPolicies;
}
const wiringOf = new WeakMap<AnyActorRef, Wiring>();

type SmwmEvent = { type: 'cta.done'; message: Message<CtaDone> } | { type: 'ctrl.ack'; message: Message<CtrlAck> } | { type: 'kernel.launch'; kernel: number } | { type: 'wake' };

function choose<T extends { name: string; params: z.ZodType }>(io: UnitIo, registry: PolicyRegistry<T & { description: string; source: string }>, config: { kind: string }): ChosenPolicy<T> {
  const chosen = choosePolicy(registry, config as { kind: string } & Record<string, unknown>);
  if (typeof chosen === 'string') throw new InputError({ file: `<config of ${io.name}>` }, chosen, `policies.${registry.family}`);
  return chosen as ChosenPolicy<T>;
}

function env(w: Wiring): DispatchEnv {
  return {
    capacity: w.spec.capacity,
    plans: w.spec.launches,
    policies: w.policies,
    hasRoom: (sm) => w.dispatch[sm]!.hasRoom,
    send: (sm, kernel, cta) => {
      const d: CtaDispatch = { kernel, cta };
      w.dispatch[sm]!.send(GpuKind.ctaDispatch, d);
    },
  };
}

/**
 * Reconciles each SM's power with the active-core policy (spec §1.2): gate an SM that should be
 * off and holds no CTA, wake a gated one that should be on. Only where the `ctrl[i]` port is
 * connected; never after the workload is done (the run is over).
 */
function reconcilePower(t: DispatchTables, w: Wiring): void {
  if (t.kernels.every((k) => k.state === 'done')) return;
  const p = w.policies.activeCores;
  for (let sm = 0; sm < t.cores.length; sm++) {
    const port = w.ctrl[sm]!;
    if (!port.isBound) continue;
    const c = t.cores[sm]!;
    const on = p.policy.wantsOn(t, p.params, sm);
    if (c.power === 'on' && !on && c.ctas === 0 && port.hasRoom) {
      port.send(GpuKind.ctrlGate, { from: w.io.name });
      c.power = 'gating';
    } else if ((c.power === 'gated' || c.power === 'gating') && on && port.hasRoom) {
      port.send(GpuKind.ctrlWake, { from: w.io.name });
      c.power = 'waking';
    }
  }
}

/** After an event: the change, dispatch, then power control (an SM left without work may be gated). */
function afterEvent(context: SmwmContext, self: AnyActorRef, change?: (t: DispatchTables, io: UnitIo) => void): Partial<SmwmContext> {
  const w = wiringOf.get(self)!;
  const t = copyTables(context);
  change?.(t, w.io);
  dispatchCtas(t, env(w));
  reconcilePower(t, w);
  return t;
}

const isPolicy = (family: keyof SmwmContext['policyNames'], name: string) => ({ context }: { context: SmwmContext }) => context.policyNames[family] === name;

/** One region per policy family: `select` enters the state named after the configured policy. */
function policyRegion(family: keyof SmwmContext['policyNames'], registry: PolicyRegistry<any>) {
  const names = registry.names();
  return {
    initial: 'select',
    states: {
      select: { always: [...names.map((n) => ({ guard: `${family}Is_${n}`, target: n })), { target: 'other' }] },
      ...Object.fromEntries(names.map((n) => [n, {}])),
      other: {},
    },
  };
}

const policyGuards = Object.fromEntries(
  ([['kernelScheduler', kernelSchedulers], ['ctaScheduler', ctaSchedulers], ['activeCores', activeCorePolicies]] as const).flatMap(([family, reg]) => reg.names().map((n) => [`${family}Is_${n}`, isPolicy(family, n)])),
);

/** The SM Work Manager statechart (module-level; its instance reads spec from `input`). */
export const smWorkManagerMachine = setup({
  types: { context: {} as SmwmContext, input: {} as UnitIo, events: {} as SmwmEvent },
  actions: {
    scheduleLaunches: enqueueActions(({ enqueue, self }) => {
      const spec = wiringOf.get(self)!.spec;
      for (const plan of spec.launches) enqueue.raise({ type: 'kernel.launch', kernel: plan.kernel }, { delay: plan.atCycle + spec.launchLatencyCycles });
    }),
    launchKernel: assign(({ context, event, self }) =>
      afterEvent(context, self, (t, io) => {
        if (event.type !== 'kernel.launch') return;
        t.kernels.find((x) => x.kernel === event.kernel)!.state = 'launched';
        startReadyKernels(t.kernels, io.cycle);
      }),
    ),
    retireCta: assign(({ context, event, self }) =>
      afterEvent(context, self, (t, io) => {
        if (event.type === 'cta.done' && retireCta(t, wiringOf.get(self)!.spec.launches, event.message.payload, io.cycle)) startReadyKernels(t.kernels, io.cycle);
      }),
    ),
    applyAck: assign(({ context, event, self }) =>
      afterEvent(context, self, (t) => {
        if (event.type !== 'ctrl.ack') return;
        const sm = Number(event.message.dstPort.slice('status['.length, -1));
        const c = t.cores[sm]!;
        const state = event.message.payload.state;
        if (state === 'gated' && c.power === 'gating') c.power = 'gated';
        else if (state === 'active') {
          c.power = 'on';
          c.paused = false;
        } else if (state === 'paused' || state === 'draining') c.paused = true;
      }),
    ),
    dispatch: assign(({ context, self }) => afterEvent(context, self)),
    signalEndOfWork: ({ self }) => wiringOf.get(self)!.io.endOfWork(),
  },
  guards: {
    allDone: ({ context }) => context.kernels.every((k) => k.state === 'done'),
    noneRunning: ({ context }) => !context.kernels.some((k) => k.state === 'running' || k.state === 'launched'),
    ...policyGuards,
  },
}).createMachine({
  id: 'smWorkManager',
  type: 'parallel',
  context: ({ input, self }) => {
    const spec = input.spec as SmWorkManagerParams;
    const policies: SmwmPolicies = {
      kernelScheduler: choose(input, kernelSchedulers, spec.policies.kernelScheduler),
      ctaScheduler: choose(input, ctaSchedulers, spec.policies.ctaScheduler),
      activeCores: choose(input, activeCorePolicies, spec.policies.activeCores),
    };
    const n = spec.numSms;
    wiringOf.set(self, {
      io: input,
      spec,
      dispatch: Array.from({ length: n }, (_, i) => input.out(`dispatch[${i}]`)),
      ctrl: Array.from({ length: n }, (_, i) => input.out(`ctrl[${i}]`)),
      policies,
    });
    const kernels: KernelStatusRow[] = spec.launches.map((plan) => ({
      kernel: plan.kernel,
      ctaCount: plan.ctaCount,
      stream: plan.stream,
      state: 'pending',
      nextCta: 0,
      ctasDone: 0,
      startCycle: -1,
      endCycle: -1,
      warpInsts: 0,
      threadInsts: 0,
    }));
    // Statistics read from the current context when printed (GPGPU-Sim style kernel[<id>].*).
    const row = (i: number) => (self.getSnapshot().context as SmwmContext).kernels[i]!;
    spec.launches.forEach((plan, i) => {
      const name = `kernel[${plan.kernel}]`;
      const cycles = () => (row(i).endCycle >= 0 ? row(i).endCycle - row(i).startCycle : 0);
      input.stats.derived(`${name}.start_cycle`, () => row(i).startCycle, 'core cycle the kernel started dispatching', 'cycles');
      input.stats.derived(`${name}.gpu_sim_cycle`, cycles, 'core cycles from first dispatch to last CTA done', 'cycles');
      input.stats.derived(`${name}.gpu_sim_insn`, () => row(i).threadInsts, 'thread instructions', 'count');
      input.stats.derived(`${name}.warp_insts`, () => row(i).warpInsts, 'warp instructions', 'count');
      input.stats.derived(`${name}.gpu_ipc`, () => (cycles() > 0 ? row(i).threadInsts / cycles() : 0), 'thread instructions per core cycle', 'insn/cycle');
    });
    input.stats.derived(`${input.name}.ctas_dispatched`, () => (self.getSnapshot().context as SmwmContext).dispatched, 'CTAs dispatched to SMs', 'count');
    const cores: CoreStatusRow[] = Array.from({ length: n }, emptyCore);
    return {
      numSms: n,
      kernels,
      cores,
      rr: 0,
      dispatched: 0,
      policyNames: { kernelScheduler: policies.kernelScheduler.policy.name, ctaScheduler: policies.ctaScheduler.policy.name, activeCores: policies.activeCores.policy.name },
    };
  },
  entry: 'scheduleLaunches',
  on: { 'ctrl.ack': { actions: 'applyAck' } },
  states: {
    kernels: {
      initial: 'idle',
      states: {
        idle: {
          always: [{ guard: 'allDone', target: 'done' }],
          on: { 'kernel.launch': { target: 'active', actions: 'launchKernel' } },
        },
        active: {
          on: {
            'kernel.launch': { actions: 'launchKernel' },
            'cta.done': { actions: 'retireCta' },
            wake: { actions: 'dispatch' },
          },
          always: [{ guard: 'allDone', target: 'done' }, { guard: 'noneRunning', target: 'idle' }],
        },
        done: { type: 'final', entry: 'signalEndOfWork' },
      },
    },
    // Generated from the registries; typed loosely because guard names are built from them.
    mapping: policyRegion('kernelScheduler', kernelSchedulers) as any,
    coreCount: policyRegion('activeCores', activeCorePolicies) as any,
    ctaLimit: policyRegion('ctaScheduler', ctaSchedulers) as any,
  },
});

/** The unit kind `smWorkManager`. */
export const smWorkManager = defineUnit<SmWorkManagerParams>({
  kind: 'smWorkManager',
  description: 'SM Work Manager: kernel launch with latency, kernel status block, core status table, CTA dispatch with the four resource checks, SM lifecycle control; kernel, CTA and active-core policies by name from registries.',
  source: '000 §2.2.2, §4.4.2, Figs. 5.6-5.7; GPGPU-Sim issue_block2core; ../specs/cta-kernel-level.md §1.1-1.2',
  spec: smWorkManagerSpec,
  delivery: 'perMessage',
  machine: smWorkManagerMachine,
  ports: [
    { name: 'dispatch', direction: 'out', description: 'CTAs to SM i', messageKinds: [GpuKind.ctaDispatch], countParam: 'numSms', capacity: 16 },
    { name: 'done', direction: 'in', description: 'finished CTAs from SM i', messageKinds: [GpuKind.ctaDone], countParam: 'numSms', capacity: 16 },
    { name: 'ctrl', direction: 'out', description: 'lifecycle commands to SM i (gate, wake, pause, resume)', messageKinds: [GpuKind.ctrlPause, GpuKind.ctrlResume, GpuKind.ctrlGate, GpuKind.ctrlWake], countParam: 'numSms', capacity: 4, optional: true },
    { name: 'status', direction: 'in', description: "SM i's lifecycle acknowledgements", messageKinds: [GpuKind.ctrlAck], countParam: 'numSms', capacity: 4, optional: true },
  ],
  stats: [
    { name: 'ctas_dispatched', unit: 'count', description: 'CTAs dispatched to SMs' },
    { name: 'kernel[<id>].*', unit: '-', description: 'per kernel (GPGPU-Sim style, not prefixed by the instance): start_cycle, gpu_sim_cycle, gpu_sim_insn, warp_insts, gpu_ipc' },
  ],
  logic: () => smWorkManagerMachine,
  pendingWork: (snap: { context: SmwmContext }) => {
    const open = snap.context.kernels.filter((k) => k.state !== 'done');
    return open.length === 0 ? null : open.map((k) => `kernel ${k.kernel} ${k.state}: ${k.ctasDone}/${k.ctaCount} CTAs done, ${k.nextCta} dispatched`).join('; ');
  },
});
