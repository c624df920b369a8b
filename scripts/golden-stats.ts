/**
 * Writes test/golden/stats/*.json: every statistic of every golden run (test/golden/golden.ts).
 * Run only for a stated model change or bug fix: `npx tsx scripts/golden-stats.ts [name-filter]`.
 */
import { goldenRuns, writeGolden } from '../test/golden/golden.ts';

const filter = process.argv[2];
for (const r of goldenRuns()) {
  if (filter !== undefined && !r.name.includes(filter)) continue;
  const t0 = process.cpuUsage();
  writeGolden(r.name, await r.run());
  const cpu = process.cpuUsage(t0);
  console.log(`${r.name}: ${((cpu.user + cpu.system) / 1e6).toFixed(2)} CPU s`);
}
