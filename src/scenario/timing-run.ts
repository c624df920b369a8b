/**
 * Running kernel scenarios in timing mode: the kernels run cycle by cycle on the GPU timing
 * model (every unit an actor, DESIGN.md §3) built from the scenario's GPU config, and their
 * results are checked against the host references as in functional mode.
 *
 * A run that makes no progress (no instruction issued, no message delivered, no CTA finished)
 * for `deadlockCycles` core cycles while work is pending, or whose event queue drains with work
 * pending, stops with a deadlock report; partial statistics and traces are still written.
 */
import { InputError, SimulationError } from '../errors.ts';
import type { GpuConfig } from '../config/schema.ts';
import type { Engine, EngineOptions } from '../sim/engine.ts';
import { GpuContext } from '../model/gpu-context.ts';
import type { ExtensionEntry } from '../config/extensions.ts';
import { checkNotModelled } from '../config/not-modelled.ts';
import type { SourceLocation } from '../errors.ts';
import type { ExtensionSource } from '../topology/splice.ts';
import type { LaunchPlan as KernelLaunchPlan } from '../topology/gpu-smwm.ts';
import { buildGpu, gpuLimits, loadGpuConfig } from '../topology/gpu.ts';
import { assertLaunchFits, occupancy } from '../model/sm/occupancy.ts';
import { parseDuration } from '../sim/time.ts';
import type { LoadedScenario } from './loader.ts';
import { checkKernelScenario, prepareKernelScenario, readBackBuffers, type KernelCheckResult, type PreparedKernelScenario } from './kernel-run.ts';
import type { TypedArray } from './references/index.ts';
import type { InterruptFlag } from './interrupt.ts';
import { runWithWatchdog, runWithWatchdogAsync, type WatchdogLimits, type WatchdogStop } from './watchdog.ts';

/** Options of {@link runKernelScenarioTiming}. */
export interface TimingRunOptions {
  /** Extra config overrides (`sm.count=4`), applied after the scenario's `gpu.set`. */
  readonly configOverrides?: readonly string[];
  /** Engine options (observable, sampling). */
  readonly engine?: EngineOptions;
  /** Called with the built engine before it starts (attach trace recorders). */
  readonly onEngine?: (engine: Engine) => void;
  /** Called about every 64k events (progress). */
  readonly onProgress?: (engine: Engine) => void;
  /** Issue stages wake every cycle instead of sleeping (verification of the sleep logic). */
  readonly pollEveryCycle?: boolean;
  /** Refuse a not-modelled config field set to a value other than the preset's (`--strict`). */
  readonly strict?: boolean;
  /** Cycle cap overriding the scenario's `maxCycles` (`--max-cycles`). */
  readonly maxCycles?: number;
  /** Stop time, ps, overriding the scenario's `until` (`--until`): partial statistics, no checks. */
  readonly untilPs?: number;
  /**
   * Receives each launch's device `printf` output when the launch's last CTA finished (in
   * simulated-time order of the kernels' ends), or when a `trap` / failed `assert` stops it;
   * default: the process's standard output (see `KernelScenarioOptions.deviceOutput`).
   */
  readonly deviceOutput?: (text: string) => void;
}

/** Outcome of a timing run. */
export interface TimingRunResult {
  readonly engine: Engine;
  readonly config: GpuConfig;
  readonly checks: readonly KernelCheckResult[];
  readonly passed: boolean;
  readonly buffers: Readonly<Record<string, TypedArray>>;
  readonly prepared: PreparedKernelScenario;
  /** Not-modelled config fields the overrides changed (ignored by the simulation: warn the user). */
  readonly warnings: readonly string[];
  /** Set when the run stopped at `until` (ps) before the workload finished: statistics are partial, checks not evaluated. */
  readonly stoppedAtPs?: number;
}

/**
 * Registers per thread of a kernel for occupancy: the launch's `regsPerThread` when given
 * (what `ptxas -v` reports), else an estimate from the PTX: 32-bit registers plus two per 64-bit
 * register (predicates excluded), capped at 63 (Fermi's per-thread limit). PTX virtual
 * registers overstate what ptxas allocates, so give `regsPerThread` where occupancy matters.
 */
