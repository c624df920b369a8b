/**
 * The `library` section of `npm run bench` (`--only library`, and with `--full`): every library
 * kernel (`scenarios/k-*.yaml`) as committed, on its scenario's GPU (the `gtx480` preset) in
 * timing mode, plus a larger compute-bound add_x_loops. Per kernel, from the median CPU seconds
 * of `repeat` runs: warp instructions per CPU second, simulated core cycles per CPU second, and
 * statechart and actor events per warp instruction. The committed kernels are small (most
 * finish in a few thousand cycles), so these figures include more fixed cost per run than the
 * `kernels` section's scaled sizes.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { loadScenario } from '../src/scenario/loader.ts';
import { runKernelScenarioTiming } from '../src/scenario/timing-run.ts';
import { cpuSeconds, median, REPO_ROOT, round, roundCpu } from './measure.ts';

/** One library kernel's result. */
export interface GpuBenchResult {
  readonly kernel: string;
  /** The run's checks passed. */
  readonly correct: boolean;
  /** Warp instructions simulated (`gpu_tot_warp_insts`). */
  readonly warpInstructions: number;
  /** Simulated core cycles (`gpu_sim_cycle`). */
  readonly cycles: number;
  /** Median CPU seconds of the simulation. */
  readonly cpuSeconds: number;
  /** warpInstructions / cpuSeconds. */
  readonly warpInstsPerCpuSecond: number;
  /** cycles / cpuSeconds. */
  readonly cyclesPerCpuSecond: number;
  readonly statechartEventsPerWarpInst: number;
  readonly actorEventsPerWarpInst: number;
}

/** Cases: every library scenario as committed, and a larger compute-bound one. */
export function gpuBenchCases(): { name: string; file: string; overrides: string[] }[] {
  const cases = readdirSync(join(REPO_ROOT, 'scenarios'))
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

/** Runs the library section: each case once to warm up, then `repeat` measured runs. */
export function runGpuBench(repeat: number, log: (line: string) => void = () => {}): GpuBenchResult[] {
  return gpuBenchCases().map((c) => {
    const loaded = loadScenario(join(REPO_ROOT, c.file), c.overrides);
    runKernelScenarioTiming(loaded); // JIT warm-up
    const samples: number[] = [];
    let last: ReturnType<typeof runKernelScenarioTiming> | null = null;
    for (let i = 0; i < repeat; i++) {
      let t0 = Number.NaN;
      last = runKernelScenarioTiming(loaded, { onEngine: () => void (t0 = cpuSeconds()) });
      samples.push(cpuSeconds() - t0);
    }
    const cpu = roundCpu(median(samples));
    const wi = last!.engine.stats.value('gpu_tot_warp_insts')!;
    const cycles = last!.engine.stats.value('gpu_sim_cycle')!;
    log(`library ${c.name}: ${wi} warp insts, ${cpu.toFixed(3)} CPU s`);
    return {
      kernel: c.name,
      correct: last!.passed,
      warpInstructions: wi,
      cycles,
      cpuSeconds: cpu,
      warpInstsPerCpuSecond: Math.round(wi / cpu),
      cyclesPerCpuSecond: Math.round(cycles / cpu),
      statechartEventsPerWarpInst: round(last!.engine.statechartEvents.value / wi, 5),
      actorEventsPerWarpInst: round(last!.engine.actorEvents.value / wi, 3),
    };
  });
}
