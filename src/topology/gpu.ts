/**
 * Builds the GPU timing model from a {@link GpuConfig}: one engine, four clock domains (core,
 * interconnect, L2, DRAM: GPGPU-Sim's `-gpgpu_clock_domains`), and every unit as an actor wired
 * port to port (DESIGN.md §3, §6):
 *
 * ```
 * GPU.SMWM ─► GPU.SM[i].ISSUE ◄─► FETCH ─► DECODE ─► ISSUE ─► EXEC ─► ISSUE
 *                              ISSUE ─► LSU ─► L1D ─► GPU.ICNT ─► GPU.L2[j] ─► GPU.DRAM[p]
 * ```
 *
 * L2 slices: one per memory sub-partition (`memPartitions.count x subPartitions`); each DRAM
 * channel serves the sub-partitions of its partition.
 */
import { InputError } from '../errors.ts';
import { applyConfigOverrides, getPreset, importGpgpusimConfig, maxWarpsPerSm, totalL2Slices, type GpuConfig } from '../config/index.ts';
import type { SourceLocation } from '../errors.ts';
import { resolve } from 'node:path';
import { Engine, type EngineOptions } from '../sim/engine.ts';
import type { GpuLimits } from '../model/sm/occupancy.ts';
import { AddressMap, type AddressMapParams } from '../model/mem/address-map.ts';
import type { CacheParams } from '../model/mem/cache.ts';
import type { GpuContext } from '../model/gpu-context.ts';
import { smIssue } from '../../machines/sm-issue/sm-issue.ts';
import { smFetch } from '../../machines/sm-fetch/sm-fetch.ts';
import { smDecode } from '../../machines/sm-decode/sm-decode.ts';
import { smExec } from '../../machines/sm-exec/sm-exec.ts';
import { smWorkManager, type KernelLaunchPlan } from '../../machines/sm-work-manager/sm-work-manager.ts';
import { smWorkManagerInstance } from './gpu-smwm.ts';
import { smLsu } from '../../machines/sm-lsu/sm-lsu.ts';
import { l1d, type L1dParams } from '../../machines/l1d/l1d.ts';
import { gpuInterconnect, type GpuInterconnectParams } from '../../machines/gpu-interconnect/gpu-interconnect.ts';
import { l2Slice, type L2SliceParams } from '../../machines/l2-slice/l2-slice.ts';
import { dramChannel, type DramChannelParams } from '../../machines/dram-channel/dram-channel.ts';
import { smUnitInstances, tagArrayParams } from './gpu-sm.ts';

/**
 * Resolves a scenario's `gpu` field: a preset or a gpgpusim.config (relative to the scenario),
 * then overrides.
 * @throws InputError for an unknown preset, a bad config file, or a bad override
 */
export function loadGpuConfig(spec: { preset?: string | undefined; gpgpusimConfig?: string | undefined }, baseDir: string, where: SourceLocation, overrides: readonly string[]): GpuConfig {
  let config: GpuConfig;
  if (spec.preset !== undefined) {
    try {
      config = getPreset(spec.preset);
    } catch (e) {
      if (e instanceof InputError) throw new InputError(where, e.reason, 'gpu.preset');
      throw e;
    }
  } else {
    config = importGpgpusimConfig(resolve(baseDir, spec.gpgpusimConfig!)).config;
  }
  return overrides.length > 0 ? applyConfigOverrides(config, overrides) : config;
}

