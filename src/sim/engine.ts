/**
 * The simulation engine: one global event queue, clock domains, unit actors, ports and links,
 * and RxJS observation streams (DESIGN.md §2-§4).
 *
 * Units are XState v5 actors whose input is their {@link UnitIo}. The engine delivers messages
 * by waking units (batched: one `{type: 'wake'}` per unit per time) or, for control statecharts,
 * one event per message. Statechart `after` delays run on a clock adapter over the same queue,
 * counted in cycles of the unit's clock. Everything is ordered by (time, priority, sequence), so
 * a scenario and its seed give the same trace and statistics on every run.
 */
import { Subject } from 'rxjs';
import { createActor, StateMachine, type AnyActorRef } from 'xstate';
import { SimulationError } from '../errors.ts';
import { Link, type LinkHost, type LinkSpec } from '../messaging/link.ts';
import type { Message } from '../messaging/message.ts';
import { InPort, OutPort, type PortHost, type PortOwner } from '../messaging/port.ts';
import { DEFAULT_SAMPLE_LIMIT, StatsRegistry, type Counter, type Histogram, type TimeSeries } from '../stats/registry.ts';
import { EventQueue, Priority, type EventHandler, type EventRecord } from './event-queue.ts';
import { Prng } from './prng.ts';
import { ClockDomain, type Picoseconds } from './time.ts';
import { DIRECT_WAKE, type DeliveryMode, type SpanRecord, type UnitDefinition, type UnitIo } from './unit.ts';

/** A change of a statechart unit's state value. */
export interface StateChange {
  readonly time: Picoseconds;
  readonly unit: string;
  /** The state value, JSON-encoded when nested (e.g. `{"active":"issuing"}`). */
  readonly value: string;
}

/**
 * One record of XState's inspection API for a statechart unit (`--inspect`): an event it
 * received, or the snapshot an event produced.
 */
export interface InspectionRecord {
  /** Simulated time, ps. */
  readonly time: Picoseconds;
  readonly unit: string;
  /** `event` (an event reached the actor) or `snapshot` (the state after an event). */
  readonly kind: 'event' | 'snapshot';
  /** The event type (a message kind, `wake`, `kernel.launch`, `xstate.after...`). */
  readonly event: string;
  /** The state value after the event, JSON-encoded when nested (snapshot records only). */
  readonly state?: string;
}

/** A port buffer occupancy sample. */
export interface OccupancySample {
  readonly time: Picoseconds;
  /** `unit.port`. */
  readonly port: string;
  readonly value: number;
}

/** Engine construction options. */
export interface EngineOptions {
  /** Run seed (32-bit). Default 1. */
  seed?: number;
  /** Interval between time-series samples, ps; 0 disables sampling. Default 0. */
  sampleIntervalPs?: Picoseconds;
  /**
   * Points each time series keeps in memory (scenario `sampleLimit`); past it a series is
   * down-sampled 2:1 in place (see `TimeSeries`), while `samples$` still streams every raw
   * sample. An integer >= 1. Default {@link DEFAULT_SAMPLE_LIMIT} (4096).
   */
  sampleLimit?: number;
  /**
   * When false, observation hooks are compiled out of the hot path (streams never fire).
   * Used only by the benchmark to measure the cost of tracing being off. Default true.
   */
  observable?: boolean;
}

/**
 * Why {@link Engine.run} returned. `finished`: a unit signalled the end of its workload
 * (`UnitIo.endOfWork`) and only statechart timers and sampler ticks were left queued.
 */
export type StopReason = 'idle' | 'timeLimit' | 'predicate' | 'paused' | 'finished';

/** Outcome of a run call. */
export interface RunResult {
  readonly reason: StopReason;
  /** Simulated time at return, ps. */
  readonly time: Picoseconds;
  /** Units that still report pending work (only meaningful when `reason` is `idle`). */
  readonly pendingUnits: readonly { unit: string; work: string }[];
}

const WAKE_EVENT = { type: 'wake' } as const;

/** A port with the engine's occupancy-coalescing marks (set only while occupancy is observed). */
type OccupancyTracked = (OutPort | InPort) & { occupancyPending?: boolean; occupancyReported?: number; scopeGen?: number; inScope?: boolean };

