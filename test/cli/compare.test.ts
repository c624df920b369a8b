/**
 * `warpstate compare` (issue 10 item 3) on the real vectoradd-100-32 trace and its Accel-Sim log.
 * The Accel-Sim side is asserted exactly (read off the log); warpstate's side is asserted equal to
 * the statistics file of the same run, never to a cycle count (the timing model changes).
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';

const TRACE = 'data/accelsim-traces/vectoradd-100-32';
const GPU = 'data/accelsim-traces/gtx1080-config/gpgpusim.config';
const LOG = 'data/accelsim-reference/vectoradd-100-32.accelsim.log';

interface Row {
  stat: string;
  accelsim: number | null;
  warpstate: number | null;
  differencePct: number | null;
  warpstateSource: string | null;
}

/**
 * A warpstate side recomputed from the stats file: `a + b - c` over the named statistics
 * (`[*]`: the sum over every instance).
 */
function fromStats(stats: Record<string, unknown>, source: string): number {
  let total = 0;
  for (const term of source.match(/(^|[+-] )\S+/g)!) {
    const sign = term.startsWith('- ') ? -1 : 1;
    const name = term.replace(/^[+-] /, '');
    const re = new RegExp('^' + name.replace(/[.[\]]/g, (c) => `\\${c}`).replace(/\\\[\*\\\]/g, '\\[\\d+\\]') + '$');
    const hits = Object.entries(stats).filter(([k, v]) => re.test(k) && typeof v === 'number');
    expect(hits.length, name).toBeGreaterThan(0);
    total += sign * hits.reduce((s, [, v]) => s + (v as number), 0);
  }
  return total;
}

