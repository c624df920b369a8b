import { describe, expect, it } from 'vitest';
import { dramChannel, type DramChannelParams } from '../../../machines/dram-channel/dram-channel.ts';
import { gpuInterconnect } from '../../../machines/gpu-interconnect/gpu-interconnect.ts';
import { l2Slice, type L2SliceParams, type L2SliceResources } from '../../../machines/l2-slice/l2-slice.ts';
import type { GpuMemRequest, GpuMemResponse } from '../../../src/protocol/gpu.ts';
import { AddressMap } from '../../../src/model/mem/address-map.ts';
import type { CacheParams } from '../../../src/model/mem/cache.ts';
import type { DramParams } from '../../../src/model/mem/dram.ts';
import { engine1GHz, fakeMem, memOf, probe, probeOf, type ScriptItem, TEST_DRAM, TEST_MAPPING } from './harness.ts';

const rd = (cycle: number, addr: number, sm = 0, extra: Partial<GpuMemRequest> = {}): ScriptItem => ({ cycle, kind: 'mem.readReq', payload: { addr, size: 128, sm, ...extra } });
const wr = (cycle: number, addr: number, sm = 0): ScriptItem => ({ cycle, kind: 'mem.writeReq', payload: { addr, size: 128, sm } });

/** Cycle each scripted message of a probe was answered (-1 when never). */
function answered(e: ReturnType<typeof engine1GHz>, name: string): number[] {
  const p = probeOf(e, name);
  return p.sent.map((s) => p.received.find((r) => r.msg.replyTo === s.msg.id)?.cycle ?? -1);
}

describe('gpuInterconnect', () => {
  function run(scripts: ScriptItem[][], partitions: number) {
    const e = engine1GHz();
    e.addUnit('ICNT', gpuInterconnect, 'core', { sms: scripts.length, partitions, bufferDepth: 4 }, { partitionOf: (a: number) => Math.floor(a / 256) % partitions });
    scripts.forEach((script, i) => {
      e.addUnit(`SM${i}`, probe, 'core', { script });
      e.connect(`SM${i}`, 'out', 'ICNT', `topIn[${i}]`, { latencyCycles: 1 });
      e.connect('ICNT', `topOut[${i}]`, `SM${i}`, 'in', { latencyCycles: 1 });
    });
    for (let j = 0; j < partitions; j++) {
      e.addUnit(`MEM${j}`, fakeMem, 'core', { latency: 10 });
      e.connect('ICNT', `bottomOut[${j}]`, `MEM${j}`, 'req', { latencyCycles: 1 });
      e.connect(`MEM${j}`, 'rsp', 'ICNT', `bottomIn[${j}]`, { latencyCycles: 1 });
    }
    const r = e.run();
    expect(r.pendingUnits).toEqual([]);
    return e;
  }

  it('routes requests by partitionOf(addr) and responses back to the requesting SM, joined by id', () => {
    const e = run([[rd(0, 0, 0), rd(0, 256, 0), rd(0, 512, 0)], [rd(0, 256 + 1024, 1)]], 2);
    const at = (j: number) => memOf(e, `MEM${j}`).seen.map((s) => [(s.msg.payload as GpuMemRequest).addr, s.cycle]);
    // SM0's requests reach the ICNT at 1, 2, 3; SM1's at 1; no output is contended
    expect(at(0)).toEqual([
      [0, 2],
      [512, 4],
    ]);
    expect(at(1)).toEqual([
      [1280, 2],
      [256, 3],
    ]);
    // answers 10 cycles later, +1 to the ICNT, forwarded at once, +1 to the SM
    expect(answered(e, 'SM0')).toEqual([14, 15, 16]);
    expect(answered(e, 'SM1')).toEqual([14]);
    expect(probeOf(e, 'SM1').received.map((r) => (r.msg.payload as GpuMemResponse).sm)).toEqual([1]);
    expect([e.stats.value('ICNT.request_packets'), e.stats.value('ICNT.response_packets'), e.stats.value('ICNT.request_conflicts')]).toEqual([4, 4, 0]);
  });

  it('arbitrates round-robin among SMs contending for one partition, one packet per output per cycle', () => {
    const a = [0, 512, 1024].map((x) => rd(0, x + 256, 0));
    const b = [0, 512, 1024].map((x) => rd(0, x + 256 + 128, 1));
    const e = run([a, b], 2);
    const seen = memOf(e, 'MEM1').seen.map((s) => [(s.msg.payload as GpuMemRequest).sm, s.cycle]);
    expect(seen).toEqual([
      [0, 2],
      [1, 3],
      [0, 4],
      [1, 5],
      [0, 6],
      [1, 7],
    ]);
    expect(e.stats.value('ICNT.request_conflicts')).toBe(5);
  });
});

