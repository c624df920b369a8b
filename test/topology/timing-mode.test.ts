import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadScenario } from '../../src/scenario/loader.ts';
import { runKernelScenarioTiming } from '../../src/scenario/timing-run.ts';
import { runCli } from '../helpers/cli.ts';
import { goldenDiff } from '../golden/golden.ts';

const kernelScenarios = readdirSync('scenarios').filter((f) => /^k-.*\.yaml$/.test(f)).sort();

describe('every library kernel runs correctly on the timing model (gtx480)', () => {
  it.each(kernelScenarios)('%s', (file) => {
    const r = runKernelScenarioTiming(loadScenario(`scenarios/${file}`, ['mode=timing']));
    expect(r.checks.map((c) => c.actual)).toEqual(r.checks.map(() => expect.stringMatching(/match/)));
    expect(r.passed).toBe(true);
    const s = r.engine.stats;
    // Every warp instruction the functional model executed was issued by an SM.
    expect(s.value('gpu_tot_warp_insts')).toBeGreaterThan(0);
    expect(s.value('gpu_sim_cycle')).toBeGreaterThan(0);
    expect(r.engine.pendingWork()).toEqual([]);
    // Statecharts only on control changes (DESIGN.md §3).
    expect(r.engine.statechartEvents.value / s.value('gpu_tot_warp_insts')!).toBeLessThan(0.1);
    // Every statistic as before the hot-path work (test/golden/golden.ts).
    expect(goldenDiff(`timing-${file.replace(/\.yaml$/, '')}`, s.toJSON())).toEqual([]);
  });
});

describe('every preset runs the quickstart correctly', () => {
  it.each(['gtx480', 'gtx480-elf', 'm2090', 'k20x', 'onac32', 'maxwell-cke', 'gtx1080ti'])('%s', (preset) => {
    const r = runKernelScenarioTiming(loadScenario('scenarios/quickstart.yaml', [`gpu.preset=${preset}`]));
    expect(r.passed).toBe(true);
    expect(r.config.name).toBe(preset);
    expect(r.engine.stats.value('GPU.SM[0].ISSUE.warp_insts')).toBeGreaterThan(0);
    expect(r.engine.unitNames().filter((n) => /^GPU\.SM\[\d+\]\.ISSUE$/.test(n))).toHaveLength(r.config.sm.count);
  });
});

describe('every warp scheduler policy of the registry drives the GPU correctly', () => {
  it.each([
    '{"kind":"lrr"}',
    '{"kind":"gto"}',
    '{"kind":"oldest"}',
    '{"kind":"twoLevel","readyQueueSize":6,"inner":"rr","outer":"rr"}',
    '{"kind":"twoLevel","readyQueueSize":4,"inner":"gto","outer":"gto"}',
  ])('%s', (policy) => {
    const loaded = loadScenario('scenarios/k-stencil-hotspot.yaml', ['mode=timing']);
    const r = runKernelScenarioTiming(loaded, { configOverrides: [`policies.warpScheduler=${policy}`] });
    expect(r.config.policies.warpScheduler).toEqual(JSON.parse(policy));
    expect(r.passed).toBe(true);
    expect(r.engine.pendingWork()).toEqual([]);
  });

  it('policies change timing: the cycle counts are not all equal', () => {
    const cycles = ['{"kind":"lrr"}', '{"kind":"gto"}', '{"kind":"twoLevel","readyQueueSize":2,"inner":"rr","outer":"rr"}'].map(
      (policy) => runKernelScenarioTiming(loadScenario('scenarios/k-stencil-hotspot.yaml', ['mode=timing']), { configOverrides: [`policies.warpScheduler=${policy}`] }).engine.stats.value('gpu_sim_cycle'),
    );
    expect(new Set(cycles).size).toBeGreaterThan(1);
  });
});

describe('the issue stage sleeps when nothing can change, without changing any result', () => {
  it.each(['k-pointer-chase.yaml', 'k-bfs-level.yaml', 'k-reduce-smem.yaml', 'quickstart.yaml'])('%s: every statistic equals the every-cycle run', (file) => {
    const run = (poll: boolean) => {
      const r = runKernelScenarioTiming(loadScenario(`scenarios/${file}`, ['mode=timing']), { pollEveryCycle: poll });
      const json = r.engine.stats.toJSON();
      const events = json['engine.actor_events'] as number;
      for (const k of Object.keys(json)) if (k.startsWith('engine.')) delete json[k];
      return { json, events };
    };
    const sleeping = run(false);
    const polling = run(true);
    expect(sleeping.json).toEqual(polling.json);
    expect(sleeping.events).toBeLessThan(polling.events);
  });
});

