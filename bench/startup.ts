/**
 * Start-up benchmark (issue 11 item 1): CPU seconds (user + system, from process start, as
 * `process.cpuUsage()` counts them) until the first simulated event of the quickstart scenario,
 * read from the CLI's `WARPSTATE_STARTUP_CPU=1` line. CPU time, not wall time: the figure
 * should not depend on what else the machine runs. Target: under 0.3 s for the built CLI.
 *
 * Variants, each a fresh `node bin/warpstate.js run scenarios/quickstart.yaml --until 1ps -q`:
 * - `built`: the bundle in dist/cli with its code cache (built first when stale);
 * - `sources`: the TypeScript sources through tsx (`WARPSTATE_TSX=1`), the start-up every run
 *   paid before the build existed (then also with every module imported eagerly).
 *
 * Usage: `npm run bench:startup [-- --runs <n>]` (default 5; the median is reported). Prints JSON.
 * `npm run bench` reuses {@link runStartupBench} as its `startup` section.
 */
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureBuiltCli, median, REPO_ROOT } from './measure.ts';

/** The measured command line (after `node bin/warpstate.js`). */
export const STARTUP_ARGS: readonly string[] = ['run', 'scenarios/quickstart.yaml', '--until', '1ps', '-q'];

/** One start-up: CPU seconds to the first event (total, user, system). */
interface Sample {
  readonly cpuS: number;
  readonly userS: number;
  readonly systemS: number;
}

/**
 * Runs the CLI once and parses its start-up line.
 * @throws Error when the run fails or prints no start-up line, or the build went stale
 */
function measure(env: Record<string, string>): Sample {
  const r = spawnSync(process.execPath, [join(REPO_ROOT, 'bin', 'warpstate.js'), ...STARTUP_ARGS], {
    cwd: REPO_ROOT,
    env: { ...process.env, WARPSTATE_CLI: '', ...env, WARPSTATE_STARTUP_CPU: '1' },
    encoding: 'utf8',
  });
  const m = /startup: ([\d.]+) CPU s \(user ([\d.]+), system ([\d.]+)\)/.exec(r.stderr);
  if (r.status !== 0 || m === null) throw new Error(`warpstate ${STARTUP_ARGS.join(' ')} exited ${r.status}: ${r.stderr}`);
  if (/older than the sources/.test(r.stderr) && env.WARPSTATE_TSX !== '1') throw new StaleBuild();
  return { cpuS: Number(m[1]), userS: Number(m[2]), systemS: Number(m[3]) };
}

class StaleBuild extends Error {
  constructor() {
    super('the build went stale during the benchmark (sources edited): run it again');
  }
}

/** Medians of one variant's samples, CPU seconds. */
export interface StartupSummary {
  /** Median CPU seconds (user + system) from process start to the first simulated event. */
  readonly medianCpuS: number;
  /** Median user CPU seconds. */
  readonly medianUserS: number;
  /** Median system CPU seconds. */
  readonly medianSystemS: number;
  /** Every run's CPU seconds, in run order. */
  readonly samplesCpuS: readonly number[];
}

function summary(samples: readonly Sample[]): StartupSummary {
  return {
    medianCpuS: Number(median(samples.map((s) => s.cpuS)).toFixed(3)),
    medianUserS: Number(median(samples.map((s) => s.userS)).toFixed(3)),
    medianSystemS: Number(median(samples.map((s) => s.systemS)).toFixed(3)),
    samplesCpuS: samples.map((s) => s.cpuS),
  };
}

/** The start-up benchmark's result (`startup` in the JSON of both benchmarks). */
export interface StartupResult {
  /** What is measured. */
  readonly what: string;
  readonly node: string;
  /** Runs per variant. */
  readonly runs: number;
  /** Whether dist/cli was stale and rebuilt before measuring. */
  readonly rebuiltFirst: boolean;
  /** Issue 11's target for the built CLI, CPU seconds. */
  readonly targetCpuS: number;
  /** The built CLI (bundle and code cache). */
  readonly built: StartupSummary;
  /** The TypeScript sources through tsx (`WARPSTATE_TSX=1`). */
  readonly sources: StartupSummary;
}

/**
 * Measures the quickstart's CPU seconds to the first simulated event, `runs` times per variant
 * (interleaved, so a change in machine load affects both alike), rebuilding dist/cli first when
 * stale (and once more when an edit of the sources makes it stale meanwhile).
 * @throws Error when a run fails or the build fails
 */
export async function runStartupBench(runs: number): Promise<StartupResult> {
  for (let attempt = 0; ; attempt++) {
    const rebuilt = (await ensureBuiltCli()) === 'rebuilt';
    try {
      const built: Sample[] = [];
      const sources: Sample[] = [];
      for (let i = 0; i < runs; i++) {
        built.push(measure({}));
        sources.push(measure({ WARPSTATE_TSX: '1' }));
      }
      return {
        what: `CPU s from process start to the first simulated event: node bin/warpstate.js ${STARTUP_ARGS.join(' ')}`,
        node: process.version,
        runs,
        rebuiltFirst: rebuilt,
        targetCpuS: 0.3,
        built: summary(built),
        sources: summary(sources),
      };
    } catch (e) {
      if (!(e instanceof StaleBuild) || attempt >= 1) throw e;
    }
  }
}

const invokedDirectly = process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (invokedDirectly) {
  const at = process.argv.indexOf('--runs');
  const runs = at >= 0 ? Math.max(1, Number(process.argv[at + 1]) || 5) : 5;
  const startup = await runStartupBench(runs);
  process.stdout.write(JSON.stringify({ startup }, null, 2) + '\n');
}
