/**
 * Presets against their sources (issue 10 item 5).
 *
 * 1. Every preset names a GPGPU-Sim config in data/gpgpusim-configs/ as its source or as the
 *    source of its gaps (PRESETS.md). That file is imported with the project's importer and
 *    compared with the preset leaf by leaf, over every leaf of the config schema. Where the preset
 *    deliberately differs, the difference is listed below with both values and the reason; any
 *    other difference, or a listed one that no longer exists, fails.
 * 2. Every row of the papers' configuration tables is checked against the preset that models it,
 *    with the table and section cited. Expected numbers are the tables' (derived quantities are
 *    worked out by hand in the comments).
 *
 * About "config" values below: options a file does not set keep the importer's base, the `gtx480`
 * preset (= tested-cfgs/SM2_GTX480 plus GPGPU-Sim defaults). Where SM2_GTX480 itself sets such an
 * option, the imported value is SM2_GTX480's, not GPGPU-Sim's default; the presets use the
 * default, and those entries say "file silent".
 */
import { join, resolve } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { importGpgpusimConfig } from '../../src/config/gpgpusim-import.ts';
import { configLeafPaths, leafValues } from '../../src/config/not-modelled.ts';
import { presetNames, presets } from '../../src/config/presets/index.ts';
import { cacheSizeBytes, l2TotalBytes, maxWarpsPerSm, peakDramBandwidthBytesPerSec, peakFlopsPerSec, type GpuConfig } from '../../src/config/schema.ts';

const CFGS = resolve(process.cwd(), 'data', 'gpgpusim-configs');
const KiB = 1024;
const GB = 1e9;

/** Metadata, not hardware: the preset's own name, description and source list. */
const METADATA = new Set(['name', 'description', 'sources']);

/** A leaf where a preset deliberately differs from its GPGPU-Sim config. */
interface Deviation {
  /** Dotted config path. */
  readonly field: string;
  /** The preset's value. */
  readonly preset: unknown;
  /** The imported config's value (undefined: the import has no such leaf). */
  readonly config: unknown;
  /** Why: the paper table that overrides it, a documented GAP, or a GPGPU-Sim default. */
  readonly reason: string;
}

const d = (field: string, preset: unknown, config: unknown, reason: string): Deviation => ({ field, preset, config, reason });

// Reasons shared by several presets.
const LANES = 'paper lane count; GPGPU-Sim has no lane option and the importer drops sm.lanes';
const ALLOC = (cc: string) => `occupancy-calculator granularity of compute capability ${cc}; GPGPU-Sim has no option, the importer keeps the gtx480 base (cc 2.x)`;
const REGS_PER_CTA = (cc: string) => `compute capability ${cc} limit of 65536 registers per CTA; the file does not set it and the importer keeps the gtx480 base (cc 2.0: 32768)`;
/** Options the GPGPU-Sim 3.x configs (TeslaC2050, GTX480, GTX750Ti) leave out: GPGPU-Sim's defaults, not SM2_GTX480's values. */
const FILE_SILENT_DEFAULTS = (file: string): Deviation[] => [
  d('interconnect.ejectionBufferEntries', 8, 32, `${file} silent: GPGPU-Sim default -gpgpu_n_cluster_ejection_buffer_size 8 (SM2_GTX480 sets 32)`),
  ...(['icntToL2', 'l2ToDram', 'dramToL2', 'l2ToIcnt'] as const).map((q) =>
    d(`memPartitions.queues.${q}`, 8, 64, `${file} silent: GPGPU-Sim default -gpgpu_dram_partition_queues 8:8:8:8 (SM2_GTX480 sets 64:64:64:64)`),
  ),
  d('dram.bankGroupIndexing', 'highBits', 'lowBits', `${file} silent: GPGPU-Sim default -dram_bnkgrp_indexing_policy 0 (SM2_GTX480 sets 1)`),
];

