/**
 * `npm run bench` (issue 11 item 3): a CPU-time benchmark of the simulator, side by side with
 * Accel-Sim. Entry point bench/run.ts (options, output); this module runs the sections and
 * builds the JSON report ({@link runBenchmark}), its human table ({@link formatTable}) and a CSV
 * of its rows ({@link toCsv}).
 *
 * Sections (`--only <name>[,<name>...]`):
 * - `kernels`: the tiled matmul (N = 64, 128, 256; `--full` adds 512), stream_x_words (128, 512,
 *   2048 CTAs; `--full` adds 8192) and trace-driven matrix multiplies of growing size, each in
 *   this process: warp instructions, cycles, CPU seconds, warp instructions and cycles per CPU
 *   second, engine events per warp instruction; and one CLI run of each kernel's largest default
 *   size for whole-process CPU seconds and peak RSS;
 * - `tracing`: the mid-size matmul with observation compiled out, tracing off, a full JSONL
 *   trace to a temp file, and a trace filtered to `GPU.SM[0].*`; CPU-second ratios;
 * - `smScaling`: the largest default stream_x_words on 15 and 60 SMs (`sm.count=60`);
 * - `policies`: the middle-size matmul and stream under each warp scheduler policy of
 *   {@link POLICY_VARIANTS} (issue 13: PATS and ELF within 15% of GTO's simulation speed);
 * - `startup`: bench/startup.ts (CPU seconds to the first simulated event of the quickstart);
 * - `accelSim`: whole-process CPU seconds of seven trace runs beside Accel-Sim's (bench/accelsim.ts);
 * - `engine`: event queue and message network without a GPU (bench/engine.ts);
 * - `library`: every library kernel as committed (bench/gpu.ts); only with `--full` or `--only`.
 *
 * Every measured figure is the median of `repeat` runs (variants interleaved so that a change in
 * machine load hits them alike), after one warm-up run per kernel and tracing variant (JIT;
 * `--quick` warms the untraced path only). Rates and ratios are
 * computed from the reported (rounded) medians, so they can be recomputed from the JSON.
 */
import { stringify } from 'csv-stringify/sync';
import { round, roundCpu, ensureBuiltCli, machineInfo, median, readGitCommit, runCli, defaultRusageMethod, type BuildState, type MachineInfo, type RusageMethod } from './measure.ts';
import { DEFAULT_SIZES, FULL_EXTRA_SIZES, runWorkload, workload, type KernelName, type RunSample, type RunVariant, type TracingMode, type Workload } from './workloads.ts';
import { runStartupBench, type StartupResult } from './startup.ts';
import { ACCELSIM_WORKLOADS, runAccelSimBench, type AccelSimResult } from './accelsim.ts';
import { runEngineBench, type EngineBenchResult } from './engine.ts';
import { runGpuBench, type GpuBenchResult } from './gpu.ts';
import { warpSchedulerPolicyNames } from '../src/model/sm/warp-policies.ts';

/** Section names, in the order they run. */
export const SECTION_NAMES = ['kernels', 'tracing', 'smScaling', 'policies', 'startup', 'accelSim', 'engine', 'library'] as const;

/** A section of the benchmark (`--only`). */
export type SectionName = (typeof SECTION_NAMES)[number];

/** Options of {@link runBenchmark}. */
export interface BenchOptions {
  /** Measured runs per figure (the median is reported); default 3, or 1 with `quick`. */
  readonly repeat?: number;
  /** Smallest size of each kernel only (and small engine figures): what a test or CI can run. */
  readonly quick?: boolean;
  /** Add matmul 512 and stream 8192 CTAs to `kernels`, and the `library` section. */
  readonly full?: boolean;
  /** Run only these sections (default: all but `library`, which needs `full`). */
  readonly only?: readonly SectionName[];
  /** One warm-up run per kernel before measuring (default true). */
  readonly warmup?: boolean;
  /** Measure whole-process CLI runs (default true); false leaves `kernels.*.cli` null (tests). */
  readonly cli?: boolean;
  /** How CLI resource usage is read (default `/usr/bin/time` when installed). */
  readonly rusage?: RusageMethod;
  /** Size lists replacing the defaults (tests): matmul N, stream CTAs, trace workloads. */
  readonly sizes?: { readonly matmul?: readonly number[]; readonly stream?: readonly number[]; readonly trace?: readonly string[] };
  /** Progress lines (default: none). */
  readonly log?: (line: string) => void;
}

