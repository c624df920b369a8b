/**
 * Units: hardware blocks as XState actors, and the registry of unit kinds (DESIGN.md §3).
 *
 * A unit kind is described once by a {@link UnitDefinition}: its ports, its parameters (a zod
 * schema whose fields carry units in their descriptions), the statistics it produces and the
 * XState logic that implements it. The engine creates one actor per instance, passing a
 * {@link UnitIo} as the actor's `input`: the unit's only window on the world. Units never hold
 * each other's actor refs; they send on ports.
 */
import { fromTransition, type AnyActorLogic, type AnyStateMachine } from 'xstate';
import type { z } from 'zod';
import type { InPort, OutPort } from '../messaging/port.ts';
import type { Counter, Histogram, StatsRegistry, TimeSeries } from '../stats/registry.ts';
import type { Prng } from './prng.ts';
import type { ClockDomain, Picoseconds } from './time.ts';

/** One port (or port array) of a unit kind. */
export interface PortDescriptor {
  /** Port name; an array port `in` with count 4 gives instances `in[0]`..`in[3]`. */
  readonly name: string;
  readonly direction: 'in' | 'out';
  readonly description: string;
  /**
   * Message kinds that travel on this port (see `src/protocol/`). `'*'` accepts any kind (a
   * pass-through unit such as a generic crossbar). {@link Engine.connect} refuses a link whose
   * out-port may send a kind its in-port does not accept.
   */
  readonly messageKinds: readonly string[];
  /** The port may stay unconnected (a `ctrl`/`status` port nobody drives). Default false. */
  readonly optional?: boolean;
  /** For port arrays: the name of the numeric parameter giving the count. */
  readonly countParam?: string;
  /** Buffer capacity in messages, or the name of the numeric parameter giving it. Default 2. */
  readonly capacity?: number | string;
}

/** One statistic a unit kind produces (registered as `<instance>.<name>`). */
export interface StatDescriptor {
  readonly name: string;
  readonly unit: string;
  readonly description: string;
  /**
   * Name of the GPU-wide statistic that sums this one over every instance of the kind (e.g.
   * `gpu_l1d_accesses` for `l1d_accesses`); the topology registers the sum from this field.
   */
  readonly gpuTotal?: string;
  /** Values of the `<placeholder>` in a templated name (`l1d_res_fail_<reason>`), for `gpuTotal`. */
  readonly variants?: readonly string[];
}

/** A unit instance's spec and injected resources, as a topology adds it to the engine. */
export interface UnitInstanceConfig<S = unknown, R = object> {
  readonly spec: S;
  readonly resources?: R;
}

/**
 * How the engine hands messages to the actor.
 * - `batch`: one `{type: 'wake'}` event per unit per time at most; the unit pops its in-ports.
 *   For datapath units (DESIGN.md §3: never a statechart event per message).
 * - `perMessage`: each arriving message becomes one event `{type: message.kind, message}`.
 *   For control statecharts, whose message rate is low.
 */
export type DeliveryMode = 'batch' | 'perMessage';

/**
 * An object injected into a unit instance that is not a parameter (DESIGN.md §3 "contract"):
 * run-wide context such as the kernel table, an address decoder or a routing function. Specs
 * stay JSON (printable, hashable); resources carry what cannot be JSON.
 */
export interface ResourceDescriptor {
  /** Key in the resources object, e.g. `context`. */
  readonly name: string;
  /** What it is and who provides it. */
  readonly description: string;
  /** The unit works without it (a default is stated in the description). Default false. */
  readonly optional?: boolean;
}