export function estimateRegsPerThread(prepared: PreparedKernelScenario['launches'][number]): number {
  if (prepared.spec.regsPerThread !== undefined) return prepared.spec.regsPerThread;
  const fn = prepared.kernel.entry;
  let regs = 0;
  for (const r of fn.registers) {
    const bits = (r as { bits?: number }).bits ?? 32;
    if (bits === 1) continue;
    regs += bits > 32 ? 2 : 1;
  }
  return Math.max(1, Math.min(63, regs));
}

/**
 * Builds the engine of a kernel scenario's timing run (config, launches, GPU) without running it.
 * @throws InputError for a bad scenario, config, or a launch the GPU cannot hold (003 eq. 3.1)
 */
export function setupKernelScenarioTiming(loaded: LoadedScenario, options: TimingRunOptions = {}): TimingRunSetup {
  const { scenario, source } = loaded;
  const gpuSpec = scenario.gpu ?? { preset: 'gtx480', set: [], extensions: [] };
  const overrides = [...gpuSpec.set, ...(options.configOverrides ?? [])];
  const config = withScenarioExtensions(loadGpuConfig(gpuSpec, loaded.baseDir, source.locate(['gpu']), overrides), gpuSpec.extensions);
  // A refused field is located at the --config-set argument that set it, else at the scenario's gpu.set.
  const whereSet = (field: string): SourceLocation => ((options.configOverrides ?? []).some((o) => o.trim().startsWith(`${field}=`)) ? { file: '--config-set' } : source.locate(['gpu', 'set']));
  const warnings = overrides.length > 0 ? checkNotModelled(loadGpuConfig(gpuSpec, loaded.baseDir, source.locate(['gpu']), []), config, options.strict ?? false, whereSet) : [];
  const prepared = prepareKernelScenario(loaded, options.deviceOutput !== undefined ? { deviceOutput: options.deviceOutput } : {});
  const context = new GpuContext();
  const limits = gpuLimits(config);
  const core = config.clocks.core * 1e6;
  const plans: KernelLaunchPlan[] = prepared.launches.map((l, i) => {
    const regs = estimateRegsPerThread(l);
    const threads = l.kernel.threadsPerCta;
    const where = source.locate(['launches', i]);
    try {
      assertLaunchFits(limits, { gridDim: l.kernel.grid, ctaDim: l.kernel.block, registersPerThread: regs, sharedMemPerCta: l.kernel.sharedBytes }, where);
    } catch (e) {
      if (e instanceof InputError) throw new InputError(where, e.reason, `launches[${i}]`);
      if (e instanceof SimulationError) throw new InputError(where, e.message, `launches[${i}]`);
      throw e;
    }
    const occ = occupancy(limits, { threadsPerCta: threads, registersPerThread: regs, sharedMemPerCta: l.kernel.sharedBytes }, where);
    if (occ.ctasPerSm < 1) throw new InputError(where, `a CTA of ${l.spec.entry} does not fit on an SM (limited by ${occ.limitedBy})`, `launches[${i}]`);
    const entry = context.addKernel(l.spec.entry, l.kernel, regs);
    const warps = Math.ceil(threads / config.sm.warpSize);
    const at = l.spec.at === undefined ? 0 : Math.ceil((parseDuration(l.spec.at, source.locate(['launches', i, 'at']), `launches[${i}].at`) * core) / 1e12);
    return {
      kernel: entry.id,
      atCycle: at,
      warpsPerCta: warps,
      // Budgets that let exactly the occupancy calculation's CTAs fit (allocation granularities
      // included): R / byRegisters registers and S / bySharedMem bytes per CTA.
      registersPerCta: occ.byRegisters === Infinity ? 0 : Math.floor(limits.registersPerSm / occ.byRegisters),
      sharedBytesPerCta: occ.bySharedMem === Infinity ? 0 : Math.floor(limits.sharedMemPerSm / occ.bySharedMem),
      stream: l.spec.stream,
    };
  });
  const sampleIntervalPs = scenario.sampleInterval === undefined ? 0 : parseDuration(scenario.sampleInterval, source.locate(['sampleInterval']), 'sampleInterval');
  const own = (config.extensions?.length ?? 0) - gpuSpec.extensions.length;
  const extensionSource: ExtensionSource = {
    field: 'gpu.extensions',
    // Entries past the config's own come from the scenario's gpu.extensions (located there).
    locate: (path) => (typeof path[0] === 'number' && path[0] >= own ? source.locate(['gpu', 'extensions', path[0] - own, ...path.slice(1)]) : source.locate(['gpu'])),
  };
  const engine = buildGpu(config, context, plans, { seed: scenario.seed, sampleIntervalPs, ...(scenario.sampleLimit !== undefined ? { sampleLimit: scenario.sampleLimit } : {}), ...options.engine }, { pollEveryCycle: options.pollEveryCycle ?? false, extensionSource });
  options.onEngine?.(engine);
  const untilPs = options.untilPs ?? (scenario.until === undefined ? Infinity : parseDuration(scenario.until, source.locate(['until']), 'until'));
  return { loaded, engine, config, prepared, warnings, limits: { deadlockCycles: scenario.deadlockCycles, livelockCycles: scenario.livelockCycles, maxCycles: options.maxCycles ?? scenario.maxCycles, untilPs } };
}

