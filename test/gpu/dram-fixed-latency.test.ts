/**
 * The DRAM channel's fixed latency (`latencyCycles`, GPGPU-Sim `-dram_latency`), wired from
 * `memPartitions.dramLatencyCycles` by the GPU topology: every read completes exactly
 * `latencyCycles` later than without it, and the delay queue does not limit throughput.
 */
import { describe, expect, it } from 'vitest';
import { AddressMap } from '../../src/model/mem/address-map.ts';
import type { DramParams } from '../../src/model/mem/dram.ts';
import { dramChannel, type DramChannelParams } from '../../machines/dram-channel/dram-channel.ts';
import { engine1GHz, probe, probeOf, type ScriptItem, TEST_DRAM, TEST_MAPPING } from '../machines/gpu-memory/harness.ts';

const MAPPING = TEST_MAPPING;
const DRAM: DramParams = TEST_DRAM;

function run(script: ScriptItem[], latencyCycles: number | undefined) {
  const e = engine1GHz();
  const p: DramChannelParams = { dram: DRAM, subPartitions: 1, ...(latencyCycles === undefined ? {} : { latencyCycles }) };
  e.addUnit('L2', probe, 'core', { script });
  e.addUnit('DRAM', dramChannel, 'core', p, { addressMap: new AddressMap({ mapping: MAPPING, channels: 1 }) });
  e.connect('L2', 'out', 'DRAM', 'topIn[0]', { latencyCycles: 1 });
  e.connect('DRAM', 'topOut[0]', 'L2', 'in', { latencyCycles: 1 });
  const r = e.run();
  expect(r.pendingUnits).toEqual([]);
  const pr = probeOf(e, 'L2');
  return pr.sent.map((s) => pr.received.find((x) => x.msg.replyTo === s.msg.id)?.cycle ?? -1);
}

const r64 = (cycle: number, addr: number): ScriptItem => ({ cycle, kind: 'mem.readReq', payload: { addr, size: 64, sm: 0 } });

describe('dramChannel fixed latency', () => {
  it('delays a row miss, a row hit and a row conflict by exactly latencyCycles', () => {
    const script = [r64(0, 0), r64(100, 64), r64(200, 1024)];
    // Without: closed bank: accepted 1, ACT 1, RD 1 + tRCD = 6, done 6 + tCL + BL/r = 14 -> 15;
    // open row: RD 101, done 109 -> 110; other row: PRE 201, ACT 205, RD 210, done 218 -> 219.
    expect(run(script, undefined)).toEqual([15, 110, 219]);
    expect(run(script, 0)).toEqual([15, 110, 219]);
    // With 40: each enters the scheduler 40 cycles after acceptance; the bank is idle by then.
    expect(run(script, 40)).toEqual([55, 150, 259]);
  });

  it('a burst keeps its throughput: the delay queue holds latencyCycles + 1 requests', () => {
    // 16 reads of 64 bytes (4 columns in each of the 4 banks), one per cycle from cycle 0: the
    // scheduler queue and the data bus (BL/r = 2 cycles per atom) set the pace, with or without
    // the fixed delay: every completion shifts by exactly 30.
    const burst = Array.from({ length: 16 }, (_, i) => r64(i, 64 * (i % 4) + 256 * Math.floor(i / 4)));
    const plain = run(burst, 0);
    const delayed = run(burst, 30);
    expect(delayed.map((c, i) => c - plain[i]!)).toEqual(plain.map(() => 30));
  });

  it('refuses a negative or fractional latency', () => {
    expect(() => run([r64(0, 0)], -1)).toThrow(/latencyCycles must be an integer >= 0/);
    expect(() => run([r64(0, 0)], 1.5)).toThrow(/latencyCycles must be an integer >= 0/);
  });
});
