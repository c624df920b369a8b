import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importGpgpusimConfig, importGpgpusimConfigText, MAPPED_OPTIONS, readConfigLines } from '../../src/config/gpgpusim-import.ts';
import { gtx480 } from '../../src/config/presets/gtx480.ts';
import { cacheSizeBytes, peakDramBandwidthBytesPerSec, type GpuConfig } from '../../src/config/schema.ts';
import { InputError } from '../../src/errors.ts';

/** Third-party reference data copied into the project (data/README.md). */
const DATA = resolve(process.cwd(), 'data');
const CFGS = join(DATA, 'gpgpusim-configs');
const cfg = (kind: string, name: string): string => join(CFGS, kind, name, 'gpgpusim.config');

/** SM count, partitions and clocks as written in each file (read by hand from the files). */
const EXPECTED: Record<string, { sms: number; partitions: number; clocks: [number, number, number, number] }> = {
  'tested-cfgs/SM2_GTX480': { sms: 15, partitions: 6, clocks: [700, 700, 700, 924] },
  'tested-cfgs/SM3_KEPLER_TITAN': { sms: 14, partitions: 12, clocks: [837, 837, 837, 1502] },
  'tested-cfgs/SM6_TITANX': { sms: 28, partitions: 12, clocks: [1417, 1417, 1417, 2500] },
  'tested-cfgs/SM75_RTX2060': { sms: 30, partitions: 12, clocks: [1365, 1365, 1365, 3500] },
  'tested-cfgs/SM7_QV100': { sms: 80, partitions: 32, clocks: [1132, 1132, 1132, 850] },
  'tested-cfgs/SM7_TITANV': { sms: 80, partitions: 24, clocks: [1200, 1200, 1200, 850] },
  'deprecated-cfgs/GTX480': { sms: 15, partitions: 6, clocks: [700, 700, 700, 924] },
  'deprecated-cfgs/GeForceGTX750Ti': { sms: 5, partitions: 2, clocks: [1137, 1137, 1137, 2700] },
  'deprecated-cfgs/SM6_GTX1080': { sms: 28, partitions: 11, clocks: [1481, 2962, 1481, 2750] },
  'deprecated-cfgs/SM6_P100': { sms: 56, partitions: 32, clocks: [1480, 1480, 1480, 715] },
  'deprecated-cfgs/TeslaC2050': { sms: 14, partitions: 6, clocks: [575, 575, 575, 750] },
};