/** The occupancy / launch limits of a config (003 eq. 3.1-3.3 inputs). */
export function gpuLimits(config: GpuConfig): GpuLimits {
  const sm = config.sm;
  return {
    warpSize: sm.warpSize,
    maxThreadsPerSm: sm.maxThreads,
    maxWarpsPerSm: maxWarpsPerSm(config),
    maxCtasPerSm: sm.maxCtas,
    registersPerSm: sm.registers,
    registerAllocUnit: sm.registerAllocUnit,
    registerAllocation: 'warp',
    warpAllocGranularity: 1,
    sharedMemPerSm: sm.sharedMemBytes,
    sharedMemAllocUnit: sm.sharedMemAllocUnit,
    maxThreadsPerCta: Math.min(1024, sm.maxThreads),
    maxThreadsPerGrid: Infinity,
    maxSharedMemPerCta: sm.sharedMemPerCtaBytes,
    maxRegistersPerThread: 255,
    maxRegistersPerCta: sm.registersPerCta,
    maxCtaDim: [1024, 1024, 64],
    maxGridDim: [2147483647, 65535, 65535],
  };
}

function cacheParams(g: GpuConfig['l2'] | GpuConfig['l1d']): CacheParams {
  const writeHit = g.writePolicy === 'writeBack' ? 'writeBack' : g.writePolicy === 'writeEvict' ? 'writeEvict' : g.writePolicy === 'localWbGlobalWt' ? 'localWbGlobalWe' : 'writeThrough';
  return {
    ...tagArrayParams(g),
    mshrEntries: g.mshrEntries,
    mshrMaxMerge: g.mshrMaxMerge,
    missQueueSize: g.missQueueEntries,
    writeHit,
    writeMiss: g.writeAllocate === 'noWriteAllocate' ? 'noWriteAllocate' : 'writeAllocate',
  };
}

/** The address map of a config (partition / bank / row / column decoding). */
export function addressMapParams(config: GpuConfig): AddressMapParams {
  return {
    mapping: config.memPartitions.addressMapping,
    channels: config.memPartitions.count,
    subPartitionsPerChannel: config.memPartitions.subPartitions,
    partitionIndexing: config.memPartitions.partitionIndexing === 'xor' ? 'xor' : 'consecutive',
    bankIndexing: config.dram.bankIndexing === 'xor' ? 'xor' : 'linear',
    banks: config.dram.banks,
  };
}

function hz(mhz: number): number {
  return Math.round(mhz * 1e6);
}

/**
 * Creates the engine with every GPU unit and link (not started).
 * @param launches kernels for the SM Work Manager, in launch order
 * @param pollEveryCycle issue stages wake every cycle instead of sleeping (verification only)
 */