/** Per-instance runtime: the unit's io, its actor and its wake bookkeeping. */
class UnitRuntime implements UnitIo, PortOwner, EventHandler {
  readonly name: string;
  readonly kind: string;
  readonly clock: ClockDomain;
  readonly prng: Prng;
  readonly definition: UnitDefinition;
  readonly spec: unknown;
  readonly resources: unknown;
  readonly delivery: DeliveryMode;
  readonly outPorts = new Map<string, OutPort>();
  readonly inPorts = new Map<string, InPort>();
  /** In-ports in declaration order (perMessage draining order). */
  readonly inPortList: InPort[] = [];
  actor: AnyActorRef | null = null;
  isStatechart = false;
  /** The logic's direct wake ({@link DIRECT_WAKE}) and the actor's state it runs on, or null. */
  directWake: ((state: unknown) => void) | null = null;
  directState: unknown = null;
  failure: unknown = null;
  private readonly engine: Engine;
  /** Times at which a wake is already queued (small, usually 0-2 entries). */
  private readonly wakeTimes: number[] = [];
  /** A wake requested for a reason other than an arrival (timer, port room, start). */
  private explicitWake = false;

  constructor(engine: Engine, name: string, definition: UnitDefinition, clock: ClockDomain, spec: unknown, resources: unknown) {
    this.engine = engine;
    this.name = name;
    this.kind = definition.kind;
    this.definition = definition;
    this.clock = clock;
    this.spec = spec;
    this.resources = resources;
    this.delivery = definition.delivery;
    this.prng = engine.prng.fork(name);
  }

  get now(): Picoseconds {
    return this.engine.now;
  }

  get cycle(): number {
    return this.clock.cycleAt(this.engine.now);
  }

  get stats(): StatsRegistry {
    return this.engine.stats;
  }

  get tracing(): boolean {
    const engine = this.engine;
    if (!engine.spansObserved) return false;
    if (this.scopeGen !== engine.scopeGen) {
      this.scopeGen = engine.scopeGen;
      this.inScope = engine.inObservationScope(this.name);
    }
    return this.inScope;
  }

  /** {@link Engine.scopeGen} when {@link inScope} was computed. */
  private scopeGen = -1;
  /** Whether this unit's spans are wanted under the engine's observation scope. */
  private inScope = true;

  out(port: string): OutPort {
    const p = this.outPorts.get(port);
    if (p === undefined) throw new SimulationError(`unit ${this.name} (${this.kind}) has no output port '${port}'`);
    return p;
  }

  in(port: string): InPort {
    const p = this.inPorts.get(port);
    if (p === undefined) throw new SimulationError(`unit ${this.name} (${this.kind}) has no input port '${port}'`);
    return p;
  }

  wakeAt(time: Picoseconds): void {
    if (time < this.engine.now) throw new SimulationError(`unit ${this.name}: wakeAt(${time}) is in the past (now ${this.engine.now})`);
    this.explicitWake = true;
    this.scheduleWake(time);
  }

  wakeInCycles(cycles: number): void {
    this.wakeAt(this.clock.timeAfterCycles(this.engine.now, cycles));
  }

  endOfWork(): void {
    this.engine.markWorkloadDone();
  }

  /** Wake because a message arrived or a port freed room (at `now`). */
  wakeForPort(explicit: boolean): void {
    if (explicit) this.explicitWake = true;
    this.scheduleWake(this.engine.now);
  }

  private scheduleWake(time: Picoseconds): void {
    const times = this.wakeTimes;
    for (let i = 0; i < times.length; i++) if (times[i] === time) return;
    times.push(time);
    this.engine.queue.push(time, Priority.wake, this, time);
  }

  counter(name: string, description = '', unit = 'count'): Counter {
    return this.engine.stats.counter(`${this.name}.${name}`, description, unit);
  }

  histogram(name: string, bounds: readonly number[], description = '', unit = 'count'): Histogram {
    return this.engine.stats.histogram(`${this.name}.${name}`, bounds, description, unit);
  }

  timeSeries(name: string, read: () => number, description = '', unit = 'count'): TimeSeries {
    return this.engine.stats.timeSeries(`${this.name}.${name}`, read, description, unit);
  }

  span(name: string, start: Picoseconds, end: Picoseconds, msgId = -1, reason?: string, tags?: Record<string, string | number | boolean>): void {
    if (!this.tracing) return;
    const rec: SpanRecord = reason === undefined && tags === undefined ? { unit: this.name, name, start, end, msgId } : { unit: this.name, name, start, end, msgId, ...(reason ? { reason } : {}), ...(tags ? { tags } : {}) };
    this.engine.spans$.next(rec);
  }

