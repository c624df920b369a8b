/**
 * powerGatingController: a per-SM power-gating controller statechart, spliced by config alone
 * into the SM's control path (splice point `sm.ctrl`: between the SM Work Manager's `ctrl[i]` /
 * `status[i]` and the SM issue stage's `ctrl` / `status`). The second worked example of
 * `machines/README.md`.
 *
 * It models the two costs that decide whether gating an idle core pays (000 §4.4.2, §4.4.4:
 * unused cores are power-gated to remove their static power; Hu et al., "Microarchitectural
 * techniques for power gating of execution units", ISLPED 2004: idle-detect window and
 * break-even time):
 * - **idle detect**: a `ctrl.gate` from above starts a window of `idleDetectCycles`; only if no
 *   `ctrl.wake` arrives in it is the SM gated (a short idle period is not worth the energy of
 *   switching the power gate);
 * - **wake-up latency**: a `ctrl.wake` for a gated SM reaches it only `wakeupCycles` later (the
 *   power rail must settle), and the SM is usable when it acknowledges `active`.
 * Every other command (`ctrl.pause`, `ctrl.resume`) and every acknowledgement passes through.
 * The SM refuses a gate while it holds a CTA (its lifecycle guard `holdsNoWork`); then no ack
 * comes and after `ackTimeoutCycles` the controller returns to `powered`. When a gate request is
 * withdrawn or refused, the SM never left `active` and acknowledges nothing, so the controller
 * acknowledges `active` upward itself (the requester must not wait for a state change).
 *
 * Statechart (all transitions named; `warpstate units powerGatingController --diagram mermaid`):
 * `powered` -ctrl.gate-> `idleDetect` -after idleDetectCycles / sendGate-> `gating`
 * -ack gated-> `gated` -ctrl.wake-> `waking` -after wakeupCycles / sendWake-> `wakingAck`
 * -ack active-> `powered`; `idleDetect` -ctrl.wake-> `powered` (gate avoided); `gating`
 * -after ackTimeoutCycles-> `powered` (refused); a wake that arrives while `gating` is kept
 * (`wakeRequested`) and served as soon as the gate is acknowledged.
 */
import { assign, setup, type AnyActorRef } from 'xstate';
import { z } from 'zod';
import type { Message } from '../../src/messaging/message.ts';
import { defineUnit, type UnitIo } from '../../src/sim/unit.ts';
import { GpuKind, type CtrlAck } from '../../src/protocol/gpu.ts';

/** Spec of {@link powerGatingController}. */
export const powerGatingControllerSpec = z.strictObject({
  idleDetectCycles: z.int().min(1).max(1_000_000).default(200).describe('cycles a gate request must stand unwithdrawn before the SM is gated (core cycles)'),
  wakeupCycles: z.int().min(1).max(1_000_000).default(50).describe('cycles from a wake request to the wake command reaching the SM (power-rail settling; core cycles)'),
  ackTimeoutCycles: z.int().min(1).max(1_000_000).default(16).describe('cycles to wait for the SM to acknowledge a gate before taking it as refused (core cycles)'),
});

/** Spec of {@link powerGatingController}: idle-detect window, wake-up latency, ack timeout. */
export type PowerGatingControllerSpec = z.infer<typeof powerGatingControllerSpec>;

/** JSON-serialisable statechart context. */
export interface PowerGatingContext {
  readonly spec: PowerGatingControllerSpec;
  /** A wake arrived while the gate was in flight. */
  wakeRequested: boolean;
  gateRequests: number;
  gates: number;
  gatesAvoided: number;
  gatesRefused: number;
  wakes: number;
}

/** Events: control messages from above and acknowledgements from below (kind = event type). */
type PgEvent =
  | { type: 'ctrl.gate'; message: Message }
  | { type: 'ctrl.wake'; message: Message }
  | { type: 'ctrl.pause'; message: Message }
  | { type: 'ctrl.resume'; message: Message }
  | { type: 'ctrl.ack'; message: Message<CtrlAck> }
  | { type: 'wake' };

/** The io of each running instance, kept out of the (JSON-serialisable) context. */
const ioOf = new WeakMap<AnyActorRef, UnitIo>();

function down(self: AnyActorRef, kind: string): void {
  const io = ioOf.get(self)!;
  io.out('bottomOut').send(kind, { from: io.name });
}

function forward(self: AnyActorRef, port: 'bottomOut' | 'topOut', msg: Message): void {
  ioOf.get(self)!.out(port).send(msg.kind, msg.payload);
}

/** Statistics read from the actor's context when printed (nothing counted twice). */
const STATS: readonly [keyof PowerGatingContext, string, string][] = [
  ['gateRequests', 'pg_gate_requests', 'gate requests received from above'],
  ['gates', 'pg_gates', 'times the SM was power-gated'],
  ['gatesAvoided', 'pg_gates_avoided', 'gate requests withdrawn (ctrl.wake) inside the idle-detect window'],
  ['gatesRefused', 'pg_gates_refused', 'gates the SM refused (it held a CTA): no acknowledgement within ackTimeoutCycles'],
  ['wakes', 'pg_wakes', 'times the SM was woken from gating'],
];

const isAck = (state: CtrlAck['state']) => ({ event }: { event: PgEvent }) => event.type === 'ctrl.ack' && event.message.payload.state === state;

