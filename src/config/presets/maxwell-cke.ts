/**
 * `maxwell-cke`: the Maxwell-like concurrent-kernel machine of paper 001 (Dai et al., QBMI/DMIL),
 * Table 1. Values marked `T1` are from the table; `GAP` values come from GPGPU-Sim's
 * `deprecated-cfgs/GeForceGTX750Ti/gpgpusim.config`, quoting its option; `GAP(SM2_GTX480)` marks
 * options GTX750Ti does not set either (taken from the `gtx480` preset).
 *
 * Table 1 -> fields: 16 SMs, SIMD 32, 1.4 GHz; 4 GTO schedulers; per SM 3072 threads, 96 warps,
 * 16 CTAs, 128 MSHRs (the L1D's); L1D 24 KB, 128 B lines, 6-way (32 sets); shared memory 96 KB,
 * 32 banks; unified L2 2048 KB = 16 x 128 KB partitions, 128 B lines, 16-way (64 sets), 128
 * MSHRs; xor set indexing, allocate on miss, LRU; L1D write-evict / no write-allocate ("WEWN"),
 * L2 write-back / write-allocate ("WBWA"); 16x16 crossbar, 32 B flits, 1.4 GHz; 16 DRAM
 * channels, FR-FCFS, 924 MHz.
 *
 * DRAM bandwidth: Table 1 gives "48 bytes/cycle". Split over 16 channels that is 3 bytes per
 * channel, which no DRAM bus width gives; we keep a standard 32-bit GDDR5 channel (4 B, QDR as in
 * GTX750Ti), i.e. 16 x 4 B x 4 x 924 MHz = 236.5 GB/s. Lower `dram.busWidthBytes` or
 * `dram.dataCommandFreqRatio` to study a narrower memory system. (48 B per 924 MHz command cycle
 * x 4 transfers is 177.4 GB/s, GPGPU-Sim's GTX480 memory system: 6 channels x 2 chips x 4 B.)
 *
 * The L1D caches global accesses (`l1d.skipGlobal: false`, where GTX750Ti sets `-gmem_skip_L1D 1`):
 * the paper's memory pipeline stalls are L1D reservation failures of global loads (§2.1, Table 2
 * l1d_miss_rate / l1d_rsfail_rate), which need global loads to go through the L1D.
 */
import type { GpuConfig } from '../schema.ts';
import { cacheFromString, l1dFromString, mappingFromString, timingFromString } from './build.ts';
import { gtx480 } from './gtx480.ts';
import { placeholderPower } from './placeholder-power.ts';

