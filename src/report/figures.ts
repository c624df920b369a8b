/**
 * Figures (issue 12 item 4): Vega-Lite specifications built from a results table (one row per
 * run or sweep point, column name -> value) and rendered without a browser, to SVG by vega's
 * headless `View` (`renderer: 'none'`, `toSVG()`) and to PNG by @resvg/resvg-js.
 *
 * Built-in kinds, each a figure type of the papers (papers/000 .. 004):
 * - `normalisedBars`: performance per kernel (x) and policy (color), normalised to a baseline
 *   row of the same x, with a geometric-mean group (the speed-up figures of every paper);
 * - `line`: a statistic over a swept parameter (e.g. 002 Fig. 6.5, speed-up vs iBuffer size);
 * - `timeSeries`: sampled series of a run over time, lines or stacked areas (IPC over time,
 *   ALU and MEM load over time, 000 §3.5.4);
 * - `stallBars`: the stall breakdown (memory conflict, memory dependency, fetch, other) per x as
 *   shares of the stalled scheduler-cycles (004 Fig. 3; stats `stall_<kind>`);
 * - `schedulerStates`: the scheduler idle-time states per x as shares of scheduler-cycles
 *   (000 Fig. 3.8, §3.5.3; stats `sched_<state>`);
 * - `warpStates`: the 8 warp states (plus barrier waiting) per x as shares of warp-cycles
 *   (000 §5.3; stats `warp_state_<state>`). Over time (000 Figs. 5.x) they are the time series
 *   `warp_cycles_<state>` ({@link timeSeriesOf}), drawn as a stacked `timeSeries`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { InputError } from '../errors.ts';

/** A results-table row: column name -> value (null where a point failed or a value is undefined). */
export type FigureRow = Record<string, string | number | null>;

/** One sampled series: times in ps, values in the series' unit (per sampling interval for loads). */
export interface SeriesData {
  times: number[];
  values: number[];
}

/** A figure declaration (sweep file `figures:` entry, or built for a single run's report). */
export type FigureSpec =
  | {
      kind: 'normalisedBars';
      name: string;
      /** Column of the groups along x (e.g. kernel). */
      x: string;
      /** Column of the bars within a group (e.g. policy). */
      color: string;
      /** Column of the performance statistic (e.g. gpu_ipc or gpu_sim_cycle). */
      y: string;
      /** Column values selecting the baseline row of each x group, e.g. `{ policy: 'lrr' }`. */
      baseline: Record<string, string | number>;
      /** Add a `geomean` group: per color, the geometric mean of the normalised values over x. */
      geomean?: boolean;
      title?: string;
      yTitle?: string;
      /** y is lower-is-better (cycles): plot baseline / y (a speed-up) instead of y / baseline. */
      invert?: boolean;
    }
  | { kind: 'line'; name: string; x: string; y: string; color?: string; title?: string; xTitle?: string; yTitle?: string }
  | {
      kind: 'timeSeries';
      name: string;
      /** Series names or globs (`*`); the series a glob matches are summed point by point. */
      series: string[];
      stacked?: boolean;
      /** With several rows (sweep points): the column whose value labels each row's lines (default: the row's id). */
      color?: string;
      title?: string;
      yTitle?: string;
    }
  | { kind: 'stallBars' | 'schedulerStates' | 'warpStates'; name: string; x: string; title?: string };

const nameSchema = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, 'a file name: letters, digits, _ . - (it names <name>.svg and <name>.png)');
const column = z.string().min(1);

/** zod schema of {@link FigureSpec} (strict: unknown fields are refused). */
export const figureSpecSchema: z.ZodType<FigureSpec> = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('normalisedBars'),
    name: nameSchema,
    x: column,
    color: column,
    y: column,
    baseline: z.record(z.string(), z.union([z.string(), z.number()])).refine((b) => Object.keys(b).length > 0, 'names at least one column'),
    geomean: z.boolean().optional(),
    title: z.string().optional(),
    yTitle: z.string().optional(),
    invert: z.boolean().optional(),
  }),
  z.strictObject({
    kind: z.literal('line'),
    name: nameSchema,
    x: column,
    y: column,
    color: column.optional(),
    title: z.string().optional(),
    xTitle: z.string().optional(),
    yTitle: z.string().optional(),
  }),
  z.strictObject({
    kind: z.literal('timeSeries'),
    name: nameSchema,
    series: z.array(column).min(1),
    stacked: z.boolean().optional(),
    color: column.optional(),
    title: z.string().optional(),
    yTitle: z.string().optional(),
  }),
  z.strictObject({
    kind: z.enum(['stallBars', 'schedulerStates', 'warpStates']),
    name: nameSchema,
    x: column,
    title: z.string().optional(),
  }),
]) as z.ZodType<FigureSpec>;