/** Describes a unit kind; registered in a {@link UnitRegistry}. */
export interface UnitDefinition<P = any, R = any> {
  /** Kind name used in scenarios, camelCase, e.g. `fixedLatencyMemory`. */
  readonly kind: string;
  /** One-paragraph description. */
  readonly description: string;
  /** Where the model comes from (paper section, GPGPU-Sim option), if anywhere. */
  readonly source?: string;
  /**
   * The unit's Spec: a zod schema of JSON parameters whose `.describe()` texts give units
   * (cycles, bytes) and sources. Defaults fill omitted fields. Scenarios and GPU config
   * `extensions` entries are validated by it.
   */
  readonly spec: z.ZodType<P, any>;
  /** Injected objects the instance needs besides its spec (see {@link ResourceDescriptor}). */
  readonly resources?: readonly ResourceDescriptor[];
  readonly ports: readonly PortDescriptor[];
  readonly stats: readonly StatDescriptor[];
  readonly delivery: DeliveryMode;
  /**
   * Builds the actor logic; the actor's input is the instance's {@link UnitIo} (which also
   * carries `spec` and `resources`, so module-level machines can read them from `input`).
   */
  readonly logic: (spec: P, resources: R) => AnyActorLogic;
  /**
   * The statechart a person reads for this kind (`warpstate units <kind> --diagram`): the logic
   * itself for a statechart unit, or the control statechart of a datapath unit (its lifecycle).
   */
  readonly machine?: AnyStateMachine;
  /**
   * End-of-run hook, called once by {@link Engine.finalize} with the actor's snapshot at the
   * run's end time: closes intervals still open (a paused or gated unit) and flushes counts.
   */
  readonly finalize?: (snapshot: any) => void;
  /**
   * Describes pending work for deadlock reports (e.g. `3 requests queued`), or `null` when the
   * unit is idle. Receives the actor's current snapshot.
   */
  readonly pendingWork?: (snapshot: any) => string | null;
}

/** Identity helper that keeps the params type of a unit definition. */
export function defineUnit<P, R = Record<string, never>>(definition: UnitDefinition<P, R>): UnitDefinition<P, R> {
  return definition;
}

/**
 * Actor logic of a batch-delivery datapath unit: `step(state)` runs on every `wake` (the only
 * event the engine sends such a unit); the state is created by `initial` from the unit's
 * {@link UnitIo} and mutated in place, so the hot path allocates nothing (DESIGN.md §3).
 */
export function wakeLogic<S>(step: (state: S) => void, initial: ({ input }: { input: UnitIo }) => S) {
  const logic = fromTransition(
    (state: S, event: { type: string }) => {
      if (event.type === 'wake') step(state);
      return state;
    },
    initial,
  );
  return withDirectWake(logic, step as (state: unknown) => void);
}

/**
 * Key of the direct wake of a datapath unit's logic: the function the XState reducer runs on a
 * `wake`, which the engine calls on the actor's own state (its snapshot's `context`, mutated in
 * place) without a trip through the actor's mailbox (DESIGN.md §3, issue 11). A `wake` carries no
 * data and the reducer returns the same state object, so both paths do exactly the same work.
 */
export const DIRECT_WAKE: unique symbol = Symbol.for('warpstate.directWake');

/** Logic carrying a {@link DIRECT_WAKE} function. */
export type DirectWakeLogic<L> = L & { readonly [DIRECT_WAKE]: (state: unknown) => void };

/** Attaches the direct wake `step` to `logic` (see {@link DIRECT_WAKE}). */
function withDirectWake<L extends object>(logic: L, step: (state: unknown) => void): DirectWakeLogic<L> {
  return Object.assign(logic, { [DIRECT_WAKE]: step }) as DirectWakeLogic<L>;
}

/**
 * Actor logic of a clocked datapath unit that does its work at most once per cycle of its
 * clock: a second wake in a cycle it already processed (a message and a timer landing on the
 * same edge) asks for the next cycle instead of running `step` again. `step(state, cycle)`
 * receives the current cycle. The guard keeps its io and last cycle in the closure of each
 * instance (not in the unit's state), so the shared reducer reads no per-kind state shape on
 * the hot path.
 */
export function cycleLogic<S>(step: (state: S, cycle: number) => void, initial: ({ input }: { input: UnitIo }) => S) {
  let io: UnitIo | null = null;
  let lastCycle = -1;
  const wake = (state: S): void => {
    const cycle = io!.cycle;
    if (cycle === lastCycle) {
      io!.wakeInCycles(1);
      return;
    }
    lastCycle = cycle;
    step(state, cycle);
  };
  const logic = fromTransition(
    (state: S, event: { type: string }) => {
      if (event.type === 'wake') wake(state);
      return state;
    },
    (args: { input: UnitIo }) => {
      io = args.input;
      return initial(args);
    },
  );
  return withDirectWake(logic, wake as (state: unknown) => void);
}

