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
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildIsCurrent } from '../bin/fingerprint.js';
import { buildCli, REPO_ROOT } from '../scripts/build.ts';

/** The measured command line (after `node bin/warpstate.js`). */
const ARGS = ['run', 'scenarios/quickstart.yaml', '--until', '1ps', '-q'];

/** One start-up: CPU seconds to the first event (total, user, system). */
interface Sample {
  readonly cpuS: number;
  readonly userS: number;
  readonly systemS: number;
}

/**
 * Runs the CLI once and parses its start-up line.
 * @throws Error when the run fails or prints no start-up line
 */
function measure(env: Record<string, string>): Sample {
  const r = spawnSync(process.execPath, [join(REPO_ROOT, 'bin', 'warpstate.js'), ...ARGS], {
    cwd: REPO_ROOT,
    env: { ...process.env, WARPSTATE_CLI: '', ...env, WARPSTATE_STARTUP_CPU: '1' },
    encoding: 'utf8',
  });
  const m = /startup: ([\d.]+) CPU s \(user ([\d.]+), system ([\d.]+)\)/.exec(r.stderr);
  if (r.status !== 0 || m === null) throw new Error(`warpstate ${ARGS.join(' ')} exited ${r.status}: ${r.stderr}`);
  if (/older than the sources/.test(r.stderr) && env.WARPSTATE_TSX !== '1') throw new Error('the build went stale during the benchmark (sources edited): run it again');
  return { cpuS: Number(m[1]), userS: Number(m[2]), systemS: Number(m[3]) };
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

function summary(samples: readonly Sample[]) {
  return {
    medianCpuS: Number(median(samples.map((s) => s.cpuS)).toFixed(3)),
    medianUserS: Number(median(samples.map((s) => s.userS)).toFixed(3)),
    medianSystemS: Number(median(samples.map((s) => s.systemS)).toFixed(3)),
    samplesCpuS: samples.map((s) => s.cpuS),
  };
}

const at = process.argv.indexOf('--runs');
const runs = at >= 0 ? Math.max(1, Number(process.argv[at + 1]) || 5) : 5;

let stamp: unknown = null;
try {
  stamp = JSON.parse(readFileSync(join(REPO_ROOT, 'dist', 'cli', 'stamp.json'), 'utf8'));
} catch {
  stamp = null;
}
const rebuilt = !buildIsCurrent(REPO_ROOT, stamp as { fingerprint?: unknown; stats?: unknown } | null);
if (rebuilt) await buildCli();

// Interleaved, so a change in machine load affects both variants alike.
const built: Sample[] = [];
const sources: Sample[] = [];
for (let i = 0; i < runs; i++) {
  built.push(measure({}));
  sources.push(measure({ WARPSTATE_TSX: '1' }));
}

const result = {
  startup: {
    what: `CPU s from process start to the first simulated event: node bin/warpstate.js ${ARGS.join(' ')}`,
    node: process.version,
    runs,
    rebuiltFirst: rebuilt,
    targetCpuS: 0.3,
    built: summary(built),
    sources: summary(sources),
  },
};
process.stdout.write(JSON.stringify(result, null, 2) + '\n');