/** Each preset, the GPGPU-Sim config it follows (or fills its gaps from), and every deliberate difference. */
const SOURCES: { preset: string; config: string; deviations: Deviation[] }[] = [
  // GPGPU-Sim's own GTX480 configuration, option by option: no differences at all.
  { preset: 'gtx480', config: 'tested-cfgs/SM2_GTX480', deviations: [] },
  {
    // Paper 004 Table 1 (§4) over SM2_GTX480.
    preset: 'gtx480-elf',
    config: 'tested-cfgs/SM2_GTX480',
    deviations: [
      d('l1i.mshrEntries', 8, 2, '004 T1: 8 MSHRs per L1I'),
      d('l1d.mshrEntries', 32, 64, '004 T1: 32 MSHRs per L1D'),
      d('l2.sets', 32, 64, '004 T1: 768 kB / 16-way / 128 B over 12 L2 slices = 32 sets'),
      d('l2.ways', 16, 8, '004 T1: 16-way L2'),
      d('l2.mshrEntries', 32, 256, '004 T1: 32 MSHRs per L2 partition'),
    ],
  },
  {
    // Paper 000 Tables 3.1, 4.1 (M2090), 5.1; gaps from TeslaC2050 (575:575:575:750, 14 SMs, gto).
    preset: 'm2090',
    config: 'deprecated-cfgs/TeslaC2050',
    deviations: [
      d('clocks.core', 1300, 575, '000 T3.1 core 1300 MHz (GPGPU-Sim halves the Fermi clock; the preset keeps it and issues every 2 cycles)'),
      d('clocks.icnt', 1300, 575, 'TeslaC2050 runs the interconnect at the core clock; 000 T4.3 (same SM) gives ICNT = core = 1300 MHz'),
      d('clocks.l2', 1300, 575, 'TeslaC2050 runs the L2 at the core clock'),
      d('clocks.dram', 925, 750, '000 T3.1 DRAM 1850 MHz is the GDDR5 data clock; command clock 1850 / 2'),
      d('sm.count', 16, 14, '000 T3.1 16 cores'),
      d('sm.issueIntervalCycles', 2, 1, '000 T3.1 one instruction every 2 cycles per scheduler (no GPGPU-Sim option)'),
      d('sm.lanes.sp', 32, undefined, `000 T3.1 32 ALUs: ${LANES}`),
      d('sm.lanes.dp', 16, undefined, `000 T4.1 16 DP units: ${LANES}`),
      d('sm.lanes.sfu', 4, undefined, `000 T3.1 4 SFUs: ${LANES}`),
      d('sm.lanes.lsu', 16, undefined, `000 T5.1 16 LD/ST units: ${LANES}`),
      d('policies.warpScheduler.kind', 'twoLevel', 'gto', '000 T3.1 ready warps queue size 6: two-level scheduler (TeslaC2050 line 121, commented out: two_level_active:6:0:1)'),
      d('policies.warpScheduler.readyQueueSize', 6, undefined, '000 T3.1 ready warps queue size 6'),
      d('policies.warpScheduler.inner', 'rr', undefined, 'two_level_active:6:0:1, inner 0 = loose round robin'),
      d('policies.warpScheduler.outer', 'rr', undefined, 'two_level_active:6:0:1, outer 1 = strict round robin'),
      ...FILE_SILENT_DEFAULTS('TeslaC2050'),
    ],
  },
  {
    // Paper 000 Table 4.1 (K20X); gaps from SM3_KEPLER_TITAN (837:837:837:1502).
    preset: 'k20x',
    config: 'tested-cfgs/SM3_KEPLER_TITAN',
    deviations: [
      d('clocks.core', 732, 837, '000 T4.1 3935 GFLOP/s / (2688 SP units x 2) = 732 MHz'),
      d('clocks.icnt', 732, 837, 'SM3_KEPLER_TITAN runs the interconnect at the core clock'),
      d('clocks.l2', 732, 837, 'SM3_KEPLER_TITAN runs the L2 at the core clock'),
      d('clocks.dram', 1300, 1502, '000 T4.1 DRAM 2600 MHz data clock / 2'),
      d('sm.registersPerCta', 65536, 32768, REGS_PER_CTA('3.5')),
      d('sm.registerAllocUnit', 256, 64, ALLOC('3.x')),
      d('sm.sharedMemAllocUnit', 256, 128, ALLOC('3.x')),
      d('sm.lanes.sp', 192, undefined, `000 T4.1 192 SP units per SM: ${LANES}`),
      d('sm.lanes.dp', 64, undefined, `000 T4.1 64 DP units per SM: ${LANES}`),
      d('l1d.skipGlobal', false, true, '000 §4.3.1.3: L1 data cache contention of LUD/SRAD is "more prominent on the Kepler configuration", so global loads use the L1D'),
    ],
  },
  {
    // Paper 000 Table 4.3; gaps from deprecated GTX480 (700:700:700:924, 15 SMs, 6 x 2 chips).
    preset: 'onac32',
    config: 'deprecated-cfgs/GTX480',
    deviations: [
      d('clocks.core', 1300, 700, '000 T4.3 core 1300 MHz'),
      d('clocks.icnt', 1300, 700, '000 T4.3 ICNT 1300 MHz'),
      d('clocks.l2', 1300, 700, 'GTX480 runs the L2 at the core clock'),
      d('sm.count', 32, 15, '000 T4.3 32 cores'),
      d('sm.issueIntervalCycles', 2, 1, 'Fermi SM at 1300 MHz issues every 2 cycles as in m2090 (000 T3.1, same author): T4.3 2662.4 GFLOP/s = 32 SMs x 32 ALUs x 2 x 1.3 GHz'),
      d('sm.lanes.sp', 32, undefined, `000 T4.3 32 ALUs: ${LANES}`),
      d('sm.lanes.sfu', 4, undefined, `000 T4.3 4 SFUs: ${LANES}`),
      d('sm.lanes.lsu', 16, undefined, `000 T4.3 16 LD/ST units: ${LANES}`),
      ...FILE_SILENT_DEFAULTS('GTX480'),
      d('memPartitions.count', 12, 6, '000 T4.3 12 memory partitions'),
      d('dram.chipsPerPartition', 1, 2, '000 T4.3 32-bit bus per memory partition = 1 chip x 4 B'),
      d('dram.banks', 6, 16, '000 T4.3 6 banks per memory partition'),
      d('dram.bankGroups', 1, 4, 'bank groups off with 6 banks (GPGPU-Sim: nbkgrp=1)'),
      d('dram.timing.tCCDL', 0, 3, 'bank groups off: GPGPU-Sim writes CCDL=0'),
      d('dram.timing.tRTPL', 0, 2, 'bank groups off: GPGPU-Sim writes RTPL=0'),
    ],
  },
  {
    // Paper 001 Table 1 (§2.3); gaps from GeForceGTX750Ti (1137:1137:1137:2700, 5 SMs, 2 channels).
    preset: 'maxwell-cke',
    config: 'deprecated-cfgs/GeForceGTX750Ti',
    deviations: [
      d('clocks.core', 1400, 1137, '001 T1 SMs at 1.4 GHz'),
      d('clocks.icnt', 1400, 1137, '001 T1 interconnect at 1.4 GHz'),
      d('clocks.l2', 1400, 1137, 'GTX750Ti runs the L2 at the core clock'),
      d('clocks.dram', 924, 2700, '001 T1 DRAM 924 MHz'),
      d('sm.count', 16, 5, '001 T1 16 SMs'),
      d('sm.maxThreads', 3072, 2048, '001 T1 3072 threads per SM'),
      d('sm.maxCtas', 16, 8, '001 T1 16 thread blocks per SM'),
      d('sm.maxWarps', 96, 64, '001 T1 96 warps per SM'),
      d('sm.registersPerCta', 65536, 32768, REGS_PER_CTA('5.x')),
      d('sm.registerAllocUnit', 256, 64, ALLOC('5.x')),
      d('sm.sharedMemBytes', 98304, 65536, '001 T1 96 KB shared memory'),
      d('sm.sharedMemAllocUnit', 256, 128, ALLOC('5.x')),
      d('l1d.ways', 6, 4, '001 T1 L1D 24 KB, 128 B lines, 6-way (32 sets kept)'),
      d('l1d.writePolicy', 'writeEvict', 'localWbGlobalWt', '001 T1 L1D write-evict (WEWN)'),
      d('l1d.setIndex', 'xor', 'fermiHash', '001 T1 xor set indexing'),
      d('l1d.mshrEntries', 128, 32, '001 T1 128 MSHRs per SM'),
      d('l1d.skipGlobal', false, true, '001 §2.1 / Table 2: global requests go through the L1D (its reservation failures are what the paper studies)'),
      d('l2.sets', 64, 1024, '001 T1 128 KB per partition, 128 B lines, 16-way = 64 sets'),
      d('l2.ways', 16, 8, '001 T1 16-way L2'),
      d('l2.setIndex', 'xor', 'linear', '001 T1 xor set indexing'),
      d('l2.mshrEntries', 128, 32, '001 T1 128 L2 MSHRs'),
      ...FILE_SILENT_DEFAULTS('GTX750Ti'),
      d('memPartitions.count', 16, 2, '001 T1 16 memory channels'),
      d('dram.chipsPerPartition', 1, 2, 'one standard 32-bit GDDR5 channel per T1 memory channel (preset module comment: T1 48 B/cycle over 16 channels fits no bus width)'),
      d('dram.busWidthBytes', 4, 32, 'one standard 32-bit GDDR5 channel per T1 memory channel (preset module comment)'),
      d('kernel.concurrentKernelsPerSm', true, false, '001 §2.3: kernels share an SM (intra-SM sharing)'),
    ],
  },
  {
    // Paper 002 Table 5.1 (ch. 5); gaps from SM6_TITANX (1417:1417:1417:2500, 12 partitions).
    preset: 'gtx1080ti',
    config: 'tested-cfgs/SM6_TITANX',
    deviations: [
      d('clocks.core', 1480, 1417, '002 T5.1 clock 1480 MHz'),
      d('clocks.icnt', 1480, 1417, 'SM6_TITANX runs the interconnect at the core clock'),
      d('clocks.l2', 1480, 1417, 'SM6_TITANX runs the L2 at the core clock'),
      d('sm.registersPerCta', 65536, 32768, REGS_PER_CTA('6.1')),
      d('sm.registerAllocUnit', 256, 64, ALLOC('6.x')),
      d('sm.sharedMemBytes', 32768, 98304, '002 T5.1 shared memory 32 KB'),
      d('sm.sharedMemPerCtaBytes', 32768, 49152, 'capped at the SM\'s 32 KB (T5.1); cc 6.1 allows 48 KB per CTA'),
      d('sm.sharedMemAllocUnit', 256, 128, ALLOC('6.x')),
      d('sm.fetchThroughput', 4, 8, '002 T5.1 instruction fetch throughput 4'),
      d('sm.operandCollector.sets.sp.units', 4, 6, 'SM6_TITANX silent: GPGPU-Sim default 4 (SM2_GTX480 sets 6)'),
      d('sm.operandCollector.sets.sp.inPorts', 1, 2, 'SM6_TITANX silent: GPGPU-Sim default 1 (SM2_GTX480 sets 2)'),
      d('sm.operandCollector.sets.sp.outPorts', 1, 2, 'SM6_TITANX silent: GPGPU-Sim default 1 (SM2_GTX480 sets 2)'),
      d('sm.operandCollector.sets.sfu.units', 4, 8, 'SM6_TITANX silent: GPGPU-Sim default 4 (SM2_GTX480 sets 8)'),
      d('l1d.ways', 24, 96, '002 T5.1 L1 12 KB = 4 sets x 24 ways x 128 B (TITANX: 48 KB, 96 ways)'),
      d('memPartitions.count', 11, 12, '002 T5.1 11 memory partitions'),
      d('memPartitions.partitionIndexing', 'consecutive', 'random', 'warpstate hashes channels consecutively or by xor only, and xor needs a power-of-two channel count (11 is not)'),
    ],
  },
];

