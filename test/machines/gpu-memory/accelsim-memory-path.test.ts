/**
 * Memory-side differences with Accel-Sim (issue 10 item 1), each derived from the GTX 1080
 * config and GPGPU-Sim's documented order of work:
 * - `-gpgpu_gmem_skip_L1D 1`: global loads and stores bypass the L1D (ldst_unit::memory_cycle);
 * - the L2 looks a request up one cycle after its ROP delay, and a filled MSHR entry releases
 *   one request per cycle from the cycle after the fill (memory_sub_partition::cache_cycle);
 * - the L2 data port (`<data_port_width>`): hits and fills hold it size / width cycles;
 * - the L2's `W` write-allocate policy is GPGPU-Sim 4.x's naive one (wr_miss_wa_naive): the write
 *   goes to DRAM and the line is fetched clean.
 */
import { describe, expect, it } from 'vitest';
import { l1d, type L1dParams } from '../../../machines/l1d/l1d.ts';
import { l2Slice, type L2SliceParams } from '../../../machines/l2-slice/l2-slice.ts';
import { importGpgpusimConfig } from '../../../src/config/index.ts';
import { CacheController, CacheOutcome, MissKind, MissRequest, type CacheParams } from '../../../src/model/mem/cache.ts';
import type { GpuMemRequest } from '../../../src/protocol/gpu.ts';
import { GpuContext } from '../../../src/model/gpu-context.ts';
import { gpuTopology } from '../../../src/topology/gpu.ts';
import { engine1GHz, fakeMem, memOf, probe, probeOf, rd, TEST_L1D, wr, type ScriptItem } from './harness.ts';

const GTX1080 = 'data/accelsim-traces/gtx1080-config/gpgpusim.config';


/** LSU probe -> L1D (hit latency 5) -> fake memory (latency 20); every link 1 cycle. */
function runL1d(script: ScriptItem[], skipGlobal: boolean) {
  const e = engine1GHz();
  const p: L1dParams = { smId: 2, cache: TEST_L1D, l1dLatency: 5, skipGlobal };
  e.addUnit('LSU', probe, 'core', { script });
  e.addUnit('L1D', l1d, 'core', p);
  e.addUnit('MEM', fakeMem, 'core', { latency: 20 });
  e.connect('LSU', 'out', 'L1D', 'topIn', { latencyCycles: 1 });
  e.connect('L1D', 'topOut', 'LSU', 'in', { latencyCycles: 1, messagesPerCycle: 4 });
  e.connect('L1D', 'bottomOut', 'MEM', 'req', { latencyCycles: 1 });
  e.connect('MEM', 'rsp', 'L1D', 'bottomIn', { latencyCycles: 1 });
  const r = e.run();
  expect(r.pendingUnits).toEqual([]);
  const lsu = probeOf(e, 'LSU');
  const answered = lsu.sent.map((s) => lsu.received.find((x) => x.msg.replyTo === s.msg.id)?.cycle ?? -1);
  const stat = (n: string) => e.stats.value(`L1D.l1d_${n}`);
  return { answered, down: memOf(e, 'MEM').seen, stat };
}

