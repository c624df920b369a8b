/**
 * The L1D with the NewCAR re-execution queue (paper 004 §3.4, Figs. 5-6; spec `warp-level.md`
 * §2.5 E, C10): hits under a reservation failure, Fig. 6 ordering within a warp, back-pressure
 * when the queue is full, and the same scripts with the queue off (GPGPU-Sim's head-of-line
 * block). Timings are derived by hand: links 1 cycle, L1D hit latency 5, memory 20 cycles, so a
 * miss looked up at cycle c is filled at c + 22 and answered to the LSU at c + 23.
 */
import { describe, expect, it } from 'vitest';
import { l1d, type L1dParams } from '../../../machines/l1d/l1d.ts';
import type { GpuMemRequest } from '../../../src/protocol/gpu.ts';
import { engine1GHz, fakeMem, memOf, probe, probeOf, rd, TEST_L1D, wr, type ScriptItem } from './harness.ts';

function run(script: ScriptItem[], newcarEntries: number | undefined, choice?: 'rotate' | 'oldest' | 'rewind') {
  const e = engine1GHz();
  const p: L1dParams = { smId: 2, cache: { ...TEST_L1D, mshrEntries: 1 }, l1dLatency: 5, ...(newcarEntries !== undefined ? { newcarEntries } : {}), ...(choice !== undefined ? { newcarChoice: choice } : {}) };
  e.addUnit('LSU', probe, 'core', { script });
  e.addUnit('L1D', l1d, 'core', p);
  e.addUnit('MEM', fakeMem, 'core', { latency: 20 });
  e.connect('LSU', 'out', 'L1D', 'topIn', { latencyCycles: 1, messagesPerCycle: 1 });
  e.connect('L1D', 'topOut', 'LSU', 'in', { latencyCycles: 1, messagesPerCycle: 4 });
  e.connect('L1D', 'bottomOut', 'MEM', 'req', { latencyCycles: 1 });
  e.connect('MEM', 'rsp', 'L1D', 'bottomIn', { latencyCycles: 1 });
  const r = e.run();
  expect(r.pendingUnits).toEqual([]);
  const lsu = probeOf(e, 'LSU');
  const answered = lsu.sent.map((s) => lsu.received.find((x) => x.msg.replyTo === s.msg.id)?.cycle ?? -1);
  const stat = (n: string) => e.stats.value(`L1D.${n}`);
  const car = () => ['enq_resfail', 'enq_order', 'processed', 'retry_fail', 'bypass', 'full_cycles', 'occupancy_sum'].map((n) => stat(`newcar_${n}`));
  const down = memOf(e, 'MEM').seen.map((d) => `${d.msg.kind === 'mem.writeReq' ? 'w' : 'r'}${(d.msg.payload as GpuMemRequest).addr}@${d.cycle}`);
  return { answered, stat, car, down };
}

const w = (warp: number) => ({ warp });

describe('l1d + NewCAR: a hit passes a request with a reservation failure (hit under miss)', () => {
  // line 256 is brought in first; then with 1 MSHR: warp 0 misses line 0 (MSHR held until its
  // fill at 53), warp 1's miss to line 128 fails (mshrFull), warp 2 reads line 256 (a hit)
  const script = [rd(0, 256, w(2)), rd(30, 0, w(0)), rd(30, 128, w(1)), rd(30, 256 + 32, w(2))];

  it('off: the hit waits behind the blocked head (memory conflict) until the fill frees the MSHR', () => {
    const { answered, stat } = run(script, undefined);
    // line 256: 1 -> 24; line 0: 31 -> 54; line 128 fails 32..52 (21), misses at 53 -> 76; the hit looks up at 54 -> 59 -> LSU 60
    expect(answered).toEqual([24, 54, 76, 60]);
    expect(stat('l1d_res_fail')).toBe(21);
    expect(stat('newcar_processed')).toBeUndefined(); // no NewCAR statistic without the queue
  });

  it('on: the failed request waits in the queue, the hit is answered 21 cycles earlier, the queued miss as before', () => {
    const { answered, stat, car } = run(script, 32);
    // 128 fails at 32 -> queued; the hit is looked up at 33 (the LSU has priority) -> 38 -> LSU 39;
    // the LSU idles from 34: 128 retried 34..52 (19 failures), accepted at 53 -> 76
    expect(answered).toEqual([24, 54, 76, 39]);
    expect(stat('l1d_res_fail')).toBe(20); // 1 at the first lookup + 19 retries
    // enq_resfail, enq_order, processed, retry_fail, bypass, full_cycles, occupancy_sum (1 entry at the end of 32..52: 21)
    expect(car()).toEqual([1, 0, 1, 19, 1, 0, 21]);
  });
});

