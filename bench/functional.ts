/**
 * `npm run bench:functional`: functional-only speed (thread instructions per wall second) of
 * the PTX functional model on saxpy (1M elements, one element per thread) and the tiled matrix
 * multiply (256 x 256 x 256), median of `--repeat` runs (default 3). JSON output.
 */
import { performance } from 'node:perf_hooks';
import { loadScenario } from '../src/scenario/loader.ts';
import { runKernelScenarioFunctional } from '../src/scenario/kernel-run.ts';

const args = process.argv.slice(2);
const repeat = Number(args[args.indexOf('--repeat') + 1] ?? 3) || 3;

const cases = [
  {
    name: 'saxpy-1M',
    file: 'scenarios/k-saxpy.yaml',
    overrides: ['buffers[0].count=1048576', 'buffers[1].count=1048576', 'launches[0].args[0].u32=1048576', 'launches[0].grid=[4096,1,1]'],
  },
  {
    name: 'matmul-256',
    file: 'scenarios/k-matmul-tiled.yaml',
    overrides: ['buffers[0].count=65536', 'buffers[1].count=65536', 'buffers[2].count=65536', 'launches[0].grid=[16,16,1]', 'launches[0].args[3].s32=256', 'launches[0].args[4].s32=256', 'launches[0].args[5].s32=256'],
  },
];

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

const results = cases.map((c) => {
  const loaded = loadScenario(c.file, c.overrides);
  runKernelScenarioFunctional(loaded); // warm-up
  const rates: number[] = [];
  let threadInsts = 0;
  let passed = true;
  const t0 = performance.now();
  for (let i = 0; i < repeat; i++) {
    const r = runKernelScenarioFunctional(loaded);
    rates.push(r.threadInstructionsPerSecond);
    threadInsts = r.stats.value('gpu_sim_insn')!;
    passed &&= r.passed;
  }
  return {
    kernel: c.name,
    threadInstructions: threadInsts,
    warpInstructions: runKernelScenarioFunctional(loaded).stats.value('functional.warp_insts'),
    threadInstructionsPerSec: Math.round(median(rates)),
    resultsMatchReference: passed,
    wallSecondsAllRuns: Number(((performance.now() - t0) / 1000).toFixed(2)),
  };
});
console.log(JSON.stringify({ benchmark: 'warpstate functional model', node: process.version, repeat, results }, null, 2));
