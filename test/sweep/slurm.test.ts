/**
 * The Slurm executor against a real single-node cluster (scripts/slurm-local.sh, started by
 * .ci/run): the merged table must equal the local executor's point by point (statistics
 * identical; only wall times differ). Skipped, with the reason printed, only when sbatch is not
 * installed.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.ts';
import type { SweepResults } from '../../src/sweep/tables.ts';

function hasSbatch(): boolean {
  try {
    execFileSync('sbatch', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
const sbatch = hasSbatch();
if (!sbatch) console.log('test/sweep/slurm.test.ts skipped: sbatch is not installed (scripts/slurm-local.sh installs Slurm and starts a local cluster; .ci/run runs it)');

const fixtures = join(import.meta.dirname, 'fixtures');

describe.skipIf(!sbatch)('warpstate sweep --executor slurm', () => {
  it('gives the same table as the local pool, point by point', async () => {
    // sbatch without a controller is a setup error, not a reason to skip.
    let controller = true;
    try {
      execFileSync('scontrol', ['ping'], { stdio: 'ignore' });
    } catch {
      controller = false;
    }
    expect(controller, 'no Slurm controller answers: start the local cluster with `bash scripts/slurm-local.sh` (as root; .ci/run does)').toBe(true);
    const dir = mkdtempSync(join(tmpdir(), 'warpstate-slurm-'));
    const file = join(dir, 'sweep.yaml');
    writeFileSync(
      file,
      `name: slurm_eq
bases:
  vecadd: { scenario: ${join(fixtures, 'tiny-vecadd.yaml')} }
axes:
  policy: { configSet: policies.warpScheduler.kind, values: [lrr, gto] }
seeds: [3]
collect: { cycles: gpu_sim_cycle, insts: gpu_tot_warp_insts, dram_reads: gpu_dram_reads }
derived: { speedup: 'cycles[policy=lrr] / cycles' }
`,
    );
    const sink = (_s: string) => undefined;
    // Both points in one array task (run one after another).
    let err = '';
    const slurmCode = await main(['sweep', file, '-o', join(dir, 'slurm'), '--executor', 'slurm', '--points-per-task', '2', '--time', '10:00'], sink, (s) => void (err += s));
    expect(slurmCode, err).toBe(0);
    expect(err).toMatch(/2 points: 0 cached, 2 submitted as Slurm job \d+/);
    expect(await main(['sweep', file, '-o', join(dir, 'local'), '--jobs', '2'], sink, sink)).toBe(0);
    const read = (d: string) => JSON.parse(readFileSync(join(dir, d, 'results.json'), 'utf8')) as SweepResults;
    const s = read('slurm');
    const l = read('local');
    expect(s.columns).toEqual(l.columns);
    expect(s.points.map((p) => p.id)).toEqual(['vecadd/policy=lrr/seed=3', 'vecadd/policy=gto/seed=3']);
    expect(s.points.map((p) => p.status)).toEqual(['ok', 'ok']);
    s.points.forEach((p, i) => {
      const q = l.points[i]!;
      expect([p.id, p.hash, p.seed, p.stats, p.derived]).toEqual([q.id, q.hash, q.seed, q.stats, q.derived]);
      // The full statistics files, not only the collected columns.
      const full = (d: string, f: string) => JSON.parse(readFileSync(join(dir, d, f), 'utf8'));
      expect(full('slurm', p.statsFile)).toEqual(full('local', q.statsFile));
    });
  }, 300_000);
});
