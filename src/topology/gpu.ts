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
import { smWorkManager } from '../../machines/sm-work-manager/sm-work-manager.ts';
import { smWorkManagerInstance, type LaunchPlan as KernelLaunchPlan } from './gpu-smwm.ts';
import { smLsu } from '../../machines/sm-lsu/sm-lsu.ts';
import { l1d } from '../../machines/l1d/l1d.ts';
import { gpuInterconnect } from '../../machines/gpu-interconnect/gpu-interconnect.ts';
import { l2Slice } from '../../machines/l2-slice/l2-slice.ts';
import { dramChannel } from '../../machines/dram-channel/dram-channel.ts';
import { smUnitInstances, staticAnalysisOptions, tagArrayParams } from './gpu-sm.ts';
import { instantiate, type LinkRow, type SplicePoint, type Topology, type UnitInstance } from './template.ts';
import { applyExtensions, type ExtensionSource } from './splice.ts';
import type { LinkSpec } from '../messaging/link.ts';
import type { UnitDefinition } from '../sim/unit.ts';
import { createUnitRegistry } from '../../machines/index.ts';

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
    // GPGPU-Sim 4.x: W = wr_miss_wa_naive (write through + line fetch), F and L fetch the line
    // and keep the write in it (L's lazy byte-mask fill is approximated by F).
    writeMiss: g.writeAllocate === 'noWriteAllocate' ? 'noWriteAllocate' : g.writeAllocate === 'writeAllocate' ? 'writeAllocateNaive' : 'writeAllocate',
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

/** Built-in GPU unit kinds of the template (extension kinds come from the unit registry). */
const SM_UNITS = { FETCH: smFetch, DECODE: smDecode, ISSUE: smIssue, EXEC: smExec, LSU: smLsu } as const;

/**
 * The GPU as data (DESIGN.md §3): every unit instance with its kind and spec, the link table,
 * and the splice points where a config's `extensions` insert blocks:
 *
 * | point | scope | style | between |
 * |---|---|---|---|
 * | `sm.ctrl` | `GPU.SM[i]` | inline | SMWM `ctrl[i]`/`status[i]` (upper) and ISSUE `ctrl`/`status` (lower) |
 * | `sm.lsu-l1d` | `GPU.SM[i]` | inline | LSU (upper) and L1D (lower), beside the L1D |
 * | `sm.l1d-icnt` | `GPU.SM[i]` | inline | L1D (upper) and the interconnect (lower), beside the L1D |
 * | `sm.l1d-evict` | `GPU.SM[i]` | tap | the L1D's `evict` port (a block's in-port `evict`) |
 * | `l2.dram` | `GPU.L2[j]` | inline | L2 slice j (upper) and its DRAM channel (lower), beside the L2 |
 *
 * @param launches kernels for the SM Work Manager, in launch order
 * @param pollEveryCycle issue stages wake every cycle instead of sleeping (verification only)
 */
