import { describe, expect, it } from 'vitest';
import { l1d, type L1dParams } from '../../../machines/l1d/l1d.ts';
import type { GpuMemRequest, GpuMemResponse } from '../../../src/protocol/gpu.ts';
import type { CacheParams } from '../../../src/model/mem/cache.ts';
import { engine1GHz, fakeMem, memOf, probe, probeOf, rd, TEST_L1D, wr, type ScriptItem } from './harness.ts';


/** LSU probe -> L1D (latency 5) -> fake lower memory (latency 20); links 1 cycle, `width` messages per cycle. */
function run(script: ScriptItem[], cache: Partial<CacheParams> = {}, over: Partial<L1dParams> = {}, width = 1) {
  const e = engine1GHz();
  const p: L1dParams = { smId: 2, cache: { ...TEST_L1D, ...cache }, l1dLatency: 5, ...over };
  e.addUnit('LSU', probe, 'core', { script });
  e.addUnit('L1D', l1d, 'core', p);
  e.addUnit('MEM', fakeMem, 'core', { latency: 20 });
  e.connect('LSU', 'out', 'L1D', 'topIn', { latencyCycles: 1, messagesPerCycle: width });
  e.connect('L1D', 'topOut', 'LSU', 'in', { latencyCycles: 1, messagesPerCycle: 4 });
  e.connect('L1D', 'bottomOut', 'MEM', 'req', { latencyCycles: 1 });
  e.connect('MEM', 'rsp', 'L1D', 'bottomIn', { latencyCycles: 1 });
  const r = e.run();
  expect(r.pendingUnits).toEqual([]);
  const lsu = probeOf(e, 'LSU');
  // answer cycle per request, in script order
  const answered = lsu.sent.map((s) => lsu.received.find((r) => r.msg.replyTo === s.msg.id)?.cycle ?? -1);
  const stat = (n: string) => e.stats.value(`L1D.l1d_${n}`);
  return { e, answered, down: memOf(e, 'MEM').seen, stat, lsu };
}

