import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dramChannel } from '../../../machines/dram-channel/dram-channel.ts';
import { gpuInterconnect } from '../../../machines/gpu-interconnect/gpu-interconnect.ts';
import { l1d, type L1dParams } from '../../../machines/l1d/l1d.ts';
import { l2Slice, type L2SliceParams } from '../../../machines/l2-slice/l2-slice.ts';
import { smLsu, type SmLsuParams } from '../../../machines/sm-lsu/sm-lsu.ts';
import type { LsuDispatch, Writeback } from '../../../src/protocol/gpu.ts';
import { StateSpace } from '../../../src/isa/ir.ts';
import { AddressMap } from '../../../src/model/mem/address-map.ts';
import type { DramParams } from '../../../src/model/mem/dram.ts';
import { engine1GHz, probe, probeOf, type ScriptItem, TEST_DRAM, TEST_MAPPING } from './harness.ts';

const ROW_BANK_COL = TEST_MAPPING;
const DRAM: DramParams = TEST_DRAM;

/** Links: ISSUE<->LSU<->L1D 1 cycle, L1D<->ICNT and ICNT<->L2 2 cycles, L2<->DRAM 1 cycle. */
function gpu(scripts: ScriptItem[][], partitions: number, mapping: string) {
  const e = engine1GHz();
  const map = new AddressMap({ mapping, channels: partitions });
  const sms = scripts.length;
  e.addUnit('ICNT', gpuInterconnect, 'core', { sms, partitions, bufferDepth: 4 }, { partitionOf: (a: number) => map.decode(a).partition });
  for (let i = 0; i < sms; i++) {
    const sm = `SM${i}`;
    e.addUnit(`${sm}.ISSUE`, probe, 'core', { script: scripts[i]! });
    const lsu: SmLsuParams = { smId: i, sharedMemLatency: 20, constLatency: 8, l1dPortWidth: 1, sharedMem: { banks: 32, bankWidthBytes: 4 } };
    e.addUnit(`${sm}.LSU`, smLsu, 'core', lsu);
    const l1: L1dParams = {
      smId: i,
      l1dLatency: 4,
      cache: { sets: 32, ways: 4, lineBytes: 128, setIndex: 'fermiHash', allocate: 'onMiss', writeHit: 'localWbGlobalWe', writeMiss: 'noWriteAllocate', mshrEntries: 8, mshrMaxMerge: 4, missQueueSize: 4 },
    };
    e.addUnit(`${sm}.L1D`, l1d, 'core', l1);
    e.connect(`${sm}.ISSUE`, 'out', `${sm}.LSU`, 'topIn', { latencyCycles: 1 });
    e.connect(`${sm}.LSU`, 'topOut', `${sm}.ISSUE`, 'in', { latencyCycles: 1 });
    e.connect(`${sm}.LSU`, 'bottomOut', `${sm}.L1D`, 'topIn', { latencyCycles: 1 });
    e.connect(`${sm}.L1D`, 'topOut', `${sm}.LSU`, 'bottomIn', { latencyCycles: 1 });
    e.connect(`${sm}.L1D`, 'bottomOut', 'ICNT', `topIn[${i}]`, { latencyCycles: 2 });
    e.connect('ICNT', `topOut[${i}]`, `${sm}.L1D`, 'bottomIn', { latencyCycles: 2 });
  }
  for (let j = 0; j < partitions; j++) {
    const l2: L2SliceParams = {
      ropLatency: 10,
      cache: { sets: 16, ways: 2, lineBytes: 128, allocate: 'onMiss', writeHit: 'writeBack', writeMiss: 'writeAllocate', mshrEntries: 8, mshrMaxMerge: 4, missQueueSize: 4 },
    };
    e.addUnit(`L2[${j}]`, l2Slice, 'core', l2, { localAddress: (a: number) => map.partitionAddress(a) });
    e.addUnit(`DRAM[${j}]`, dramChannel, 'core', { dram: DRAM, subPartitions: 1 }, { addressMap: map });
    e.connect('ICNT', `bottomOut[${j}]`, `L2[${j}]`, 'topIn', { latencyCycles: 2 });
    e.connect(`L2[${j}]`, 'topOut', 'ICNT', `bottomIn[${j}]`, { latencyCycles: 2 });
    e.connect(`L2[${j}]`, 'bottomOut', `DRAM[${j}]`, 'topIn[0]', { latencyCycles: 1 });
    e.connect(`DRAM[${j}]`, 'topOut[0]', `L2[${j}]`, 'bottomIn', { latencyCycles: 1 });
  }
  expect(e.unconnectedPorts()).toEqual([]);
  const r = e.run();
  return { e, r };
}

