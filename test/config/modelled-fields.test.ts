/**
 * Config honesty (issue 8 item 7): every leaf of the GPU config schema is decided. A modelled
 * field (1) reaches the model: changing it changes a unit's spec in the built topology or the
 * launch limits; and (2) changes behaviour: either a run below shows a different statistic, or
 * the named test exercises the unit behaviour it drives. A not-modelled field is listed in
 * `src/config/not-modelled.ts`; overriding one warns, and `--strict` refuses it.
 */
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyConfigOverrides, getPreset, importGpgpusimConfig, type GpuConfig } from '../../src/config/index.ts';
import { configLeafPaths, leafValues, NOT_MODELLED, notModelledReason } from '../../src/config/not-modelled.ts';
import { GpuContext } from '../../src/model/gpu-context.ts';
import { loadScenario } from '../../src/scenario/loader.ts';
import { runKernelScenarioTiming } from '../../src/scenario/timing-run.ts';
import { addressMapParams, gpuLimits, gpuTopology } from '../../src/topology/gpu.ts';
import { runCli } from '../helpers/cli.ts';

/** Fields that describe the config, not the hardware. */
const METADATA = ['name', 'description', 'sources', 'extensions'];

/**
 * Behaviour: an override and the workload on which it changes a statistic (2 SMs of gtx480).
 * Workloads: mem = stream_x_words (L1D, interconnect, L2, DRAM), alu = dpoly (SP, SFU, DP,
 * integer multiply), smem = histogram_smem (shared-memory banks, atomics), shfl = reduce_shfl.
 */
const BEHAVIOUR: Record<string, [string, 'mem' | 'alu' | 'smem' | 'shfl']> = {
  'clocks.core': ['1400', 'mem'], 'clocks.icnt': ['1400', 'mem'], 'clocks.l2': ['1400', 'mem'], 'clocks.dram': ['1848', 'mem'],
  'sm.count': ['30', 'mem'], 'sm.registers': ['65536', 'mem'], 'sm.registerAllocUnit': ['65', 'mem'], 'sm.schedulers': ['4', 'mem'],
  'sm.issueWidth': ['2', 'mem'], 'sm.issueIntervalCycles': ['2', 'mem'], 'sm.fetchWidth': ['1', 'mem'], 'sm.iBufferEntries': ['1', 'mem'],
  'sm.units.sp.count': ['4', 'alu'], 'sm.units.sfu.count': ['2', 'alu'],
  'sm.opcodeTiming.int.mul.latency': ['8', 'alu'], 'sm.opcodeTiming.int.mul.initiation': ['4', 'alu'],
  'sm.opcodeTiming.int.shfl.latency': ['64', 'shfl'], 'sm.opcodeTiming.int.shfl.initiation': ['8', 'shfl'],
  'sm.opcodeTiming.fp.add.latency': ['8', 'alu'], 'sm.opcodeTiming.fp.add.initiation': ['2', 'alu'],
  'sm.opcodeTiming.dp.mad.latency': ['16', 'alu'], 'sm.opcodeTiming.dp.mad.initiation': ['16', 'alu'],
  'l1i.lineBytes': ['256', 'mem'], 'l1i.latencyCycles': ['2', 'mem'],
  'l1d.sets': ['16', 'mem'], 'l1d.ways': ['2', 'mem'], 'l1d.lineBytes': ['256', 'mem'], 'l1d.sectorBytes': ['1', 'mem'],
  'l1d.mshrEntries': ['32', 'mem'], 'l1d.missQueueEntries': ['4', 'mem'],
  'sharedMem.banks': ['64', 'smem'], 'sharedMem.latencyCycles': ['52', 'smem'], 'sharedMem.limitedBroadcast': ['true', 'smem'], 'sharedMem.warpParts': ['2', 'smem'],
  'l2.lineBytes': ['256', 'mem'], 'l2.latencyCycles': ['2', 'mem'],
  'interconnect.flitBytes': ['80', 'mem'], 'interconnect.latencyCycles': ['6', 'mem'],
  'memPartitions.count': ['12', 'mem'], 'memPartitions.subPartitions': ['4', 'mem'], 'memPartitions.ropLatencyCycles': ['240', 'mem'],
  'memPartitions.dramLatencyCycles': ['200', 'mem'], 'memPartitions.addressMapping.dramIdStartBit': ['16', 'mem'],
  'dram.chipsPerPartition': ['4', 'mem'], 'dram.busWidthBytes': ['8', 'mem'], 'dram.burstLength': ['16', 'mem'], 'dram.dataCommandFreqRatio': ['8', 'mem'],
  'dram.banks': ['8', 'mem'], 'dram.bankGroups': ['2', 'mem'], 'dram.timing.tCCD': ['4', 'mem'], 'dram.timing.tRRD': ['12', 'shfl'],
  'dram.timing.tRCD': ['24', 'mem'], 'dram.timing.tCL': ['24', 'mem'], 'dram.timing.tCCDL': ['6', 'mem'], 'kernel.launchLatencyCycles': ['1', 'mem'],
};