/** The controller statechart (module-level, parametrised by the unit's spec through `input`). */
export const powerGatingMachine = setup({
  types: {
    context: {} as PowerGatingContext,
    input: {} as UnitIo,
    events: {} as PgEvent,
  },
  actions: {
    passDown: ({ self, event }) => {
      if (event.type !== 'wake' && event.type !== 'ctrl.ack') forward(self, 'bottomOut', event.message);
    },
    passUp: ({ self, event }) => {
      if (event.type === 'ctrl.ack') forward(self, 'topOut', event.message);
    },
    sendGate: ({ self }) => down(self, GpuKind.ctrlGate),
    // The SM never left `active`: tell the requester so, since the SM itself acknowledges nothing.
    ackActiveUp: ({ self }) => {
      const io = ioOf.get(self)!;
      const ack: CtrlAck = { unit: io.name, state: 'active', cycle: io.cycle };
      io.out('topOut').send(GpuKind.ctrlAck, ack);
    },
    sendWake: ({ self }) => down(self, GpuKind.ctrlWake),
    countGateRequest: assign({ gateRequests: ({ context }) => context.gateRequests + 1 }),
    countGate: assign({ gates: ({ context }) => context.gates + 1 }),
    countGateAvoided: assign({ gatesAvoided: ({ context }) => context.gatesAvoided + 1 }),
    countGateRefused: assign({ gatesRefused: ({ context }) => context.gatesRefused + 1 }),
    countWake: assign({ wakes: ({ context }) => context.wakes + 1 }),
    rememberWake: assign({ wakeRequested: true }),
    forgetWake: assign({ wakeRequested: false }),
  },
  guards: {
    ackGated: isAck('gated'),
    ackActive: isAck('active'),
    wakeRequested: ({ context }) => context.wakeRequested,
  },
  delays: {
    idleDetect: ({ context }) => context.spec.idleDetectCycles,
    wakeup: ({ context }) => context.spec.wakeupCycles,
    ackTimeout: ({ context }) => context.spec.ackTimeoutCycles,
  },
}).createMachine({
  id: 'powerGatingController',
  context: ({ input, self }) => {
    ioOf.set(self, input);
    for (const [key, name, description] of STATS) {
      input.stats.derived(`${input.name}.${name}`, () => self.getSnapshot().context[key] as number, description, 'count');
    }
    return { spec: input.spec as PowerGatingControllerSpec, wakeRequested: false, gateRequests: 0, gates: 0, gatesAvoided: 0, gatesRefused: 0, wakes: 0 };
  },
  initial: 'powered',
  on: {
    // Acknowledgements always travel up; pause/resume always travel down.
    'ctrl.ack': { actions: 'passUp' },
    'ctrl.pause': { actions: 'passDown' },
    'ctrl.resume': { actions: 'passDown' },
  },
  states: {
    powered: {
      on: { 'ctrl.gate': { target: 'idleDetect', actions: 'countGateRequest' } },
    },
    idleDetect: {
      after: { idleDetect: { target: 'gating', actions: 'sendGate' } },
      on: { 'ctrl.wake': { target: 'powered', actions: ['countGateAvoided', 'ackActiveUp'] } },
    },
    gating: {
      after: { ackTimeout: { target: 'powered', actions: ['countGateRefused', 'ackActiveUp'] } },
      on: {
        'ctrl.ack': [
          { guard: 'ackGated', target: 'gated', actions: ['passUp', 'countGate'] },
          { actions: 'passUp' },
        ],
        'ctrl.wake': { actions: 'rememberWake' },
      },
    },
    gated: {
      always: { guard: 'wakeRequested', target: 'waking', actions: 'forgetWake' },
      on: { 'ctrl.wake': { target: 'waking' } },
    },
    waking: {
      after: { wakeup: { target: 'wakingAck', actions: 'sendWake' } },
    },
    wakingAck: {
      on: {
        'ctrl.ack': [
          { guard: 'ackActive', target: 'powered', actions: ['passUp', 'countWake'] },
          { actions: 'passUp' },
        ],
      },
    },
  },
});

/** The unit kind `powerGatingController`. */
export const powerGatingController = defineUnit<PowerGatingControllerSpec>({
  kind: 'powerGatingController',
  description: 'Per-SM power-gating controller statechart on the SM control path: idle-detect window before gating, wake-up latency before the SM is usable again.',
  source: '000 §4.4.2 and §4.4.4 (power-gating unused cores); Hu et al., ISLPED 2004 (idle detect, break-even); example block of machines/README.md',
  spec: powerGatingControllerSpec,
  delivery: 'perMessage',
  machine: powerGatingMachine,
  ports: [
    { name: 'topIn', direction: 'in', description: 'commands from the SM Work Manager', messageKinds: [GpuKind.ctrlPause, GpuKind.ctrlResume, GpuKind.ctrlGate, GpuKind.ctrlWake], capacity: 4 },
    { name: 'topOut', direction: 'out', description: "the SM's acknowledgements, passed up", messageKinds: [GpuKind.ctrlAck], capacity: 4 },
    { name: 'bottomOut', direction: 'out', description: 'commands to the SM', messageKinds: [GpuKind.ctrlPause, GpuKind.ctrlResume, GpuKind.ctrlGate, GpuKind.ctrlWake], capacity: 4 },
    { name: 'bottomIn', direction: 'in', description: "the SM's acknowledgements", messageKinds: [GpuKind.ctrlAck], capacity: 4 },
  ],
  stats: [
    { name: 'pg_gate_requests', unit: 'count', description: 'gate requests received from above' },
    { name: 'pg_gates', unit: 'count', description: 'times the SM was power-gated', gpuTotal: 'gpu_pg_gates' },
    { name: 'pg_gates_avoided', unit: 'count', description: 'gate requests withdrawn inside the idle-detect window' },
    { name: 'pg_gates_refused', unit: 'count', description: 'gates the SM refused (it held a CTA)' },
    { name: 'pg_wakes', unit: 'count', description: 'times the SM was woken from gating', gpuTotal: 'gpu_pg_wakes' },
  ],
  logic: () => powerGatingMachine,
  pendingWork: () => null,
});
