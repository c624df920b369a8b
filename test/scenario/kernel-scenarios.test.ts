import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadScenario } from '../../src/scenario/loader.ts';
import { runKernelScenarioFunctional } from '../../src/scenario/kernel-run.ts';
import { runCli } from '../helpers/cli.ts';

const kernelScenarios = readdirSync('scenarios').filter((f) => /^k-.*\.yaml$/.test(f)).sort();
const dir = mkdtempSync(join(tmpdir(), 'warpstate-kscen-'));

describe('kernel library through warpstate run (functional mode)', () => {
  it('has a scenario per library kernel', () => {
    const cu = readdirSync('scenarios/kernels').filter((f) => f.endsWith('.cu')).map((f) => f.replace(/\.cu$/, ''));
    expect(kernelScenarios.map((f) => f.replace(/^k-|\.yaml$/g, ''))).toEqual(cu.sort());
  });

  it.each(kernelScenarios)('%s matches its host reference', async (file) => {
    const stats = join(dir, `${file}.json`);
    const r = await runCli(['run', join('scenarios', file), '--stats', stats]);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/checks: 1 passed, 0 failed/);
    expect(r.out).toMatch(/# functional speed: \d+ thread instructions\/s/);
    const s = JSON.parse(readFileSync(stats, 'utf8'));
    expect(s.stats.gpu_sim_insn).toBeGreaterThan(0);
    expect(s.checks[0].passed).toBe(true);
  });

  it('counts instructions exactly: vecadd executes a known number of thread instructions', () => {
    const r = runKernelScenarioFunctional(loadScenario('scenarios/k-vecadd.yaml'));
    // 16 CTAs x 8 warps; warp instruction counts are deterministic and nonzero.
    expect(r.stats.value('functional.ctas')).toBe(16);
    expect(r.stats.value('functional.kernels')).toBe(1);
    const again = runKernelScenarioFunctional(loadScenario('scenarios/k-vecadd.yaml'));
    expect(again.stats.toJSON()).toEqual(r.stats.toJSON());
    expect(Buffer.from(again.buffers.c!.buffer).equals(Buffer.from(r.buffers.c!.buffer))).toBe(true);
  });

  it('a wrong kernel fails its check with the first mismatch named (exit 1)', async () => {
    // A buggy vecadd: c = a - b. The reference still expects a + b.
    writeFileSync(join(dir, 'vecsub.ptx'), readFileSync('scenarios/kernels/vecadd.ptx', 'utf8').replace('add.f32', 'sub.f32'));
    writeFileSync(join(dir, 'vecsub.yaml'), readFileSync('scenarios/k-vecadd.yaml', 'utf8').replace('kernels/vecadd.ptx', 'vecsub.ptx'));
    const r = await runCli(['run', join(dir, 'vecsub.yaml')]);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/check FAIL: reference vecadd on c, a, b within 0 ulp \(actual c: values, \d+ mismatches, first at \[0\] expected/);
    expect(r.out).toContain('checks: 0 passed, 1 failed');
    // Changing the element count changes kernel and reference alike: still a pass.
    const shorter = await runCli(['run', 'scenarios/k-vecadd.yaml', '--set', 'launches[0].args[3].s32=3000']);
    expect(shorter.code).toBe(0);
  });

  it('reports a kernel memory fault with kernel, lane and address (exit 3), and bad PTX paths (exit 2)', async () => {
    const fault = await runCli(['run', 'scenarios/k-vecadd.yaml', '--set', 'launches[0].args[3].s32=5000']);
    expect(fault.code).toBe(3);
    expect(fault.err).toMatch(/vecadd/);
    expect(fault.err).toMatch(/0x[0-9a-f]+|address/i);
    const missing = await runCli(['run', 'scenarios/k-vecadd.yaml', '--set', 'launches[0].ptx=kernels/nope.ptx']);
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/k-vecadd\.yaml:10:\d+: launches\[0\]\.ptx: PTX file not found: scenarios\/kernels\/nope\.ptx/);
  });

  it('malformed PTX is refused at load with file:line', async () => {
    const ptx = readFileSync('scenarios/kernels/vecadd.ptx', 'utf8').replace('add.f32', 'add.f33');
    writeFileSync(join(dir, 'bad.ptx'), ptx);
    const scen = readFileSync('scenarios/k-vecadd.yaml', 'utf8').replace('kernels/vecadd.ptx', 'bad.ptx');
    writeFileSync(join(dir, 'bad.yaml'), scen);
    const r = await runCli(['run', join(dir, 'bad.yaml')]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^error: \S*bad\.ptx:46:2: add\.f33: /);
  });
});
