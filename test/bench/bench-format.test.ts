/**
 * `npm run bench` (bench/bench.ts, issue 11 item 3): the `--quick` path run in this process on
 * tiny sizes, checking the JSON report's shape and that its numbers are consistent with each
 * other and with the runs' statistics. Never a timing assertion: only CPU seconds > 0.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { accelSimResult, accelSimRow, ACCELSIM_CPU_SECONDS, ACCELSIM_WORKLOADS, TARGET_LARGE, TARGET_SMALL } from '../../bench/accelsim.ts';
import { formatTable, POLICY_VARIANTS, runBenchmark, toCsv, type BenchReport, type SizeResult } from '../../bench/bench.ts';
import { warpSchedulerPolicyNames } from '../../src/model/sm/warp-policies.ts';
import { median, REPO_ROOT } from '../../bench/measure.ts';
import { matmulWorkload, streamWorkload, traceWorkload } from '../../bench/workloads.ts';
import { loadScenario } from '../../src/scenario/loader.ts';
import { runKernelScenarioTiming } from '../../src/scenario/timing-run.ts';
import { runAccelSimTrace } from '../../src/scenario/trace-run.ts';

/** Checks one size's figures against each other. */
function consistent(s: SizeResult, repeat: number): void {
  expect(s.warpInstructions).toBeGreaterThan(0);
  expect(s.cycles).toBeGreaterThan(0);
  expect(s.cpuSeconds).toBeGreaterThan(0);
  expect(s.cpuSecondsSamples).toHaveLength(repeat);
  expect(s.cpuSeconds).toBeCloseTo(median(s.cpuSecondsSamples), 6);
  expect(s.warpInstsPerCpuSecond).toBe(Math.round(s.warpInstructions / s.cpuSeconds));
  expect(s.cyclesPerCpuSecond).toBe(Math.round(s.cycles / s.cpuSeconds));
  expect(s.eventsPerWarpInst).toBeCloseTo(s.events / s.warpInstructions, 4);
  expect(s.checksPassed).toBe(true);
}

describe('npm run bench --quick (tiny sizes, in process)', () => {
  let report: BenchReport;

  it('runs the in-process sections and reports machine, node, date and options', async () => {
    report = await runBenchmark({
      quick: true,
      only: ['kernels', 'tracing', 'smScaling'],
      cli: false,
      warmup: false,
      sizes: { matmul: [16], stream: [8], trace: ['vectoradd-100-32'] },
    });
    expect(report.node).toBe(process.version);
    expect(Number.isNaN(Date.parse(report.date))).toBe(false);
    expect(report.machine.cores).toBeGreaterThan(0);
    expect(report.machine.totalMemoryBytes).toBeGreaterThan(0);
    expect(typeof report.machine.cpuModel).toBe('string');
    expect(report.gitCommit === null || /^[0-9a-f]{40}$/.test(report.gitCommit)).toBe(true);
    expect(report.options).toEqual({ repeat: 1, quick: true, full: false, sections: ['kernels', 'tracing', 'smScaling'], warmup: false });
    expect(report.cli).toBeNull();
    expect(report.startup).toBeUndefined();
    expect(report.accelSim).toBeUndefined();
    // The JSON round-trips (no undefined, NaN or Infinity hidden in it).
    expect(JSON.parse(JSON.stringify(report))).toEqual(report);
  });

  it('kernels: one size each, figures consistent and equal to the runs statistics', () => {
    const k = report.kernels!;
    expect(Object.keys(k)).toEqual(['matmul', 'stream', 'trace']);
    for (const kr of Object.values(k)) {
      expect(kr.sizes).toHaveLength(1);
      expect(kr.cli).toBeNull();
      consistent(kr.sizes[0]!, 1);
    }
    expect(k.matmul!.sizes[0]!.size).toBe('N=16');
    expect(k.matmul!.sizes[0]!.overrides).toEqual(matmulWorkload(16).overrides);
    expect(k.stream!.sizes[0]!.overrides).toContain('buffers[0].count=6144');
    // The same runs outside the benchmark give the same statistics.
    const mm = runKernelScenarioTiming(loadScenario(join(REPO_ROOT, 'scenarios/k-matmul-tiled.yaml'), matmulWorkload(16).overrides));
    expect(k.matmul!.sizes[0]!.warpInstructions).toBe(mm.engine.stats.value('gpu_tot_warp_insts'));
    expect(k.matmul!.sizes[0]!.cycles).toBe(mm.engine.stats.value('gpu_sim_cycle'));
    const st = runKernelScenarioTiming(loadScenario(join(REPO_ROOT, 'scenarios/k-stream-x-words.yaml'), streamWorkload(8).overrides));
    expect(k.stream!.sizes[0]!.warpInstructions).toBe(st.engine.stats.value('gpu_tot_warp_insts'));
    const tr = runAccelSimTrace(join(REPO_ROOT, traceWorkload('vectoradd-100-32').source), { gpu: { gpgpusimConfig: 'data/accelsim-traces/gtx1080-config/gpgpusim.config' }, baseDir: REPO_ROOT });
    expect(k.trace!.sizes[0]!.warpInstructions).toBe(tr.engine.stats.value('gpu_tot_warp_insts'));
    expect(k.trace!.sizes[0]!.warpInstructions).toBe(344);
  });

  it('tracing: four variants of the same work, ratios from the reported CPU seconds', () => {
    const t = report.tracing!;
    expect(t.size).toBe('N=16');
    expect(Object.keys(t.variants).sort()).toEqual(['compiledOut', 'jsonl', 'off', 'oneSm']);
    for (const v of Object.values(t.variants)) {
      consistent(v, 1);
      expect(v.warpInstructions).toBe(t.variants.off.warpInstructions);
      expect(v.cycles).toBe(t.variants.off.cycles);
    }
    expect(t.variants.off.traceBytes).toBe(0);
    expect(t.variants.compiledOut.traceBytes).toBe(0);
    expect(t.variants.jsonl.traceBytes).toBeGreaterThan(t.variants.oneSm.traceBytes);
    expect(t.variants.oneSm.traceRecords).toBeGreaterThan(0);
    const v = t.variants;
    expect(t.ratios.offVsCompiledOut).toBeCloseTo(v.off.cpuSeconds / v.compiledOut.cpuSeconds, 4);
    expect(t.ratios.jsonlVsOff).toBeCloseTo(v.jsonl.cpuSeconds / v.off.cpuSeconds, 4);
    expect(t.ratios.oneSmVsOff).toBeCloseTo(v.oneSm.cpuSeconds / v.off.cpuSeconds, 4);
  });

  it('smScaling: the same work on 15 and 60 SMs, ratio from the reported rates', () => {
    const s = report.smScaling!;
    consistent(s.sm15, 1);
    consistent(s.sm60, 1);
    expect(s.sm60.warpInstructions).toBe(s.sm15.warpInstructions);
    expect(s.ratio60to15).toBeCloseTo(s.sm60.warpInstsPerCpuSecond / s.sm15.warpInstsPerCpuSecond, 4);
  });

  it('formats a table and a CSV of the same rows', () => {
    const table = formatTable(report);
    expect(table).toContain('matmul');
    expect(table).toContain('SM scaling');
    const csv = toCsv(report).trim().split('\n');
    expect(csv[0]).toMatch(/^section,workload,size,warp_instructions/);
    expect(csv).toHaveLength(1 + 3 + 4 + 2);
  });
});

