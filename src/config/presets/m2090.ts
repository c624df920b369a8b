/**
 * `m2090`: the Tesla M2090-like GPU of paper 000 (Awatramani), Tables 3.1 and 5.1 (phase-aware
 * warp scheduling, concurrent kernels) and the M2090 column of Table 4.1 (PRESETS.md).
 *
 * Values marked `T3.1`, `T4.1`, `T4.3`, `T5.1` are from those tables. Values marked `GAP` are not
 * in the tables and come from GPGPU-Sim's `deprecated-cfgs/TeslaC2050/gpgpusim.config` (a Fermi
 * Tesla, the closest configuration), quoting its option; `GAP(SM2_GTX480)` marks the few options
 * TeslaC2050 does not set either, taken from the `gtx480` preset.
 *
 * Clocks: Table 3.1 gives the core at 1300 MHz with each scheduler dispatching one instruction
 * every 2 cycles (Fermi's 16-lane pipelines take two cycles per 32-thread warp), so this preset
 * keeps the full clock and sets `issueIntervalCycles: 2` (GPGPU-Sim configs instead halve the
 * clock). Table 3.1's DRAM clock of 1850 MHz is GDDR5's data clock (WCK); GPGPU-Sim's DRAM clock
 * is the command clock, 1850 / 2 = 925 MHz, with 4 transfers per command cycle:
 * 6 partitions x 2 chips x 4 B x 4 x 925 MHz = 177.6 GB/s, Table 3.1's 177 GB/s.
 * Latencies from TeslaC2050 are in GPGPU-Sim's cycles and are kept as numbers of cycles.
 */
import type { GpuConfig } from '../schema.ts';
import { cacheFromString, l1dFromString, mappingFromString, timingFromString } from './build.ts';
import { gtx480 } from './gtx480.ts';
import { placeholderPower } from './placeholder-power.ts';