  /** Wake event fired. */
  fire(data: unknown): void {
    const time = data as number;
    const times = this.wakeTimes;
    const i = times.indexOf(time);
    if (i >= 0) {
      times[i] = times[times.length - 1]!;
      times.pop();
    }
    if (this.delivery === 'batch') {
      this.explicitWake = false;
      const direct = this.directWake;
      if (direct === null) {
        this.send(WAKE_EVENT);
        return;
      }
      this.engine.actorEvents.value++;
      try {
        direct(this.directState);
      } catch (err) {
        this.failure = err;
        throw this.wrapFailure();
      }
      return;
    }
    // perMessage: every waiting message becomes one event, then a plain wake if one was asked for.
    const ports = this.inPortList;
    for (let p = 0; p < ports.length; p++) {
      const port = ports[p]!;
      let msg: Message | undefined;
      while ((msg = port.recv()) !== undefined) this.send({ type: msg.kind, message: msg });
    }
    if (this.explicitWake) {
      this.explicitWake = false;
      this.send(WAKE_EVENT);
    }
  }

  send(event: { type: string; message?: Message }): void {
    const engine = this.engine;
    engine.actorEvents.value++;
    if (this.isStatechart) engine.statechartEvents.value++;
    this.actor!.send(event);
    if (this.failure !== null) throw this.wrapFailure();
  }

  wrapFailure(): SimulationError {
    const f = this.failure;
    if (f instanceof SimulationError) return f;
    const msg = f instanceof Error ? f.message : String(f);
    return new SimulationError(`unit ${this.name} (${this.kind}) failed at ${this.engine.now} ps: ${msg}`, { unit: this.name, cause: f });
  }
}

/**
 * Refuses a link whose out-port may send a message kind the in-port does not accept (the
 * port descriptors' `messageKinds`; `'*'` accepts anything).
 * @throws SimulationError naming both ports and the kinds that do not match
 */
function checkMessageKinds(src: UnitRuntime, fromPort: string, dst: UnitRuntime, toPort: string): void {
  const sent = portDescriptor(src.definition, fromPort)?.messageKinds ?? [];
  const accepted = portDescriptor(dst.definition, toPort)?.messageKinds ?? [];
  if (accepted.includes('*') || sent.includes('*')) return;
  const missing = sent.filter((k) => !accepted.includes(k));
  if (missing.length > 0) {
    throw new SimulationError(`link ${src.name}.${fromPort} -> ${dst.name}.${toPort}: ${dst.name}.${toPort} does not accept ${missing.join(', ')} (it accepts: ${accepted.join(', ') || 'nothing'})`);
  }
}

/** The descriptor of a port instance (`out[3]` -> the `out` array descriptor). */
function portDescriptor(def: UnitDefinition, port: string) {
  const base = port.replace(/\[\d+\]$/, '');
  return def.ports.find((p) => p.name === base);
}

/**
 * The discrete-event engine. Build it (clocks, units, links), call {@link start}, then
 * {@link run} / {@link runUntil} / {@link step}.
 */
export class Engine implements PortHost, LinkHost {
  /** The global event queue. */
  readonly queue = new EventQueue();
  /** Run seed. */
  readonly seed: number;
  /** Root PRNG; units get `prng.fork(instanceName)`. */
  readonly prng: Prng;
  /** All statistics of the run. */
  readonly stats = new StatsRegistry();
  /** Every delivered message, at its delivery time. */
  readonly delivered$ = new Subject<Message>();
  /** Statechart units' state changes. */
  readonly stateChanges$ = new Subject<StateChange>();
  /** Spans emitted by units (busy intervals, requests, stalls). */
  readonly spans$ = new Subject<SpanRecord>();
  /** Port occupancy changes. */
  readonly occupancy$ = new Subject<OccupancySample>();
  /**
   * XState inspection of statechart units (events and snapshots, at simulated time in ps);
   * datapath units are never inspected. Subscribe before {@link start}: only then are the
   * actors created with XState's `inspect` option (so a run nobody inspects pays nothing).
   */
  readonly inspect$ = new Subject<InspectionRecord>();
  /** Time-series samples: `[time, values in registry order]`. */
  readonly samples$ = new Subject<{ time: Picoseconds; values: Record<string, number> }>();
  /** Events fired so far. */
  readonly events: Counter;
  /** Messages delivered so far. */
  readonly messagesDelivered: Counter;
  /** Events sent to actors (any logic). */
  readonly actorEvents: Counter;
  /** Events sent to statechart actors (the expensive kind; DESIGN.md §3). */
  readonly statechartEvents: Counter;