const L2_CACHE: CacheParams = {
  sets: 2,
  ways: 1,
  lineBytes: 128,
  setIndex: 'linear',
  replacement: 'lru',
  allocate: 'onMiss',
  writeHit: 'writeBack',
  writeMiss: 'writeAllocate',
  mshrEntries: 4,
  mshrMaxMerge: 4,
  missQueueSize: 4,
};

describe('l2Slice', () => {
  /** ICNT probe -> L2 (ROP 10) -> fake DRAM (latency 30); links 1 cycle. */
  function run(script: ScriptItem[], over: Partial<L2SliceParams & L2SliceResources> = {}, cache: Partial<CacheParams> = {}) {
    const e = engine1GHz();
    e.addUnit('ICNT', probe, 'core', { script });
    const { localAddress, ...spec } = over;
    e.addUnit('L2', l2Slice, 'core', { cache: { ...L2_CACHE, ...cache }, ropLatency: 10, ...spec } satisfies L2SliceParams, localAddress ? { localAddress } : {});
    e.addUnit('DRAM', fakeMem, 'core', { latency: 30 });
    e.connect('ICNT', 'out', 'L2', 'topIn', { latencyCycles: 1 });
    e.connect('L2', 'topOut', 'ICNT', 'in', { latencyCycles: 1 });
    e.connect('L2', 'bottomOut', 'DRAM', 'req', { latencyCycles: 1 });
    e.connect('DRAM', 'rsp', 'L2', 'bottomIn', { latencyCycles: 1 });
    const r = e.run();
    expect(r.pendingUnits).toEqual([]);
    const dram = memOf(e, 'DRAM').seen.map((s) => [s.msg.kind, (s.msg.payload as GpuMemRequest).addr, s.cycle]);
    const stat = (n: string) => e.stats.value(`L2.l2_${n}`);
    return { e, answered: answered(e, 'ICNT'), dram, stat };
  }

  it('read miss: ROP delay, DRAM read, answer at the fill; the reread hits after the ROP delay', () => {
    const { answered: a, dram, stat } = run([rd(0, 0, 5), rd(50, 64, 5)]);
    // L2 1, lookup 11, DRAM 12, back 42 -> L2 43 (fill), answer leaves 44 (GPGPU-Sim: the filled
    // MSHR entry is read out the cycle after the fill) -> 45; hit: L2 51, lookup 61 -> 62
    expect(a).toEqual([45, 62]);
    expect(dram).toEqual([['mem.readReq', 0, 12]]);
    expect([stat('accesses'), stat('hits'), stat('misses'), stat('writebacks')]).toEqual([2, 1, 1, 0]);
  });

  it('write-allocate: a posted write miss fetches the line; evicting it dirty writes it back to DRAM', () => {
    const { answered: a, dram, stat } = run([wr(0, 0), rd(50, 256)]);
    // write: lookup 11, line read 12, fill 43 (modified). read 256 (same set): lookup 61, the
    // line read (DRAM 62, back 92 -> L2 93, answer 94 -> 95), then the victim's write-back (GPGPU-Sim order)
    expect(a).toEqual([-1, 95]);
    expect(dram).toEqual([
      ['mem.readReq', 0, 12],
      ['mem.readReq', 256, 62],
      ['mem.writeReq', 0, 63],
    ]);
    expect(stat('writebacks')).toBe(1);
    expect(stat('misses')).toBe(2);
  });

  it('a write hit makes the line dirty with no DRAM traffic until eviction', () => {
    const { dram, stat } = run([rd(0, 128), wr(50, 128), rd(80, 384)]);
    expect(dram.map((d) => [d[0], d[1]])).toEqual([
      ['mem.readReq', 128],
      ['mem.readReq', 384],
      ['mem.writeReq', 128],
    ]);
    expect([stat('hits'), stat('writebacks')]).toEqual([1, 1]);
  });

  it('atomics are read-modify-writes: answered like reads, and they leave the line dirty', () => {
    const { e, answered: a, dram } = run([rd(0, 128, 2, { atomic: true }), rd(10, 128, 2, { atomic: true }), rd(60, 384)]);
    // first misses (filled at 43, released 44); the second merges into the same MSHR entry and
    // is released the next cycle (one request per cycle leaves a filled entry)
    expect(a.slice(0, 2)).toEqual([45, 46]);
    expect(dram.map((d) => [d[0], d[1]])).toEqual([
      ['mem.readReq', 128],
      ['mem.readReq', 384],
      ['mem.writeReq', 128],
    ]);
    expect(e.stats.value('L2.l2_atomics')).toBe(2);
  });

  it('indexes with the partition-local address and writes back to the global address', () => {
    // this slice owns addresses with bit 8 clear; the local address drops bit 8
    const localAddress = (a: number) => Math.floor(a / 512) * 256 + (a % 256);
    const reads = [rd(0, 0), rd(50, 512), rd(100, 0)];
    // 4 sets: globally 0 and 512 share set 0; locally 512 -> 256 is set 2
    const global = run(reads, {}, { sets: 4 });
    const local = run(reads, { localAddress }, { sets: 4 });
    expect(global.stat('hits')).toBe(0);
    expect(local.stat('hits')).toBe(1);
    // 1536 -> local 768, set 2: evicts the dirty local line 256, written back as global 512
    const wb = run([wr(0, 512), rd(50, 1536)], { localAddress }, { sets: 4 });
    expect(wb.dram.map((d) => [d[0], d[1]])).toEqual([
      ['mem.readReq', 512],
      ['mem.readReq', 1536],
      ['mem.writeReq', 512],
    ]);
  });

  it('reservation failures stall the ROP head and are counted by reason', () => {
    const { answered: a, stat } = run([rd(0, 0), rd(0, 128)], {}, { mshrEntries: 1 });
    // second reaches its lookup at 12, fails until the fill at 43 (31 attempts), misses at 43 -> DRAM 44 -> 74 -> fill 75, released 76 -> 77
    expect(stat('res_fail_mshrFull')).toBe(31);
    expect(a).toEqual([45, 77]);
  });
});