/** One workload's figures (medians over the repeats). */
export interface SizeResult {
  /** Size label: `N=64`, `grid=512`, a trace name. */
  readonly size: string;
  /** Scenario file or trace directory. */
  readonly source: string;
  /** `--set` overrides applied to the scenario. */
  readonly overrides: readonly string[];
  /** Warp instructions simulated (`gpu_tot_warp_insts`). */
  readonly warpInstructions: number;
  /** Simulated core cycles (`gpu_sim_cycle`). */
  readonly cycles: number;
  /** Engine events fired (`engine.events`). */
  readonly events: number;
  /** Median CPU seconds (user + system) of the simulation, in this process. */
  readonly cpuSeconds: number;
  /** Every run's CPU seconds, in run order. */
  readonly cpuSecondsSamples: readonly number[];
  /** warpInstructions / cpuSeconds (warp instructions per CPU second, rounded). */
  readonly warpInstsPerCpuSecond: number;
  /** cycles / cpuSeconds (simulated core cycles per CPU second, rounded). */
  readonly cyclesPerCpuSecond: number;
  /** events / warpInstructions (4 decimals). */
  readonly eventsPerWarpInst: number;
  /** Every run's checks passed. */
  readonly checksPassed: boolean;
}

/** Whole-process figures of one CLI run (start-up included). */
export interface CliRunResult {
  /** Size label of the workload run. */
  readonly size: string;
  /** Arguments after `node bin/warpstate.js`. */
  readonly args: readonly string[];
  /** User + system CPU seconds of the whole process. */
  readonly cpuSeconds: number;
  readonly userSeconds: number;
  readonly systemSeconds: number;
  /** Peak resident set size, bytes. */
  readonly peakRssBytes: number;
  /** The launcher ran the TypeScript sources (stale build; start-up about 1.5 CPU s more). */
  readonly ranSources: boolean;
}

/** One kernel across sizes. */
export interface KernelResult {
  readonly kernel: KernelName;
  readonly description: string;
  /** Smallest size first. */
  readonly sizes: readonly SizeResult[];
  /** One CLI run of the largest default size; null when CLI runs are off. */
  readonly cli: CliRunResult | null;
}

/** A tracing variant's figures. */
export interface TracingVariantResult extends SizeResult {
  /** Bytes of trace written (0 without a trace). */
  readonly traceBytes: number;
  /** Trace records written (0 without a trace). */
  readonly traceRecords: number;
}

/** The `tracing` section. */
export interface TracingResult {
  readonly kernel: KernelName;
  readonly size: string;
  /** Unit filter of the `oneSm` variant. */
  readonly oneSmFilter: string;
  readonly variants: Readonly<Record<TracingMode, TracingVariantResult>>;
  /** CPU-second ratios, from the reported medians (4 decimals). */
  readonly ratios: {
    /** off / compiledOut: cost of observation hooks nobody observes. */
    readonly offVsCompiledOut: number;
    /** jsonl / off: cost of a full JSONL trace. */
    readonly jsonlVsOff: number;
    /** oneSm / off: cost of a trace filtered to one SM. */
    readonly oneSmVsOff: number;
  };
}

/** The `smScaling` section. */
export interface SmScalingResult {
  readonly kernel: KernelName;
  readonly size: string;
  /** The scenario's GPU (gtx480 preset: 15 SMs). */
  readonly sm15: SizeResult;
  /** The same with `sm.count=60`. */
  readonly sm60: SizeResult;
  /** sm60.warpInstsPerCpuSecond / sm15.warpInstsPerCpuSecond (4 decimals). */
  readonly ratio60to15: number;
}

/**
 * Warp scheduler policies the `policies` section compares with `gto` (config overrides of
 * `policies.warpScheduler`); a name the registry lacks is skipped.
 */
export const POLICY_VARIANTS: readonly { readonly name: string; readonly config: string }[] = [
  { name: 'gto', config: '{kind: gto}' },
  { name: 'lrr', config: '{kind: lrr}' },
  { name: 'pats', config: '{kind: pats}' },
  { name: 'patsTwoLevel', config: '{kind: patsTwoLevel, readyQueueSize: 6}' },
  { name: 'elf', config: '{kind: elf}' },
];

