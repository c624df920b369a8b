/**
 * Human-readable and JSON renderings of a GPU configuration, for `warpstate config show`.
 */
import { formatAddressMapping } from './address-mapping.ts';
import { formatGpgpusimCacheString } from './cache-string.ts';
import {
  cacheSizeBytes,
  l2TotalBytes,
  maxWarpsPerSm,
  peakDramBandwidthBytesPerSec,
  peakFlopsPerSec,
  totalL2Slices,
  type CacheGeometry,
  type GpuConfig,
  type L1dConfig,
  type OpTiming,
  type WarpSchedulerPolicy,
} from './schema.ts';

/** Bytes as `16 KiB (16384 B)`, or `N B` below 1 KiB or when not a whole number of KiB. */
export function formatBytes(n: number): string {
  if (n >= 1024 * 1024 && n % (1024 * 1024) === 0) return `${n / (1024 * 1024)} MiB (${n} B)`;
  if (n >= 1024 && n % 1024 === 0) return `${n / 1024} KiB (${n} B)`;
  return `${n} B`;
}

function cyc(n: number): string {
  return `${n} cycle${n === 1 ? '' : 's'}`;
}

function policyName(p: WarpSchedulerPolicy): string {
  const idle = (scope: string | undefined): string => `, idle states over ${scope ?? 'supervised'} warps${scope === undefined ? ' (default)' : ''}`;
  if (p.kind === 'twoLevel') return `twoLevel (ready queue ${p.readyQueueSize} warps, inner ${p.inner}, outer ${p.outer}${idle(p.idleStates)})`;
  if (p.kind === 'twoLevelGpgpusim') return `twoLevelGpgpusim (GPGPU-Sim two_level_active:${p.readyQueueSize}:0:1, active list ${p.readyQueueSize} warps, inner lrr, outer srr${idle(p.idleStates)})`;
  return p.kind;
}

function cacheLines(title: string, c: CacheGeometry | L1dConfig, extra = ''): string[] {
  return [
    `  ${title.padEnd(11)} ${formatBytes(cacheSizeBytes(c))}: ${c.sets} sets x ${c.ways} ways x ${c.lineBytes} B lines` +
      `${c.sectorBytes !== undefined ? `, ${c.sectorBytes} B sectors` : ''}, hit latency ${cyc(c.latencyCycles)}${extra}`,
    `  ${''.padEnd(11)} ${c.replacement}, ${c.writePolicy}, allocate ${c.allocation}, ${c.writeAllocate}, set index ${c.setIndex}; ` +
      `MSHR ${c.mshrType} ${c.mshrEntries} entries (merge ${c.mshrMaxMerge}), miss queue ${c.missQueueEntries}` +
      `${c.resultFifoEntries > 0 ? `, result FIFO ${c.resultFifoEntries}` : ''}, port ${c.dataPortBytes} B/cycle`,
    `  ${''.padEnd(11)} gpgpusim: ${formatGpgpusimCacheString(c)}`,
  ];
}

function ops(name: string, table: Record<string, OpTiming>): string {
  return `    ${name.padEnd(6)} ${Object.entries(table).map(([k, t]) => `${k} ${t.latency}/${t.initiation}`).join(', ')}`;
}

/**
 * Renders a configuration as grouped, unit-labelled text (clocks, SM, policies, caches,
 * interconnect, memory partitions, DRAM, kernel limits, power, derived peaks).
 */
