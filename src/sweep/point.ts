/**
 * Running one sweep point in its own process (issue 12 item 2): `bin/warpstate.js run ...
 * --stats <file> -q`, with a wall-clock limit, so that a crash or a timeout is recorded as that
 * point's failure (exit code, stderr tail) and never takes the others with it. Each finished
 * point leaves `points/<hash>.result.json` (and its stats file) in the results directory; a
 * later run finds it there and does not run the point again.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PlannedPoint } from './load.ts';
import { packageRoot } from './load.ts';

/** How a point ended. `checkFailed`: it ran, but the scenario's own checks failed (exit 1). */
export type PointStatus = 'ok' | 'checkFailed' | 'failed' | 'timeout';

/** What a point's run left, as results.json records it (plus its inputs, for provenance). */
export interface PointResult {
  readonly id: string;
  readonly hash: string;
  readonly base: string;
  readonly overrides: Record<string, string>;
  readonly seed: number;
  readonly status: PointStatus;
  /** The process's exit code; -1 when it was killed by a signal or never ran. */
  readonly exitCode: number;
  /** Wall-clock seconds of the process. */
  readonly wallSeconds: number;
  /** Last lines of stderr (up to {@link STDERR_TAIL_CHARS} characters), when the point did not end `ok`. */
  readonly stderrTail?: string;
  /** The point's stats JSON (`run --stats`), relative to the results directory. */
  readonly statsFile: string;
  /** The full inputs: scenario file and its hash, every override, the command's arguments. */
  readonly inputs: { scenario: string; scenarioHash: string; set: readonly string[]; configSet: readonly string[]; args: readonly string[] };
}

/** Characters of stderr kept for a failed point. */
export const STDERR_TAIL_CHARS = 4000;

/** Paths of a point's files relative to the results directory. */
export function pointFiles(hash: string): { result: string; stats: string } {
  return { result: join('points', `${hash}.result.json`), stats: join('points', `${hash}.stats.json`) };
}

/** The recorded result of a point, or null when it has none (not run, interrupted). */
export function readPointResult(dir: string, hash: string): PointResult | null {
  const file = join(dir, pointFiles(hash).result);
  if (!existsSync(file)) return null;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as PointResult;
  } catch {
    return null;
  }
}

/** Options of one point's run. */
export interface PointRunOptions {
  /** Wall-clock limit, seconds; the process gets SIGTERM, then SIGKILL 5 s later. */
  readonly timeoutSeconds?: number;
  /** Aborted: the process gets SIGINT and its result is not recorded. */
  readonly signal?: AbortSignal;
}

/**
 * Runs one point in a child process and records its result (unless it was interrupted).
 * @returns the result, or null when `signal` aborted it (nothing recorded: a later run reruns it)
 */
export function runPoint(dir: string, p: PlannedPoint, opts: PointRunOptions = {}): Promise<PointResult | null> {
  const files = pointFiles(p.hash);
  mkdirSync(join(dir, 'points'), { recursive: true });
  const statsPath = join(dir, files.stats);
  const bin = join(packageRoot(), 'bin', 'warpstate.js');
  const started = process.hrtime.bigint();
  return new Promise((resolvePromise) => {
    const child = spawn(process.execPath, [bin, ...p.args, '--stats', statsPath], { stdio: ['ignore', 'ignore', 'pipe'] });
    let tail = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (s: string) => {
      tail = (tail + s).slice(-STDERR_TAIL_CHARS);
    });
    let timedOut = false;
    let killTimer: NodeJS.Timeout | undefined;
    const timer =
      opts.timeoutSeconds !== undefined
        ? setTimeout(() => {
            timedOut = true;
            child.kill('SIGTERM');
            killTimer = setTimeout(() => child.kill('SIGKILL'), 5000);
          }, opts.timeoutSeconds * 1000)
        : undefined;
    const onAbort = () => child.kill('SIGINT');
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    let done = false;
    const finish = (code: number | null, error?: Error) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      clearTimeout(killTimer);
      opts.signal?.removeEventListener('abort', onAbort);
      const wallSeconds = Number(process.hrtime.bigint() - started) / 1e9;
      if (opts.signal?.aborted && !timedOut) {
        resolvePromise(null);
        return;
      }
      const exitCode = code ?? -1;
      let status: PointStatus = timedOut ? 'timeout' : exitCode === 0 ? 'ok' : exitCode === 1 ? 'checkFailed' : 'failed';
      if ((status === 'ok' || status === 'checkFailed') && !existsSync(statsPath)) status = 'failed';
      if (error !== undefined) tail += `\n${error.message}`;
      if (timedOut) tail += `\n[warpstate sweep] killed after the per-point limit of ${opts.timeoutSeconds} s`;
      const result: PointResult = {
        id: p.id,
        hash: p.hash,
        base: p.base,
        overrides: p.overrides,
        seed: p.seed,
        status,
        exitCode,
        wallSeconds: Math.round(wallSeconds * 1000) / 1000,
        ...(status !== 'ok' ? { stderrTail: tail } : {}),
        statsFile: files.stats,
        inputs: { scenario: p.scenario, scenarioHash: p.scenarioHash, set: p.set, configSet: p.configSet, args: p.args },
      };
      const out = join(dir, files.result);
      writeFileSync(out + '.tmp', JSON.stringify(result, null, 1) + '\n');
      renameSync(out + '.tmp', out);
      resolvePromise(result);
    };
    child.on('error', (e) => finish(null, e));
    child.on('close', (code) => finish(code));
  });
}
