/**
 * The `engine` section of `npm run bench`: the simulation kernel without a GPU, in CPU time.
 *
 * - `engineEventsPerCpuSecond`: global-queue events fired per CPU second (self-rescheduling
 *   handlers, 1024 concurrent timers: push + pop + dispatch).
 * - `network.messagesPerCpuSecond`: messages delivered per CPU second through out-port -> link ->
 *   global queue -> in-port -> actor, in the default 16-generator / crossbar / 8-memory network
 *   (scenarios/memory-network.yaml).
 * - `network.statechartEventsPerMessage`, `actorEventsPerMessage`: sends per delivered message.
 * - `network.tracingOffOverhead`: (CPU s with observation hooks present but unobserved) / (CPU s
 *   with the hooks compiled out via `observable: false`) - 1.
 * - `network.tracingOnSlowdown`: CPU s with a full JSONL trace to /dev/null / CPU s tracing off.
 */
import { join } from 'node:path';
import { createUnitRegistry } from '../machines/index.ts';
import { loadScenario } from '../src/scenario/loader.ts';
import { Engine } from '../src/sim/engine.ts';
import { Priority, type EventHandler } from '../src/sim/event-queue.ts';
import { buildNetwork } from '../src/topology/network.ts';
import { TraceRecorder } from '../src/trace/recorder.ts';
import { JsonlSink } from '../src/trace/sinks.ts';
import { cpuSeconds, median, REPO_ROOT, round, roundCpu } from './measure.ts';

/** Sizes of the engine section. */
export interface EngineBenchOptions {
  /** Repeats (medians reported). */
  readonly repeat: number;
  /** Events fired by the event-queue benchmark per repeat. */
  readonly events: number;
  /** Requests per generator in the network scenario. */
  readonly requests: number;
  /** Run each path once before measuring (JIT warm-up). */
  readonly warmup: boolean;
}

/** The `engine` section's result. */
export interface EngineBenchResult {
  /** Events fired per repeat of the event-queue benchmark. */
  readonly events: number;
  /** Median global-queue events fired per CPU second. */
  readonly engineEventsPerCpuSecond: number;
  readonly network: {
    readonly scenario: string;
    readonly requestsPerGenerator: number;
    readonly messagesDelivered: number;
    readonly eventsFired: number;
    /** Simulated time, ps. */
    readonly simulatedPs: number;
    /** Messages delivered per CPU second, tracing off. */
    readonly messagesPerCpuSecond: number;
    readonly actorEventsPerMessage: number;
    readonly statechartEventsPerMessage: number;
    /** Median CPU seconds, observation compiled out. */
    readonly cpuSecondsTracingCompiledOut: number;
    /** Median CPU seconds, tracing off. */
    readonly cpuSecondsTracingOff: number;
    /** Median CPU seconds, full JSONL trace to /dev/null. */
    readonly cpuSecondsTracingOn: number;
    /** cpuSecondsTracingOff / cpuSecondsTracingCompiledOut - 1. */
    readonly tracingOffOverhead: number;
    /** cpuSecondsTracingOn / cpuSecondsTracingOff. */
    readonly tracingOnSlowdown: number;
  };
}

function engineEvents(total: number): number {
  const engine = new Engine();
  const queue = engine.queue;
  let fired = 0;
  const timers = 1024;
  const handler: EventHandler = {
    fire(data) {
      fired++;
      if (fired + timers <= total) queue.push(engine.now + 1000 + (data as number), Priority.wake, handler, data);
    },
  };
  for (let i = 0; i < timers; i++) queue.push(i, Priority.wake, handler, i % 7);
  const t0 = cpuSeconds();
  engine.run();
  return engine.events.value / (cpuSeconds() - t0);
}

interface NetRun {
  cpuSeconds: number;
  messages: number;
  statechartEvents: number;
  actorEvents: number;
  events: number;
  simTimePs: number;
}

const NETWORK = 'scenarios/memory-network.yaml';

function network(mode: 'compiledOut' | 'off' | 'on', requests: number): NetRun {
  const loaded = loadScenario(join(REPO_ROOT, NETWORK), [`units.GEN.params.requests=${requests}`]);
  const engine = buildNetwork(loaded, createUnitRegistry(), { observable: mode !== 'compiledOut' });
  const recorder = mode === 'on' ? new TraceRecorder(engine, [new JsonlSink('/dev/null')], 'bench') : null;
  const t0 = cpuSeconds();
  engine.run();
  recorder?.close();
  return {
    cpuSeconds: cpuSeconds() - t0,
    messages: engine.messagesDelivered.value,
    statechartEvents: engine.statechartEvents.value,
    actorEvents: engine.actorEvents.value,
    events: engine.events.value,
    simTimePs: engine.now,
  };
}

/** Runs the engine section (event queue, message network, tracing cost in the network). */
export function runEngineBench(o: EngineBenchOptions): EngineBenchResult {
  if (o.warmup) {
    engineEvents(Math.min(200_000, o.events));
    network('compiledOut', o.requests);
    network('off', o.requests);
  }
  const ev: number[] = [];
  const out: NetRun[] = [];
  const off: NetRun[] = [];
  const on: NetRun[] = [];
  for (let i = 0; i < o.repeat; i++) {
    ev.push(engineEvents(o.events));
    // Interleave the variants so machine noise hits them alike.
    out.push(network('compiledOut', o.requests));
    off.push(network('off', o.requests));
    on.push(network('on', o.requests));
  }
  const tOff = roundCpu(median(off.map((r) => r.cpuSeconds)));
  const tOut = roundCpu(median(out.map((r) => r.cpuSeconds)));
  const tOn = roundCpu(median(on.map((r) => r.cpuSeconds)));
  const ref = off[0]!;
  return {
    events: o.events,
    engineEventsPerCpuSecond: Math.round(median(ev)),
    network: {
      scenario: NETWORK,
      requestsPerGenerator: o.requests,
      messagesDelivered: ref.messages,
      eventsFired: ref.events,
      simulatedPs: ref.simTimePs,
      messagesPerCpuSecond: Math.round(ref.messages / tOff),
      actorEventsPerMessage: round(ref.actorEvents / ref.messages, 4),
      statechartEventsPerMessage: round(ref.statechartEvents / ref.messages, 6),
      cpuSecondsTracingCompiledOut: tOut,
      cpuSecondsTracingOff: tOff,
      cpuSecondsTracingOn: tOn,
      tracingOffOverhead: round(tOff / tOut - 1, 4),
      tracingOnSlowdown: round(tOn / tOff, 3),
    },
  };
}