export function formatConfig(c: GpuConfig): string {
  const out: string[] = [];
  const { sm } = c;
  out.push(`${c.name}${c.description ? ` - ${c.description}` : ''}`);
  if (c.sources && c.sources.length > 0) out.push(`  sources: ${c.sources.join('; ')}`);
  out.push('');
  out.push('clocks');
  out.push(`  core ${c.clocks.core} MHz, interconnect ${c.clocks.icnt} MHz, L2 ${c.clocks.l2} MHz, DRAM ${c.clocks.dram} MHz (command clock)`);
  out.push('');
  out.push(`SM x ${sm.count}${sm.clusters !== undefined ? ` in ${sm.clusters} clusters` : ''}`);
  out.push(`  limits      ${sm.maxThreads} threads, ${maxWarpsPerSm(c)} warps of ${sm.warpSize}, ${sm.maxCtas} CTAs`);
  out.push(`  registers   ${sm.registers} (per CTA <= ${sm.registersPerCta}; allocated per warp in units of ${sm.registerAllocUnit}, per thread rounded to ${sm.registerPerThreadGranularity})`);
  out.push(`  shared mem  ${formatBytes(sm.sharedMemBytes)} (per CTA <= ${formatBytes(sm.sharedMemPerCtaBytes)}, allocation unit ${sm.sharedMemAllocUnit} B)`);
  out.push(
    `  issue       ${sm.schedulers} scheduler(s), up to ${sm.issueWidth} instruction(s) per warp every ${sm.issueIntervalCycles} cycle(s)` +
      `${sm.issueWidth > 1 ? (sm.dualIssueDiffUnits ? ' (different pipelines)' : ' (any pipelines)') : ''}${sm.subCoreModel ? ', sub-core model' : ''}`,
  );
  out.push(`  front end   fetch ${sm.fetchWidth} instructions x ${sm.fetchThroughput} per cycle, decode ${sm.decodeWidth}, ibuffer ${sm.iBufferEntries} entries per warp`);
  const u = sm.units;
  const unit = (name: string, x: { count: number; idOcWidth: number; ocExWidth: number }): string => `${name} ${x.count} (${x.idOcWidth}/${x.ocExWidth})`;
  out.push(`  units       ${[unit('sp', u.sp), unit('dp', u.dp), unit('int', u.int), unit('sfu', u.sfu), unit('tensor', u.tensor), unit('lsu', u.lsu)].join(', ')}; write-back ${u.exWbWidth}/cycle  [count (ID_OC/OC_EX widths)]`);
  if (sm.lanes) {
    out.push(`  lanes       ${Object.entries(sm.lanes).filter(([, v]) => v !== undefined).map(([k, v]) => `${k} ${v}`).join(', ')} per SM`);
  }
  const oc = sm.operandCollector;
  if (oc) {
    const sets = Object.entries(oc.sets)
      .filter(([, s]) => s.units > 0)
      .map(([k, s]) => `${k} ${s.units} (${s.inPorts} in/${s.outPorts} out)`)
      .join(', ');
    out.push(`  operands    ${oc.regBanks} register banks x ${oc.regFilePorts} port(s), ${oc.specialized ? 'specialized' : 'generic'} collectors: ${sets}`);
  }
  out.push('  opcode latency/initiation (cycles)');
  out.push(ops('int', sm.opcodeTiming.int));
  out.push(ops('fp', sm.opcodeTiming.fp));
  out.push(ops('dp', sm.opcodeTiming.dp));
  out.push(`    ${'sfu'.padEnd(6)} ${sm.opcodeTiming.sfu.latency}/${sm.opcodeTiming.sfu.initiation}, tensor ${sm.opcodeTiming.tensor.latency}/${sm.opcodeTiming.tensor.initiation}`);
  out.push('');
  out.push('policies');
  out.push(`  warp ${policyName(c.policies.warpScheduler)}, CTA ${c.policies.ctaScheduler.kind}, kernel ${c.policies.kernelScheduler.kind}, memory issue ${c.policies.memoryIssue.kind}${c.policies.fetchScheduler !== undefined ? `, fetch ${c.policies.fetchScheduler.kind}` : ''}`);
  out.push('');
  out.push('caches');
  out.push(...cacheLines('L1I', c.l1i));
  out.push(...cacheLines('L1D', c.l1d, `, ${c.l1d.banks} bank(s)${c.l1d.skipGlobal ? ', global loads bypass' : ''}`));
  out.push(`  ${'shared mem'.padEnd(11)} ${c.sharedMem.banks} banks, latency ${cyc(c.sharedMem.latencyCycles)}, ${c.sharedMem.warpParts} warp part(s)${c.sharedMem.limitedBroadcast ? ', limited broadcast' : ''}`);
  out.push(...cacheLines('L2 slice', c.l2, `; ${totalL2Slices(c)} slices = ${formatBytes(l2TotalBytes(c))}`));
  if (c.constCache) out.push(...cacheLines('const', c.constCache));
  if (c.texCache) out.push(...cacheLines('texture', c.texCache));
  out.push('');
  const n = c.interconnect;
  out.push('interconnect');
  out.push(
    `  ${n.topology}, ${n.flitBytes} B flits, latency ${cyc(n.latencyCycles)}, buffers ${n.inputBufferEntries} in / ${n.outputBufferEntries} out, ` +
      `${n.arbitration}, ${n.subnets === 2 ? 'separate request/response networks' : 'one shared network'}, ejection buffer ${n.ejectionBufferEntries}`,
  );
  out.push('');
  const mp = c.memPartitions;
  out.push(`memory partitions x ${mp.count}`);
  out.push(`  ${mp.subPartitions} L2 sub-partition(s) each, ROP latency ${cyc(mp.ropLatencyCycles)}, DRAM latency ${cyc(mp.dramLatencyCycles)} (core clock)`);
  out.push(`  queues icnt->L2 ${mp.queues.icntToL2}, L2->DRAM ${mp.queues.l2ToDram}, DRAM->L2 ${mp.queues.dramToL2}, L2->icnt ${mp.queues.l2ToIcnt}; channel hash ${mp.partitionIndexing}`);
  out.push(`  address mapping ${formatAddressMapping(mp.addressMapping)}`);
  out.push('');
  const d = c.dram;
  out.push('DRAM (per partition)');
  out.push(`  ${d.chipsPerPartition} chip(s) x ${d.busWidthBytes} B bus, burst ${d.burstLength}, ${d.dataCommandFreqRatio} transfers per command cycle, ${d.banks} banks in ${d.bankGroups} group(s)`);
  const t = d.timing;
  out.push(
    `  timing (DRAM cycles) tCCD ${t.tCCD} tRRD ${t.tRRD} tRCD ${t.tRCD} tRAS ${t.tRAS} tRP ${t.tRP} tRC ${t.tRC} tCL ${t.tCL} tWL ${t.tWL} tCDLR ${t.tCDLR} tWR ${t.tWR} tCCDL ${t.tCCDL} tRTPL ${t.tRTPL}`,
  );
  out.push(
    `  scheduler ${d.scheduler}, queue ${d.schedulerQueueEntries || 'unlimited'}, return queue ${d.returnQueueEntries || 'unlimited'}` +
      `${d.dualBusInterface ? ', dual command bus' : ''}, bank index ${d.bankIndexing}, bank group from ${d.bankGroupIndexing}` +
      `${d.writeQueue.enabled ? `, write queue ${d.writeQueue.entries} (${d.writeQueue.lowWatermark}..${d.writeQueue.highWatermark})` : ''}`,
  );
  out.push('');
  out.push('kernels');
  out.push(
    `  launch latency ${cyc(c.kernel.launchLatencyCycles)}, CTA launch latency ${cyc(c.kernel.ctaLaunchLatencyCycles)}, ` +
      `up to ${c.kernel.maxConcurrentKernels} concurrent kernels${c.kernel.concurrentKernelsPerSm ? ', kernels may share an SM' : ''}`,
  );
  if (c.power) {
    const p = c.power;
    out.push('');
    out.push(`power${p.placeholder ? ' (PLACEHOLDER values, not calibrated)' : ''}`);
    out.push(`  static: SM ${p.smStaticWatts} W (power-gated ${p.smGatedStaticWatts} W), uncore ${p.uncoreStaticWatts} W, DRAM ${p.dramStaticWattsPerPartition} W per partition`);
    out.push(`  dynamic (pJ): ${Object.entries(p.energyPj).map(([k, v]) => `${k} ${v}`).join(', ')}`);
  }
  out.push('');
  out.push('derived');
  const bw = peakDramBandwidthBytesPerSec(c);
  out.push(`  peak DRAM bandwidth ${(bw / 1e9).toFixed(1)} GB/s`);
  const sp = peakFlopsPerSec(c, 'sp');
  const dp = peakFlopsPerSec(c, 'dp');
  if (sp !== undefined || dp !== undefined) {
    out.push(`  peak FLOP/s${sp !== undefined ? ` single ${(sp / 1e9).toFixed(1)} G` : ''}${dp !== undefined ? ` double ${(dp / 1e9).toFixed(1)} G` : ''}`);
  }
  return out.join('\n') + '\n';
}

/** The configuration as pretty-printed JSON (2-space indent), which `parseGpuConfig` reads back. */
export function configToJson(c: GpuConfig): string {
  return JSON.stringify(c, null, 2) + '\n';
}
