/**
 * Running a loaded scenario: build the network, attach trace sinks, run, evaluate checks, and
 * write statistics. Partial statistics and traces are always flushed, also when the run fails.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import picomatch from 'picomatch';
import { InputError, SimulationError } from '../errors.ts';
import type { Engine, RunResult } from '../sim/engine.ts';
import { parseDuration } from '../sim/time.ts';
import type { UnitRegistry } from '../sim/unit.ts';
import { buildNetwork } from '../topology/network.ts';
import { exportPerfettoFile } from '../trace/perfetto.ts';
import { TraceRecorder } from '../trace/recorder.ts';
import { JsonlSink, writeOutputFile, type TraceFilterOptions, type TraceSink } from '../trace/sinks.ts';
import type { LoadedScenario } from './loader.ts';
import type { StatCheck } from './schema.ts';
import { RunInterrupted, runInterruptible, type InterruptFlag } from './interrupt.ts';

/** Options of {@link runScenario}. */
export interface RunScenarioOptions {
  /** Unit kinds available to the scenario. */
  registry: UnitRegistry;
  /** Stop time (overrides the scenario's `until`): `10us` or ps. */
  until?: string | number;
  /** JSON Lines message trace path. */
  tracePath?: string;
  /** Chrome/Perfetto JSON path. */
  perfettoPath?: string;
  /** Statistics JSON path. */
  statsPath?: string;
  /** Trace filter (units, kinds, window). */
  traceFilter?: TraceFilterOptions;
  /** Extra sinks (tests). */
  sinks?: TraceSink[];
  /** Called about every 64k events with the engine (progress reporting). */
  onProgress?: (engine: Engine) => void;
  /** Called with the engine once it is built, before it starts (inspection, extra observers). */
  onEngine?: (engine: Engine) => void;
  /** Set by a signal handler to stop the run at the current event (partial results written). */
  interrupt?: InterruptFlag;
}

/** Outcome of one check. */
export interface CheckResult {
  readonly description: string;
  readonly passed: boolean;
  readonly actual: number | string;
}

/** Outcome of a scenario run. */
export interface ScenarioResult {
  readonly engine: Engine;
  readonly run: RunResult;
  readonly checks: readonly CheckResult[];
  /** True when every check passed. */
  readonly passed: boolean;
}

/** Evaluates a statistic check against a stats registry. */
export function evaluateStatCheck(engine: Engine, check: StatCheck): CheckResult {
  const lit = (g: string) => g.replace(/[[\]]/g, '\\$&');
  const isMatch = picomatch(lit(check.stat), { dot: true });
  const values = engine.stats
    .names()
    .filter((n) => n === check.stat || isMatch(n))
    .map((n) => engine.stats.value(n))
    .filter((v): v is number => v !== undefined);
  const description = `${check.aggregate}(${check.stat}) ${check.op} ${check.value}`;
  if (values.length === 0) return { description, passed: false, actual: 'no such statistic' };
  let actual: number;
  switch (check.aggregate) {
    case 'sum':
      actual = values.reduce((a, b) => a + b, 0);
      break;
    case 'min':
      actual = Math.min(...values);
      break;
    case 'max':
      actual = Math.max(...values);
      break;
    case 'mean':
      actual = values.reduce((a, b) => a + b, 0) / values.length;
      break;
    case 'count':
      actual = values.length;
      break;
  }
  return { description, passed: compareOp(check.op, actual, check.value), actual };
}

/** `actual op value` for a check's comparison operator. */
export function compareOp(op: StatCheck['op'], actual: number, value: number): boolean {
  switch (op) {
    case '==':
      return actual === value;
    case '!=':
      return actual !== value;
    case '<':
      return actual < value;
    case '<=':
      return actual <= value;
    case '>':
      return actual > value;
    case '>=':
      return actual >= value;
  }
}