/** Stall kinds of 004 Fig. 3 (`stall_<kind>`; `stall_none` is an issuing cycle, not a stall). */
export const STALL_KINDS = ['memoryConflict', 'memoryDependency', 'fetch', 'other'] as const;
/** Scheduler idle-time states of 000 §3.5.3 (`sched_<state>`). */
export const SCHEDULER_STATES = ['noInstruction', 'notReady', 'pipelineStall', 'canIssue'] as const;
/** The 8 warp states of 000 §5.3 plus barrier waiting (`warp_state_<state>`). */
export const WARP_STATES = ['iBufferEmpty', 'aluScoreboard', 'memScoreboard', 'aluStall', 'memStall', 'canIssueAlu', 'canIssueMem', 'completed', 'waiting'] as const;

/**
 * The unit of a statistic column, guessed from its GPGPU-Sim-style name, for axis titles.
 * @returns e.g. `cycles`, `GB/s`, or '' when the name says nothing
 */
export function unitOf(col: string): string {
  const leaf = col.slice(col.lastIndexOf('.') + 1);
  if (/ipc$/i.test(leaf)) return 'thread instructions / cycle';
  if (/(^|_)cycles?$/.test(leaf) || /^amat/.test(leaf)) return 'cycles';
  if (/_gbps$|bandwidth/.test(leaf)) return 'GB/s';
  if (/bytes$/.test(leaf)) return 'bytes';
  if (/warp_insts$/.test(leaf)) return 'warp instructions';
  if (/insn$|insts$/.test(leaf)) return 'instructions';
  if (/_ps$/.test(leaf)) return 'ps';
  if (/Seconds$|_s$/.test(leaf)) return 's';
  return '';
}

function titled(col: string): string {
  const u = unitOf(col);
  return u === '' ? col : `${col} (${u})`;
}

function where(spec: FigureSpec): { file: string } {
  return { file: `figure ${spec.name}` };
}

function requireColumn(spec: FigureSpec, rows: readonly FigureRow[], col: string, field: string): void {
  if (rows.length > 0 && !rows.some((r) => col in r)) {
    throw new InputError(where(spec), `column '${col}' is not in the results table (columns: ${Object.keys(rows[0]!).join(', ')})`, field);
  }
}

