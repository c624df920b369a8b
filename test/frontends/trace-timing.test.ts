import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writePtxScenarioTrace } from '../../src/frontends/accelsim/ptx-trace.ts';
import { sassTarget, type SassFamily } from '../../src/frontends/accelsim/sass-names.ts';
import { loadScenario } from '../../src/scenario/loader.ts';
import { runKernelScenarioTiming } from '../../src/scenario/timing-run.ts';
import { runAccelSimTrace } from '../../src/scenario/trace-run.ts';
import { runCli } from '../helpers/cli.ts';

const traces = 'data/accelsim-traces';
const gtx1080 = `${traces}/gtx1080-config/gpgpusim.config`;
const dir = mkdtempSync(join(tmpdir(), 'warpstate-trace-timing-'));

describe('Accel-Sim traces on the timing model', () => {
  it.each([
    ['vectoradd-100-32', 344],
    ['matrixmul-32-32', 4416],
  ])('%s runs to completion on the imported GTX 1080 config with the trace\'s instruction count', (name, count) => {
    const r = runAccelSimTrace(`${traces}/${name}`, { gpu: { gpgpusimConfig: gtx1080 }, baseDir: '.' });
    const s = r.engine.stats;
    expect(r.config.name).toBe('gtx1080-config');
    expect(r.config.sm.count).toBe(20);
    expect(r.traceInstructions).toEqual([count]);
    expect(s.value('gpu_tot_warp_insts')).toBe(count);
    expect(s.value('gpu_sim_cycle')).toBeGreaterThan(0);
    // -gpgpu_gmem_skip_L1D 1: global accesses bypass the L1D (Accel-Sim: L1D_total_cache_accesses = 0)
    expect(s.value('gpu_l1d_accesses')).toBe(0);
    expect(s.value('gpu_l1d_bypassed')).toBeGreaterThan(0);
    expect(r.engine.pendingWork()).toEqual([]);
    expect(r.memcpyBytes).toBeGreaterThan(0);
  });

  it('the CLI runs a trace directory with --gpu and checks the instruction count', async () => {
    const stats = join(dir, 'vec.json');
    const r = await runCli(['run', '--accelsim-trace', `${traces}/vectoradd-100-32`, '--gpu', gtx1080, '--stats', stats, '-q']);
    expect(r.code).toBe(0);
    expect(r.out).toContain('check PASS: simulated warp instructions == warp instructions in the trace (actual 344)');
    expect(JSON.parse(readFileSync(stats, 'utf8')).stats.gpu_tot_warp_insts).toBe(344);
    const bad = await runCli(['run', '--accelsim-trace', join(dir, 'nowhere')]);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/nowhere: cannot read the kernel list: ENOENT/);
  });

  it('a scenario can name a trace directory', async () => {
    const scen = join(dir, 'trace-scenario.yaml');
    writeFileSync(scen, `name: mm-trace\naccelsimTrace: { dir: ${join(process.cwd(), traces, 'matrixmul-32-32')} }\ngpu: { gpgpusimConfig: ${join(process.cwd(), gtx1080)} }\nchecks:\n  - { stat: gpu_tot_warp_insts, op: '==', value: 4416 }\n`);
    const r = await runCli(['run', scen, '-q']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toContain('checks: 2 passed, 0 failed');
  });
});

describe('round trip: PTX run -> written trace (SASS names) -> trace run', () => {
  // Every library kernel but k-bfs-level: its benign race (threads of a level racing on the same
  // frontier flag) makes the dynamic instruction stream depend on the execution order, so the
  // functional order the trace is written in differs from the timing run's (60112 warp
  // instructions timed, 60343 written), with any writer.
  it.each([
    ['vecadd', 'default'], ['saxpy', 'default'], ['matmul-tiled', 'default'], ['histogram-smem', 'default'],
    ['reduce-shfl', 'default'], ['reduce-smem', 'default'], ['dpoly', 'default'], ['transpose-smem', 'default'],
    ['add-x-loops', 'default'], ['stream-x-words', 'default'], ['stencil-hotspot', 'default'], ['nw-tile', 'default'],
    ['pointer-chase', 'default'],
    // surface loads and stores are written as global loads and stores with their addresses
    ['surf-sobel', 'default'],
    // The same streams written with Volta / Turing / Ampere names read back alike.
    ['reduce-shfl', 'volta'], ['dpoly', 'turing'], ['histogram-smem', 'ampere'],
  ] as [string, SassFamily | 'default'][])('%s (%s names) reproduces the cycle count exactly', (k, family) => {
    const loaded = loadScenario(`scenarios/k-${k}.yaml`, ['mode=timing']);
    const ptx = runKernelScenarioTiming(loaded);
    const out = join(dir, `rt-${k}-${family}`);
    const counts = writePtxScenarioTrace(loaded, out, family === 'default' ? {} : { target: sassTarget(family) });
    // default: the scenarios' gtx480 (Fermi, no Accel-Sim table) gets Pascal's table, version 61
    expect(readFileSync(join(out, 'kernel-1.traceg'), 'latin1')).toContain(`-binary version = ${family === 'default' ? 61 : sassTarget(family).binaryVersion}\n`);
    expect(existsSync(join(out, 'kernelslist.g'))).toBe(true);
    const tr = runAccelSimTrace(out, { gpu: { preset: 'gtx480' }, baseDir: '.' });
    const a = ptx.engine.stats;
    const b = tr.engine.stats;
    expect(counts.reduce((x, y) => x + y, 0)).toBe(a.value('gpu_tot_warp_insts'));
    for (const stat of ['gpu_sim_cycle', 'gpu_tot_warp_insts', 'gpu_sim_insn', 'gpu_l1d_accesses', 'gpu_l1d_misses', 'gpu_l2_accesses', 'gpu_dram_reads']) {
      expect([stat, b.value(stat)]).toEqual([stat, a.value(stat)]);
    }
  });

  it('the CLI writes the trace of a run with --write-trace', async () => {
    const out = join(dir, 'cli-trace');
    const r = await runCli(['run', 'scenarios/k-saxpy.yaml', '--functional', '--write-trace', out, '-q']);
    expect(r.code).toBe(0);
    expect(r.err).toMatch(/wrote 2240 warp instructions of 1 kernel\(s\)/);
    const list = readFileSync(join(out, 'kernelslist.g'), 'utf8');
    expect(list).toMatch(/MemcpyHtoD,0x[0-9a-f]+,16384/);
    expect(list).toContain('kernel-1.traceg');
    const head = readFileSync(join(out, 'kernel-1.traceg'), 'utf8');
    expect(head).toContain('-kernel name = saxpy');
    expect(head).toContain('-accelsim tracer version = 4');
    // SASS names for the scenario's GPU (default gtx480: no Accel-Sim table, Pascal's at 61)
    expect(head).toContain('-binary version = 61');
    expect(head).toMatch(/^0010 ffffffff 1 R\d+ LDC 0 4 1 0x4 0 $/m); // saxpy's 2nd parameter (f32 a, offset 4)
    expect(head).toMatch(/ LDG\.E 1 R\d+ 4 1 0x[0-9a-f]+ 4 $/m);
    expect(head).not.toMatch(/ ld\./);
  });
});
