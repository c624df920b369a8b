/**
 * Measurement helpers of `npm run bench` (issue 11 item 3): CPU time of this process, the
 * whole-process CPU time and peak RSS of a CLI run (`node bin/warpstate.js ...`), the built
 * CLI kept current, medians, and what the JSON says about the machine and the commit.
 *
 * CPU time, not wall time: user + system seconds do not grow when other processes share the
 * cores (a shared 2-core machine), so runs measured on a loaded machine stay comparable.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, platform, release, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildIsCurrent } from '../bin/fingerprint.js';
import { buildCli, REPO_ROOT } from '../scripts/build.ts';

export { REPO_ROOT };

/** CPU seconds (user + system) this process has used so far (`process.cpuUsage()`). */
export function cpuSeconds(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}

/**
 * Median of `xs` (the mean of the two middle values for an even count).
 * @throws Error for an empty list
 */
export function median(xs: readonly number[]): number {
  if (xs.length === 0) throw new Error('median of no values');
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** `x` rounded to `digits` decimals (a number, for JSON). */
export function round(x: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

/** CPU seconds as reported: microseconds, the resolution of `process.cpuUsage()`. */
export function roundCpu(seconds: number): number {
  return round(seconds, 6);
}

/** The machine a benchmark ran on (`machine` in the JSON). */
export interface MachineInfo {
  /** `os.cpus()[0].model`. */
  readonly cpuModel: string;
  /** Logical cores (`os.cpus().length`). */
  readonly cores: number;
  /** Total memory, bytes (`os.totalmem()`). */
  readonly totalMemoryBytes: number;
  /** `os.platform()` and `os.release()`. */
  readonly os: string;
}

/** Describes this machine. */
export function machineInfo(): MachineInfo {
  const c = cpus();
  return { cpuModel: c[0]?.model.trim() ?? 'unknown', cores: c.length, totalMemoryBytes: totalmem(), os: `${platform()} ${release()}` };
}

/**
 * The commit `HEAD` names, read from the repository's `.git` files (no git command: `HEAD`, then
 * the loose ref or `packed-refs`; a `.git` file pointing to a worktree's git dir is followed).
 * The working tree may hold uncommitted edits on top of it.
 * @param root repository root
 * @returns the 40-hex commit, or null when it cannot be read
 */
export function readGitCommit(root = REPO_ROOT): string | null {
  try {
    let gitDir = join(root, '.git');
    if (!existsSync(join(gitDir, 'HEAD'))) {
      const m = /^gitdir:\s*(.+)$/m.exec(readFileSync(gitDir, 'utf8'));
      if (m === null) return null;
      gitDir = join(root, m[1]!.trim());
    }
    const head = readFileSync(join(gitDir, 'HEAD'), 'utf8').trim();
    if (/^[0-9a-f]{40}$/.test(head)) return head;
    const ref = /^ref:\s*(\S+)$/.exec(head)?.[1];
    if (ref === undefined) return null;
    // A worktree's refs live in the common git dir.
    const dirs = [gitDir];
    const common = join(gitDir, 'commondir');
    if (existsSync(common)) dirs.push(join(gitDir, readFileSync(common, 'utf8').trim()));
    for (const d of dirs) {
      const loose = join(d, ref);
      if (existsSync(loose)) return readFileSync(loose, 'utf8').trim();
      const packed = join(d, 'packed-refs');
      if (existsSync(packed)) {
        const line = readFileSync(packed, 'utf8').split('\n').find((l) => l.endsWith(` ${ref}`));
        if (line !== undefined) return line.split(' ')[0]!;
      }
    }
    return null;
  } catch {
    return null;
  }
}

/** How the built CLI (`dist/cli`) stood when a benchmark needed it. */
export type BuildState = 'current' | 'rebuilt';

/**
 * Makes `dist/cli` current (scripts/build.ts `buildCli`) when the sources changed since it was
 * built, so `node bin/warpstate.js` runs the bundle and not the sources through tsx.
 * @returns whether the build was already current or was rebuilt
 * @throws Error when the build fails (a source that does not compile)
 */
export async function ensureBuiltCli(root = REPO_ROOT): Promise<BuildState> {
  let stamp: { fingerprint?: unknown; stats?: unknown } | null = null;
  try {
    stamp = JSON.parse(readFileSync(join(root, 'dist', 'cli', 'stamp.json'), 'utf8'));
  } catch {
    stamp = null;
  }
  if (buildIsCurrent(root, stamp)) return 'current';
  await buildCli(root);
  return 'rebuilt';
}

/** How whole-process resource usage of a CLI run is read. */
export type RusageMethod = '/usr/bin/time' | 'process.resourceUsage';

/** The method used when none is asked for: GNU time when installed, else the in-process hook. */
export function defaultRusageMethod(): RusageMethod {
  return existsSync('/usr/bin/time') ? '/usr/bin/time' : 'process.resourceUsage';
}

/** One CLI run, measured as a whole process (start-up included). */
export interface CliSample {
  /** User + system CPU seconds of the whole process. */
  readonly cpuSeconds: number;
  /** User CPU seconds. */
  readonly userSeconds: number;
  /** System CPU seconds. */
  readonly systemSeconds: number;
  /** Peak resident set size, bytes (maximum RSS). */
  readonly peakRssBytes: number;
  /** Wall seconds (informational; not a benchmark figure). */
  readonly wallSeconds: number;
  /** Exit status of the CLI. */
  readonly status: number;
  readonly stdout: string;
  readonly stderr: string;
  /**
   * True when the launcher ran the TypeScript sources (the build went stale during the
   * benchmark and could not be rebuilt): start-up then costs about 1.5 CPU s more.
   */
  readonly ranSources: boolean;
}

const STALE = /older than the sources/;

/**
 * Runs `node bin/warpstate.js <args>` in the repository root and reads its whole-process
 * resource usage: with `/usr/bin/time -f "%U %S %M %e"` (its own output file), or with
 * `process.resourceUsage()` written at exit by `bench/rusage-hook.mjs` (loaded with
 * `node --import`). When the launcher reports a stale build (another edit of the sources meanwhile)
 * the CLI is rebuilt and the run repeated once.
 * @param args arguments after `node bin/warpstate.js`
 * @throws Error when the CLI cannot be started or its usage cannot be read
 */
export async function runCli(args: readonly string[], method: RusageMethod = defaultRusageMethod(), env: Record<string, string> = {}): Promise<CliSample> {
  let sample = runCliOnce(args, method, env);
  if (sample.ranSources) {
    try {
      await ensureBuiltCli();
      sample = runCliOnce(args, method, env);
    } catch {
      // The sources do not build right now (an edit in progress): keep the run, flagged.
    }
  }
  return sample;
}

function runCliOnce(args: readonly string[], method: RusageMethod, env: Record<string, string>): CliSample {
  const dir = mkdtempSync(join(tmpdir(), 'warpstate-bench-'));
  const usageFile = join(dir, 'usage');
  try {
    const cli = [join(REPO_ROOT, 'bin', 'warpstate.js'), ...args];
    const childEnv = { ...process.env, WARPSTATE_CLI: '', ...env };
    const t0 = process.hrtime.bigint();
    const r =
      method === '/usr/bin/time'
        ? spawnSync('/usr/bin/time', ['-f', '%U %S %M', '-o', usageFile, process.execPath, ...cli], { cwd: REPO_ROOT, env: childEnv, encoding: 'utf8', maxBuffer: 1 << 28 })
        : spawnSync(process.execPath, ['--import', pathToFileURL(join(REPO_ROOT, 'bench', 'rusage-hook.mjs')).href, ...cli], {
            cwd: REPO_ROOT,
            env: { ...childEnv, WARPSTATE_BENCH_RUSAGE: usageFile },
            encoding: 'utf8',
            maxBuffer: 1 << 28,
          });
    const wallSeconds = Number(process.hrtime.bigint() - t0) / 1e9;
    if (r.error) throw r.error;
    let userSeconds: number;
    let systemSeconds: number;
    let peakRssBytes: number;
    const text = existsSync(usageFile) ? readFileSync(usageFile, 'utf8') : '';
    if (method === '/usr/bin/time') {
      // GNU time writes "Command exited with non-zero status N" before the format line.
      const m = /([\d.]+) ([\d.]+) (\d+)\s*$/.exec(text);
      if (m === null) throw new Error(`/usr/bin/time wrote no usage for warpstate ${args.join(' ')}: ${text}${r.stderr}`);
      userSeconds = Number(m[1]);
      systemSeconds = Number(m[2]);
      peakRssBytes = Number(m[3]) * 1024;
    } else {
      if (text === '') throw new Error(`no resource usage written for warpstate ${args.join(' ')}: ${r.stderr}`);
      const u = JSON.parse(text) as NodeJS.ResourceUsage;
      userSeconds = u.userCPUTime / 1e6;
      systemSeconds = u.systemCPUTime / 1e6;
      peakRssBytes = u.maxRSS * 1024;
    }
    return {
      cpuSeconds: roundCpu(userSeconds + systemSeconds),
      userSeconds: roundCpu(userSeconds),
      systemSeconds: roundCpu(systemSeconds),
      peakRssBytes,
      wallSeconds: round(wallSeconds, 3),
      status: r.status ?? -1,
      stdout: r.stdout,
      stderr: r.stderr,
      ranSources: STALE.test(r.stderr),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
