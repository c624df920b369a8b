/**
 * The `warpstate` command line (commander).
 *
 * Exit codes: 0 the scenario ran and its checks passed; 1 a check failed; 2 bad input (file,
 * line and field named on stderr, never a stack trace); 3 the simulated machine failed
 * (deadlock, unit error), after writing partial statistics and traces.
 */
import { readFileSync } from 'node:fs';
import { resolve, resolve as resolvePath } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Argument, Command, CommanderError, Option } from 'commander';
import { InputError, SimulationError, type SourceLocation } from '../errors.ts';
import type { GpuConfig } from '../config/schema.ts';
import type { LoadedScenario } from '../scenario/loader.ts';
import type { JsonlSink, TraceFilterOptions } from '../trace/sinks.ts';
import type { TraceRecorder } from '../trace/recorder.ts';
import type { TimingRunResult } from '../scenario/timing-run.ts';
import { RunInterrupted, signalExitCode, withInterrupts } from '../scenario/interrupt.ts';
import type { TraceRunResult } from '../scenario/trace-run.ts';
import type { StatCheck } from '../scenario/schema.ts';
import type { Engine } from '../sim/engine.ts';
import { StatsRegistry } from '../stats/registry.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseDuration } from '../sim/time.ts';
import type { SeriesCsvSink } from '../stats/series-sink.ts';
import { compareCommand } from './compare.ts';
import { sweepCommand } from '../sweep/command.ts';

/*
 * Everything past commander and the small modules above is imported on first use, so a command
 * loads only what it needs (issue 11 item 1): `config show` never loads the engine or xstate, a
 * trace run never loads the PTX front end from here, `--help` loads neither. Node caches each
 * module, so a second `import()` costs a map lookup.
 */
const load = {
  config: () => import('../config/index.ts'),
  notModelled: () => import('../config/not-modelled.ts'),
  machines: () => import('../../machines/index.ts'),
  loader: () => import('../scenario/loader.ts'),
  kernelRun: () => import('../scenario/kernel-run.ts'),
  timingRun: () => import('../scenario/timing-run.ts'),
  traceRun: () => import('../scenario/trace-run.ts'),
  scenarioRun: () => import('../scenario/run.ts'),
  ptxTrace: () => import('../frontends/accelsim/ptx-trace.ts'),
  sinks: () => import('../trace/sinks.ts'),
  recorder: () => import('../trace/recorder.ts'),
  perfetto: () => import('../trace/perfetto.ts'),
  diff: () => import('../trace/diff.ts'),
  seriesSink: () => import('../stats/series-sink.ts'),
  describe: () => import('./describe.ts'),
  diagram: () => import('../report/diagram.ts'),
  topology: () => import('./topology.ts'),
};

/**
 * `WARPSTATE_STARTUP_CPU=1` (issue 11, read by `bench/startup.ts`): prints to stderr the CPU time
 * (user + system, seconds, from process start: `process.cpuUsage()`) when the first simulated
 * event fires, as `[warpstate] startup: <s> CPU s ...`. It queues one extra event at time 0 ahead
 * of every other (priority -1), so the run's `events` count is one higher; nothing else changes.
 */
function probeStartup(engine: Engine, err: (s: string) => void): void {
  if (process.env.WARPSTATE_STARTUP_CPU !== '1') return;
  engine.queue.push(0, -1, {
    fire: () => {
      const u = process.cpuUsage();
      err(`[warpstate] startup: ${((u.user + u.system) / 1e6).toFixed(3)} CPU s (user ${(u.user / 1e6).toFixed(3)}, system ${(u.system / 1e6).toFixed(3)}) to the first simulated event\n`);
    },
  }, null);
}


/** Exit codes of the CLI. */
export const ExitCode = { ok: 0, checkFailed: 1, badInput: 2, simulationFailed: 3 } as const;

/** `--seed`: an integer from 0 to 2^32 - 1 (1.5, 1e99 and -1 are refused, not truncated). */
function seedArg(value: string): number {
  const n = Number(value);
  if (!(Number.isInteger(n) && n >= 0 && n <= 0xffffffff)) throw new InputError({ file: '--seed' }, `must be an integer from 0 to 4294967295, got '${value}'`);
  return n;
}