describe('timing statistics', () => {
  it('counts the same thread instructions as the functional model, and the per-kernel stats add up', async () => {
    const loaded = loadScenario('scenarios/k-add-x-loops.yaml', ['mode=timing']);
    const t = runKernelScenarioTiming(loaded);
    const f = await runCli(['run', 'scenarios/k-add-x-loops.yaml', '--functional', '-q']);
    expect(f.code).toBe(0);
    const { runKernelScenarioFunctional } = await import('../../src/scenario/kernel-run.ts');
    const fr = runKernelScenarioFunctional(loadScenario('scenarios/k-add-x-loops.yaml'));
    const s = t.engine.stats;
    expect(s.value('gpu_sim_insn')).toBe(fr.stats.value('gpu_sim_insn'));
    expect(s.value('gpu_tot_warp_insts')).toBe(fr.stats.value('functional.warp_insts'));
    expect(s.value('kernel[0].gpu_sim_insn')! + s.value('kernel[1].gpu_sim_insn')!).toBe(s.value('gpu_sim_insn'));
    // Kernel 1 starts after kernel 0 ends (same stream).
    expect(s.value('kernel[1].start_cycle')).toBeGreaterThanOrEqual(s.value('kernel[0].start_cycle')! + s.value('kernel[0].gpu_sim_cycle')!);
    expect(s.value('gpu_ipc')).toBeCloseTo(s.value('gpu_sim_insn')! / s.value('gpu_sim_cycle')!, 6);
  });

  it('scheduler states, warp states and stall kinds account for every scheduler cycle', () => {
    const r = runKernelScenarioTiming(loadScenario('scenarios/k-stream-x-words.yaml', ['mode=timing']));
    const s = r.engine.stats;
    const sm = 'GPU.SM[0].ISSUE';
    const sched = ['noInstruction', 'notReady', 'pipelineStall', 'canIssue'].map((n) => s.value(`${sm}.sched_${n}`)!);
    const stalls = ['memoryConflict', 'memoryDependency', 'fetch', 'other', 'none'].map((n) => s.value(`${sm}.stall_${n}`)!);
    const total = sched.reduce((a, b) => a + b, 0);
    expect(total).toBeGreaterThan(0);
    expect(stalls.reduce((a, b) => a + b, 0)).toBe(total);
    // canIssue cycles are exactly the non-stall cycles.
    expect(s.value(`${sm}.stall_none`)).toBe(s.value(`${sm}.sched_canIssue`));
    // A streaming kernel waits on memory.
    expect(s.value(`${sm}.stall_memoryDependency`)).toBeGreaterThan(0);
    expect(s.value(`${sm}.warp_state_memScoreboard`)).toBeGreaterThan(0);
    // AMAT is at least the L1D hit latency, and the overlapped part is at most AMAT.
    expect(s.value(`${sm}.amat`)!).toBeGreaterThanOrEqual(r.config.l1d.latencyCycles);
    expect(s.value(`${sm}.amat_overlapped`)!).toBeLessThanOrEqual(s.value(`${sm}.amat`)!);
  });

  it('samples ALU and MEM load over time (000 §3.5.4) at the scenario interval', () => {
    const r = runKernelScenarioTiming(loadScenario('scenarios/quickstart.yaml'));
    const json = r.engine.stats.toJSON();
    const alu = json['GPU.SM[0].ISSUE.alu_load'] as { times: number[]; values: number[] };
    const mem = json['GPU.SM[0].ISSUE.mem_load'] as { times: number[]; values: number[] };
    expect(alu.times.slice(0, 3)).toEqual([100_000, 200_000, 300_000]);
    expect(alu.times.length).toBe(Math.floor(r.engine.now / 100_000));
    // Per-interval counts add up to what SM 0 issued before the last sample.
    const issued = r.engine.stats.value('GPU.SM[0].ISSUE.warp_insts')!;
    const sampled = alu.values.reduce((a, b) => a + b, 0) + mem.values.reduce((a, b) => a + b, 0);
    expect(sampled).toBeLessThanOrEqual(issued);
    expect(sampled).toBeGreaterThan(0.9 * issued);
    expect(Math.max(...mem.values)).toBeGreaterThan(0);
  });

  it('refuses a launch the GPU cannot hold, naming the limit (003 eq. 3.1)', async () => {
    // CUDA's own limit (1024 threads per CTA) is a schema bound.
    const cuda = await runCli(['run', 'scenarios/k-vecadd.yaml', '--set', 'mode=timing', '--set', 'launches[0].block=[2048,1,1]']);
    expect(cuda.code).toBe(2);
    expect(cuda.err).toMatch(/^error: scenarios\/k-vecadd\.yaml:13:\d+: launches\[0\]\.block\[0\]: .*1024/);
    // An SM that holds 512 threads cannot take a 1024-thread CTA: eq. 3.1's L(T/B) is 0.
    const threads = await runCli(['run', 'scenarios/k-vecadd.yaml', '--set', 'mode=timing', '--set', 'launches[0].block=[1024,1,1]', '--config-set', 'sm.maxThreads=512']);
    expect(threads.code).toBe(2);
    expect(threads.err).toBe('error: scenarios/k-vecadd.yaml:10:5: launches[0]: launch refused: threads per CTA 1024 exceeds the limit 512 (threadsPerCta)\n');
    // 256 threads x 200 registers = 51200 registers per CTA > 32768 on an SM: eq. 3.1's L(R/B).
    const regs = await runCli(['run', 'scenarios/k-vecadd.yaml', '--set', 'mode=timing', '--set', 'launches[0].regsPerThread=200']);
    expect(regs.code).toBe(2);
    expect(regs.err).toMatch(/^error: scenarios\/k-vecadd\.yaml:10:5: launches\[0\]: .*register/i);
  });
});