describe('Accel-Sim comparison rows (bench/accelsim.ts)', () => {
  it('has the seven workloads of issue 11', () => {
    expect(ACCELSIM_WORKLOADS).toEqual(['vectoradd-100-32', 'matrixmul-32-32', 'k-add-x-loops', 'k-matmul-tiled', 'k-stream-x-words', 'k-pointer-chase', 'big-matmul-64']);
  });

  it('computes the median, the ratio and the target from the samples', () => {
    const s = (cpuSeconds: number) => ({ cpuSeconds, peakRssBytes: 100 << 20, ranSources: false });
    const large = accelSimRow('k-matmul-tiled', 25864, [s(0.9), s(0.7), s(0.8)]);
    expect(large.warpstateCpuSeconds).toBe(0.8);
    expect(large.ratio).toBeCloseTo(0.8 / ACCELSIM_CPU_SECONDS['k-matmul-tiled']!, 4);
    expect(large.target).toBe(TARGET_LARGE);
    expect(large.met).toBe(true);
    const small = accelSimRow('vectoradd-100-32', 344, [s(0.5)]);
    expect(small.target).toBe(TARGET_SMALL);
    expect(small.ratio).toBeCloseTo(0.5 / 0.27, 4);
    expect(small.met).toBe(false);
    const r = accelSimResult([large, small], 3);
    expect(r.met).toBe(1);
    expect(r.of).toBe(2);
    expect(r.source).toBe('issue 11, Accel-Sim dev branch Oct 2024 release build');
  });
});

describe('npm run bench policies section (tiny sizes, in process)', () => {
  it('runs the same work under every registered policy and reports its speed relative to gto', async () => {
    const report = await runBenchmark({ quick: true, only: ['policies'], cli: false, warmup: false, sizes: { matmul: [16], stream: [8], trace: [] } });
    const rows = report.policies!.rows;
    // elf joins when its policy is registered
    const names = POLICY_VARIANTS.map((v) => v.name).filter((n) => warpSchedulerPolicyNames().includes(n));
    expect(names).toEqual(expect.arrayContaining(['gto', 'lrr', 'pats', 'patsTwoLevel']));
    for (const kernel of ['matmul', 'stream'] as const) {
      const mine = rows.filter((r) => r.kernel === kernel);
      expect(mine.map((r) => r.policy)).toEqual(names);
      const gto = mine.find((r) => r.policy === 'gto')!;
      expect(gto.speedVsGto).toBe(1);
      for (const r of mine) {
        consistent(r.result, 1);
        // the policy changes the order of issue, never the work
        expect(r.result.warpInstructions).toBe(gto.result.warpInstructions);
        expect(r.speedVsGto).toBeCloseTo(r.result.warpInstsPerCpuSecond / gto.result.warpInstsPerCpuSecond, 3);
      }
    }
    expect(formatTable(report)).toMatch(/policies \(matmul N=16\): gto .* \(x1\)/);
    expect(toCsv(report)).toContain('policy-pats,matmul,N=16,');
  });
});