/** The preset's and the imported config's value of every compared leaf. */
function compare(preset: GpuConfig, imported: GpuConfig): { compared: string[]; diffs: { field: string; preset: unknown; config: unknown }[] } {
  const a = leafValues(preset);
  const b = leafValues(imported);
  // Every schema leaf, plus any leaf either object has beyond the schema's (none expected).
  const fields = [...new Set([...configLeafPaths(), ...a.keys(), ...b.keys()])].filter((f) => !METADATA.has(f)).sort();
  const diffs = fields.filter((f) => !isDeepStrictEqual(a.get(f), b.get(f))).map((field) => ({ field, preset: a.get(field), config: b.get(field) }));
  return { compared: fields, diffs };
}

describe('presets against their GPGPU-Sim configs, leaf by leaf', () => {
  it('covers every preset', () => {
    expect(SOURCES.map((s) => s.preset).sort()).toEqual(presetNames().sort());
  });

  it.each(SOURCES)('$preset vs $config', ({ preset, config, deviations }) => {
    const p = presets[preset]!;
    const file = join(CFGS, config, 'gpgpusim.config');
    expect(p.sources?.some((s) => s.includes(`${config}/gpgpusim.config`)), `${preset} cites ${config}`).toBe(true);
    const { compared, diffs } = compare(p, importGpgpusimConfig(file).config);
    // Every leaf of the schema (280 today, less the 3 metadata fields) is compared.
    expect(compared.length).toBeGreaterThanOrEqual(configLeafPaths().length - METADATA.size);
    const sortByField = <T extends { field: string }>(xs: T[]): T[] => [...xs].sort((x, y) => x.field.localeCompare(y.field));
    // Differences = exactly the allow-list, with the values it states.
    expect(diffs).toEqual(sortByField(deviations.map(({ field, preset: pv, config: cv }) => ({ field, preset: pv, config: cv }))));
    for (const dv of deviations) expect(dv.reason.length, dv.field).toBeGreaterThan(10);
    expect(new Set(deviations.map((x) => x.field)).size).toBe(deviations.length);
  });
});