/** The `policies` section: per kernel, each policy's speed and its ratio to gto's. */
export interface PoliciesResult {
  readonly rows: readonly { readonly kernel: KernelName; readonly size: string; readonly policy: string; readonly result: SizeResult; readonly speedVsGto: number }[];
}

/** The JSON report of `npm run bench`. */
export interface BenchReport {
  readonly benchmark: string;
  /** ISO date of the start. */
  readonly date: string;
  /** Node version. */
  readonly node: string;
  readonly machine: MachineInfo;
  /** Commit of `HEAD` from .git (the working tree may differ); null when unreadable. */
  readonly gitCommit: string | null;
  readonly options: { readonly repeat: number; readonly quick: boolean; readonly full: boolean; readonly sections: readonly SectionName[]; readonly warmup: boolean };
  /** Units of the figures. */
  readonly units: Readonly<Record<string, string>>;
  /** How CLI runs were measured; null when none ran. */
  readonly cli: { readonly command: string; readonly rusage: RusageMethod; readonly build: BuildState | 'failed' } | null;
  readonly kernels?: Partial<Record<KernelName, KernelResult>>;
  readonly tracing?: TracingResult;
  readonly smScaling?: SmScalingResult;
  readonly policies?: PoliciesResult;
  readonly startup?: StartupResult;
  readonly accelSim?: AccelSimResult;
  readonly engine?: EngineBenchResult;
  readonly library?: readonly GpuBenchResult[];
  /** Wall seconds the whole benchmark took. */
  readonly elapsedWallSeconds: number;
}

const DESCRIPTIONS: Record<KernelName, string> = {
  matmul: 'scenarios/k-matmul-tiled.yaml scaled to N x N x N (grid N/16 x N/16 CTAs of 16 x 16), gtx480 preset (15 SMs)',
  stream: 'scenarios/k-stream-x-words.yaml, G CTAs of 256 threads moving 3 words each (buffers 3 x G x 256), gtx480 preset (15 SMs)',
  trace: 'Accel-Sim traces of tiled matrix multiplies of growing size (runAccelSimTrace) on data/accelsim-traces/gtx1080-config/gpgpusim.config',
};

/** The units of every figure (`units` in the JSON). */
export const UNITS: Readonly<Record<string, string>> = Object.freeze({
  cpuSeconds: 'CPU seconds, user + system (process.cpuUsage() in this process around the simulation; /usr/bin/time or process.resourceUsage() for a whole CLI process)',
  warpInstsPerCpuSecond: 'warp instructions (gpu_tot_warp_insts) per CPU second',
  cyclesPerCpuSecond: 'simulated core cycles (gpu_sim_cycle) per CPU second',
  eventsPerWarpInst: 'engine events (engine.events) per warp instruction',
  peakRssBytes: 'bytes (maximum resident set size of the process)',
  traceBytes: 'bytes',
  ratios: 'quotients of the reported CPU seconds or rates (dimensionless)',
});

/** The sizes each kernel runs at. `base`: quick or default (what tracing and SM scaling pick from); `all`: with `--full` extras. */
function sizeLists(o: BenchOptions): { base: Record<KernelName, (number | string)[]>; all: Record<KernelName, (number | string)[]> } {
  const pick = <T>(k: KernelName, d: readonly T[]): T[] => {
    const given = o.sizes?.[k] as readonly T[] | undefined;
    if (given !== undefined) return [...given];
    return o.quick ? [d[0]!] : [...d];
  };
  const base: Record<KernelName, (number | string)[]> = { matmul: pick('matmul', DEFAULT_SIZES.matmul), stream: pick('stream', DEFAULT_SIZES.stream), trace: pick('trace', DEFAULT_SIZES.trace) };
  const extra = (k: KernelName) => (o.full && o.sizes?.[k] === undefined ? [...FULL_EXTRA_SIZES[k]] : []);
  return { base, all: { matmul: [...base.matmul, ...extra('matmul')], stream: [...base.stream, ...extra('stream')], trace: [...base.trace, ...extra('trace')] } };
}

