/**
 * `node --import bench/rusage-hook.mjs bin/warpstate.js ...`: writes the process's own
 * `process.resourceUsage()` (user and system CPU microseconds, peak RSS in KiB, ...) as JSON to
 * the file named by `WARPSTATE_BENCH_RUSAGE` when it exits. bench/measure.ts uses it where
 * `/usr/bin/time` is not installed (`child_process.spawnSync` reports no resource usage).
 * The figures cover the whole process, start-up included, as `/usr/bin/time` does.
 */
import { writeFileSync } from 'node:fs';

const file = process.env.WARPSTATE_BENCH_RUSAGE;
if (file) {
  process.on('exit', () => {
    writeFileSync(file, JSON.stringify(process.resourceUsage()));
  });
}