export function gpuTopology(config: GpuConfig, context: GpuContext, launches: readonly KernelLaunchPlan[], pollEveryCycle = false): Topology {
  const nSm = config.sm.count;
  context.annotationOptions = staticAnalysisOptions(config);
  const nSlices = totalL2Slices(config);
  const nChannels = config.memPartitions.count;
  const decoder = new AddressMap(addressMapParams(config));
  const units: UnitInstance[] = [];
  const links: LinkRow[] = [];
  const splices: SplicePoint[] = [];
  const link = (from: string, fromPort: string, to: string, toPort: string, spec: LinkSpec, clock?: string): number => {
    links.push(clock === undefined ? { from: { unit: from, port: fromPort }, to: { unit: to, port: toPort }, spec } : { from: { unit: from, port: fromPort }, to: { unit: to, port: toPort }, spec, clock });
    return links.length - 1;
  };
  const one = { latencyCycles: 1 };

  const smwm = smWorkManagerInstance(config, context, launches);
  units.push({ name: 'GPU.SMWM', definition: smWorkManager, clock: 'core', ...smwm });
  for (let i = 0; i < nSm; i++) {
    const sm = `GPU.SM[${i}]`;
    const p = smUnitInstances(config, context, i, pollEveryCycle);
    for (const [unit, def] of Object.entries(SM_UNITS)) {
      const inst = p[unit.toLowerCase() as keyof typeof p];
      units.push({ name: `${sm}.${unit}`, definition: def, clock: 'core', ...inst });
    }
    units.push({ name: `${sm}.L1D`, definition: l1d, clock: 'core', spec: { smId: i, cache: cacheParams(config.l1d), l1dLatency: config.l1d.latencyCycles, skipGlobal: config.l1d.skipGlobal, ...newcarSpec(config) } });
  }
  units.push({
    name: 'GPU.ICNT',
    definition: gpuInterconnect,
    clock: 'icnt',
    spec: { sms: nSm, partitions: nSlices, bufferDepth: config.interconnect.inputBufferEntries },
    resources: { partitionOf: (addr: number) => decoder.decode(addr).subPartition },
  });
  for (let j = 0; j < nSlices; j++) {
    units.push({
      name: `GPU.L2[${j}]`,
      definition: l2Slice,
      clock: 'l2',
      spec: { cache: cacheParams(config.l2), ropLatency: config.memPartitions.ropLatencyCycles, accessLatency: config.l2.latencyCycles, dataPortBytes: config.l2.dataPortBytes },
      resources: { localAddress: (addr: number) => decoder.partitionAddress(addr) },
    });
  }
  // -dram_latency counts core cycles; the channel counts DRAM command cycles (rounded up).
  const dramLatency = Math.ceil((config.memPartitions.dramLatencyCycles * config.clocks.dram) / config.clocks.core - 1e-9);
  for (let c = 0; c < nChannels; c++) {
    units.push({ name: `GPU.DRAM[${c}]`, definition: dramChannel, clock: 'dram', spec: { subPartitions: config.memPartitions.subPartitions, latencyCycles: dramLatency, dram: dramParams(config) }, resources: { addressMap: decoder } });
  }

  // The link table. Latencies are cycles of the receiving domain (>= 1).
  const flit = config.interconnect.flitBytes;
  for (let i = 0; i < nSm; i++) {
    const sm = `GPU.SM[${i}]`;
    link('GPU.SMWM', `dispatch[${i}]`, `${sm}.ISSUE`, 'cta', one);
    link(`${sm}.ISSUE`, 'ctaDone', 'GPU.SMWM', `done[${i}]`, one);
    const ctrlDown = link('GPU.SMWM', `ctrl[${i}]`, `${sm}.ISSUE`, 'ctrl', one);
    const ctrlUp = link(`${sm}.ISSUE`, 'status', 'GPU.SMWM', `status[${i}]`, one);
    splices.push({ style: 'inline', name: 'sm.ctrl', scope: sm, description: 'SM control: SM Work Manager (upper) and the SM issue stage (lower)', down: ctrlDown, up: ctrlUp, near: 'lower' });
    link(`${sm}.ISSUE`, 'fetchReq', `${sm}.FETCH`, 'req', one);
    link(`${sm}.FETCH`, 'out', `${sm}.DECODE`, 'in', one);
    link(`${sm}.DECODE`, 'out', `${sm}.ISSUE`, 'decoded', one);
    link(`${sm}.ISSUE`, 'exec', `${sm}.EXEC`, 'in', { latencyCycles: 1, messagesPerCycle: 8 });
    link(`${sm}.EXEC`, 'wb', `${sm}.ISSUE`, 'execWb', { latencyCycles: 1, messagesPerCycle: 8 });
    link(`${sm}.ISSUE`, 'lsu', `${sm}.LSU`, 'topIn', one);
    // L1I misses share the SM's memory port (GPGPU-Sim fetch -> m_L1I -> shader_memory_interface).
    link(`${sm}.FETCH`, 'memOut', `${sm}.L1D`, 'instIn', one);
    link(`${sm}.L1D`, 'instOut', `${sm}.FETCH`, 'memIn', one);
    // the L1I prefetch gate counts the L1D's MSHRs too (004 §3.5)
    if (config.l1i.prefetch?.kind === 'nextLine' && config.l1i.prefetch.mshrThreshold > 0) link(`${sm}.L1D`, 'mshrOut', `${sm}.FETCH`, 'l1dMshr', one);
    link(`${sm}.LSU`, 'topOut', `${sm}.ISSUE`, 'lsuWb', { latencyCycles: 1, messagesPerCycle: 8 });
    const lsuDown = link(`${sm}.LSU`, 'bottomOut', `${sm}.L1D`, 'topIn', one);
    const lsuUp = link(`${sm}.L1D`, 'topOut', `${sm}.LSU`, 'bottomIn', { latencyCycles: 1, messagesPerCycle: 4 });
    splices.push({ style: 'inline', name: 'sm.lsu-l1d', scope: sm, description: 'between the LSU (upper) and the L1D (lower), beside the L1D', down: lsuDown, up: lsuUp, near: 'lower' });
    const l1dDown = link(`${sm}.L1D`, 'bottomOut', 'GPU.ICNT', `topIn[${i}]`, { latencyCycles: config.interconnect.latencyCycles, bytesPerCycle: flit });
    const l1dUp = link('GPU.ICNT', `topOut[${i}]`, `${sm}.L1D`, 'bottomIn', { latencyCycles: 1, bytesPerCycle: flit }, 'icnt');
    splices.push({ style: 'inline', name: 'sm.l1d-icnt', scope: sm, description: 'between the L1D (upper) and the interconnect (lower), beside the L1D', down: l1dDown, up: l1dUp, near: 'upper' });
    splices.push({ style: 'tap', name: 'sm.l1d-evict', scope: sm, description: "the L1D's eviction announcements (mem.evict)", port: { unit: `${sm}.L1D`, port: 'evict' }, direction: 'out', blockPort: 'evict' });
  }
  for (let j = 0; j < nSlices; j++) {
    const ch = Math.floor(j / config.memPartitions.subPartitions);
    const sub = j % config.memPartitions.subPartitions;
    link('GPU.ICNT', `bottomOut[${j}]`, `GPU.L2[${j}]`, 'topIn', { latencyCycles: 1, bytesPerCycle: flit }, 'icnt');
    link(`GPU.L2[${j}]`, 'topOut', 'GPU.ICNT', `bottomIn[${j}]`, { latencyCycles: config.interconnect.latencyCycles, bytesPerCycle: flit });
    const dDown = link(`GPU.L2[${j}]`, 'bottomOut', `GPU.DRAM[${ch}]`, `topIn[${sub}]`, one);
    const dUp = link(`GPU.DRAM[${ch}]`, `topOut[${sub}]`, `GPU.L2[${j}]`, 'bottomIn', one);
    splices.push({ style: 'inline', name: 'l2.dram', scope: `GPU.L2[${j}]`, description: 'between L2 slice j (upper) and its DRAM channel (lower), beside the L2', down: dDown, up: dUp, near: 'upper' });
  }
  return { units, links, splices };
}

