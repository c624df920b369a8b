import { describe, expect, it } from 'vitest';
import { getPreset, presetNames, presets } from '../../src/config/presets/index.ts';
import {
  cacheSizeBytes,
  gpuConfigSchema,
  l2TotalBytes,
  maxWarpsPerSm,
  peakDramBandwidthBytesPerSec,
  peakFlopsPerSec,
} from '../../src/config/schema.ts';
import { InputError } from '../../src/errors.ts';

const GB = 1e9;
const KiB = 1024;

/** |actual - expected| <= rel * expected */
function near(actual: number | undefined, expected: number, rel: number): void {
  expect(actual).toBeDefined();
  expect(Math.abs(actual! - expected)).toBeLessThanOrEqual(rel * expected);
}

describe('preset registry', () => {
  it('has the papers\' machines', () => {
    expect(presetNames()).toEqual(['gtx480', 'gtx480-elf', 'm2090', 'k20x', 'onac32', 'maxwell-cke', 'gtx1080ti']);
  });

  it.each(presetNames())('%s satisfies the schema and is named after its key', (name) => {
    const r = gpuConfigSchema.safeParse(presets[name]);
    expect(r.success, r.success ? '' : JSON.stringify(r.error.issues)).toBe(true);
    expect(presets[name]!.name).toBe(name);
    expect(presets[name]!.sources?.length).toBeGreaterThan(0);
  });

  it('getPreset returns an independent copy', () => {
    const a = getPreset('gtx480');
    a.sm.count = 1;
    a.l1d.mshrEntries = 1;
    expect(getPreset('gtx480').sm.count).toBe(15);
    expect(presets.gtx480!.l1d.mshrEntries).toBe(64);
  });

  it('getPreset refuses unknown names and lists the known ones', () => {
    let err: unknown;
    try {
      getPreset('gtx9999');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InputError);
    expect((err as InputError).field).toBe('gtx9999');
    expect((err as InputError).message).toMatch(/unknown preset 'gtx9999' \(known: gtx480, gtx480-elf, m2090, k20x, onac32, maxwell-cke, gtx1080ti\)/);
    expect(() => getPreset('toString')).toThrow(InputError);
  });
});

describe('gtx480 (GPGPU-Sim SM2_GTX480; paper 004 Table 1)', () => {
  const c = presets.gtx480!;
  it('matches SM2_GTX480 and PRESETS.md', () => {
    expect(c.clocks).toEqual({ core: 700, icnt: 700, l2: 700, dram: 924 }); // 700:700:700:924
    expect(c.sm.count).toBe(15);
    expect(c.sm.schedulers).toBe(2);
    expect(c.policies.warpScheduler.kind).toBe('gto');
    expect(c.l1d.latencyCycles).toBe(35);
    expect(c.sharedMem.latencyCycles).toBe(26);
    expect(c.sharedMem.banks).toBe(32);
    expect(c.memPartitions.ropLatencyCycles).toBe(120);
    expect(c.memPartitions.count).toBe(6);
    expect(c.memPartitions.subPartitions).toBe(2);
    expect(c.dram.schedulerQueueEntries).toBe(64);
    expect(c.dram.timing).toMatchObject({ tCCD: 2, tRRD: 6, tRCD: 12, tRAS: 28, tRP: 12, tRC: 40, tCL: 12, tWL: 4, tCDLR: 5, tWR: 12, tCCDL: 3, tRTPL: 2 });
    expect([c.dram.banks, c.dram.bankGroups]).toEqual([16, 4]);
    const lat = (t: Record<string, { latency: number }>): number[] => Object.values(t).map((x) => x.latency);
    expect(lat(c.sm.opcodeTiming.int)).toEqual([4, 13, 4, 5, 145, 32]);
    expect(lat(c.sm.opcodeTiming.fp)).toEqual([4, 13, 4, 5, 39]);
    expect(lat(c.sm.opcodeTiming.dp)).toEqual([8, 19, 8, 8, 330]);
  });

  it('matches paper 004 Table 1 where GPGPU-Sim agrees', () => {
    expect(c.sm.registers).toBe(32768);
    expect(c.sm.maxThreads).toBe(1536);
    expect(c.sm.maxCtas).toBe(8);
    expect(c.sm.sharedMemBytes).toBe(48 * KiB);
    expect(c.sm.warpSize).toBe(32);
    expect(cacheSizeBytes(c.l1i)).toBe(2 * KiB);
    expect([c.l1i.ways, c.l1i.lineBytes]).toEqual([4, 128]);
    expect(cacheSizeBytes(c.l1d)).toBe(16 * KiB);
    expect([c.l1d.ways, c.l1d.lineBytes]).toEqual([4, 128]);
    expect(l2TotalBytes(c)).toBe(768 * KiB);
    expect(c.dram.scheduler).toBe('frFcfs');
    near(peakDramBandwidthBytesPerSec(c), 177.4 * GB, 0.001);
  });
});

