/**
 * Runs fuzz cases (generate.ts) against the real CLI and classifies every outcome
 * (issue 9 item 7). Two ways to run a case:
 * - `spawn`: a fresh `node --max-old-space-size=<MB> bin/warpstate.js <argv>` child, exactly what a
 *   user runs: exit code, output, per-case timeout, peak RSS polled from /proc/<pid>/status.
 * - `worker`: one of a pool of long-lived children (worker.ts) that call the CLI's `main()`
 *   in-process, recycled every few dozen cases; ~10x faster. A failure found this way is re-run
 *   with `spawn` and the spawned result is the one that counts (`confirmedBy: 'spawn'`).
 *
 * Outcome classes: `ok` (exit 0), `checkFailed` (1), `inputError` (2 with an `error:` line),
 * `machineFailed` (3 with a report), and the failures `stackTrace` (a JS stack frame, an
 * internal error or an uncaught exception in the output), `hang` (past the per-case timeout),
 * `memory` (RSS past the bound or a V8 heap-limit abort), `badExit` (any other code or signal,
 * or exit 2/3 with no message).
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { CASE_DIR, REPO_ROOT, type FuzzCase } from './generate.ts';

/** Every outcome class. */
export const OUTCOMES = ['ok', 'checkFailed', 'inputError', 'machineFailed', 'stackTrace', 'hang', 'memory', 'badExit'] as const;
/** One outcome class. */
export type Outcome = (typeof OUTCOMES)[number];
/** The classes that fail the fuzz run. */
export const FAILURES: readonly Outcome[] = ['stackTrace', 'hang', 'memory', 'badExit'];

/** Result of one case. */
export interface CaseResult {
  readonly id: number;
  readonly family: string;
  readonly outcome: Outcome;
  /** Exit code (null: killed by a signal or timed out). */
  readonly code: number | null;
  readonly signal: string | null;
  /** Wall time of the case, ms. */
  readonly ms: number;
  /** Peak resident set size seen while polling, MiB (spawn mode; worker mode: the worker's). */
  readonly peakRssMb: number;
  /** First line of the error output (or of the stack trace). */
  readonly detail: string;
  /** The exact command that reproduces it (cwd = repository root). */
  readonly command: string;
  readonly mutations: readonly string[];
  /** Where the case's files are (kept for failures). */
  readonly dir: string;
  /** How the counted result was obtained. */
  readonly via: 'spawn' | 'worker';
  /** The worker's outcome when a spawn re-run overruled it. */
  readonly workerOutcome?: Outcome;
  /** Output (trimmed) for failures. */
  readonly output?: string;
}

/** Runner options. */
export interface RunOptions {
  /** Directory the case directories are written under (e.g. /tmp/h7/run-1). */
  readonly root: string;
  /** Per-case timeout, ms. */
  readonly timeoutMs: number;
  /** RSS bound, MiB; the V8 old space is capped a little below it. */
  readonly memoryMb: number;
  /** Parallel children. */
  readonly workers: number;
  /** `worker` (fast, failures confirmed by spawn) or `spawn` (every case a fresh process). */
  readonly mode: 'worker' | 'spawn';
  /** Keep the directories of passing cases too. */
  readonly keepAll?: boolean;
  /** Called after each case (progress). */
  readonly onResult?: (r: CaseResult) => void;
}

const STACK_FRAME = /^ {4}at .*(\(.*:\d+:\d+\)|file:\/\/|node:|\S+:\d+:\d+$)/m;
const OOM = /heap out of memory|Allocation failed|Reached heap limit|ERR_STRING_TOO_LONG|Invalid string length|Array buffer allocation failed/;

/** Classifies one finished run. */
export function classify(r: { code: number | null; signal: string | null; output: string; timedOut: boolean; memoryExceeded: boolean }): Outcome {
  if (r.timedOut) return 'hang';
  if (r.memoryExceeded || OOM.test(r.output)) return 'memory';
  if (STACK_FRAME.test(r.output) || /internal error|Uncaught|UnhandledPromiseRejection|unhandledRejection/.test(r.output)) return 'stackTrace';
  switch (r.code) {
    case 0:
      return 'ok';
    case 1:
      return 'checkFailed';
    case 2:
      return /^error: \S/m.test(r.output) ? 'inputError' : 'badExit';
    case 3:
      return /simulation failed: \S|^error: \S/m.test(r.output) ? 'machineFailed' : 'badExit';
    default:
      return 'badExit';
  }
}

const shq = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

