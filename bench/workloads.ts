/**
 * The workloads of `npm run bench` (issue 11 item 3) and their in-process runs with CPU time.
 *
 * - `matmul`: scenarios/k-matmul-tiled.yaml scaled to N x N x N (A, B, C of N*N floats, a grid
 *   of N/16 x N/16 CTAs of 16 x 16 threads), on the scenario's GPU (gtx480 preset, 15 SMs);
 * - `stream`: scenarios/k-stream-x-words.yaml with G CTAs of 256 threads, each thread moving 3
 *   words (buffers of 3 x G x 256 words);
 * - `trace`: Accel-Sim traces of tiled matrix multiplies of growing size (the real NVBit
 *   matrixmul-32-32, then warpstate's k-matmul-tiled and big-matmul-64) run through
 *   `runAccelSimTrace` on the GTX 1080 `gpgpusim.config` (with its trace.config).
 *
 * CPU time is taken around the simulation only: from the `onEngine` callback (the GPU built,
 * trace recorders attached, nothing simulated yet) to the return of the run (for a kernel
 * scenario that includes reading back and checking the result buffers, well under 1% of a
 * run), plus closing a trace recorder when one is attached (flushing the trace is part of its
 * cost).
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Engine, EngineOptions } from '../src/sim/engine.ts';
import { loadScenario, type LoadedScenario } from '../src/scenario/loader.ts';
import { runKernelScenarioTiming } from '../src/scenario/timing-run.ts';
import { runAccelSimTrace } from '../src/scenario/trace-run.ts';
import { TraceRecorder } from '../src/trace/recorder.ts';
import { JsonlSink } from '../src/trace/sinks.ts';
import { cpuSeconds, REPO_ROOT } from './measure.ts';

/** The kernels benchmarked at several sizes. */
export type KernelName = 'matmul' | 'stream' | 'trace';

/** The GTX 1080 config of the trace runs (Accel-Sim's, with its trace.config beside it). */
export const GTX1080_CONFIG = 'data/accelsim-traces/gtx1080-config/gpgpusim.config';

/** One workload: a kernel at one size. */
export interface Workload {
  readonly kernel: KernelName;
  /** Size label (`N=64`, `grid=512`, a trace name). */
  readonly size: string;
  /** Scenario file (matmul, stream) or trace directory (trace), relative to the repository root. */
  readonly source: string;
  /** `--set` overrides of the scenario (empty for a trace). */
  readonly overrides: readonly string[];
  /** The same run on the CLI: arguments after `node bin/warpstate.js`. */
  readonly cliArgs: readonly string[];
}

/** Default sizes: matmul N, stream CTAs, trace workloads (smallest first). */
export const DEFAULT_SIZES = { matmul: [64, 128, 256], stream: [128, 512, 2048], trace: ['matrixmul-32-32', 'k-matmul-tiled', 'big-matmul-64'] } as const;

/** Sizes `--full` adds (matmul 512 is issue 11's target size: minutes per run). */
export const FULL_EXTRA_SIZES = { matmul: [512], stream: [8192], trace: [] as string[] } as const;

/** The tiled matmul at N x N x N (N a multiple of 16). */
export function matmulWorkload(n: number): Workload {
  if (n % 16 !== 0) throw new Error(`matmul size ${n} is not a multiple of 16`);
  const overrides = ['mode=timing', ...[0, 1, 2].map((i) => `buffers[${i}].count=${n * n}`), `launches[0].grid=[${n / 16},${n / 16},1]`, ...[3, 4, 5].map((i) => `launches[0].args[${i}].s32=${n}`)];
  return scenarioWorkload('matmul', `N=${n}`, 'scenarios/k-matmul-tiled.yaml', overrides);
}

/** stream_x_words with `ctas` CTAs of 256 threads moving 3 words each. */
export function streamWorkload(ctas: number): Workload {
  const words = 3 * ctas * 256;
  const overrides = ['mode=timing', `buffers[0].count=${words}`, `buffers[1].count=${words}`, `launches[0].grid=[${ctas},1,1]`];
  return scenarioWorkload('stream', `grid=${ctas}`, 'scenarios/k-stream-x-words.yaml', overrides);
}

/** Directory of a stored Accel-Sim trace: the two real ones, or warpstate's reference traces. */
export function traceDir(name: string): string {
  return ['vectoradd-100-32', 'matrixmul-32-32'].includes(name) ? `data/accelsim-traces/${name}` : `data/accelsim-reference/traces/${name}`;
}

/** A stored Accel-Sim trace on the GTX 1080 config. */
export function traceWorkload(name: string): Workload {
  const dir = traceDir(name);
  return { kernel: 'trace', size: name, source: dir, overrides: [], cliArgs: ['run', '--accelsim-trace', dir, '--gpu', GTX1080_CONFIG, '-q'] };
}

