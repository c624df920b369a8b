/**
 * The results of a sweep (issue 12 item 2): `results.json` and `results.csv` (one row per point)
 * with provenance, derived columns, checks and figures, built from the per-point result files of
 * the results directory. Both executors end here; `warpstate sweep collect <dir>` too.
 *
 * Directory layout (`<dir>`):
 * - `sweep.json`: the plan (sweep file, spec, axes, points with their inputs and hashes);
 * - `points/<hash>.result.json`, `points/<hash>.stats.json`: each point's result and statistics;
 * - `results.json`, `results.csv`, `figures/<name>.svg|png`;
 * - `bases/<name>.yaml`: generated scenarios of trace bases; `slurm/`: the Slurm job files.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { stringify } from 'csv-stringify/sync';
import { computeDerived, evaluateCheck, ExprTable, type CheckResult, type ExprRow } from './expr.ts';
import type { Axis } from './grid.ts';
import type { PlannedPoint, Provenance } from './load.ts';
import { pointFiles, readPointResult, type PointResult } from './point.ts';
import type { SweepSpec } from './schema.ts';

/** `sweep.json`: what `collect` needs to rebuild the tables without the sweep file. */
export interface SweepState {
  readonly sweep: string;
  readonly spec: SweepSpec;
  readonly axes: readonly Axis[];
  readonly collect: Readonly<Record<string, string>>;
  readonly provenance: Provenance;
  readonly points: readonly PlannedPoint[];
}

/** One row of results.json (the interface with `warpstate report`, fixed in issue 12). */
export interface ResultPoint extends PointResult {
  readonly stats: Record<string, number>;
  readonly derived: Record<string, number | null>;
}

/** results.json. */
export interface SweepResults {
  readonly sweep: string;
  readonly warpstate: Provenance;
  readonly columns: string[];
  readonly points: ResultPoint[];
  readonly checks: CheckResult[];
  readonly figures: { name: string; svg: string; png: string }[];
}

/** Writes `sweep.json`. */
export function writeState(dir: string, state: SweepState): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'sweep.json'), JSON.stringify(state, null, 1) + '\n');
}

/** Reads `sweep.json`. @throws Error when the directory holds no sweep */
export function readState(dir: string): SweepState {
  const file = join(dir, 'sweep.json');
  if (!existsSync(file)) throw new Error(`${dir}: not a sweep results directory (no sweep.json)`);
  return JSON.parse(readFileSync(file, 'utf8')) as SweepState;
}

/** A `*` glob over statistic names as a regular expression (every other character literal). */
function globRegExp(glob: string): RegExp {
  return new RegExp('^' + glob.split('*').map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*') + '$');
}

/**
 * The collected columns of one stats object: a name's value, or the sum of the numeric
 * statistics a `*` glob matches; absent when nothing matches.
 */
export function collectStats(stats: Record<string, unknown>, collect: Readonly<Record<string, string>>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [col, name] of Object.entries(collect)) {
    if (name.includes('*')) {
      const re = globRegExp(name);
      let sum = 0;
      let n = 0;
      for (const [k, v] of Object.entries(stats)) {
        if (typeof v === 'number' && re.test(k)) {
          sum += v;
          n++;
        }
      }
      if (n > 0) out[col] = sum;
    } else if (typeof stats[name] === 'number') out[col] = stats[name] as number;
  }
  return out;
}

/** A point that has no result file: never run, or its process (or Slurm task) did not finish. */
function missingResult(p: PlannedPoint): PointResult {
  return {
    id: p.id,
    hash: p.hash,
    base: p.base,
    overrides: p.overrides,
    seed: p.seed,
    status: 'failed',
    exitCode: -1,
    wallSeconds: 0,
    stderrTail: 'no result: the point did not run to the end (interrupted, or its Slurm task did not finish)',
    statsFile: pointFiles(p.hash).stats,
    inputs: { scenario: p.scenario, scenarioHash: p.scenarioHash, set: p.set, configSet: p.configSet, args: p.args },
  };
}

/** Options of {@link buildResults}. */
export interface BuildOptions {
  /** Warnings (a statistic no point has, a figure that failed), one line each. */
  readonly warn?: (line: string) => void;
  /** Render the figures (default true). */
  readonly figures?: boolean;
}