describe('L1D bypass of global accesses (-gpgpu_gmem_skip_L1D 1)', () => {
  it('a global load goes down as it is (no line fill), is not an L1D access, and a reread goes down again', () => {
    const { answered, down, stat } = runL1d([rd(0, 1024), rd(30, 1024)], true);
    // L1D 1 -> down 1 -> MEM 2 -> answered 22 -> L1D 23 -> LSU 24; the reread: L1D 31 -> 54
    expect(answered).toEqual([24, 54]);
    expect(down.map((d) => [d.msg.kind, (d.msg.payload as GpuMemRequest).size])).toEqual([
      ['mem.readReq', 32],
      ['mem.readReq', 32],
    ]);
    expect([stat('accesses'), stat('misses'), stat('bypassed')]).toEqual([0, 0, 2]);
  });

  it('without the option the same reread hits the line the first load filled', () => {
    const { answered, down, stat } = runL1d([rd(0, 1024), rd(30, 1024)], false);
    expect(answered).toEqual([24, 37]); // hit: L1D 31 + 5 -> LSU 37
    expect(down).toHaveLength(1);
    expect([stat('accesses'), stat('bypassed')]).toEqual([2, 0]);
  });

  it('a global store is posted: answered when it goes down; local accesses still use the cache', () => {
    const { answered, down, stat } = runL1d([wr(0, 2048), rd(10, 4096, { local: true }), rd(40, 4096 + 32, { local: true })], true);
    // store: L1D 1, sent down and answered 1 -> LSU 2; local miss: L1D 11 -> line read -> 12 ->
    // 32 -> L1D 33 -> LSU 34; local hit: L1D 41 + 5 -> LSU 47
    expect(answered).toEqual([2, 34, 47]);
    expect(down.map((d) => [d.msg.kind, (d.msg.payload as GpuMemRequest).size])).toEqual([
      ['mem.writeReq', 32],
      ['mem.readReq', 128],
    ]);
    expect([stat('bypassed'), stat('accesses'), stat('hits'), stat('misses')]).toEqual([1, 2, 1, 1]);
  });

  it('the GTX 1080 config sets the option on every L1D of the topology', () => {
    const { config } = importGpgpusimConfig(GTX1080);
    expect(config.l1d.skipGlobal).toBe(true);
    const t = gpuTopology(config, new GpuContext(), []);
    const l1ds = t.units.filter((u) => u.definition === l1d);
    expect(l1ds).toHaveLength(config.sm.count);
    expect(l1ds.every((u) => (u.spec as L1dParams).skipGlobal === true)).toBe(true);
  });
});

describe('L2 slice: lookup one cycle after the ROP delay (memory_sub_partition::cache_cycle)', () => {
  const L2: CacheParams = { ...TEST_L1D, writeHit: 'writeBack', writeMiss: 'writeAllocate', mshrEntries: 8, setIndex: 'linear' };
  function runL2(script: ScriptItem[], spec: Partial<L2SliceParams>, cache: Partial<CacheParams> = {}) {
    const e = engine1GHz();
    e.addUnit('ICNT', probe, 'core', { script });
    e.addUnit('L2', l2Slice, 'core', { cache: { ...L2, ...cache }, ropLatency: 10, ...spec } satisfies L2SliceParams);
    e.addUnit('DRAM', fakeMem, 'core', { latency: 30 });
    e.connect('ICNT', 'out', 'L2', 'topIn', { latencyCycles: 1 });
    e.connect('L2', 'topOut', 'ICNT', 'in', { latencyCycles: 1 });
    e.connect('L2', 'bottomOut', 'DRAM', 'req', { latencyCycles: 1 });
    e.connect('DRAM', 'rsp', 'L2', 'bottomIn', { latencyCycles: 1 });
    expect(e.run().pendingUnits).toEqual([]);
    const p = probeOf(e, 'ICNT');
    const answered = p.sent.map((s) => p.received.find((x) => x.msg.replyTo === s.msg.id)?.cycle ?? -1);
    const dram = memOf(e, 'DRAM').seen.map((s) => [s.msg.kind, (s.msg.payload as GpuMemRequest).addr, (s.msg.payload as GpuMemRequest).size, s.cycle]);
    return { answered, dram, stat: (n: string) => e.stats.value(`L2.l2_${n}`) };
  }

  it('a hit arriving at cycle t is looked up at t + rop + 1 (the icnt->L2 queue stage)', () => {
    // miss: L2 1, lookup 12, DRAM 13 -> 43 -> fill 44, released 45 (next_access the cycle after
    // the fill) -> 46; the hit arrives at 51: ROP ready 61, icnt->L2 queue, lookup 62 -> 63
    expect(runL2([rd(0, 0, { size: 128 }), rd(50, 64, { size: 128 })], { accessLatency: 1 }).answered).toEqual([46, 63]);
    // without the stage (accessLatency 0): lookups at 11 and 61
    expect(runL2([rd(0, 0, { size: 128 }), rd(50, 64, { size: 128 })], { accessLatency: 0 }).answered).toEqual([45, 62]);
  });

  it('data port: a 128-byte hit holds a 32-byte port 4 cycles, so the next lookup waits (GPGPU-Sim use_data_port)', () => {
    // line 0 filled by a miss (answered 46); hits arrive 61, 62, 63: ROP ready 71, 72, 73 ->
    // lookups 72, 76 (port busy 72..75), 80 -> answered 73, 77, 81; 32-byte hits take 1 cycle
    const big = (c: number) => rd(c, 0, { size: 128 });
    expect(runL2([big(0), big(60), big(61), big(62)], { accessLatency: 1, dataPortBytes: 32 }).answered).toEqual([46, 73, 77, 81]);
    const small = (c: number) => rd(c, 0, { size: 32 });
    expect(runL2([small(0), small(60), small(61), small(62)], { accessLatency: 1, dataPortBytes: 32 }).answered).toEqual([46, 73, 74, 75]);
    expect(runL2([big(0), big(60), big(61), big(62)], { accessLatency: 1 }).answered).toEqual([46, 73, 74, 75]);
  });

  it('fill port: two fills arriving together are installed lineBytes / width = 4 cycles apart', () => {
    // misses to lines 0 and 128 (different sets) looked up 12 and 13 -> DRAM 13, 14 -> back 43,
    // 44 -> L2 44, 45; the second fill waits for the fill port until 48; each answer leaves the
    // cycle after its fill: 45, 49 -> probe 46, 50 (without a port width: fills 44, 45 -> 46, 47)
    const { answered } = runL2([rd(0, 0, { size: 128 }), rd(1, 128, { size: 128 })], { accessLatency: 1, dataPortBytes: 32 });
    expect(answered).toEqual([46, 50]);
    expect(runL2([rd(0, 0, { size: 128 }), rd(1, 128, { size: 128 })], { accessLatency: 1 }).answered).toEqual([46, 47]);
  });

  it('naive write-allocate (W): a write miss sends the write to DRAM and fetches the line clean', () => {
    const { dram, stat } = runL2([wr(0, 0, { size: 128 }), rd(60, 256, { size: 128 })], { accessLatency: 0 }, { writeMiss: 'writeAllocateNaive' });
    // write: lookup 11, line read then the write itself (miss queue order) 12, 13; the read of
    // 256 evicts the clean line: no write-back
    expect(dram).toEqual([
      ['mem.readReq', 0, 128, 12],
      ['mem.writeReq', 0, 128, 13],
      ['mem.readReq', 256, 128, 72],
    ]);
    expect([stat('misses'), stat('writebacks')]).toEqual([2, 0]);
  });
});