/**
 * Summarizes the samples of one workload.
 * @throws Error when the runs disagree on the simulated work (the simulator is deterministic)
 */
export function summarize(w: Workload, samples: readonly RunSample[]): SizeResult {
  const first = samples[0];
  if (first === undefined) throw new Error(`no samples of ${w.kernel} ${w.size}`);
  for (const s of samples) {
    if (s.warpInstructions !== first.warpInstructions || s.cycles !== first.cycles) throw new Error(`${w.kernel} ${w.size}: runs differ (${s.warpInstructions} vs ${first.warpInstructions} warp instructions, ${s.cycles} vs ${first.cycles} cycles)`);
  }
  const cpu = roundCpu(median(samples.map((s) => s.cpuSeconds)));
  return {
    size: w.size,
    source: w.source,
    overrides: w.overrides,
    warpInstructions: first.warpInstructions,
    cycles: first.cycles,
    events: first.events,
    cpuSeconds: cpu,
    cpuSecondsSamples: samples.map((s) => roundCpu(s.cpuSeconds)),
    warpInstsPerCpuSecond: Math.round(first.warpInstructions / cpu),
    cyclesPerCpuSecond: Math.round(first.cycles / cpu),
    eventsPerWarpInst: round(first.events / first.warpInstructions, 4),
    checksPassed: samples.every((s) => s.passed),
  };
}

interface Case {
  readonly key: string;
  readonly w: Workload;
  readonly variant: RunVariant;
}

/** Runs `cases` `repeat` times, interleaved (all cases once, then again), and returns each case's samples. */
function measure(cases: readonly Case[], repeat: number, log: (line: string) => void, section: string): Map<string, RunSample[]> {
  const out = new Map<string, RunSample[]>(cases.map((c) => [c.key, []]));
  for (let r = 0; r < repeat; r++) {
    for (const c of cases) {
      const s = runWorkload(c.w, c.variant);
      out.get(c.key)!.push(s);
      log(`${section} ${c.key} run ${r + 1}/${repeat}: ${s.warpInstructions} warp insts, ${s.cpuSeconds.toFixed(3)} CPU s`);
    }
  }
  return out;
}

/**
 * Runs the benchmark's sections and returns the JSON report (see the module comment).
 * @throws Error when a run fails its checks' preconditions (a simulation error, a CLI run that
 *   exits non-zero) or the built CLI cannot be made current for the start-up section
 */
