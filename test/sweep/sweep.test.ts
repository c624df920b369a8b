import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.ts';
import { sweepExitCode } from '../../src/sweep/command.ts';
import type { SweepResults } from '../../src/sweep/tables.ts';

const fixtures = join(import.meta.dirname, 'fixtures');
const dir = mkdtempSync(join(tmpdir(), 'warpstate-sweep-'));
const out = join(dir, 'results');

/** The sweep of the tests: tiny vecadd (8 warps of 22 instructions) under lrr and gto, with a scenario-field axis `limit` (maxCycles). */
function sweep(limits: number[]): string {
  const f = join(dir, 'sweep.yaml');
  writeFileSync(
    f,
    `name: tiny
bases:
  vecadd: { scenario: ${join(fixtures, 'tiny-vecadd.yaml')} }
axes:
  policy:
    configSet: policies.warpScheduler
    values: { lrr: { kind: lrr }, gto: { kind: gto } }
  limit: { set: maxCycles, values: [${limits.join(', ')}] }
collect: { cycles: gpu_sim_cycle, insts: gpu_tot_warp_insts, l1d_misses: 'GPU.SM[*].L1D.l1d_misses' }
derived:
  speedup: cycles[policy=lrr] / cycles
checks:
  - insts[policy=gto] == insts[policy=lrr]
figures:
  - { kind: line, name: cycles, x: policy, y: cycles, where: { policy: gto }, yTitle: 'cycles (core cycles)' }
`,
  );
  return f;
}

async function run(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let o = '';
  let e = '';
  const code = await main(['sweep', ...args, '-o', out, '--jobs', '2'], (s) => void (o += s), (s) => void (e += s));
  return { code, out: o, err: e };
}

const results = () => JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as SweepResults;

describe('warpstate sweep on the local pool', () => {
  it('runs, caches, extends, records a crash and a timeout', async () => {
    // 1. Two points, each in its own process.
    const r1 = await run([sweep([1_000_000_000])]);
    expect(r1.err).toContain('2 points: 0 cached, 2 to run on 2 local process(es)');
    expect(r1.code, r1.out + r1.err).toBe(0);
    const t1 = results();
    expect(t1.columns).toEqual(['id', 'base', 'policy', 'limit', 'seed', 'status', 'cycles', 'insts', 'l1d_misses', 'speedup']);
    expect(t1.points.map((p) => [p.id, p.status, p.seed])).toEqual([
      ['vecadd/policy=lrr/limit=1000000000', 'ok', 3],
      ['vecadd/policy=gto/limit=1000000000', 'ok', 3],
    ]);
    // 256 threads = 8 warps, each executing the 22 instructions of vecadd.ptx (n = 256: no thread branches away).
    expect(t1.points.map((p) => p.stats.insts)).toEqual([176, 176]);
    expect(t1.points[0]!.derived.speedup).toBe(1);
    expect(t1.points[1]!.derived.speedup).toBe(t1.points[0]!.stats.cycles! / t1.points[1]!.stats.cycles!);
    expect(t1.checks).toEqual([{ expr: 'insts[policy=gto] == insts[policy=lrr]', passed: true, detail: '1 evaluation(s), all hold' }]);
    expect(t1.warpstate.version).toBe(JSON.parse(readFileSync('package.json', 'utf8')).version);
    for (const p of t1.points) {
      expect(p.hash).toMatch(/^[0-9a-f]{64}$/);
      expect(existsSync(join(out, p.statsFile))).toBe(true);
      expect(p.exitCode).toBe(0);
      expect(p.wallSeconds).toBeGreaterThan(0);
    }
    // The figure (src/report/figures.ts) and the HTML report are written beside the tables.
    expect(t1.figures).toEqual([{ name: 'cycles', svg: join('figures', 'cycles.svg'), png: join('figures', 'cycles.png') }]);
    expect(readFileSync(join(out, 'figures', 'cycles.svg'), 'utf8')).toContain('<svg');
    expect(existsSync(join(out, 'report.html'))).toBe(true);
    const csv = readFileSync(join(out, 'results.csv'), 'utf8').trim().split('\n');
    expect(csv[0]).toBe('id,base,policy,limit,seed,status,cycles,insts,l1d_misses,speedup');
    expect(csv[1]).toMatch(/^vecadd\/policy=lrr\/limit=1000000000,vecadd,lrr,1000000000,3,ok,\d+,176,\d+,1$/);

    // 2. Again: everything is cached.
    const r2 = await run([sweep([1_000_000_000])]);
    expect(r2.err).toContain('2 points: 2 cached, 0 to run');
    expect(r2.code).toBe(0);

    // 3. An extended grid runs only the new points; maxCycles = 10 is a runaway (exit 3): recorded, the others kept.
    const r3 = await run([sweep([1_000_000_000, 10])]);
    expect(r3.err).toContain('4 points: 2 cached, 2 to run');
    expect(r3.code).toBe(3);
    const t3 = results();
    expect(t3.points.map((p) => p.status)).toEqual(['ok', 'failed', 'ok', 'failed']);
    expect(t3.points[1]!.exitCode).toBe(3);
    expect(t3.points[1]!.stderrTail).toMatch(/runaway|10 cycles|max-cycles|maxCycles/i);
    expect(t3.points[1]!.stats).toEqual({});
    expect(t3.points[1]!.derived.speedup).toBeNull();
    expect(r3.out).toContain('2 ok, 0 with failed scenario checks, 2 failed');

    // 4. The failed points again, with a 0.05 s limit: killed and recorded as timed out.
    const r4 = await run([sweep([1_000_000_000, 10]), '--retry-failed', '--timeout', '0.05']);
    expect(r4.err).toContain('4 points: 2 cached, 2 to run');
    expect(r4.code).toBe(3);
    expect(results().points.map((p) => p.status)).toEqual(['ok', 'timeout', 'ok', 'timeout']);
    expect(results().points[1]!.stderrTail).toContain('killed after the per-point limit of 0.05 s');

    // collect rebuilds the same table from the point files.
    let o = '';
    expect(await main(['sweep', 'collect', out], (s) => void (o += s), () => undefined)).toBe(3);
    expect(results().points.map((p) => p.status)).toEqual(['ok', 'timeout', 'ok', 'timeout']);
    // Six point processes of a few CPU seconds each; generous for a machine shared with other runs.
  }, 300_000);

  it('exit codes: 3 when a point failed, else 1 when a check or a scenario check failed, else 0', () => {
    const pt = (status: string) => ({ status }) as SweepResults['points'][number];
    const res = (statuses: string[], checks: boolean[]) => ({ points: statuses.map(pt), checks: checks.map((passed) => ({ expr: '', passed, detail: '' })) }) as unknown as SweepResults;
    expect(sweepExitCode(res(['ok', 'ok'], [true]))).toBe(0);
    expect(sweepExitCode(res(['ok', 'ok'], [true, false]))).toBe(1);
    expect(sweepExitCode(res(['ok', 'checkFailed'], [true]))).toBe(1);
    expect(sweepExitCode(res(['ok', 'timeout'], [false]))).toBe(3);
    expect(sweepExitCode(res(['failed', 'ok'], []))).toBe(3);
  });
});
