/**
 * `warpstate sweep <sweep.yaml>` and `warpstate sweep collect <dir>` (issue 12 items 2, 3): run the
 * points, then write results.csv/json, the figures and report.html (src/report/report-html.ts).
 *
 * Exit codes: 0 every check passed; 1 a check failed (a sweep check, or a point's own scenario
 * checks); 2 bad input (the sweep file, with file, line and field); 3 points failed or timed
 * out (recorded in the tables with their stderr tail; the others completed). An interrupt
 * (SIGINT/SIGTERM) writes the tables of the points that finished and exits 130/143.
 *
 * Only commander is imported here; the sweep modules are imported when a command runs.
 */
// Node built-ins are imported statically: the built CLI (a vm script restored from a V8 code
// cache) has no dynamic import() for modules outside its bundle.
import { rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { cpus } from 'node:os';
import { Command, Option } from 'commander';
import { InputError } from '../errors.ts';
import type { SweepResults } from './tables.ts';

const EXIT = { ok: 0, checkFailed: 1, badInput: 2, pointsFailed: 3 } as const;

function intArg(flag: string, min: number): (v: string) => number {
  return (v: string) => {
    const n = Number(v);
    if (!(Number.isInteger(n) && n >= min && n <= 1e9)) throw new InputError({ file: flag }, `must be an integer from ${min}, got '${v}'`, flag);
    return n;
  };
}

function secondsArg(v: string): number {
  const n = Number(v);
  if (!(Number.isFinite(n) && n > 0 && n <= 86400 * 30)) throw new InputError({ file: '--timeout' }, `must be a number of seconds above 0, got '${v}'`, 'timeout');
  return n;
}

/** The exit code a sweep's results give (see the module comment). */
export function sweepExitCode(r: SweepResults): number {
  if (r.points.some((p) => p.status === 'failed' || p.status === 'timeout')) return EXIT.pointsFailed;
  if (r.checks.some((c) => !c.passed) || r.points.some((p) => p.status === 'checkFailed')) return EXIT.checkFailed;
  return EXIT.ok;
}

/** Writes `<dir>/report.html` (src/report/report-html.ts); a failure is a warning, the tables stand. */
async function writeSweepReport(dir: string, err: (s: string) => void): Promise<boolean> {
  try {
    const { writeReport } = await import('../report/report-html.ts');
    await writeReport(dir, join(dir, 'report.html'));
    return true;
  } catch (e) {
    err(`[sweep] report.html not written: ${(e as Error).message}\n`);
    return false;
  }
}

/** Prints the summary of a sweep's results: counts, failed points, checks, files. */
function printSummary(dir: string, r: SweepResults, out: (s: string) => void, report: boolean): void {
  const count = (s: string) => r.points.filter((p) => p.status === s).length;
  out(`sweep ${r.sweep}: ${r.points.length} points: ${count('ok')} ok, ${count('checkFailed')} with failed scenario checks, ${count('failed')} failed, ${count('timeout')} timed out\n`);
  for (const p of r.points.filter((q) => q.status !== 'ok')) {
    const tail = (p.stderrTail ?? '').trim().split('\n').slice(-3).join(' | ');
    out(`  ${p.status} ${p.id} (exit ${p.exitCode}): ${tail}\n`);
  }
  for (const c of r.checks) out(`check ${c.passed ? 'PASS' : 'FAIL'}: ${c.expr} (${c.detail})\n`);
  out(`checks: ${r.checks.filter((c) => c.passed).length} passed, ${r.checks.filter((c) => !c.passed).length} failed\n`);
  out(`results: ${dir}/results.csv, ${dir}/results.json${report ? `, ${dir}/report.html` : ''}${r.figures.length > 0 ? `; figures: ${r.figures.map((f) => `${dir}/${f.svg}`).join(', ')}` : ''}\n`);
}

interface SweepOpts {
  out?: string;
  jobs?: number;
  force?: boolean;
  retryFailed?: boolean;
  executor: 'local' | 'slurm';
  timeout?: number;
  partition?: string;
  time?: string;
  mem?: string;
  pointsPerTask?: number;
  detach?: boolean;
  figures: boolean;
}

/**
 * The `sweep` command with its subcommands `collect` and (hidden, run by Slurm) `exec`.
 * @param setExit receives the exit code
 */
export function sweepCommand(out: (s: string) => void, err: (s: string) => void, setExit: (code: number) => void): Command {
  const cmd = new Command('sweep')
    .description('run a parameter sweep (sweep file: base scenarios x a grid of overrides) on a local pool or Slurm; write results.csv/json, checks and figures')
    .argument('<sweep.yaml>', 'sweep file')
    .option('-o, --out <dir>', 'results directory (default out/sweeps/<name>)')
    .option('-j, --jobs <n>', 'points run at once on the local pool (default: the number of cores)', intArg('--jobs', 1))
    .option('--force', 'rerun every point, cached or not')
    .option('--retry-failed', 'rerun the points recorded as failed or timed out')
    .addOption(new Option('--executor <kind>', 'where the points run').choices(['local', 'slurm']).default('local'))
    .option('--timeout <seconds>', "per-point wall-clock limit (overrides the sweep file's timeout)", secondsArg)
    .option('--partition <name>', 'slurm: partition (sbatch --partition)')
    .option('--time <limit>', 'slurm: time limit per array task (sbatch --time)')
    .option('--mem <size>', 'slurm: memory per array task (sbatch --mem)')
    .option('--points-per-task <n>', 'slurm: points each array task runs (default 1)', intArg('--points-per-task', 1))
    .option('--detach', 'slurm: submit and return; collect later with `warpstate sweep collect <dir>`')
    .option('--no-figures', 'do not render the figures')
    .action(async (file: string, opts: SweepOpts) => {
      const [{ loadSweep }, { writeState, buildResults }, { readPointResult }, ex] = await Promise.all([
        import('./load.ts'),
        import('./tables.ts'),
        import('./point.ts'),
        import('./executors.ts'),
      ]);
      const plan = await loadSweep(file, opts.out);
      const dir = plan.dir;
      const state = { sweep: file, spec: plan.spec, axes: plan.axes, collect: plan.collect, provenance: plan.provenance, points: plan.points };
      writeState(dir, state);
      const toRun = plan.points.filter((p) => {
        if (opts.force) return true;
        const r = readPointResult(dir, p.hash);
        return r === null || (opts.retryFailed === true && (r.status === 'failed' || r.status === 'timeout'));
      });
      const cached = plan.points.length - toRun.length;
      const timeoutSeconds = opts.timeout ?? plan.spec.timeout;
      const timeoutOpt = timeoutSeconds !== undefined ? { timeoutSeconds } : {};
      if (opts.executor === 'slurm') {
        if (toRun.length > 0) {
          // A rerun point's old result must not stand in for a task that never ran.
          for (const p of toRun) rmSync(join(dir, 'points', `${p.hash}.result.json`), { force: true });
          const jobId = ex.submitSlurm(dir, toRun, { ...timeoutOpt, jobName: `warpstate-${plan.spec.name}`, ...pick(opts, ['partition', 'time', 'mem', 'pointsPerTask']) });
          err(`[sweep] ${plan.points.length} points: ${cached} cached, ${toRun.length} submitted as Slurm job ${jobId}\n`);
          if (opts.detach) {
            out(`submitted Slurm job ${jobId}; when it is done: warpstate sweep collect ${dir}\n`);
            setExit(EXIT.ok);
            return;
          }
          await ex.waitSlurm(jobId);
        }
      } else {
        const jobs = opts.jobs ?? Math.max(1, cpus().length);
        err(`[sweep] ${plan.points.length} points: ${cached} cached, ${toRun.length} to run on ${jobs} local process(es)\n`);
        const progress = await Progress.create(toRun.length, err);
        const { interrupted } = await ex.runLocal(dir, toRun, { jobs, ...timeoutOpt }, (r) => progress.done(r.id, r.status, r.wallSeconds));
        progress.stop();
        if (interrupted) {
          const results = await buildResults(dir, state, { warn: (l) => err(`[sweep] ${l}\n`), figures: false });
          err(`[sweep] interrupted: ${results.points.filter((p) => p.exitCode !== -1).length} of ${results.points.length} points recorded; run the sweep again to finish the others\n`);
          setExit(130);
          return;
        }
      }
      const results = await buildResults(dir, state, { warn: (l) => err(`[sweep] ${l}\n`), figures: opts.figures });
      printSummary(dir, results, out, opts.figures && (await writeSweepReport(dir, err)));
      setExit(sweepExitCode(results));
    });

  cmd
    .command('collect')
    .description('merge the per-point result files of a results directory (e.g. after --executor slurm --detach) into results.csv/json and figures')
    .argument('<dir>', 'results directory')
    .option('--no-figures', 'do not render the figures')
    .action(async (dir: string, opts: { figures: boolean }) => {
      const { readState, buildResults } = await import('./tables.ts');
      let state;
      try {
        state = readState(dir);
      } catch (e) {
        throw new InputError({ file: dir }, (e as Error).message.replace(`${dir}: `, ''));
      }
      const results = await buildResults(resolve(dir), state, { warn: (l) => err(`[sweep] ${l}\n`), figures: opts.figures });
      printSummary(dir, results, out, opts.figures && (await writeSweepReport(resolve(dir), err)));
      setExit(sweepExitCode(results));
    });

  cmd
    .command('exec', { hidden: true })
    .description('run one Slurm array task of a submitted sweep')
    .argument('<dir>', 'results directory')
    .requiredOption('--task <n>', 'array task index', intArg('--task', 0))
    .action(async (dir: string, opts: { task: number }) => {
      const { runSlurmTask } = await import('./executors.ts');
      await runSlurmTask(dir, opts.task, out);
      setExit(EXIT.ok);
    });
  return cmd;
}

function pick<T extends object, K extends keyof T>(o: T, keys: readonly K[]): Partial<Pick<T, K>> {
  const r: Partial<Pick<T, K>> = {};
  for (const k of keys) if (o[k] !== undefined) r[k] = o[k];
  return r;
}

/** Progress on stderr: a cli-progress bar on a terminal, one line per point otherwise (logs, CI). */
class Progress {
  private failed = 0;
  private n = 0;
  private constructor(
    private readonly total: number,
    private readonly err: (s: string) => void,
    private readonly bar: import('cli-progress').SingleBar | null,
  ) {}

  static async create(total: number, err: (s: string) => void): Promise<Progress> {
    if (total === 0 || !process.stderr.isTTY) return new Progress(total, err, null);
    const { SingleBar, Presets } = await import('cli-progress');
    const bar = new SingleBar({ stream: process.stderr, format: 'sweep [{bar}] {value}/{total} points | {failed} failed | ETA {eta_formatted}', etaBuffer: 20, hideCursor: true }, Presets.shades_classic);
    bar.start(total, 0, { failed: 0 });
    return new Progress(total, err, bar);
  }

  done(id: string, status: string, seconds: number): void {
    this.n++;
    if (status === 'failed' || status === 'timeout') this.failed++;
    if (this.bar !== null) this.bar.increment(1, { failed: this.failed });
    else this.err(`[sweep] ${this.n}/${this.total} ${id}: ${status} (${seconds.toFixed(1)} s)${this.failed > 0 ? `, ${this.failed} failed so far` : ''}\n`);
  }

  stop(): void {
    this.bar?.stop();
  }
}