describe('CacheController write-miss policies', () => {
  it('writeAllocateNaive queues a line read and the write; writeAllocate (F) queues only the read and installs the line dirty', () => {
    const base: CacheParams = { ...TEST_L1D, writeHit: 'writeBack', sets: 1, ways: 1 };
    const naive = new CacheController({ ...base, writeMiss: 'writeAllocateNaive' });
    expect(naive.access(0, true, 7, 32)).toBe(CacheOutcome.miss);
    const m = new MissRequest();
    const kinds: [number, number][] = [];
    while (naive.popMiss(m)) kinds.push([m.kind, m.bytes]);
    expect(kinds).toEqual([
      [MissKind.read, 128],
      [MissKind.write, 32],
    ]);
    naive.fill(0);
    naive.access(128, false, 8); // evicts line 0: clean, no write-back
    kinds.length = 0;
    while (naive.popMiss(m)) kinds.push([m.kind, m.bytes]);
    expect(kinds).toEqual([[MissKind.read, 128]]);

    const fetch = new CacheController({ ...base, writeMiss: 'writeAllocate' });
    fetch.access(0, true, 7, 32);
    kinds.length = 0;
    while (fetch.popMiss(m)) kinds.push([m.kind, m.bytes]);
    expect(kinds).toEqual([[MissKind.read, 128]]);
    fetch.fill(0);
    fetch.access(128, false, 8);
    kinds.length = 0;
    while (fetch.popMiss(m)) kinds.push([m.kind, m.bytes]);
    expect(kinds).toEqual([
      [MissKind.read, 128],
      [MissKind.writeBack, 128],
    ]);
  });

  it("the GTX 1080 L2 (L:B:m:W:L) gets the naive policy, GTX480's lazy-fetch L2 keeps fetch-and-modify", () => {
    const { config } = importGpgpusimConfig(GTX1080);
    expect(config.l2.writeAllocate).toBe('writeAllocate');
    const t = gpuTopology(config, new GpuContext(), []);
    const l2 = t.units.find((u) => u.definition === l2Slice)!;
    expect((l2.spec as L2SliceParams).cache.writeMiss).toBe('writeAllocateNaive');
    expect((l2.spec as L2SliceParams).accessLatency).toBe(config.l2.latencyCycles);
  });
});
