import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/errors.ts';
import { loadSweep } from '../../src/sweep/load.ts';
import { main } from '../../src/cli/main.ts';

const fixtures = join(import.meta.dirname, 'fixtures');
const dir = mkdtempSync(join(tmpdir(), 'warpstate-sweep-load-'));

/** Writes a sweep file next to the fixtures' scenario (so `tiny-vecadd.yaml` resolves). */
function sweepFile(name: string, text: string): string {
  const f = join(dir, name);
  writeFileSync(f, text.replace('SCENARIO', join(fixtures, 'tiny-vecadd.yaml')));
  return f;
}

async function loadError(text: string): Promise<InputError> {
  const f = sweepFile('bad.yaml', text);
  try {
    await loadSweep(f, join(dir, 'out'));
  } catch (e) {
    expect(e).toBeInstanceOf(InputError);
    return e as InputError;
  }
  throw new Error('expected an InputError');
}

const head = 'name: s\nbases:\n  k: { scenario: SCENARIO }\n';

describe('sweep file validation', () => {
  it('names file, line and field of a schema error', async () => {
    const e = await loadError(head + 'axes:\n  policy:\n    configSet: policies.warpScheduler.kind\n    valuez: [lrr]\ncollect: [gpu_sim_cycle]\n');
    // `values` is missing (line 7 has the misspelt key): the error points into the axis at line 6.
    expect(e.message).toMatch(/bad\.yaml:6:5: axes\.policy\.values: expected array or record/);
    const e1 = await loadError(head + 'collect: [gpu_sim_cycle]\ncolect: [gpu_ipc]\n');
    expect(e1.message).toMatch(/bad\.yaml:5:1: colect: unknown field 'colect'/);
    const e2 = await loadError(head + 'collect: [gpu_sim_cycle]\ntimeout: -1\n');
    expect(e2.line).toBe(5);
    expect(e2.field).toBe('timeout');
  });

  it('refuses an expression naming an unknown column or label, at its line', async () => {
    const e = await loadError(head + 'axes:\n  policy: { configSet: policies.warpScheduler.kind, values: [lrr, gto] }\ncollect: { cycles: gpu_sim_cycle }\nderived:\n  speedup: cycles[policy=fifo] / cycles\n');
    expect(e.line).toBe(8);
    expect(e.message).toContain("axis 'policy' has no label 'fifo' (labels: lrr, gto)");
    const e2 = await loadError(head + 'collect: { cycles: gpu_sim_cycle }\nchecks:\n  - cycels > 0\n');
    expect(e2.line).toBe(6);
    expect(e2.field).toBe('checks[0]');
    expect(e2.message).toContain("'cycels' is not a column or axis");
  });

  it('refuses a config override the GPU config schema refuses, before running anything', async () => {
    const e = await loadError(head + 'axes:\n  policy: { configSet: policies.warpScheduler.kind, values: [lrr, fifo] }\ncollect: [gpu_sim_cycle]\n');
    expect(e.line).toBe(5);
    expect(e.field).toBe('axes.policy');
    expect(e.message).toContain('point k/policy=fifo');
  });

  it('plans the grid: 1 base x 2 policies x 2 seeds = 4 points with distinct hashes and full command lines', async () => {
    const f = sweepFile('ok.yaml', head + 'axes:\n  policy: { configSet: policies.warpScheduler.kind, values: [lrr, gto] }\nseeds: [1, 2]\ncollect: [gpu_sim_cycle]\n');
    const plan = await loadSweep(f, join(dir, 'out'));
    expect(plan.points.map((p) => p.id)).toEqual(['k/policy=lrr/seed=1', 'k/policy=lrr/seed=2', 'k/policy=gto/seed=1', 'k/policy=gto/seed=2']);
    expect(new Set(plan.points.map((p) => p.hash)).size).toBe(4);
    expect(plan.points[3]!.args).toEqual(['run', join(fixtures, 'tiny-vecadd.yaml'), '--config-set', 'policies.warpScheduler.kind=gto', '--seed', '2', '-q']);
    expect(plan.points[3]!.overrides).toEqual({ policy: 'gto' });
  });

  it('an Accel-Sim trace base runs through a generated scenario naming the trace directory and GPU', async () => {
    const trace = join(import.meta.dirname, '..', 'frontends', 'fixtures', 'multi-cta');
    const f = sweepFile('trace.yaml', `name: t\nbases:\n  multi: { trace: ${trace}, gpu: gtx480 }\nconfigSet: [sm.count=2]\ncollect: [gpu_sim_cycle]\n`);
    const plan = await loadSweep(f, join(dir, 'trace-out'));
    const generated = join(dir, 'trace-out', 'bases', 'multi.yaml');
    expect(plan.points.map((p) => p.args)).toEqual([['run', generated, '--config-set', 'sm.count=2', '--seed', '1', '-q']]);
    expect(readFileSync(generated, 'utf8')).toContain(`accelsimTrace:\n  dir: ${trace}\n`);
  });

  it('the CLI exits 2 on a bad sweep file, printing file:line: field', async () => {
    const f = sweepFile('bad-cli.yaml', head + 'collect: [gpu_sim_cycle]\nzip: [[a, b]]\n');
    let err = '';
    const code = await main(['sweep', f, '-o', join(dir, 'cli')], () => {}, (s) => void (err += s));
    expect(code).toBe(2);
    expect(err).toMatch(/bad-cli\.yaml:5:\d+: zip\[0\]\[0\]: unknown axis 'a'/);
  });
});
