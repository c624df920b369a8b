/**
 * `--series <file.csv>` streams every time-series sample at full resolution, whatever the
 * stats file keeps in memory (`sampleLimit`), for timing, network and Accel-Sim trace runs.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';

const dir = () => mkdtempSync(join(tmpdir(), 'warpstate-series-'));

function readCsv(path: string): { header: string[]; rows: number[][] } {
  const lines = readFileSync(path, 'utf8').trimEnd().split('\n');
  return { header: lines[0]!.split(','), rows: lines.slice(1).map((l) => l.split(',').map(Number)) };
}

describe('--series', () => {
  it('timing run: one row per sampling instant, every raw value, while the stats file keeps 4 points', async () => {
    const d = dir();
    const r = await runCli(['run', 'scenarios/k-vecadd.yaml', '--set', 'mode=timing', '--set', 'sampleLimit=4', '--sample-interval', '100ns', '--series', join(d, 's.csv'), '--stats', join(d, 'stats.json'), '-q']);
    expect(r.code).toBe(0);
    const { header, rows } = readCsv(join(d, 's.csv'));
    expect(header[0]).toBe('time_ps');
    expect(header).toContain('GPU.SM[0].ISSUE.alu_load');
    const stats = JSON.parse(readFileSync(join(d, 'stats.json'), 'utf8')).stats;
    const kept = stats['GPU.SM[0].ISSUE.alu_load'];
    // Every 100 ns = 100,000 ps, from the first interval on.
    expect(rows.length).toBe(kept.samples);
    rows.forEach((row, i) => expect(row[0]).toBe((i + 1) * 100_000));
    expect(kept.times.length).toBeLessThanOrEqual(4);
    expect(rows.length).toBeGreaterThan(4);
    // The per-interval counts of all SMs add up to the warp instructions issued before the last sample.
    const loads = header.map((h, i) => (h.endsWith('_load') ? i : -1)).filter((i) => i >= 0);
    const sampled = rows.reduce((a, row) => a + loads.reduce((b, i) => b + row[i]!, 0), 0);
    expect(sampled).toBeGreaterThan(0.9 * stats.gpu_tot_warp_insts);
    expect(sampled).toBeLessThanOrEqual(stats.gpu_tot_warp_insts);
    // The down-sampled points are means of the raw rows they merge: every point but the last
    // holds samplesPerPoint rows, the last the rest (TimeSeriesJson), so the weighted sum of the
    // points is the sum of the raw column.
    const col = header.indexOf('GPU.SM[0].ISSUE.alu_load');
    const rawSum = rows.reduce((a, row) => a + row[col]!, 0);
    const n = kept.values.length;
    const lastCount = kept.samples - (n - 1) * kept.samplesPerPoint;
    expect(lastCount).toBeGreaterThanOrEqual(1);
    expect(lastCount).toBeLessThanOrEqual(kept.samplesPerPoint);
    const keptSum = kept.values.reduce((a: number, v: number, i: number) => a + v * (i === n - 1 ? lastCount : kept.samplesPerPoint), 0);
    expect(keptSum).toBeCloseTo(rawSum, 6);
  });

  it('network scenario: the occupancy of each memory, every 100 ns', async () => {
    const d = dir();
    const r = await runCli(['run', 'scenarios/memory-network.yaml', '--sample-interval', '100ns', '--series', join(d, 's.csv'), '-q']);
    expect(r.code).toBe(0);
    const { header, rows } = readCsv(join(d, 's.csv'));
    expect(header).toEqual(['time_ps', ...Array.from({ length: 8 }, (_, i) => `MEM[${i}].occupancy`)]);
    expect(rows.length).toBeGreaterThan(1);
    rows.forEach((row, i) => expect(row[0]).toBe((i + 1) * 100_000));
  });

  it('Accel-Sim trace run samples with --sample-interval', async () => {
    const d = dir();
    const r = await runCli(['run', '--accelsim-trace', 'data/accelsim-traces/vectoradd-100-32', '--sample-interval', '200ns', '--series', join(d, 's.csv'), '-q']);
    expect(r.code).toBe(0);
    const { header, rows } = readCsv(join(d, 's.csv'));
    expect(header).toContain('GPU.SM[0].ISSUE.mem_load');
    expect(rows.length).toBeGreaterThan(0);
  });

  it('is refused without a sampling interval and on a functional run', async () => {
    const none = await runCli(['run', 'scenarios/k-vecadd.yaml', '--set', 'mode=timing', '--series', join(dir(), 's.csv'), '-q']);
    expect(none.code).toBe(2);
    expect(none.err).toBe("error: --series: needs a sampling interval: give --sample-interval <time> or the scenario's sampleInterval\n");
    const functional = await runCli(['run', 'scenarios/k-vecadd.yaml', '--sample-interval', '1us', '--series', join(dir(), 's.csv'), '-q']);
    expect(functional.code).toBe(2);
    expect(functional.err).toContain('--series: needs a timing run');
  });

  it('a full disk is reported once with the path, after the statistics are written', async () => {
    const d = dir();
    const r = await runCli(['run', 'scenarios/k-vecadd.yaml', '--set', 'mode=timing', '--sample-interval', '10ns', '--series', '/dev/full', '--stats', join(d, 'stats.json'), '-q']);
    expect(r.code).toBe(2);
    expect(r.err.match(/\/dev\/full: cannot write output file \(ENOSPC/g)).toHaveLength(1);
    expect(JSON.parse(readFileSync(join(d, 'stats.json'), 'utf8')).stats.gpu_sim_cycle).toBeGreaterThan(0);
  });
});