const allFiles = [
  ...['tested-cfgs', 'deprecated-cfgs'].flatMap((kind) =>
    readdirSync(join(CFGS, kind), { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => `${kind}/${d.name}`),
  ),
].sort();

function catchInput(fn: () => unknown): InputError {
  try {
    fn();
  } catch (e) {
    if (e instanceof InputError) return e;
    throw e;
  }
  throw new Error('expected an InputError');
}

describe('importGpgpusimConfig: every shared config', () => {
  it('finds the configs this test expects', () => {
    expect(allFiles).toEqual(Object.keys(EXPECTED).sort());
  });

  it.each(allFiles)('imports %s', (rel) => {
    const file = join(CFGS, rel, 'gpgpusim.config');
    const r = importGpgpusimConfig(file);
    const exp = EXPECTED[rel]!;
    expect(r.config.sm.count).toBe(exp.sms);
    expect(r.config.memPartitions.count).toBe(exp.partitions);
    expect([r.config.clocks.core, r.config.clocks.icnt, r.config.clocks.l2, r.config.clocks.dram]).toEqual(exp.clocks);
    expect(r.config.name).toBe(rel.split('/')[1]);
    // Options are reported by name, with the line they are on.
    const lines = readFileSync(file, 'utf8').split('\n');
    expect(r.mapped).toContain('-gpgpu_n_clusters');
    expect(r.mapped).toContain('-gpgpu_cache:dl1');
    expect(r.mapped).toContain('-gpgpu_dram_timing_opt');
    expect(r.ignored.map((i) => i.option)).toContain('-gpgpu_ptx_sim_mode');
    for (const ig of r.ignored) {
      expect(lines[ig.line - 1]!.trimStart().startsWith(ig.option), `${ig.option} on line ${ig.line}`).toBe(true);
      expect(MAPPED_OPTIONS).not.toContain(ig.option === '-inter_config_file' ? '' : ig.option);
    }
    for (const m of r.mapped) expect(r.ignored.map((i) => i.option)).not.toContain(m);
    expect(new Set(r.mapped).size).toBe(r.mapped.length);
  });

  it('imports the Accel-Sim trace GTX 1080 config', () => {
    const r = importGpgpusimConfig(join(DATA, 'accelsim-traces', 'gtx1080-config', 'gpgpusim.config'));
    expect(r.config.name).toBe('gtx1080-config');
    expect(r.config.sm.count).toBe(20); // -gpgpu_n_clusters 20
    expect(r.config.memPartitions.count).toBe(8); // -gpgpu_n_mem 8
    expect(r.config.clocks).toEqual({ core: 1607, icnt: 1607, l2: 1607, dram: 2500 });
    expect(r.config.l1d.skipGlobal).toBe(true); // -gpgpu_gmem_skip_L1D 1
    expect(r.config.sm.units.tensor.count).toBe(0); // -gpgpu_tensor_core_avail 0
    expect(r.config.sm.sharedMemBytes).toBe(98304);
    expect(r.config.sm.issueWidth).toBe(2);
    expect(r.config.dram.bankGroups).toBe(1); // nbkgrp=1:CCDL=0:RTPL=0
    expect(r.config.dram.timing.tCCDL).toBe(0);
    expect(r.config.l2).toMatchObject({ sets: 64, ways: 16, mshrEntries: 1024, mshrMaxMerge: 1024, writeAllocate: 'writeAllocate' });
  });
});

describe('importGpgpusimConfig: SM2_GTX480', () => {
  const r = importGpgpusimConfig(cfg('tested-cfgs', 'SM2_GTX480'));
  const c = r.config;

  it('maps the SM options', () => {
    expect(c.sm.count).toBe(15);
    expect(c.sm.registers).toBe(32768); // -gpgpu_shader_registers 32768
    expect(c.sm.maxThreads).toBe(1536);
    expect(c.sm.warpSize).toBe(32);
    expect(c.sm.maxWarps).toBe(48);
    expect(c.sm.maxCtas).toBe(8);
    expect(c.sm.sharedMemBytes).toBe(49152);
    expect(c.sm.schedulers).toBe(2);
    expect(c.sm.issueWidth).toBe(1);
    expect(c.sm.units.sp).toEqual({ count: 2, idOcWidth: 2, ocExWidth: 2 });
    expect(c.sm.units.sfu).toEqual({ count: 1, idOcWidth: 1, ocExWidth: 1 });
    expect(c.sm.units.dp.count).toBe(0);
    expect(c.sm.units.exWbWidth).toBe(2);
    expect(c.sm.opcodeTiming.int.div).toEqual({ latency: 145, initiation: 8 });
    expect(c.sm.opcodeTiming.int.shfl).toEqual({ latency: 32, initiation: 4 });
    expect(c.sm.opcodeTiming.fp.div).toEqual({ latency: 39, initiation: 4 });
    expect(c.sm.opcodeTiming.dp.max).toEqual({ latency: 19, initiation: 16 });
    expect(c.sm.operandCollector?.sets.sp).toEqual({ units: 6, inPorts: 2, outPorts: 2 });
    expect(c.sm.operandCollector?.regBanks).toBe(16);
    expect(c.policies.warpScheduler).toEqual({ kind: 'gto' });
  });

  it("maps the commented 2-LV line two_level_active:6:0:1 to GPGPU-Sim's own two-list scheduler (C3)", () => {
    const text = readFileSync(cfg('tested-cfgs', 'SM2_GTX480'), 'utf8').replace('#-gpgpu_scheduler two_level_active:6:0:1', '-gpgpu_scheduler two_level_active:6:0:1').replace(/^-gpgpu_scheduler gto.*$/m, '');
    const two = importGpgpusimConfigText(text, 'SM2_GTX480-2lv.config').config;
    expect(two.policies.warpScheduler).toEqual({ kind: 'twoLevelGpgpusim', readyQueueSize: 6 });
    const bad = catchInput(() => importGpgpusimConfigText(text.replace('two_level_active:6:0:1', 'two_level_active:6:2:1'), 'x.config'));
    expect(bad.message).toMatch(/inner prioritisation 2 is not implemented by GPGPU-Sim's two_level_active/);
  });

  it('maps the caches: L1D 32 sets x 4 ways x 128 B, L2 64 sets x 8 ways x 128 B', () => {
    expect(c.l1d).toMatchObject({ sets: 32, ways: 4, lineBytes: 128, mshrEntries: 64, mshrMaxMerge: 8, missQueueEntries: 8, setIndex: 'fermiHash', latencyCycles: 35 });
    expect(cacheSizeBytes(c.l1d)).toBe(16 * 1024);
    expect(c.l2).toMatchObject({ sets: 64, ways: 8, lineBytes: 128, sectorBytes: 32, writePolicy: 'writeBack', mshrEntries: 256, dataPortBytes: 32 });
    expect(c.l1i).toMatchObject({ sets: 4, ways: 4, lineBytes: 128, mshrEntries: 2 });
    expect(c.texCache).toMatchObject({ sets: 4, ways: 24, mshrType: 'sectorTexFifo', resultFifoEntries: 2 });
    expect(c.constCache).toMatchObject({ sets: 64, ways: 2, lineBytes: 64 });
    expect(c.sharedMem).toEqual({ banks: 32, latencyCycles: 26, limitedBroadcast: false, warpParts: 1 });
  });

  it('maps the memory system and DRAM timing', () => {
    expect(c.memPartitions).toMatchObject({ count: 6, subPartitions: 2, ropLatencyCycles: 120, dramLatencyCycles: 100 });
    expect(c.memPartitions.queues).toEqual({ icntToL2: 64, l2ToDram: 64, dramToL2: 64, l2ToIcnt: 64 });
    expect(c.memPartitions.addressMapping.dramIdStartBit).toBe(8);
    expect(c.dram).toMatchObject({ chipsPerPartition: 2, busWidthBytes: 4, burstLength: 8, dataCommandFreqRatio: 4, banks: 16, bankGroups: 4 });
    expect(c.dram.timing).toEqual({ tCCD: 2, tRRD: 6, tRCD: 12, tRAS: 28, tRP: 12, tRC: 40, tCL: 12, tWL: 4, tCDLR: 5, tWR: 12, tCCDL: 3, tRTPL: 2 });
    expect(c.dram).toMatchObject({ scheduler: 'frFcfs', schedulerQueueEntries: 64, returnQueueEntries: 116, bankGroupIndexing: 'lowBits' });
    // 6 x 2 x 4 B x 4 x 924 MHz = 177.4 GB/s (paper 004 Table 1)
    expect(peakDramBandwidthBytesPerSec(c) / 1e9).toBeCloseTo(177.408, 3);
  });

  it('reads the BookSim file for the interconnect', () => {
    expect(c.interconnect).toEqual({
      topology: 'crossbar',
      flitBytes: 40,
      latencyCycles: 3,
      inputBufferEntries: 64,
      outputBufferEntries: 64,
      arbitration: 'islip',
      subnets: 2,
      ejectionBufferEntries: 32,
    });
    expect(r.mapped).toContain('-inter_config_file');
  });

  it('lists the options it does not model by name and line', () => {
    expect(r.ignored).toContainEqual({ option: '-gpgpu_ptx_force_max_capability', line: 4, value: '20' });
    expect(r.ignored).toContainEqual({ option: '-gpuwattch_xml_file', line: 157, value: 'gpuwattch_gtx480.xml' });
    expect(r.ignored.map((i) => i.option)).toContain('-gpgpu_coalesce_arch');
    expect(r.ignored.map((i) => i.option)).toContain('-gpgpu_occupancy_sm_number');
  });

  it('gives exactly the gtx480 preset, written out independently from the same file', () => {
    const strip = (x: GpuConfig): unknown => ({ ...x, name: '', description: '', sources: [] });
    expect(strip(c)).toEqual(strip(gtx480));
  });
});

describe('importGpgpusimConfig: other architectures', () => {
  it('QV100: local crossbar, HBM, sub-cores, tensor cores', () => {
    const r = importGpgpusimConfig(cfg('tested-cfgs', 'SM7_QV100'));
    const c = r.config;
    expect(c.interconnect).toMatchObject({ inputBufferEntries: 512, outputBufferEntries: 512, subnets: 2, arbitration: 'islip', flitBytes: 40, latencyCycles: 1 });
    expect(c.dram).toMatchObject({ busWidthBytes: 16, burstLength: 2, dataCommandFreqRatio: 2, dualBusInterface: true, chipsPerPartition: 1 });
    expect(c.dram.timing).toMatchObject({ tCCD: 1, tRRD: 3, tRCD: 12, tRAS: 28, tWL: 2, tWR: 10, tCCDL: 2, tRTPL: 3 });
    expect(peakDramBandwidthBytesPerSec(c) / 1e9).toBeCloseTo(870.4, 3); // 32 x 16 B x 2 x 850 MHz
    expect(c.l1d).toMatchObject({ sets: 1, ways: 256, allocation: 'streaming', banks: 4, latencyCycles: 20 });
    expect(c.l2).toMatchObject({ sets: 32, ways: 24, setIndex: 'ipoly', mshrEntries: 192 });
    expect(c.sm.units.int).toEqual({ count: 4, idOcWidth: 4, ocExWidth: 4 });
    expect(c.sm.units.tensor).toEqual({ count: 4, idOcWidth: 4, ocExWidth: 4 });
    expect(c.sm.subCoreModel).toBe(true);
    expect(c.sm.operandCollector).toMatchObject({ specialized: false, regFilePorts: 2, sets: { gen: { units: 8, inPorts: 8, outPorts: 8 } } });
    expect(c.sm.opcodeTiming.sfu).toEqual({ latency: 100, initiation: 8 });
    expect(c.sm.opcodeTiming.int.shfl).toEqual({ latency: 21, initiation: 4 });
    expect(c.memPartitions.partitionIndexing).toBe('ipoly');
    expect(c.kernel.launchLatencyCycles).toBe(5000);
    expect(c.sm.maxCtas).toBe(32);
    expect(c.sm.registersPerCta).toBe(65536);
    expect(c.sm.sharedMemPerCtaBytes).toBe(65536);
  });

  it('TITANV: 40 clusters of 2 SMs, separate write queue, xor bank indexing', () => {
    const c = importGpgpusimConfig(cfg('tested-cfgs', 'SM7_TITANV')).config;
    expect(c.sm.count).toBe(80);
    expect(c.sm.clusters).toBe(40);
    expect(c.dram.writeQueue).toEqual({ enabled: true, entries: 128, highWatermark: 108, lowWatermark: 32 });
    expect(c.dram.bankIndexing).toBe('xor');
  });

  it('KEPLER_TITAN: the older -smem_latency name, DP units, no dual issue across different units', () => {
    const r = importGpgpusimConfig(cfg('tested-cfgs', 'SM3_KEPLER_TITAN'));
    expect(r.config.sharedMem.latencyCycles).toBe(24);
    expect(r.mapped).toContain('-smem_latency');
    expect(r.config.sm.units.dp).toEqual({ count: 4, idOcWidth: 4, ocExWidth: 4 });
    expect(r.config.sm.dualIssueDiffUnits).toBe(false);
    expect(r.config.sm.opcodeTiming.sfu).toEqual({ latency: 200, initiation: 2 });
    expect(r.config.sm.operandCollector?.sets.dp).toEqual({ units: 6, inPorts: 1, outPorts: 1 });
  });

  it('TeslaC2050: GPGPU-Sim 3.x strings, -rop_latency, 7-value widths, 5-value int latencies', () => {
    const r = importGpgpusimConfig(cfg('deprecated-cfgs', 'TeslaC2050'));
    const c = r.config;
    expect(c.l1d).toMatchObject({ sets: 32, ways: 4, lineBytes: 128, mshrType: 'assoc', mshrEntries: 32 });
    expect(c.l1d).not.toHaveProperty('sectorBytes');
    expect(c.l2).toMatchObject({ sets: 64, ways: 8, writeAllocate: 'writeAllocate', mshrEntries: 32, dataPortBytes: 32 });
    expect(c.texCache).toMatchObject({ mshrType: 'texFifo', ways: 24 });
    expect(c.memPartitions.ropLatencyCycles).toBe(120);
    expect(r.mapped).toContain('-rop_latency');
    expect(c.sm.units.dp).toEqual({ count: 0, idOcWidth: 0, ocExWidth: 0 });
    expect(c.sm.units.lsu).toMatchObject({ idOcWidth: 1, ocExWidth: 1 });
    expect(c.sm.opcodeTiming.int.div).toEqual({ latency: 145, initiation: 8 });
    expect(c.sm.opcodeTiming.int.shfl).toEqual(gtx480.sm.opcodeTiming.int.shfl); // not in a 5-value list: kept from the base
    expect(c.dram.schedulerQueueEntries).toBe(16);
    expect(c.dram.returnQueueEntries).toBe(114);
    expect(c.interconnect).toMatchObject({ flitBytes: 32, inputBufferEntries: 8 }); // config_fermi_islip.icnt of TeslaC2050
    expect(peakDramBandwidthBytesPerSec(c) / 1e9).toBeCloseTo(144, 6); // 6 x 2 x 4 B x 4 x 750 MHz
  });

  it('SM6_P100: two SMs per cluster and the older -gmem_skip_L1D name', () => {
    const r = importGpgpusimConfig(cfg('deprecated-cfgs', 'SM6_P100'));
    expect(r.config.sm.count).toBe(56);
    expect(r.config.sm.clusters).toBe(28);
    expect(r.mapped).toContain('-gmem_skip_L1D');
    expect(r.config.sm.operandCollector?.sets.mem).toEqual({ units: 10, inPorts: 1, outPorts: 1 });
  });
});

describe('importGpgpusimConfig: channel hashes the model does not have are named, not silent', () => {
  it.each([
    ['tested-cfgs/SM6_TITANX', 122, 'random'],
    ['tested-cfgs/SM7_QV100', 133, 'ipoly'],
  ])('%s: -gpgpu_memory_partition_indexing (line %i) %s is listed as simulated as consecutive', (dir, line, hash) => {
    const r = importGpgpusimConfig(join(CFGS, dir, 'gpgpusim.config'));
    expect(r.config.memPartitions.partitionIndexing).toBe(hash);
    expect(r.notModelled).toContainEqual({
      option: '-gpgpu_memory_partition_indexing',
      line,
      field: 'memPartitions.partitionIndexing',
      reason: `channel hashing '${hash}' is not modelled: simulated as consecutive channels (warpstate models consecutive and xor)`,
    });
  });

  it('consecutive (SM2_GTX480) is modelled: nothing listed', () => {
    const r = importGpgpusimConfig(join(CFGS, 'tested-cfgs/SM2_GTX480', 'gpgpusim.config'));
    expect(r.notModelled.map((n) => n.field)).not.toContain('memPartitions.partitionIndexing');
  });
});

describe('importGpgpusimConfigText: file format', () => {
  const dir = mkdtempSync(join(tmpdir(), 'warpstate-cfg-'));

  it('reads comments, trailing comments, quoted multi-line values and spaces', () => {
    const text = [
      '# a comment',
      '',
      '-gpgpu_n_mem 8   # trailing comment',
      '-trace_components WARP_SCHEDULER, SCOREBOARD',
      '-gpgpu_dram_timing_opt "nbk=8:CCD=2:RRD=6:RCD=12:RAS=28:RP=12:RC=40:',
      '                        CL=14:WL=4:CDLR=5:WR=12:nbkgrp=2:CCDL=3:RTPL=2"  # GDDR5',
      '   -gpgpu_shader_registers 16384',
    ].join('\n');
    const lines = readConfigLines(text, 't.config');
    expect(lines.map((l) => [l.option, l.line])).toEqual([
      ['-gpgpu_n_mem', 3],
      ['-trace_components', 4],
      ['-gpgpu_dram_timing_opt', 5],
      ['-gpgpu_shader_registers', 7],
    ]);
    expect(lines[1]!.value).toBe('WARP_SCHEDULER, SCOREBOARD');
    const r = importGpgpusimConfigText(text, 't.config');
    expect(r.config.memPartitions.count).toBe(8);
    expect(r.config.dram.banks).toBe(8);
    expect(r.config.dram.bankGroups).toBe(2);
    expect(r.config.dram.timing.tCL).toBe(14);
    expect(r.config.sm.registers).toBe(16384);
    expect(r.ignored).toEqual([{ option: '-trace_components', line: 4, value: 'WARP_SCHEDULER, SCOREBOARD' }]);
    expect(r.mapped).toEqual(['-gpgpu_n_mem', '-gpgpu_dram_timing_opt', '-gpgpu_shader_registers']);
  });

  it('lets a later line override an earlier one', () => {
    const r = importGpgpusimConfigText('-gpgpu_n_clusters 15\n-gpgpu_scheduler lrr\n-gpgpu_n_clusters 7\n', 't.config');
    expect(r.config.sm.count).toBe(7);
    expect(r.mapped).toEqual(['-gpgpu_scheduler', '-gpgpu_n_clusters']);
    expect(r.config.policies.warpScheduler).toEqual({ kind: 'lrr' });
  });

  it('keeps the base for options the file does not set, and takes a name', () => {
    const r = importGpgpusimConfigText('-gpgpu_n_mem 4\n', join(dir, 'x.config'), { name: 'mine' });
    expect(r.config.name).toBe('mine');
    expect(r.config.l1d).toEqual(gtx480.l1d);
    expect(r.config.sm.lanes).toBeUndefined();
  });

  it('reports malformed values of mapped options with file, line and option', () => {
    const cases: [string, number, string, RegExp][] = [
      ['-gpgpu_n_clusters 15\n-gpgpu_n_mem six\n', 2, '-gpgpu_n_mem', /expected a non-negative integer, got 'six'/],
      ['\n\n-gpgpu_cache:dl1 N:32:128:4,L:L:m:N:H\n', 3, '-gpgpu_cache:dl1', /expected 4 or 5 comma-separated groups/],
      ['-gpgpu_clock_domains 700:700:700\n', 1, '-gpgpu_clock_domains', /<core>:<icnt>:<l2>:<dram>/],
      ['-gpgpu_scheduler fancy\n', 1, '-gpgpu_scheduler', /not modelled/],
      ['-gpgpu_dram_timing_opt "nbk=16:XYZ=3"\n', 1, '-gpgpu_dram_timing_opt', /unknown DRAM timing key 'XYZ'/],
      ['-gpgpu_pipeline_widths 1,2,3\n', 1, '-gpgpu_pipeline_widths', /expected 7 or 11 or 13 values/],
      ['-gpgpu_dram_scheduler 7\n', 1, '-gpgpu_dram_scheduler', /value 7 is not one of 0 \(fifo\), 1 \(frFcfs\)/],
      ['-ptx_opcode_latency_fp 4,13,4\n', 1, '-ptx_opcode_latency_fp', /expected 5 values/],
      ['-gpgpu_mem_addr_mapping dramid@8;RRRR\n', 1, '-gpgpu_mem_addr_mapping', /expected 64/],
      ['-gpgpu_shader_core_pipeline 1536\n', 1, '-gpgpu_shader_core_pipeline', /expected 2 values/],
      ['-gpgpu_shader_cta 0\n', 1, '-gpgpu_shader_cta', /expected an integer >= 1/],
      ['-gpgpu_cache:dl2 none\n', 1, '-gpgpu_cache:dl2', /warpstate needs this cache/],
      ['-gpgpu_n_mem\n', 1, '-gpgpu_n_mem', /option has no value/],
      ['-network_mode 3\n', 1, '-network_mode', /network mode 3 is not modelled/],
    ];
    for (const [text, line, option, re] of cases) {
      const e = catchInput(() => importGpgpusimConfigText(text, 'bad.config'));
      expect(e.file, text).toBe('bad.config');
      expect(e.line, text).toBe(line);
      expect(e.field, text).toBe(option);
      expect(e.reason, text).toMatch(re);
      expect(e.message.startsWith(`bad.config:${line}: ${option}: `)).toBe(true);
    }
  });

  it('names the option behind a combination the schema rejects', () => {
    const e = catchInput(() => importGpgpusimConfigText('-gpgpu_shader_registers 32768\n-gpgpu_shader_core_pipeline 1000:32\n', 'bad.config'));
    expect(e.line).toBe(2);
    expect(e.field).toBe('-gpgpu_shader_core_pipeline');
    expect(e.reason).toMatch(/1000 threads is not a whole number of 32-thread warps/);
    const d = catchInput(() => importGpgpusimConfigText('-gpgpu_pipeline_widths 2,0,0,1,1,2,0,0,1,1,2\n-gpgpu_num_dp_units 2\n', 'bad.config'));
    expect(['-gpgpu_num_dp_units', '-gpgpu_pipeline_widths']).toContain(d.field);
    expect(d.reason).toMatch(/dp unit\(s\) need non-zero pipeline widths/);
  });

  it('rejects lines that are not options and unterminated quotes', () => {
    const e = catchInput(() => importGpgpusimConfigText('-gpgpu_n_mem 6\ngpgpu_n_clusters 15\n', 'bad.config'));
    expect(e.line).toBe(2);
    expect(e.reason).toMatch(/expected '-option value'/);
    const q = catchInput(() => importGpgpusimConfigText('-gpgpu_n_mem 6\n-gpgpu_dram_timing_opt "nbk=16:\n CL=12\n', 'bad.config'));
    expect(q.line).toBe(2);
    expect(q.reason).toMatch(/unterminated quoted value/);
  });

  it('uses -icnt_* options only for the local crossbar, and ignores an unreadable BookSim file', () => {
    const local = importGpgpusimConfigText('-network_mode 2\n-icnt_in_buffer_limit 128\n-icnt_subnets 1\n-icnt_arbiter_algo 0\n-icnt_flit_size 32\n', 't.config');
    expect(local.config.interconnect).toMatchObject({ inputBufferEntries: 128, subnets: 1, arbitration: 'roundRobin', flitBytes: 32, latencyCycles: 1 });
    const file = join(dir, 'gpgpusim.config');
    writeFileSync(file, '-network_mode 1\n-inter_config_file missing.icnt\n-icnt_in_buffer_limit 128\n');
    const bs = importGpgpusimConfig(file);
    expect(bs.config.interconnect.inputBufferEntries).toBe(gtx480.interconnect.inputBufferEntries);
    expect(bs.ignored.map((i) => [i.option, i.line])).toEqual([
      ['-inter_config_file', 2],
      ['-icnt_in_buffer_limit', 3],
    ]);
    expect(bs.mapped).toEqual(['-network_mode']);
  });

  it('reports a missing file', () => {
    const e = catchInput(() => importGpgpusimConfig(join(dir, 'nope.config')));
    expect(e.reason).toBe('file not found');
  });
});
