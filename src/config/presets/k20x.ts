/**
 * `k20x`: the Tesla K20X (Kepler) of paper 000 Table 4.1 (Perf-Sat, Kepler column). Values
 * marked `T4.1` are from the table; `GAP` values come from GPGPU-Sim's
 * `tested-cfgs/SM3_KEPLER_TITAN/gpgpusim.config` (GK110, the same chip), quoting its option.
 *
 * Derived from the table: 14 SMs (2688 SP units / 192 per SM); core clock 732 MHz from the peak
 * single-precision rate (3935 GFLOP/s = 2688 lanes x 2 x 732 MHz; also 1311 GFLOP/s DP = 896 x 2 x
 * 732 MHz); DRAM command clock 1300 MHz = the table's 2600 MHz GDDR5 data clock / 2, which with
 * SM3_KEPLER_TITAN's 12 x 32-bit channels gives 12 x 4 B x 4 x 1300 MHz = 249.6 GB/s (table: 250).
 * The interconnect and L2 run at the core clock, as in SM3_KEPLER_TITAN.
 *
 * The L1D caches global accesses (`l1d.skipGlobal: false`; SM3_KEPLER_TITAN sets
 * `-gpgpu_gmem_skip_L1D 1`): paper 000 §4.3.1.3 explains LUD and SRAD slowing down on this
 * configuration by L1 data cache contention, "more prominent on the Kepler configuration, as the L1
 * cache size is the same" as Fermi's (16 KB), which needs global loads to use the L1D.
 */
import type { GpuConfig } from '../schema.ts';
import { cacheFromString, l1dFromString, mappingFromString, timingFromString } from './build.ts';
import { placeholderPower } from './placeholder-power.ts';

