/**
 * The unit lifecycle every SM unit shares (DESIGN.md §3 "control logic is a statechart"):
 * `active` -> `ctrl.pause` -> `draining` (no new work is started; in-flight work completes) ->
 * `paused` once the datapath reports it has drained; `ctrl.resume` returns to `active`;
 * `ctrl.gate` power-gates a unit that holds no work (`gated`), `ctrl.wake` ungates it.
 *
 * Sources: 000 §4.4.2.3 (ONAC / Seq-Det pause cores and wait for in-flight instructions before
 * sampling; unused cores are power-gated), `../specs/cta-kernel-level.md` §1.2 (the control
 * protocol). The statechart sees only control messages (a handful per run), never the per-cycle
 * datapath, so its cost is off the hot path: the datapath reads {@link Lifecycle.state}, a plain
 * field, each cycle.
 */
import { createActor, setup, type Actor } from 'xstate';
import { SimulationError } from '../errors.ts';
import type { Message } from '../messaging/message.ts';
import type { InPort, OutPort } from '../messaging/port.ts';
import type { PortDescriptor, UnitIo } from './unit.ts';

/** Lifecycle states of a unit. */
export type LifecycleState = 'active' | 'draining' | 'paused' | 'gated';

/** Events of {@link unitLifecycleMachine}: the `ctrl.*` message kinds plus the datapath's report. */
export type LifecycleEvent =
  | { type: 'ctrl.pause' }
  | { type: 'ctrl.resume' }
  | { type: 'ctrl.gate'; idle: boolean }
  | { type: 'ctrl.wake' }
  | { type: 'lifecycle.drained' };

/**
 * The lifecycle statechart, module-level so `warpstate units <kind> --diagram` can export it.
 * Guard `holdsNoWork`: a unit is gated only when it holds no work (the `ctrl.gate` event says so);
 * a refused gate leaves the state unchanged.
 */
export const unitLifecycleMachine = setup({
  types: { events: {} as LifecycleEvent },
  guards: {
    holdsNoWork: ({ event }) => event.type === 'ctrl.gate' && event.idle,
  },
}).createMachine({
  id: 'unitLifecycle',
  initial: 'active',
  states: {
    active: {
      on: {
        'ctrl.pause': { target: 'draining' },
        'ctrl.gate': { guard: 'holdsNoWork', target: 'gated' },
      },
    },
    draining: {
      on: {
        'lifecycle.drained': { target: 'paused' },
        'ctrl.resume': { target: 'active' },
      },
    },
    paused: {
      on: {
        'ctrl.resume': { target: 'active' },
        'ctrl.gate': { guard: 'holdsNoWork', target: 'gated' },
      },
    },
    gated: {
      on: { 'ctrl.wake': { target: 'active' } },
    },
  },
});

const STATES: readonly LifecycleState[] = ['active', 'draining', 'paused', 'gated'];

/**
 * A datapath unit's handle on its lifecycle: forwards `ctrl.*` messages to the statechart,
 * mirrors its state in a plain field, acknowledges each state reached on the unit's `status`
 * port (`ctrl.ack`), and counts cycles per state. The statechart actor and the statistics
 * (`<unit>.lifecycle_<state>_cycles`) are created on the first control message, so a run that
 * never drives the lifecycle pays nothing and prints no extra statistics.
 */
export class Lifecycle {
  /** Current state (read every cycle by the datapath). */
  state: LifecycleState = 'active';
  /** Cycles spent in each state, closed intervals only (see {@link cyclesIn}). */
  private readonly closed = [0, 0, 0, 0];
  private since = 0;
  private actor: Actor<typeof unitLifecycleMachine> | null = null;
  private readonly io: UnitIo;
  private readonly status: OutPort | null;
  private finalizedAt = -1;

  /**
   * @param io the unit's io (clock, statistics)
   * @param status the unit's `status` out-port, or null when it has none; an ack that finds the
   *   port full is dropped (acks are informative; the controller can read the state from stats)
   */
  constructor(io: UnitIo, status: OutPort | null) {
    this.io = io;
    this.status = status;
  }

  /** True while the unit may start new work (state `active`). */
  get running(): boolean {
    return this.state === 'active';
  }