/**
 * Modelled fields whose effect the small runs above do not show (no L1D hit, no DRAM write, no
 * integer division ...): an override that reaches the model, and the test of the behaviour the
 * unit spec field drives.
 */
const COVERED: Record<string, [string, string]> = {
  'sm.warpSize': ['64', 'test/model/sm/occupancy.test.ts'],
  'sm.maxThreads': ['768', 'test/model/sm/occupancy.test.ts'],
  'sm.maxCtas': ['2', 'test/model/sm/occupancy.test.ts'],
  'sm.maxWarps': ['24', 'test/model/sm/occupancy.test.ts'],
  'sm.registersPerCta': ['1024', 'test/model/sm/occupancy.test.ts'],
  'sm.sharedMemBytes': ['1024', 'test/model/sm/occupancy.test.ts'],
  'sm.sharedMemPerCtaBytes': ['1024', 'test/model/sm/occupancy.test.ts'],
  'sm.sharedMemAllocUnit': ['512', 'test/model/sm/occupancy.test.ts'],
  'sm.fetchThroughput': ['2', 'test/machines/sm-fetch.test.ts'],
  'sm.units.dp.count': ['', 'test/model/sm/exec-units.test.ts'],
  'sm.units.int.count': ['', 'test/model/sm/exec-units.test.ts'],
  'sm.opcodeTiming.int.div.latency': ['300', 'test/model/sm/exec-units.test.ts'],
  'sm.opcodeTiming.int.div.initiation': ['16', 'test/model/sm/exec-units.test.ts'],
  'sm.opcodeTiming.sfu.latency': ['40', 'test/model/sm/exec-units.test.ts'],
  'sm.opcodeTiming.sfu.initiation': ['16', 'test/model/sm/exec-units.test.ts'],
  'policies.warpScheduler.kind': ['lrr', 'test/gpu/warp-scheduler.test.ts'],
  'policies.warpScheduler.readyQueueSize': ['', 'test/model/sm/warp-scheduler.test.ts'],
  'policies.warpScheduler.inner': ['', 'test/model/sm/warp-scheduler.test.ts'],
  'policies.warpScheduler.outer': ['', 'test/model/sm/warp-scheduler.test.ts'],
  'policies.ctaScheduler.kind': ['fixedLimit', 'test/machines/sm-work-manager.test.ts'],
  'policies.kernelScheduler.kind': ['', 'test/machines/sm-work-manager.test.ts'],
  'policies.activeCores.kind': ['gateIdle', 'test/machines/power-gating-controller.test.ts'],
  'l1i.sets': ['8', 'test/machines/sm-fetch.test.ts'],
  'l1i.ways': ['8', 'test/machines/sm-fetch.test.ts'],
  'l1i.replacement': ['fifo', 'test/model/mem/tag-array.test.ts'],
  'l1i.allocation': ['onMiss', 'test/model/mem/tag-array.test.ts'],
  'l1i.setIndex': ['xor', 'test/model/mem/tag-array.test.ts'],
  'l1d.replacement': ['fifo', 'test/model/mem/tag-array.test.ts'],
  'l1d.writePolicy': ['writeBack', 'test/model/mem/cache.test.ts'],
  'l1d.allocation': ['onFill', 'test/model/mem/tag-array.test.ts'],
  'l1d.writeAllocate': ['writeAllocate', 'test/machines/gpu-memory/l1d.test.ts'],
  'l1d.setIndex': ['linear', 'test/model/mem/tag-array.test.ts'],
  'l1d.mshrMaxMerge': ['2', 'test/machines/gpu-memory/l1d.test.ts'],
  'l1d.latencyCycles': ['5', 'test/machines/gpu-memory/l1d.test.ts'],
  'l2.sets': ['32', 'test/machines/gpu-memory/icnt-l2-dram.test.ts'],
  'l2.ways': ['4', 'test/machines/gpu-memory/icnt-l2-dram.test.ts'],
  'l2.replacement': ['fifo', 'test/model/mem/tag-array.test.ts'],
  'l2.writePolicy': ['writeThrough', 'test/model/mem/cache.test.ts'],
  'l2.allocation': ['', 'test/model/mem/tag-array.test.ts'],
  'l2.writeAllocate': ['noWriteAllocate', 'test/model/mem/cache.test.ts'],
  'l2.setIndex': ['xor', 'test/model/mem/tag-array.test.ts'],
  'l2.mshrEntries': ['1', 'test/machines/gpu-memory/icnt-l2-dram.test.ts'],
  'l2.mshrMaxMerge': ['1', 'test/model/mem/cache.test.ts'],
  'l2.missQueueEntries': ['1', 'test/gpu/deadlock.test.ts'],
  'constCache.latencyCycles': ['20', 'test/machines/gpu-memory/sm-lsu.test.ts'],
  'interconnect.inputBufferEntries': ['2', 'test/machines/gpu-memory/icnt-l2-dram.test.ts'],
  'memPartitions.addressMapping.channelBits': ['', 'test/model/mem/address-map.test.ts'],
  'memPartitions.addressMapping.bankBits': ['', 'test/model/mem/address-map.test.ts'],
  'memPartitions.addressMapping.rowBits': ['', 'test/model/mem/address-map.test.ts'],
  'memPartitions.addressMapping.columnBits': ['', 'test/model/mem/address-map.test.ts'],
  'memPartitions.addressMapping.burstBits': ['', 'test/model/mem/address-map.test.ts'],
  'memPartitions.partitionIndexing': ['', 'test/model/mem/address-map.test.ts'],
  'dram.timing.tRAS': ['60', 'test/model/mem/dram.test.ts'],
  'dram.timing.tRP': ['30', 'test/model/mem/dram.test.ts'],
  'dram.timing.tRC': ['80', 'test/model/mem/dram.test.ts'],
  'dram.timing.tWL': ['8', 'test/model/mem/dram.test.ts'],
  'dram.timing.tCDLR': ['10', 'test/model/mem/dram.test.ts'],
  'dram.timing.tWR': ['24', 'test/model/mem/dram.test.ts'],
  'dram.timing.tRTPL': ['4', 'test/model/mem/dram.test.ts'],
  'dram.scheduler': ['fifo', 'test/machines/gpu-memory/icnt-l2-dram.test.ts'],
  'dram.schedulerQueueEntries': ['2', 'test/machines/gpu-memory/icnt-l2-dram.test.ts'],
  'dram.bankIndexing': ['xor', 'test/model/mem/address-map.test.ts'],
};