/** A span of activity on a unit, for traces (busy interval, outstanding request, stall). */
export interface SpanRecord {
  readonly unit: string;
  readonly name: string;
  /** Start and end, ps. */
  readonly start: Picoseconds;
  readonly end: Picoseconds;
  /** Message id this span belongs to, or -1. */
  readonly msgId: number;
  /** Why the work waited, when it is a stall (`mshrFull`, `portFull`, `bankBusy`, ...). */
  readonly reason?: string;
  readonly tags?: Readonly<Record<string, string | number | boolean>>;
}

/**
 * A unit instance's window on the simulator: its ports, clock, timers, PRNG, statistics and
 * trace hooks. Passed as the actor's `input`.
 */
export interface UnitIo {
  /** Hierarchical instance name, e.g. `GPU.SM[3].L1D`. */
  readonly name: string;
  /** Kind name. */
  readonly kind: string;
  /** The instance's validated spec (its definition's `spec` schema output). */
  readonly spec: unknown;
  /** The instance's injected resources (see {@link UnitDefinition.resources}). */
  readonly resources: unknown;
  /** The unit's clock domain. */
  readonly clock: ClockDomain;
  /** Current simulated time, ps. */
  readonly now: Picoseconds;
  /** Current cycle of the unit's clock (last edge at or before `now`). */
  readonly cycle: number;
  /** Per-instance PRNG stream (forked from the run seed by instance name). */
  readonly prng: Prng;
  /**
   * Output port by name (`req`, `out[2]`).
   * @throws SimulationError for an unknown port
   */
  out(port: string): OutPort;
  /**
   * Input port by name.
   * @throws SimulationError for an unknown port
   */
  in(port: string): InPort;
  /** Wakes this unit at time `time` ps (>= now); duplicates at one time fold into one wake. */
  wakeAt(time: Picoseconds): void;
  /** Wakes this unit `cycles` (>= 1) edges of its clock after the current edge. */
  wakeInCycles(cycles: number): void;
  /** Registers a counter named `<instance>.<name>`. */
  counter(name: string, description?: string, unit?: string): Counter;
  /** Registers a histogram named `<instance>.<name>`. */
  histogram(name: string, bounds: readonly number[], description?: string, unit?: string): Histogram;
  /**
   * Registers a time series named `<instance>.<name>`, sampled by the engine every
   * `sampleInterval` of the scenario (e.g. a queue length).
   */
  timeSeries(name: string, read: () => number, description?: string, unit?: string): TimeSeries;
  /**
   * End-of-run signal: the workload this unit drives is complete (the SM Work Manager calls it
   * when every kernel has finished). The run then ends as soon as only statechart timers and
   * samplers remain queued, so a pending controller timer never moves the end time.
   */
  endOfWork(): void;
  /** The run's statistics registry (for global stats). */
  readonly stats: StatsRegistry;
  /** True when someone observes spans: build span tags only then. */
  readonly tracing: boolean;
  /** Emits a span (no-op when nobody observes). */
  span(name: string, start: Picoseconds, end: Picoseconds, msgId?: number, reason?: string, tags?: Record<string, string | number | boolean>): void;
}

/** Registry of unit kinds by name. */
export class UnitRegistry {
  private readonly kinds = new Map<string, UnitDefinition>();

  /**
   * Adds a kind.
   * @throws Error when the kind name is taken
   */
  register(definition: UnitDefinition): void {
    if (this.kinds.has(definition.kind)) throw new Error(`unit kind '${definition.kind}' registered twice`);
    this.kinds.set(definition.kind, definition);
  }

  /** The definition of `kind`, or `undefined`. */
  get(kind: string): UnitDefinition | undefined {
    return this.kinds.get(kind);
  }

  /** Every kind, sorted by name. */
  list(): UnitDefinition[] {
    return [...this.kinds.values()].sort((a, b) => a.kind.localeCompare(b.kind));
  }
}
