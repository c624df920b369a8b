/**
 * `gtx1080ti`: the GTX 1080 Ti-like baseline of paper 002 (SOCGPU), Table 5.1. Values marked
 * `T5.1` are from the table; `GAP` values come from Accel-Sim's
 * `tested-cfgs/SM6_TITANX/gpgpusim.config` (Pascal GP102, the chip of the GTX 1080 Ti), quoting
 * its option.
 *
 * Reading of Table 5.1:
 * - "SP/SFU/MEM units per sub-core 4/4/1": these are Accel-Sim's `-gpgpu_num_sp_units 4` and
 *   `-gpgpu_num_sfu_units 4` for the whole SM (its sub-core model gives each of the 4 schedulers
 *   one SP and one SFU unit) and its single LD/ST unit; we use 4 / 4 / 1 per SM.
 * - "L1/Shared cache size 12 KB/32 KB (as printed)": a 12 KiB L1D (4 sets x 24 ways x 128 B,
 *   keeping TITANX's 4 sets) and 32 KiB of shared memory.
 * - 8 collector units per SM: the generic operand collector set (TITANX: 8 units, 8/8 ports).
 * - Baseline instruction buffer 2 entries, fetch brings 2 instructions (PRESETS.md).
 * Clocks: 1480 MHz core (T5.1); interconnect and L2 at the core clock as in TITANX (GAP); DRAM
 * command clock 2500 MHz (GAP, GDDR5X).
 * Channel hashing: TITANX uses random partition indexing (`-gpgpu_memory_partition_indexing 4`,
 * a table of rand() channel picks). warpstate models only consecutive and xor channel hashing
 * (`addressMapParams` in src/topology/gpu.ts), and xor needs a power-of-two channel count, which
 * T5.1's 11 partitions are not; so channels are consecutive.
 * Operand collector: TITANX does not set the SP and SFU collector sets, so they keep GPGPU-Sim's
 * defaults (4 units, 1 in / 1 out port each); with `-gpgpu_enable_specialized_operand_collector 0`
 * GPGPU-Sim does not build them anyway.
 */
import type { GpuConfig } from '../schema.ts';
import { cacheFromString, l1dFromString, mappingFromString, timingFromString } from './build.ts';
import { placeholderPower } from './placeholder-power.ts';