const WORKLOADS = { mem: 'scenarios/k-stream-x-words.yaml', alu: 'scenarios/k-dpoly.yaml', smem: 'scenarios/k-histogram-smem.yaml', shfl: 'scenarios/k-reduce-shfl.yaml' } as const;
const KEYS = ['gpu_sim_cycle', 'gpu_l1d_accesses', 'gpu_l1d_misses', 'gpu_l1d_res_fail', 'gpu_l2_accesses', 'gpu_l2_misses', 'gpu_dram_reads', 'gpu_dram_row_hits'];

function fingerprint(workload: keyof typeof WORKLOADS, overrides: string[]): string {
  const r = runKernelScenarioTiming(loadScenario(WORKLOADS[workload], ['mode=timing']), { configOverrides: ['sm.count=2', ...overrides] });
  expect(r.passed).toBe(true);
  return KEYS.map((k) => r.engine.stats.value(k)).join(',');
}

/** The specs of every unit of the topology, its links, the launch limits, clocks and address map: what the model reads. */
function modelInputs(config: GpuConfig): string {
  const t = gpuTopology(config, new GpuContext(), []);
  // Besides unit specs: the engine's clock domains and the address map (an injected resource).
  return JSON.stringify({ specs: t.units.map((u) => [u.name, u.spec]), links: t.links.map((l) => l.spec), limits: gpuLimits(config), clocks: config.clocks, addressMap: addressMapParams(config) });
}

const modelled = configLeafPaths().filter((p) => notModelledReason(p) === undefined && !METADATA.includes(p));

