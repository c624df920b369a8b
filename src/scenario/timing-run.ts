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
import { formatNotModelledChange, notModelledChanges } from '../config/not-modelled.ts';
import type { SourceLocation } from '../errors.ts';
import type { ExtensionSource } from '../topology/splice.ts';
import type { LaunchPlan as KernelLaunchPlan } from '../topology/gpu-smwm.ts';
import { buildGpu, gpuLimits, loadGpuConfig } from '../topology/gpu.ts';
import { assertLaunchFits, occupancy } from '../model/sm/occupancy.ts';
import { parseDuration } from '../sim/time.ts';
import type { LoadedScenario } from './loader.ts';
import { checkKernelScenario, prepareKernelScenario, readBackBuffers, type KernelCheckResult, type PreparedKernelScenario } from './kernel-run.ts';
import type { TypedArray } from './references/index.ts';
import { RunInterrupted, type InterruptFlag } from './interrupt.ts';

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
  const prepared = prepareKernelScenario(loaded);
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
  const engine = buildGpu(config, context, plans, { seed: scenario.seed, sampleIntervalPs, ...options.engine }, { pollEveryCycle: options.pollEveryCycle ?? false, extensionSource });
  options.onEngine?.(engine);
  const untilPs = options.untilPs ?? (scenario.until === undefined ? Infinity : parseDuration(scenario.until, source.locate(['until']), 'until'));
  return { loaded, engine, config, prepared, warnings, deadlockCycles: scenario.deadlockCycles, maxCycles: options.maxCycles ?? scenario.maxCycles, untilPs };
}

/** A timing run built and ready to run (see {@link setupKernelScenarioTiming}). */
export interface TimingRunSetup {
  readonly loaded: LoadedScenario;
  readonly engine: Engine;
  readonly config: GpuConfig;
  readonly prepared: PreparedKernelScenario;
  readonly warnings: readonly string[];
  readonly deadlockCycles: number;
  readonly maxCycles: number;
  /** Stop time, ps (Infinity: run to the end of the workload). */
  readonly untilPs: number;
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
  const stop = runWithWatchdog(setup.engine, setup.deadlockCycles, setup.config, options.onProgress, setup.maxCycles, setup.untilPs);
  return completeKernelScenarioTiming(setup, stop);
}

/** How a watched run ended without an error: the workload finished, or the stop time came. */
export type WatchdogStop = 'done' | 'until';

/**
 * {@link runKernelScenarioTiming} that yields to the event loop every 2^16 events, so a signal
 * handler can set `interrupt`; the run then stops at the current event (finalize hooks run) and
 * throws {@link RunInterrupted}.
 */
export async function runKernelScenarioTimingAsync(loaded: LoadedScenario, options: TimingRunOptions, interrupt: InterruptFlag): Promise<TimingRunResult> {
  const setup = setupKernelScenarioTiming(loaded, options);
  const stop = await runWithWatchdogAsync(setup.engine, setup.deadlockCycles, setup.config, options.onProgress, setup.maxCycles, interrupt, setup.untilPs);
  return completeKernelScenarioTiming(setup, stop);
}

/**
 * The warnings for not-modelled fields that overrides changed (issue 8 item 7).
 * @throws InputError under `strict`, naming the first such field
 */
export function checkNotModelled(base: GpuConfig, config: GpuConfig, strict: boolean, where: SourceLocation | ((field: string) => SourceLocation)): string[] {
  const changes = notModelledChanges(base, config);
  if (strict && changes.length > 0) {
    const c = changes[0]!;
    throw new InputError(typeof where === 'function' ? where(c.field) : where, `config field ${c.field} is not modelled (${c.reason}); --strict refuses setting it to ${JSON.stringify(c.to)}`, c.field);
  }
  return changes.map(formatNotModelledChange);
}

/** The config with a scenario's `gpu.extensions` appended to its own `extensions`. */
export function withScenarioExtensions(config: GpuConfig, extensions: readonly ExtensionEntry[]): GpuConfig {
  if (extensions.length === 0) return config;
  return { ...config, extensions: [...(config.extensions ?? []), ...extensions] };
}

/** Progress signature: anything that changes while the machine does useful work. */
function progress(engine: Engine): number {
  return engine.messagesDelivered.value + (engine.stats.value('gpu_tot_warp_insts') ?? 0);
}

/**
 * Runs in windows of `deadlockCycles` core cycles; stops with a deadlock report when a window
 * shows no progress while units report pending work, or when the queue drains with work left.
 * @throws SimulationError with the report in `details`
 */