  private _now: Picoseconds = 0;
  /** Ports whose occupancy changed at the current time (see {@link reportOccupancy}). */
  private readonly occupancyDirty: OccupancyTracked[] = [];
  private nextMsgId = 0;
  private readonly clocks = new Map<string, ClockDomain>();
  private readonly units = new Map<string, UnitRuntime>();
  private readonly links: Link[] = [];
  private started = false;
  private pauseRequested = false;
  private readonly observable: boolean;
  /** Interval between time-series samples (ps); 0 when the run does not sample. */
  readonly sampleIntervalPs: number;
  private samplerScheduled = false;
  /** Queued statechart timers and sampler ticks: events that do not keep a finished run going. */
  private backgroundEvents = 0;
  /** Set by a unit's `endOfWork()`: end the run once only background events remain. */
  private workloadDone = false;
  private finalized = false;
  private readonly samplerHandler: EventHandler;

  constructor(options: EngineOptions = {}) {
    this.seed = (options.seed ?? 1) | 0;
    this.prng = new Prng(this.seed);
    this.observable = options.observable ?? true;
    this.sampleIntervalPs = options.sampleIntervalPs ?? 0;
    this.stats.configureSeries(this.sampleIntervalPs, options.sampleLimit ?? DEFAULT_SAMPLE_LIMIT);
    this.events = this.stats.counter('engine.events', 'events fired by the global queue');
    this.messagesDelivered = this.stats.counter('engine.messages_delivered', 'messages delivered to input ports');
    this.actorEvents = this.stats.counter('engine.actor_events', 'events the engine sent to unit actors');
    this.statechartEvents = this.stats.counter('engine.statechart_events', 'events sent to statechart (createMachine) actors');
    this.stats.derived('engine.sim_time_ps', () => this._now, 'simulated time', 'ps');
    this.samplerHandler = { fire: () => this.sampleTick() };
  }

  /** Current simulated time, ps. */
  get now(): Picoseconds {
    return this._now;
  }

  /** Whether span observers exist. */
  get spansObserved(): boolean {
    return this.observable && this.spans$.observed;
  }

  /**
   * Limits what span and occupancy observers are sent to the units (and ports) `accepts` names
   * (a port by its `unit.port` name); null lifts the limit. A trace filtered to a few units sets
   * it, so the other units build no span record and report no occupancy (issue 11: a trace of one
   * SM cost as much as a full one). It applies to every observer of `spans$` and `occupancy$`:
   * whoever sets it must be their only observer, or want the same units.
   */
  setObservationScope(accepts: ((name: string) => boolean) | null): void {
    this.observationScope = accepts;
    this.scopeGen++;
  }

  /** Whether unit (or port) `name` is inside the observation scope (true without one). */
  inObservationScope(name: string): boolean {
    return this.observationScope === null || this.observationScope(name);
  }

  private observationScope: ((name: string) => boolean) | null = null;
  /** Bumped by {@link setObservationScope}: units and ports recompute their cached answer. */
  scopeGen = 0;

  /** Whether occupancy observers exist. */
  get occupancyObserved(): boolean {
    return this.observable && this.occupancy$.observed;
  }

  nextMessageId(): number {
    return this.nextMsgId++;
  }

  wakeOwner(owner: PortOwner, explicit: boolean): void {
    (owner as UnitRuntime).wakeForPort(explicit);
  }

  /**
   * A port's occupancy changed (called only while `occupancy$` is observed). Changes are
   * coalesced per simulated time: `occupancy$` gets each changed port's value at the end of the
   * time, once, and only when it differs from the last value it got (issue 11: a message's send,
   * injection, arrival and consumption in one time are not four records).
   */
  reportOccupancy(port: OutPort | InPort, _occupancy: number): void {
    const p = port as OccupancyTracked;
    if (p.occupancyPending === true) return;
    if (this.observationScope !== null) {
      if (p.scopeGen !== this.scopeGen) {
        p.scopeGen = this.scopeGen;
        p.inScope = this.observationScope(p.fullName);
      }
      if (p.inScope !== true) return;
    }
    p.occupancyPending = true;
    this.occupancyDirty.push(p);
  }

