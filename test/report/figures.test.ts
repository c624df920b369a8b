/**
 * Figures (issue 12 item 4): Vega-Lite specs built from small hand-made tables, rendered to SVG
 * and PNG without a browser.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/errors.ts';
import { buildVegaLite, figureSpecSchema, renderFigure, timeSeriesOf, type FigureSpec } from '../../src/report/figures.ts';

type Vl = { data: { values: Record<string, unknown>[] }; mark: { type: string }; encoding: Record<string, { field?: string; type?: string; title?: string; stack?: string; axis?: { format?: string } }> };

// Two kernels under two policies; cycles, lower is better.
const table = [
  { id: 'p1', kernel: 'k1', policy: 'lrr', gpu_sim_cycle: 100 },
  { id: 'p2', kernel: 'k1', policy: 'gto', gpu_sim_cycle: 80 },
  { id: 'p3', kernel: 'k2', policy: 'lrr', gpu_sim_cycle: 200 },
  { id: 'p4', kernel: 'k2', policy: 'gto', gpu_sim_cycle: 250 },
];
const bars: FigureSpec = { kind: 'normalisedBars', name: 'speedup', x: 'kernel', color: 'policy', y: 'gpu_sim_cycle', baseline: { policy: 'lrr' }, geomean: true, invert: true };

describe('figure specs', () => {
  it('normalisedBars: speed-up = baseline cycles / cycles per kernel, plus the geometric mean per policy', () => {
    const vl = buildVegaLite(bars, table) as Vl;
    const v = (x: string, c: string) => vl.data.values.find((d) => d.x === x && d.color === c)?.value;
    expect(v('k1', 'lrr')).toBe(1);
    expect(v('k1', 'gto')).toBe(100 / 80); // 1.25
    expect(v('k2', 'gto')).toBe(200 / 250); // 0.8
    expect(v('geomean', 'gto')).toBeCloseTo(Math.sqrt(1.25 * 0.8), 12); // 1
    expect(v('geomean', 'lrr')).toBe(1);
    expect(vl.data.values).toHaveLength(6);
    expect(vl.mark.type).toBe('bar');
    expect(vl.encoding.x!.field).toBe('x');
    expect(vl.encoding.xOffset!.field).toBe('color');
    expect(vl.encoding.y!.title).toBe('speed-up over lrr (×)');
  });

  it('normalisedBars without invert: y / baseline (higher is better)', () => {
    const vl = buildVegaLite({ ...bars, invert: false, geomean: false }, table) as Vl;
    expect(vl.data.values.find((d) => d.x === 'k2' && d.color === 'gto')!.value).toBe(250 / 200);
    expect(vl.data.values).toHaveLength(4);
  });

  it('line: a numeric swept parameter is a quantitative x; axis titles carry the units', () => {
    const vl = buildVegaLite({ kind: 'line', name: 'mshr', x: 'l1d.mshrEntries', y: 'gpu_sim_cycle' }, [
      { 'l1d.mshrEntries': 8, gpu_sim_cycle: 300 },
      { 'l1d.mshrEntries': 32, gpu_sim_cycle: 200 },
    ]) as Vl;
    expect(vl.encoding.x!.type).toBe('quantitative');
    expect(vl.encoding.y!.title).toBe('gpu_sim_cycle (cycles)');
    expect(vl.data.values).toEqual([{ x: 8, y: 300 }, { x: 32, y: 200 }]);
  });

  it('timeSeries: IPC = (ALU + MEM load over the SMs) / core cycles per interval; time in µs', () => {
    // 2 SMs, 1000 ps per core cycle (2000 cycles in 2 us), 100 ns interval = 100 cycles.
    const series = (values: number[]) => ({ times: [100_000, 200_000], values, intervalPs: 100_000, samplesPerPoint: 1, samples: 2 });
    const stats = {
      gpu_sim_cycle: 2000,
      'engine.sim_time_ps': 2_000_000,
      'GPU.SM[0].ISSUE.alu_load': series([10, 20]),
      'GPU.SM[0].ISSUE.mem_load': series([5, 0]),
      'GPU.SM[1].ISSUE.alu_load': series([30, 40]),
      'GPU.SM[1].ISSUE.mem_load': series([5, 40]),
    };
    const ts = timeSeriesOf(stats);
    expect(ts.alu_load!.values).toEqual([40, 60]);
    expect(ts.mem_load!.values).toEqual([10, 40]);
    expect(ts.ipc!.values).toEqual([0.5, 1]); // 50 / 100, 100 / 100
    const vl = buildVegaLite({ kind: 'timeSeries', name: 'ipc', series: ['ipc'] }, [{ id: 'run' }], () => ts) as Vl;
    expect(vl.data.values).toEqual([{ t: 0.1, value: 0.5, series: 'ipc' }, { t: 0.2, value: 1, series: 'ipc' }]);
    expect(vl.encoding.x!.title).toBe('simulated time (µs)');
    expect(vl.encoding.y!.title).toBe('IPC (warp instructions / core cycle)');
    // A glob sums the series it matches.
    const glob = buildVegaLite({ kind: 'timeSeries', name: 'alu', series: ['GPU.SM[*].ISSUE.alu_load'], stacked: true }, [{ id: 'run' }], () => ts) as Vl;
    expect(glob.data.values.map((d) => d.value)).toEqual([40, 60]);
    expect(glob.mark.type).toBe('area');
  });

  it('timeSeries over sweep points: one line per row, labelled by the color column', () => {
    const perRow: Record<string, { times: number[]; values: number[] }> = { lrr: { times: [0, 1e6], values: [1, 2] }, gto: { times: [0, 1e6], values: [3, 4] } };
    const rows = [{ id: 'p1', policy: 'lrr' }, { id: 'p2', policy: 'gto' }];
    const vl = buildVegaLite({ kind: 'timeSeries', name: 'ipc', series: ['ipc'], color: 'policy' }, rows, (r) => ({ ipc: perRow[String(r.policy)]! })) as Vl;
    expect(vl.data.values).toEqual([
      { t: 0, value: 1, series: 'lrr' },
      { t: 1, value: 2, series: 'lrr' },
      { t: 0, value: 3, series: 'gto' },
      { t: 1, value: 4, series: 'gto' },
    ]);
    expect(vl.encoding.color!.title).toBe('policy');
  });

  it('stallBars: per-SM stall_<kind> columns are summed per x and stacked to shares', () => {
    const rows = [{ kernel: 'k1', 'GPU.SM[0].ISSUE.stall_fetch': 3, 'GPU.SM[1].ISSUE.stall_fetch': 1, 'GPU.SM[0].ISSUE.stall_other': 4, 'GPU.SM[0].ISSUE.stall_none': 99 }];
    const vl = buildVegaLite({ kind: 'stallBars', name: 'stalls', x: 'kernel' }, rows) as Vl;
    expect(vl.data.values.map((d) => [d.part, d.value])).toEqual([['fetch', 4], ['other', 4]]);
    expect(vl.encoding.y!.stack).toBe('normalize');
    expect(vl.encoding.y!.axis!.format).toBe('%');
    expect(vl.encoding.y!.title).toContain('(%)');
  });

  it('bad specs: unknown fields refused by the schema; a missing column names figure and field', () => {
    expect(figureSpecSchema.safeParse({ ...bars, colour: 'x' }).success).toBe(false);
    expect(figureSpecSchema.safeParse(bars).success).toBe(true);
    expect(() => buildVegaLite({ ...bars, y: 'ipc' }, table)).toThrow(InputError);
    expect(() => buildVegaLite({ ...bars, y: 'ipc' }, table)).toThrow(/^figure speedup: y: column 'ipc' is not in the results table/);
    expect(() => buildVegaLite({ ...bars, baseline: { policy: 'pats' } }, table)).toThrow(/baseline/);
  });
});

describe('rendering', () => {
  it('SVG has one bar mark per data row; PNG has the PNG signature and twice the SVG size', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'warpstate-fig-'));
    const r = await renderFigure(bars, table, dir);
    const svg = readFileSync(r.svg, 'utf8');
    expect(svg.startsWith('<svg')).toBe(true);
    // 4 points + 2 geomean bars.
    expect(svg.match(/aria-roledescription="bar"/g)).toHaveLength(6);
    expect(svg).toContain('speed-up over lrr (×)');
    const png = readFileSync(r.png);
    expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    const [w, h] = [Number(/width="(\d+)"/.exec(svg)![1]), Number(/height="(\d+)"/.exec(svg)![1])];
    expect(png.readUInt32BE(16)).toBe(2 * w); // IHDR width, rendered at 2x
    expect(png.readUInt32BE(20)).toBe(2 * h);
    expect(png.length).toBeGreaterThan(5_000);
  });

  it('line SVG has one point symbol per row', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'warpstate-fig-'));
    const rows = [8, 16, 32].map((m, i) => ({ mshr: m, gpu_sim_cycle: 300 - 50 * i }));
    const r = await renderFigure({ kind: 'line', name: 'line', x: 'mshr', y: 'gpu_sim_cycle' }, rows, dir);
    const svg = readFileSync(r.svg, 'utf8');
    expect(svg).toContain('mark-line role-mark');
    expect(svg.match(/aria-roledescription="point"/g)).toHaveLength(3);
  });
});