/** GTX 1080 Ti-like Pascal GPU of paper 002 Table 5.1. */
export const gtx1080ti: GpuConfig = {
  name: 'gtx1080ti',
  description: 'GTX 1080 Ti-like Pascal GPU of paper 002 (SOCGPU) Table 5.1',
  sources: ['papers/002 Table 5.1', 'data/gpgpusim-configs/tested-cfgs/SM6_TITANX/gpgpusim.config (gaps)'],
  clocks: { core: 1480, icnt: 1480, l2: 1480, dram: 2500 }, // T5.1 clock 1480 MHz; icnt/L2 GAP (= core); DRAM GAP
  sm: {
    count: 28, // T5.1 28 SMs
    warpSize: 32, // T5.1 warp width 32
    maxThreads: 2048, // 64 warps x 32 (GAP: -gpgpu_shader_core_pipeline 2048:32)
    maxCtas: 32, // GAP: -gpgpu_shader_cta 32
    maxWarps: 64, // T5.1 64 warps per SM
    registers: 65536, // T5.1 65536 registers per SM
    registersPerCta: 65536, // GAP: -gpgpu_registers_per_block (compute capability 6.1 limit)
    registerAllocUnit: 256, // occupancy calculator, compute capability 6.x
    registerPerThreadGranularity: 4, // GPGPU-Sim max_cta rounding
    sharedMemBytes: 32768, // T5.1 shared memory 32 KB
    sharedMemPerCtaBytes: 32768, // at most the SM's 32 KB (cc 6.1 allows 48 KB per CTA)
    sharedMemAllocUnit: 256, // occupancy calculator, compute capability 6.x
    schedulers: 4, // T5.1 4 sub-cores x 1 scheduler each
    issueWidth: 2, // T5.1 up to 2 instructions issued per warp
    issueIntervalCycles: 1,
    dualIssueDiffUnits: true, // GAP: -gpgpu_dual_issue_diff_exec_units 1
    fetchWidth: 2, // PRESETS.md: baseline fetch brings 2 instructions
    fetchThroughput: 4, // T5.1 instruction fetch throughput 4
    decodeWidth: 2,
    iBufferEntries: 2, // PRESETS.md: baseline instruction buffer 2 entries (SOCGPU: 8)
    subCoreModel: true, // T5.1 4 sub-cores (GAP: -gpgpu_sub_core_model 1)
    // GAP: -gpgpu_pipeline_widths 4,0,0,4,4,4,0,0,4,4,8
    units: {
      sp: { count: 4, idOcWidth: 4, ocExWidth: 4 }, // T5.1 SP 4
      dp: { count: 0, idOcWidth: 0, ocExWidth: 0 },
      int: { count: 0, idOcWidth: 0, ocExWidth: 0 },
      sfu: { count: 4, idOcWidth: 4, ocExWidth: 4 }, // T5.1 SFU 4
      tensor: { count: 0, idOcWidth: 1, ocExWidth: 1 },
      lsu: { count: 1, idOcWidth: 4, ocExWidth: 4 }, // T5.1 MEM 1
      exWbWidth: 8,
    },
    operandCollector: {
      regBanks: 16, // GAP: -gpgpu_num_reg_banks 16
      regFilePorts: 2, // GAP: -gpgpu_reg_file_port_throughput 2
      specialized: false, // GAP: -gpgpu_enable_specialized_operand_collector 0
      sets: {
        sp: { units: 4, inPorts: 1, outPorts: 1 }, // GPGPU-Sim defaults (TITANX silent)
        dp: { units: 0, inPorts: 0, outPorts: 0 },
        sfu: { units: 4, inPorts: 1, outPorts: 1 }, // GPGPU-Sim defaults (TITANX silent)
        int: { units: 0, inPorts: 0, outPorts: 0 },
        tensor: { units: 4, inPorts: 1, outPorts: 1 },
        mem: { units: 2, inPorts: 1, outPorts: 1 },
        gen: { units: 8, inPorts: 8, outPorts: 8 }, // T5.1 8 collector units per SM; GAP: 8/8 ports
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
      // GAP: -ptx_opcode_latency_fp 4,13,4,4,39 / -ptx_opcode_initiation_fp 1,2,1,1,4
      fp: {
        add: { latency: 4, initiation: 1 },
        max: { latency: 13, initiation: 2 },
        mul: { latency: 4, initiation: 1 },
        mad: { latency: 4, initiation: 1 },
        div: { latency: 39, initiation: 4 },
      },
      // GAP: -ptx_opcode_latency_dp 8,19,8,8,330 / -ptx_opcode_initiation_dp 8,8,8,8,130
      dp: {
        add: { latency: 8, initiation: 8 },
        max: { latency: 19, initiation: 8 },
        mul: { latency: 8, initiation: 8 },
        mad: { latency: 8, initiation: 8 },
        div: { latency: 330, initiation: 130 },
      },
      sfu: { latency: 20, initiation: 4 }, // GAP: -ptx_opcode_latency_sfu 20 / -ptx_opcode_initiation_sfu 4
      tensor: { latency: 64, initiation: 64 },
    },
  },
  policies: {
    warpScheduler: { kind: 'gto' }, // T5.1 issue scheduler policy GTO
    ctaScheduler: { kind: 'roundRobin' },
    kernelScheduler: { kind: 'inOrder' },
    memoryIssue: { kind: 'none' },
  },
  l1i: cacheFromString('N:8:128:4,L:R:f:N:L,S:2:48,4', 1), // GAP: -gpgpu_cache:il1
  // T5.1 L1 12 KB: 4 sets x 24 ways x 128 B; GAP: -gpgpu_cache:dl1 S:4:128:96,L:L:s:N:L,A:256:8,16:0,32 otherwise,
  // -gpgpu_l1_latency 82, -gpgpu_l1_banks 2, -gpgpu_gmem_skip_L1D 1
  l1d: l1dFromString('S:4:128:24,L:L:s:N:L,A:256:8,16:0,32', 82, 2, true),
  sharedMem: { banks: 32, latencyCycles: 24, limitedBroadcast: false, warpParts: 1 }, // GAP: 32 banks, -gpgpu_smem_latency 24
  l2: cacheFromString('S:64:128:16,L:B:m:L:P,A:256:64,16:0,32', 1), // GAP: -gpgpu_cache:dl2 (128 KiB per slice)
  constCache: cacheFromString('N:128:64:2,L:R:f:N:L,S:2:64,4', 1), // GAP
  texCache: cacheFromString('N:16:128:24,L:R:m:N:L,T:128:4,128:2', 1), // GAP
  interconnect: {
    topology: 'crossbar', // GAP: config_pascal_islip.icnt, fly k=52 n=1
    flitBytes: 40, // GAP: flit_size = 40
    latencyCycles: 3, // GAP: router delays 0 + 1 + 1, + 1 link cycle
    inputBufferEntries: 64, // GAP: vc_buf_size = 64
    outputBufferEntries: 64,
    arbitration: 'islip',
    subnets: 2,
    ejectionBufferEntries: 32, // GAP: -gpgpu_n_cluster_ejection_buffer_size 32
  },
  memPartitions: {
    count: 11, // T5.1 11 memory partitions
    subPartitions: 2, // GAP: -gpgpu_n_sub_partition_per_mchannel 2
    ropLatencyCycles: 120, // GAP: -gpgpu_l2_rop_latency 120
    dramLatencyCycles: 100, // GAP: -dram_latency 100
    queues: { icntToL2: 32, l2ToDram: 32, dramToL2: 32, l2ToIcnt: 32 }, // GAP: -gpgpu_dram_partition_queues 32:32:32:32
    addressMapping: mappingFromString('dramid@8;00000000.00000000.00000000.00000000.0000RRRR.RRRRRRRR.RBBBCCCC.BCCSSSSS'), // GAP
    partitionIndexing: 'consecutive', // see module comment
  },
  dram: {
    chipsPerPartition: 1, // GAP: -gpgpu_n_mem_per_ctrlr 1
    busWidthBytes: 4, // GAP: -gpgpu_dram_buswidth 4
    burstLength: 8, // GAP: -gpgpu_dram_burst_length 8
    dataCommandFreqRatio: 4, // GAP: GDDR5X is QDR
    ...timingFromString('nbk=16:CCD=2:RRD=8:RCD=16:RAS=37:RP=16:RC=52:CL=16:WL=6:CDLR=7:WR=16:nbkgrp=4:CCDL=4:RTPL=3'), // GAP
    scheduler: 'frFcfs', // GAP: -gpgpu_dram_scheduler 1
    schedulerQueueEntries: 64, // GAP
    returnQueueEntries: 64, // GAP
    dualBusInterface: false,
    bankIndexing: 'normal', // GAP: -dram_bnk_indexing_policy 0
    bankGroupIndexing: 'lowBits', // GAP: -dram_bnkgrp_indexing_policy 1
    writeQueue: { enabled: false, entries: 32, highWatermark: 28, lowWatermark: 16 },
  },
  kernel: {
    launchLatencyCycles: 5000, // GAP: -gpgpu_kernel_launch_latency 5000
    ctaLaunchLatencyCycles: 0,
    maxConcurrentKernels: 8,
    concurrentKernelsPerSm: false,
  },
  power: placeholderPower,
};