  /** Emits the end-of-time occupancy of every port changed at the current time. */
  private flushOccupancy(): void {
    const dirty = this.occupancyDirty;
    for (let i = 0; i < dirty.length; i++) {
      const p = dirty[i]!;
      p.occupancyPending = false;
      const value = 'take' in p ? p.buffer.length : (p as InPort).length;
      if (value === (p.occupancyReported ?? 0)) continue;
      p.occupancyReported = value;
      if (this.observable && this.occupancy$.observed) this.occupancy$.next({ time: this._now, port: p.fullName, value });
    }
    dirty.length = 0;
  }

  delivered(msg: Message): void {
    this.messagesDelivered.value++;
    if (this.observable && this.delivered$.observed) this.delivered$.next(msg);
  }

  /**
   * Declares a clock domain.
   * @throws SimulationError when the name exists with another frequency
   */
  addClock(name: string, frequencyHz: number): ClockDomain {
    const existing = this.clocks.get(name);
    if (existing !== undefined) {
      if (existing.frequencyHz !== frequencyHz) throw new SimulationError(`clock '${name}' declared twice with different frequencies`);
      return existing;
    }
    const clock = new ClockDomain(name, frequencyHz);
    this.clocks.set(name, clock);
    return clock;
  }

  /** A declared clock. @throws SimulationError when unknown */
  clock(name: string): ClockDomain {
    const c = this.clocks.get(name);
    if (c === undefined) throw new SimulationError(`unknown clock domain '${name}' (declared: ${[...this.clocks.keys()].join(', ') || 'none'})`);
    return c;
  }

  /**
   * Adds a unit instance. `spec` must already be validated by `definition.spec`; `resources`
   * holds the injected objects its definition lists (`definition.resources`).
   * @throws SimulationError for a duplicate name, an unknown clock, a missing resource, or after
   *   {@link start}
   */
  addUnit(name: string, definition: UnitDefinition, clockName: string, spec: unknown, resources: object = {}): UnitIo {
    if (this.started) throw new SimulationError(`cannot add unit ${name} after start`);
    if (this.units.has(name)) throw new SimulationError(`duplicate unit name '${name}'`);
    for (const r of definition.resources ?? []) {
      if (r.optional !== true && !(r.name in resources)) throw new SimulationError(`unit ${name} (${definition.kind}) needs resource '${r.name}': ${r.description}`);
    }
    const rt = new UnitRuntime(this, name, definition, this.clock(clockName), spec, resources);
    const p = spec as Record<string, unknown>;
    for (const port of definition.ports) {
      const count = port.countParam === undefined ? -1 : Number(p[port.countParam]);
      if (port.countParam !== undefined && !(Number.isInteger(count) && count >= 0)) {
        throw new SimulationError(`unit ${name}: port array '${port.name}' needs integer parameter '${port.countParam}'`);
      }
      const cap = typeof port.capacity === 'string' ? Number(p[port.capacity]) : port.capacity ?? 2;
      const names = count < 0 ? [port.name] : Array.from({ length: count }, (_, i) => `${port.name}[${i}]`);
      for (const portName of names) {
        if (port.direction === 'out') rt.outPorts.set(portName, new OutPort(this, rt, portName, cap));
        else {
          const ip = new InPort(this, rt, portName, cap);
          rt.inPorts.set(portName, ip);
          rt.inPortList.push(ip);
        }
      }
    }
    this.units.set(name, rt);
    return rt;
  }

  /** Port names of a unit in one direction, in declaration order. @throws SimulationError when unknown */
  portNames(unit: string, direction: 'in' | 'out'): string[] {
    const u = this.units.get(unit);
    if (u === undefined) throw new SimulationError(`unknown unit '${unit}'`);
    return [...(direction === 'in' ? u.inPorts : u.outPorts).keys()];
  }

  /** Kind of a unit. @throws SimulationError when unknown */
  unitKind(unit: string): string {
    const u = this.units.get(unit);
    if (u === undefined) throw new SimulationError(`unknown unit '${unit}'`);
    return u.kind;
  }

  /** Declared clock domains. */
  allClocks(): ClockDomain[] {
    return [...this.clocks.values()];
  }

  /** Names of all units, in creation order. */
  unitNames(): string[] {
    return [...this.units.keys()];
  }

