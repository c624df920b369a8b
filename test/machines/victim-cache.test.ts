/**
 * victimCache (machines/victim-cache): unit test on the port harness with hand-derived cycles,
 * and the same block enabled in a whole GPU by config alone (scenario `gpu.extensions`).
 */
import { describe, expect, it } from 'vitest';
import { l1d, type L1dParams } from '../../machines/l1d/l1d.ts';
import { victimCache } from '../../machines/victim-cache/victim-cache.ts';
import { loadScenario } from '../../src/scenario/loader.ts';
import { runKernelScenarioTiming } from '../../src/scenario/timing-run.ts';
import { engine1GHz, fakeMem, memOf, probe, probeOf, type ScriptItem } from './gpu-memory/harness.ts';

const rd = (cycle: number, addr: number): ScriptItem => ({ cycle, kind: 'mem.readReq', payload: { addr, size: 32, sm: 0 } });
const wr = (cycle: number, addr: number): ScriptItem => ({ cycle, kind: 'mem.writeReq', payload: { addr, size: 32, sm: 0 } });

/**
 * LSU probe -> L1D (one 128-byte line, hit latency 5) -> victim cache (4 lines, hit latency 2)
 * -> fake memory (latency 20); every link 1 cycle; the L1D's evict port taps into the victim cache.
 */
function run(script: ScriptItem[]) {
  const e = engine1GHz();
  const l1: L1dParams = {
    smId: 0,
    cache: { sets: 1, ways: 1, lineBytes: 128, setIndex: 'linear', replacement: 'lru', allocate: 'onMiss', writeHit: 'localWbGlobalWe', writeMiss: 'noWriteAllocate', mshrEntries: 4, mshrMaxMerge: 4, missQueueSize: 4 },
    l1dLatency: 5,
  };
  e.addUnit('LSU', probe, 'core', { script });
  e.addUnit('L1D', l1d, 'core', l1);
  e.addUnit('VC', victimCache, 'core', { entries: 4, lineBytes: 128, hitLatencyCycles: 2 });
  e.addUnit('MEM', fakeMem, 'core', { latency: 20 });
  const one = { latencyCycles: 1 };
  e.connect('LSU', 'out', 'L1D', 'topIn', one);
  e.connect('L1D', 'topOut', 'LSU', 'in', one);
  e.connect('L1D', 'bottomOut', 'VC', 'topIn', one);
  e.connect('VC', 'topOut', 'L1D', 'bottomIn', one);
  e.connect('VC', 'bottomOut', 'MEM', 'req', one);
  e.connect('MEM', 'rsp', 'VC', 'bottomIn', one);
  e.connect('L1D', 'evict', 'VC', 'evict', one);
  const r = e.run();
  expect(r.pendingUnits).toEqual([]);
  const lsu = probeOf(e, 'LSU');
  const answered = lsu.sent.map((s) => lsu.received.find((x) => x.msg.replyTo === s.msg.id)?.cycle ?? -1);
  const seen = memOf(e, 'MEM').seen.map((x) => `${x.msg.kind === 'mem.readReq' ? 'R' : 'W'}${(x.msg.payload as { addr: number }).addr}`);
  const stat = (n: string) => e.stats.value(`VC.vc_${n}`);
  return { answered, seen, stat, evictions: e.stats.value('L1D.l1d_evictions') };
}

describe('victimCache', () => {
  it('holds the L1D victim and answers its re-read two cycles after the lookup, without a memory access', () => {
    const { answered, seen, stat, evictions } = run([rd(0, 0), rd(40, 128), rd(80, 0)]);
    // miss A: L1D 1 -> VC 2 (miss, down) -> MEM 3 -> 23 -> VC 24 -> L1D 25 (fill) -> LSU 26
    // miss B: L1D 41 evicts A (announced) -> VC 42 inserts A, B misses -> MEM 43 -> 63 -> VC 64 -> L1D 65 -> LSU 66
    // re-read A: L1D 81 evicts B -> VC 82 inserts B, A hits -> fill leaves 82 + 2 = 84 -> L1D 85 -> LSU 86
    expect(answered).toEqual([26, 66, 86]);
    expect(seen).toEqual(['R0', 'R128']);
    expect([stat('hits'), stat('misses'), stat('inserts'), stat('invalidations')]).toEqual([1, 2, 2, 0]);
    expect(evictions).toBe(2);
  });

  it('a write to a held line invalidates it: the next read goes to memory', () => {
    const { answered, seen, stat } = run([rd(0, 0), rd(40, 128), wr(80, 0), rd(120, 0)]);
    // The global write (Fermi write-evict, no write-allocate) goes down as a posted write through the
    // victim cache, which drops its copy of line 0; the re-read at 120 misses everywhere:
    // L1D 121 (miss; the victim line 128 was clean) -> VC 122 -> MEM 123 -> 143 -> VC 144 -> L1D 145 -> LSU 146.
    expect(seen).toEqual(['R0', 'R128', 'W0', 'R0']);
    expect(answered[3]).toBe(146);
    expect([stat('hits'), stat('invalidations')]).toEqual([0, 1]);
  });
});

describe('victimCache in the GPU, enabled by config alone', () => {
  it('splices into every SM, keeps results exact, and removes L2 traffic on a kernel that thrashes a small L1D', () => {
    const withVc = runKernelScenarioTiming(loadScenario('scenarios/ext-victim-cache.yaml'));
    expect(withVc.passed).toBe(true);
    const without = runKernelScenarioTiming(loadScenario('scenarios/ext-victim-cache.yaml', ['gpu.extensions=[]']));
    expect(without.passed).toBe(true);
    const s = (r: typeof withVc, n: string) => r.engine.stats.value(n) ?? 0;
    expect(withVc.engine.unitNames()).toContain('GPU.SM[0].VC');
    expect(s(withVc, 'gpu_vc_hits')).toBeGreaterThan(0);
    // Every victim-cache hit is an L1D miss that never reached the L2.
    expect(s(withVc, 'gpu_l2_accesses')).toBeLessThan(s(without, 'gpu_l2_accesses'));
    expect(s(without, 'gpu_l2_accesses') - s(withVc, 'gpu_l2_accesses')).toBeGreaterThanOrEqual(s(withVc, 'gpu_vc_hits') * 0.5);
  });
});