describe('gtx480-elf (paper 004 Table 1)', () => {
  const c = presets['gtx480-elf']!;
  it('has Table 1\'s MSHRs and L2 organisation', () => {
    expect(c.l1i.mshrEntries).toBe(8);
    expect(c.l1d.mshrEntries).toBe(32);
    expect(c.l2.ways).toBe(16);
    expect(c.l2.lineBytes).toBe(128);
    expect(c.l2.mshrEntries).toBe(32);
    expect(l2TotalBytes(c)).toBe(768 * KiB);
    expect(c.sm.count).toBe(15);
    near(peakDramBandwidthBytesPerSec(c), 177.4 * GB, 0.001);
  });
});

describe('m2090 (paper 000 Tables 3.1, 4.1, 5.1)', () => {
  const c = presets.m2090!;
  it('has Table 3.1 / 5.1 values', () => {
    expect(c.sm.count).toBe(16);
    expect(c.clocks.core).toBe(1300);
    expect(c.clocks.dram * 2).toBe(1850); // GDDR5 data clock = 2 x command clock
    expect(c.sm.maxCtas).toBe(8);
    expect(maxWarpsPerSm(c)).toBe(48);
    expect(c.sm.lanes).toMatchObject({ sp: 32, sfu: 4, lsu: 16 });
    expect(c.sm.schedulers).toBe(2);
    expect(c.sm.issueWidth).toBe(1);
    expect(c.sm.issueIntervalCycles).toBe(2);
    expect(c.policies.warpScheduler).toMatchObject({ kind: 'twoLevel', readyQueueSize: 6 });
    near(peakDramBandwidthBytesPerSec(c), 177 * GB, 0.005);
    near(peakFlopsPerSec(c, 'sp'), 1330 * GB, 0.002);
  });

  it('has Table 4.1 (M2090 column) values', () => {
    expect(c.sm.registers * 4).toBe(128 * KiB);
    expect(c.sm.maxThreads).toBe(1536);
    expect(c.sm.lanes?.dp).toBe(16);
    expect(c.sm.count * c.sm.lanes!.sp!).toBe(512);
    expect(c.sm.count * c.sm.lanes!.dp!).toBe(256);
    near(peakFlopsPerSec(c, 'dp'), 665 * GB, 0.002);
  });

  it('fills gaps from TeslaC2050', () => {
    expect(c.memPartitions.count).toBe(6);
    expect(c.dram.schedulerQueueEntries).toBe(16);
    expect(c.dram.returnQueueEntries).toBe(114);
    expect(c.l1d).toMatchObject({ sets: 32, ways: 4, mshrEntries: 32 });
  });
});

describe('k20x (paper 000 Table 4.1, Kepler column)', () => {
  const c = presets.k20x!;
  it('has Table 4.1 values', () => {
    expect(c.sm.registers * 4).toBe(256 * KiB);
    expect(c.sm.maxThreads).toBe(2048);
    expect(c.sm.maxCtas).toBe(16);
    expect(c.sm.count * c.sm.lanes!.sp!).toBe(2688);
    expect(c.sm.count * c.sm.lanes!.dp!).toBe(896);
    expect(c.sm.lanes).toMatchObject({ sp: 192, dp: 64 });
    expect(c.clocks.dram * 2).toBe(2600);
    near(peakFlopsPerSec(c, 'sp'), 3935 * GB, 0.001);
    near(peakFlopsPerSec(c, 'dp'), 1311 * GB, 0.001);
    near(peakDramBandwidthBytesPerSec(c), 250 * GB, 0.002);
    expect(c.sm.count).toBe(14);
  });
});