/** |actual - expected| <= rel * expected */
function near(actual: number | undefined, expected: number, rel: number): void {
  expect(actual).toBeDefined();
  expect(Math.abs(actual! - expected)).toBeLessThanOrEqual(rel * expected);
}

describe('paper 000 (Awatramani): m2090, k20x, onac32', () => {
  const m = presets.m2090!;

  it('m2090: Table 3.1 (§3.5.1) and Table 5.1 (§5.5), row by row', () => {
    expect(m.sm.count).toBe(16); // Number of cores 16
    expect(m.clocks.core).toBe(1300); // Core frequency 1300 MHz
    expect(m.clocks.dram * 2).toBe(1850); // DRAM clock frequency 1850 MHz (GDDR5 data clock = 2 x command clock)
    // Peak SP 1330 GFLOP/s: 16 SMs x 32 ALUs x 2 x 1.3 GHz = 1331.2
    near(peakFlopsPerSec(m, 'sp'), 1330 * GB, 0.001);
    // Peak DP: T3.1 prints 650, T4.1 665; 16 x 16 DP units x 2 x 1.3 GHz = 665.6 (T4.1), 2.4% above T3.1's figure
    near(peakFlopsPerSec(m, 'dp'), 665 * GB, 0.001);
    near(peakFlopsPerSec(m, 'dp'), 650 * GB, 0.025);
    // Peak DRAM bandwidth 177 GB/s: 6 partitions x 2 chips x 4 B x 4 x 925 MHz = 177.6
    near(peakDramBandwidthBytesPerSec(m), 177 * GB, 0.004);
    expect(m.sm.maxCtas).toBe(8); // Maximum thread blocks per core 8
    expect(maxWarpsPerSm(m)).toBe(48); // Maximum warps per core 48
    expect(m.sm.lanes).toMatchObject({ sp: 32, sfu: 4 }); // 32 ALUs, 4 SFUs
    expect(m.sm.lanes?.lsu).toBe(16); // T5.1: 16 LD/ST units
    expect(m.sm.schedulers).toBe(2); // Warp schedulers per core 2
    expect([m.sm.issueWidth, m.sm.issueIntervalCycles]).toEqual([1, 2]); // 1 instruction every 2 cycles
    expect(m.policies.warpScheduler).toMatchObject({ kind: 'twoLevel', readyQueueSize: 6 }); // Ready warps queue size 6
  });

  it('m2090: Table 4.1 M2090 column (§4.3.3.1)', () => {
    expect(m.sm.registers * 4).toBe(128 * KiB); // register file 128 KB
    expect(m.sm.maxThreads).toBe(1536);
    expect(m.sm.maxCtas).toBe(8);
    expect([m.sm.lanes?.sp, m.sm.count * m.sm.lanes!.sp!]).toEqual([32, 512]); // 32 (512)
    expect([m.sm.lanes?.dp, m.sm.count * m.sm.lanes!.dp!]).toEqual([16, 256]); // 16 (256)
    near(peakFlopsPerSec(m, 'sp'), 1330 * GB, 0.001);
    near(peakFlopsPerSec(m, 'dp'), 665 * GB, 0.001);
    expect(m.clocks.dram * 2).toBe(1850);
    near(peakDramBandwidthBytesPerSec(m), 177 * GB, 0.004);
  });

  it('k20x: Table 4.1 K20X column (§4.3.3.1)', () => {
    const k = presets.k20x!;
    expect(k.sm.registers * 4).toBe(256 * KiB); // register file 256 KB
    expect(k.sm.maxThreads).toBe(2048);
    expect(k.sm.maxCtas).toBe(16);
    expect([k.sm.lanes?.sp, k.sm.count * k.sm.lanes!.sp!]).toEqual([192, 2688]); // 192 (2688): 14 SMs
    expect([k.sm.lanes?.dp, k.sm.count * k.sm.lanes!.dp!]).toEqual([64, 896]); // 64 (896)
    // 3935 GFLOP/s: 2688 x 2 x 732 MHz = 3934.8; 1311: 896 x 2 x 732 MHz = 1311.7
    near(peakFlopsPerSec(k, 'sp'), 3935 * GB, 0.0005);
    near(peakFlopsPerSec(k, 'dp'), 1311 * GB, 0.001);
    expect(k.clocks.dram * 2).toBe(2600);
    // 250 GB/s: 12 partitions x 4 B x 4 x 1300 MHz = 249.6
    near(peakDramBandwidthBytesPerSec(k), 250 * GB, 0.002);
    // §4.3.1.3: "the L1 cache size is the same" on the Kepler and Fermi configurations (16 KB each)
    expect([cacheSizeBytes(k.l1d), cacheSizeBytes(m.l1d)]).toEqual([16 * KiB, 16 * KiB]);
    // ... and that L1 data cache sees the global loads whose contention the section measures
    expect([k.l1d.skipGlobal, m.l1d.skipGlobal]).toEqual([false, false]);
  });

  it('onac32: Table 4.3 (§4.4.3.1), row by row', () => {
    const o = presets.onac32!;
    expect(o.sm.count).toBe(32); // Number of cores 32
    expect(o.sm.warpSize).toBe(32); // Warp size 32
    expect([o.sm.schedulers, o.policies.warpScheduler.kind]).toEqual([2, 'gto']); // 2, GTO
    expect(o.sm.lanes).toMatchObject({ sp: 32, sfu: 4, lsu: 16 }); // 32 ALUs, 4 SFUs, 16 LD/ST units
    // Max. 48 warps, 8 thread blocks, 32768 registers, 48 KB shared memory
    expect([maxWarpsPerSm(o), o.sm.maxCtas, o.sm.registers, o.sm.sharedMemBytes]).toEqual([48, 8, 32768, 48 * KiB]);
    expect([o.clocks.core, o.clocks.icnt, o.clocks.dram * 2]).toEqual([1300, 1300, 1848]); // 1300/1300/1848 MHz
    expect(o.memPartitions.count).toBe(12); // 12 memory partitions
    expect(o.dram.chipsPerPartition * o.dram.busWidthBytes * 8).toBe(32); // 32-bit bus per partition
    expect(o.dram.banks).toBe(6); // 6 banks per partition
    // GDDR5 timing: GPGPU-Sim's GDDR5 (Hynix H5GQ1H24AFR) values of the GTX480 config, QDR data bus
    expect(o.dram.timing).toMatchObject({ tCCD: 2, tRRD: 6, tRCD: 12, tRAS: 28, tRP: 12, tRC: 40, tCL: 12, tWL: 4, tCDLR: 5, tWR: 12 });
    expect(o.dram.dataCommandFreqRatio).toBe(4);
    // Single precision max 2662.4 GFLOP/s = 32 x 32 x 2 x 1.3 GHz exactly
    expect(peakFlopsPerSec(o, 'sp')! / GB).toBeCloseTo(2662.4, 6);
    // 177.4 GB/s = 12 x 4 B x 4 x 924 MHz = 177.408
    expect(peakDramBandwidthBytesPerSec(o) / GB).toBeCloseTo(177.408, 6);
  });
});