  /** The io of a unit (for tests and tools). @throws SimulationError when unknown */
  unit(name: string): UnitIo {
    const u = this.units.get(name);
    if (u === undefined) throw new SimulationError(`unknown unit '${name}'`);
    return u;
  }

  /** The current snapshot of a unit's actor (for tests, tools and reports). */
  snapshot(name: string): unknown {
    const u = this.units.get(name);
    if (u === undefined || u.actor === null) throw new SimulationError(`unknown or unstarted unit '${name}'`);
    return u.actor.getSnapshot();
  }

  /**
   * Connects `fromUnit.fromPort` (an out-port) to `toUnit.toPort` (an in-port).
   * @param clockName clock the wire is serviced on; default the receiver's
   * @throws SimulationError for unknown units or ports, or ports already connected
   */
  connect(fromUnit: string, fromPort: string, toUnit: string, toPort: string, spec: LinkSpec, clockName?: string): Link {
    const src = this.units.get(fromUnit);
    const dst = this.units.get(toUnit);
    if (src === undefined) throw new SimulationError(`link source: unknown unit '${fromUnit}'`);
    if (dst === undefined) throw new SimulationError(`link destination: unknown unit '${toUnit}'`);
    const out = src.outPorts.get(fromPort);
    const inp = dst.inPorts.get(toPort);
    if (out === undefined) throw new SimulationError(`link source: unit ${fromUnit} has no output port '${fromPort}' (has: ${[...src.outPorts.keys()].join(', ') || 'none'})`);
    if (inp === undefined) throw new SimulationError(`link destination: unit ${toUnit} has no input port '${toPort}' (has: ${[...dst.inPorts.keys()].join(', ') || 'none'})`);
    checkMessageKinds(src, fromPort, dst, toPort);
    const clock = clockName === undefined ? dst.clock : this.clock(clockName);
    const link = new Link(this, out, inp, clock, dst.clock, spec);
    this.links.push(link);
    return link;
  }

  /** All links, in creation order. */
  allLinks(): readonly Link[] {
    return this.links;
  }

  /** Ports that no link connects (`unit.port` names), except those declared `optional`. */
  unconnectedPorts(): string[] {
    const out: string[] = [];
    for (const u of this.units.values()) {
      const required = (name: string) => portDescriptor(u.definition, name)?.optional !== true;
      for (const p of u.outPorts.values()) if (!p.isBound && required(p.name)) out.push(p.fullName);
      for (const p of u.inPorts.values()) if (!p.isBound && required(p.name)) out.push(p.fullName);
    }
    return out;
  }

  /**
   * Creates and starts every unit's actor and gives each batch unit one wake at time 0.
   * @throws SimulationError when already started or a unit fails to start
   */
  start(): void {
    if (this.started) throw new SimulationError('engine already started');
    this.started = true;
    for (const rt of this.units.values()) {
      const logic = rt.definition.logic(rt.spec, rt.resources);
      rt.isStatechart = logic instanceof StateMachine;
      // An actor given `inspect` has every event, action and snapshot copied to it: only when observed.
      const inspect = rt.isStatechart && this.observable && this.inspect$.observed;
      const actor = createActor(logic, { input: rt, id: rt.name, clock: this.clockAdapter(rt), ...(inspect ? { inspect: this.inspector(rt) } : {}) });
      rt.actor = actor;
      actor.subscribe({
        next: rt.isStatechart ? this.stateWatcher(rt) : undefined,
        error: (err: unknown) => {
          rt.failure = err;
        },
      });
      actor.start();
      if (rt.failure !== null) throw rt.wrapFailure();
      // A datapath unit's wake goes straight to its step on the actor's state (DIRECT_WAKE).
      const direct = (logic as { [DIRECT_WAKE]?: (state: unknown) => void })[DIRECT_WAKE];
      if (direct !== undefined && !rt.isStatechart && rt.delivery === 'batch') {
        rt.directWake = direct;
        rt.directState = actor.getSnapshot().context;
      }
      if (rt.delivery === 'batch') rt.wakeAt(0);
    }
    this.scheduleSampler();
  }