/** A timing run built and ready to run (see {@link setupKernelScenarioTiming}). */
export interface TimingRunSetup {
  readonly loaded: LoadedScenario;
  readonly engine: Engine;
  readonly config: GpuConfig;
  readonly prepared: PreparedKernelScenario;
  readonly warnings: readonly string[];
  /** The watchdog's limits (deadlock and livelock windows, cycle cap, stop time in ps). */
  readonly limits: WatchdogLimits;
}

/** Reads the buffers back and checks them, after the run (see {@link setupKernelScenarioTiming}). */
export function completeKernelScenarioTiming(setup: TimingRunSetup, stop: WatchdogStop = 'done'): TimingRunResult {
  const { loaded, engine, config, prepared, warnings } = setup;
  if (stop === 'until') {
    // Stopped before the kernels finished: the buffers are not final, so no check is evaluated.
    return { engine, config, checks: [], passed: true, buffers: readBackBuffers(loaded, prepared), prepared, warnings, stoppedAtPs: engine.now };
  }
  const final = readBackBuffers(loaded, prepared);
  const checks = checkKernelScenario(loaded, prepared, final, engine.stats);
  return { engine, config, checks, passed: checks.every((c) => c.passed), buffers: final, prepared, warnings };
}

/**
 * Runs a kernel scenario on the timing model.
 * @throws InputError for a bad scenario, config, or a launch the GPU cannot hold (003 eq. 3.1,
 *   the limit named); SimulationError for a deadlock (with its report), a runaway run, or a
 *   kernel fault
 */
export function runKernelScenarioTiming(loaded: LoadedScenario, options: TimingRunOptions = {}): TimingRunResult {
  const setup = setupKernelScenarioTiming(loaded, options);
  const stop = runWithWatchdog(setup.engine, setup.config, { ...setup.limits, onProgress: options.onProgress });
  return completeKernelScenarioTiming(setup, stop);
}

/**
 * {@link runKernelScenarioTiming} that yields to the event loop every 2^16 events, so a signal
 * handler can set `interrupt`; the run then stops at the current event (finalize hooks run) and
 * throws {@link RunInterrupted}.
 */
export async function runKernelScenarioTimingAsync(loaded: LoadedScenario, options: TimingRunOptions, interrupt: InterruptFlag): Promise<TimingRunResult> {
  const setup = setupKernelScenarioTiming(loaded, options);
  const stop = await runWithWatchdogAsync(setup.engine, setup.config, { ...setup.limits, onProgress: options.onProgress }, interrupt);
  return completeKernelScenarioTiming(setup, stop);
}

/** Re-exported for callers of the timing run (defined with the not-modelled table). */
export { checkNotModelled };

/** The config with a scenario's `gpu.extensions` appended to its own `extensions`. */
export function withScenarioExtensions(config: GpuConfig, extensions: readonly ExtensionEntry[]): GpuConfig {
  if (extensions.length === 0) return config;
  return { ...config, extensions: [...(config.extensions ?? []), ...extensions] };
}

