/**
 * Running Accel-Sim SASS traces on the GPU timing model (issue 5): the kernels of a
 * `kernelslist.g` run through the same SM pipeline, memory hierarchy and SM Work Manager as PTX
 * kernels, on a preset or an imported `gpgpusim.config`. Memcpy commands only declare device
 * memory here (a trace carries addresses, not data; the timing model needs no values).
 */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { GpuContext } from '../model/gpu-context.ts';
import type { LaunchPlan as KernelLaunchPlan } from '../topology/gpu-smwm.ts';
import type { GpuConfig } from '../config/schema.ts';
import { InputError, SimulationError } from '../errors.ts';
import { openAccelSimTrace, type AccelSimTrace } from '../frontends/index.ts';
import { TraceTimingKernel } from '../frontends/accelsim/timing-kernel.ts';
import { createWarpSchedulerPolicy } from '../model/sm/warp-policies.ts';
import { assertLaunchFits, occupancy } from '../model/sm/occupancy.ts';
import type { Engine, EngineOptions } from '../sim/engine.ts';
import { buildGpu, gpuLimits, loadGpuConfig } from '../topology/gpu.ts';
import type { SourceLocation } from '../errors.ts';
import { checkNotModelled } from '../config/not-modelled.ts';
import { runWithWatchdog, runWithWatchdogAsync, type WatchdogLimits, type WatchdogStop } from './watchdog.ts';
import type { InterruptFlag } from './interrupt.ts';

/** Default cycle cap of a trace run (as a scenario's `maxCycles` default). */
export const TRACE_MAX_CYCLES = 1_000_000_000;

/** Options of {@link runAccelSimTrace}. */
export interface TraceRunOptions {
  /** Refuse a not-modelled config field set to a value other than the config's (`--strict`). */
  readonly strict?: boolean;
  /** The GPU: a preset or a gpgpusim.config path (relative to `baseDir`). */
  readonly gpu: { preset?: string | undefined; gpgpusimConfig?: string | undefined };
  readonly baseDir: string;
  readonly configOverrides?: readonly string[];
  /**
   * Accel-Sim `trace.config` (unit latencies and initiation intervals of trace instructions),
   * relative to `baseDir`. Default: with a `gpgpusim.config`, the `gpgpusim.trace.config` or
   * `trace.config` in the same folder (Accel-Sim runs `-config gpgpusim.config -config
   * trace.config`); else, or when neither exists, none: trace instructions are then timed by
   * their opcode class with the GPU config's latencies, as a PTX run is.
   */
  readonly traceConfig?: string;
  /** Unknown SASS opcodes: refuse (default) or treat as ALU. */
  readonly unknownOpcode?: 'error' | 'alu';
  readonly seed?: number;
  readonly deadlockCycles?: number;
  /** Core cycles after which the run is stopped as runaway (`--max-cycles`; default {@link TRACE_MAX_CYCLES}). */
  readonly maxCycles?: number;
  /** Stop time, ps (`--until`): partial statistics, the trace check is not meaningful. */
  readonly untilPs?: number;
  readonly engine?: EngineOptions;
  readonly onEngine?: (engine: Engine) => void;
  readonly onProgress?: (engine: Engine) => void;
  /** Where the `gpu` field came from, for errors. */
  readonly where?: SourceLocation;
}

/** Outcome of a trace run. */
export interface TraceRunResult {
  /** Not-modelled config fields the overrides changed. */
  readonly warnings: readonly string[];
  readonly engine: Engine;
  readonly config: GpuConfig;
  readonly trace: AccelSimTrace;
  /** Warp instructions in the trace files, per kernel. */
  readonly traceInstructions: readonly number[];
  readonly memcpyBytes: number;
  /** Set when the run stopped at `untilPs` before the kernels finished (ps). */
  readonly stoppedAtPs?: number;
}

/**
 * Runs every kernel of an Accel-Sim trace directory.
 * @throws InputError for a bad trace, config or a kernel the GPU cannot hold; SimulationError
 *   for a deadlock or a runaway run (its report in `details`)
 */
export function runAccelSimTrace(dir: string, options: TraceRunOptions): TraceRunResult {
  const setup = setupAccelSimTrace(dir, options);
  try {
    return finish(setup, runWithWatchdog(setup.engine, setup.config, traceLimits(options)));
  } finally {
    setup.trace.close();
  }
}

/**
 * {@link runAccelSimTrace} that yields to the event loop every 2^16 events, so a signal handler
 * can set `interrupt`.
 * @throws RunInterrupted when interrupted (statistics partial); as {@link runAccelSimTrace}
 */
export async function runAccelSimTraceAsync(dir: string, options: TraceRunOptions, interrupt: InterruptFlag): Promise<TraceRunResult> {
  const setup = setupAccelSimTrace(dir, options);
  try {
    return finish(setup, await runWithWatchdogAsync(setup.engine, setup.config, traceLimits(options), interrupt));
  } finally {
    setup.trace.close();
  }
}

/** A trace is finite, so it cannot livelock: only deadlock, the cycle cap and `until` apply. */
function traceLimits(options: TraceRunOptions): WatchdogLimits {
  return { deadlockCycles: options.deadlockCycles ?? 100_000, livelockCycles: 0, maxCycles: options.maxCycles ?? TRACE_MAX_CYCLES, untilPs: options.untilPs ?? Infinity, onProgress: options.onProgress };
}