export async function runBenchmark(o: BenchOptions = {}): Promise<BenchReport> {
  const started = process.hrtime.bigint();
  const date = new Date().toISOString();
  const quick = o.quick ?? false;
  const full = o.full ?? false;
  const repeat = Math.max(1, o.repeat ?? (quick ? 1 : 3));
  const warmup = o.warmup ?? true;
  const useCli = o.cli ?? true;
  const log = o.log ?? (() => {});
  const sections: SectionName[] = o.only !== undefined ? SECTION_NAMES.filter((s) => o.only!.includes(s)) : SECTION_NAMES.filter((s) => s !== 'library' || full);
  const rusage = o.rusage ?? defaultRusageMethod();
  const { base, all } = sizeLists({ ...o, quick, full });
  const has = (s: SectionName) => sections.includes(s);

  // The built CLI, made current once before the first whole-process run.
  let build: BuildState | 'failed' | null = null;
  const needCli = async () => {
    if (build !== null) return;
    try {
      build = await ensureBuiltCli();
    } catch (e) {
      build = 'failed';
      log(`the CLI could not be built (${(e as Error).message.split('\n')[0]}): CLI runs use the sources through tsx`);
    }
  };
  const warmed = new Set<string>();
  const warm = (w: Workload, variant: RunVariant = {}) => {
    const key = `${w.kernel} ${variant.tracing ?? 'off'}`;
    if (!warmup || warmed.has(key)) return;
    warmed.add(key);
    runWorkload(w, variant);
  };

  const report: { -readonly [K in keyof BenchReport]?: BenchReport[K] } = {
    benchmark: 'warpstate npm run bench (CPU time)',
    date,
    node: process.version,
    machine: machineInfo(),
    gitCommit: readGitCommit(),
    options: { repeat, quick, full, sections, warmup },
    units: UNITS,
    cli: null,
  };

  if (has('kernels')) {
    const kernels: Partial<Record<KernelName, KernelResult>> = {};
    for (const k of ['matmul', 'stream', 'trace'] as const) {
      const ws = all[k].map((s) => workload(k, s));
      if (ws.length === 0) continue;
      warm(ws[0]!);
      const samples = measure(ws.map((w) => ({ key: `${k} ${w.size}`, w, variant: {} })), repeat, log, 'kernels');
      let cli: CliRunResult | null = null;
      if (useCli) {
        await needCli();
        const largest = workload(k, base[k][base[k].length - 1]!);
        const s = await runCli(largest.cliArgs, rusage);
        if (s.status !== 0) throw new Error(`warpstate ${largest.cliArgs.join(' ')} exited ${s.status}: ${s.stdout}${s.stderr}`);
        cli = { size: largest.size, args: largest.cliArgs, cpuSeconds: s.cpuSeconds, userSeconds: s.userSeconds, systemSeconds: s.systemSeconds, peakRssBytes: s.peakRssBytes, ranSources: s.ranSources };
        log(`kernels ${k} ${largest.size} CLI: ${s.cpuSeconds.toFixed(2)} CPU s, peak RSS ${(s.peakRssBytes / 2 ** 20).toFixed(0)} MiB`);
      }
      kernels[k] = { kernel: k, description: DESCRIPTIONS[k], sizes: ws.map((w) => summarize(w, samples.get(`${k} ${w.size}`)!)), cli };
    }
    report.kernels = kernels;
  }

  if (has('tracing')) {
    const sizes = base.matmul;
    const w = workload('matmul', sizes[Math.floor(sizes.length / 2)]!);
    const modes: TracingMode[] = ['compiledOut', 'off', 'jsonl', 'oneSm'];
    // --quick warms only the untraced path (the traced warm-ups cost as much as the runs).
    for (const m of quick ? (['off'] as const) : modes) warm(workload('matmul', sizes[0]!), { tracing: m });
    const samples = measure(modes.map((m) => ({ key: m, w, variant: { tracing: m } })), repeat, log, `tracing ${w.size}`);
    const variants = Object.fromEntries(
      modes.map((m) => {
        const ss = samples.get(m)!;
        return [m, { ...summarize(w, ss), traceBytes: ss[0]!.traceBytes, traceRecords: ss[0]!.traceRecords }];
      }),
    ) as Record<TracingMode, TracingVariantResult>;
    const ratio = (a: TracingMode, b: TracingMode) => round(variants[a].cpuSeconds / variants[b].cpuSeconds, 4);
    report.tracing = {
      kernel: 'matmul',
      size: w.size,
      oneSmFilter: 'GPU.SM[0].*',
      variants,
      ratios: { offVsCompiledOut: ratio('off', 'compiledOut'), jsonlVsOff: ratio('jsonl', 'off'), oneSmVsOff: ratio('oneSm', 'off') },
    };
  }

  if (has('policies')) {
    const known = new Set(warpSchedulerPolicyNames());
    const variants = POLICY_VARIANTS.filter((v) => known.has(v.name));
    const rows: PoliciesResult['rows'][number][] = [];
    for (const kernel of ['matmul', 'stream'] as const) {
      // the middle default size (matmul 128, stream 512): past the JIT warm-up, a few seconds a run
      const sizes = base[kernel];
      const w = workload(kernel, sizes[Math.min(1, sizes.length - 1)]!);
      warm(w);
      const samples = measure(
        variants.map((v) => ({ key: v.name, w, variant: { configOverrides: [`policies.warpScheduler=${v.config}`] } })),
        repeat,
        log,
        `policies ${kernel} ${w.size}`,
      );
      const gto = summarize(w, samples.get('gto')!);
      for (const v of variants) {
        const result = summarize(w, samples.get(v.name)!);
        rows.push({ kernel, size: w.size, policy: v.name, result, speedVsGto: round(result.warpInstsPerCpuSecond / gto.warpInstsPerCpuSecond, 4) });
      }
    }
    report.policies = { rows };
  }
  if (has('smScaling')) {
    const sizes = base.stream;
    const w = workload('stream', sizes[sizes.length - 1]!);
    warm(workload('stream', sizes[0]!));
    const samples = measure(
      [
        { key: 'sm15', w, variant: {} },
        { key: 'sm60', w, variant: { configOverrides: ['sm.count=60'] } },
      ],
      repeat,
      log,
      `smScaling ${w.size}`,
    );
    const sm15 = summarize(w, samples.get('sm15')!);
    const sm60 = summarize(w, samples.get('sm60')!);
    report.smScaling = { kernel: 'stream', size: w.size, sm15, sm60, ratio60to15: round(sm60.warpInstsPerCpuSecond / sm15.warpInstsPerCpuSecond, 4) };
  }

  if (has('startup')) {
    log('startup ...');
    report.startup = await runStartupBench(repeat);
    build ??= report.startup.rebuiltFirst ? 'rebuilt' : 'current';
  }

  if (has('accelSim')) {
    await needCli();
    report.accelSim = await runAccelSimBench(repeat, rusage, ACCELSIM_WORKLOADS, log);
  }

  if (has('engine')) {
    log('engine ...');
    report.engine = runEngineBench({ repeat, warmup, events: quick ? 1_000_000 : 3_000_000, requests: Number(process.env.WARPSTATE_BENCH_REQUESTS ?? (quick ? 1000 : 4000)) });
  }

  if (has('library')) report.library = runGpuBench(repeat, log);

  if (build !== null) report.cli = { command: 'node bin/warpstate.js', rusage, build };
  report.elapsedWallSeconds = round(Number(process.hrtime.bigint() - started) / 1e9, 1);
  return report as BenchReport;
}