/** Writes the case's files under `dir`; returns argv with `${CASE}` replaced. */
export function materialize(c: FuzzCase, dir: string): string[] {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const d of c.dirs) mkdirSync(join(dir, d), { recursive: true });
  for (const [rel, content] of Object.entries(c.files)) {
    const p = join(dir, rel);
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, typeof content === 'string' ? content.split(CASE_DIR).join(dir) : content);
  }
  for (const rel of c.readOnly) chmodSync(join(dir, rel), 0o444);
  return c.argv.map((a) => a.split(CASE_DIR).join(dir));
}

/** Polls the RSS of `pid` (MiB) from /proc every 50 ms; calls `over` once when past `limitMb`. */
function watchRss(pid: number, limitMb: number, over: () => void): { stop: () => number } {
  let peak = 0;
  let fired = false;
  const poll = () => {
    try {
      const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      const mb = m ? Number(m[1]) / 1024 : 0;
      if (mb > peak) peak = mb;
      if (mb > limitMb && !fired) {
        fired = true;
        over();
      }
    } catch {
      // the process has exited
    }
  };
  const t = setInterval(poll, 50);
  return {
    stop: () => {
      clearInterval(t);
      return Math.round(peak);
    },
  };
}

/** Node flags of every child: a V8 heap cap below the RSS bound, so a blow-up aborts early. */
const nodeFlags = (memoryMb: number) => [`--max-old-space-size=${Math.max(64, Math.floor(memoryMb * 0.75))}`];

/** The command line a person runs to reproduce a case (from the repository root). */
export function reproCommand(argv: readonly string[], memoryMb: number): string {
  return ['node', ...nodeFlags(memoryMb), 'bin/warpstate.js', ...argv].map(shq).join(' ');
}

/** Runs one case as a fresh CLI process. */
export function runSpawned(c: FuzzCase, dir: string, argv: string[], opts: RunOptions): Promise<CaseResult> {
  return new Promise((resolveCase) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [...nodeFlags(opts.memoryMb), join(REPO_ROOT, 'bin/warpstate.js'), ...argv], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, WARPSTATE_CLI: '', FORCE_COLOR: '0' },
    });
    let output = '';
    const add = (b: Buffer) => {
      if (output.length < 65536) output += b.toString('utf8');
    };
    child.stdout!.on('data', add);
    child.stderr!.on('data', add);
    let timedOut = false;
    let memoryExceeded = false;
    const rss = watchRss(child.pid!, opts.memoryMb, () => {
      memoryExceeded = true;
      child.kill('SIGKILL');
    });
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, opts.timeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const peakRssMb = rss.stop();
      const outcome = classify({ code, signal, output, timedOut, memoryExceeded });
      resolveCase(result(c, dir, argv, opts, { outcome, code, signal, ms: performance.now() - t0, peakRssMb, output, via: 'spawn' }));
    });
  });
}

function result(
  c: FuzzCase,
  dir: string,
  argv: string[],
  opts: RunOptions,
  r: { outcome: Outcome; code: number | null; signal: string | null; ms: number; peakRssMb: number; output: string; via: 'spawn' | 'worker' },
): CaseResult {
  const frame = r.output.split('\n').find((l) => /internal error|Uncaught|^\s*\w*Error\b|^error: |simulation failed: /.test(l));
  const failed = FAILURES.includes(r.outcome);
  return {
    id: c.id,
    family: c.family,
    outcome: r.outcome,
    code: r.code,
    signal: r.signal,
    ms: Math.round(r.ms),
    peakRssMb: r.peakRssMb,
    detail: (frame ?? r.output.trim().split('\n')[0] ?? '').slice(0, 300),
    command: `cd ${shq(REPO_ROOT.replace(/\/$/, ''))} && ${reproCommand(argv, opts.memoryMb)}`,
    mutations: c.mutations,
    dir,
    via: r.via,
    ...(failed ? { output: r.output.slice(0, 8000) } : {}),
  };
}

/** A pooled in-process worker (worker.ts). */
class Worker {
  private child: ChildProcess | null = null;
  private served = 0;
  private output = '';
  private pending: ((m: any) => void) | null = null;
  private ready: Promise<void> | null = null;

  constructor(private readonly opts: RunOptions) {}