export function runWithWatchdog(engine: Engine, deadlockCycles: number, config: GpuConfig, onProgress?: (engine: Engine) => void, maxCycles = Infinity, untilPs = Infinity): WatchdogStop {
  const core = engine.clock('core');
  const windowPs = Math.ceil((deadlockCycles * 1e12) / (config.clocks.core * 1e6));
  const runawayPs = Number.isFinite(maxCycles) ? core.timeOfCycle(maxCycles) : Infinity;
  const capPs = Math.min(runawayPs, untilPs);
  let last = progress(engine);
  const every = 1 << 16;
  for (;;) {
    const until = Math.min(engine.now + windowPs, capPs);
    const r = engine.run(until, onProgress ? (e) => ((e.events.value & (every - 1)) === 0 && onProgress(e), false) : null);
    const pending = engine.pendingWork();
    if (r.reason === 'idle' || r.reason === 'finished') {
      if (pending.length === 0) {
        engine.finalize();
        return 'done';
      }
      throw deadlock(engine, 'the event queue drained with work pending', pending);
    }
    if (r.reason === 'timeLimit' && until === capPs) {
      engine.finalize();
      if (capPs === untilPs) return 'until';
      throw runaway(engine, maxCycles, pending);
    }
    const now = progress(engine);
    if (now === last && pending.length > 0) throw deadlock(engine, `no progress for ${deadlockCycles} core cycles`, pending);
    last = now;
  }
}

/** {@link runWithWatchdog}, yielding to the event loop every 2^16 events and honouring `interrupt`. */
export async function runWithWatchdogAsync(engine: Engine, deadlockCycles: number, config: GpuConfig, onProgress: ((engine: Engine) => void) | undefined, maxCycles: number, interrupt: InterruptFlag, untilPs = Infinity): Promise<WatchdogStop> {
  const core = engine.clock('core');
  const windowPs = Math.ceil((deadlockCycles * 1e12) / (config.clocks.core * 1e6));
  const runawayPs = Number.isFinite(maxCycles) ? core.timeOfCycle(maxCycles) : Infinity;
  const capPs = Math.min(runawayPs, untilPs);
  let last = progress(engine);
  let windowEnd = Math.min(engine.now + windowPs, capPs);
  const every = 1 << 16;
  for (;;) {
    const r = engine.run(windowEnd, (e) => {
      if ((e.events.value & (every - 1)) !== 0) return false;
      onProgress?.(e);
      return true;
    });
    if (r.reason === 'predicate') {
      await new Promise((resolve) => setImmediate(resolve));
      if (interrupt.signal !== null) {
        engine.finalize();
        throw new RunInterrupted(interrupt.signal, engine.now);
      }
      continue;
    }
    const pending = engine.pendingWork();
    if (r.reason === 'idle' || r.reason === 'finished') {
      if (pending.length === 0) {
        engine.finalize();
        return 'done';
      }
      throw deadlock(engine, 'the event queue drained with work pending', pending);
    }
    if (r.reason === 'timeLimit' && windowEnd === capPs) {
      engine.finalize();
      if (capPs === untilPs) return 'until';
      throw runaway(engine, maxCycles, pending);
    }
    const now = progress(engine);
    if (now === last && pending.length > 0) throw deadlock(engine, `no progress for ${deadlockCycles} core cycles`, pending);
    last = now;
    windowEnd = Math.min(engine.now + windowPs, capPs);
  }
}

/**
 * The report of a run stopped at its cycle cap: a kernel that never ends (a spin on a flag no
 * other CTA sets). Names the kernels still running and each resident warp with its PC.
 */
function runaway(engine: Engine, maxCycles: number, pending: { unit: string; work: string }[]): SimulationError {
  const report = { time_ps: engine.now, reason: `cycle cap of ${maxCycles} core cycles reached (maxCycles / --max-cycles)`, units: pending };
  const lines = [`runaway run stopped at ${engine.now} ps: ${report.reason}`, ...pending.map((p) => `  ${p.unit}: ${p.work}`)];
  return new SimulationError(lines.join('\n'), report);
}

function deadlock(engine: Engine, why: string, pending: { unit: string; work: string }[]): SimulationError {
  const report = { time_ps: engine.now, reason: why, units: pending, oldestWaiting: engine.oldestWaitingMessages(8) };
  const lines = [
    `deadlock at ${engine.now} ps: ${why}`,
    ...pending.slice(0, 20).map((p) => `  ${p.unit}: ${p.work}`),
    ...(pending.length > 20 ? [`  ... and ${pending.length - 20} more units with pending work (every one is in the statistics file, stop.report.units)`] : []),
    ...report.oldestWaiting.map((m) => `  waiting since ${m.since} ps at ${m.port}: ${m.kind} #${m.id} from ${m.from} (${m.why})`),
  ];
  return new SimulationError(lines.join('\n'), report);
}
