/**
 * `onac32`: the 32-SM Fermi machine of paper 000 Table 4.3 (ONAC, optimal number of active
 * cores). Values marked `T4.3` are from the table; `GAP` values come from GPGPU-Sim's
 * `deprecated-cfgs/GTX480/gpgpusim.config`, quoting its option.
 *
 * Clocks: core / interconnect 1300 MHz (T4.3); the table's 1848 MHz memory clock is GDDR5's data
 * clock, so the DRAM command clock is 924 MHz, and 12 partitions x 32-bit bus x 4 transfers x
 * 924 MHz = 177.4 GB/s, the table's bandwidth. As in `m2090` (same author, same Fermi SM at
 * 1300 MHz), each scheduler issues every 2 cycles. The L2 runs at the core clock (GAP).
 *
 * DRAM banks: T4.3 gives 6 banks per partition. The GTX480 address mapping decodes 4 bank bits,
 * so a DRAM model takes the decoded bank modulo `dram.banks`; with 6 banks bank groups are off
 * (nbkgrp 1, tCCDL = tRTPL = 0, GPGPU-Sim's way to disable them).
 */
import type { GpuConfig } from '../schema.ts';
import { cacheFromString, l1dFromString, mappingFromString, timingFromString } from './build.ts';
import { gtx480 } from './gtx480.ts';
import { m2090 } from './m2090.ts';
import { placeholderPower } from './placeholder-power.ts';

const gddr5 = timingFromString('nbk=16:CCD=2:RRD=6:RCD=12:RAS=28:RP=12:RC=40:CL=12:WL=4:CDLR=5:WR=12:nbkgrp=4:CCDL=3:RTPL=2');

/** 32-SM Fermi machine of paper 000 Table 4.3 (ONAC). */
export const onac32: GpuConfig = {
  name: 'onac32',
  description: '32-SM Fermi GPU of paper 000 Table 4.3 (ONAC)',
  sources: ['papers/000 Table 4.3', 'data/gpgpusim-configs/deprecated-cfgs/GTX480/gpgpusim.config (gaps)'],
  clocks: { core: 1300, icnt: 1300, l2: 1300, dram: 924 }, // T4.3 1300/1300/1848 MHz (1848 / 2); L2 GAP
  sm: {
    ...structuredClone(m2090.sm), // the same Fermi SM; differences below
    count: 32, // T4.3 number of cores 32
    warpSize: 32, // T4.3 warp size 32
    maxThreads: 1536, // GAP: -gpgpu_shader_core_pipeline 1536:32
    maxCtas: 8, // T4.3 max 8 thread blocks
    maxWarps: 48, // T4.3 max 48 warps
    registers: 32768, // T4.3 32768 registers
    sharedMemBytes: 49152, // T4.3 48 KB shared memory
    schedulers: 2, // T4.3 2 warp schedulers per core
    lanes: { sp: 32, sfu: 4, lsu: 16 }, // T4.3 32 ALUs, 4 SFUs, 16 LD/ST units
  },
  policies: {
    warpScheduler: { kind: 'gto' }, // T4.3 GTO scheduling policy
    ctaScheduler: { kind: 'roundRobin' },
    kernelScheduler: { kind: 'inOrder' },
    memoryIssue: { kind: 'none' },
  },
  l1i: cacheFromString('4:128:4,L:R:f:N:L,A:2:32,4', 1), // GAP: -gpgpu_cache:il1
  l1d: l1dFromString('32:128:4,L:L:m:N:H,A:32:8,8', gtx480.l1d.latencyCycles, 1, false), // GAP: -gpgpu_cache:dl1; latency from SM2_GTX480 (35)
  sharedMem: { ...gtx480.sharedMem }, // GAP: 32 banks; latency from SM2_GTX480 (26)
  l2: cacheFromString('64:128:8,L:B:m:W:L,A:32:4,4:0,32', 1), // GAP: -gpgpu_cache:dl2
  constCache: cacheFromString('64:64:2,L:R:f:N:L,A:2:32,4', 1), // GAP
  texCache: cacheFromString('4:128:24,L:R:m:N:L,F:128:4,128:2', 1), // GAP
  interconnect: {
    topology: 'crossbar', // GAP: config_fermi_islip.icnt (fly, one stage)
    flitBytes: 32, // GAP: flit_size = 32
    latencyCycles: 3, // GAP: router delays 0 + 1 + 1, + 1 link cycle
    inputBufferEntries: 8, // GAP: vc_buf_size = 8
    outputBufferEntries: 64,
    arbitration: 'islip',
    subnets: 2,
    ejectionBufferEntries: 8, // GPGPU-Sim default
  },
  memPartitions: {
    count: 12, // T4.3 12 memory partitions
    subPartitions: 2, // GAP: -gpgpu_n_sub_partition_per_mchannel 2
    ropLatencyCycles: 120, // GAP: -rop_latency 120
    dramLatencyCycles: 100, // GAP: -dram_latency 100
    queues: { icntToL2: 8, l2ToDram: 8, dramToL2: 8, l2ToIcnt: 8 }, // GPGPU-Sim default
    addressMapping: mappingFromString('dramid@8;00000000.00000000.00000000.00000000.0000RRRR.RRRRRRRR.BBBCCCCB.CCSSSSSS'), // GAP
    partitionIndexing: 'consecutive',
  },
  dram: {
    chipsPerPartition: 1, // T4.3 32-bit bus per partition = 1 x 4 B
    busWidthBytes: 4, // T4.3
    burstLength: 8, // GAP: -gpgpu_dram_burst_length 8
    dataCommandFreqRatio: 4, // T4.3 GDDR5 (QDR)
    banks: 6, // T4.3 6 banks per memory partition
    bankGroups: 1, // bank groups off with 6 banks
    timing: { ...gddr5.timing, tCCDL: 0, tRTPL: 0 }, // T4.3 GDDR5 timing = GAP: -gpgpu_dram_timing_opt of GTX480
    scheduler: 'frFcfs', // GAP: -gpgpu_dram_scheduler 1
    schedulerQueueEntries: 16, // GAP: -gpgpu_frfcfs_dram_sched_queue_size 16
    returnQueueEntries: 116, // GAP: -gpgpu_dram_return_queue_size 116
    dualBusInterface: false,
    bankIndexing: 'normal',
    bankGroupIndexing: 'highBits', // GPGPU-Sim default -dram_bnkgrp_indexing_policy 0 (GTX480 silent; moot with 1 group)
    writeQueue: { enabled: false, entries: 32, highWatermark: 28, lowWatermark: 16 },
  },
  kernel: {
    launchLatencyCycles: 0,
    ctaLaunchLatencyCycles: 0,
    maxConcurrentKernels: 8,
    concurrentKernelsPerSm: false,
  },
  power: placeholderPower, // ONAC compares static power of active and power-gated SMs (000 §4.4.4)
};