  private start(): Promise<void> {
    const child = fork(join(REPO_ROOT, 'test/fuzz/worker.ts'), [], {
      cwd: REPO_ROOT,
      execArgv: [...nodeFlags(this.opts.memoryMb), '--import', 'tsx'],
      silent: true,
      env: { ...process.env, WARPSTATE_CLI: '', FORCE_COLOR: '0' },
    });
    this.child = child;
    this.served = 0;
    const add = (b: Buffer) => {
      if (this.output.length < 65536) this.output += b.toString('utf8');
    };
    child.stdout!.on('data', add);
    child.stderr!.on('data', add);
    this.ready = new Promise((res) => {
      child.once('message', () => res());
    });
    child.on('message', (m: any) => {
      if (m.ready) return;
      const p = this.pending;
      this.pending = null;
      p?.(m);
    });
    child.on('exit', (code, signal) => {
      if (this.child === child) this.child = null;
      const p = this.pending;
      this.pending = null;
      p?.({ exited: true, code, signal });
    });
    return this.ready;
  }

  /** Kills the worker (a hang, a blow-up, or recycling). */
  stop(): void {
    this.child?.kill('SIGKILL');
    this.child = null;
  }

  /** Runs one case in the worker. */
  async run(c: FuzzCase, dir: string, argv: string[]): Promise<CaseResult> {
    if (this.child === null) await this.start();
    await this.ready;
    const child = this.child!;
    this.output = '';
    const t0 = performance.now();
    let timedOut = false;
    let memoryExceeded = false;
    const rss = watchRss(child.pid!, this.opts.memoryMb, () => {
      memoryExceeded = true;
      this.stop();
    });
    const timer = setTimeout(() => {
      timedOut = true;
      this.stop();
    }, this.opts.timeoutMs);
    const m: any = await new Promise((res) => {
      this.pending = res;
      child.send({ id: c.id, argv });
    });
    clearTimeout(timer);
    const peakRssMb = rss.stop();
    this.served++;
    let code: number | null;
    let signal: string | null = null;
    let output: string;
    if (m.exited || m.uncaught !== undefined) {
      code = m.exited ? m.code : null;
      signal = m.exited ? m.signal : null;
      output = `${this.output}\n${m.uncaught !== undefined ? `Uncaught ${m.uncaught}` : ''}`;
      this.stop();
    } else {
      code = m.code;
      output = `${m.out}\n${m.err}\n${this.output}`;
      // Recycle: bounded state carried from case to case.
      if (this.served >= 40 || peakRssMb > this.opts.memoryMb * 0.5) this.stop();
    }
    const outcome = classify({ code, signal, output, timedOut, memoryExceeded });
    return result(c, dir, argv, this.opts, { outcome, code, signal, ms: performance.now() - t0, peakRssMb, output, via: 'worker' });
  }
}

/**
 * Runs cases with `opts.workers` children in parallel; returns results in case order. `cases` is
 * an array or `{ length, get(i) }` (generated when its turn comes, so thousands of cases with
 * multi-megabyte files never sit in memory together).
 * Case directories are `<root>/case-<id>`; those of non-failing cases are removed unless `keepAll`.
 */
export async function runCases(cases: readonly FuzzCase[] | { readonly length: number; get(i: number): FuzzCase | null }, opts: RunOptions): Promise<CaseResult[]> {
  mkdirSync(opts.root, { recursive: true });
  const get = Array.isArray(cases) ? (i: number) => cases[i]! : (cases as { get(i: number): FuzzCase | null }).get;
  const results: CaseResult[] = [];
  let next = 0;
  const lane = async () => {
    const worker = opts.mode === 'worker' ? new Worker(opts) : null;
    try {
      for (;;) {
        const i = next++;
        if (i >= cases.length) return;
        const c = get(i);
        if (c === null) continue;
        const dir = join(opts.root, `case-${c.id}`);
        let argv = materialize(c, dir);
        let r: CaseResult;
        if (worker === null || c.spawn) r = await runSpawned(c, dir, argv, opts);
        else {
          r = await worker.run(c, dir, argv);
          if (FAILURES.includes(r.outcome)) {
            // Confirm as a user would see it: fresh files, fresh process.
            argv = materialize(c, dir);
            const s = await runSpawned(c, dir, argv, opts);
            r = { ...s, workerOutcome: r.outcome };
          }
        }
        if (!FAILURES.includes(r.outcome) && !opts.keepAll) rmSync(dir, { recursive: true, force: true });
        results[i] = r;
        opts.onResult?.(r);
      }
    } finally {
      worker?.stop();
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, opts.workers) }, lane));
  return results.filter((r) => r !== undefined);
}

/** Counts per outcome class (every class present, zeros included). */
export function countOutcomes(results: readonly CaseResult[]): Record<Outcome, number> {
  const counts = Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as Record<Outcome, number>;
  for (const r of results) counts[r.outcome]++;
  return counts;
}