/** DRAM channel parameters of a config (times in DRAM command cycles). */
function dramParams(config: GpuConfig) {
  const d = config.dram;
  return {
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
  };
}

/** Options of {@link buildGpu} beyond the engine's. */
export interface BuildGpuOptions {
  /** Issue stages wake every cycle instead of sleeping (verification only). */
  readonly pollEveryCycle?: boolean;
  /** Unit kinds for `extensions` entries; default the built-in registry (`machines/index.ts`). */
  readonly lookup?: (kind: string) => UnitDefinition | undefined;
  /** Where the config's extensions come from, for error locations. */
  readonly extensionSource?: ExtensionSource;
}

/**
 * Creates the engine with every GPU unit and link (not started): the {@link gpuTopology}
 * template, the config's `extensions` spliced in, then instantiated; GPU-wide statistics are
 * the sums the units' statistic descriptors declare (`gpuTotal`).
 * @param launches kernels for the SM Work Manager, in launch order
 * @throws InputError for a bad `extensions` entry; SimulationError for an invalid unit spec
 */
export function buildGpu(config: GpuConfig, context: GpuContext, launches: readonly KernelLaunchPlan[], options: EngineOptions = {}, build: BuildGpuOptions | boolean = {}): Engine {
  const opts: BuildGpuOptions = typeof build === 'boolean' ? { pollEveryCycle: build } : build;
  const engine = new Engine(options);
  engine.addClock('core', hz(config.clocks.core));
  engine.addClock('icnt', hz(config.clocks.icnt));
  engine.addClock('l2', hz(config.clocks.l2));
  engine.addClock('dram', hz(config.clocks.dram));
  const topology = gpuTopology(config, context, launches, opts.pollEveryCycle ?? false);
  const extensions = config.extensions ?? [];
  if (extensions.length > 0) {
    const registry = opts.lookup ?? ((kind: string) => createUnitRegistry().get(kind));
    const source = opts.extensionSource ?? { field: 'extensions', locate: () => ({ file: `<config ${config.name}>` }) };
    applyExtensions(topology, extensions, registry, source);
  }
  instantiate(engine, topology);
  registerGpuStats(engine, topology);
  return engine;
}