describe('l1d', () => {
  it('a miss goes down and is answered by the fill; a later hit takes exactly l1dLatency', () => {
    const { answered, down, stat } = run([rd(0, 1024), rd(30, 1024 + 64)]);
    // miss: L1D 1 -> down 1 -> MEM 2 -> answered 22 -> L1D 23 (fill, answer) -> LSU 24
    // hit: L1D 31 -> answer 31 + 5 = 36 -> LSU 37
    expect(answered).toEqual([24, 37]);
    expect(down).toHaveLength(1);
    expect(down[0]!.msg.kind).toBe('mem.readReq');
    expect(down[0]!.msg.payload).toEqual({ addr: 1024, size: 128, sm: 2 });
    expect([stat('accesses'), stat('hits'), stat('misses'), stat('hit_reserved'), stat('res_fail')]).toEqual([2, 1, 1, 0, 0]);
  });

  it('two misses to one line merge in the MSHR: one request goes down, both are answered by its fill', () => {
    const { answered, down, stat } = run([rd(0, 256), rd(1, 256 + 96)]);
    expect(down).toHaveLength(1);
    expect(answered).toEqual([24, 24]);
    expect([stat('misses'), stat('hit_reserved')]).toEqual([1, 1]);
  });

  it('mshrFull: 1 MSHR and misses to two lines; the second retries every cycle until the fill frees the entry', () => {
    const { answered, down, stat } = run([rd(0, 0), rd(0, 128)], { mshrEntries: 1 });
    // second arrives 2, fails 2..22 (21 attempts), misses at 23 (after the fill), down 23 -> MEM 24 -> 44 -> L1D 45 -> LSU 46
    expect(answered).toEqual([24, 46]);
    expect(down.map((d) => d.cycle)).toEqual([2, 24]);
    expect(stat('res_fail_mshrFull')).toBe(21);
    expect(stat('res_fail')).toBe(21);
    expect([stat('res_fail_mshrMergeFull'), stat('res_fail_missQueueFull'), stat('res_fail_noLineToAllocate')]).toEqual([0, 0, 0]);
    expect(stat('accesses')).toBe(2);
  });

  it('mshrMergeFull: an entry holding mshrMaxMerge requests refuses a third; it hits after the fill', () => {
    const { answered, down, stat } = run([rd(0, 512), rd(0, 512 + 32), rd(0, 512 + 64)], { mshrMaxMerge: 2 });
    // arrivals 1, 2, 3; third fails 3..22 (20), hits at 23 -> answered 28 -> LSU 29
    expect(down).toHaveLength(1);
    expect(answered).toEqual([24, 24, 29]);
    expect(stat('res_fail_mshrMergeFull')).toBe(20);
    expect([stat('misses'), stat('hit_reserved'), stat('hits')]).toEqual([1, 1, 1]);
  });

  it('missQueueFull: a read miss needs two miss-queue entries; with 2 the second miss of a cycle waits one cycle', () => {
    const { answered, down, stat } = run([rd(0, 0), rd(0, 128)], { missQueueSize: 2 }, { requestsPerCycle: 2 }, 2);
    // both arrive at 1; the first fills the queue to 1 entry; the second fails once and misses at 2
    expect(stat('res_fail_missQueueFull')).toBe(1);
    expect(stat('res_fail')).toBe(1);
    expect(down.map((d) => d.cycle)).toEqual([2, 3]);
    expect(answered).toEqual([24, 25]);
  });

  it('noLineToAllocate: one set of one way reserved by a miss blocks a miss to another line until the fill', () => {
    const { answered, stat } = run([rd(0, 0), rd(0, 128)], { sets: 1, ways: 1 });
    expect(stat('res_fail_noLineToAllocate')).toBe(21);
    expect(answered).toEqual([24, 46]);
  });

  it('Fermi write-evict: a global write invalidates the line and goes down as a posted write, acknowledged when sent', () => {
    const { answered, down, stat } = run([rd(0, 2048), wr(30, 2048 + 8), rd(40, 2048)]);
    // write: L1D 31, down and acked 31 -> LSU 32; the reread misses again: L1D 41 -> MEM 42 -> 62 -> 63 -> 64
    expect(answered).toEqual([24, 32, 64]);
    expect(down.map((d) => [d.msg.kind, (d.msg.payload as GpuMemRequest).addr, (d.msg.payload as GpuMemRequest).size])).toEqual([
      ['mem.readReq', 2048, 128],
      ['mem.writeReq', 2048 + 8, 32],
      ['mem.readReq', 2048, 128],
    ]);
    expect([stat('hits'), stat('misses')]).toEqual([1, 2]);
  });

  it('a write miss is not allocated; a local write hit is kept (write-back) and answered after l1dLatency', () => {
    const { answered, down, lsu } = run([wr(0, 4096), rd(10, 8192, { local: true }), wr(40, 8192 + 4, { local: true }), rd(50, 8192, { local: true })]);
    // write miss: down at 1, acked -> 2. local read miss -> 11..34; local write hit at 41 -> 46 -> 47; reread hit 51 -> 57
    expect(answered).toEqual([2, 34, 47, 57]);
    expect(down.map((d) => d.msg.kind)).toEqual(['mem.writeReq', 'mem.readReq']);
    const writeAck = lsu.received.find((r) => r.msg.replyTo === lsu.sent[2]!.msg.id)!;
    expect((writeAck.msg.payload as GpuMemResponse).write).toBe(true);
  });

  it('write-allocate under write-evict: the line is fetched and the write sent down; the write is answered when sent, the fill answers nothing', () => {
    const { answered, down } = run([wr(0, 0), rd(30, 64)], { writeHit: 'writeEvict', writeMiss: 'writeAllocate' });
    // write: L1D 1, read and write down at 1, acked -> 2; fill at 23; read at 31 hits -> 36 -> 37
    expect(answered).toEqual([2, 37]);
    expect(down.map((d) => d.msg.kind)).toEqual(['mem.readReq', 'mem.writeReq']);
  });

  it('atomics bypass the cache and are answered with the response from below', () => {
    const { answered, down, stat, e } = run([rd(0, 640, { atomic: true }), rd(0, 640, { atomic: true })]);
    expect(down).toHaveLength(2);
    expect(down.every((d) => (d.msg.payload as GpuMemRequest).atomic === true)).toBe(true);
    expect(answered).toEqual([24, 25]);
    expect(stat('accesses')).toBe(0);
    expect(e.stats.value('L1D.l1d_atomics')).toBe(2);
  });

  it('emits miss and resFail spans with their reason when traced', () => {
    const e = engine1GHz();
    e.addUnit('LSU', probe, 'core', { script: [rd(0, 0), rd(0, 128)] });
    e.addUnit('L1D', l1d, 'core', { smId: 0, cache: { ...TEST_L1D, mshrEntries: 1 }, l1dLatency: 5 } satisfies L1dParams);
    e.addUnit('MEM', fakeMem, 'core', { latency: 20 });
    e.connect('LSU', 'out', 'L1D', 'topIn', { latencyCycles: 1 });
    e.connect('L1D', 'topOut', 'LSU', 'in', { latencyCycles: 1 });
    e.connect('L1D', 'bottomOut', 'MEM', 'req', { latencyCycles: 1 });
    e.connect('MEM', 'rsp', 'L1D', 'bottomIn', { latencyCycles: 1 });
    const spans: { name: string; start: number; end: number; reason?: string }[] = [];
    e.spans$.subscribe((s) => spans.push(s));
    e.run();
    expect(spans.filter((s) => s.name === 'resFail')).toEqual([expect.objectContaining({ start: 2000, end: 23000, reason: 'mshrFull' })]);
    expect(spans.filter((s) => s.name === 'miss').map((s) => [s.start, s.end])).toEqual([
      [1000, 23000],
      [23000, 45000],
    ]);
  });
});