const fmt = (x: number) => (x >= 100 ? Math.round(x).toLocaleString('en-US') : x >= 10 ? x.toFixed(1) : x.toFixed(3));
const mib = (b: number) => `${(b / 2 ** 20).toFixed(0)} MiB`;

/** The short human-readable table of a report (stderr of `npm run bench`). */
export function formatTable(r: BenchReport): string {
  const lines: string[] = [];
  lines.push(`warpstate bench: CPU seconds, median of ${r.options.repeat}; node ${r.node}, ${r.machine.cpuModel} x${r.machine.cores}, commit ${r.gitCommit?.slice(0, 10) ?? '?'}`);
  if (r.kernels) {
    lines.push('');
    lines.push(pad(['kernel', 'size', 'warp insts', 'cycles', 'CPU s', 'winst/CPU s', 'cycles/CPU s', 'events/winst']));
    for (const k of Object.values(r.kernels)) {
      for (const s of k.sizes) lines.push(pad([k.kernel, s.size, String(s.warpInstructions), String(s.cycles), fmt(s.cpuSeconds), fmt(s.warpInstsPerCpuSecond), fmt(s.cyclesPerCpuSecond), s.eventsPerWarpInst.toFixed(2)]));
      if (k.cli) lines.push(`  CLI ${k.kernel} ${k.cli.size}: ${fmt(k.cli.cpuSeconds)} CPU s whole process, peak RSS ${mib(k.cli.peakRssBytes)}${k.cli.ranSources ? ' (sources: stale build)' : ''}`);
    }
  }
  if (r.tracing) {
    const v = r.tracing.variants;
    lines.push('');
    lines.push(`tracing (matmul ${r.tracing.size}): compiled out ${fmt(v.compiledOut.cpuSeconds)} s, off ${fmt(v.off.cpuSeconds)} s (x${r.tracing.ratios.offVsCompiledOut}), JSONL ${fmt(v.jsonl.cpuSeconds)} s (x${r.tracing.ratios.jsonlVsOff}, ${mib(v.jsonl.traceBytes)}), one SM ${fmt(v.oneSm.cpuSeconds)} s (x${r.tracing.ratios.oneSmVsOff}, ${mib(v.oneSm.traceBytes)})`);
  }
  if (r.smScaling) {
    const s = r.smScaling;
    lines.push(`SM scaling (stream ${s.size}): 15 SMs ${fmt(s.sm15.warpInstsPerCpuSecond)} winst/CPU s, 60 SMs ${fmt(s.sm60.warpInstsPerCpuSecond)} winst/CPU s, 60/15 = ${s.ratio60to15}`);
  }
  if (r.policies) {
    for (const k of ['matmul', 'stream'] as const) {
      const rows = r.policies.rows.filter((x) => x.kernel === k);
      if (rows.length > 0) lines.push(`policies (${k} ${rows[0]!.size}): ${rows.map((x) => `${x.policy} ${fmt(x.result.warpInstsPerCpuSecond)} (x${x.speedVsGto})`).join(', ')} winst/CPU s vs gto`);
    }
  }
  if (r.startup) lines.push(`startup (quickstart, CPU s to first event): built ${r.startup.built.medianCpuS}, sources ${r.startup.sources.medianCpuS} (target ${r.startup.targetCpuS})`);
  if (r.accelSim) {
    lines.push('');
    lines.push(pad(['Accel-Sim side by side', 'warp insts', 'warpstate CPU s', 'Accel-Sim CPU s', 'ratio', 'target', '']));
    for (const a of r.accelSim.rows) lines.push(pad([a.workload, String(a.warpInstructions), fmt(a.warpstateCpuSeconds), String(a.accelSimCpuSeconds), a.ratio.toFixed(3), `<= ${a.target}`, a.met ? 'met' : 'not met']));
    lines.push(`  ${r.accelSim.met} of ${r.accelSim.of} targets met (Accel-Sim: ${r.accelSim.source})`);
  }
  if (r.engine) {
    const n = r.engine.network;
    lines.push(`engine: ${fmt(r.engine.engineEventsPerCpuSecond)} events/CPU s; network ${fmt(n.messagesPerCpuSecond)} messages/CPU s, tracing off overhead ${n.tracingOffOverhead}, on x${n.tracingOnSlowdown}`);
  }
  if (r.library) lines.push(`library: ${r.library.map((l) => `${l.kernel} ${fmt(l.warpInstsPerCpuSecond)}`).join(', ')} winst/CPU s`);
  lines.push(`(${r.elapsedWallSeconds} s wall)`);
  return lines.join('\n') + '\n';
}

