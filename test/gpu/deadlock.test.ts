/**
 * A configuration that cannot make progress ends with a deadlock report, in bounded time.
 *
 * A miss queue of 1 entry can never take a read miss: as in GPGPU-Sim, a read miss needs room
 * for 2 entries (`miss_queue_full(1)` is `length + 1 >= size`), so with size 1 every miss is a
 * reservation failure (`missQueueFull`) forever. In the L1D the first global load blocks the
 * LSU; in an L2 slice the ROP head blocks, then the interconnect and every SM behind it.
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SimulationError } from '../../src/errors.ts';
import { runTiming } from './gpu-helpers.ts';
import { runCli } from '../helpers/cli.ts';

describe('deadlock detection on the timing model', () => {
  it('an L2 miss queue of 1 entry: SimulationError naming every blocked unit, in bounded time', () => {
    let error: unknown;
    try {
      runTiming('scenarios/k-vecadd.yaml', ['deadlockCycles=1000'], ['sm.count=2', 'l2.missQueueEntries=1']);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SimulationError);
    const err = error as SimulationError;
    expect(err.message).toMatch(/^deadlock at \d+ ps: (no progress for 1000 core cycles|the event queue drained with work pending)/);
    // The units with pending work: L2 slices whose ROP head cannot get a miss-queue entry.
    expect(err.message).toMatch(/GPU\.L2\[\d+\]: .*head blocked: missQueueFull/);
    // The SM side: its first instruction line read waits behind the L2 (L1I misses go through
    // the L1D's memory port), or, once code is in, the LSU's memory instructions.
    expect(err.message).toMatch(/GPU\.SM\[0\]\.(LSU: \d+ memory instructions in flight|L1D: \d+ instruction line reads)/);
    expect(err.message).toMatch(/GPU\.ICNT: \d+ reads forwarded awaiting responses/);
    const details = err.details as { time_ps: number; units: { unit: string; work: string }[]; oldestWaiting: unknown[] };
    expect(details.units.map((u) => u.unit)).toContain('GPU.SMWM');
    // (Every blocked request sits inside a unit here, in the L2 ROP queues and the L1D MSHRs,
    // so no message waits in a port: the next test shows the waiting-message part.)
    // Bounded: stopped within a few windows of 1000 core cycles (700 MHz: 1.43 us each) after
    // the last progress, long before the run could have finished by itself (it never would).
    expect(details.time_ps).toBeLessThan(20 * 1000 * (1e12 / 700e6));
  });

  it('on 15 SMs the terminal shows 20 waiting units and a count of the rest; the details list every one', () => {
    let error: unknown;
    try {
      runTiming('scenarios/k-vecadd.yaml', ['deadlockCycles=1000'], ['sm.count=15', 'l2.missQueueEntries=1']);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SimulationError);
    const err = error as SimulationError;
    const details = err.details as { units: { unit: string }[] };
    // 16 CTAs over 15 SMs: every SM's LSU holds loads, plus the SMWM, the ICNT and the L2 slices.
    expect(details.units.length).toBeGreaterThan(20);
    expect(err.message).toContain(`  ... and ${details.units.length - 20} more units with pending work (every one is in the statistics file, stop.report.units)`);
    expect(details.units.some((u) => u.unit.startsWith('GPU.L2['))).toBe(true);
  });

  it('an L1D miss queue of 1 entry: the report lists the oldest messages waiting in ports, and why', () => {
    let error: unknown;
    try {
      runTiming('scenarios/k-vecadd.yaml', ['deadlockCycles=1000'], ['sm.count=2', 'l1d.missQueueEntries=1']);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SimulationError);
    const err = error as SimulationError;
    expect(err.message).toMatch(/GPU\.SM\[0\]\.L1D: .*head blocked: missQueueFull/);
    // The L1D's request port is full of loads it cannot take; behind it, the LSU and ISSUE.
    expect(err.message).toMatch(/waiting since \d+ ps at GPU\.SM\[0\]\.L1D\.topIn: mem\.readReq #\d+ from GPU\.SM\[0\]\.LSU\.bottomOut \(not consumed by GPU\.SM\[0\]\.L1D/);
    expect(err.message).toMatch(/waiting since \d+ ps at GPU\.SM\[0\]\.LSU\.topIn: lsu\.dispatch #\d+/);
    const details = err.details as { oldestWaiting: { since: number }[] };
    expect(details.oldestWaiting.length).toBeGreaterThan(0);
    // Oldest first.
    const since = details.oldestWaiting.map((m) => m.since);
    expect(since).toEqual([...since].sort((a, b) => a - b));
  });

  it('the CLI exits 3 on a deadlock (L1D miss queue of 1 entry) and still writes --stats', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'warpstate-deadlock-'));
    const stats = join(dir, 'stats.json');
    const r = await runCli(['run', 'scenarios/k-vecadd.yaml', '--set', 'mode=timing', '--set', 'deadlockCycles=1000', '--config-set', 'sm.count=2', '--config-set', 'l1d.missQueueEntries=1', '--stats', stats, '-q']);
    expect(r.code).toBe(3);
    expect(r.err).toMatch(/deadlock at \d+ ps/);
    expect(r.err).toMatch(/GPU\.SM\[0\]\.L1D: .*head blocked: missQueueFull/);
    expect(existsSync(stats)).toBe(true);
    const s = JSON.parse(readFileSync(stats, 'utf8'));
    expect(s.stop.reason).toBe('error');
    expect(s.stop.error).toMatch(/deadlock/);
    // Partial statistics: the L1D counted its failed attempts, no load completed a miss.
    expect(s.stats['GPU.SM[0].L1D.l1d_res_fail_missQueueFull']).toBeGreaterThan(100);
    expect(s.stats.gpu_l1d_misses).toBe(0);
    expect(s.stats.gpu_sim_cycle).toBeGreaterThan(1000);
  });
});