function num(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

const baseConfig = {
  font: 'DejaVu Sans, Arial, sans-serif',
  background: 'white',
  view: { stroke: null },
  axis: { labelFontSize: 11, titleFontSize: 12 },
  legend: { labelFontSize: 11, titleFontSize: 12 },
};

/** Sums the columns of `row` named `<prefix>`, or ending in `.<prefix>` (per-SM columns). */
function sumSuffix(row: FigureRow, stat: string): number | null {
  let sum: number | null = null;
  for (const [k, v] of Object.entries(row)) {
    if (k === stat || k.endsWith(`.${stat}`)) {
      const n = num(v);
      if (n !== null) sum = (sum ?? 0) + n;
    }
  }
  return sum;
}

/** Glob (`*` any run of characters) to a RegExp over a whole series name. */
function globRegExp(glob: string): RegExp {
  return new RegExp(`^${glob.split('*').map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
}

/**
 * The long-format data and the encoding of a breakdown figure (stall kinds, scheduler states,
 * warp states): one stacked, normalised bar per x value.
 */
function breakdownSpec(spec: FigureSpec & { x: string }, rows: readonly FigureRow[], prefix: string, parts: readonly string[], what: string, legend: string): object {
  requireColumn(spec, rows, spec.x, 'x');
  const values: { x: string; part: string; order: number; value: number }[] = [];
  for (const r of rows) {
    const x = String(r[spec.x] ?? '');
    parts.forEach((p, i) => {
      const v = sumSuffix(r, `${prefix}${p}`);
      if (v !== null) values.push({ x, part: p, order: i, value: v });
    });
  }
  if (values.length === 0) throw new InputError(where(spec), `no column named ${prefix}<${parts.join('|')}> in the results table: collect those statistics`, 'kind');
  return {
    data: { values },
    mark: { type: 'bar' },
    encoding: {
      x: { field: 'x', type: 'nominal', title: spec.x, sort: null, axis: { labelAngle: -30 } },
      y: { field: 'value', type: 'quantitative', stack: 'normalize', title: what, axis: { format: '%' } },
      color: { field: 'part', type: 'nominal', title: legend, sort: [...parts], scale: { scheme: 'tableau10' } },
      order: { field: 'order', type: 'quantitative' },
      tooltip: [{ field: 'x' }, { field: 'part' }, { field: 'value', type: 'quantitative' }],
    },
  };
}

/**
 * Builds the Vega-Lite specification of a figure (data inlined).
 * @param rows the results table
 * @param timeSeries for `timeSeries` figures: a row's sampled series by name
 * @throws InputError (file `figure <name>`) naming the missing column, series or baseline row
 */
export function buildVegaLite(
  spec: FigureSpec,
  rows: readonly FigureRow[],
  timeSeries?: (row: Record<string, unknown>) => Record<string, SeriesData>,
): object {
  const title = spec.title ?? spec.name;
  let body: object;
  switch (spec.kind) {
    case 'normalisedBars': {
      requireColumn(spec, rows, spec.x, 'x');
      requireColumn(spec, rows, spec.color, 'color');
      requireColumn(spec, rows, spec.y, 'y');
      for (const k of Object.keys(spec.baseline)) requireColumn(spec, rows, k, `baseline.${k}`);
      const isBase = (r: FigureRow) => Object.entries(spec.baseline).every(([k, v]) => String(r[k]) === String(v));
      const values: { x: string; color: string; value: number }[] = [];
      const byColor = new Map<string, number[]>();
      const xs: string[] = [];
      for (const r of rows) {
        const x = String(r[spec.x]);
        if (!xs.includes(x)) xs.push(x);
        const base = rows.find((b) => String(b[spec.x]) === x && isBase(b));
        const y = num(r[spec.y]);
        const b = base === undefined ? null : num(base[spec.y]);
        if (y === null || b === null || y === 0 || b === 0) continue;
        const value = spec.invert ? b / y : y / b;
        const color = String(r[spec.color]);
        values.push({ x, color, value });
        byColor.set(color, [...(byColor.get(color) ?? []), value]);
      }
      if (rows.length > 0 && !rows.some(isBase)) throw new InputError(where(spec), `no row matches the baseline ${JSON.stringify(spec.baseline)}`, 'baseline');
      if (spec.geomean) {
        for (const [color, vs] of byColor) values.push({ x: 'geomean', color, value: Math.exp(vs.reduce((a, v) => a + Math.log(v), 0) / vs.length) });
      }
      const baseName = Object.values(spec.baseline).join(', ');
      body = {
        data: { values },
        mark: { type: 'bar' },
        encoding: {
          x: { field: 'x', type: 'nominal', title: spec.x, sort: spec.geomean ? [...xs, 'geomean'] : xs, axis: { labelAngle: -30 } },
          xOffset: { field: 'color', type: 'nominal', sort: [...byColor.keys()] },
          y: { field: 'value', type: 'quantitative', title: spec.yTitle ?? `${spec.invert ? 'speed-up' : `normalised ${spec.y}`} over ${baseName} (×)` },
          color: { field: 'color', type: 'nominal', title: spec.color, sort: [...byColor.keys()], scale: { scheme: 'tableau10' } },
          tooltip: [{ field: 'x' }, { field: 'color' }, { field: 'value', type: 'quantitative', format: '.3f' }],
        },
      };
      break;
    }
    case 'line': {
      requireColumn(spec, rows, spec.x, 'x');
      requireColumn(spec, rows, spec.y, 'y');
      if (spec.color !== undefined) requireColumn(spec, rows, spec.color, 'color');
      const numericX = rows.every((r) => num(r[spec.x]) !== null);
      const values = rows
        .filter((r) => num(r[spec.y]) !== null)
        .map((r) => ({ x: numericX ? r[spec.x] : String(r[spec.x]), y: r[spec.y], ...(spec.color !== undefined ? { color: String(r[spec.color]) } : {}) }));
      body = {
        data: { values },
        mark: { type: 'line', point: true },
        encoding: {
          x: { field: 'x', type: numericX ? 'quantitative' : 'ordinal', title: spec.xTitle ?? titled(spec.x), sort: null },
          y: { field: 'y', type: 'quantitative', title: spec.yTitle ?? titled(spec.y), scale: { zero: false } },
          ...(spec.color !== undefined ? { color: { field: 'color', type: 'nominal', title: spec.color, scale: { scheme: 'tableau10' } } } : {}),
        },
      };
      break;
    }
    case 'timeSeries': {
      if (spec.color !== undefined) requireColumn(spec, rows, spec.color, 'color');
      if (timeSeries === undefined) throw new InputError(where(spec), 'a time-series figure needs the runs\' statistics files (their time series)', 'kind');
      const values: { t: number; value: number; series: string }[] = [];
      rows.forEach((r, i) => {
        const all = timeSeries(r);
        for (const entry of spec.series) {
          const re = globRegExp(entry);
          const matched = entry in all ? [all[entry]!] : Object.keys(all).filter((k) => re.test(k)).map((k) => all[k]!);
          if (matched.length === 0) {
            throw new InputError(where(spec), `no time series '${entry}' in ${String(r.id ?? `row ${i + 1}`)} (series: ${Object.keys(all).slice(0, 8).join(', ')}${Object.keys(all).length > 8 ? ' ...' : ''}; a run records series only with a sampleInterval)`, 'series');
          }
          const rowLabel = String((spec.color !== undefined ? r[spec.color] : r.id) ?? i + 1);
          const label = rows.length > 1 ? (spec.series.length > 1 ? `${rowLabel}: ${entry}` : rowLabel) : entry;
          const first = matched[0]!;
          first.times.forEach((t, j) => values.push({ t: t / 1e6, value: matched.reduce((a, s) => a + (s.values[j] ?? 0), 0), series: label }));
        }
      });
      const loads = spec.series.every((s) => /_load$/.test(s));
      const defaultY = spec.series.every((s) => s === 'ipc') ? 'IPC (warp instructions / core cycle)' : loads ? 'warp instructions / sampling interval' : 'value per sample';
      body = {
        data: { values },
        mark: spec.stacked ? { type: 'area', line: false } : { type: 'line', interpolate: 'step-after' },
        encoding: {
          x: { field: 't', type: 'quantitative', title: 'simulated time (µs)' },
          y: { field: 'value', type: 'quantitative', title: spec.yTitle ?? defaultY, ...(spec.stacked ? { stack: 'zero' } : {}) },
          color: { field: 'series', type: 'nominal', title: rows.length > 1 && spec.series.length === 1 ? (spec.color ?? 'id') : 'series', scale: { scheme: 'tableau10' } },
        },
      };
      break;
    }
    case 'stallBars':
      body = breakdownSpec(spec, rows, 'stall_', STALL_KINDS, 'share of stalled scheduler-cycles (%)', 'stall kind');
      break;
    case 'schedulerStates':
      body = breakdownSpec(spec, rows, 'sched_', SCHEDULER_STATES, 'share of scheduler-cycles (%)', 'scheduler state');
      break;
    case 'warpStates':
      body = breakdownSpec(spec, rows, 'warp_state_', WARP_STATES, 'share of warp-cycles (%)', 'warp state');
      break;
  }
  return { $schema: 'https://vega.github.io/schema/vega-lite/v6.json', title, width: 520, height: 300, config: baseConfig, ...body };
}

/**
 * Imports a package when a figure is drawn, with a name the CLI bundler (scripts/build.ts,
 * esbuild) does not follow: resvg's native `.node` binding and vega-canvas's top-level await
 * cannot go into the CommonJS bundle, and a run that draws nothing should not load them.
 */
const runtimeImport = (name: string): Promise<unknown> => {
  // The built CLI runs as a vm script whose functions come from a V8 code cache, and V8 gives
  // such code no dynamic import(); bin/built-cli.js, an ES module, lends its own under this key.
  const lent = (globalThis as Record<symbol, unknown>)[Symbol.for('warpstate.import')] as ((specifier: string) => Promise<unknown>) | undefined;
  return lent !== undefined ? lent(name) : import(name);
};

/**
 * Renders a Vega-Lite specification to an SVG string without a browser (vega `View` with
 * `renderer: 'none'`).
 */
export async function vegaLiteToSvg(vlSpec: object): Promise<string> {
  const [vega, vl] = await Promise.all([runtimeImport('vega') as Promise<typeof import('vega')>, runtimeImport('vega-lite') as Promise<typeof import('vega-lite')>]);
  const compiled = vl.compile(vlSpec as Parameters<typeof vl.compile>[0]).spec;
  const view = new vega.View(vega.parse(compiled), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

/** Rasterises an SVG to PNG bytes with @resvg/resvg-js at `scale` x its size (system fonts). */
export async function svgToPng(svg: string, scale = 2): Promise<Buffer> {
  const { Resvg } = await (runtimeImport('@resvg/resvg-js') as Promise<typeof import('@resvg/resvg-js')>);
  const r = new Resvg(svg, { fitTo: { mode: 'zoom', value: scale }, background: 'white', font: { loadSystemFonts: true, defaultFontFamily: 'DejaVu Sans' } });
  return r.render().asPng();
}

/**
 * Renders one figure from the rows of a results table (column name -> value); writes
 * `<outDir>/<name>.svg` and `.png` and returns their paths and the Vega-Lite specification.
 * @param timeSeries for `timeSeries` figures: a row's sampled series (times in ps), e.g.
 *   {@link timeSeriesOf} of the row's statistics file
 * @throws InputError for a spec that does not fit the table (missing column, baseline, series)
 */
export async function renderFigure(
  spec: FigureSpec,
  rows: readonly FigureRow[],
  outDir: string,
  timeSeries?: (row: Record<string, unknown>) => Record<string, SeriesData>,
): Promise<{ svg: string; png: string; vegaLite: object }> {
  const vegaLite = buildVegaLite(spec, rows, timeSeries);
  const svgText = await vegaLiteToSvg(vegaLite);
  mkdirSync(outDir, { recursive: true });
  const svg = join(outDir, `${spec.name}.svg`);
  const png = join(outDir, `${spec.name}.png`);
  writeFileSync(svg, svgText);
  writeFileSync(png, await svgToPng(svgText));
  return { svg, png, vegaLite };
}

/**
 * The time series of a statistics file (`--stats` JSON's `stats` object), plus series derived
 * for figures:
 * - `alu_load`, `mem_load`: the per-SM `GPU.SM[i].ISSUE.<load>` series summed over SMs (warp
 *   instructions per sampling interval, 000 §3.5.4);
 * - `ipc`: (alu_load + mem_load) / core cycles per interval, warp instructions per core cycle.
 *   The core cycle time is `engine.sim_time_ps / gpu_sim_cycle` (present in every timing run).
 * @param stats the `stats` object of a stats file (series are `{ times, values, intervalPs, ... }`)
 */
export function timeSeriesOf(stats: Record<string, unknown>): Record<string, SeriesData> {
  const out: Record<string, SeriesData> = {};
  let interval = 0;
  for (const [k, v] of Object.entries(stats)) {
    if (v !== null && typeof v === 'object' && Array.isArray((v as SeriesData).times) && Array.isArray((v as SeriesData).values)) {
      out[k] = { times: (v as SeriesData).times, values: (v as SeriesData).values };
      interval ||= num((v as { intervalPs?: unknown }).intervalPs) ?? 0;
    }
  }
  const sum = (re: RegExp): SeriesData | undefined => {
    const ms = Object.keys(out).filter((k) => re.test(k)).map((k) => out[k]!);
    if (ms.length === 0) return undefined;
    return { times: ms[0]!.times, values: ms[0]!.times.map((_, j) => ms.reduce((a, s) => a + (s.values[j] ?? 0), 0)) };
  };
  const alu = sum(/^GPU\.SM\[\d+\]\.ISSUE\.alu_load$/);
  const mem = sum(/^GPU\.SM\[\d+\]\.ISSUE\.mem_load$/);
  if (alu) out.alu_load = alu;
  if (mem) out.mem_load = mem;
  // Warp states over time (000 Figs. 5.x): warp-cycles per state per interval, summed over SMs.
  for (const state of WARP_STATES) {
    const w = sum(new RegExp(`^GPU\\.SM\\[\\d+\\]\\.ISSUE\\.warp_cycles_${state}$`));
    if (w) out[`warp_cycles_${state}`] = w;
  }
  const cycles = num(stats.gpu_sim_cycle);
  const simPs = num(stats['engine.sim_time_ps']);
  if (alu && mem && cycles && simPs && interval > 0) {
    const cyclesPerInterval = interval / (simPs / cycles);
    out.ipc = { times: alu.times, values: alu.values.map((v, j) => (v + (mem.values[j] ?? 0)) / cyclesPerInterval) };
  }
  return out;
}