describe('warpstate compare', () => {
  const dir = mkdtempSync(join(tmpdir(), 'warpstate-compare-'));
  const statsFile = join(dir, 'stats.json');
  let stats: Record<string, unknown>;

  beforeAll(async () => {
    const r = await runCli(['run', '--accelsim-trace', TRACE, '--gpu', GPU, '--stats', statsFile, '-q']);
    expect(r.code).toBe(0);
    stats = JSON.parse(readFileSync(statsFile, 'utf8')).stats;
  });

  it('runs the trace and prints the table, Accel-Sim gpu_sim_cycle 1282 beside warpstate\'s', async () => {
    const r = await runCli(['compare', TRACE, '--gpu', GPU, '--accelsim-log', LOG]);
    expect(r.code).toBe(0);
    const lines = r.out.split('\n');
    expect(lines[0]).toBe(`# ${LOG} (Accel-Sim) vs ${TRACE} on ${GPU} (warpstate)`);
    expect(lines[1]).toBe('# Accel-Sim kernel block 1 of 1 (_Z6vecAddIfEvPT_S1_S1_i, kernel_launch_uid 1); warpstate kernel[0]');
    expect(r.out).toMatch(/\nstatistic\s+Accel-Sim\s+warpstate\s+difference\s+note\n/);
    const cycles = lines.find((l) => l.startsWith('gpu_sim_cycle '))!.split(/\s+/);
    expect(cycles[1]).toBe('1282');
    expect(Number(cycles[2])).toBe(stats['kernel[0].gpu_sim_cycle']);
    const d = (100 * ((stats['kernel[0].gpu_sim_cycle'] as number) - 1282)) / 1282;
    expect(cycles[3]).toBe(`${d > 0 ? '+' : ''}${d.toFixed(1)}%`);
    expect(lines.find((l) => l.startsWith('gpu_tot_sim_cycle '))!.split(/\s+/).slice(1, 3)).toEqual(['1282', String(stats.gpu_sim_cycle)]);
    // 344 warp instructions in both: the trace's count.
    expect(lines.find((l) => l.startsWith('gpgpu_n_tot_w_icount '))!.split(/\s+/).slice(1, 4)).toEqual(['344', '344', '0.0%']);
  });

  it('--json: the rows with both sides; warpstate\'s equal the statistics file of the same run', async () => {
    const r = await runCli(['compare', TRACE, '--gpu', GPU, '--accelsim-log', LOG, '--json']);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.out) as { accelsimLog: string; trace: string; gpu: string; kernel: unknown; warpstateKernel: number; rows: Row[]; warnings: string[] };
    expect(doc.accelsimLog).toBe(LOG);
    expect(doc.trace).toBe(TRACE);
    expect(doc.gpu).toBe(GPU);
    expect(doc.kernel).toEqual({ index: 1, name: '_Z6vecAddIfEvPT_S1_S1_i', launchUid: 1, blocks: 1, last: true });
    expect(doc.warpstateKernel).toBe(0);
    expect(doc.warnings).toEqual([]);
    const row = (s: string) => doc.rows.find((x) => x.stat === s)!;
    // Accel-Sim's side, read off the log.
    expect(row('gpu_sim_cycle').accelsim).toBe(1282);
    expect(row('gpu_sim_insn').accelsim).toBe(10516);
    expect(row('L1I_total_cache_accesses').accelsim).toBe(188);
    expect(row('L2_total_cache_accesses').accelsim).toBe(14);
    expect(row('L2 data accesses').accelsim).toBe(12);
    expect(row('total dram reads').accelsim).toBe(56);
    expect(row('dram bytes').accelsim).toBe((56 + 13) * 32);
    expect(row('L2_cache_stats_breakdown[GLOBAL_ACC_W][MISS]')).toMatchObject({ accelsim: 4, warpstate: null, differencePct: null });
    // warpstate's side: exactly the statistics file's values.
    for (const x of doc.rows) {
      if (x.warpstateSource === null) continue;
      expect(x.warpstate, x.stat).toBe(fromStats(stats, x.warpstateSource));
      if (x.accelsim !== null && x.accelsim !== 0) expect(x.differencePct, x.stat).toBeCloseTo((100 * (x.warpstate! - x.accelsim)) / x.accelsim, 9);
    }
    expect(row('gpu_sim_cycle').warpstateSource).toBe('kernel[0].gpu_sim_cycle');
    expect(row('gpgpu_n_tot_w_icount').warpstate).toBe(344);
  });

  it('--stats compares a statistics file without running, with the same rows', async () => {
    const [a, b] = await Promise.all([
      runCli(['compare', '--stats', statsFile, '--accelsim-log', LOG, '--json']),
      runCli(['compare', '--stats', statsFile, '--accelsim-log', LOG]),
    ]);
    expect(a.code).toBe(0);
    const doc = JSON.parse(a.out) as { statsFile: string; rows: Row[] };
    expect(doc.statsFile).toBe(statsFile);
    for (const x of doc.rows) if (x.warpstateSource !== null) expect(x.warpstate, x.stat).toBe(fromStats(stats, x.warpstateSource));
    expect(b.code).toBe(0);
    expect(b.out.split('\n')[0]).toBe(`# ${LOG} (Accel-Sim) vs ${statsFile} (warpstate)`);
  });

  it('--kernel picks a block of a multi-kernel log; partial statistics are flagged', async () => {
    const f = join(dir, 'two.json');
    writeFileSync(f, JSON.stringify({ stop: { reason: 'until', partial: true }, stats: { gpu_sim_cycle: 9, 'kernel[0].gpu_sim_cycle': 7, 'kernel[1].gpu_sim_cycle': 2 } }));
    const r = await runCli(['compare', '--stats', f, '--accelsim-log', 'data/accelsim-reference/k-reduce-smem.accelsim.log', '--kernel', '1', '--json']);
    expect(r.code).toBe(0);
    expect(r.err).toContain(`${f} holds partial statistics`);
    const doc = JSON.parse(r.out) as { rows: Row[] };
    expect(doc.rows.find((x) => x.stat === 'gpu_sim_cycle')).toMatchObject({ accelsim: 3815, warpstate: 7 });
    expect(doc.rows.find((x) => x.stat === 'gpu_tot_sim_cycle')).toMatchObject({ accelsim: 3815, warpstate: null });
  });

  it('bad input exits 2 with the file, line or option named', async () => {
    const bad = join(dir, 'bad.log');
    writeFileSync(bad, 'this is not a log\n');
    const notJson = join(dir, 'stats.txt');
    writeFileSync(notJson, 'gpu_sim_cycle = 5\n');
    const cases: [string[], string][] = [
      [['compare', '--stats', statsFile, '--accelsim-log', bad], `${bad}:1: not an Accel-Sim/GPGPU-Sim log`],
      [['compare', '--stats', statsFile, '--accelsim-log', LOG, '--kernel', '2'], '--kernel: '],
      [['compare', '--stats', statsFile, '--accelsim-log', LOG, '--kernel', '0'], "--kernel: must be a positive integer, got '0'"],
      [['compare', '--stats', notJson, '--accelsim-log', LOG], `${notJson}: not a JSON statistics file`],
      [['compare', '--stats', join(dir, 'none.json'), '--accelsim-log', LOG], 'cannot read the warpstate statistics file: ENOENT'],
      [['compare', '--accelsim-log', LOG], 'give the Accel-Sim trace directory to run'],
      [['compare', TRACE, '--accelsim-log', LOG], '--gpu: give the GPU the Accel-Sim log was made on'],
      [['compare', TRACE, '--stats', statsFile, '--accelsim-log', LOG], 'not both'],
      [['compare', '--stats', statsFile], "required option '--accelsim-log <file>' not specified"],
    ];
    for (const [args, msg] of cases) {
      const r = await runCli(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.err, args.join(' ')).toContain(msg);
      expect(r.err).not.toMatch(/\n\s+at /);
    }
  });
});
