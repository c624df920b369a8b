/**
 * The LSU's texture path (GPGPU-Sim `ldst_unit::texture_cycle` and `tex_cache`): texels grouped
 * into distinct texture lines, one texture-cache access per cycle, line reads marked `tex` on the
 * L1D port, results leaving the in-order fragment FIFO one per cycle; without a texture cache the
 * lines are plain line reads to the L1D. Cycles derived by hand on the port harness (every link 1
 * cycle, a fake L1D answering 10 cycles after arrival).
 */
import { describe, expect, it } from 'vitest';
import { smLsu, type SmLsuParams } from '../../../machines/sm-lsu/sm-lsu.ts';
import type { GpuMemRequest, LsuDispatch, Writeback } from '../../../src/protocol/gpu.ts';
import { StateSpace } from '../../../src/isa/ir.ts';
import { engine1GHz, fakeMem, memOf, probe, probeOf, type ScriptItem } from './harness.ts';

const FULL = 0xffffffff;
const lanes = (f: (l: number) => number) => Array.from({ length: 32 }, (_, l) => f(l));
/** Texture cache: 4 sets x 24 ways x 128 B (GTX480's L1T), fragment FIFO 128, request FIFO 4, ROB 128, result FIFO 2. */
const TEX = { sets: 4, ways: 24, lineBytes: 128, fragmentFifoEntries: 128, requestFifoEntries: 4, robEntries: 128, resultFifoEntries: 2, hitLatency: 1 };

function tex(cycle: number, seq: number, texels: number[]): ScriptItem {
  const d: LsuDispatch = { warp: seq % 4, space: StateSpace.Tex, isLoad: true, bytes: 4, mask: FULL, addresses: lanes(() => 4096), dst: [seq + 10], seq, atomic: false, texels };
  return { cycle, kind: 'lsu.dispatch', payload: d };
}

function run(script: ScriptItem[], over: Partial<SmLsuParams> = {}) {
  const e = engine1GHz();
  const p: SmLsuParams = { smId: 3, sharedMemLatency: 20, constLatency: 8, l1dPortWidth: 1, sharedMem: { banks: 32, bankWidthBytes: 4 }, texCache: TEX, ...over };
  e.addUnit('ISSUE', probe, 'core', { script });
  e.addUnit('LSU', smLsu, 'core', p);
  e.addUnit('L1D', fakeMem, 'core', { latency: 10 });
  e.connect('ISSUE', 'out', 'LSU', 'topIn', { latencyCycles: 1 });
  e.connect('LSU', 'topOut', 'ISSUE', 'in', { latencyCycles: 1 });
  e.connect('LSU', 'bottomOut', 'L1D', 'req', { latencyCycles: 1, messagesPerCycle: 1 });
  e.connect('L1D', 'rsp', 'LSU', 'bottomIn', { latencyCycles: 1, messagesPerCycle: 64 });
  const r = e.run();
  e.finalize();
  expect(r.pendingUnits).toEqual([]);
  const wbs = probeOf(e, 'ISSUE').received.flatMap((x) => {
    const pl = x.msg.payload as Writeback | { items: Writeback[] };
    return ('items' in pl ? pl.items : [pl]).map((w) => ({ cycle: x.cycle, ...w }));
  });
  const reqs = memOf(e, 'L1D').seen.map((x) => ({ cycle: x.cycle, ...(x.msg.payload as GpuMemRequest) }));
  return { e, wbs, reqs };
}

/** A linear 1D fetch of 32 lanes: lane l reads texels 4096 + 4l and 4096 + 4l + 4 (lines 4096 and 4224). */
const linearRow = Array.from({ length: 32 }, (_, l) => [4096 + 4 * l, 4100 + 4 * l]).flat();

