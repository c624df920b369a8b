/**
 * `gtx480`: GPGPU-Sim's Fermi GTX480 configuration, `tested-cfgs/SM2_GTX480/gpgpusim.config`
 * (PRESETS.md), written out option by option. Each value names the option it comes from;
 * "GPGPU-Sim default" marks options the file does not set (their default in GPGPU-Sim 4.x
 * gpu-sim.cc / cuda-sim.cc), and "warpstate" marks quantities GPGPU-Sim has no option for.
 *
 * Importing that file with `importGpgpusimConfig` gives this object (the test suite checks it),
 * and this preset is also the base the importer starts from for options a file leaves out.
 *
 * Paper 004 (ELF) Table 1 describes the same machine with a few different cache parameters; see
 * the `gtx480-elf` preset.
 */
import type { GpuConfig } from '../schema.ts';
import { placeholderPower } from './placeholder-power.ts';

/** GPGPU-Sim SM2_GTX480 (Fermi, 15 SMs). */
export const gtx480: GpuConfig = {
  name: 'gtx480',
  description: 'NVIDIA GTX480 (Fermi) as configured by GPGPU-Sim tested-cfgs/SM2_GTX480',
  sources: ['data/gpgpusim-configs/tested-cfgs/SM2_GTX480/gpgpusim.config', 'data/gpgpusim-configs/tested-cfgs/SM2_GTX480/config_fermi_islip.icnt'],
  // -gpgpu_clock_domains 700.0:700.0:700.0:924.0 (core = 1400 MHz / 2: GPGPU-Sim executes a warp per cycle on 16-lane pipelines)
  clocks: { core: 700, icnt: 700, l2: 700, dram: 924 },
  sm: {
    count: 15, // -gpgpu_n_clusters 15 x -gpgpu_n_cores_per_cluster 1
    warpSize: 32, // -gpgpu_shader_core_pipeline 1536:32
    maxThreads: 1536, // -gpgpu_shader_core_pipeline 1536:32
    maxCtas: 8, // -gpgpu_shader_cta 8
    maxWarps: 48, // 1536 / 32 ("This implies a maximum of 48 warps/SM")
    registers: 32768, // -gpgpu_shader_registers 32768
    registersPerCta: 32768, // warpstate: compute capability 2.0 limit (GPGPU-Sim's -gpgpu_registers_per_block default 8192 only feeds cudaGetDeviceProperties)
    registerAllocUnit: 64, // warpstate: occupancy calculator, compute capability 2.x
    registerPerThreadGranularity: 4, // GPGPU-Sim shader.cc max_cta: (regs + 3) & ~3
    sharedMemBytes: 49152, // -gpgpu_shmem_size 49152
    sharedMemPerCtaBytes: 49152, // GPGPU-Sim default -gpgpu_shmem_per_block 49152
    sharedMemAllocUnit: 128, // warpstate: occupancy calculator, compute capability 2.x
    schedulers: 2, // -gpgpu_num_sched_per_core 2
    issueWidth: 1, // -gpgpu_max_insn_issue_per_warp 1
    issueIntervalCycles: 1, // GPGPU-Sim issues every cycle
    dualIssueDiffUnits: true, // GPGPU-Sim default -gpgpu_dual_issue_diff_exec_units 1
    fetchWidth: 2, // GPGPU-Sim fetches 16 bytes = two instructions
    fetchThroughput: 1, // GPGPU-Sim default -gpgpu_inst_fetch_throughput 1
    decodeWidth: 2, // GPGPU-Sim decodes both fetched instructions
    iBufferEntries: 2, // GPGPU-Sim ibuffer: 2 entries per warp
    subCoreModel: false, // GPGPU-Sim default -gpgpu_sub_core_model 0
    // -gpgpu_pipeline_widths 2,0,0,1,1,2,0,0,1,1,2 (11 values: no tensor stages, GPGPU-Sim default widths 1,1 for those)
    units: {
      sp: { count: 2, idOcWidth: 2, ocExWidth: 2 }, // -gpgpu_num_sp_units 2
      dp: { count: 0, idOcWidth: 0, ocExWidth: 0 }, // -gpgpu_num_dp_units 0 (DP runs on the SFU)
      int: { count: 0, idOcWidth: 0, ocExWidth: 0 }, // GPGPU-Sim default -gpgpu_num_int_units 0 (INT runs on SP)
      sfu: { count: 1, idOcWidth: 1, ocExWidth: 1 }, // -gpgpu_num_sfu_units 1
      tensor: { count: 0, idOcWidth: 1, ocExWidth: 1 }, // GPGPU-Sim default -gpgpu_tensor_core_avail 0
      lsu: { count: 1, idOcWidth: 1, ocExWidth: 1 }, // one LD/ST unit
      exWbWidth: 2,
    },
    operandCollector: {
      regBanks: 16, // -gpgpu_num_reg_banks 16
      regFilePorts: 1, // GPGPU-Sim default -gpgpu_reg_file_port_throughput 1
      specialized: true, // GPGPU-Sim default -gpgpu_enable_specialized_operand_collector 1
      sets: {
        sp: { units: 6, inPorts: 2, outPorts: 2 }, // -gpgpu_operand_collector_num_units_sp 6, _in_ports_sp 2, _out_ports_sp 2
        dp: { units: 0, inPorts: 0, outPorts: 0 }, // GPGPU-Sim defaults
        sfu: { units: 8, inPorts: 1, outPorts: 1 }, // -gpgpu_operand_collector_num_units_sfu 8; ports: defaults
        int: { units: 0, inPorts: 0, outPorts: 0 }, // GPGPU-Sim defaults
        tensor: { units: 4, inPorts: 1, outPorts: 1 }, // GPGPU-Sim defaults
        mem: { units: 2, inPorts: 1, outPorts: 1 }, // GPGPU-Sim defaults
        gen: { units: 0, inPorts: 0, outPorts: 0 }, // GPGPU-Sim defaults
      },
    },
    opcodeTiming: {
      // -ptx_opcode_latency_int 4,13,4,5,145,32 / -ptx_opcode_initiation_int 1,2,2,1,8,4
      int: {
        add: { latency: 4, initiation: 1 },
        max: { latency: 13, initiation: 2 },
        mul: { latency: 4, initiation: 2 },
        mad: { latency: 5, initiation: 1 },
        div: { latency: 145, initiation: 8 },
        shfl: { latency: 32, initiation: 4 },
      },
      // -ptx_opcode_latency_fp 4,13,4,5,39 / -ptx_opcode_initiation_fp 1,2,1,1,4
      fp: {
        add: { latency: 4, initiation: 1 },
        max: { latency: 13, initiation: 2 },
        mul: { latency: 4, initiation: 1 },
        mad: { latency: 5, initiation: 1 },
        div: { latency: 39, initiation: 4 },
      },
      // -ptx_opcode_latency_dp 8,19,8,8,330 / -ptx_opcode_initiation_dp 8,16,8,8,130
      dp: {
        add: { latency: 8, initiation: 8 },
        max: { latency: 19, initiation: 16 },
        mul: { latency: 8, initiation: 8 },
        mad: { latency: 8, initiation: 8 },
        div: { latency: 330, initiation: 130 },
      },
      sfu: { latency: 8, initiation: 8 }, // GPGPU-Sim defaults -ptx_opcode_latency_sfu 8 / _initiation_sfu 8
      tensor: { latency: 64, initiation: 64 }, // GPGPU-Sim defaults -ptx_opcode_latency_tesnor 64 / _initiation_tensor 64
    },
  },
  policies: {
    warpScheduler: { kind: 'gto' }, // -gpgpu_scheduler gto
    ctaScheduler: { kind: 'roundRobin' },
    kernelScheduler: { kind: 'inOrder' },
    memoryIssue: { kind: 'none' },
  },
  // -gpgpu_cache:il1 N:4:128:4,L:R:f:N:L,S:2:32,4 (2 KiB)
  l1i: {
    sets: 4, ways: 4, lineBytes: 128,
    replacement: 'lru', writePolicy: 'readOnly', allocation: 'onFill', writeAllocate: 'noWriteAllocate', setIndex: 'linear',
    mshrType: 'sectorAssoc', mshrEntries: 2, mshrMaxMerge: 32, missQueueEntries: 4, resultFifoEntries: 0,
    dataPortBytes: 128,
    latencyCycles: 1, // warpstate: a fetch hit is ready the next cycle, as in GPGPU-Sim
  },
  // -gpgpu_cache:dl1 N:32:128:4,L:L:m:N:H,S:64:8,8 (16 KiB)
  l1d: {
    sets: 32, ways: 4, lineBytes: 128,
    replacement: 'lru', writePolicy: 'localWbGlobalWt', allocation: 'onMiss', writeAllocate: 'noWriteAllocate', setIndex: 'fermiHash',
    mshrType: 'sectorAssoc', mshrEntries: 64, mshrMaxMerge: 8, missQueueEntries: 8, resultFifoEntries: 0,
    dataPortBytes: 128,
    latencyCycles: 35, // -gpgpu_l1_latency 35
    banks: 1, // GPGPU-Sim default -gpgpu_l1_banks 1
    skipGlobal: false, // -gpgpu_gmem_skip_L1D 0
  },
  sharedMem: {
    banks: 32, // -gpgpu_shmem_num_banks 32
    latencyCycles: 26, // -gpgpu_smem_latency 26
    limitedBroadcast: false, // -gpgpu_shmem_limited_broadcast 0
    warpParts: 1, // -gpgpu_shmem_warp_parts 1
  },
  // -gpgpu_cache:dl2 S:64:128:8,L:B:m:L:L,A:256:4,4:0,32 (64 KiB per sub-partition x 12 = 768 KiB)
  l2: {
    sets: 64, ways: 8, lineBytes: 128, sectorBytes: 32,
    replacement: 'lru', writePolicy: 'writeBack', allocation: 'onMiss', writeAllocate: 'lazyFetchOnRead', setIndex: 'linear',
    mshrType: 'assoc', mshrEntries: 256, mshrMaxMerge: 4, missQueueEntries: 4, resultFifoEntries: 0,
    dataPortBytes: 32,
    latencyCycles: 1, // warpstate: tag + data access after the ROP delay (GPGPU-Sim: 1 cycle)
  },
  // -gpgpu_const_cache:l1 N:64:64:2,L:R:f:N:L,S:2:32,4 (8 KiB)
  constCache: {
    sets: 64, ways: 2, lineBytes: 64,
    replacement: 'lru', writePolicy: 'readOnly', allocation: 'onFill', writeAllocate: 'noWriteAllocate', setIndex: 'linear',
    mshrType: 'sectorAssoc', mshrEntries: 2, mshrMaxMerge: 32, missQueueEntries: 4, resultFifoEntries: 0,
    dataPortBytes: 64,
    latencyCycles: 1,
  },
  // -gpgpu_tex_cache:l1 N:4:128:24,L:R:m:N:L,T:128:4,128:2 (12 KiB)
  texCache: {
    sets: 4, ways: 24, lineBytes: 128,
    replacement: 'lru', writePolicy: 'readOnly', allocation: 'onMiss', writeAllocate: 'noWriteAllocate', setIndex: 'linear',
    mshrType: 'sectorTexFifo', mshrEntries: 128, mshrMaxMerge: 4, missQueueEntries: 128, resultFifoEntries: 2,
    dataPortBytes: 128,
    latencyCycles: 1,
  },
  // -network_mode 1 -inter_config_file config_fermi_islip.icnt (BookSim single-stage "fly", k = 27: a crossbar)
  interconnect: {
    topology: 'crossbar',
    flitBytes: 40, // flit_size = 40 (also -icnt_flit_size 40)
    latencyCycles: 3, // routing_delay 0 + vc_alloc_delay 1 + sw_alloc_delay 1 + 1 link cycle
    inputBufferEntries: 64, // vc_buf_size = 64 x num_vcs = 1
    outputBufferEntries: 64, // GPGPU-Sim default -icnt_out_buffer_limit 64
    arbitration: 'islip', // sw_allocator = islip
    subnets: 2, // subnets = 2 (request and reply networks)
    ejectionBufferEntries: 32, // -gpgpu_n_cluster_ejection_buffer_size 32
  },
  memPartitions: {
    count: 6, // -gpgpu_n_mem 6
    subPartitions: 2, // -gpgpu_n_sub_partition_per_mchannel 2
    ropLatencyCycles: 120, // -gpgpu_l2_rop_latency 120
    dramLatencyCycles: 100, // -dram_latency 100
    queues: { icntToL2: 64, l2ToDram: 64, dramToL2: 64, l2ToIcnt: 64 }, // -gpgpu_dram_partition_queues 64:64:64:64
    // -gpgpu_mem_addr_mapping dramid@8;00000000.00000000.00000000.00000000.0000RRRR.RRRRRRRR.BBBCCCCB.CCSSSSSS
    addressMapping: {
      dramIdStartBit: 8,
      channelBits: [],
      bankBits: [8, 13, 14, 15],
      rowBits: [16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27],
      columnBits: [0, 1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12],
      burstBits: [0, 1, 2, 3, 4, 5],
    },
    partitionIndexing: 'consecutive', // -gpgpu_memory_partition_indexing 0
  },
  dram: {
    chipsPerPartition: 2, // -gpgpu_n_mem_per_ctrlr 2
    busWidthBytes: 4, // -gpgpu_dram_buswidth 4
    burstLength: 8, // -gpgpu_dram_burst_length 8
    dataCommandFreqRatio: 4, // -dram_data_command_freq_ratio 4 (GDDR5 is QDR)
    // -gpgpu_dram_timing_opt "nbk=16:CCD=2:RRD=6:RCD=12:RAS=28:RP=12:RC=40:CL=12:WL=4:CDLR=5:WR=12:nbkgrp=4:CCDL=3:RTPL=2"
    banks: 16,
    bankGroups: 4,
    timing: { tCCD: 2, tRRD: 6, tRCD: 12, tRAS: 28, tRP: 12, tRC: 40, tCL: 12, tWL: 4, tCDLR: 5, tWR: 12, tCCDL: 3, tRTPL: 2 },
    scheduler: 'frFcfs', // -gpgpu_dram_scheduler 1
    schedulerQueueEntries: 64, // -gpgpu_frfcfs_dram_sched_queue_size 64
    returnQueueEntries: 116, // -gpgpu_dram_return_queue_size 116
    dualBusInterface: false, // GPGPU-Sim default -dram_dual_bus_interface 0
    bankIndexing: 'normal', // -dram_bnk_indexing_policy 0
    bankGroupIndexing: 'lowBits', // -dram_bnkgrp_indexing_policy 1
    writeQueue: { enabled: false, entries: 32, highWatermark: 28, lowWatermark: 16 }, // GPGPU-Sim defaults (disabled, 32:28:16)
  },
  kernel: {
    launchLatencyCycles: 0, // GPGPU-Sim default -gpgpu_kernel_launch_latency 0
    ctaLaunchLatencyCycles: 0, // GPGPU-Sim default -gpgpu_TB_launch_latency 0
    maxConcurrentKernels: 8, // GPGPU-Sim default -gpgpu_max_concurrent_kernel 8
    concurrentKernelsPerSm: false, // GPGPU-Sim default -gpgpu_concurrent_kernel_sm 0
  },
  power: placeholderPower, // placeholder (GPGPU-Sim uses gpuwattch_gtx480.xml, not imported)
};
