/**
 * A kernel fault in a functional run exits 3 with the partial statistics written (issue 9):
 * the launches that completed before the fault are counted, and the fault report is kept.
 */
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';

describe('functional run faults', () => {
  it('a shared-memory fault in the second launch: exit 3, the first launch in the partial statistics', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'warpstate-ffault-'));
    copyFileSync('test/cli/fixtures/fault.ptx', join(dir, 'k.ptx'));
    const scenario = join(dir, 's.yaml');
    writeFileSync(
      scenario,
      ['name: fault', 'mode: functional', 'buffers:', '  - { name: out, type: u32, count: 32, init: { generator: zeros } }', 'launches:', '  - { ptx: k.ptx, entry: fill, grid: [1, 1, 1], block: [32, 1, 1], args: [ { buffer: out } ] }', '  - { ptx: k.ptx, entry: bad, grid: [1, 1, 1], block: [32, 1, 1], args: [ { buffer: out } ] }'].join('\n') + '\n',
    );
    const stats = join(dir, 'stats.json');
    const r = await runCli(['run', scenario, '--stats', stats, '-q']);
    expect(r.code).toBe(3);
    expect(r.err).toContain('k.ptx:24: out-of-bounds 4-byte shared access at address 0x1000');
    expect(r.err).not.toMatch(/\n\s+at /);
    const doc = JSON.parse(readFileSync(stats, 'utf8'));
    expect(doc.stop).toMatchObject({ reason: 'error', partial: true, report: { kernel: 'bad', space: 'shared', address: 4096, lane: 0 } });
    // `fill` ran to the end: one CTA of one warp, 7 instructions (ld.param, cvta, mov, mul.wide,
    // add, st, ret) for 32 threads = 224 thread instructions; `bad` is not counted.
    expect(doc.stats).toEqual({ 'functional.kernels': 1, 'functional.ctas': 1, 'functional.warp_insts': 7, gpu_sim_insn: 224 });
  });

  it('a functional kernel that never ends stops at maxWarpInstructions: exit 3, a limit report', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'warpstate-fspin-'));
    copyFileSync('test/cli/fixtures/fault.ptx', join(dir, 'k.ptx'));
    const scenario = join(dir, 's.yaml');
    writeFileSync(
      scenario,
      ['name: spin', 'mode: functional', 'maxWarpInstructions: 10000', 'buffers:', '  - { name: flag, type: u32, count: 1, init: { generator: zeros } }', 'launches:', '  - { ptx: k.ptx, entry: spin, grid: [1, 1, 1], block: [32, 1, 1], args: [ { buffer: flag } ] }'].join('\n') + '\n',
    );
    const stats = join(dir, 'stats.json');
    const r = await runCli(['run', scenario, '--stats', stats, '-q']);
    expect(r.code).toBe(3);
    expect(r.err).not.toMatch(/\n\s+at /);
    const doc = JSON.parse(readFileSync(stats, 'utf8'));
    expect(doc.stop).toMatchObject({ reason: 'error', partial: true, report: { kind: 'limit', kernel: 'spin' } });
    // The limit is checked per warp instruction: the run stops at exactly 10000 (+1 at most).
    expect(doc.stop.report.warpInstructions).toBeGreaterThanOrEqual(10_000);
    expect(doc.stop.report.warpInstructions).toBeLessThanOrEqual(10_001);
  });
});

