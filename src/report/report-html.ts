/**
 * The HTML report (issue 12 item 5): one self-contained file (inline SVG figures and CSS, no
 * script, no network) for a single run's statistics file or for a sweep results directory.
 *
 * - A run (`--stats` JSON `{ scenario, seed, mode, stop, checks, stats }`): the run and its GPU
 *   configuration, the summary table (src/cli/summary.ts), the checks, the time-series figures
 *   (IPC, ALU/MEM load over time) and the per-SM breakdowns (warp states, scheduler idle-time
 *   states, stall kinds), and every statistic in a collapsed table.
 * - A sweep directory (`results.json`, helper G's format): provenance, the checks over the table,
 *   the figures listed there (their SVG files, inlined) and the table of points.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { InputError } from '../errors.ts';
import type { GpuConfig } from '../config/schema.ts';
import { summaryRows, type StatsObject } from './summary-rows.ts';
import { buildVegaLite, timeSeriesOf, vegaLiteToSvg, WARP_STATES, type FigureRow, type FigureSpec } from './figures.ts';

/** A `--stats` file as written by `warpstate run` (fields other helpers add are kept in `stats`). */
export interface StatsFile {
  scenario?: string;
  seed?: number;
  mode?: string;
  stop?: Record<string, unknown>;
  checks?: { passed: boolean; description: string; actual?: unknown }[];
  stats: StatsObject;
}