/** Maxwell-like 16-SM GPU of paper 001 Table 1. */
export const maxwellCke: GpuConfig = {
  name: 'maxwell-cke',
  description: 'Maxwell-like 16-SM GPU of paper 001 (QBMI/DMIL) Table 1',
  sources: ['papers/001 Table 1', 'data/gpgpusim-configs/deprecated-cfgs/GeForceGTX750Ti/gpgpusim.config (gaps)'],
  clocks: { core: 1400, icnt: 1400, l2: 1400, dram: 924 }, // T1 1.4 GHz SMs and crossbar, DRAM 924 MHz; L2 GAP (at the core clock)
  sm: {
    count: 16, // T1 16 SMs
    warpSize: 32, // T1 SIMD width 32
    maxThreads: 3072, // T1 3072 threads
    maxCtas: 16, // T1 16 thread blocks
    maxWarps: 96, // T1 96 warps
    registers: 65536, // GAP: -gpgpu_shader_registers 65536
    registersPerCta: 65536, // compute capability 5.x limit
    registerAllocUnit: 256, // occupancy calculator, compute capability 5.x
    registerPerThreadGranularity: 4, // GPGPU-Sim max_cta rounding
    sharedMemBytes: 98304, // T1 96 KB
    sharedMemPerCtaBytes: 49152, // compute capability 5.x limit
    sharedMemAllocUnit: 256, // occupancy calculator, compute capability 5.x
    schedulers: 4, // T1 4 schedulers
    issueWidth: 2, // GAP: -gpgpu_max_insn_issue_per_warp 2
    issueIntervalCycles: 1,
    dualIssueDiffUnits: true,
    fetchWidth: 2,
    fetchThroughput: 1,
    decodeWidth: 2,
    iBufferEntries: 2,
    subCoreModel: false,
    // GAP: -gpgpu_pipeline_widths 2,1,1,2,1,1,2 (ID_OC_SP,ID_OC_SFU,ID_OC_MEM,OC_EX_SP,OC_EX_SFU,OC_EX_MEM,EX_WB)
    units: {
      sp: { count: 8, idOcWidth: 2, ocExWidth: 2 }, // GAP: -gpgpu_num_sp_units 8
      dp: { count: 0, idOcWidth: 0, ocExWidth: 0 },
      int: { count: 0, idOcWidth: 0, ocExWidth: 0 },
      sfu: { count: 32, idOcWidth: 1, ocExWidth: 1 }, // GAP: -gpgpu_num_sfu_units 32
      tensor: { count: 0, idOcWidth: 1, ocExWidth: 1 },
      lsu: { count: 1, idOcWidth: 1, ocExWidth: 1 },
      exWbWidth: 2,
    },
    operandCollector: {
      regBanks: 16, // GAP: -gpgpu_num_reg_banks 16
      regFilePorts: 1,
      specialized: true,
      sets: {
        sp: { units: 6, inPorts: 2, outPorts: 2 }, // GAP
        dp: { units: 0, inPorts: 0, outPorts: 0 },
        sfu: { units: 8, inPorts: 1, outPorts: 1 }, // GAP
        int: { units: 0, inPorts: 0, outPorts: 0 },
        tensor: { units: 4, inPorts: 1, outPorts: 1 },
        mem: { units: 2, inPorts: 1, outPorts: 1 },
        gen: { units: 0, inPorts: 0, outPorts: 0 },
      },
    },
    opcodeTiming: {
      // GAP: -ptx_opcode_latency_int 6,12,13,13,210 / -ptx_opcode_initiation_int 1,1,1,1,4; SHFL GAP(SM2_GTX480)
      int: {
        add: { latency: 6, initiation: 1 },
        max: { latency: 12, initiation: 1 },
        mul: { latency: 13, initiation: 1 },
        mad: { latency: 13, initiation: 1 },
        div: { latency: 210, initiation: 4 },
        shfl: { latency: 32, initiation: 4 },
      },
      // GAP: -ptx_opcode_latency_fp 6,12,6,6,374 / -ptx_opcode_initiation_fp 1,1,1,1,4
      fp: {
        add: { latency: 6, initiation: 1 },
        max: { latency: 12, initiation: 1 },
        mul: { latency: 6, initiation: 1 },
        mad: { latency: 6, initiation: 1 },
        div: { latency: 374, initiation: 4 },
      },
      // GAP: -ptx_opcode_latency_dp 8,19,8,8,330 / -ptx_opcode_initiation_dp 8,16,8,8,130
      dp: {
        add: { latency: 8, initiation: 8 },
        max: { latency: 19, initiation: 16 },
        mul: { latency: 8, initiation: 8 },
        mad: { latency: 8, initiation: 8 },
        div: { latency: 330, initiation: 130 },
      },
      sfu: { latency: 8, initiation: 8 },
      tensor: { latency: 64, initiation: 64 },
    },
  },
  policies: {
    warpScheduler: { kind: 'gto' }, // T1 Greedy-Then-Oldest
    ctaScheduler: { kind: 'roundRobin' },
    kernelScheduler: { kind: 'inOrder' },
    memoryIssue: { kind: 'none' },
  },
  l1i: cacheFromString('4:128:4,L:R:f:N:L,A:2:32,4', 1), // GAP: -gpgpu_cache:il1
  // T1 24 KB / 128 B / 6-way (32 sets), 128 MSHRs, xor, on miss, LRU, write-evict, no write-allocate;
  // GAP: -gpgpu_cache:dl1 32:128:4,L:L:m:N:H,A:32:8,8 for merge 8 and miss queue 8; latency GAP(SM2_GTX480) 35
  l1d: l1dFromString('N:32:128:6,L:E:m:N:X,A:128:8,8', gtx480.l1d.latencyCycles, 1, false), // global loads cached (see module comment)
  sharedMem: { banks: 32, latencyCycles: gtx480.sharedMem.latencyCycles, limitedBroadcast: false, warpParts: 1 }, // T1 32 banks; latency GAP(SM2_GTX480)
  // T1 128 KB per partition / 128 B / 16-way (64 sets), 128 MSHRs, xor, on miss, LRU, write-back, write-allocate;
  // GAP: -gpgpu_cache:dl2 ...,A:32:4,4:0,32 for merge 4, miss queue 4, 32-byte port
  l2: cacheFromString('N:64:128:16,L:B:m:W:X,A:128:4,4:0,32', 1),
  constCache: cacheFromString('64:64:2,L:R:f:N:L,A:2:32,4', 1), // GAP
  texCache: cacheFromString('16:128:32,L:R:m:N:L,F:128:4,128:2', 1), // GAP
  interconnect: {
    topology: 'crossbar', // T1 16x16 crossbar
    flitBytes: 32, // T1 32 B flits
    latencyCycles: 3, // GAP: config_fermi_islip.icnt router delays 0 + 1 + 1, + 1 link cycle
    inputBufferEntries: 8, // GAP: vc_buf_size = 8
    outputBufferEntries: 64,
    arbitration: 'islip', // GAP: sw_allocator = islip
    subnets: 2, // GAP: subnets = 2
    ejectionBufferEntries: 8, // GPGPU-Sim default -gpgpu_n_cluster_ejection_buffer_size 8 (GTX750Ti silent)
  },
  memPartitions: {
    count: 16, // T1 16 memory channels
    subPartitions: 1, // T1 2048 KB / 128 KB per partition = 16 L2 slices (GAP: -gpgpu_n_sub_partition_per_mchannel 1)
    ropLatencyCycles: 150, // GAP: -rop_latency 150
    dramLatencyCycles: 130, // GAP: -dram_latency 130
    queues: { icntToL2: 8, l2ToDram: 8, dramToL2: 8, l2ToIcnt: 8 }, // GPGPU-Sim default 8:8:8:8 (GTX750Ti silent)
    addressMapping: mappingFromString('dramid@8;00000000.00000000.00000000.00000000.0000RRRR.RRRRRRRR.BBBCCCCB.CCSSSSSS'), // GAP
    partitionIndexing: 'consecutive',
  },
  dram: {
    chipsPerPartition: 1, // see module comment
    busWidthBytes: 4, // see module comment
    burstLength: 8, // GAP: -gpgpu_dram_burst_length 8
    dataCommandFreqRatio: 4, // GAP: GDDR5 (QDR)
    ...timingFromString('nbk=16:CCD=2:RRD=6:RCD=12:RAS=28:RP=12:RC=40:CL=12:WL=4:CDLR=5:WR=12:nbkgrp=4:CCDL=3:RTPL=2'), // GAP
    scheduler: 'frFcfs', // T1 FR-FCFS
    schedulerQueueEntries: 16, // GAP: -gpgpu_frfcfs_dram_sched_queue_size 16
    returnQueueEntries: 300, // GAP: -gpgpu_dram_return_queue_size 300
    dualBusInterface: false,
    bankIndexing: 'normal',
    bankGroupIndexing: 'highBits', // GPGPU-Sim default -dram_bnkgrp_indexing_policy 0 (GTX750Ti silent)
    writeQueue: { enabled: false, entries: 32, highWatermark: 28, lowWatermark: 16 },
  },
  kernel: {
    launchLatencyCycles: 0,
    ctaLaunchLatencyCycles: 0,
    maxConcurrentKernels: 8,
    concurrentKernelsPerSm: true, // paper 001 runs kernels side by side inside an SM (intra-SM sharing)
  },
  power: placeholderPower,
};