describe('paper 001 (Dai et al.) Table 1 (§2.3): maxwell-cke', () => {
  const c = presets['maxwell-cke']!;
  it('every row', () => {
    expect([c.sm.count, c.sm.warpSize, c.clocks.core]).toEqual([16, 32, 1400]); // 16 SMs, SIMD width 32, 1.4 GHz
    expect([c.sm.schedulers, c.policies.warpScheduler.kind]).toEqual([4, 'gto']); // 4 GTO schedulers
    // Per-SM limit: 3072 threads, 96 warps, 16 thread blocks, 128 MSHRs
    expect([c.sm.maxThreads, maxWarpsPerSm(c), c.sm.maxCtas, c.l1d.mshrEntries]).toEqual([3072, 96, 16, 128]);
    // L1D 24 KB, 128 B lines, 6-way
    expect([cacheSizeBytes(c.l1d), c.l1d.lineBytes, c.l1d.ways]).toEqual([24 * KiB, 128, 6]);
    expect([c.sm.sharedMemBytes, c.sharedMem.banks]).toEqual([96 * KiB, 32]); // SMEM 96 KB, 32 banks
    // Unified L2 2048 KB, 128 KB per partition, 128 B lines, 16-way, 128 MSHRs
    expect([l2TotalBytes(c), cacheSizeBytes(c.l2), c.l2.lineBytes, c.l2.ways, c.l2.mshrEntries]).toEqual([2048 * KiB, 128 * KiB, 128, 16, 128]);
    // xor indexing, allocate on miss, LRU; L1D write-evict / no write-allocate, L2 write-back / write-allocate
    for (const g of [c.l1d, c.l2]) expect([g.setIndex, g.allocation, g.replacement]).toEqual(['xor', 'onMiss', 'lru']);
    expect([c.l1d.writePolicy, c.l1d.writeAllocate, c.l2.writePolicy, c.l2.writeAllocate]).toEqual(['writeEvict', 'noWriteAllocate', 'writeBack', 'writeAllocate']);
    // 16 x 16 crossbar (16 SMs to 16 L2 slices), 32 B flits, 1.4 GHz
    expect([c.interconnect.topology, c.sm.count, c.memPartitions.count * c.memPartitions.subPartitions]).toEqual(['crossbar', 16, 16]);
    expect([c.interconnect.flitBytes, c.clocks.icnt]).toEqual([32, 1400]);
    // 16 channels, FR-FCFS, 924 MHz
    expect([c.memPartitions.count, c.dram.scheduler, c.clocks.dram]).toEqual([16, 'frFcfs', 924]);
    // "BW 48 bytes/cycle" is not reproduced (documented deviation): 16 channels x 4 B = 64 B per command cycle
    expect(c.memPartitions.count * c.dram.chipsPerPartition * c.dram.busWidthBytes).toBe(64);
  });
});