const MAPPING = TEST_MAPPING;
const DRAM: DramParams = TEST_DRAM;

describe('dramChannel', () => {
  function run(script: ScriptItem[], over: Partial<DramParams> = {}) {
    const e = engine1GHz();
    const p: DramChannelParams = { dram: { ...DRAM, ...over }, subPartitions: 1 };
    e.addUnit('L2', probe, 'core', { script });
    e.addUnit('DRAM', dramChannel, 'core', p, { addressMap: new AddressMap({ mapping: MAPPING, channels: 1 }) });
    e.connect('L2', 'out', 'DRAM', 'topIn[0]', { latencyCycles: 1 });
    e.connect('DRAM', 'topOut[0]', 'L2', 'in', { latencyCycles: 1 });
    const r = e.run();
    expect(r.pendingUnits).toEqual([]);
    return { e, answered: answered(e, 'L2'), stat: (n: string) => e.stats.value(`DRAM.${n}`) };
  }
  const r64 = (cycle: number, addr: number): ScriptItem => ({ cycle, kind: 'mem.readReq', payload: { addr, size: 64, sm: 0 } });

  it('row miss, row hit and row conflict latencies follow tRCD, tCL, BL/r and tRP', () => {
    const { e, answered: a, stat } = run([r64(0, 0), r64(30, 64), r64(60, 1024), { cycle: 90, kind: 'mem.writeReq', payload: { addr: 2048, size: 64, sm: 0 } }]);
    // closed bank: ACT at 1, RD at 1 + tRCD = 6, data done 6 + tCL + BL/r = 14 -> 15
    // open row: RD at 31, done 31 + 8 = 39 -> 40
    // other row: PRE 61, ACT 61 + tRP = 65, RD 65 + tRCD = 70, done 78 -> 79
    // the write (bank 0, row 2) is a third row miss: PRE + ACT, and no answer
    expect(a).toEqual([15, 40, 79, -1]);
    expect([stat('dram_reads'), stat('dram_writes'), stat('row_hits'), stat('row_misses'), stat('activates'), stat('precharges')]).toEqual([3, 1, 1, 3, 3, 2]);
    expect(stat('bytes')).toBe(256);
    // the write (accepted at 91) is the last event: WR at 91 + ... ; bandwidth = bytes / time
    expect(e.now).toBeGreaterThan(91_000);
    expect(stat('achieved_bandwidth')).toBeCloseTo((256 / e.now) * 1000, 12);
  });

  it('FR-FCFS serves a younger row hit before an older row miss; FIFO does not', () => {
    // R0 row 0 (opens it), R1 row 1, R2 row 0: all in bank 0, arriving at 1, 2, 3
    const script = [r64(0, 0), r64(0, 1024), r64(0, 128)];
    const fr = run(script);
    const fifo = run(script, { scheduler: 'fifo' });
    // FR-FCFS: R0 RD 6 -> 15; R2 RD 7 -> 16; R1 PRE 11, ACT 15, RD 20 -> 29
    expect(fr.answered).toEqual([15, 29, 16]);
    // FIFO: R1 PRE 11, ACT 15, RD 20 -> 29; R2 PRE 25, ACT 29, RD 34 -> 43
    expect(fifo.answered).toEqual([15, 29, 43]);
    expect([fr.stat('row_hits'), fifo.stat('row_hits')]).toEqual([1, 0]);
  });

  it('serves the L2 sub-partitions sharing the channel round robin and answers each on its own port', () => {
    const e = engine1GHz();
    e.addUnit('DRAM', dramChannel, 'core', { dram: DRAM, subPartitions: 2 } satisfies DramChannelParams, { addressMap: new AddressMap({ mapping: MAPPING, channels: 1 }) });
    for (let k = 0; k < 2; k++) {
      // sub-partition k reads bank k + 1 (bank bits 8..9), two rows each
      e.addUnit(`L2_${k}`, probe, 'core', { script: [r64(0, (k + 1) * 256), r64(0, (k + 1) * 256 + 1024)] });
      e.connect(`L2_${k}`, 'out', 'DRAM', `topIn[${k}]`, { latencyCycles: 1 });
      e.connect('DRAM', `topOut[${k}]`, `L2_${k}`, 'in', { latencyCycles: 1 });
    }
    const r = e.run();
    expect(r.pendingUnits).toEqual([]);
    for (let k = 0; k < 2; k++) {
      const got = probeOf(e, `L2_${k}`).received.map((x) => (x.msg.payload as GpuMemResponse).addr);
      expect(got).toEqual([(k + 1) * 256, (k + 1) * 256 + 1024]);
    }
    // accepted alternately: sub 0 at 1, sub 1 at 2 -> ACTs at 1 and 3 (tRRD 2)
    expect(answered(e, 'L2_0')[0]).toBe(15);
    expect(answered(e, 'L2_1')[0]).toBe(17);
  });

  it('a full scheduler queue leaves requests in the in-port (back-pressure) without losing any', () => {
    const script = Array.from({ length: 12 }, (_, i) => r64(0, i * 256 * 4)); // bank 0, a new row each
    const { answered: a } = run(script, { queueSize: 1 });
    expect(a.every((c) => c > 0)).toBe(true);
    expect([...a].sort((x, y) => x - y)).toEqual(a); // one bank, FIFO-like: in order
  });
});
