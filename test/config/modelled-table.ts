/**
 * The config-honesty table (issue 8 item 7): for every modelled GPU config field, the override
 * and workload on which a statistic changes, or the existing test that covers the behaviour.
 * Used by `modelled-fields.test.ts` and mirrored in `src/config/MODELLED.md` (a test keeps the
 * two equal).
 */
/** Fields that describe the config, not the hardware. */
export const METADATA = ['name', 'description', 'sources', 'extensions'];

/**
 * Behaviour: an override and the workload on which it changes a statistic (2 SMs of gtx480).
 * Workloads: mem = stream_x_words (L1D, interconnect, L2, DRAM), alu = dpoly (SP, SFU, DP,
 * integer multiply), smem = histogram_smem (shared-memory banks, atomics), shfl = reduce_shfl.
 */
export const BEHAVIOUR: Record<string, [string, 'mem' | 'alu' | 'smem' | 'shfl']> = {
  'clocks.core': ['1400', 'mem'], 'clocks.icnt': ['1400', 'mem'], 'clocks.l2': ['1400', 'mem'], 'clocks.dram': ['1848', 'mem'],
  'sm.count': ['30', 'mem'], 'sm.registers': ['65536', 'mem'], 'sm.registerAllocUnit': ['65', 'mem'], 'sm.schedulers': ['4', 'mem'],
  'sm.issueWidth': ['2', 'mem'], 'sm.issueIntervalCycles': ['2', 'mem'], 'sm.fetchWidth': ['1', 'mem'], 'sm.iBufferEntries': ['1', 'mem'],
  'sm.units.sp.count': ['4', 'alu'], 'sm.units.sfu.count': ['2', 'alu'],
  'sm.opcodeTiming.int.mul.latency': ['8', 'alu'], 'sm.opcodeTiming.int.mul.initiation': ['4', 'alu'],
  'sm.opcodeTiming.int.shfl.latency': ['64', 'shfl'], 'sm.opcodeTiming.int.shfl.initiation': ['8', 'shfl'],
  'sm.opcodeTiming.fp.add.latency': ['8', 'alu'], 'sm.opcodeTiming.fp.add.initiation': ['2', 'alu'],
  'sm.opcodeTiming.dp.mad.latency': ['16', 'alu'], 'sm.opcodeTiming.dp.mad.initiation': ['16', 'alu'],
  'l1i.lineBytes': ['256', 'mem'], 'l1i.mshrEntries': ['1', 'shfl'], 'l1i.mshrMaxMerge': ['1', 'mem'],
  'l1d.sets': ['16', 'mem'], 'l1d.ways': ['2', 'mem'], 'l1d.lineBytes': ['256', 'mem'], 'l1d.sectorBytes': ['1', 'mem'],
  'l1d.mshrEntries': ['32', 'mem'], 'l1d.missQueueEntries': ['4', 'mem'], 'l1d.skipGlobal': ['true', 'mem'],
  'sharedMem.banks': ['64', 'smem'], 'sharedMem.latencyCycles': ['52', 'smem'], 'sharedMem.limitedBroadcast': ['true', 'smem'], 'sharedMem.warpParts': ['2', 'smem'],
  'l2.lineBytes': ['256', 'mem'], 'l2.latencyCycles': ['2', 'mem'],
  'interconnect.flitBytes': ['80', 'mem'], 'interconnect.latencyCycles': ['6', 'mem'],
  'memPartitions.count': ['12', 'mem'], 'memPartitions.subPartitions': ['1', 'mem'], 'memPartitions.ropLatencyCycles': ['240', 'mem'],
  'memPartitions.dramLatencyCycles': ['200', 'mem'], 'memPartitions.addressMapping.dramIdStartBit': ['16', 'mem'],
  'dram.chipsPerPartition': ['4', 'mem'], 'dram.busWidthBytes': ['8', 'mem'], 'dram.burstLength': ['16', 'mem'], 'dram.dataCommandFreqRatio': ['8', 'mem'],
  'dram.banks': ['8', 'mem'], 'dram.bankGroups': ['2', 'mem'], 'dram.timing.tCCD': ['8', 'mem'], 'dram.timing.tRRD': ['40', 'mem'],
  'dram.timing.tRCD': ['24', 'mem'], 'dram.timing.tCL': ['24', 'mem'], 'dram.timing.tCCDL': ['6', 'mem'], 'kernel.launchLatencyCycles': ['100', 'mem'],
};

/**
 * Modelled fields whose effect the small runs above do not show (no L1D hit, no DRAM write, no
 * integer division ...): an override that reaches the model, and the test of the behaviour the
 * unit spec field drives.
 */