export function buildGpu(config: GpuConfig, context: GpuContext, launches: readonly KernelLaunchPlan[], options: EngineOptions = {}, pollEveryCycle = false): Engine {
  const engine = new Engine(options);
  engine.addClock('core', hz(config.clocks.core));
  engine.addClock('icnt', hz(config.clocks.icnt));
  engine.addClock('l2', hz(config.clocks.l2));
  engine.addClock('dram', hz(config.clocks.dram));
  const nSm = config.sm.count;
  const nSlices = totalL2Slices(config);
  const nChannels = config.memPartitions.count;
  const amap = addressMapParams(config);
  const decoder = new AddressMap(amap);

  const smwm = smWorkManagerInstance(config, context, launches);
  engine.addUnit('GPU.SMWM', smWorkManager, 'core', smwm.spec, smwm.resources);

  for (let i = 0; i < nSm; i++) {
    const sm = `GPU.SM[${i}]`;
    const p = smUnitInstances(config, context, i, pollEveryCycle);
    engine.addUnit(`${sm}.FETCH`, smFetch, 'core', p.fetch.spec, p.fetch.resources);
    engine.addUnit(`${sm}.DECODE`, smDecode, 'core', p.decode.spec, p.decode.resources);
    engine.addUnit(`${sm}.ISSUE`, smIssue, 'core', p.issue.spec, p.issue.resources);
    engine.addUnit(`${sm}.EXEC`, smExec, 'core', p.exec.spec, p.exec.resources);
    engine.addUnit(`${sm}.LSU`, smLsu, 'core', p.lsu.spec, p.lsu.resources);
    const l1: L1dParams = { smId: i, cache: cacheParams(config.l1d), l1dLatency: config.l1d.latencyCycles };
    engine.addUnit(`${sm}.L1D`, l1d, 'core', l1);
  }
  const icnt: GpuInterconnectParams = {
    sms: nSm,
    partitions: nSlices,
    partitionOf: (addr: number) => decoder.decode(addr).subPartition,
    bufferDepth: config.interconnect.inputBufferEntries,
  };
  engine.addUnit('GPU.ICNT', gpuInterconnect, 'icnt', icnt);
  for (let j = 0; j < nSlices; j++) {
    const l2: L2SliceParams = { cache: cacheParams(config.l2), ropLatency: config.memPartitions.ropLatencyCycles, localAddress: (addr: number) => decoder.partitionAddress(addr) };
    engine.addUnit(`GPU.L2[${j}]`, l2Slice, 'l2', l2);
  }
  // -dram_latency counts core cycles; the channel counts DRAM command cycles (rounded up).
  const dramLatency = Math.ceil((config.memPartitions.dramLatencyCycles * config.clocks.dram) / config.clocks.core - 1e-9);
  for (let c = 0; c < nChannels; c++) {
    const d = config.dram;
    const dram: DramChannelParams = {
      addressMap: decoder,
      subPartitions: config.memPartitions.subPartitions,
      latencyCycles: dramLatency,
      dram: {
        banks: d.banks,
        bankGroups: d.bankGroups,
        tCCD: d.timing.tCCD,
        tCCDL: d.timing.tCCDL,
        tRRD: d.timing.tRRD,
        tRCD: d.timing.tRCD,
        tRAS: d.timing.tRAS,
        tRP: d.timing.tRP,
        tRC: d.timing.tRC,
        tCL: d.timing.tCL,
        tWL: d.timing.tWL,
        tCDLR: d.timing.tCDLR,
        tWR: d.timing.tWR,
        tRTPL: d.timing.tRTPL,
        burstLength: d.burstLength,
        busWidthBytes: d.busWidthBytes,
        chipsPerChannel: d.chipsPerPartition,
        dataCommandFreqRatio: d.dataCommandFreqRatio,
        scheduler: d.scheduler,
        queueSize: d.schedulerQueueEntries > 0 ? d.schedulerQueueEntries : 64,
      },
    };
    engine.addUnit(`GPU.DRAM[${c}]`, dramChannel, 'dram', dram);
  }

  // Wiring. Latencies are cycles of the receiving domain (>= 1).
  const one = { latencyCycles: 1 };
  for (let i = 0; i < nSm; i++) {
    const sm = `GPU.SM[${i}]`;
    engine.connect('GPU.SMWM', `dispatch[${i}]`, `${sm}.ISSUE`, 'cta', one);
    engine.connect(`${sm}.ISSUE`, 'ctaDone', 'GPU.SMWM', `done[${i}]`, one);
    engine.connect(`${sm}.ISSUE`, 'fetchReq', `${sm}.FETCH`, 'req', one);
    engine.connect(`${sm}.FETCH`, 'out', `${sm}.DECODE`, 'in', one);
    engine.connect(`${sm}.DECODE`, 'out', `${sm}.ISSUE`, 'decoded', one);
    engine.connect(`${sm}.ISSUE`, 'exec', `${sm}.EXEC`, 'in', { latencyCycles: 1, messagesPerCycle: 8 });
    engine.connect(`${sm}.EXEC`, 'wb', `${sm}.ISSUE`, 'execWb', { latencyCycles: 1, messagesPerCycle: 8 });
    engine.connect(`${sm}.ISSUE`, 'lsu', `${sm}.LSU`, 'dispatch', one);
    engine.connect(`${sm}.LSU`, 'wb', `${sm}.ISSUE`, 'lsuWb', { latencyCycles: 1, messagesPerCycle: 8 });
    engine.connect(`${sm}.LSU`, 'l1dReq', `${sm}.L1D`, 'req', one);
    engine.connect(`${sm}.L1D`, 'rsp', `${sm}.LSU`, 'l1dRsp', { latencyCycles: 1, messagesPerCycle: 4 });
    const flit = { latencyCycles: config.interconnect.latencyCycles, bytesPerCycle: config.interconnect.flitBytes };
    engine.connect(`${sm}.L1D`, 'down', 'GPU.ICNT', `smIn[${i}]`, flit);
    engine.connect('GPU.ICNT', `smOut[${i}]`, `${sm}.L1D`, 'up', { latencyCycles: 1, bytesPerCycle: config.interconnect.flitBytes }, 'icnt');
  }
  for (let j = 0; j < nSlices; j++) {
    const ch = Math.floor(j / config.memPartitions.subPartitions);
    const sub = j % config.memPartitions.subPartitions;
    engine.connect('GPU.ICNT', `memOut[${j}]`, `GPU.L2[${j}]`, 'req', { latencyCycles: 1, bytesPerCycle: config.interconnect.flitBytes }, 'icnt');
    engine.connect(`GPU.L2[${j}]`, 'rsp', 'GPU.ICNT', `memIn[${j}]`, { latencyCycles: config.interconnect.latencyCycles, bytesPerCycle: config.interconnect.flitBytes });
    engine.connect(`GPU.L2[${j}]`, 'dramReq', `GPU.DRAM[${ch}]`, `req[${sub}]`, one);
    engine.connect(`GPU.DRAM[${ch}]`, `rsp[${sub}]`, `GPU.L2[${j}]`, 'dramRsp', one);
  }
  registerGpuStats(engine);
  return engine;
}

