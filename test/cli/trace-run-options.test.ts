/**
 * Bounded runs of Accel-Sim traces (issue 9 item 5): `--until` stops the run with partial
 * statistics (marked partial, checks not evaluated), and the trace window and kind filters
 * apply as they do for kernel scenarios.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';

const T = 'data/accelsim-traces';

describe('Accel-Sim trace runs: --until and trace filters', () => {
  it('--until 600ns stops vectoradd early with partial statistics and a filtered trace window', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'warpstate-trace-until-'));
    const stats = join(dir, 'stats.json');
    const trace = join(dir, 'trace.jsonl');
    const r = await runCli(['run', '--accelsim-trace', `${T}/vectoradd-100-32`, '--gpu', `${T}/gtx1080-config/gpgpusim.config`, '--until', '600ns', '--stats', stats, '--trace', trace, '--trace-kinds', 'mem.*', '--trace-from', '500ns', '-q']);
    expect(r.code).toBe(0);
    expect(r.err).toContain('stopped at 600000 ps');
    const doc = JSON.parse(readFileSync(stats, 'utf8'));
    expect(doc.stop).toEqual({ reason: 'until', partial: true, time_ps: 600_000 });
    expect(doc.checks).toEqual([]);
    // The GTX 1080 config's core clock is 1607 MHz: 600 ns is cycle floor(600e-9 * 1.607e9) = 964.
    expect(doc.stats.gpu_sim_cycle).toBe(964);
    // The trace holds 344 warp instructions; stopping early leaves some of them unissued.
    expect(doc.stats.gpu_tot_warp_insts).toBeGreaterThan(0);
    expect(doc.stats.gpu_tot_warp_insts).toBeLessThan(344);
    const msgs = readFileSync(trace, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { t: string; kind?: string; deliver?: number })
      .filter((x) => x.t === 'msg');
    expect(msgs.length).toBeGreaterThan(0);
    for (const m of msgs) {
      expect(m.kind!.startsWith('mem.')).toBe(true);
      expect(m.deliver!).toBeGreaterThanOrEqual(500_000);
      expect(m.deliver!).toBeLessThanOrEqual(600_000);
    }
  });

  it('--max-cycles ends a trace run as runaway (exit 3) with the report in the partial statistics', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'warpstate-trace-cap-'));
    const stats = join(dir, 'stats.json');
    const r = await runCli(['run', '--accelsim-trace', `${T}/vectoradd-100-32`, '--gpu', `${T}/gtx1080-config/gpgpusim.config`, '--max-cycles', '100', '--stats', stats, '-q']);
    expect(r.code).toBe(3);
    expect(r.err).toContain('cycle cap of 100 core cycles');
    expect(r.err).not.toMatch(/\n\s+at /);
    const doc = JSON.parse(readFileSync(stats, 'utf8'));
    expect(doc.stop).toMatchObject({ reason: 'error', partial: true });
    expect(doc.stop.report.units.length).toBeGreaterThan(0);
    expect(doc.stats.gpu_sim_cycle).toBe(100);
  });
});

describe('Accel-Sim trace runs: a malformed line found during the run', () => {
  it('a bad field in a CTA read lazily is an input error (exit 2) naming file, line and field, with partial statistics', async () => {
    // The open pass reads only the PCs (and decodes the first line of each); every other line is
    // decoded when ISSUE takes its CTA. Break a later instance of a PC: the run reports it then.
    const dir = mkdtempSync(join(tmpdir(), 'warpstate-trace-bad-'));
    const src = `${T}/vectoradd-100-32`;
    const list = readFileSync(join(src, 'kernelslist.g'), 'utf8');
    const kernelFile = list.split('\n').find((l) => l.startsWith('kernel-'))!.trim();
    const text = readFileSync(join(src, kernelFile), 'utf8').split('\n');
    const seen = new Set<string>();
    let broken = -1;
    for (let i = 0; i < text.length; i++) {
      const f = text[i]!.split(' ');
      if (!/^[0-9a-f]{4}$/.test(f[0]!) || f.length < 4) continue; // instruction lines: PC mask dest_num ...
      if (seen.has(f[0]!)) {
        f[2] = 'zzz'; // dest_num
        text[i] = f.join(' ');
        broken = i + 1;
        break;
      }
      seen.add(f[0]!);
    }
    expect(broken).toBeGreaterThan(0);
    writeFileSync(join(dir, kernelFile), text.join('\n'));
    writeFileSync(join(dir, 'kernelslist.g'), list);
    const stats = join(dir, 'stats.json');
    const r = await runCli(['run', '--accelsim-trace', dir, '--gpu', `${T}/gtx1080-config/gpgpusim.config`, '--stats', stats, '-q']);
    expect(r.code).toBe(2);
    expect(r.err).toContain(`${kernelFile}:${broken}:`);
    expect(r.err).toContain("dest_num: expected a decimal number, got 'zzz'");
    expect(r.err).toMatch(/found by GPU\.SM\[\d+\]\.\w+ during the simulation/);
    expect(r.err).not.toMatch(/\n\s+at /);
    const doc = JSON.parse(readFileSync(stats, 'utf8'));
    expect(doc.stop).toMatchObject({ reason: 'error', partial: true });
  });
});

describe('both NVBit traces run to the end on every preset', () => {
  // Regression: an instruction without a destination register (BRA, EXIT, a store's address
  // add ...) is written back by EXEC like every dispatch; counting only those with a destination
  // left warps at -5 outstanding and matrixmul's CTA never finished on gtx480 (a deadlock).
  it.each(['gtx480', 'gtx480-elf', 'm2090', 'k20x', 'onac32', 'maxwell-cke', 'gtx1080ti'])('%s', async (preset) => {
    for (const [trace, insts] of [['vectoradd-100-32', 344], ['matrixmul-32-32', 4416]] as const) {
      const r = await runCli(['run', '--accelsim-trace', `${T}/${trace}`, '--gpu', preset, '-q']);
      expect(r.err).toBe('');
      expect(r.code).toBe(0);
      expect(r.out).toContain(`simulated warp instructions == warp instructions in the trace (actual ${insts})`);
    }
  });
});