  /** XState inspection callback of a statechart unit: forwards to `inspect$` when observed. */
  private inspector(rt: UnitRuntime): (ev: any) => void {
    return (ev: any) => {
      if (!this.observable || !this.inspect$.observed || ev.actorRef?.id !== rt.name) return;
      if (ev.type === '@xstate.event') this.inspect$.next({ time: this._now, unit: rt.name, kind: 'event', event: String(ev.event?.type ?? '') });
      else if (ev.type === '@xstate.snapshot') {
        const v = ev.snapshot?.value;
        this.inspect$.next({ time: this._now, unit: rt.name, kind: 'snapshot', event: String(ev.event?.type ?? ''), state: typeof v === 'string' ? v : JSON.stringify(v) });
      }
    };
  }

  private stateWatcher(rt: UnitRuntime): (snapshot: any) => void {
    let last = '';
    return (snapshot: any) => {
      const v = snapshot.value;
      const value = typeof v === 'string' ? v : JSON.stringify(v);
      if (value === last) return;
      last = value;
      if (this.observable && this.stateChanges$.observed) this.stateChanges$.next({ time: this._now, unit: rt.name, value });
    };
  }

  /** XState clock over the global queue: delays are cycles of the unit's clock. */
  private clockAdapter(rt: UnitRuntime) {
    const engine = this;
    return {
      setTimeout(fn: (...args: any[]) => void, cycles: number) {
        const time = cycles <= 0 ? engine._now : rt.clock.timeAfterCycles(engine._now, cycles);
        engine.backgroundEvents++;
        const rec = engine.queue.push(time, Priority.timer, {
          fire: () => {
            engine.backgroundEvents--;
            engine.actorEvents.value++;
            if (rt.isStatechart) engine.statechartEvents.value++;
            fn();
            if (rt.failure !== null) throw rt.wrapFailure();
          },
        }, null);
        return { rec, seq: rec.seq };
      },
      clearTimeout(id: { rec: EventRecord; seq: number } | undefined) {
        if (id !== undefined && id.rec.seq === id.seq && id.rec.handler !== null) {
          engine.queue.cancel(id.rec);
          engine.backgroundEvents--;
        }
      },
    };
  }

  private scheduleSampler(): void {
    if (this.sampleIntervalPs <= 0 || this.samplerScheduled || this.stats.series().length === 0) return;
    this.samplerScheduled = true;
    this.backgroundEvents++;
    const next = (Math.floor(this._now / this.sampleIntervalPs) + 1) * this.sampleIntervalPs;
    this.queue.push(next, Priority.sample, this.samplerHandler, null);
  }

  private sampleTick(): void {
    this.samplerScheduled = false;
    this.backgroundEvents--;
    this.stats.sample(this._now);
    if (this.observable && this.samples$.observed) {
      const values: Record<string, number> = {};
      for (const s of this.stats.series()) values[s.name] = s.last;
      this.samples$.next({ time: this._now, values });
    }
    // Keep sampling only while the model has other work; otherwise the run could never go idle.
    if (this.queue.size > 0) this.scheduleSampler();
  }

  /** Asks a running {@link run} to return after the current event (from a unit or observer). */
  pause(): void {
    this.pauseRequested = true;
  }

  /**
   * Fires the next event.
   * @returns false when the queue is empty
   * @throws SimulationError when a unit fails
   */
  step(): boolean {
    const rec = this.queue.pop();
    if (rec === null) {
      if (this.occupancyDirty.length > 0) this.flushOccupancy();
      return false;
    }
    if (rec.time !== this._now && this.occupancyDirty.length > 0) this.flushOccupancy();
    this._now = rec.time;
    const handler = rec.handler!;
    const data = rec.data;
    this.queue.release(rec);
    this.events.value++;
    handler.fire(data, this._now);
    return true;
  }

  /**
   * Runs until the queue is empty, {@link pause} is called, simulated time would pass `limit` ps
   * (events at exactly `limit` fire), or `predicate` (checked after every event) returns true.
   */
  run(limit: Picoseconds = Infinity, predicate: ((engine: Engine) => boolean) | null = null): RunResult {
    return this.runLoop(limit, predicate);
  }

  /**
   * Runs until `until` is reached: a time in ps (as {@link run}) or a predicate checked after
   * every event (the run stops right after the event that made it true).
   */
  runUntil(until: Picoseconds | ((engine: Engine) => boolean)): RunResult {
    return typeof until === 'number' ? this.runLoop(until, null) : this.runLoop(Infinity, until);
  }

