/**
 * `npm run bench`: simulation-kernel benchmarks, printed as JSON (never timed assertions in
 * tests). Each figure is the median of `--repeat` runs (default 3).
 *
 * - engineEventsPerSec: global-queue events fired per wall second (self-rescheduling handlers,
 *   1024 concurrent timers: push + pop + dispatch).
 * - messagesPerSec: messages delivered per wall second through out-port -> link -> global
 *   queue -> in-port -> actor, in the default 16-generator / crossbar / 8-memory network.
 * - statechartEventsPerMessage: statechart sends per delivered message in that network.
 * - tracingOffOverhead: (time with observation hooks present but unobserved) / (time with the
 *   hooks compiled out via `observable: false`) - 1.
 * - tracingOnSlowdown: time with a full JSONL trace to /dev/null relative to tracing off.
 * - gpu: every library kernel simulated on the gtx480 preset (see bench/gpu.ts): warp
 *   instructions and cycles per wall second, statechart events per warp instruction.
 */
import { performance } from 'node:perf_hooks';
import { writeFileSync } from 'node:fs';
import { createUnitRegistry } from '../machines/index.ts';
import { loadScenario } from '../src/scenario/loader.ts';
import { Engine } from '../src/sim/engine.ts';
import { Priority, type EventHandler } from '../src/sim/event-queue.ts';
import { buildNetwork } from '../src/topology/network.ts';
import { TraceRecorder } from '../src/trace/recorder.ts';
import { JsonlSink } from '../src/trace/sinks.ts';
import { runGpuBench } from './gpu.ts';

const args = process.argv.slice(2);
const repeat = Number(args[args.indexOf('--repeat') + 1] ?? 3) || 3;
const outFile = args.includes('--out') ? args[args.indexOf('--out') + 1] : undefined;
const requests = Number(process.env.WARPSTATE_BENCH_REQUESTS ?? 4000);

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
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
  const t0 = performance.now();
  engine.run();
  const dt = (performance.now() - t0) / 1000;
  return engine.events.value / dt;
}

interface NetRun {
  seconds: number;
  messages: number;
  statechartEvents: number;
  actorEvents: number;
  events: number;
  simTimePs: number;
}

function network(mode: 'compiledOut' | 'off' | 'on'): NetRun {
  const loaded = loadScenario('scenarios/memory-network.yaml', [`units.GEN.params.requests=${requests}`]);
  const engine = buildNetwork(loaded, createUnitRegistry(), { observable: mode !== 'compiledOut' });
  const recorder = mode === 'on' ? new TraceRecorder(engine, [new JsonlSink('/dev/null')], 'bench') : null;
  const t0 = performance.now();
  engine.run();
  const seconds = (performance.now() - t0) / 1000;
  recorder?.close();
  return {
    seconds,
    messages: engine.messagesDelivered.value,
    statechartEvents: engine.statechartEvents.value,
    actorEvents: engine.actorEvents.value,
    events: engine.events.value,
    simTimePs: engine.now,
  };
}

// Warm up the JIT once on each path.
engineEvents(200_000);
network('compiledOut');
network('off');

const ev: number[] = [];
const off: NetRun[] = [];
const out: NetRun[] = [];
const on: NetRun[] = [];
for (let i = 0; i < repeat; i++) {
  ev.push(engineEvents(3_000_000));
  // Interleave the variants so machine noise hits them alike.
  out.push(network('compiledOut'));
  off.push(network('off'));
  on.push(network('on'));
}
const tOff = median(off.map((r) => r.seconds));
const tOut = median(out.map((r) => r.seconds));
const tOn = median(on.map((r) => r.seconds));
const ref = off[0]!;
const result = {
  benchmark: 'warpstate simulation kernel',
  node: process.version,
  repeat,
  engineEventsPerSec: Math.round(median(ev)),
  network: {
    scenario: 'scenarios/memory-network.yaml',
    requestsPerGenerator: requests,
    messagesDelivered: ref.messages,
    eventsFired: ref.events,
    simulatedPs: ref.simTimePs,
    messagesPerSec: Math.round(ref.messages / tOff),
    actorEventsPerMessage: Number((ref.actorEvents / ref.messages).toFixed(4)),
    statechartEventsPerMessage: Number((ref.statechartEvents / ref.messages).toFixed(6)),
    secondsTracingCompiledOut: Number(tOut.toFixed(4)),
    secondsTracingOff: Number(tOff.toFixed(4)),
    secondsTracingOn: Number(tOn.toFixed(4)),
    tracingOffOverhead: Number((tOff / tOut - 1).toFixed(4)),
    tracingOnSlowdown: Number((tOn / tOff).toFixed(3)),
  },
};
const gpu = args.includes('--no-gpu') ? [] : runGpuBench(repeat);
const json = JSON.stringify({ ...result, gpu: { preset: 'gtx480', kernels: gpu } }, null, 2);
console.log(json);
if (outFile) writeFileSync(outFile, json + '\n');