/** A commander parser for a positive integer option; a clean input error otherwise. */
function positiveInt(flag: string): (value: string) => number {
  return (value: string) => {
    const n = Number(value);
    if (!(Number.isInteger(n) && n >= 1 && n <= 1e12)) throw new InputError({ file: flag }, `must be an integer from 1 to 1e12, got '${value}'`, flag);
    return n;
  };
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function list(value: string): string[] {
  return value.split(',').map((s) => s.trim()).filter((s) => s.length > 0);
}

function printChecks(checks: readonly { passed: boolean; description: string; actual: number | string }[], out: (s: string) => void): void {
  for (const c of checks) out(`check ${c.passed ? 'PASS' : 'FAIL'}: ${c.description} (actual ${c.actual})\n`);
  const passed = checks.filter((c) => c.passed).length;
  out(`checks: ${passed} passed, ${checks.length - passed} failed\n`);
}

interface KernelRunOpts {
  functional?: boolean;
  quiet?: boolean;
  stats?: string;
  trace?: string;
  perfetto?: string;
  configSet?: string[];
  traceUnits?: string[];
  traceKinds?: string[];
  inspect?: string;
  strict?: boolean;
  maxCycles?: number;
  until?: string;
  traceFrom?: string;
  traceTo?: string;
  series?: string;
  sampleInterval?: string;
  /** `--summary`, `--stats-all`, `--report` (src/cli/summary.ts). */
  summary?: boolean;
  statsAll?: boolean;
  report?: string;
}

/** Runs a kernel scenario, functionally or on the timing model. */
async function runKernelScenario(loaded: LoadedScenario, opts: KernelRunOpts, out: (s: string) => void, err: (s: string) => void): Promise<number> {
  const mode = opts.functional ? 'functional' : loaded.scenario.mode ?? 'timing';
  if (mode === 'functional') {
    // No engine and no statechart runs in a functional run: nothing to inspect.
    if (opts.inspect !== undefined) throw new InputError({ file: '--inspect' }, 'needs a timing run (statechart units run only on the timing model), not a functional one', 'inspect');
    if (opts.series !== undefined) throw new InputError({ file: '--series' }, 'needs a timing run (a functional run has no simulated time to sample), not a functional one');
    if (opts.maxCycles !== undefined || opts.until !== undefined) {
      throw new InputError({ file: opts.maxCycles !== undefined ? '--max-cycles' : '--until' }, 'needs a timing run (a functional run has no cycles; it is capped by the scenario field maxWarpInstructions)');
    }
    const [{ runKernelScenarioFunctional }, { writeOutputFile }] = await Promise.all([load.kernelRun(), load.sinks()]);
    const stats = new StatsRegistry();
    const head = { scenario: loaded.scenario.name, seed: loaded.scenario.seed, mode };
    let r: ReturnType<typeof runKernelScenarioFunctional>;
    try {
      // device printf output goes to the run's output, after each kernel (before the statistics)
      r = runKernelScenarioFunctional(loaded, stats, { deviceOutput: out });
    } catch (e) {
      // A kernel fault: the launches that completed are counted in the partial statistics.
      if (e instanceof SimulationError && opts.stats !== undefined) {
        const stop = { reason: 'error', partial: true, error: e.message, ...(e.details !== undefined ? { report: e.details } : {}) };
        writeOutputFile(opts.stats, JSON.stringify({ ...head, stop, checks: [], stats: stats.toJSON() }, null, 1) + '\n');
      }
      throw e;
    }
    if (!opts.quiet) {
      out(`# scenario ${loaded.scenario.name} (seed ${loaded.scenario.seed}): functional run of ${loaded.scenario.launches.length} launch(es)\n`);
      out(r.stats.format() + '\n');
      out(`# functional speed: ${Math.round(r.threadInstructionsPerSecond)} thread instructions/s (${r.elapsedMs.toFixed(1)} ms)\n`);
    }
    if (opts.stats !== undefined) {
      writeOutputFile(opts.stats, JSON.stringify({ ...head, stop: { reason: 'done' }, checks: r.checks, stats: r.stats.toJSON() }, null, 1) + '\n');
    }
    printChecks(r.checks, out);
    return r.passed ? ExitCode.ok : ExitCode.checkFailed;
  }
  const [outputs, { runKernelScenarioTimingAsync }] = await Promise.all([RunOutputs.create(opts, loaded.scenario.name), load.timingRun()]);
  const started = Date.now();
  let lastReport = started;
  const head = { scenario: loaded.scenario.name, seed: loaded.scenario.seed, mode };
  let result: TimingRunResult;
  try {
    result = await withInterrupts(err, (interrupt) =>
      runKernelScenarioTimingAsync(loaded, {
        configOverrides: opts.configSet ?? [],
        strict: opts.strict === true,
        ...(opts.maxCycles !== undefined ? { maxCycles: opts.maxCycles } : {}),
        ...(opts.until !== undefined ? { untilPs: parseDuration(opts.until, { file: '--until' }, 'until') } : {}),
        deviceOutput: out,
        onEngine: (engine) => {
          outputs.attach(engine);
          probeStartup(engine, err);
        },
        onProgress: (engine) => {
          outputs.checkSink();
          const now = Date.now();
          if (now - lastReport >= 2000) {
            lastReport = now;
            err(`[warpstate] cycle ${engine.clock('core').cycleAt(engine.now)}, ${engine.stats.value('gpu_tot_warp_insts') ?? 0} warp instructions, ${((now - started) / 1000).toFixed(1)} s\n`);
          }
        },
      }, interrupt),
    );
  } catch (e) {
    return outputs.fail(head, e, err);
  }
  const stoppedAt = result.stoppedAtPs;
  const simWall = (Date.now() - started) / 1000;
  await outputs.finish(head, stoppedAt !== undefined ? { reason: 'until', partial: true, time_ps: stoppedAt } : null, result.checks);
  for (const w of result.warnings) err(`${w}\n`);
  if (stoppedAt !== undefined) err(`[warpstate] stopped at ${stoppedAt} ps (--until / until) before the kernels finished: partial statistics; reference checks not evaluated\n`);
  if (!opts.quiet && (!opts.summary || opts.statsAll)) {
    out(`# scenario ${loaded.scenario.name} (seed ${loaded.scenario.seed}) on ${result.config.name}: ${loaded.scenario.launches.length} launch(es), timing mode\n`);
    out(result.engine.stats.format() + '\n');
    const wall = (Date.now() - started) / 1000;
    out(`# simulation speed: ${Math.round((result.engine.stats.value('gpu_tot_warp_insts') ?? 0) / wall)} warp instructions/s (${wall.toFixed(2)} s wall)\n`);
  }
  // --summary (npm start) prints the short summary instead of every statistic; --report writes the HTML report.
  if (opts.summary || opts.report !== undefined) {
    const stop = stoppedAt !== undefined ? { reason: 'until', partial: true, time_ps: stoppedAt } : { reason: 'done', time_ps: result.engine.now };
    const run = { ...head, stop, checks: result.checks, stats: result.engine.stats.toJSON() as Record<string, unknown> };
    await (await import('./summary.ts')).summaryHook(opts, run, loaded.scenario.launches, result.config, simWall, opts.quiet ? () => {} : out);
  }
  printChecks(result.checks, out);
  return result.passed ? ExitCode.ok : ExitCode.checkFailed;
}

/**
 * The files a GPU timing run writes (`--trace`, `--perfetto`, `--stats`, `--inspect`): attached
 * to the engine before it starts, and written once at the end, whatever the end is (done,
 * `--until`, an interrupt, a deadlock or runaway report, a unit error). Partial statistics carry
 * `stop.partial: true` with the reason and the simulated time.
 */
class RunOutputs {
  private recorder: TraceRecorder | null = null;
  private sink: JsonlSink | null = null;
  private tmpDir: string | null = null;
  private readonly traceFile: string | undefined;
  private readonly inspected: string[] = [];
  private engine: Engine | null = null;
  private series: SeriesCsvSink | null = null;

  /** The output modules the options need, imported before the run (attach is synchronous). */
  static async create(opts: KernelRunOpts, name: string): Promise<RunOutputs> {
    const [sinks, recorder, series] = await Promise.all([
      load.sinks(),
      opts.trace !== undefined || opts.perfetto !== undefined ? load.recorder() : null,
      opts.series !== undefined ? load.seriesSink() : null,
    ]);
    return new RunOutputs(opts, name, { sinks, recorder, series });
  }

  private constructor(
    private readonly opts: KernelRunOpts,
    private readonly name: string,
    private readonly mods: {
      readonly sinks: Awaited<ReturnType<typeof load.sinks>>;
      readonly recorder: Awaited<ReturnType<typeof load.recorder>> | null;
      readonly series: Awaited<ReturnType<typeof load.seriesSink>> | null;
    },
  ) {
    this.traceFile = opts.trace;
    if (opts.perfetto !== undefined && this.traceFile === undefined) {
      this.tmpDir = mkdtempSync(join(tmpdir(), 'warpstate-'));
      this.traceFile = join(this.tmpDir, 'trace.jsonl');
    }
  }

  /** Subscribes the inspector and the trace recorder (with the trace filter options). */
  attach(engine: Engine): void {
    const opts = this.opts;
    this.engine = engine;
    if (opts.inspect !== undefined) engine.inspect$.subscribe((r) => this.inspected.push(JSON.stringify(r) + '\n'));
    if (this.traceFile !== undefined) {
      this.sink = new this.mods.sinks.JsonlSink(this.traceFile);
      this.recorder = new this.mods.recorder!.TraceRecorder(engine, [this.sink], this.name, traceFilter(opts));
    }
    if (opts.series !== undefined) this.series = attachSeries(engine, opts.series, this.mods.series!.SeriesCsvSink);
  }

  /** Stops the run when the trace can no longer be written (a full disk). */
  checkSink(): void {
    if (this.sink?.error) throw this.sink.error;
    this.series?.throwIfFailed();
  }

  /**
   * Closes the trace and writes inspection, statistics and Perfetto files.
   * @param stop the stop record, or null for a run that finished (`reason: done`)
   * @throws InputError when an output cannot be written (after writing the others)
   */
  async finish(head: Record<string, unknown>, stop: Record<string, unknown> | null, checks: readonly unknown[]): Promise<void> {
    const opts = this.opts;
    this.recorder?.close();
    this.series?.close();
    const engine = this.engine;
    const { writeOutputFile, outputError } = this.mods.sinks;
    if (opts.inspect !== undefined && engine !== null) writeOutputFile(opts.inspect, this.inspected.join(''));
    if (engine !== null && opts.stats !== undefined) {
      writeOutputFile(opts.stats, JSON.stringify({ ...head, stop: stop ?? { reason: 'done', time_ps: engine.now }, checks, stats: engine.stats.toJSON() }, null, 1) + '\n');
    }
    // A trace that failed to write (a full disk) is not read back: /dev/full reads as endless zeros.
    if (opts.perfetto !== undefined && this.traceFile !== undefined && engine !== null && !this.sink?.error) {
      try {
        await (await load.perfetto()).exportPerfettoFile(this.traceFile, opts.perfetto);
      } catch (e) {
        throw e instanceof InputError ? e : outputError(opts.perfetto, e);
      }
    }
    if (this.tmpDir !== null) rmSync(this.tmpDir, { recursive: true, force: true });
    // A trace or series that could not be written (a full disk) is reported once, after the rest is saved.
    this.checkSink();
  }

  /**
   * Writes partial results of a run that ended with `e`: an interrupt returns its exit code
   * (130/143); anything else is rethrown after the files are written.
   */
  async fail(head: Record<string, unknown>, e: unknown, err: (s: string) => void): Promise<number> {
    const now = this.engine?.now ?? 0;
    if (e instanceof RunInterrupted) {
      await this.finish(head, { reason: 'interrupted', signal: e.signal, partial: true, time_ps: now }, []);
      err(`[warpstate] ${e.message}; partial results written\n`);
      return signalExitCode(e.signal);
    }
    const report = e instanceof SimulationError ? e.details : undefined;
    await this.finish(head, { reason: 'error', partial: true, time_ps: now, error: (e as Error).message, ...(report !== undefined ? { report } : {}) }, []);
    throw e;
  }
}

/**
 * Streams every time-series sample of `engine` to the CSV file of `--series`.
 * @throws InputError when the run takes no samples (no `sampleInterval`) or the file cannot be created
 */
function attachSeries(engine: Engine, path: string, Sink: typeof SeriesCsvSink): SeriesCsvSink {
  if (engine.sampleIntervalPs <= 0) {
    throw new InputError({ file: '--series' }, "needs a sampling interval: give --sample-interval <time> or the scenario's sampleInterval");
  }
  return new Sink(engine, path);
}

/** The trace filter of `--trace-units/-kinds/-from/-to`. */
function traceFilter(opts: KernelRunOpts): TraceFilterOptions {
  return {
    ...(opts.traceUnits ? { units: opts.traceUnits } : {}),
    ...(opts.traceKinds ? { kinds: opts.traceKinds } : {}),
    ...(opts.traceFrom ? { from: parseDuration(opts.traceFrom, { file: '--trace-from' }, 'trace-from') } : {}),
    ...(opts.traceTo ? { to: parseDuration(opts.traceTo, { file: '--trace-to' }, 'trace-to') } : {}),
  };
}

/** Runs an Accel-Sim trace directory on the timing model (issue 5). */
async function runTrace(
  dir: string,
  gpu: string,
  baseDir: string,
  opts: KernelRunOpts & { unknownOpcode?: string; seed?: number },
  out: (s: string) => void,
  loaded?: LoadedScenario,
  err: (s: string) => void = (s) => void process.stderr.write(s),
): Promise<number> {
  const [{ presetNames }, { runAccelSimTraceAsync }, { evaluateStatCheck }] = await Promise.all([load.config(), load.traceRun(), load.scenarioRun()]);
  const isPreset = presetNames().includes(gpu);
  if (opts.unknownOpcode !== 'error' && opts.unknownOpcode !== 'alu') throw new InputError({ file: '--unknown-opcode' }, `must be error or alu, got '${opts.unknownOpcode}'`);
  const untilRaw = opts.until ?? loaded?.scenario.until;
  const untilPs = untilRaw === undefined ? undefined : parseDuration(untilRaw, opts.until !== undefined || loaded === undefined ? { file: '--until' } : loaded.source.locate(['until']), 'until');
  const intervalRaw = opts.sampleInterval ?? loaded?.scenario.sampleInterval;
  const sampleIntervalPs =
    intervalRaw === undefined ? 0 : parseDuration(intervalRaw, opts.sampleInterval !== undefined || loaded === undefined ? { file: '--sample-interval' } : loaded.source.locate(['sampleInterval']), 'sampleInterval');
  const outputs = await RunOutputs.create(opts, `trace ${dir}`);
  const head = { trace: dir, gpu };
  const started = Date.now();
  let lastReport = started;
  let result: TraceRunResult;
  try {
    result = await withInterrupts(err, (interrupt) =>
      runAccelSimTraceAsync(dir, {
        gpu: isPreset ? { preset: gpu } : { gpgpusimConfig: gpu },
        baseDir,
        configOverrides: opts.configSet ?? [],
        strict: opts.strict === true,
        unknownOpcode: opts.unknownOpcode as 'error' | 'alu',
        ...(loaded ? { seed: loaded.scenario.seed, deadlockCycles: loaded.scenario.deadlockCycles, maxCycles: loaded.scenario.maxCycles, where: loaded.source.locate(['gpu']) } : {}),
        ...(opts.maxCycles !== undefined ? { maxCycles: opts.maxCycles } : {}),
        ...(untilPs !== undefined ? { untilPs } : {}),
        ...(sampleIntervalPs > 0 ? { engine: { sampleIntervalPs, ...(loaded?.scenario.sampleLimit !== undefined ? { sampleLimit: loaded.scenario.sampleLimit } : {}) } } : {}),
        onEngine: (engine) => {
          outputs.attach(engine);
          probeStartup(engine, err);
        },
        onProgress: (engine) => {
          outputs.checkSink();
          const now = Date.now();
          if (now - lastReport >= 2000) {
            lastReport = now;
            err(`[warpstate] cycle ${engine.clock('core').cycleAt(engine.now)}, ${engine.stats.value('gpu_tot_warp_insts') ?? 0} warp instructions, ${((now - started) / 1000).toFixed(1)} s\n`);
          }
        },
      }, interrupt),
    );
  } catch (e) {
    return outputs.fail(head, e, err);
  }
  for (const w of result.warnings) err(`${w}\n`);
  const s = result.engine.stats;
  const traced = s.value('trace.warp_insts') ?? 0;
  const stoppedAt = result.stoppedAtPs;
  // Stopped early (--until), the simulated count is below the trace's: no check is meaningful.
  const checks =
    stoppedAt !== undefined
      ? []
      : [
          { description: 'simulated warp instructions == warp instructions in the trace', passed: s.value('gpu_tot_warp_insts') === traced, actual: s.value('gpu_tot_warp_insts') ?? 0 },
          ...(loaded ? loaded.scenario.checks.filter((c) => 'stat' in c).map((c) => evaluateStatCheck(result.engine, c as StatCheck)) : []),
        ];
  await outputs.finish(head, stoppedAt !== undefined ? { reason: 'until', partial: true, time_ps: stoppedAt } : null, checks);
  if (stoppedAt !== undefined) err(`[warpstate] stopped at ${stoppedAt} ps (--until / until) before the kernels finished: partial statistics; checks not evaluated\n`);
  if (!opts.quiet) {
    out(`# Accel-Sim trace ${dir} on ${result.config.name}: ${result.trace.kernels.length} kernel(s), ${traced} warp instructions\n`);
    out(s.format() + '\n');
    out(`# simulation speed: ${Math.round((s.value('gpu_tot_warp_insts') ?? 0) / ((Date.now() - started) / 1000))} warp instructions/s\n`);
  }
  printChecks(checks, out);
  return checks.every((c) => c.passed) ? ExitCode.ok : ExitCode.checkFailed;
}

/** Builds the program; `out`/`err` are injectable for tests. */
export function buildProgram(out: (s: string) => void, err: (s: string) => void, setExit: (code: number) => void): Command {
  const program = new Command();
  program
    .name('warpstate')
    .description('GPU microarchitecture simulator: hardware units as XState actors exchanging timestamped messages')
    .version(JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version)
    .configureOutput({ writeOut: out, writeErr: err })
    .exitOverride();
  // zod compiles each object schema's parser with `new Function` on first use: at start-up that
  // costs more (~0.05 CPU s of the quickstart's 0.3, none of it in the build's code cache) than
  // the few scenario, config and spec parses of a command gain from it. Results are the same.
  program.hook('preAction', async () => {
    (await import('zod')).z.config({ jitless: true });
  });

  program
    .command('run')
    .description('run a scenario file (YAML or JSON), or an Accel-Sim trace with --accelsim-trace, and print statistics')
    .argument('[scenario]', 'scenario file')
    .option('--seed <n>', 'override the scenario seed (an integer from 0 to 2^32 - 1)', seedArg)
    .option('--until <time>', 'stop at this simulated time (10us, 2500ns, 123ps)')
    .option('--trace <file.jsonl>', 'write the message trace as JSON Lines')
    .option('--perfetto <file.json>', 'write a Chrome Trace Event / Perfetto JSON file')
    .option('--stats <file.json>', 'write statistics as JSON')
    .option('--set <key=value>', 'override a scenario field (repeatable), e.g. units.MEM.params.latencyCycles=30', collect, [])
    .option('--trace-units <globs>', 'trace only these units (comma-separated globs)', list)
    .option('--trace-kinds <globs>', 'trace only these message kinds (comma-separated globs)', list)
    .option('--trace-from <time>', 'trace window start')
    .option('--trace-to <time>', 'trace window end')
    .option('-q, --quiet', 'print only the check summary')
    .option('--functional', 'execute kernels functionally (no timing) and check their results')
    .option('--config-set <key=value>', 'override a GPU config field (repeatable), e.g. sm.count=4', collect, [])
    .option('--accelsim-trace <dir>', 'run an Accel-Sim trace directory (kernelslist.g + kernel-N.traceg) on the timing model')
    .option('--gpu <preset|gpgpusim.config>', 'the GPU for --accelsim-trace (default gtx480)')
    .option('--unknown-opcode <policy>', 'unknown SASS opcodes: error or alu', 'error')
    .option('--write-trace <dir>', 'also write the kernels\' dynamic instruction stream as an Accel-Sim trace')
    .option('--max-cycles <n>', 'stop a timing run as runaway after this many core cycles (exit 3, partial statistics written)', positiveInt('--max-cycles'))
    .option('--strict', 'refuse a config override of a field the model does not read (not modelled), instead of warning')
    .option('--series <file.csv>', 'write every time-series sample at full resolution as CSV (time_ps, one column per series), streamed while the run goes on')
    .option('--sample-interval <time>', "sample the time series at this interval (overrides the scenario's sampleInterval), e.g. 1us")
    .option('--summary', 'print a short summary (GPU, checks, cycles, IPC, occupancy, cache hit rates, DRAM bandwidth, top stalls, speed) instead of every statistic; kernel scenarios on the timing model')
    .option('--stats-all', 'with --summary, also print every statistic (name = value), as without it')
    .option('--report <file.html>', 'write a self-contained HTML report of the run (summary, figures, configuration); kernel scenarios on the timing model')
    .option('--inspect <file.jsonl>', 'write XState inspection records of the statechart units (events received, state after each; time in ps) as JSON Lines; timing runs only')
    .action(async (file: string | undefined, opts) => {
      if (opts.accelsimTrace !== undefined) {
        setExit(await runTrace(opts.accelsimTrace, opts.gpu ?? 'gtx480', '.', opts, out, undefined, err));
        return;
      }
      if (file === undefined) throw new InputError({ file: 'run' }, 'give a scenario file, or --accelsim-trace <dir>', 'scenario');
      const overrides: string[] = [...opts.set];
      if (opts.seed !== undefined) {
        if (!Number.isInteger(opts.seed)) throw new InputError({ file: '--seed' }, 'must be an integer');
        overrides.push(`seed=${opts.seed}`);
      }
      if (opts.sampleInterval !== undefined) overrides.push(`sampleInterval=${opts.sampleInterval}`);
      const loaded = (await load.loader()).loadScenario(file, overrides);
      const traceSpec = loaded.scenario.accelsimTrace;
      if (traceSpec !== undefined) {
        const gpu = loaded.scenario.gpu ?? { preset: 'gtx480', gpgpusimConfig: undefined, set: [], extensions: [] };
        const code = await runTrace(resolvePath(loaded.baseDir, traceSpec.dir), gpu.preset ?? resolvePath(loaded.baseDir, gpu.gpgpusimConfig!), '.', { ...opts, unknownOpcode: traceSpec.unknownOpcode, configSet: [...gpu.set, ...opts.configSet] }, out, loaded, err);
        setExit(code);
        return;
      }
      if (opts.writeTrace !== undefined) {
        let counts: number[];
        try {
          // the kernels' printf output is printed by the run that follows, not twice
          counts = (await load.ptxTrace()).writePtxScenarioTrace(loaded, opts.writeTrace, { deviceOutput: () => {} });
        } catch (e) {
          // An OS error (ENOTDIR, EACCES, ENOSPC ...) is about the output path the user gave.
          if (typeof (e as NodeJS.ErrnoException).code === 'string' && !(e instanceof InputError)) throw (await load.sinks()).outputError(opts.writeTrace, e);
          throw e;
        }
        err(`[warpstate] wrote ${counts.reduce((a, b) => a + b, 0)} warp instructions of ${counts.length} kernel(s) to ${opts.writeTrace}\n`);
      }
      if (loaded.scenario.launches.length > 0) {
        setExit(await runKernelScenario(loaded, opts, out, err));
        return;
      }
      const [{ runScenario }, { createUnitRegistry }, { writeOutputFile }, seriesMod] = await Promise.all([
        load.scenarioRun(),
        load.machines(),
        load.sinks(),
        opts.series !== undefined ? load.seriesSink() : null,
      ]);
      const started = Date.now();
      let lastReport = started;
      const inspected: { records: string[] | null } = { records: null };
      const series: { sink: SeriesCsvSink | null } = { sink: null };
      let result: Awaited<ReturnType<typeof runScenario>>;
      try {
        result = await withInterrupts(err, (interrupt) =>
          runScenario(loaded, {
            registry: createUnitRegistry(),
            interrupt,
            ...(opts.until !== undefined ? { until: opts.until } : {}),
            ...(opts.trace !== undefined ? { tracePath: opts.trace } : {}),
            ...(opts.perfetto !== undefined ? { perfettoPath: opts.perfetto } : {}),
            ...(opts.stats !== undefined ? { statsPath: opts.stats } : {}),
            traceFilter: traceFilter(opts),
            onEngine: (engine) => {
              probeStartup(engine, err);
              if (opts.series !== undefined) series.sink = attachSeries(engine, opts.series, seriesMod!.SeriesCsvSink);
              if (opts.inspect === undefined) return;
              const records: string[] = (inspected.records = []);
              engine.inspect$.subscribe((r) => records.push(JSON.stringify(r) + '\n'));
            },
            onProgress: (engine) => {
              series.sink?.throwIfFailed();
              const now = Date.now();
              if (now - lastReport >= 2000) {
                lastReport = now;
                err(`[warpstate] ${(engine.now / 1e6).toFixed(3)} us simulated, ${engine.events.value} events, ${((now - started) / 1000).toFixed(1)} s\n`);
              }
            },
          }),
        );
      } catch (e) {
        series.sink?.close();
        if (opts.inspect !== undefined && inspected.records !== null) writeOutputFile(opts.inspect, inspected.records.join(''));
        if (e instanceof RunInterrupted) {
          err(`[warpstate] ${e.message}; partial results written\n`);
          setExit(signalExitCode(e.signal));
          return;
        }
        throw e;
      }
      series.sink?.close();
      if (opts.inspect !== undefined && inspected.records !== null) writeOutputFile(opts.inspect, inspected.records.join(''));
      series.sink?.throwIfFailed();
      if (!opts.quiet) {
        out(`# scenario ${loaded.scenario.name} (seed ${result.engine.seed}): stopped (${result.run.reason}) at ${result.run.time} ps\n`);
        out(result.engine.stats.format() + '\n');
      }
      for (const p of result.run.pendingUnits) out(`# pending: ${p.unit}: ${p.work}\n`);
      printChecks(result.checks, out);
      setExit(result.passed ? ExitCode.ok : ExitCode.checkFailed);
    });

  const trace = program.command('trace').description('work with message traces');
  trace
    .command('export')
    .description('convert a JSONL trace to another format')
    .argument('<trace.jsonl>', 'trace written by run --trace')
    .addOption(new Option('--format <format>', 'output format').choices(['perfetto']).default('perfetto'))
    .requiredOption('-o, --output <file>', 'output file')
    .action(async (file: string, opts) => {
      const n = await (await load.perfetto()).exportPerfettoFile(file, opts.output);
      out(`wrote ${n} trace events to ${opts.output}\n`);
    });
  trace
    .command('diff')
    .description('report the first point where two traces diverge (e.g. two schedulers)')
    .argument('<a.jsonl>')
    .argument('<b.jsonl>')
    .action(async (a: string, b: string) => {
      const d = await (await load.diff()).diffTraceFiles(a, b);
      if (d === null) {
        out('traces are identical\n');
        setExit(ExitCode.ok);
      } else {
        out(`traces diverge at line ${d.line}${d.time !== undefined ? ` (t = ${d.time} ps)` : ''}\n< ${d.a ?? '(end of file)'}\n> ${d.b ?? '(end of file)'}\n`);
        setExit(ExitCode.checkFailed);
      }
    });

  const config = program.command('config').description('GPU configurations: presets and gpgpusim.config files');
  // The preset names in `config show --help` come from the config module, imported when `config` is chosen.
  const presetArgument = new Argument('<preset|file>', 'preset name or config file');
  config.hook('preSubcommand', async () => {
    presetArgument.description = `preset name (${(await load.config()).presetNames().join(', ')}) or config file`;
  });
  config
    .command('show')
    .description('print a preset, a gpgpusim.config (mapped; ignored and not-modelled options listed) or a JSON/YAML config, and the fields the model does not read')
    .addArgument(presetArgument)
    .option('--json', 'print the validated config as JSON')
    .option('--not-modelled', 'print only the fields the model does not read, with their values and why')
    .option('--set <key=value>', 'override a field (repeatable), e.g. sm.count=4', collect, [])
    .option('--strict', 'refuse an override of a not-modelled field instead of warning')
    .action(async (spec: string, opts: { json?: boolean; set: string[]; notModelled?: boolean; strict?: boolean }) => {
      const [{ resolveGpuConfig, applyConfigOverrides, configToJson, formatConfig }, { leafValues, notModelledReason }] = await Promise.all([load.config(), load.notModelled()]);
      const resolved = resolveGpuConfig(spec);
      const cfg = opts.set.length > 0 ? applyConfigOverrides(resolved.config, opts.set) : resolved.config;
      const { checkNotModelled } = await load.notModelled();
      for (const w of checkNotModelled(resolved.config, cfg, opts.strict === true, { file: '--set' })) err(`${w}\n`);
      const notModelled = [...leafValues(cfg)].filter(([path]) => notModelledReason(path) !== undefined);
      if (opts.notModelled) {
        for (const [path, value] of notModelled) out(`${path} = ${JSON.stringify(value)}  [not modelled: ${notModelledReason(path)}]\n`);
        return;
      }
      out(opts.json ? configToJson(cfg) : formatConfig(cfg) + '\n');
      if (!opts.json) {
        out(`\n# ${notModelled.length} fields are not modelled (the simulation ignores them; overriding one warns, --strict refuses):\n`);
        for (const [path, value] of notModelled) out(`#   ${path} = ${JSON.stringify(value)}  [not modelled: ${notModelledReason(path)}]\n`);
      }
      if (resolved.kind === 'gpgpusim' && !opts.json) {
        out(`\n# ${resolved.import.mapped.length} options mapped; ${resolved.import.ignored.length} not modelled:\n`);
        for (const ig of resolved.import.ignored) out(`#   ${ig.option} (line ${ig.line})\n`);
        const nm = resolved.import.notModelled;
        out(`# ${nm.length} mapped options set fields the model does not read:\n`);
        for (const n of nm) out(`#   ${n.option} (line ${n.line}) -> ${n.field}: ${n.reason}\n`);
      }
    });
  config
    .command('list')
    .description('list the presets, or (--not-modelled) every config field the model does not read and why')
    .option('--not-modelled', 'list the schema fields the simulation ignores, with the reason')
    .action(async (opts: { notModelled?: boolean }) => {
      if (opts.notModelled) {
        for (const f of (await load.notModelled()).configFields()) if (!f.modelled) out(`${f.path}  [not modelled: ${f.reason}]\n`);
        return;
      }
      const { presetNames, getPreset } = await load.config();
      for (const name of presetNames()) out(`${name.padEnd(14)} ${getPreset(name).description ?? ''}\n`);
    });

  program.addCommand(compareCommand(out, err, setExit));

  program
    .command('report')
    .description('write a self-contained HTML report (summary, figures, tables) of a run\'s --stats file or of a sweep results directory')
    .argument('<stats.json|sweep-dir>', 'a statistics file written by run --stats, or a directory written by sweep')
    .requiredOption('-o, --output <report.html>', 'the HTML file to write')
    .option('--gpu <preset|file>', 'for a stats file: the GPU the run used (adds configuration, occupancy and peak DRAM bandwidth)')
    .action(async (target: string, opts: { output: string; gpu?: string }) => {
      out(`${await (await import('../report/report-html.ts')).writeReport(target, opts.output, opts.gpu)}\n`);
    });
  program.addCommand(sweepCommand(out, err, setExit));

  program
    .command('topology')
    .description('print a GPU as data: unit instances, splice points for extensions, and (--links) the link table')
    .argument('[preset|file]', 'preset name or config file', 'gtx480')
    .option('--set <key=value>', 'override a config field (repeatable), e.g. sm.count=2', collect, [])
    .option('--links', 'print the link table')
    .option('--units', 'print every unit instance')
    .action(async (spec: string, opts: { set: string[]; links?: boolean; units?: boolean }) => {
      const [{ resolveGpuConfig, applyConfigOverrides }, { createUnitRegistry }, { configTopology, formatTopology }] = await Promise.all([load.config(), load.machines(), load.topology()]);
      const resolved = resolveGpuConfig(spec);
      const cfg = opts.set.length > 0 ? applyConfigOverrides(resolved.config, opts.set) : resolved.config;
      const registry = createUnitRegistry();
      out(formatTopology(configTopology(cfg, (k) => registry.get(k)), { links: opts.links === true, units: opts.units === true }));
    });

  program
    .command('units')
    .description('list the unit kinds, or print one kind\'s data sheet (ports and message kinds, spec fields with units, resources, statistics) or its statechart')
    .argument('[kind]')
    .addOption(new Option('--diagram <format>', 'print the kind\'s statechart: mermaid (stateDiagram-v2) or stately (JSON config to import)').choices(['mermaid', 'stately']))
    .option('--json', 'print the data sheet as JSON')
    .action(async (kind: string | undefined, opts: { diagram?: 'mermaid' | 'stately'; json?: boolean }) => {
      const [{ createUnitRegistry }, { describeUnitKind, describeUnitKindJson, listUnitKinds, statechartOf }] = await Promise.all([load.machines(), load.describe()]);
      const registry = createUnitRegistry();
      if (kind === undefined) {
        out(listUnitKinds(registry.list()));
        return;
      }
      const d = registry.get(kind);
      if (d === undefined) throw new InputError({ file: 'units' }, `unknown unit kind '${kind}' (known: ${registry.list().map((x) => x.kind).join(', ')})`, kind);
      if (opts.diagram !== undefined) {
        const chart = statechartOf(d);
        if (chart === undefined) {
          const withChart = registry.list().filter((x) => statechartOf(x) !== undefined).map((x) => x.kind);
          throw new InputError({ file: 'units' }, `unit kind '${kind}' has no statechart (its logic is datapath code); kinds with one: ${withChart.join(', ')}`, kind);
        }
        const { toMermaid, toStatelyJson } = await load.diagram();
        out(opts.diagram === 'mermaid' ? toMermaid(chart) : toStatelyJson(chart));
        return;
      }
      out(opts.json ? JSON.stringify(describeUnitKindJson(d), null, 2) + '\n' : describeUnitKind(d));
    });
  return program;
}

/**
 * Runs the CLI on `argv` (without node and script), returning the exit code. Never throws.
 */
export async function main(argv: readonly string[], out = (s: string) => void process.stdout.write(s), err = (s: string) => void process.stderr.write(s)): Promise<number> {
  let code: number = ExitCode.ok;
  const program = buildProgram(out, err, (c) => {
    code = c;
  });
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return code;
  } catch (e) {
    if (e instanceof CommanderError) {
      if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help') return ExitCode.ok;
      return ExitCode.badInput;
    }
    if (e instanceof InputError) {
      err(`error: ${e.message}\n`);
      return ExitCode.badInput;
    }
    const inputCause = e instanceof SimulationError ? (e.details as { cause?: unknown; unit?: string } | undefined) : undefined;
    if (inputCause?.cause instanceof InputError) {
      // bad input read lazily during the run (a trace CTA): an input error, found by a unit
      err(`error: ${inputCause.cause.message} (found by ${inputCause.unit ?? 'a unit'} during the simulation)\n`);
      return ExitCode.badInput;
    }
    if (e instanceof SimulationError) {
      err(`simulation failed: ${e.message}\n`);
      return ExitCode.simulationFailed;
    }
    err(`internal error: ${(e as Error).stack ?? String(e)}\n`);
    return ExitCode.simulationFailed;
  }
}

const invokedDirectly = process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href;
if (invokedDirectly || process.env.WARPSTATE_CLI === '1') {
  main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