describe('onac32 (paper 000 Table 4.3)', () => {
  const c = presets.onac32!;
  it('has Table 4.3 values', () => {
    expect(c.sm.count).toBe(32);
    expect(c.sm.warpSize).toBe(32);
    expect(c.sm.schedulers).toBe(2);
    expect(c.policies.warpScheduler.kind).toBe('gto');
    expect(c.sm.lanes).toMatchObject({ sp: 32, sfu: 4, lsu: 16 });
    expect(maxWarpsPerSm(c)).toBe(48);
    expect(c.sm.maxCtas).toBe(8);
    expect(c.sm.registers).toBe(32768);
    expect(c.sm.sharedMemBytes).toBe(48 * KiB);
    expect([c.clocks.core, c.clocks.icnt, c.clocks.dram * 2]).toEqual([1300, 1300, 1848]);
    expect(c.memPartitions.count).toBe(12);
    expect(c.dram.busWidthBytes * c.dram.chipsPerPartition * 8).toBe(32); // 32-bit bus per partition
    expect(c.dram.banks).toBe(6);
    expect(peakFlopsPerSec(c, 'sp')! / GB).toBeCloseTo(2662.4, 6);
    near(peakDramBandwidthBytesPerSec(c), 177.4 * GB, 0.001);
    expect(c.power?.placeholder).toBe(true);
  });
});

describe('maxwell-cke (paper 001 Table 1)', () => {
  const c = presets['maxwell-cke']!;
  it('has Table 1 values', () => {
    expect(c.sm.count).toBe(16);
    expect(c.sm.warpSize).toBe(32);
    expect(c.clocks.core).toBe(1400);
    expect(c.sm.schedulers).toBe(4);
    expect(c.policies.warpScheduler.kind).toBe('gto');
    expect([c.sm.maxThreads, maxWarpsPerSm(c), c.sm.maxCtas]).toEqual([3072, 96, 16]);
    expect(c.l1d.mshrEntries).toBe(128);
    expect(cacheSizeBytes(c.l1d)).toBe(24 * KiB);
    expect([c.l1d.lineBytes, c.l1d.ways]).toEqual([128, 6]);
    expect(c.sm.sharedMemBytes).toBe(96 * KiB);
    expect(c.sharedMem.banks).toBe(32);
    expect(l2TotalBytes(c)).toBe(2048 * KiB);
    expect(cacheSizeBytes(c.l2)).toBe(128 * KiB);
    expect([c.l2.lineBytes, c.l2.ways, c.l2.mshrEntries]).toEqual([128, 16, 128]);
    for (const g of [c.l1d, c.l2]) expect([g.setIndex, g.allocation, g.replacement]).toEqual(['xor', 'onMiss', 'lru']);
    expect([c.l1d.writePolicy, c.l1d.writeAllocate]).toEqual(['writeEvict', 'noWriteAllocate']);
    expect([c.l2.writePolicy, c.l2.writeAllocate]).toEqual(['writeBack', 'writeAllocate']);
    expect(c.interconnect).toMatchObject({ topology: 'crossbar', flitBytes: 32 });
    expect(c.clocks.icnt).toBe(1400);
    expect(c.memPartitions.count).toBe(16);
    expect(c.dram.scheduler).toBe('frFcfs');
    expect(c.clocks.dram).toBe(924);
  });
});

describe('gtx1080ti (paper 002 Table 5.1)', () => {
  const c = presets.gtx1080ti!;
  it('has Table 5.1 values', () => {
    expect(c.clocks.core).toBe(1480);
    expect(c.sm.issueWidth).toBe(2);
    expect([c.sm.units.sp.count, c.sm.units.sfu.count, c.sm.units.lsu.count]).toEqual([4, 4, 1]);
    expect(c.sm.count).toBe(28);
    expect(c.sm.operandCollector?.sets.gen.units).toBe(8);
    expect(maxWarpsPerSm(c)).toBe(64);
    expect(c.sm.registers).toBe(65536);
    expect(c.sm.warpSize).toBe(32);
    expect(cacheSizeBytes(c.l1d)).toBe(12 * KiB);
    expect(c.sm.sharedMemBytes).toBe(32 * KiB);
    expect(c.sm.schedulers).toBe(4);
    expect(c.sm.subCoreModel).toBe(true);
    expect(c.sm.fetchThroughput).toBe(4);
    expect(c.memPartitions.count).toBe(11);
    expect(c.policies.warpScheduler.kind).toBe('gto');
    expect(c.sm.iBufferEntries).toBe(2);
    expect(c.sm.fetchWidth).toBe(2);
  });
});

describe('preset immutability', () => {
  it('freezes the registry so presets cannot be changed by accident', () => {
    expect(Object.isFrozen(presets.gtx480)).toBe(true);
    expect(Object.isFrozen(presets.gtx480!.sm.units.sp)).toBe(true);
    expect(() => {
      (presets.gtx480!.sm as { count: number }).count = 3;
    }).toThrow(TypeError);
    expect(presets.gtx480!.sm.count).toBe(15);
  });
});