/**
 * Builds and writes results.json, results.csv and the figures from the point files in `dir`.
 * @returns the results (also written)
 */
export async function buildResults(dir: string, state: SweepState, opts: BuildOptions = {}): Promise<SweepResults> {
  const warn = opts.warn ?? (() => {});
  const points: ResultPoint[] = [];
  const found = new Set<string>();
  for (const p of state.points) {
    const r = readPointResult(dir, p.hash) ?? missingResult(p);
    let stats: Record<string, number> = {};
    if (r.status === 'ok' || r.status === 'checkFailed') {
      try {
        const s = JSON.parse(readFileSync(join(dir, r.statsFile), 'utf8')).stats as Record<string, unknown>;
        stats = collectStats(s, state.collect);
      } catch (e) {
        warn(`point ${p.id}: cannot read ${r.statsFile}: ${(e as Error).message}`);
      }
    }
    for (const k of Object.keys(stats)) found.add(k);
    points.push({ ...r, id: p.id, overrides: p.overrides, stats, derived: {} });
  }
  const anyOk = points.some((p) => p.status === 'ok' || p.status === 'checkFailed');
  for (const [col, name] of Object.entries(state.collect)) if (anyOk && !found.has(col)) warn(`statistic '${name}' (column ${col}) is in no point's stats file`);

  // Derived columns and checks.
  const rows: ExprRow[] = state.points.map((p, i) => ({
    id: p.id,
    point: p.point,
    values: Object.fromEntries(Object.keys(state.collect).map((c) => [c, points[i]!.stats[c] ?? null])),
  }));
  const table = new ExprTable(state.axes, rows);
  computeDerived(table, state.spec.derived);
  const derivedCols = Object.keys(state.spec.derived);
  points.forEach((p, i) => {
    for (const c of derivedCols) p.derived[c] = rows[i]!.values[c] ?? null;
  });
  const checks = state.spec.checks.map((c) => (typeof c === 'string' ? evaluateCheck(table, c) : evaluateCheck(table, c.expr, c.description)));

  const axisCols = state.axes.filter((a) => a.target.kind !== 'base' && a.target.kind !== 'seed').map((a) => a.name);
  const columns = ['id', 'base', ...axisCols, 'seed', 'status', ...Object.keys(state.collect), ...derivedCols];
  const tableRows = points.map((p) => ({
    id: p.id,
    base: p.base,
    ...p.overrides,
    seed: p.seed,
    status: p.status,
    ...Object.fromEntries(Object.keys(state.collect).map((c) => [c, p.stats[c] ?? null])),
    ...p.derived,
  }));

  const figures: { name: string; svg: string; png: string }[] = [];
  if (opts.figures !== false && state.spec.figures.length > 0) {
    const { renderFigure, timeSeriesOf, figureSpecSchema } = await import('../report/figures.ts');
    const figRows = tableRows.map((r, i) => ({ ...r, statsFile: join(dir, points[i]!.statsFile) }));
    const ok = figRows.filter((r) => r.status === 'ok' || r.status === 'checkFailed');
    const series = (row: Record<string, unknown>) => timeSeriesOf(JSON.parse(readFileSync(String(row.statsFile), 'utf8')).stats);
    for (const raw of state.spec.figures) {
      const { where, ...fig } = raw as { where?: Record<string, string | number> };
      const spec = figureSpecSchema.parse(fig);
      const shown = where === undefined ? ok : ok.filter((r) => Object.entries(where).every(([k, v]) => String((r as Record<string, unknown>)[k]) === String(v)));
      try {
        const r = await renderFigure(spec, shown, join(dir, 'figures'), series);
        figures.push({ name: spec.name, svg: relative(dir, r.svg), png: relative(dir, r.png) });
      } catch (e) {
        warn(`figure ${spec.name}: ${(e as Error).message}`);
      }
    }
  }

  const results: SweepResults = { sweep: state.sweep, warpstate: state.provenance, columns, points, checks, figures };
  writeFileSync(join(dir, 'results.json'), JSON.stringify(results, null, 1) + '\n');
  writeFileSync(join(dir, 'results.csv'), stringify(tableRows, { header: true, columns, cast: { number: (n) => String(n) } }));
  return results;
}