describe('paper 002 (SOCGPU) Table 5.1 (ch. 5, Evaluation Methodology): gtx1080ti', () => {
  const c = presets.gtx1080ti!;
  it('every baseline row', () => {
    expect(c.clocks.core).toBe(1480); // Clock 1480 MHz
    expect(c.sm.issueWidth).toBe(2); // Maximum instructions issued per warp 2
    // SP/SFU/MEM units 4/4/1 (Accel-Sim's per-SM counts, one SP and SFU unit per sub-core; preset module comment)
    expect([c.sm.units.sp.count, c.sm.units.sfu.count, c.sm.units.lsu.count]).toEqual([4, 4, 1]);
    expect(c.sm.count).toBe(28); // Number of SMs 28
    expect(c.sm.operandCollector?.sets.gen.units).toBe(8); // 8 collector units per SM
    expect(maxWarpsPerSm(c)).toBe(64); // Warps per SM 64
    expect(c.sm.registers).toBe(65536); // Registers per SM 65536
    expect(c.sm.warpSize).toBe(32); // Warp width 32
    expect([cacheSizeBytes(c.l1d), c.sm.sharedMemBytes]).toEqual([12 * KiB, 32 * KiB]); // L1/Shared 12 KB/32 KB
    expect([c.sm.subCoreModel, c.sm.schedulers]).toEqual([true, 4]); // 4 sub-cores x 1 scheduler
    expect(c.sm.fetchThroughput).toBe(4); // Instruction fetch throughput 4
    expect(c.memPartitions.count).toBe(11); // Memory partitions 11
    expect(c.policies.warpScheduler.kind).toBe('gto'); // Issue scheduler policy GTO
    // SOCGPU rows (instruction buffer 8, local policy First) parameterise the SOCGPU policy, not the baseline machine.
    expect(c.sm.iBufferEntries).toBe(2);
  });
});