export const COVERED: Record<string, [string, string]> = {
  'sm.warpSize': ['64', 'test/model/sm/occupancy.test.ts'],
  'sm.maxThreads': ['768', 'test/model/sm/occupancy.test.ts'],
  'sm.maxCtas': ['2', 'test/model/sm/occupancy.test.ts'],
  'sm.maxWarps': ['24', 'test/model/sm/occupancy.test.ts'],
  'sm.registersPerCta': ['1024', 'test/model/sm/occupancy.test.ts'],
  'sm.sharedMemBytes': ['1024', 'test/model/sm/occupancy.test.ts'],
  'sm.sharedMemPerCtaBytes': ['1024', 'test/model/sm/occupancy.test.ts'],
  'sm.sharedMemAllocUnit': ['512', 'test/model/sm/occupancy.test.ts'],
  'sm.fetchThroughput': ['2', 'test/machines/sm-fetch.test.ts'],
  'sm.dualIssueDiffUnits': ['false', 'test/frontends/trace-unit-timing.test.ts'],
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
  'policies.warpScheduler.idleStates': ['', 'test/gpu/two-level-baselines.test.ts'],
  'policies.warpScheduler.phaseLatency': ['', 'test/gpu/pats.test.ts'],
  'policies.warpScheduler.maxPhaseDistance': ['', 'test/gpu/pats.test.ts'],
  'policies.warpScheduler.key': ['', 'test/model/sm/pats.test.ts'],
  'policies.warpScheduler.programPoints': ['', 'test/gpu/elf.test.ts'],
  'policies.warpScheduler.scoreBits': ['', 'test/gpu/elf.test.ts'],
  'policies.warpScheduler.branches': ['', 'test/gpu/elf.test.ts'],
  'policies.warpScheduler.recalcRule': ['', 'test/gpu/elf.test.ts'],
  'policies.fetchScheduler.kind': ['warpPriority', 'test/model/sm/fetch-policy.test.ts'],
  'l1i.prefetch.kind': ['', 'test/gpu/l1i-prefetch.test.ts'],
  'l1i.prefetch.mshrThreshold': ['', 'test/gpu/l1i-prefetch.test.ts'],
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
  // stream_x_words on 2 SMs of gtx480 has no reservation failure, so NewCAR changes nothing there
  'l1d.reexecQueue.kind': ['newcar', 'test/gpu/newcar.test.ts'],
  'l1d.reexecQueue.entries': ['', 'test/machines/gpu-memory/l1d-newcar.test.ts'],
  'l1d.reexecQueue.choice': ['', 'test/machines/gpu-memory/l1d-newcar.test.ts'],
  'l2.sets': ['32', 'test/machines/gpu-memory/icnt-l2-dram.test.ts'],
  'l2.ways': ['4', 'test/machines/gpu-memory/icnt-l2-dram.test.ts'],
  'l2.replacement': ['fifo', 'test/model/mem/tag-array.test.ts'],
  'l2.writePolicy': ['writeThrough', 'test/model/mem/cache.test.ts'],
  'l2.allocation': ['', 'test/model/mem/tag-array.test.ts'],
  'l2.writeAllocate': ['noWriteAllocate', 'test/model/mem/cache.test.ts'],
  'l2.setIndex': ['xor', 'test/model/mem/tag-array.test.ts'],
  'l2.mshrEntries': ['1', 'test/machines/gpu-memory/icnt-l2-dram.test.ts'],
  'l2.dataPortBytes': ['128', 'test/machines/gpu-memory/accelsim-memory-path.test.ts'],
  'l2.mshrMaxMerge': ['1', 'test/model/mem/cache.test.ts'],
  'l2.missQueueEntries': ['1', 'test/gpu/deadlock.test.ts'],
  'constCache.latencyCycles': ['20', 'test/machines/gpu-memory/sm-lsu.test.ts'],
  'texCache.sets': ['8', 'test/model/mem/tex-cache.test.ts'],
  'texCache.ways': ['4', 'test/model/mem/tex-cache.test.ts'],
  'texCache.lineBytes': ['256', 'test/model/mem/tex-cache.test.ts'],
  'texCache.replacement': ['fifo', 'test/model/mem/tex-cache.test.ts'],
  'texCache.allocation': ['onFill', 'test/model/mem/tex-cache.test.ts'],
  'texCache.setIndex': ['xor', 'test/model/mem/tex-cache.test.ts'],
  'texCache.mshrEntries': ['16', 'test/model/mem/tex-cache.test.ts'],
  'texCache.mshrMaxMerge': ['2', 'test/model/mem/tex-cache.test.ts'],
  'texCache.missQueueEntries': ['8', 'test/machines/gpu-memory/sm-lsu-tex.test.ts'],
  'texCache.resultFifoEntries': ['1', 'test/model/mem/tex-cache.test.ts'],
  'texCache.latencyCycles': ['4', 'test/model/mem/tex-cache.test.ts'],
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

export const WORKLOADS = { mem: 'scenarios/k-stream-x-words.yaml', alu: 'scenarios/k-dpoly.yaml', smem: 'scenarios/k-histogram-smem.yaml', shfl: 'scenarios/k-reduce-shfl.yaml' } as const;

/** What each workload exercises (keys in `WORKLOADS` order). */
const WORKLOAD_TEXT: Record<keyof typeof WORKLOADS, string> = {
  mem: 'stream_x_words (L1D, interconnect, L2, DRAM)',
  alu: 'dpoly (SP, SFU, DP, integer multiply)',
  smem: 'histogram_smem (shared-memory banks, atomics)',
  shfl: 'reduce_shfl (shuffles)',
};

/**
 * The text of `src/config/MODELLED.md`: the three tables (modelled with a run, modelled with a
 * covering test, not modelled), fields in schema order.
 * @param leaves the schema's leaf paths in order (`configLeafPaths()`)
 * @param notModelled the not-modelled patterns and reasons (`NOT_MODELLED`)
 */
export function modelledMarkdown(leaves: readonly string[], notModelled: readonly { pattern: string; reason: string }[]): string {
  const code = (s: string) => `\`${s}\``;
  const lines = [
    '# GPU config fields: modelled or not',
    '',
    'Config honesty (issue 8, item 7). Every leaf of the GPU config schema (`src/config/schema.ts`) is',
    'either **modelled** (it reaches a unit spec, a link, the launch limits, a clock or the address map,',
    'and a test shows it changes behaviour) or **not modelled** (listed in `src/config/not-modelled.ts`',
    'with the reason). `warpstate config show <preset>` flags not-modelled fields, `config list',
    '--not-modelled` lists them, overriding one warns and `--strict` refuses it.',
    '',
    'Checked by `test/config/modelled-fields.test.ts` (the tables live in `test/config/modelled-table.ts`;',
    'regenerate this file with `npx tsx test/config/modelled-table.ts > src/config/MODELLED.md`).',
    '',
    '## Modelled: a statistic changes on a small run',
    '',
    'gtx480 with `sm.count=2`; the override below changes at least one of gpu_sim_cycle, the L1D, L2',
    'and DRAM counters on the named workload.',
    '',
    ...Object.values(WORKLOADS).map((f, i) => `- ${code(f)}: ${Object.values(WORKLOAD_TEXT)[i]}`),
    '',
    '| field | override | workload |',
    '| --- | --- | --- |',
  ];
  for (const p of leaves) if (p in BEHAVIOUR) lines.push(`| ${code(p)} | ${code(BEHAVIOUR[p][0])} | ${code(WORKLOADS[BEHAVIOUR[p][1]])} |`);
  lines.push(
    '',
    '## Modelled: covered by a named test',
    '',
    'The small runs do not exercise these (no L1D hit, no DRAM write, no integer division ...); the',
    'override reaches the model (checked) and the named test drives the behaviour the field sets.',
    '',
    '| field | override checked | covering test |',
    '| --- | --- | --- |',
  );
  for (const p of leaves) if (p in COVERED) lines.push(`| ${code(p)} | ${COVERED[p][0] === '' ? '(list or policy option: the test only)' : code(COVERED[p][0])} | ${code(COVERED[p][1])} |`);
  lines.push('', '## Not modelled', '', 'Patterns are dotted paths; `*` is one segment, `**` any depth, `{a,b}` alternatives.', '', '| fields | reason |', '| --- | --- |');
  for (const n of notModelled) lines.push(`| ${code(n.pattern)} | ${n.reason.replace(/\|/g, '\\|')} |`);
  lines.push('', '## Metadata', '', `${METADATA.map(code).join(', ')} describe the config, not the hardware.`, '');
  return lines.join('\n');
}

// `npx tsx test/config/modelled-table.ts` prints the markdown.
if (process.argv[1]?.endsWith('modelled-table.ts')) {
  const { configLeafPaths, NOT_MODELLED } = await import('../../src/config/not-modelled.ts');
  process.stdout.write(modelledMarkdown(configLeafPaths(), NOT_MODELLED));
}
