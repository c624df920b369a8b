/**
 * The `accelSim` section of `npm run bench` (issue 11 item 3.6): whole-process CPU seconds of
 * `node bin/warpstate.js run --accelsim-trace <dir> --gpu <GTX 1080 gpgpusim.config> -q` on seven
 * trace workloads (median of `repeat` runs, start-up included), beside Accel-Sim's CPU seconds
 * for the same traces and config as issue 11 measured them on this machine, and the ratio
 * warpstate / Accel-Sim against the targets.
 */
import { GTX1080_CONFIG, traceDir } from './workloads.ts';
import { median, round, roundCpu, runCli, type CliSample, type RusageMethod } from './measure.ts';

/** Where the Accel-Sim figures come from. */
export const ACCELSIM_SOURCE = 'issue 11, Accel-Sim dev branch Oct 2024 release build';

/**
 * Accel-Sim's whole-process CPU seconds per workload, as measured by issue 11 on this machine
 * ({@link ACCELSIM_SOURCE}; `accel-sim.out -trace <dir>/kernelslist.g -config gpgpusim.config
 * -config trace.config`). Constants: Accel-Sim is not run here.
 */
export const ACCELSIM_CPU_SECONDS: Readonly<Record<string, number>> = Object.freeze({
  'vectoradd-100-32': 0.27,
  'matrixmul-32-32': 0.41,
  'k-add-x-loops': 1.21,
  'k-matmul-tiled': 1.73,
  'k-stream-x-words': 1.11,
  'k-pointer-chase': 11.5,
  'big-matmul-64': 1.66,
});

/** The workloads of the comparison, in table order. */
export const ACCELSIM_WORKLOADS: readonly string[] = Object.freeze(Object.keys(ACCELSIM_CPU_SECONDS));

/** Workloads with at least this many warp instructions must reach {@link TARGET_LARGE}. */
export const LARGE_WARP_INSTS = 15_000;
/** Target ratio warpstate / Accel-Sim CPU seconds for workloads of >= 15 k warp instructions. */
export const TARGET_LARGE = 0.5;
/** Target ratio for the small workloads (start-up dominated). */
export const TARGET_SMALL = 1.5;

/** One workload of the comparison. */
export interface AccelSimRow {
  readonly workload: string;
  /** Trace directory, relative to the repository root. */
  readonly traceDir: string;
  /** Warp instructions simulated (the CLI's trace check, `actual N`). */
  readonly warpInstructions: number;
  /** Median whole-process CPU seconds (user + system) of the warpstate CLI. */
  readonly warpstateCpuSeconds: number;
  /** Every run's whole-process CPU seconds. */
  readonly warpstateCpuSecondsSamples: readonly number[];
  /** Largest peak RSS of the runs, bytes. */
  readonly warpstatePeakRssBytes: number;
  /** Accel-Sim's CPU seconds ({@link ACCELSIM_CPU_SECONDS}). */
  readonly accelSimCpuSeconds: number;
  /** warpstateCpuSeconds / accelSimCpuSeconds (4 decimals). */
  readonly ratio: number;
  /** The target for the ratio: {@link TARGET_LARGE} or {@link TARGET_SMALL}. */
  readonly target: number;
  /** ratio <= target. */
  readonly met: boolean;
  /** A run used the TypeScript sources (stale build): its start-up is not the built CLI's. */
  readonly ranSources: boolean;
}

/** The `accelSim` section's result. */
export interface AccelSimResult {
  readonly source: string;
  /** The measured command, `<dir>` standing for each trace directory. */
  readonly command: string;
  /** Runs per workload (the median is reported). */
  readonly repeat: number;
  readonly rows: readonly AccelSimRow[];
  /** Rows whose target is met. */
  readonly met: number;
  /** Rows compared. */
  readonly of: number;
}

/**
 * Builds one row from the measured runs (pure: what the test checks).
 * @param workload a key of {@link ACCELSIM_CPU_SECONDS}
 * @throws Error for an unknown workload or no samples
 */
export function accelSimRow(workload: string, warpInstructions: number, samples: readonly Pick<CliSample, 'cpuSeconds' | 'peakRssBytes' | 'ranSources'>[]): AccelSimRow {
  const ref = ACCELSIM_CPU_SECONDS[workload];
  if (ref === undefined) throw new Error(`no Accel-Sim figure for ${workload}`);
  const cpu = roundCpu(median(samples.map((s) => s.cpuSeconds)));
  const ratio = round(cpu / ref, 4);
  const target = warpInstructions >= LARGE_WARP_INSTS ? TARGET_LARGE : TARGET_SMALL;
  return {
    workload,
    traceDir: traceDir(workload),
    warpInstructions,
    warpstateCpuSeconds: cpu,
    warpstateCpuSecondsSamples: samples.map((s) => s.cpuSeconds),
    warpstatePeakRssBytes: Math.max(...samples.map((s) => s.peakRssBytes)),
    accelSimCpuSeconds: ref,
    ratio,
    target,
    met: ratio <= target,
    ranSources: samples.some((s) => s.ranSources),
  };
}

/** Assembles the section from its rows. */
export function accelSimResult(rows: readonly AccelSimRow[], repeat: number): AccelSimResult {
  return {
    source: ACCELSIM_SOURCE,
    command: `node bin/warpstate.js run --accelsim-trace <dir> --gpu ${GTX1080_CONFIG} -q`,
    repeat,
    rows,
    met: rows.filter((r) => r.met).length,
    of: rows.length,
  };
}

/**
 * Runs the comparison: `repeat` CLI runs per workload, interleaved across workloads.
 * @throws Error when a run fails (non-zero exit) or prints no warp instruction count
 */
export async function runAccelSimBench(repeat: number, method: RusageMethod, workloads: readonly string[] = ACCELSIM_WORKLOADS, log: (line: string) => void = () => {}): Promise<AccelSimResult> {
  const samples = new Map<string, CliSample[]>(workloads.map((w) => [w, []]));
  const insts = new Map<string, number>();
  for (let i = 0; i < repeat; i++) {
    for (const w of workloads) {
      const args = ['run', '--accelsim-trace', traceDir(w), '--gpu', GTX1080_CONFIG, '-q'];
      const s = await runCli(args, method);
      const m = /warp instructions in the trace \(actual (\d+)\)/.exec(s.stdout);
      if (s.status !== 0 || m === null) throw new Error(`warpstate ${args.join(' ')} exited ${s.status}: ${s.stdout}${s.stderr}`);
      insts.set(w, Number(m[1]));
      samples.get(w)!.push(s);
      log(`accelSim ${w} run ${i + 1}/${repeat}: ${s.cpuSeconds.toFixed(2)} CPU s (whole process)${s.ranSources ? ' [sources: stale build]' : ''}`);
    }
  }
  return accelSimResult(workloads.map((w) => accelSimRow(w, insts.get(w)!, samples.get(w)!)), repeat);
}