/** Escapes text for HTML element content and attribute values. */
export function esc(s: unknown): string {
  return String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

const CSS = `body{font-family:'DejaVu Sans',Arial,sans-serif;margin:2em auto;max-width:1100px;color:#222;padding:0 1em}
h1{font-size:1.5em}h2{font-size:1.2em;border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:1.6em}
table{border-collapse:collapse;font-size:.85em;margin:.5em 0}td,th{border:1px solid #ddd;padding:.2em .5em;text-align:left;vertical-align:top}
th{background:#f3f3f3}td.num{text-align:right;font-variant-numeric:tabular-nums}
.pass{color:#18794e;font-weight:bold}.fail{color:#c62828;font-weight:bold}
figure{margin:1em 0;page-break-inside:avoid}figcaption{font-size:.85em;color:#555;max-width:800px}
.note{font-size:.85em;color:#555}details{margin:.6em 0}summary{cursor:pointer}
.table-wrap{overflow-x:auto}`;

function page(title: string, body: string): string {
  return `<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title><style>${CSS}</style></head>\n<body>\n<h1>${esc(title)}</h1>\n${body}\n<p class="note">Written by warpstate report. Self-contained: no script, no network.</p>\n</body></html>\n`;
}

function table(head: readonly string[], rows: readonly (readonly unknown[])[], numeric?: (col: number) => boolean): string {
  const th = head.map((h) => `<th>${esc(h)}</th>`).join('');
  const tr = rows.map((r) => `<tr>${r.map((c, i) => `<td${numeric?.(i) || typeof c === 'number' ? ' class="num"' : ''}>${esc(c ?? '')}</td>`).join('')}</tr>`).join('\n');
  return `<div class="table-wrap"><table><thead><tr>${th}</tr></thead><tbody>\n${tr}\n</tbody></table></div>`;
}

/** Strips an XML prolog so an SVG file can be inlined in HTML. */
function inlineSvg(svg: string): string {
  return svg.replace(/^\s*<\?xml[^>]*\?>\s*/, '').replace(/<!DOCTYPE[^>]*>\s*/i, '');
}

function figure(svg: string, caption: string): string {
  return `<figure class="figure">${inlineSvg(svg)}<figcaption>${esc(caption)}</figcaption></figure>`;
}

function checksHtml(checks: readonly { passed: boolean; description: string; actual?: unknown; expr?: string; detail?: string }[]): string {
  if (checks.length === 0) return '<p class="note">No checks.</p>';
  return table(
    ['result', 'check', 'actual'],
    checks.map((c) => [c.passed ? 'PASS' : 'FAIL', c.description ?? c.expr, c.actual ?? c.detail ?? '']),
  ).replace(/<td>(PASS|FAIL)<\/td>/g, (_, r: string) => `<td class="${r === 'PASS' ? 'pass' : 'fail'}">${r}</td>`);
}

/** Flattens a config object to `a.b.c = value` rows. */
function flatten(obj: unknown, prefix = '', out: [string, string][] = []): [string, string][] {
  if (obj !== null && typeof obj === 'object' && !Array.isArray(obj)) {
    for (const [k, v] of Object.entries(obj)) flatten(v, prefix === '' ? k : `${prefix}.${k}`, out);
  } else out.push([prefix, JSON.stringify(obj)]);
  return out;
}

/** One row per SM with its ISSUE statistics by leaf name (`stall_fetch`, ...), for the breakdown figures. */
export function perSmRows(stats: StatsObject): FigureRow[] {
  const bySm = new Map<number, FigureRow>();
  for (const [k, v] of Object.entries(stats)) {
    const m = /^GPU\.SM\[(\d+)\]\.ISSUE\.([A-Za-z_]+)$/.exec(k);
    if (!m || typeof v !== 'number') continue;
    const i = Number(m[1]);
    if (!bySm.has(i)) bySm.set(i, { sm: `SM${i}` });
    bySm.get(i)![m[2]!] = v;
  }
  return [...bySm.keys()].sort((a, b) => a - b).map((i) => bySm.get(i)!);
}

/** The figures of a single run: those its statistics can feed, with captions. */
export function runFigureSpecs(stats: StatsObject): { spec: FigureSpec; caption: string }[] {
  const series = timeSeriesOf(stats);
  const figs: { spec: FigureSpec; caption: string }[] = [];
  if (series.ipc !== undefined) {
    figs.push({ spec: { kind: 'timeSeries', name: 'ipc-over-time', series: ['ipc'], title: 'IPC over time' }, caption: 'Warp instructions issued per core cycle in each sampling interval, all SMs together (ALU + MEM load / cycles per interval).' });
  }
  if (series.alu_load !== undefined && series.mem_load !== undefined) {
    figs.push({ spec: { kind: 'timeSeries', name: 'alu-mem-load', series: ['alu_load', 'mem_load'], stacked: true, title: 'ALU and MEM load over time (000 §3.5.4)' }, caption: 'Warp instructions issued to the ALUs and to memory per sampling interval, summed over SMs, stacked.' });
  }
  const states = WARP_STATES.map((w) => `warp_cycles_${w}`).filter((name) => series[name] !== undefined);
  if (states.length > 0) {
    figs.push({ spec: { kind: 'timeSeries', name: 'warp-states-over-time', series: states, stacked: true, title: 'Warp states over time (000 Figs. 5.x)', yTitle: 'warp-cycles / sampling interval' }, caption: 'Warp-cycles in each warp state per sampling interval, summed over SMs, stacked (the total is the resident warps times the interval).' });
  }
  const sms = perSmRows(stats);
  if (sms.length > 0) {
    figs.push({ spec: { kind: 'warpStates', name: 'warp-states', x: 'sm', title: 'Warp states per SM (000 §5.3)' }, caption: 'Share of resident warp-cycles in each warp state over the whole run, per SM.' });
    figs.push({ spec: { kind: 'schedulerStates', name: 'scheduler-states', x: 'sm', title: 'Scheduler idle-time states per SM (000 Fig. 3.8)' }, caption: 'Share of scheduler-cycles in each state: no instruction, not ready, pipeline stall, can issue.' });
    figs.push({ spec: { kind: 'stallBars', name: 'stall-breakdown', x: 'sm', title: 'Stall breakdown per SM (004 Fig. 3)' }, caption: 'Share of stalled scheduler-cycles by stall kind: memory conflict, memory dependency, fetch, other.' });
  }
  return figs;
}

/**
 * The HTML report of one run.
 * @param run the stats file's content
 * @param opts the GPU config (configuration table, occupancy, peak DRAM bandwidth) and the
 *   kernels and wall time, when known (`run --report`); a bare stats file has neither
 */
export async function runReportHtml(
  run: StatsFile,
  opts: { config?: GpuConfig; peakDramBytesPerSec?: number; kernels?: readonly string[]; wallSeconds?: number; source?: string } = {},
): Promise<string> {
  const stats = run.stats;
  const parts: string[] = [];
  const info: [string, unknown][] = [
    ['scenario', run.scenario ?? '(unknown)'],
    ['seed', run.seed ?? ''],
    ['mode', run.mode ?? ''],
    ['GPU', opts.config !== undefined ? `${opts.config.name}${opts.config.description ? ` - ${opts.config.description}` : ''}` : '(not recorded in the stats file; give --gpu)'],
    ['stop', run.stop !== undefined ? JSON.stringify(run.stop) : ''],
  ];
  for (const k of opts.kernels ?? []) info.push(['kernel', k]);
  if (opts.source !== undefined) info.push(['statistics file', opts.source]);
  parts.push('<h2>Run</h2>', table(['field', 'value'], info));
  const rows = summaryRows(
    { scenario: run.scenario ?? '', seed: run.seed ?? 0, kernels: opts.kernels ?? [], stats, checks: run.checks ?? [], ...(opts.config ? { config: opts.config } : {}), ...(opts.wallSeconds !== undefined ? { wallSeconds: opts.wallSeconds } : {}) },
    opts.peakDramBytesPerSec,
  );
  parts.push('<h2>Summary</h2>', table(['quantity', 'value'], rows.map((r) => [r.label, r.value])));
  parts.push('<h2>Checks</h2>', checksHtml(run.checks ?? []));
  parts.push('<h2>Figures</h2>');
  const figs = runFigureSpecs(stats);
  if (figs.length === 0) parts.push('<p class="note">This run recorded no per-SM issue statistics and no time series (time series need a sampleInterval).</p>');
  const series = timeSeriesOf(stats);
  const sms = perSmRows(stats);
  for (const f of figs) {
    const rowsFor = f.spec.kind === 'timeSeries' ? [{ id: run.scenario ?? 'run' }] : sms;
    parts.push(figure(await vegaLiteToSvg(buildVegaLite(f.spec, rowsFor, () => series)), f.caption));
  }
  if (opts.config !== undefined) {
    parts.push('<h2>Configuration</h2>', `<details><summary>GPU config ${esc(opts.config.name)} (${flatten(opts.config).length} fields)</summary>${table(['field', 'value'], flatten(opts.config))}</details>`);
  }
  const scalars = Object.entries(stats).filter(([, v]) => typeof v === 'number') as [string, number][];
  parts.push('<h2>All statistics</h2>', `<details><summary>${scalars.length} statistics</summary>${table(['name', 'value'], scalars)}</details>`);
  return page(`warpstate report: ${run.scenario ?? 'run'}`, parts.join('\n'));
}

/** The sweep results file (helper G's `results.json`), the parts the report reads. */
interface SweepResults {
  sweep?: string;
  warpstate?: { version?: string; commit?: string };
  columns?: string[];
  points: {
    id: string;
    base?: string;
    overrides?: Record<string, string>;
    seed?: number;
    status?: string;
    exitCode?: number;
    wallSeconds?: number;
    stderrTail?: string;
    stats?: Record<string, number>;
    derived?: Record<string, number | null>;
  }[];
  checks?: { expr: string; passed: boolean; detail: string }[];
  figures?: { name: string; svg: string; png?: string }[];
}

/**
 * The HTML report of a sweep directory: provenance, checks, the figures listed in
 * `results.json` (SVG files inlined) and the table of points.
 * @throws InputError when `results.json` is missing or malformed
 */
export function sweepReportHtml(dir: string): string {
  const file = join(dir, 'results.json');
  if (!existsSync(file)) throw new InputError({ file: dir }, 'not a sweep results directory: no results.json (run warpstate sweep first)');
  let r: SweepResults;
  try {
    r = JSON.parse(readFileSync(file, 'utf8')) as SweepResults;
  } catch (e) {
    throw new InputError({ file }, `not valid JSON: ${(e as Error).message}`);
  }
  if (!Array.isArray(r.points)) throw new InputError({ file }, 'must hold a points array', 'points');
  const parts: string[] = [];
  const ok = r.points.filter((p) => p.status === 'ok').length;
  parts.push(
    '<h2>Sweep</h2>',
    table(['field', 'value'], [
      ['sweep file', r.sweep ?? ''],
      ['warpstate', `${r.warpstate?.version ?? ''} (commit ${r.warpstate?.commit ?? 'unknown'})`],
      ['points', `${r.points.length} (${ok} ok, ${r.points.length - ok} not ok)`],
      ['results', file],
    ]),
  );
  parts.push('<h2>Checks</h2>', checksHtml((r.checks ?? []).map((c) => ({ passed: c.passed, description: c.expr, detail: c.detail }))));
  parts.push('<h2>Figures</h2>');
  const figs = r.figures ?? [];
  if (figs.length === 0) parts.push('<p class="note">The sweep declares no figures.</p>');
  for (const f of figs) {
    const path = isAbsolute(f.svg) ? f.svg : join(dir, f.svg);
    if (!existsSync(path)) {
      parts.push(`<p class="note">Figure ${esc(f.name)}: ${esc(path)} is missing.</p>`);
      continue;
    }
    parts.push(figure(readFileSync(path, 'utf8'), f.name));
  }
  const overrideKeys = [...new Set(r.points.flatMap((p) => Object.keys(p.overrides ?? {})))];
  // results.json's `columns` also lists id, base, axes, seed and status: keep the collected ones, in its order.
  const collected = new Set(r.points.flatMap((p) => Object.keys(p.stats ?? {})));
  const statKeys = [...(r.columns ?? []).filter((k) => collected.has(k)), ...[...collected].filter((k) => !(r.columns ?? []).includes(k))];
  const derivedKeys = [...new Set(r.points.flatMap((p) => Object.keys(p.derived ?? {})))];
  const head = ['id', 'base', ...overrideKeys, 'seed', 'status', 'wall (s)', ...statKeys.filter((k) => !derivedKeys.includes(k)), ...derivedKeys];
  const rows = r.points.map((p) => [
    p.id,
    p.base ?? '',
    ...overrideKeys.map((k) => p.overrides?.[k] ?? ''),
    p.seed ?? '',
    p.status ?? '',
    p.wallSeconds !== undefined ? Number(p.wallSeconds.toFixed(2)) : '',
    ...statKeys.filter((k) => !derivedKeys.includes(k)).map((k) => p.stats?.[k] ?? ''),
    ...derivedKeys.map((k) => {
      const v = p.derived?.[k];
      return typeof v === 'number' ? Number(v.toPrecision(6)) : '';
    }),
  ]);
  parts.push('<h2>Points</h2>', table(head, rows));
  const failed = r.points.filter((p) => p.status !== 'ok' && p.stderrTail);
  if (failed.length > 0) {
    parts.push('<h2>Failed points</h2>', ...failed.map((p) => `<details><summary>${esc(p.id)}: ${esc(p.status)} (exit ${esc(p.exitCode ?? '')})</summary><pre>${esc(p.stderrTail)}</pre></details>`));
  }
  return page(`warpstate sweep report: ${r.sweep ?? dir}`, parts.join('\n'));
}

/**
 * Reads a stats file.
 * @throws InputError naming the file when it is missing, not JSON or has no `stats` object
 */
export function readStatsFile(path: string): StatsFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new InputError({ file: path }, `cannot read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new InputError({ file: path }, `not valid JSON: ${(e as Error).message}`);
  }
  if (v === null || typeof v !== 'object' || typeof (v as StatsFile).stats !== 'object' || (v as StatsFile).stats === null) {
    throw new InputError({ file: path }, 'not a warpstate statistics file (run --stats): no stats object', 'stats');
  }
  return v as StatsFile;
}

/** True when `path` is a directory (a sweep results directory). */
export function isDirectory(path: string): boolean {
  return existsSync(path) && statSync(path).isDirectory();
}

/**
 * `warpstate report <stats.json | sweep-dir> -o report.html`: writes the report of a run's
 * statistics file or of a sweep results directory.
 * @param gpu for a stats file: the preset or config file the run used (adds the configuration,
 *   achieved occupancy and peak DRAM bandwidth, which the stats file does not record)
 * @returns a one-line description of what was written
 * @throws InputError for a missing or malformed input, or an output that cannot be written
 */
export async function writeReport(target: string, output: string, gpu?: string): Promise<string> {
  const { writeOutputFile } = await import('../trace/sinks.ts');
  if (isDirectory(target)) {
    writeOutputFile(output, sweepReportHtml(target));
    return `wrote the report of sweep ${target} to ${output}`;
  }
  const run = readStatsFile(target);
  let config: GpuConfig | undefined;
  let peak: number | undefined;
  if (gpu !== undefined) {
    const [{ resolveGpuConfig }, { peakDramBandwidthBytesPerSec }] = await Promise.all([import('../config/index.ts'), import('../config/schema.ts')]);
    config = resolveGpuConfig(gpu).config;
    peak = peakDramBandwidthBytesPerSec(config);
  }
  writeOutputFile(output, await runReportHtml(run, { ...(config ? { config } : {}), ...(peak !== undefined ? { peakDramBytesPerSec: peak } : {}), source: target }));
  return `wrote the report of ${target} to ${output}`;
}