/**
 * GPU-wide statistics: `gpu_sim_cycle`, the sums declared by the units' statistic descriptors
 * (`gpuTotal`, e.g. `gpu_sim_insn` = sum of ISSUE `thread_insts`, GPGPU-Sim's names), and the
 * metrics derived from them (`gpu_ipc`, achieved DRAM bandwidth).
 */
function registerGpuStats(engine: Engine, topology: Topology): void {
  const stats = engine.stats;
  const core = engine.clock('core');
  const cycles = () => core.cycleAt(engine.now);
  stats.derived('gpu_sim_cycle', cycles, 'core cycles simulated', 'cycles');
  for (const t of gpuTotals(topology)) {
    stats.derived(t.name, () => {
      let total = 0;
      for (const n of t.parts) total += stats.value(n) ?? 0;
      return total;
    }, t.description, t.unit);
    if (t.name === 'gpu_tot_warp_insts') {
      stats.derived('gpu_ipc', () => (cycles() > 0 ? (stats.value('gpu_sim_insn') ?? 0) / cycles() : 0), 'thread instructions per core cycle', 'insn/cycle');
    }
  }
  const secs = () => engine.now / 1e12;
  stats.derived('gpu_dram_bandwidth_gbps', () => (secs() > 0 ? (stats.value('gpu_dram_bytes') ?? 0) / secs() / 1e9 : 0), 'achieved DRAM bandwidth', 'GB/s');
}

/**
 * The L1D's NewCAR queue size from `l1d.reexecQueue` (paper 004 §3.4: 32 entries by default);
 * nothing when off, so the L1D spec of a run without it is unchanged.
 */
function newcarSpec(config: GpuConfig): { newcarEntries?: number; newcarChoice?: 'rotate' | 'oldest' | 'rewind' } {
  const q = config.l1d.reexecQueue;
  if (q === undefined || q.kind !== 'newcar') return {};
  return q.choice !== undefined ? { newcarEntries: q.entries ?? 32, newcarChoice: q.choice } : { newcarEntries: q.entries ?? 32 };
}

/** One GPU-wide sum: its name and the instance statistics it adds up. */
interface GpuTotal {
  readonly name: string;
  readonly parts: string[];
  readonly description: string;
  readonly unit: string;
}

/**
 * The GPU-wide sums of a topology, in unit-kind order of first appearance then descriptor
 * order. A descriptor name with a `<placeholder>` expands over its `variants`.
 */
function gpuTotals(topology: Topology): GpuTotal[] {
  const totals = new Map<string, GpuTotal>();
  for (const u of topology.units) {
    for (const d of u.definition.stats) {
      if (d.gpuTotal === undefined) continue;
      const variants = d.name.includes('<') ? (d.variants ?? []) : [''];
      for (const v of variants) {
        const sub = (x: string) => (v === '' ? x : x.replace(/<[^>]+>/, v));
        const name = sub(d.gpuTotal);
        let t = totals.get(name);
        if (t === undefined) {
          t = { name, parts: [], description: `sum of ${sub(d.name)} over every ${u.definition.kind}`, unit: d.unit };
          totals.set(name, t);
        }
        t.parts.push(`${u.name}.${sub(d.name)}`);
      }
    }
  }
  return [...totals.values()];
}
