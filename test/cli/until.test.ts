/**
 * `--until` and the trace window apply to kernel scenarios too (issue 9 item 5): the run stops
 * at that simulated time with partial statistics (reference checks not evaluated), and trace
 * records outside `--trace-from`/`--trace-to` are not written.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';

describe('--until and the trace window on a kernel scenario', () => {
  it('stops at the given time: 2 us on the 700 MHz GTX480 is core cycle 1400; statistics are marked partial', async () => {
    const stats = join(mkdtempSync(join(tmpdir(), 'warpstate-until-')), 'stats.json');
    const r = await runCli(['run', 'scenarios/k-matmul-tiled.yaml', '--set', 'mode=timing', '--until', '2us', '--stats', stats, '-q']);
    expect(r.code).toBe(0);
    expect(r.err).toContain('stopped at 2000000 ps');
    const doc = JSON.parse(readFileSync(stats, 'utf8'));
    expect(doc.stop).toEqual({ reason: 'until', partial: true, time_ps: 2_000_000 });
    expect(doc.stats.gpu_sim_cycle).toBe(1400);
    expect(doc.checks).toEqual([]);
    // The whole kernel takes longer than 2 us: its CTAs were still running.
    expect(doc.stats['kernel[0].gpu_sim_cycle']).toBe(0);
  });

  it('--trace-from / --trace-to keep only the records inside the window', async () => {
    const trace = join(mkdtempSync(join(tmpdir(), 'warpstate-window-')), 't.jsonl');
    const r = await runCli(['run', 'scenarios/k-vecadd.yaml', '--set', 'mode=timing', '--trace', trace, '--trace-from', '200ns', '--trace-to', '400ns', '-q']);
    expect(r.code).toBe(0);
    const msgs = readFileSync(trace, 'utf8').trim().split('\n').map((l) => JSON.parse(l)).filter((x) => x.t === 'msg');
    expect(msgs.length).toBeGreaterThan(10);
    for (const m of msgs) {
      expect(m.deliver).toBeGreaterThanOrEqual(200_000);
      expect(m.deliver).toBeLessThanOrEqual(400_000);
    }
  });
});