describe('l1d lifecycle (ctrl / status ports)', () => {
  /** LSU probe and a controller probe on the L1D's ctrl/status; lower memory latency 20. */
  function runCtrl(script: ScriptItem[], ctrl: ScriptItem[]) {
    const e = engine1GHz();
    e.addUnit('LSU', probe, 'core', { script });
    e.addUnit('CTRL', probe, 'core', { script: ctrl });
    e.addUnit('L1D', l1d, 'core', { smId: 2, cache: TEST_L1D, l1dLatency: 5 } satisfies L1dParams);
    e.addUnit('MEM', fakeMem, 'core', { latency: 20 });
    const one = { latencyCycles: 1 };
    e.connect('LSU', 'out', 'L1D', 'topIn', one);
    e.connect('L1D', 'topOut', 'LSU', 'in', one);
    e.connect('L1D', 'bottomOut', 'MEM', 'req', one);
    e.connect('MEM', 'rsp', 'L1D', 'bottomIn', one);
    e.connect('CTRL', 'out', 'L1D', 'ctrl', one);
    e.connect('L1D', 'status', 'CTRL', 'in', one);
    e.run();
    e.finalize();
    const lsu = probeOf(e, 'LSU');
    const answered = lsu.sent.map((s) => lsu.received.find((r) => r.msg.replyTo === s.msg.id)?.cycle ?? -1);
    const acks = probeOf(e, 'CTRL').received.map((r) => `${(r.msg.payload as { state: string }).state}@${r.cycle}`);
    return { e, answered, acks };
  }
  const c = (cycle: number, kind: string): ScriptItem => ({ cycle, kind, payload: {} });

  it('pause: finishes the miss it holds, acknowledges paused when empty, accepts nothing until resumed', () => {
    const { answered, acks, e } = runCtrl([rd(0, 0), rd(5, 128)], [c(2, 'ctrl.pause'), c(40, 'ctrl.resume')]);
    // pause reaches the L1D at 3 (draining, acked at 4); the miss fills at 23 and is answered then:
    // nothing is held, so paused at 23 (acked at 24). The read sent at 5 waits in topIn until the
    // resume reaches the L1D at 41: miss, down 41 -> MEM 42 -> 62 -> L1D 63 -> LSU 64.
    expect(acks).toEqual(['draining@4', 'paused@24', 'active@42']);
    expect(answered).toEqual([24, 64]);
    // Cycles per state, closed at the end of the run (cycle 64): draining 3..23, paused 23..41.
    expect(e.stats.value('L1D.lifecycle_draining_cycles')).toBe(20);
    expect(e.stats.value('L1D.lifecycle_paused_cycles')).toBe(18);
  });

  it('gate: refused while a miss is held, accepted when empty; a request to a gated L1D is a simulation error', () => {
    const refused = runCtrl([rd(0, 0)], [c(5, 'ctrl.gate')]);
    expect(refused.acks).toEqual([]);
    expect(refused.answered).toEqual([24]);
    const gated = runCtrl([rd(0, 0)], [c(30, 'ctrl.gate'), c(50, 'ctrl.wake')]);
    expect(gated.acks).toEqual(['gated@32', 'active@52']);
    expect(gated.e.stats.value('L1D.lifecycle_gated_cycles')).toBe(20);
    expect(() => runCtrl([rd(0, 0), rd(40, 128)], [c(30, 'ctrl.gate')])).toThrow(/power-gated/);
  });
});