function pad(cols: readonly string[]): string {
  const widths = [24, 16, 11, 15, 15, 12, 13, 12];
  return cols.map((c, i) => (i === 0 ? c.padEnd(widths[0]!) : c.padStart(widths[i] ?? 10))).join(' ');
}

/**
 * The report's measured rows as CSV (`--csv`): one row per kernel size, tracing variant, SM
 * count and Accel-Sim workload, with a header; CPU seconds, rates and bytes as in the JSON.
 */
export function toCsv(r: BenchReport): string {
  const rows: (string | number | boolean | null)[][] = [];
  const row = (section: string, workloadName: string, size: string, s: SizeResult) =>
    rows.push([section, workloadName, size, s.warpInstructions, s.cycles, s.cpuSeconds, s.warpInstsPerCpuSecond, s.cyclesPerCpuSecond, s.eventsPerWarpInst, null, null, null]);
  for (const k of Object.values(r.kernels ?? {})) {
    for (const s of k.sizes) row('kernels', k.kernel, s.size, s);
    if (k.cli) rows.push(['kernels-cli', k.kernel, k.cli.size, null, null, k.cli.cpuSeconds, null, null, null, k.cli.peakRssBytes, null, null]);
  }
  if (r.tracing) for (const [m, v] of Object.entries(r.tracing.variants)) row(`tracing-${m}`, r.tracing.kernel, r.tracing.size, v);
  if (r.smScaling) {
    row('sm-scaling-15', r.smScaling.kernel, r.smScaling.size, r.smScaling.sm15);
    row('sm-scaling-60', r.smScaling.kernel, r.smScaling.size, r.smScaling.sm60);
  }
  for (const p of r.policies?.rows ?? []) row(`policy-${p.policy}`, p.kernel, p.size, p.result);
  for (const a of r.accelSim?.rows ?? []) rows.push(['accelsim', a.workload, '', a.warpInstructions, null, a.warpstateCpuSeconds, null, null, null, a.warpstatePeakRssBytes, a.accelSimCpuSeconds, a.ratio]);
  return stringify(rows, {
    header: true,
    columns: ['section', 'workload', 'size', 'warp_instructions', 'cycles', 'cpu_seconds', 'warp_insts_per_cpu_second', 'cycles_per_cpu_second', 'events_per_warp_inst', 'peak_rss_bytes', 'accelsim_cpu_seconds', 'ratio'],
  });
}