describe('smLsu: texture fetches through the texture cache', () => {
  it('groups 64 texels into 2 lines, misses both, and writes back when both returned', () => {
    const { e, wbs, reqs } = run([tex(0, 1, linearRow)]);
    // LSU 1: access line 4096 (miss); 2: its read leaves (L1D 3), access 4224 (miss); 3: read 4224 leaves (L1D 4)
    expect(reqs).toEqual([
      { cycle: 3, addr: 4096, size: 128, sm: 3, tex: true },
      { cycle: 4, addr: 4224, size: 128, sm: 3, tex: true },
    ]);
    // fills at LSU 14 and 15; ROB head ready 14 -> result FIFO, popped 15; second result 15, popped 16 -> ISSUE 17
    expect(wbs).toEqual([{ cycle: 17, warp: 1, dst: [11], seq: 1, longLatency: true }]);
    expect(e.stats.value('LSU.insts_tex')).toBe(1);
    expect(e.stats.value('LSU.tex_texels')).toBe(64);
    expect(e.stats.value('LSU.tex_lines')).toBe(2);
    expect(e.stats.value('LSU.tex_accesses')).toBe(2);
    expect(e.stats.value('LSU.tex_misses')).toBe(2);
    expect(e.stats.value('LSU.tex_hits')).toBe(0);
    // the global counters do not see texture fetches
    expect(e.stats.value('LSU.transactions')).toBe(0);
  });

  it('a later fetch of a line already allocated hits, and waits behind an older miss in the fragment FIFO', () => {
    // fetch 1: line 4096 (miss at LSU 1); fetch 2 (accepted 2): lines 4096 (hit at 2) and 8192 (miss at 3)
    const { e, wbs, reqs } = run([tex(0, 1, lanes((l) => 4096 + 4 * l)), tex(0, 2, [...lanes((l) => 4096 + 4 * l), 8192])]);
    expect(reqs.map((r) => [r.cycle, r.addr])).toEqual([
      [3, 4096],
      [5, 8192],
    ]);
    expect(e.stats.value('LSU.tex_hits')).toBe(1);
    expect(e.stats.value('LSU.tex_misses')).toBe(2);
    // fill 4096 at LSU 14 -> result 14, popped 15 (fetch 1 done: ISSUE 16); the hit leaves 15,
    // popped 16; fill 8192 at LSU 16 -> result 16, popped 17 (fetch 2 done: ISSUE 18)
    expect(wbs.map((w) => [w.seq, w.cycle])).toEqual([
      [1, 16],
      [2, 18],
    ]);
  });

  it('a full reorder buffer is a reservation failure: the access retries every cycle', () => {
    const { e, reqs } = run([tex(0, 1, [4096, 4224, 4352])], { texCache: { ...TEX, requestFifoEntries: 1, robEntries: 1 } });
    // ROB of 1. Line 4096: accessed at LSU 1, read leaves 2 (L1D 3), filled at LSU 14, where its
    // fragment moves to the result FIFO and frees the ROB entry: line 4224, refused at 2..13, is
    // accepted at 14, leaves 15 (L1D 16), filled 27; line 4352, refused 15..26, accepted 27, leaves 28 (L1D 29).
    expect(reqs.map((r) => [r.cycle, r.addr])).toEqual([
      [3, 4096],
      [16, 4224],
      [29, 4352],
    ]);
    expect(e.stats.value('LSU.tex_res_fail_robFull')).toBe(24);
    // the line read leaves before the cycle's access: the 1-entry request FIFO is never full then
    expect(e.stats.value('LSU.tex_res_fail_requestFifoFull')).toBe(0);
    expect(e.stats.value('LSU.tex_res_fail')).toBe(24);
    expect(e.stats.value('LSU.tex_stall_cycles')).toBe(24);
  });
});

describe('smLsu: texture fetches without a texture cache', () => {
  it('sends each distinct line as a plain L1D line read of texLineBytes', () => {
    const { e, wbs, reqs } = run([tex(0, 1, linearRow)], { texCache: undefined, texLineBytes: 128 });
    // accepted at 1: both lines leave at 1 and 2 (port width 1): L1D 2, 3; answered 12, 13 -> LSU 13, 14 -> ISSUE 15
    // (each carries the fetching warp slot, for the L1D's NewCAR ordering)
    expect(reqs).toEqual([
      { cycle: 2, addr: 4096, size: 128, sm: 3, warp: 1 },
      { cycle: 3, addr: 4224, size: 128, sm: 3, warp: 1 },
    ]);
    expect(wbs.map((w) => w.cycle)).toEqual([15]);
    expect(e.stats.value('LSU.tex_lines')).toBe(2);
    expect(e.stats.value('LSU.tex_accesses')).toBeUndefined();
  });

  it('registers no texture statistic in a run without texture fetches', () => {
    const d: LsuDispatch = { warp: 0, space: StateSpace.Global, isLoad: true, bytes: 4, mask: FULL, addresses: lanes((l) => 4096 + 4 * l), dst: [1], seq: 0, atomic: false };
    const { e } = run([{ cycle: 0, kind: 'lsu.dispatch', payload: d }]);
    expect(e.stats.value('LSU.insts_tex')).toBeUndefined();
    expect(e.stats.value('LSU.tex_accesses')).toBeUndefined();
  });
});
