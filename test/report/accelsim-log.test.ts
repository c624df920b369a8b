/**
 * The Accel-Sim / GPGPU-Sim log parser (issue 10 item 3) on the real logs in
 * data/accelsim-reference/ (Accel-Sim 73f9fac + GPGPU-Sim 4.2, GTX 1080 config), and its errors
 * on files that are not such logs. Expected values are read off the log files by eye.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/errors.ts';
import { accelSimOption, accelSimOptionNumber, parseAccelSimLog, readAccelSimLog } from '../../src/report/accelsim-log.ts';

const R = 'data/accelsim-reference';

function thrown(f: () => unknown): InputError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(InputError);
    return e as InputError;
  }
  throw new Error('expected an InputError');
}

describe('parseAccelSimLog on real Accel-Sim logs', () => {
  it('k-vecadd: one kernel block with the statistics gpu_print_stat and the cache printers write', () => {
    const log = readAccelSimLog(`${R}/k-vecadd.accelsim.log`);
    expect(log.kernels).toHaveLength(1);
    const k = log.kernels[0]!;
    expect(k.name).toBe('vecadd');
    expect(k.launchUid).toBe(1);
    expect(k.streamId).toBe(0);
    expect(k.stats.get('gpu_sim_cycle')).toBe(1697);
    expect(k.stats.get('gpu_tot_sim_cycle')).toBe(1697);
    expect(k.stats.get('gpgpu_n_tot_w_icount')).toBe(2783);
    expect(k.stats.get('L2_cache_stats_breakdown[GLOBAL_ACC_R][MISS]')).toBe(250);
  });

  it('the option dump: -name value pairs, values with blanks, and the DRAM timing block', () => {
    const log = readAccelSimLog(`${R}/k-vecadd.accelsim.log`);
    expect(log.options.get('-gpgpu_n_clusters')).toBe('20');
    expect(accelSimOption(log, 'gpgpu_n_clusters')).toBe('20');
    expect(accelSimOptionNumber(log, '-gpgpu_n_clusters')).toBe(20);
    expect(accelSimOption(log, 'gpgpu_dram_timing_opt')).toBe('nbk=16:CCD=2:RRD=6:RCD=12:RAS=28:RP=12:RC=40: CL=12:WL=4:CDLR=5:WR=12:nbkgrp=1:CCDL=0:RTPL=0');
    expect(accelSimOption(log, 'inter_config_file')).toBe('config_fermi_islip.icnt');
    // `DRAM Timing Options:` lines carry no dash.
    expect(log.options.get('nbk')).toBe('16');
    expect(log.options.get('CL')).toBe('12');
    expect(accelSimOption(log, 'no_such_option')).toBeUndefined();
    // The kernel header (`-grid dim = (1,1,1)`) is not an option.
    expect(log.options.has('-grid')).toBe(false);
  });

  it('vectoradd-100-32: labelled per-instance lines, per-partition DRAM counters, nan, the DRAM totals', () => {
    const k = readAccelSimLog(`${R}/vectoradd-100-32.accelsim.log`).kernels[0]!;
    expect(k.name).toBe('_Z6vecAddIfEvPT_S1_S1_i');
    expect(k.stats.get('gpu_sim_cycle')).toBe(1282);
    expect(k.stats.get('gpu_sim_insn')).toBe(10516);
    expect(k.stats.get('gpu_ipc')).toBeCloseTo(8.2028, 10);
    expect(k.stats.get('L2_BW')).toBeCloseTo(0.5616, 10);
    expect(Number.isNaN(k.stats.get('gpu_occupancy'))).toBe(true);
    expect(k.stats.get('L1I_total_cache_accesses')).toBe(188);
    expect(k.stats.get('Total_core_cache_stats_breakdown[INST_ACC_R][MSHR_HIT]')).toBe(34);
    expect(k.stats.get('L1D_cache_core[3].Access')).toBe(0);
    expect(k.stats.get('L2_cache_bank[0].Access')).toBe(2);
    expect(k.stats.get('L2_total_cache_accesses')).toBe(14);
    expect(k.stats.get('L2_cache_stats_breakdown[INST_ACC_R][TOTAL_ACCESS]')).toBe(2);
    // TOTAL_ACCESS is printed only for access types with accesses.
    expect(k.stats.has('L2_cache_stats_breakdown[LOCAL_ACC_R][TOTAL_ACCESS]')).toBe(false);
    expect(k.stats.get('total dram reads')).toBe(56);
    expect(k.stats.get('total dram writes')).toBe(13);
    expect(k.stats.get('DRAM[0].n_rd')).toBe(16);
    expect(k.stats.get('DRAM[4].n_rd_L2_A')).toBe(5);
    expect(k.stats.get('DRAM[0].Row_Buffer_Locality')).toBe(0);
    expect(k.stats.get('gpgpu_n_mem_read_global')).toBe(8);
    expect(k.stats.get('traffic_breakdown_coretomem[GLOBAL_ACC_W]')).toBe(448);
    // Wall-clock lines are not statistics.
    expect(k.stats.has('gpgpu_simulation_time')).toBe(false);
  });

  it('k-reduce-smem: two blocks; gpu_sim_* per kernel, gpu_tot_* and the counters cumulative', () => {
    const log = readAccelSimLog(`${R}/k-reduce-smem.accelsim.log`);
    expect(log.kernels.map((k) => [k.index, k.launchUid, k.name])).toEqual([
      [1, 1, 'reduce_smem'],
      [2, 2, 'reduce_smem'],
    ]);
    const [a, b] = log.kernels as [NonNullable<(typeof log.kernels)[0]>, NonNullable<(typeof log.kernels)[0]>];
    expect(a.stats.get('gpu_sim_cycle')).toBe(3815);
    expect(b.stats.get('gpu_sim_cycle')).toBe(1671);
    // gpgpu_sim::update_stats folds each kernel's cycles into the total: 3815 + 1671.
    expect(b.stats.get('gpu_tot_sim_cycle')).toBe(3815 + 1671);
    expect(b.stats.get('gpu_tot_sim_insn')).toBe(a.stats.get('gpu_sim_insn')! + b.stats.get('gpu_sim_insn')!);
    // Shader counters are never cleared: the last block's count is the trace's 7424 warp instructions.
    expect(a.stats.get('gpgpu_n_tot_w_icount')).toBe(7327);
    expect(b.stats.get('gpgpu_n_tot_w_icount')).toBe(7424);
    expect(a.line).toBeLessThan(b.line);
  });

  it('every reference log parses, with gpu_tot_sim_cycle the sum of its blocks\' gpu_sim_cycle', async () => {
    const { readdirSync } = await import('node:fs');
    const files = readdirSync(R).filter((f) => f.endsWith('.accelsim.log'));
    expect(files.length).toBe(13);
    for (const f of files) {
      const log = readAccelSimLog(`${R}/${f}`);
      const sum = log.kernels.reduce((s, k) => s + k.stats.get('gpu_sim_cycle')!, 0);
      expect(log.kernels.at(-1)!.stats.get('gpu_tot_sim_cycle'), f).toBe(sum);
    }
  });
});

describe('parseAccelSimLog errors name file and line', () => {
  const block = (cycle: string) =>
    ['GPGPU-Sim: Configuration options:', '', '-gpgpu_n_clusters                      20 # number of processing clusters', 'kernel_name = k ', 'kernel_launch_uid = 1 ', `gpu_sim_cycle = ${cycle}`, 'gpu_sim_insn = 10', 'gpu_tot_sim_cycle = 5', 'gpu_tot_sim_insn = 10'].join('\n') + '\n';

  it('an empty file or other text is not a log (line 1)', () => {
    for (const text of ['', 'hello world\nx = 1\n', '{"stats": {}}']) {
      const e = thrown(() => parseAccelSimLog(text, 'x.log'));
      expect(e.file).toBe('x.log');
      expect(e.line).toBe(1);
      expect(e.message).toContain('x.log:1: not an Accel-Sim/GPGPU-Sim log');
    }
  });

  it('a binary file', () => {
    expect(thrown(() => parseAccelSimLog('\0\x01\x02ELF', 'a.out')).message).toBe('a.out:1: not an Accel-Sim/GPGPU-Sim log: the file is binary');
  });

  it('options but no kernel block: the run finished no kernel', () => {
    const e = thrown(() => parseAccelSimLog('GPGPU-Sim: Configuration options:\n-gpgpu_n_clusters 20 # n\n', 'r.log'));
    expect(e.message).toContain('no kernel statistics block');
  });

  it('gpu_sim_cycle that is not a number: its line and the field', () => {
    expect(parseAccelSimLog(block('5'), 'ok.log').kernels[0]!.stats.get('gpu_sim_cycle')).toBe(5);
    const e = thrown(() => parseAccelSimLog(block('lots'), 'bad.log'));
    expect(e.line).toBe(6);
    expect(e.field).toBe('gpu_sim_cycle');
    expect(e.message).toBe("bad.log:6: gpu_sim_cycle: expected a number, got 'lots'");
  });

  it('a truncated block (no gpu_tot_sim_insn) names the kernel_name line', () => {
    const text = block('5').replace('gpu_tot_sim_insn = 10\n', '');
    const e = thrown(() => parseAccelSimLog(text, 't.log'));
    expect(e.line).toBe(4);
    expect(e.field).toBe('gpu_tot_sim_insn');
  });

  it('a file that cannot be read', () => {
    const dir = mkdtempSync(join(tmpdir(), 'warpstate-log-'));
    const e = thrown(() => readAccelSimLog(join(dir, 'missing.log')));
    expect(e.message).toBe(`${join(dir, 'missing.log')}: cannot read the Accel-Sim log: ENOENT`);
    writeFileSync(join(dir, 'x.log'), block('7'));
    expect(readAccelSimLog(join(dir, 'x.log')).kernels[0]!.stats.get('gpu_sim_cycle')).toBe(7);
  });
});