/** The statistics file content. */
export function statsDocument(loaded: LoadedScenario, engine: Engine, run: RunResult | null, checks: readonly CheckResult[], error?: unknown) {
  const stop =
    run !== null
      ? { reason: run.reason, time_ps: run.time, pending: run.pendingUnits }
      : error instanceof RunInterrupted
        ? { reason: 'interrupted', signal: error.signal, partial: true, time_ps: engine.now }
        : { reason: 'error', partial: true, time_ps: engine.now, error: error instanceof Error ? error.message : String(error) };
  return {
    scenario: loaded.scenario.name,
    seed: engine.seed,
    stop,
    checks,
    stats: engine.stats.toJSON(),
  };
}

/**
 * Runs a network scenario (units + links).
 * @throws InputError for bad scenario content; SimulationError when the model fails (after
 *   flushing the trace and writing partial statistics, whose paths stay valid)
 */
export async function runScenario(loaded: LoadedScenario, options: RunScenarioOptions): Promise<ScenarioResult> {
  const { scenario, source } = loaded;
  if (scenario.launches.length > 0 || scenario.buffers.length > 0) {
    throw new InputError(source.locate(['launches']), 'kernel scenarios (buffers/launches) need the PTX front end, which this build does not include yet', 'launches');
  }
  if (scenario.units.length === 0) throw new InputError(source.locate([]), 'the scenario has no units', 'units');
  const engine = buildNetwork(loaded, options.registry);
  options.onEngine?.(engine);
  const untilRaw = options.until ?? scenario.until;
  const limit = untilRaw === undefined ? Infinity : parseDuration(untilRaw, options.until !== undefined ? { file: '--until' } : source.locate(['until']), 'until');

  const sinks: TraceSink[] = [...(options.sinks ?? [])];
  let tmpDir: string | null = null;
  let traceFile = options.tracePath;
  if (options.perfettoPath !== undefined && traceFile === undefined) {
    tmpDir = mkdtempSync(join(tmpdir(), 'warpstate-'));
    traceFile = join(tmpDir, 'trace.jsonl');
  }
  const jsonl = traceFile !== undefined ? new JsonlSink(traceFile) : null;
  if (jsonl !== null) sinks.push(jsonl);
  const recorder = sinks.length > 0 ? new TraceRecorder(engine, sinks, scenario.name, options.traceFilter) : null;

  let run: RunResult | null = null;
  try {
    engine.start();
    const onProgress = options.onProgress;
    run = await runInterruptible(engine, limit, options.interrupt, (e) => {
      // Stop when the trace can no longer be written (a full disk): reported after the rest is saved.
      if (jsonl?.error) throw jsonl.error;
      onProgress?.(e);
    });
    engine.finalize();
  } catch (e) {
    recorder?.close();
    if (options.statsPath !== undefined) {
      writeOutputFile(options.statsPath, JSON.stringify(statsDocument(loaded, engine, null, [], e), null, 1) + '\n');
    }
    if (options.perfettoPath !== undefined && traceFile !== undefined && !jsonl?.error) await exportPerfettoFile(traceFile, options.perfettoPath);
    if (tmpDir !== null) rmSync(tmpDir, { recursive: true, force: true });
    if (e instanceof RunInterrupted || e instanceof SimulationError || e instanceof InputError) throw e;
    throw new SimulationError(`run failed at ${engine.now} ps: ${(e as Error).message}`, { cause: e });
  }
  recorder?.close();
  if (jsonl?.error) {
    if (options.statsPath !== undefined) writeOutputFile(options.statsPath, JSON.stringify(statsDocument(loaded, engine, run, []), null, 1) + '\n');
    if (tmpDir !== null) rmSync(tmpDir, { recursive: true, force: true });
    throw jsonl.error;
  }

  const checks: CheckResult[] = scenario.checks.map((c) => {
    if ('stat' in c) return evaluateStatCheck(engine, c);
    return { description: `reference ${c.reference}`, passed: false, actual: 'reference checks need a kernel scenario' };
  });
  if (options.statsPath !== undefined) writeOutputFile(options.statsPath, JSON.stringify(statsDocument(loaded, engine, run, checks), null, 1) + '\n');
  if (options.perfettoPath !== undefined && traceFile !== undefined) await exportPerfettoFile(traceFile, options.perfettoPath);
  if (tmpDir !== null) rmSync(tmpDir, { recursive: true, force: true });
  return { engine, run, checks, passed: checks.every((c) => c.passed) };
}