describe('l1d + NewCAR: Fig. 6 ordering within a warp', () => {
  // warp 1: load line 128 (fails: mshrFull), store to line 384, load of line 256 (would hit);
  // warp 2: load of line 256 (a hit)
  const script = [rd(0, 256, w(2)), rd(30, 0, w(0)), rd(30, 128, w(1)), wr(30, 384, w(1)), rd(30, 256 + 32, w(1)), rd(30, 256 + 64, w(2))];

  it("a store does not pass its warp's queued load, a load does not pass its warp's queued store; another warp passes both", () => {
    const { answered, car, down } = run(script, 32);
    // 32: ld128 fails -> queued. 33: st384 may not bypass (W1 has a queued load) -> queued without
    // a lookup; the free lookup retries ld128 (fails). 34: ld288 may not bypass (W1 has a queued
    // store) -> queued; the lookup tries the next request allowed to leave after the cursor: st384
    // and ld288 may not (older W1 requests), so ld128 again (fails). 35: warp 2's ld320 bypasses:
    // hit -> 40 -> LSU 41. 36..52: ld128 fails. 53: fill of line 0, ld128 misses -> 76. 54: st384
    // (now the oldest of W1) goes down as a posted write, answered at once -> LSU 55. 55: ld288
    // hits -> 60 -> LSU 61.
    expect(answered).toEqual([24, 54, 76, 55, 61, 41]);
    // W1's requests reach the level below in program order: the line read of 128 before the write of 384
    expect(down).toEqual(['r256@2', 'r0@32', 'r128@54', 'w384@55']);
    // retries: 33, 34 and 36..52 (19); occupancy at the end of 32: 1, 33: 2, 34..52: 3 (19 cycles), 53: 2, 54: 1 -> 63
    expect(car()).toEqual([1, 2, 3, 19, 1, 0, 63]);
  });

  it('off: every request waits behind the blocked head, in arrival order', () => {
    const { answered, down } = run(script, undefined);
    // 128 fails 32..52, misses at 53 -> 76; st384 at 54 -> 55; ld288 hit at 55 -> 61; ld320 hit at 56 -> 62
    expect(answered).toEqual([24, 54, 76, 55, 61, 62]);
    expect(down).toEqual(['r256@2', 'r0@32', 'r128@54', 'w384@55']);
  });

  it('an atomic is ordered as a store (R-E5): it waits for its warp\'s queued load', () => {
    const { answered, car, down } = run([rd(0, 0, w(0)), rd(0, 128, w(1)), rd(0, 512, { warp: 1, atomic: true })], 32);
    // 1: ld0 misses (fill 23). 2: ld128 fails -> queued. 3: the atomic may not bypass -> queued;
    // ld128 retried 3..22 (20 failures), misses at 23 -> 46. 24: the atomic waits for the miss
    // queue to empty: ld128's line read left at 23, so it goes down at 24 -> MEM 25 -> 45 -> L1D 46 -> LSU 47
    expect(answered).toEqual([24, 46, 47]);
    expect(down).toEqual(['r0@2', 'r128@24', 'r512@25']);
    expect(car()).toEqual([1, 1, 2, 20, 0, 0, 1 + 2 * 20 + 1]);
  });
});

describe('l1d + NewCAR: a full queue stops taking requests from the LSU (back-pressure, 004 §3.4)', () => {
  // 2 entries; warps 1 and 2 miss (mshrFull) and fill the queue; warp 3's hit must wait for a free entry
  const script = [rd(0, 256, w(3)), rd(30, 0, w(0)), rd(30, 128, w(1)), rd(30, 384, w(2)), rd(30, 256 + 32, w(3))];

  it('rotate: the queue alternates its two requests while full; the hit is taken once an entry frees', () => {
    const { answered, car, stat } = run(script, 2, 'rotate');
    // 32: ld128 queued; 33: ld384 queued (full). 34..52: queue only, the cursor alternates ld128 (even
    // cycles) and ld384 (odd), 19 failures; 53: ld384 misses (fill 75 -> LSU 76). 54: an entry is
    // free: the hit (waiting in topIn since 34) is looked up -> 59 -> LSU 60. 55..74: ld128 fails (20),
    // 75: misses -> 98.
    expect(answered).toEqual([24, 54, 98, 76, 60]);
    // bypasses: ld384 at 33 (ld128 queued) and the hit at 54 (ld128 queued); full at the end of
    // 33..52 (20 cycles); occupancy 1 (end of 32) + 2 x 20 (33..52) + 1 x 22 (53..74)
    expect(car()).toEqual([2, 0, 2, 39, 2, 20, 1 + 40 + 22]);
    expect(stat('l1d_res_fail')).toBe(2 + 39);
  });

  it('rewind (default): the same, but the MSHR the fill frees goes to the oldest queued request', () => {
    const { answered, car } = run(script, 2);
    // as above up to 52; 53: the fill puts the cursor back to the oldest: ld128 misses (-> 76);
    // 54: the hit (-> 60); 55..74: ld384 fails (20); 75: misses -> 98
    expect(answered).toEqual([24, 54, 76, 98, 60]);
    expect(car()).toEqual([2, 0, 2, 39, 2, 20, 1 + 40 + 22]);
  });
});