/** Sums of per-unit counters under GPGPU-Sim's names, and the GPU-level metrics. */
function registerGpuStats(engine: Engine): void {
  const stats = engine.stats;
  const sum = (suffix: string) => () => {
    let total = 0;
    for (const name of stats.names()) if (name.endsWith(suffix) && name.startsWith('GPU.')) total += stats.value(name) ?? 0;
    return total;
  };
  const core = engine.clock('core');
  const cycles = () => core.cycleAt(engine.now);
  stats.derived('gpu_sim_cycle', cycles, 'core cycles simulated', 'cycles');
  stats.derived('gpu_sim_insn', sum('.ISSUE.thread_insts'), 'thread instructions', 'count');
  stats.derived('gpu_tot_warp_insts', sum('.ISSUE.warp_insts'), 'warp instructions (gpgpu_n_tot_w_icount)', 'count');
  stats.derived('gpu_ipc', () => (cycles() > 0 ? (stats.value('gpu_sim_insn') ?? 0) / cycles() : 0), 'thread instructions per core cycle', 'insn/cycle');
  for (const s of ['l1d_accesses', 'l1d_misses', 'l1d_res_fail', 'l1d_res_fail_mshrFull', 'l1d_res_fail_mshrMergeFull', 'l1d_res_fail_missQueueFull', 'l1d_res_fail_noLineToAllocate']) {
    stats.derived(`gpu_${s}`, sum(`.L1D.${s}`), `sum of ${s} over SMs`, 'count');
  }
  for (const s of ['l2_accesses', 'l2_misses', 'l2_hits']) stats.derived(`gpu_${s}`, sum(`].${s}`), `sum of ${s} over L2 slices`, 'count');
  for (const s of ['dram_reads', 'dram_writes', 'row_hits', 'row_misses', 'bytes']) stats.derived(`gpu_dram_${s.replace('dram_', '')}`, sum(`].${s}`), `sum of ${s} over DRAM channels`, 'count');
  const secs = () => engine.now / 1e12;
  stats.derived('gpu_dram_bandwidth_gbps', () => (secs() > 0 ? (stats.value('gpu_dram_bytes') ?? 0) / secs() / 1e9 : 0), 'achieved DRAM bandwidth', 'GB/s');
}