  /**
   * Handles one control message (`ctrl.pause|resume|gate|wake`).
   * @param idle whether the unit holds no work now (guards `ctrl.gate`)
   */
  handle(msg: Message, idle: boolean): void {
    const kind = msg.kind;
    if (kind === 'ctrl.gate') this.send({ type: 'ctrl.gate', idle });
    else if (kind === 'ctrl.pause' || kind === 'ctrl.resume' || kind === 'ctrl.wake') this.send({ type: kind });
  }

  /** The datapath reports that in-flight work has drained (moves `draining` to `paused`). */
  drained(): void {
    if (this.state === 'draining') this.send({ type: 'lifecycle.drained' });
  }

  /** Cycles spent in `state` up to `cycle` (the open interval included). */
  cyclesIn(state: LifecycleState, cycle: number): number {
    const i = STATES.indexOf(state);
    return this.closed[i]! + (this.state === state && this.actor !== null ? Math.max(0, cycle - this.since) : 0);
  }

  /** End of run: closes the open interval at the unit's current cycle (idempotent). */
  finalize(): void {
    if (this.actor === null || this.finalizedAt >= 0) return;
    const cycle = this.io.cycle;
    this.closed[STATES.indexOf(this.state)]! += Math.max(0, cycle - this.since);
    this.since = cycle;
    this.finalizedAt = cycle;
  }

  private send(event: LifecycleEvent): void {
    if (this.actor === null) this.start();
    this.actor!.send(event);
  }

  private start(): void {
    const io = this.io;
    this.since = io.cycle;
    const actor = createActor(unitLifecycleMachine);
    this.actor = actor;
    for (const st of STATES) {
      io.stats.derived(`${io.name}.lifecycle_${st}_cycles`, () => this.cyclesIn(st, this.finalizedAt >= 0 ? this.finalizedAt : io.cycle), `cycles the unit spent ${st} (lifecycle statechart)`, 'cycles');
    }
    actor.subscribe((snap) => {
      const next = snap.value as LifecycleState;
      if (next === this.state) return;
      const cycle = io.cycle;
      this.closed[STATES.indexOf(this.state)]! += cycle - this.since;
      this.since = cycle;
      this.state = next;
      if (this.status !== null && this.status.hasRoom) this.status.send('ctrl.ack', { unit: io.name, state: next, cycle });
    });
    actor.start();
  }
}

/** Lifecycle command kinds a `ctrl` port accepts. */
const CTRL_MESSAGE_KINDS = ['ctrl.pause', 'ctrl.resume', 'ctrl.gate', 'ctrl.wake'];

/**
 * The two optional control ports every SM unit declares: `ctrl` (in: lifecycle commands) and
 * `status` (out: `ctrl.ack`). Connected by the topology where a controller drives the unit.
 */
export function controlPorts(what: string): PortDescriptor[] {
  return [
    { name: 'ctrl', direction: 'in', description: `lifecycle commands (pause: ${what}; gate: only when it holds no work)`, messageKinds: CTRL_MESSAGE_KINDS, capacity: 4, optional: true },
    { name: 'status', direction: 'out', description: 'lifecycle acknowledgements (ctrl.ack)', messageKinds: ['ctrl.ack'], capacity: 4, optional: true },
  ];
}

/**
 * A datapath unit's per-cycle control service: applies waiting control messages, reports
 * `drained` once a draining unit holds no work, and refuses work that arrives while gated.
 * Costs two comparisons per cycle when no control message ever arrives.
 * @param holdsNoWork the unit holds nothing (guards `ctrl.gate`, completes a pause)
 * @param arrivals messages waiting in the unit's work in-ports
 * @returns whether the unit may start new work this cycle (lifecycle `active`)
 * @throws SimulationError when work arrives at a gated unit
 */
export function serviceLifecycle(lifecycle: Lifecycle, ctrl: InPort, holdsNoWork: boolean, arrivals: number, unit: string): boolean {
  if (ctrl.length > 0) {
    let m: Message | undefined;
    while ((m = ctrl.recv()) !== undefined) lifecycle.handle(m, holdsNoWork && arrivals === 0);
  }
  const state = lifecycle.state;
  if (state === 'active') return true;
  if (state === 'gated' && arrivals > 0) throw new SimulationError(`${unit}: work arrived while the unit is power-gated`);
  if (state === 'draining' && holdsNoWork) lifecycle.drained();
  return false;
}