describe('paper 004 (ELF) Table 1 (§4): gtx480-elf, and gtx480 where SM2_GTX480 agrees', () => {
  /** Rows where Table 1 and SM2_GTX480 agree. */
  function commonRows(c: GpuConfig): void {
    expect(c.sm.count).toBe(15); // 15 SMs
    expect(c.clocks.core * 2).toBe(1400); // 1400 MHz as GPGPU-Sim's halved Fermi clock (700 MHz)
    expect(c.sm.warpSize).toBe(32); // SIMT width 32
    expect([c.sm.registers, c.sm.maxThreads, c.sm.maxCtas, c.sm.sharedMemBytes]).toEqual([32768, 1536, 8, 48 * KiB]);
    expect([cacheSizeBytes(c.l1i), c.l1i.ways, c.l1i.lineBytes]).toEqual([2 * KiB, 4, 128]); // L1I 2 kB / 4-way / 128 B
    expect([cacheSizeBytes(c.l1d), c.l1d.ways, c.l1d.lineBytes]).toEqual([16 * KiB, 4, 128]); // L1D 16 kB / 4-way / 128 B
    expect([l2TotalBytes(c), c.l2.lineBytes]).toEqual([768 * KiB, 128]); // L2 768 kB, 128 B lines
    expect(c.memPartitions.count).toBe(6); // 6 memory partitions
    expect(c.dram.scheduler).toBe('frFcfs'); // FR-FCFS
    // 177.4 GB/s = 6 x 2 chips x 4 B x 4 x 924 MHz = 177.408
    expect(peakDramBandwidthBytesPerSec(c) / GB).toBeCloseTo(177.408, 6);
  }

  it('gtx480-elf: every row', () => {
    const c = presets['gtx480-elf']!;
    commonRows(c);
    expect(c.l1i.mshrEntries).toBe(8); // 8 MSHRs per L1I
    expect(c.l1d.mshrEntries).toBe(32); // 32 MSHRs per L1D
    expect([c.l2.ways, c.l2.mshrEntries]).toEqual([16, 32]); // 16-way, 32 MSHRs per L2 partition (slice)
  });

  it('gtx480: the rows SM2_GTX480 shares (its MSHRs and L2 associativity are SM2_GTX480\'s)', () => {
    commonRows(presets.gtx480!);
  });
});
