/**
 * GPU timing-model benchmark (part of `npm run bench`): simulates every library kernel
 * (`scenarios/k-*.yaml`) on the `gtx480` preset in timing mode, plus a larger compute-bound
 * add_x_loops, and reports per kernel the median over `repeat` runs of simulated warp
 * instructions per wall second, simulated core cycles per wall second, and statechart events
 * per warp instruction. JSON output, no assertions.
 */
import { readdirSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { loadScenario } from '../src/scenario/loader.ts';
import { runKernelScenarioTiming } from '../src/scenario/timing-run.ts';

/** One kernel's benchmark result. */
export interface GpuBenchResult {
  kernel: string;
  correct: boolean;
  warpInstructions: number;
  cycles: number;
  warpInstsPerSec: number;
  cyclesPerSec: number;
  statechartEventsPerWarpInst: number;
  actorEventsPerWarpInst: number;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/** Cases: every library scenario as committed, and a larger compute-bound one. */
export function gpuBenchCases(): { name: string; file: string; overrides: string[] }[] {
  const cases = readdirSync('scenarios')
    .filter((f) => /^k-.*\.yaml$/.test(f))
    .sort()
    .map((f) => ({ name: f.replace(/^k-|\.yaml$/g, ''), file: `scenarios/${f}`, overrides: ['mode=timing'] }));
  cases.push({
    name: 'add-x-loops-large (compute-bound)',
    file: 'scenarios/k-add-x-loops.yaml',
    overrides: ['mode=timing', 'launches[0].args[4].s32=100', 'launches[0].grid=[60,1,1]', 'launches[0].args[5].s32=15360', ...[0, 1, 2, 3].map((i) => `buffers[${i}].count=16384`)],
  });
  return cases;
}

/** Runs the GPU benchmark. */
export function runGpuBench(repeat: number): GpuBenchResult[] {
  return gpuBenchCases().map((c) => {
    const loaded = loadScenario(c.file, c.overrides);
    runKernelScenarioTiming(loaded); // JIT warm-up
    const rates: number[] = [];
    const cps: number[] = [];
    let last: ReturnType<typeof runKernelScenarioTiming> | null = null;
    for (let i = 0; i < repeat; i++) {
      const t0 = performance.now();
      last = runKernelScenarioTiming(loaded);
      const dt = (performance.now() - t0) / 1000;
      rates.push(last.engine.stats.value('gpu_tot_warp_insts')! / dt);
      cps.push(last.engine.stats.value('gpu_sim_cycle')! / dt);
    }
    const wi = last!.engine.stats.value('gpu_tot_warp_insts')!;
    return {
      kernel: c.name,
      correct: last!.passed,
      warpInstructions: wi,
      cycles: last!.engine.stats.value('gpu_sim_cycle')!,
      warpInstsPerSec: Math.round(median(rates)),
      cyclesPerSec: Math.round(median(cps)),
      statechartEventsPerWarpInst: Number((last!.engine.statechartEvents.value / wi).toFixed(5)),
      actorEventsPerWarpInst: Number((last!.engine.actorEvents.value / wi).toFixed(3)),
    };
  });
}