function scenarioWorkload(kernel: KernelName, size: string, file: string, overrides: string[]): Workload {
  return { kernel, size, source: file, overrides, cliArgs: ['run', file, ...overrides.flatMap((o) => ['--set', o]), '-q'] };
}

/** The workload of `kernel` at `size` (a number for matmul and stream, a trace name for trace). */
export function workload(kernel: KernelName, size: number | string): Workload {
  if (kernel === 'matmul') return matmulWorkload(Number(size));
  if (kernel === 'stream') return streamWorkload(Number(size));
  return traceWorkload(String(size));
}

/** How a run is observed (issue 11 item 3.3). */
export type TracingMode = 'compiledOut' | 'off' | 'jsonl' | 'oneSm';

/** Variation of one in-process run. */
export interface RunVariant {
  /** Observation: `compiledOut` builds the engine with `observable: false`; `off` (default) attaches nothing; `jsonl` a full JSONL trace to a temp file; `oneSm` a JSONL trace filtered to `GPU.SM[0].*`. */
  readonly tracing?: TracingMode;
  /** GPU config overrides (`sm.count=60`). */
  readonly configOverrides?: readonly string[];
}

/** One in-process run of a workload. */
export interface RunSample {
  /** Warp instructions simulated (`gpu_tot_warp_insts`). */
  readonly warpInstructions: number;
  /** Simulated core cycles (`gpu_sim_cycle`). */
  readonly cycles: number;
  /** Events the engine fired (`engine.events`). */
  readonly events: number;
  /** CPU seconds (user + system) of the simulation. */
  readonly cpuSeconds: number;
  /** The run's checks passed (kernel scenarios: result buffers; traces: every trace instruction simulated). */
  readonly passed: boolean;
  /** Bytes of trace written (`jsonl`, `oneSm`), else 0. */
  readonly traceBytes: number;
  /** Trace records written (`jsonl`, `oneSm`), else 0. */
  readonly traceRecords: number;
}

const loadedCache = new Map<string, LoadedScenario>();

function loaded(w: Workload): LoadedScenario {
  const key = `${w.source}\0${w.overrides.join('\0')}`;
  let l = loadedCache.get(key);
  if (l === undefined) {
    l = loadScenario(join(REPO_ROOT, w.source), w.overrides);
    loadedCache.set(key, l);
  }
  return l;
}

/**
 * Runs a workload once in this process and measures its simulation's CPU time.
 * @throws Error when a traced variant fails to write its trace; as the timing runs for a bad
 *   scenario or a simulation error
 */
export function runWorkload(w: Workload, variant: RunVariant = {}): RunSample {
  const tracing = variant.tracing ?? 'off';
  const engineOptions: EngineOptions = tracing === 'compiledOut' ? { observable: false } : {};
  const traced = tracing === 'jsonl' || tracing === 'oneSm';
  const dir = traced ? mkdtempSync(join(tmpdir(), 'warpstate-bench-trace-')) : null;
  let recorder: TraceRecorder | null = null;
  let sink: JsonlSink | null = null;
  let t0 = Number.NaN;
  const onEngine = (engine: Engine) => {
    if (dir !== null) {
      sink = new JsonlSink(join(dir, 'trace.jsonl'));
      recorder = new TraceRecorder(engine, [sink], `bench ${w.kernel} ${w.size}`, tracing === 'oneSm' ? { units: ['GPU.SM[0].*'] } : {});
    }
    t0 = cpuSeconds();
  };
  try {
    let engine: Engine;
    let passed: boolean;
    if (w.kernel === 'trace') {
      const r = runAccelSimTrace(join(REPO_ROOT, w.source), {
        gpu: { gpgpusimConfig: GTX1080_CONFIG },
        baseDir: REPO_ROOT,
        configOverrides: variant.configOverrides ?? [],
        engine: engineOptions,
        onEngine,
      });
      engine = r.engine;
      passed = r.engine.stats.value('gpu_tot_warp_insts') === r.engine.stats.value('trace.warp_insts');
    } else {
      const r = runKernelScenarioTiming(loaded(w), { configOverrides: variant.configOverrides ?? [], engine: engineOptions, onEngine });
      engine = r.engine;
      passed = r.passed;
    }
    (recorder as TraceRecorder | null)?.close();
    const cpu = cpuSeconds() - t0;
    const s = sink as JsonlSink | null;
    if (s?.error) throw s.error;
    return {
      warpInstructions: engine.stats.value('gpu_tot_warp_insts') ?? 0,
      cycles: engine.stats.value('gpu_sim_cycle') ?? 0,
      events: engine.events.value,
      cpuSeconds: cpu,
      passed,
      traceBytes: s !== null ? statSync(s.path).size : 0,
      traceRecords: s?.count ?? 0,
    };
  } finally {
    (recorder as TraceRecorder | null)?.close();
    if (dir !== null) rmSync(dir, { recursive: true, force: true });
  }
}