  private runLoop(limit: Picoseconds, predicate: ((engine: Engine) => boolean) | null): RunResult {
    if (!this.started) this.start();
    this.pauseRequested = false;
    const queue = this.queue;
    for (;;) {
      if (this.pauseRequested) {
        this.pauseRequested = false;
        return this.result('paused');
      }
      const t = queue.peekTime();
      if (t === Infinity) return this.result('idle');
      if (this.workloadDone && queue.size === this.backgroundEvents) return this.result('finished');
      if (t > limit) {
        if (this.occupancyDirty.length > 0) this.flushOccupancy();
        this._now = limit;
        return this.result('timeLimit');
      }
      this.step();
      if (predicate !== null && predicate(this)) return this.result('predicate');
    }
  }

  private result(reason: StopReason): RunResult {
    if (this.occupancyDirty.length > 0) this.flushOccupancy();
    return { reason, time: this._now, pendingUnits: reason === 'idle' || reason === 'finished' ? this.pendingWork() : [] };
  }

  /** Called by a unit's `endOfWork()`. */
  markWorkloadDone(): void {
    this.workloadDone = true;
  }

  /** Whether a unit has signalled the end of the workload. */
  get isWorkloadDone(): boolean {
    return this.workloadDone;
  }

  /**
   * End of run: calls every unit definition's `finalize` hook once (in creation order) with the
   * actor's snapshot, at the current time, so intervals still open (a paused or gated SM) are
   * counted up to the end. Idempotent; run drivers call it before reading statistics.
   */
  finalize(): void {
    if (this.finalized || !this.started) return;
    this.finalized = true;
    for (const u of this.units.values()) {
      const fn = u.definition.finalize;
      if (fn !== undefined && u.actor !== null) fn(u.actor.getSnapshot());
    }
  }

  /**
   * Units with pending work right now: what their descriptor's `pendingWork` reports, plus
   * unconsumed input and unsent output. After an idle stop, a non-empty list means the model
   * stopped with work left (a deadlock or a lost wake-up).
   */
  pendingWork(): { unit: string; work: string }[] {
    const pendingUnits: { unit: string; work: string }[] = [];
    {
      for (const u of this.units.values()) {
        const fn = u.definition.pendingWork;
        const work = fn && u.actor ? fn(u.actor.getSnapshot()) : null;
        const waiting = [...u.inPorts.values()].filter((p) => p.length > 0).map((p) => `${p.name}: ${p.length} unconsumed`);
        const outWaiting = [...u.outPorts.values()].filter((p) => p.buffer.length > 0).map((p) => `${p.name}: ${p.buffer.length} unsent`);
        const parts = [work, ...waiting, ...outWaiting].filter((x): x is string => !!x);
        if (parts.length > 0) pendingUnits.push({ unit: u.name, work: parts.join('; ') });
      }
    }
    return pendingUnits;
  }

  /**
   * The oldest messages waiting in input ports (delivered, not consumed) or in output ports
   * (sent, not injected: the link has no credit), oldest first: what a deadlock report shows.
   */
  oldestWaitingMessages(limit: number): { id: number; kind: string; from: string; port: string; since: Picoseconds; why: string }[] {
    const out: { id: number; kind: string; from: string; port: string; since: Picoseconds; why: string }[] = [];
    for (const u of this.units.values()) {
      for (const p of u.inPorts.values()) {
        const m = p.peek();
        if (m !== undefined) out.push({ id: m.id, kind: m.kind, from: `${m.src}.${m.srcPort}`, port: p.fullName, since: m.deliverTime, why: `not consumed by ${u.name} (${p.length} queued, capacity ${p.capacity})` });
      }
      for (const p of u.outPorts.values()) {
        const m = p.buffer.peek();
        if (m !== undefined) out.push({ id: m.id, kind: m.kind, from: `${m.src}.${m.srcPort}`, port: p.fullName, since: m.sendTime, why: `no credit at ${m.dst}.${m.dstPort}` });
      }
    }
    out.sort((a, b) => a.since - b.since || a.id - b.id);
    return out.slice(0, limit);
  }

  /** Stops every actor and link subscription. */
  dispose(): void {
    for (const u of this.units.values()) u.actor?.stop();
    for (const l of this.links) l.dispose();
    this.delivered$.complete();
    this.stateChanges$.complete();
    this.spans$.complete();
    this.occupancy$.complete();
    this.samples$.complete();
    this.inspect$.complete();
  }
}