function finish(setup: Omit<TraceRunResult, 'stoppedAtPs'>, stop: WatchdogStop): TraceRunResult {
  return stop === 'until' ? { ...setup, stoppedAtPs: setup.engine.now } : setup;
}

/** Names of the trace config Accel-Sim's GPU folders put beside `gpgpusim.config`, in the order tried. */
export const TRACE_CONFIG_NAMES: readonly string[] = Object.freeze(['gpgpusim.trace.config', 'trace.config']);

/**
 * The `trace.config` a run uses: `options.traceConfig`, else one of {@link TRACE_CONFIG_NAMES}
 * beside the `gpgpusim.config`, else none (built-in unit timings).
 */
export function traceConfigPath(options: Pick<TraceRunOptions, 'traceConfig' | 'gpu' | 'baseDir'>): string | undefined {
  if (options.traceConfig !== undefined) return resolve(options.baseDir, options.traceConfig);
  const cfg = options.gpu.gpgpusimConfig;
  if (cfg === undefined) return undefined;
  const dir = dirname(resolve(options.baseDir, cfg));
  for (const name of TRACE_CONFIG_NAMES) {
    const p = join(dir, name);
    if (existsSync(p)) return p;
  }
  return undefined;
}

/** Loads the config and trace and builds the GPU (not yet run); the caller closes `trace`. */
function setupAccelSimTrace(dir: string, options: TraceRunOptions): Omit<TraceRunResult, 'stoppedAtPs'> {
  const config = loadGpuConfig(options.gpu, options.baseDir, options.where ?? { file: '--gpu' }, options.configOverrides ?? []);
  const warnings = (options.configOverrides ?? []).length > 0 ? checkNotModelled(loadGpuConfig(options.gpu, options.baseDir, options.where ?? { file: '--gpu' }, []), config, options.strict ?? false, { file: '--config-set' }) : [];
  const ws = config.policies.warpScheduler;
  if (createWarpSchedulerPolicy(ws.kind, { ...(({ kind: _k, ...o }) => o)(ws), numSlots: 1 }).usesStaticTables === true) {
    // PATS and ELF read phase and load tables from the kernel's PTX IR; a SASS trace line has
    // no branch target or guard to build basic blocks from.
    throw new InputError(options.where ?? { file: '--gpu' }, `warp scheduler '${ws.kind}' needs the static tables of PTX code (phases, loads), which Accel-Sim traces do not carry (not supported: static analysis of SASS traces)`, 'policies.warpScheduler.kind');
  }
  const traceConfig = traceConfigPath(options);
  const trace = openAccelSimTrace(dir, { unknownOpcode: options.unknownOpcode ?? 'error', traceConfig });
  try {
    const context = new GpuContext();
    const limits = gpuLimits(config);
    const traceInstructions: number[] = [];
    const plans: KernelLaunchPlan[] = trace.kernels.map((tk) => {
      const h = tk.header;
      const where = { file: h.name };
      // With a trace.config, Accel-Sim's per-opcode unit timing; without, the config's opcode classes.
      const kernel = new TraceTimingKernel(tk, { unitTiming: traceConfig !== undefined });
      traceInstructions.push(kernel.instructionCount);
      const regs = Math.max(1, h.nregs);
      try {
        assertLaunchFits(limits, { gridDim: [h.gridDim.x, h.gridDim.y, h.gridDim.z], ctaDim: [h.blockDim.x, h.blockDim.y, h.blockDim.z], registersPerThread: regs, sharedMemPerCta: h.shmem }, where);
      } catch (e) {
        if (e instanceof SimulationError) throw new InputError(where, e.message, 'launch');
        throw e;
      }
      const occ = occupancy(limits, { threadsPerCta: kernel.threadsPerCta, registersPerThread: regs, sharedMemPerCta: h.shmem }, where);
      const entry = context.addKernel(h.name, kernel, regs);
      return {
        kernel: entry.id,
        atCycle: 0,
        warpsPerCta: Math.ceil(kernel.threadsPerCta / config.sm.warpSize),
        registersPerCta: occ.byRegisters === Infinity ? 0 : Math.floor(limits.registersPerSm / occ.byRegisters),
        sharedBytesPerCta: occ.bySharedMem === Infinity ? 0 : Math.floor(limits.sharedMemPerSm / occ.bySharedMem),
        stream: h.cudaStreamId,
      };
    });
    const memcpyBytes = trace.commands.reduce((sum, c) => sum + (c.kind === 'memcpyHtoD' ? c.bytes : 0), 0);
    const engine = buildGpu(config, context, plans, { seed: options.seed ?? 1, ...options.engine });
    engine.stats.derived('trace.memcpy_bytes', () => memcpyBytes, 'bytes copied to the device by MemcpyHtoD commands', 'bytes');
    engine.stats.derived('trace.warp_insts', () => traceInstructions.reduce((a, b) => a + b, 0), 'warp instructions in the trace files', 'count');
    options.onEngine?.(engine);
    return { engine, config, trace, traceInstructions, memcpyBytes, warnings };
  } catch (e) {
    trace.close();
    throw e;
  }
}