/** Tesla M2090-like (Fermi, 16 SMs) of paper 000. */
export const m2090: GpuConfig = {
  name: 'm2090',
  description: 'NVIDIA Tesla M2090-like Fermi GPU of paper 000 (Tables 3.1, 4.1, 5.1)',
  sources: [
    'papers/000 Table 3.1, Table 4.1 (M2090 column), Table 5.1',
    'data/gpgpusim-configs/deprecated-cfgs/TeslaC2050/gpgpusim.config (gaps)',
  ],
  clocks: {
    core: 1300, // T3.1 core frequency 1300 MHz
    icnt: 1300, // GAP: TeslaC2050 runs the interconnect at the core clock (575:575); T4.3 (same author, same SM) 1300 MHz
    l2: 1300, // GAP: TeslaC2050 runs L2 at the core clock
    dram: 925, // T3.1 DRAM 1850 MHz (GDDR5 data clock) / 2 = command clock
  },
  sm: {
    count: 16, // T3.1 number of cores 16
    warpSize: 32, // GAP: -gpgpu_shader_core_pipeline 1536:32
    maxThreads: 1536, // T4.1 max threads per SM 1536
    maxCtas: 8, // T3.1 maximum thread blocks per core 8
    maxWarps: 48, // T3.1 maximum warps per core 48
    registers: 32768, // T4.1 register file 128 KB = 32768 x 4 B
    registersPerCta: 32768, // compute capability 2.0 limit (as gtx480)
    registerAllocUnit: 64, // occupancy calculator, compute capability 2.x
    registerPerThreadGranularity: 4, // GPGPU-Sim max_cta rounding (paper 000 used GPGPU-Sim 3.1)
    sharedMemBytes: 49152, // GAP: -gpgpu_shmem_size 49152
    sharedMemPerCtaBytes: 49152, // compute capability 2.0 limit
    sharedMemAllocUnit: 128, // occupancy calculator, compute capability 2.x
    schedulers: 2, // T3.1 warp schedulers per core 2
    issueWidth: 1, // T3.1 1 instruction per dispatch (GAP: -gpgpu_max_insn_issue_per_warp 1)
    issueIntervalCycles: 2, // T3.1 "1 instruction every 2 cycles"
    dualIssueDiffUnits: true, // GPGPU-Sim default
    fetchWidth: 2, // GPGPU-Sim fetch (two instructions)
    fetchThroughput: 1, // GPGPU-Sim default
    decodeWidth: 2, // GPGPU-Sim decode
    iBufferEntries: 2, // GPGPU-Sim ibuffer
    subCoreModel: false,
    // GAP: -gpgpu_pipeline_widths 2,1,1,2,1,1,2 (ID_OC_SP,ID_OC_SFU,ID_OC_MEM,OC_EX_SP,OC_EX_SFU,OC_EX_MEM,EX_WB)
    units: {
      sp: { count: 2, idOcWidth: 2, ocExWidth: 2 }, // GAP: -gpgpu_num_sp_units 2 (2 x 16 lanes = T3.1's 32 ALUs)
      dp: { count: 0, idOcWidth: 0, ocExWidth: 0 }, // GAP: no DP units in TeslaC2050 (DP runs on the SFU pipeline)
      int: { count: 0, idOcWidth: 0, ocExWidth: 0 }, // GAP: INT runs on SP
      sfu: { count: 1, idOcWidth: 1, ocExWidth: 1 }, // GAP: -gpgpu_num_sfu_units 1 (T3.1: 4 SFU lanes)
      tensor: { count: 0, idOcWidth: 1, ocExWidth: 1 },
      lsu: { count: 1, idOcWidth: 1, ocExWidth: 1 }, // one LD/ST unit (T5.1: 16 LD/ST lanes)
      exWbWidth: 2,
    },
    operandCollector: {
      regBanks: 16, // GAP: -gpgpu_num_reg_banks 16
      regFilePorts: 1,
      specialized: true,
      sets: {
        sp: { units: 6, inPorts: 2, outPorts: 2 }, // GAP: -gpgpu_operand_collector_num_units_sp 6, ports 2/2
        dp: { units: 0, inPorts: 0, outPorts: 0 },
        sfu: { units: 8, inPorts: 1, outPorts: 1 }, // GAP: -gpgpu_operand_collector_num_units_sfu 8
        int: { units: 0, inPorts: 0, outPorts: 0 },
        tensor: { units: 4, inPorts: 1, outPorts: 1 },
        mem: { units: 2, inPorts: 1, outPorts: 1 },
        gen: { units: 0, inPorts: 0, outPorts: 0 },
      },
    },
    opcodeTiming: {
      // GAP: -ptx_opcode_latency_int 4,13,4,5,145 / -ptx_opcode_initiation_int 1,2,2,1,8; SHFL GAP(SM2_GTX480) 32/4
      int: {
        add: { latency: 4, initiation: 1 },
        max: { latency: 13, initiation: 2 },
        mul: { latency: 4, initiation: 2 },
        mad: { latency: 5, initiation: 1 },
        div: { latency: 145, initiation: 8 },
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
      // GAP: -ptx_opcode_latency_dp 8,19,8,8,330 / -ptx_opcode_initiation_dp 8,16,8,8,130
      dp: {
        add: { latency: 8, initiation: 8 },
        max: { latency: 19, initiation: 16 },
        mul: { latency: 8, initiation: 8 },
        mad: { latency: 8, initiation: 8 },
        div: { latency: 330, initiation: 130 },
      },
      sfu: { latency: 8, initiation: 8 }, // GAP: GPGPU-Sim defaults
      tensor: { latency: 64, initiation: 64 }, // GAP: GPGPU-Sim defaults (no tensor cores)
    },
    lanes: { sp: 32, dp: 16, sfu: 4, lsu: 16 }, // T3.1 32 ALUs, 4 SFUs; T4.1 16 DP units; T5.1 16 LD/ST units
  },
  policies: {
    // T3.1 ready warps queue size 6; GPGPU-Sim's two-level scheduler "two_level_active:6:0:1" (inner loose RR, outer strict RR)
    warpScheduler: { kind: 'twoLevel', readyQueueSize: 6, inner: 'rr', outer: 'rr' },
    ctaScheduler: { kind: 'roundRobin' },
    kernelScheduler: { kind: 'inOrder' },
    memoryIssue: { kind: 'none' },
  },
  l1i: cacheFromString('4:128:4,L:R:f:N:L,A:2:32,4', 1), // GAP: -gpgpu_cache:il1 (2 KiB)
  l1d: l1dFromString('32:128:4,L:L:m:N:H,A:32:8,8', 35, 1, false), // GAP: -gpgpu_cache:dl1 (16 KiB); latency GAP(SM2_GTX480) -gpgpu_l1_latency 35
  sharedMem: { ...gtx480.sharedMem }, // GAP: 32 banks, no limited broadcast, 1 warp part; latency GAP(SM2_GTX480) 26
  l2: cacheFromString('64:128:8,L:B:m:W:L,A:32:4,4:0,32', 1), // GAP: -gpgpu_cache:dl2 (64 KiB x 12 sub-partitions = 768 KiB)
  constCache: cacheFromString('64:64:2,L:R:f:N:L,A:2:32,4', 1), // GAP: -gpgpu_const_cache:l1
  texCache: cacheFromString('4:128:24,L:R:m:N:L,F:128:4,128:2', 1), // GAP: -gpgpu_tex_cache:l1
  interconnect: {
    topology: 'crossbar', // GAP: config_fermi_islip.icnt, topology fly k=26 n=1
    flitBytes: 32, // GAP: flit_size = 32
    latencyCycles: 3, // GAP: routing 0 + vc alloc 1 + sw alloc 1 + 1 link cycle
    inputBufferEntries: 8, // GAP: vc_buf_size = 8, num_vcs = 1
    outputBufferEntries: 64, // GPGPU-Sim default
    arbitration: 'islip', // GAP: sw_allocator = islip
    subnets: 2, // GAP: subnets = 2
    ejectionBufferEntries: 8, // GPGPU-Sim default -gpgpu_n_cluster_ejection_buffer_size 8
  },
  memPartitions: {
    count: 6, // GAP: -gpgpu_n_mem 6 (with 2 x 32-bit chips each = 384-bit bus)
    subPartitions: 2, // GAP: -gpgpu_n_sub_partition_per_mchannel 2
    ropLatencyCycles: 120, // GAP: -rop_latency 120
    dramLatencyCycles: 100, // GAP: -dram_latency 100
    queues: { icntToL2: 8, l2ToDram: 8, dramToL2: 8, l2ToIcnt: 8 }, // GAP: TeslaC2050 silent; GPGPU-Sim default 8:8:8:8
    addressMapping: mappingFromString('dramid@8;00000000.00000000.00000000.00000000.0000RRRR.RRRRRRRR.BBBCCCCB.CCSSSSSS'), // GAP
    partitionIndexing: 'consecutive',
  },
  dram: {
    chipsPerPartition: 2, // GAP: -gpgpu_n_mem_per_ctrlr 2
    busWidthBytes: 4, // GAP: -gpgpu_dram_buswidth 4
    burstLength: 8, // GAP: -gpgpu_dram_burst_length 8
    dataCommandFreqRatio: 4, // GAP: -dram_data_command_freq_ratio 4 (GDDR5)
    // GAP: -gpgpu_dram_timing_opt (Hynix H5GQ1H24AFR GDDR5)
    ...timingFromString('nbk=16:CCD=2:RRD=6:RCD=12:RAS=28:RP=12:RC=40:CL=12:WL=4:CDLR=5:WR=12:nbkgrp=4:CCDL=3:RTPL=2'),
    scheduler: 'frFcfs', // GAP: -gpgpu_dram_scheduler 1
    schedulerQueueEntries: 16, // GAP: -gpgpu_frfcfs_dram_sched_queue_size 16
    returnQueueEntries: 114, // GAP: -gpgpu_dram_return_queue_size 114
    dualBusInterface: false,
    bankIndexing: 'normal',
    bankGroupIndexing: 'highBits', // GPGPU-Sim default (TeslaC2050 silent)
    writeQueue: { enabled: false, entries: 32, highWatermark: 28, lowWatermark: 16 },
  },
  kernel: {
    launchLatencyCycles: 0,
    ctaLaunchLatencyCycles: 0,
    maxConcurrentKernels: 8, // GPGPU-Sim default
    concurrentKernelsPerSm: false, // chapter 5's intra-SM sharing is a kernel-scheduler policy on top
  },
  power: placeholderPower,
};