describe('config honesty: every field is decided', () => {
  it('every leaf is modelled (with a behaviour run or a covering test) or listed as not modelled; every pattern matches a field', () => {
    const undecided = modelled.filter((p) => !(p in BEHAVIOUR) && !(p in COVERED));
    expect(undecided).toEqual([]);
    for (const [, file] of Object.values(COVERED)) expect(existsSync(file), file).toBe(true);
    const leaves = configLeafPaths();
    for (const n of NOT_MODELLED) expect(leaves.some((l) => notModelledReason(l) === n.reason), n.pattern).toBe(true);
    // The reporter's example: accepted and ignored before, flagged now.
    expect(notModelledReason('l1d.skipGlobal')).toContain('L1D');
  });

  it('every modelled field reaches the model: overriding it changes a unit spec, a link or the launch limits', () => {
    const base = getPreset('gtx480');
    const before = modelInputs(base);
    const values = leafValues(base);
    const unreached: string[] = [];
    for (const path of modelled) {
      const alt = BEHAVIOUR[path]?.[0] ?? COVERED[path]?.[0] ?? '';
      if (alt === '') continue; // lists and policy options: covered by their named tests
      let changed: GpuConfig;
      try {
        changed = applyConfigOverrides(base, path === 'sm.warpSize' ? [`${path}=${alt}`, 'sm.maxThreads=1536', 'sm.maxWarps=24'] : path === 'sm.maxThreads' ? [`${path}=${alt}`, 'sm.maxWarps=24'] : path === 'policies.ctaScheduler.kind' ? [`${path}=${alt}`, 'policies.ctaScheduler.ctasPerSm=2'] : [`${path}=${alt}`]);
      } catch (e) {
        unreached.push(`${path}=${alt}: ${(e as Error).message}`);
        continue;
      }
      if (modelInputs(changed) === before) unreached.push(`${path} (${JSON.stringify(values.get(path))} -> ${alt})`);
    }
    expect(unreached).toEqual([]);
  });

  it('modelled fields change the simulation: a statistic moves on the workload named for each', { timeout: 120_000 }, () => {
    const base: Record<string, string> = {};
    const still: string[] = [];
    for (const [path, [value, wl]] of Object.entries(BEHAVIOUR)) {
      base[wl] ??= fingerprint(wl, []);
      if (fingerprint(wl, [`${path}=${value}`]) === base[wl]) still.push(path);
    }
    expect(still).toEqual([]);
  });
});

describe('not-modelled fields warn, and --strict refuses them', () => {
  it('a run with --config-set l1d.skipGlobal=true warns naming the field and the reason, and still runs', async () => {
    const r = await runCli(['run', 'scenarios/k-vecadd.yaml', '--set', 'mode=timing', '--config-set', 'sm.count=2', '--config-set', 'l1d.skipGlobal=true', '-q']);
    expect(r.code).toBe(0);
    expect(r.err).toContain('warning: config field l1d.skipGlobal set to true (preset false) is not modelled');
  });

  it('--strict refuses it with exit 2, naming the argument and the field', async () => {
    const r = await runCli(['run', 'scenarios/k-vecadd.yaml', '--set', 'mode=timing', '--config-set', 'l1d.skipGlobal=true', '--strict', '-q']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('--config-set: l1d.skipGlobal: config field l1d.skipGlobal is not modelled');
    // A modelled override is fine under --strict.
    const ok = await runCli(['run', 'scenarios/k-vecadd.yaml', '--set', 'mode=timing', '--config-set', 'sm.count=2', '--strict', '-q']);
    expect(ok.code).toBe(0);
    expect(ok.err).not.toContain('warning');
  });

  it('a scenario gpu.set of a not-modelled field is reported in the result; config show flags the field', async () => {
    const r = runKernelScenarioTiming(loadScenario('scenarios/k-vecadd.yaml', ['mode=timing', 'gpu={preset: gtx480, set: [sm.count=2, interconnect.arbitration=roundRobin]}']));
    expect(r.warnings).toEqual([expect.stringContaining('interconnect.arbitration set to "roundRobin" (preset "islip") is not modelled')]);
    const show = await runCli(['config', 'show', 'gtx480', '--not-modelled']);
    expect(show.code).toBe(0);
    expect(show.out).toMatch(/^l1d\.skipGlobal = false {2}\[not modelled: /m);
    expect(show.out).not.toMatch(/^l1d\.sets /m);
  });

  it('the gpgpusim.config importer names the imported options that set not-modelled fields', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'warpstate-nm-')), 'gpgpusim.config');
    writeFileSync(file, ['-gpgpu_n_mem 6', '-gpgpu_l1_banks 2', '-gpgpu_dram_return_queue_size 64', '-gpgpu_shader_cta 8'].join('\n') + '\n');
    const imp = importGpgpusimConfig(file);
    expect(imp.notModelled.map((n) => `${n.option}@${n.line}:${n.field}`)).toEqual(['-gpgpu_l1_banks@2:l1d.banks', '-gpgpu_dram_return_queue_size@3:dram.returnQueueEntries']);
    expect(imp.notModelled.every((n) => notModelledReason(n.field) === n.reason)).toBe(true);
  });
});