const lanes = (f: (l: number) => number) => Array.from({ length: 32 }, (_, l) => f(l));
function inst(cycle: number, seq: number, addresses: number[], isLoad = true, space: number = StateSpace.Global, atomic = false): ScriptItem {
  const d: LsuDispatch = { warp: 0, space, isLoad, bytes: 4, mask: 0xffffffff, addresses, dst: isLoad ? [seq] : [], seq, atomic };
  return { cycle, kind: 'lsu.dispatch', payload: d };
}

function writebacks(e: ReturnType<typeof engine1GHz>, name: string): { seq: number; cycle: number }[] {
  return probeOf(e, name).received.flatMap((x) => {
    const pl = x.msg.payload as Writeback | { items: Writeback[] };
    return ('items' in pl ? pl.items : [pl]).map((w) => ({ seq: w.seq, cycle: x.cycle }));
  });
}

describe('LSU -> L1D -> ICNT -> L2 -> DRAM and back', () => {
  it('a single load takes the hand-summed latency of every piece; L1D and L2 hits shorten it', () => {
    const line = lanes((l) => 4 * l);
    const { e, r } = gpu([[inst(0, 1, line), inst(50, 2, line), inst(70, 3, line, false), inst(100, 4, line)]], 1, ROW_BANK_COL);
    expect(r.pendingUnits).toEqual([]);
    // DRAM read of a 128-byte line (2 atoms) to a closed bank: ACT, RD at +tRCD, RD at +tCCD, data +tCL+BL/r
    const dram = DRAM.tRCD + DRAM.tCCD + DRAM.tCL + 8 / 4;
    // ISSUE->LSU 1, LSU->L1D 1, L1D->ICNT 2, ICNT->L2 2, ROP 10, L2->DRAM 1, DRAM, DRAM->L2 1,
    // fill -> answer 1 (the filled MSHR entry is read out the next cycle), L2->ICNT 2, ICNT->L1D 2, L1D->LSU 1, LSU->ISSUE 1
    const miss = 1 + 1 + 2 + 2 + 10 + 1 + dram + 1 + 1 + 2 + 2 + 1 + 1;
    expect(miss).toBe(39);
    // L1D hit: 1 + 1 + l1dLatency 4 + 1 + 1
    // store: write-evict, acknowledged by the L1D when sent down: 1 + 1 + 1 + 1
    // reload after the eviction: L1D miss, L2 hit: 1 + 1 + 2 + 2 + 10 + 2 + 2 + 1 + 1
    expect(writebacks(e, 'SM0.ISSUE')).toEqual([
      { seq: 1, cycle: miss },
      { seq: 2, cycle: 50 + 8 },
      { seq: 3, cycle: 70 + 4 },
      { seq: 4, cycle: 100 + 22 },
    ]);
    const v = (n: string) => e.stats.value(n);
    expect([v('SM0.L1D.l1d_accesses'), v('SM0.L1D.l1d_hits'), v('SM0.L1D.l1d_misses')]).toEqual([4, 2, 2]);
    expect([v('L2[0].l2_accesses'), v('L2[0].l2_hits'), v('L2[0].l2_misses')]).toEqual([3, 2, 1]);
    expect([v('DRAM[0].dram_reads'), v('DRAM[0].dram_writes'), v('DRAM[0].row_misses')]).toEqual([1, 0, 1]);
    expect([v('ICNT.request_packets'), v('ICNT.response_packets')]).toEqual([3, 2]);
  });

  it('under load: MSHR reservation failures back-pressure the LSU, dirty L2 victims reach DRAM, and everything completes', () => {
    const mapping = 'dramid@8;' + ROW_BANK_COL;
    // each instruction touches 32 lines (stride 4096): more than the 8 L1D MSHRs
    const prog = (sm: number) => [
      ...Array.from({ length: 6 }, (_, k) => inst(k, k, lanes((l) => sm * 128 + k * 256 + 4096 * l), false)),
      ...Array.from({ length: 6 }, (_, k) => inst(10 + k, 6 + k, lanes((l) => (1 << 20) + sm * 128 + k * 256 + 4096 * l))),
    ];
    const { e, r } = gpu([prog(0), prog(1)], 2, mapping);
    expect(r.pendingUnits).toEqual([]);
    const v = (n: string) => e.stats.value(n)!;
    for (let i = 0; i < 2; i++) {
      expect(writebacks(e, `SM${i}.ISSUE`).map((w) => w.seq).sort((a, b) => a - b)).toEqual(Array.from({ length: 12 }, (_, k) => k));
      expect(v(`SM${i}.L1D.l1d_res_fail_mshrFull`)).toBeGreaterThan(0);
      expect(v(`SM${i}.LSU.transactions`)).toBe(12 * 32);
    }
    const wbs = v('L2[0].l2_writebacks') + v('L2[1].l2_writebacks');
    // 384 distinct written lines cannot stay in 2 x 32 L2 lines: most are evicted dirty
    expect(wbs).toBeGreaterThanOrEqual(384 - 64);
    expect(v('DRAM[0].dram_writes') + v('DRAM[1].dram_writes')).toBe(wbs);
  });

  it('property: with 2 SMs and 2 partitions every memory instruction is written back exactly once and nothing is left pending', () => {
    const mapping = 'dramid@8;' + ROW_BANK_COL;
    const access = fc.record({
      gap: fc.integer({ min: 0, max: 6 }),
      kind: fc.constantFrom('load', 'store', 'atomic', 'shared'),
      coalesced: fc.boolean(),
      base: fc.integer({ min: 0, max: 255 }).map((x) => x * 128),
      stride: fc.constantFrom(4, 8, 128, 4096),
    });
    fc.assert(
      fc.property(fc.array(fc.array(access, { minLength: 1, maxLength: 12 }), { minLength: 2, maxLength: 2 }), (progs) => {
        const scripts = progs.map((prog) => {
          let t = 0;
          return prog.map((a, seq) => {
            t += a.gap;
            const addrs = lanes((l) => a.base + (a.coalesced ? 4 * l : a.stride * l));
            if (a.kind === 'shared') return inst(t, seq, lanes((l) => (a.stride * l) % 16384), true, StateSpace.Shared);
            return inst(t, seq, addrs, a.kind !== 'store', StateSpace.Global, a.kind === 'atomic');
          });
        });
        const { e, r } = gpu(scripts, 2, mapping);
        expect(r.pendingUnits).toEqual([]);
        for (let i = 0; i < 2; i++) {
          const seqs = writebacks(e, `SM${i}.ISSUE`).map((w) => w.seq).sort((a, b) => a - b);
          expect(seqs).toEqual(progs[i]!.map((_, k) => k));
        }
        const v = (n: string) => e.stats.value(n)!;
        for (let j = 0; j < 2; j++) expect(v(`DRAM[${j}].dram_reads`)).toBe(v(`L2[${j}].l2_misses`));
      }),
      { numRuns: 25, seed: 4242 },
    );
  });
});