/** Tesla K20X (Kepler GK110, 14 SMX) of paper 000 Table 4.1. */
export const k20x: GpuConfig = {
  name: 'k20x',
  description: 'NVIDIA Tesla K20X (Kepler) of paper 000 Table 4.1',
  sources: ['papers/000 Table 4.1 (K20X column)', 'data/gpgpusim-configs/tested-cfgs/SM3_KEPLER_TITAN/gpgpusim.config (gaps)'],
  clocks: { core: 732, icnt: 732, l2: 732, dram: 1300 }, // T4.1 derived (see module comment)
  sm: {
    count: 14, // T4.1 2688 SP units total / 192 per SM
    warpSize: 32, // GAP: -gpgpu_shader_core_pipeline 2048:32
    maxThreads: 2048, // T4.1 max threads per SM 2048
    maxCtas: 16, // T4.1 max CTAs per SM 16
    maxWarps: 64, // 2048 / 32
    registers: 65536, // T4.1 register file 256 KB = 65536 x 4 B
    registersPerCta: 65536, // compute capability 3.5 limit
    registerAllocUnit: 256, // occupancy calculator, compute capability 3.x
    registerPerThreadGranularity: 4, // GPGPU-Sim max_cta rounding
    sharedMemBytes: 49152, // GAP: -gpgpu_shmem_size 49152
    sharedMemPerCtaBytes: 49152, // compute capability 3.5 limit
    sharedMemAllocUnit: 256, // occupancy calculator, compute capability 3.x
    schedulers: 4, // GAP: -gpgpu_num_sched_per_core 4
    issueWidth: 2, // GAP: -gpgpu_max_insn_issue_per_warp 2
    issueIntervalCycles: 1,
    dualIssueDiffUnits: false, // GAP: -gpgpu_dual_issue_diff_exec_units 0
    fetchWidth: 2,
    fetchThroughput: 8, // GAP: -gpgpu_inst_fetch_throughput 8
    decodeWidth: 2,
    iBufferEntries: 2,
    subCoreModel: false,
    // GAP: -gpgpu_pipeline_widths 6,4,0,2,1,6,4,0,2,1,12
    units: {
      sp: { count: 6, idOcWidth: 6, ocExWidth: 6 }, // GAP: -gpgpu_num_sp_units 6
      dp: { count: 4, idOcWidth: 4, ocExWidth: 4 }, // GAP: -gpgpu_num_dp_units 4
      int: { count: 0, idOcWidth: 0, ocExWidth: 0 },
      sfu: { count: 2, idOcWidth: 2, ocExWidth: 2 }, // GAP: -gpgpu_num_sfu_units 2
      tensor: { count: 0, idOcWidth: 1, ocExWidth: 1 },
      lsu: { count: 1, idOcWidth: 1, ocExWidth: 1 },
      exWbWidth: 12,
    },
    operandCollector: {
      regBanks: 16, // GAP: -gpgpu_num_reg_banks 16
      regFilePorts: 2, // GAP: -gpgpu_reg_file_port_throughput 2
      specialized: true,
      sets: {
        sp: { units: 12, inPorts: 2, outPorts: 2 }, // GAP
        dp: { units: 6, inPorts: 1, outPorts: 1 }, // GAP
        sfu: { units: 6, inPorts: 2, outPorts: 2 }, // GAP
        int: { units: 0, inPorts: 0, outPorts: 0 },
        tensor: { units: 4, inPorts: 1, outPorts: 1 },
        mem: { units: 8, inPorts: 1, outPorts: 1 }, // GAP
        gen: { units: 0, inPorts: 0, outPorts: 0 },
      },
    },
    opcodeTiming: {
      // GAP: -ptx_opcode_latency_int 4,13,4,5,145,32 / -ptx_opcode_initiation_int 1,1,1,1,4,4
      int: {
        add: { latency: 4, initiation: 1 },
        max: { latency: 13, initiation: 1 },
        mul: { latency: 4, initiation: 1 },
        mad: { latency: 5, initiation: 1 },
        div: { latency: 145, initiation: 4 },
        shfl: { latency: 32, initiation: 4 },
      },
      // GAP: -ptx_opcode_latency_fp 4,13,4,5,39 / -ptx_opcode_initiation_fp 1,2,1,1,4
      fp: {
        add: { latency: 4, initiation: 1 },
        max: { latency: 13, initiation: 2 },
        mul: { latency: 4, initiation: 1 },
        mad: { latency: 5, initiation: 1 },
        div: { latency: 39, initiation: 4 },
      },
      // GAP: -ptx_opcode_latency_dp 8,19,8,8,330 / -ptx_opcode_initiation_dp 2,8,8,8,130
      dp: {
        add: { latency: 8, initiation: 2 },
        max: { latency: 19, initiation: 8 },
        mul: { latency: 8, initiation: 8 },
        mad: { latency: 8, initiation: 8 },
        div: { latency: 330, initiation: 130 },
      },
      sfu: { latency: 200, initiation: 2 }, // GAP: -ptx_opcode_latency_sfu 200 / -ptx_opcode_initiation_sfu 2
      tensor: { latency: 64, initiation: 64 },
    },
    lanes: { sp: 192, dp: 64 }, // T4.1 SP / DP units per SM
  },
  policies: {
    warpScheduler: { kind: 'gto' }, // GAP: -gpgpu_scheduler gto
    ctaScheduler: { kind: 'roundRobin' },
    kernelScheduler: { kind: 'inOrder' },
    memoryIssue: { kind: 'none' },
  },
  l1i: cacheFromString('N:8:128:4,L:R:f:N:L,S:2:48,4', 1), // GAP: -gpgpu_cache:il1
  // GAP: -gpgpu_cache:dl1 (16 KB), -gpgpu_l1_latency 82; global loads cached (000 §4.3.1.3, see module comment)
  l1d: l1dFromString('S:4:128:32,L:L:s:N:L,A:256:8,16:0,32', 82, 1, false),
  sharedMem: { banks: 32, latencyCycles: 24, limitedBroadcast: false, warpParts: 1 }, // GAP: 32 banks, -smem_latency 24
  l2: cacheFromString('S:32:128:16,L:B:m:L:P,A:256:64,16:0,32', 1), // GAP: -gpgpu_cache:dl2 (64 KiB x 24 slices = 1.5 MiB)
  constCache: cacheFromString('N:128:64:2,L:R:f:N:L,S:2:64,4', 1), // GAP
  texCache: cacheFromString('N:16:128:24,L:R:m:N:L,T:128:4,128:2', 1), // GAP
  interconnect: {
    topology: 'crossbar', // GAP: config_kepler_islip.icnt, fly k=38 n=1
    flitBytes: 40, // GAP: flit_size = 40
    latencyCycles: 3, // GAP: router delays 0 + 1 + 1, + 1 link cycle
    inputBufferEntries: 64, // GAP: vc_buf_size = 64
    outputBufferEntries: 64,
    arbitration: 'islip',
    subnets: 2,
    ejectionBufferEntries: 32, // GAP: -gpgpu_n_cluster_ejection_buffer_size 32
  },
  memPartitions: {
    count: 12, // GAP: -gpgpu_n_mem 12 (384-bit bus)
    subPartitions: 2, // GAP
    ropLatencyCycles: 120, // GAP: -gpgpu_l2_rop_latency 120
    dramLatencyCycles: 100, // GAP: -dram_latency 100
    queues: { icntToL2: 32, l2ToDram: 32, dramToL2: 32, l2ToIcnt: 32 }, // GAP: -gpgpu_dram_partition_queues 32:32:32:32
    addressMapping: mappingFromString('dramid@8;00000000.00000000.00000000.00000000.0000RRRR.RRRRRRRR.RBBBCCCC.BCCSSSSS'), // GAP
    partitionIndexing: 'consecutive', // GAP: -gpgpu_memory_partition_indexing 0
  },
  dram: {
    chipsPerPartition: 1, // GAP: -gpgpu_n_mem_per_ctrlr 1
    busWidthBytes: 4, // GAP: -gpgpu_dram_buswidth 4
    burstLength: 8, // GAP
    dataCommandFreqRatio: 4, // GAP: GDDR5
    ...timingFromString('nbk=16:CCD=2:RRD=8:RCD=16:RAS=37:RP=16:RC=52:CL=16:WL=6:CDLR=7:WR=16:nbkgrp=4:CCDL=4:RTPL=3'), // GAP
    scheduler: 'frFcfs',
    schedulerQueueEntries: 64, // GAP
    returnQueueEntries: 64, // GAP
    dualBusInterface: false,
    bankIndexing: 'normal', // GAP: -dram_bnk_indexing_policy 0
    bankGroupIndexing: 'lowBits', // GAP: -dram_bnkgrp_indexing_policy 1
    writeQueue: { enabled: false, entries: 32, highWatermark: 28, lowWatermark: 16 },
  },
  kernel: {
    launchLatencyCycles: 0,
    ctaLaunchLatencyCycles: 0,
    maxConcurrentKernels: 8,
    concurrentKernelsPerSm: false,
  },
  power: placeholderPower,
};
