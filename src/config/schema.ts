/**
 * The GPU configuration: one zod schema for the whole machine (DESIGN.md §6).
 *
 * Every field says its unit in `.describe()` and, in its TSDoc, the GPGPU-Sim / Accel-Sim option
 * it mirrors, so a `gpgpusim.config` maps onto it one option at a time (see
 * `gpgpusim-import.ts`). Objects are strict: an unknown key is an error, never silently ignored.
 *
 * Conventions:
 * - Cycle counts are in the clock domain of the unit that spends them (core cycles for the SM
 *   and L1s, interconnect cycles for the network, DRAM command-clock cycles for DRAM timing),
 *   except where a field says otherwise (GPGPU-Sim's ROP and DRAM latencies are core cycles).
 * - Sizes are in bytes; counts of buffer slots are "entries".
 * - Policies are chosen by name (`kind`) from registries that later issues extend; the enums
 *   here list what exists today.
 *
 * Sources: GPGPU-Sim 4.x option definitions (gpu-sim.cc, shader.cc, gpu-cache.h, addrdec.cc,
 * local_interconnect.cc), the papers' configuration tables (PRESETS.md), and the CUDA occupancy
 * calculator for allocation granularities.
 */
import { z } from 'zod';
import { extensionsSchema } from './extensions.ts';

/**
 * Integers of a GPU config. Every field is bounded to what a real GPU and a run can have
 * (issue 9: `sm.count=1e12` must be a clean input error, not a memory blow-up); the default
 * bound is 1e9, and the fields that size per-SM or per-run arrays have tighter ones below.
 */
const posInt = (max = 1e9) => z.int().min(1).max(max);
const nonNegInt = (max = 1e9) => z.int().min(0).max(max);
const isPow2 = (n: number): boolean => Number.isInteger(n) && n > 0 && (n & (n - 1)) === 0;

// ---------------------------------------------------------------------------------------------
// Clocks
// ---------------------------------------------------------------------------------------------

/**
 * Clock domains, mirroring `-gpgpu_clock_domains <core>:<icnt>:<l2>:<dram>` (MHz).
 *
 * `dram` is the DRAM *command* clock, as in GPGPU-Sim: data moves at
 * `dram.dataCommandFreqRatio` transfers per command cycle (4 for GDDR5, 2 for HBM/DDR). Paper
 * tables often quote GDDR5's data clock WCK = 2 x command clock (Tesla M2090 "1850 MHz" is a
 * 925 MHz command clock). For Fermi configs GPGPU-Sim halves the core clock (1400 -> 700 MHz)
 * because it executes a whole warp per cycle on 16-lane pipelines.
 */
export const clocksSchema = z.strictObject({
  /** SM (shader core) clock; first field of `-gpgpu_clock_domains`. */
  core: z.number().positive().describe('SM core clock (MHz)'),
  /** Interconnect clock; second field of `-gpgpu_clock_domains`. */
  icnt: z.number().positive().describe('interconnect clock (MHz)'),
  /** L2 / memory-partition clock; third field of `-gpgpu_clock_domains`. */
  l2: z.number().positive().describe('L2 cache clock (MHz)'),
  /** DRAM command clock; fourth field of `-gpgpu_clock_domains`. */
  dram: z.number().positive().describe('DRAM command clock (MHz); data rate = this x dram.dataCommandFreqRatio'),
});

// ---------------------------------------------------------------------------------------------
// Functional units, operand collectors, opcode latencies
// ---------------------------------------------------------------------------------------------

/**
 * One kind of execution pipeline in an SM. `count` mirrors `-gpgpu_num_<kind>_units`; the two
 * widths are the pipeline-register widths of `-gpgpu_pipeline_widths` (ID_OC_<kind>,
 * OC_EX_<kind>): how many warp instructions can wait between issue and operand collection, and
 * between operand collection and execution. As in GPGPU-Sim, each unit accepts one warp
 * instruction per initiation interval (see {@link opcodeTimingSchema}).
 */
export const functionalUnitSchema = z.strictObject({
  /** `-gpgpu_num_sp_units`, `-gpgpu_num_dp_units`, ... (0 = absent). */
  count: nonNegInt(4096).describe('number of units of this kind per SM (units; at most 4096, the SM model\'s bound)'),
  /** ID_OC_<kind> entry of `-gpgpu_pipeline_widths`. */
  idOcWidth: nonNegInt().describe('issue -> operand-collector pipeline register (entries)'),
  /** OC_EX_<kind> entry of `-gpgpu_pipeline_widths`. */
  ocExWidth: nonNegInt().describe('operand-collector -> execute pipeline register (entries)'),
});

/**
 * The SM's execution pipelines. Routing follows GPGPU-Sim 4.x: with `dp.count = 0` double
 * precision runs on the SFU pipeline, with `int.count = 0` integer ops run on the SP pipeline,
 * and tensor ops need `tensor.count > 0`. GPGPU-Sim has exactly one LD/ST unit.
 */
export const functionalUnitsSchema = z.strictObject({
  /** Single-precision ALUs: `-gpgpu_num_sp_units`, widths ID_OC_SP / OC_EX_SP. */
  sp: functionalUnitSchema,
  /** Double-precision units: `-gpgpu_num_dp_units`, widths ID_OC_DP / OC_EX_DP. */
  dp: functionalUnitSchema,
  /** Integer units: `-gpgpu_num_int_units`, widths ID_OC_INT / OC_EX_INT. */
  int: functionalUnitSchema,
  /** Special-function units: `-gpgpu_num_sfu_units`, widths ID_OC_SFU / OC_EX_SFU. */
  sfu: functionalUnitSchema,
  /** Tensor cores: `-gpgpu_num_tensor_core_units` (0 unless `-gpgpu_tensor_core_avail 1`). */
  tensor: functionalUnitSchema,
  /** Load/store unit (one in GPGPU-Sim), widths ID_OC_MEM / OC_EX_MEM. */
  lsu: functionalUnitSchema,
  /** EX_WB entry of `-gpgpu_pipeline_widths`: results written back per cycle. */
  exWbWidth: posInt().describe('execute -> write-back pipeline register (entries)'),
});

/** Collector units and ports of one operand-collector set. */
export const collectorSetSchema = z.strictObject({
  /** `-gpgpu_operand_collector_num_units_<set>`. */
  units: nonNegInt().describe('collector units (units)'),
  /** `-gpgpu_operand_collector_num_in_ports_<set>`. */
  inPorts: nonNegInt().describe('input ports from issue (ports)'),
  /** `-gpgpu_operand_collector_num_out_ports_<set>`. */
  outPorts: nonNegInt().describe('output ports to execute (ports)'),
});

/**
 * Register file banks and operand collectors (GPGPU-Sim's `opndcoll_rfu_t`). With
 * `specialized` the per-pipeline sets (sp, dp, sfu, int, tensor, mem) are used; otherwise the
 * generic set `gen` serves every pipeline (Volta/Pascal sub-core configs).
 */
export const operandCollectorSchema = z.strictObject({
  /** `-gpgpu_num_reg_banks`. */
  regBanks: posInt().describe('register file banks per SM (banks)'),
  /** `-gpgpu_reg_file_port_throughput`. */
  regFilePorts: posInt().describe('register file ports per bank per cycle (ports)'),
  /** `-gpgpu_enable_specialized_operand_collector`. */
  specialized: z.boolean().describe('true: one collector set per pipeline; false: the generic set'),
  /** Per-set collector units and ports (`-gpgpu_operand_collector_num_*_<set>`). */
  sets: z.strictObject({
    sp: collectorSetSchema,
    dp: collectorSetSchema,
    sfu: collectorSetSchema,
    int: collectorSetSchema,
    tensor: collectorSetSchema,
    mem: collectorSetSchema,
    gen: collectorSetSchema,
  }),
});

/** Latency and initiation interval of one opcode class. */
export const opTimingSchema = z.strictObject({
  /** Entry of `-ptx_opcode_latency_<type>`. */
  latency: posInt(4096).describe('cycles from issue to result (core cycles; at most 4096, the SM model\'s bound)'),
  /** Entry of `-ptx_opcode_initiation_<type>`. */
  initiation: posInt(1 << 20).describe('cycles before the unit accepts the next instruction (core cycles; at most 2^20)'),
});

const fpClassesShape = {
  /** ADD entry: add/sub and the other simple ALU operations GPGPU-Sim times like add. */
  add: opTimingSchema,
  /** MAX entry: min/max. */
  max: opTimingSchema,
  /** MUL entry: mul. */
  mul: opTimingSchema,
  /** MAD entry: mad/fma. */
  mad: opTimingSchema,
  /** DIV entry: div/rem. */
  div: opTimingSchema,
};

/**
 * Per-opcode-class latency and initiation interval, mirroring GPGPU-Sim's
 * `-ptx_opcode_latency_{int,fp,dp,sfu,tesnor}` and `-ptx_opcode_initiation_{int,fp,dp,sfu,tensor}`.
 * The int/fp/dp options are comma lists in the order ADD,MAX,MUL,MAD,DIV(,SHFL): position 1 ->
 * `add`, 2 -> `max`, 3 -> `mul`, 4 -> `mad`, 5 -> `div`, 6 (int only) -> `shfl`. The sfu and tensor
 * options are single values.
 */
export const opcodeTimingSchema = z.strictObject({
  /** `-ptx_opcode_latency_int` / `-ptx_opcode_initiation_int` (6 values). */
  int: z.strictObject({ ...fpClassesShape, /** SHFL entry (6th value). */ shfl: opTimingSchema }),
  /** `-ptx_opcode_latency_fp` / `-ptx_opcode_initiation_fp` (5 values). */
  fp: z.strictObject(fpClassesShape),
  /** `-ptx_opcode_latency_dp` / `-ptx_opcode_initiation_dp` (5 values). */
  dp: z.strictObject(fpClassesShape),
  /** `-ptx_opcode_latency_sfu` / `-ptx_opcode_initiation_sfu`: transcendental ops (sin, ex2, rsqrt...). */
  sfu: opTimingSchema,
  /** `-ptx_opcode_latency_tesnor` (sic) / `-ptx_opcode_initiation_tensor`. */
  tensor: opTimingSchema,
});

/**
 * Hardware lane counts per SM as the papers' tables give them (e.g. M2090: 32 ALUs, 16 DP,
 * 4 SFUs, 16 LD/ST). Informational: the timing model uses units and initiation intervals (the
 * GPGPU-Sim convention), while analytical models (GPUDIAG's fu(c), peak-FLOP helpers) use
 * lanes. Counted per core cycle of this config's core clock. Absent in configs imported from
 * GPGPU-Sim, which does not state them.
 */
export const lanesSchema = z.strictObject({
  sp: posInt().optional().describe('single-precision lanes per SM (lanes)'),
  dp: posInt().optional().describe('double-precision lanes per SM (lanes)'),
  int: posInt().optional().describe('integer lanes per SM (lanes)'),
  sfu: posInt().optional().describe('special-function lanes per SM (lanes)'),
  lsu: posInt().optional().describe('load/store lanes per SM (lanes)'),
  tensor: posInt().optional().describe('tensor-core units per SM (units)'),
});

// ---------------------------------------------------------------------------------------------
// SM
// ---------------------------------------------------------------------------------------------

/** One streaming multiprocessor (GPGPU-Sim's shader core) and how many there are. */
export const smSchema = z.strictObject({
  /** `-gpgpu_n_clusters` x `-gpgpu_n_cores_per_cluster`. */
  count: posInt(1024).describe('SMs in the GPU (SMs; at most 1024)'),
  /** `-gpgpu_n_clusters` when clusters hold more than one SM; absent = one SM per cluster. */
  clusters: posInt().optional().describe('SM clusters sharing an interconnect port (clusters); absent = count'),
  /** Second field of `-gpgpu_shader_core_pipeline <threads>:<warpSize>`. */
  warpSize: posInt().describe('threads per warp (lanes)'),
  /** First field of `-gpgpu_shader_core_pipeline`. */
  maxThreads: posInt(8192).describe('resident threads per SM (threads; at most 8192)'),
  /** `-gpgpu_shader_cta`. */
  maxCtas: posInt(256).describe('resident CTAs per SM (CTAs; at most 256)'),
  /** Derived by GPGPU-Sim as maxThreads / warpSize; explicit when a paper table gives it. */
  maxWarps: posInt(256).optional().describe('resident warps per SM (warps; at most 256); absent = maxThreads / warpSize'),
  /** `-gpgpu_shader_registers`. */
  registers: posInt(1 << 20).describe('32-bit registers per SM (registers; at most 2^20)'),
  /** `-gpgpu_registers_per_block`. */
  registersPerCta: posInt().describe('registers one CTA may use at most (registers)'),
  /**
   * Register allocation unit per warp (CUDA occupancy calculator "register allocation unit
   * size", warp granularity): a warp's registers, regsPerThread x warpSize, are rounded up to a
   * multiple of this. Calculator values: 64 for compute capability 2.x, 256 for 3.x and later.
   */
  registerAllocUnit: posInt().describe('per-warp register allocation unit (registers)'),
  /**
   * Registers per thread are first rounded up to a multiple of this. GPGPU-Sim rounds to 4
   * (shader.cc, max_cta: `(regs + 3) & ~3`); the occupancy calculator uses 1.
   */
  registerPerThreadGranularity: posInt().describe('per-thread register rounding (registers)'),
  /** `-gpgpu_shmem_size`. */
  sharedMemBytes: nonNegInt(1 << 24).describe('shared memory per SM (bytes; at most 16 MiB)'),
  /** `-gpgpu_shmem_per_block`. */
  sharedMemPerCtaBytes: nonNegInt().describe('shared memory one CTA may use at most (bytes)'),
  /**
   * Shared memory allocation unit (occupancy calculator "shared memory allocation unit size"):
   * 128 bytes for compute capability 2.x, 256 for 3.x and later. GPGPU-Sim does not round.
   */
  sharedMemAllocUnit: posInt().describe('shared memory allocation unit (bytes)'),
  /** `-gpgpu_num_sched_per_core`. */
  schedulers: posInt(32).describe('warp schedulers per SM (schedulers; at most 32)'),
  /**
   * `-gpgpu_max_insn_issue_per_warp`: a scheduler issues up to this many consecutive
   * instructions of the warp it selected in one issue slot (1, or 2 for dual issue).
   */
  issueWidth: posInt().describe('instructions one scheduler issues per issue slot, from one warp (instructions)'),
  /**
   * Cycles between issue slots of one scheduler. 1 in GPGPU-Sim; 2 for the Tesla M2090 of paper
   * 000 Table 3.1 ("1 instruction every 2 cycles" per scheduler at the full 1300 MHz clock).
   */
  issueIntervalCycles: posInt().describe('cycles between issue slots of a scheduler (core cycles)'),
  /** `-gpgpu_dual_issue_diff_exec_units`: dual-issued instructions must use different pipelines. */
  dualIssueDiffUnits: z.boolean().describe('dual issue requires two different execution pipelines'),
  /** GPGPU-Sim fetches 16 bytes (two 8-byte instructions) per fetch. */
  fetchWidth: posInt().describe('instructions brought by one fetch (instructions)'),
  /** `-gpgpu_inst_fetch_throughput`. */
  fetchThroughput: posInt().describe('fetches per cycle (fetches)'),
  /** GPGPU-Sim decodes the two fetched instructions together. */
  decodeWidth: posInt().describe('instructions decoded per cycle (instructions)'),
  /** GPGPU-Sim's per-warp ibuffer holds 2 instructions; SOCGPU (paper 002) uses 8. */
  iBufferEntries: posInt(256).describe('instruction buffer entries per warp (entries; at most 256)'),
  /** `-gpgpu_sub_core_model`: schedulers own private register banks and units (Volta/Pascal). */
  subCoreModel: z.boolean().describe('sub-core model: each scheduler has its own units and register banks'),
  /** Execution pipelines (`-gpgpu_pipeline_widths`, `-gpgpu_num_*_units`). */
  units: functionalUnitsSchema,
  /** Operand collectors and register banks; absent = no operand-collector stage modelled. */
  operandCollector: operandCollectorSchema.optional(),
  /** Per-opcode-class latency and initiation interval. */
  opcodeTiming: opcodeTimingSchema,
  /** Hardware lanes per SM from paper tables (informational). */
  lanes: lanesSchema.optional(),
});

// ---------------------------------------------------------------------------------------------
// Policies
// ---------------------------------------------------------------------------------------------

/**
 * `idleStates` of the two-level policies (C11 of `specs/warp-level.md` §4): the scheduler
 * idle-time states (000 §3.5.3) and stall kinds (004 Fig. 3) are classified over every live warp
 * of the scheduler (`supervised`; absent = `supervised`, today's numbers) or over the warps the
 * policy offered that cycle, its ready queue (`considered`, as GPGPU-Sim's `shader_cycle_distro`
 * and so 000 Fig. 3.8). Warp states (000 §5.3) are always over every warp.
 */
const idleStatesSchema = z
  .enum(['supervised', 'considered'])
  .optional()
  .describe('scheduler idle-time states and stall kinds over every live warp (supervised; default) or over the ready queue (considered, GPGPU-Sim / 000 Fig. 3.8)');

/**
 * Warp scheduler policy, mirroring `-gpgpu_scheduler`: `lrr` (loose round robin), `gto`
 * (greedy then oldest), `old` -> `oldest` (oldest first), and
 * `two_level_active:<n>:0:1` -> `twoLevelGpgpusim` (GPGPU-Sim's own two-list scheduler, the 2-LV
 * baseline of paper 004: an active list of `readyQueueSize` warps in loose round robin, refilled
 * unchecked from the front of the pending list; GPGPU-Sim implements no other inner/outer codes).
 * `twoLevel` is paper 000's three-queue scheduler (Fig. 3.6: ready queue of `readyQueueSize`
 * warps ordered by `inner`, active queue ordered by `outer`, pending queue); it has no GPGPU-Sim
 * option. `pats`/`patsTwoLevel` are paper 000's phase-aware schedulers, `elf` paper 004's earliest
 * load first (its fields drive the static pass, `staticAnalysisOptions`).
 */
export const warpSchedulerSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('lrr').describe('loose round robin') }),
  z.strictObject({ kind: z.literal('gto').describe('greedy then oldest') }),
  z.strictObject({ kind: z.literal('oldest').describe('oldest first') }),
  z.strictObject({
    kind: z.literal('twoLevel').describe('two-level of paper 000 Fig. 3.6: ready queue (fetch group), active queue and pending queue'),
    readyQueueSize: posInt().describe('warps in the ready (active) queue, i.e. fetch group size (warps)'),
    inner: z.enum(['rr', 'gto']).describe('policy inside the ready queue'),
    outer: z.enum(['rr', 'gto']).describe('policy refilling the ready queue from pending warps'),
    idleStates: idleStatesSchema,
  }),
  z.strictObject({
    kind: z.literal('twoLevelGpgpusim').describe("GPGPU-Sim's two_level_active:<n>:0:1: active list + pending list, inner loose / outer strict round robin"),
    readyQueueSize: posInt().describe('warps in the active list, GPGPU-Sim m_max_active_warps (warps)'),
    idleStates: idleStatesSchema,
  }),
  z.strictObject({
    kind: z.literal('pats').describe('single-level phase-aware scheduling of paper 000 §3.4.2.2: lowest phase distance of the next instruction first, then oldest'),
    ...phaseAnalysisFields(),
  }),
  z.strictObject({
    kind: z.literal('patsTwoLevel').describe('two-level phase-aware scheduling of paper 000 §3.4.2.2 (Fig. 3.6 queues; active queue sorted on arrival by phase length)'),
    readyQueueSize: posInt().describe('warps in the ready (active) queue, i.e. fetch group size (warps)'),
    inner: z.enum(['rr', 'gto']).default('rr').describe('policy inside the ready queue (spec R-P8: rr, as for the two-level baselines)'),
    key: z.enum(['length', 'distance']).default('length').describe("active-queue sort key: length of the next instruction's phase (000 §3.4.2.2, default) or its phase distance"),
    idleStates: idleStatesSchema,
    ...phaseAnalysisFields(),
  }),
  z.strictObject({
    kind: z.literal('elf').describe('ELF, earliest load first, of paper 004 §3: lowest warp priority (instructions to the next memory load, WPT) first, ties greedy then oldest (spec R-E1)'),
    programPoints: posInt(65536).default(32).describe('program-point slots of the priority calculator (points; 004 §4: 32; Fig. 9(a) sweeps 16, 32, 48 and infinite: 65536)'),
    scoreBits: posInt(16).default(8).describe('bits of the score field and of a WPT entry (bits; 004 §4: 8, priorities saturate at 255)'),
    branches: z.enum(['backward', 'all']).default('backward').describe('branches that are program points (004 §3.1: backward only)'),
    recalcRule: z.enum(['consistent', 'literal', 'always']).default('consistent').describe("when a branch recalculates the priority (spec §2.6 R-E3): consistent (default: when the outcome leaves the path the calculator assumed), literal (004 §3.2 as written), always (every issue, Fig. 8's naive scheme)"),
  }),
]);

/** Fields of the phase analysis the PATS policies read (spec R-P2, R-P3). */
function phaseAnalysisFields() {
  return {
    phaseLatency: z
      .enum(['pipeline', 'unit'])
      .default('pipeline')
      .describe('instruction latencies of phase lengths: pipeline = max(issue interval, the opcode class latency) for ALU classes, the issue interval for the rest (spec R-P2); unit = 1 per instruction'),
    maxPhaseDistance: posInt().optional().describe('saturate phase distances and lengths at this many cycles (spec R-P3: 511 models a 9-bit opcode field; default none)'),
  };
}

/**
 * A policy of the SM Work Manager, chosen by name from its registry (`src/model/smwm/registry.ts`):
 * `{ kind, ...parameters }`. The kind and the parameters are checked against the registry entry
 * when the GPU is built (so a policy added by its own folder needs no edit here).
 */
const smwmPolicySchema = (family: string, dflt: string) =>
  z.looseObject({ kind: z.string().min(1).describe(`${family} policy name (registry ${family}; default ${dflt})`) });

/** CTA scheduler (000 §2.2.2): `roundRobin` (default), `fixedLimit {ctasPerSm}`; later Perf-Sat, DYNCTA. */
export const ctaSchedulerSchema = smwmPolicySchema('ctaScheduler', 'roundRobin');

/** Kernel scheduler: `inOrder` (default); later left-over, spatial, interleaved, Warped-Slicer. */
export const kernelSchedulerSchema = smwmPolicySchema('kernelScheduler', 'inOrder');

/** Active-core policy (000 §4.4): `all` (default), `fixed {count}`, `gateIdle`; later ONAC, Seq-Det. */
export const activeCoresSchema = smwmPolicySchema('activeCores', 'all');

/**
 * L1I prefetcher (paper 004 §3.5; specs/warp-level.md R-E9): `none`, or `nextLine`: on a demand
 * access to line X, line X+1 is fetched when it is neither present nor pending and the L1I and
 * L1D together hold fewer than `mshrThreshold` occupied MSHRs (004: 16; 0 turns it off, Fig. 9(b)).
 */
export const l1iPrefetchSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('none').describe('no prefetch') }),
  z.strictObject({
    kind: z.literal('nextLine').describe('next-line prefetch gated by MSHR occupancy (004 §3.5)'),
    mshrThreshold: z.int().min(0).max(1024).default(16).describe('prefetch only while the occupied MSHRs of L1I + L1D are fewer than this (entries; 004: 16)'),
  }),
]);

/**
 * Fetch scheduling (specs/warp-level.md C9; registry `src/model/sm/fetch-policy.ts`): `rr`
 * (round robin over the warps with a fetch request, GPGPU-Sim's fetch stage; the default) or
 * `warpPriority` (the lowest fetch priority the warp scheduler policy stamps on a request first:
 * ELF's coordinated fetch, 004 §3.1).
 */
export const fetchSchedulerSchema = z.strictObject({
  kind: z.enum(['rr', 'warpPriority']).describe('fetch scheduling policy: rr (default) or warpPriority (in the warp scheduler policy\'s fetch priority order, ELF)'),
});

/** Memory-instruction issue policy (paper 001). Later issues add RBMI, QBMI, SMIL, DMIL. */
export const memoryIssueSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('none').describe('no memory-issue control') }),
]);

/** The policy chosen for each scheduling level (DESIGN.md §6: chosen by name from registries). */
export const policiesSchema = z.strictObject({
  /** `-gpgpu_scheduler`. */
  warpScheduler: warpSchedulerSchema,
  ctaScheduler: ctaSchedulerSchema,
  kernelScheduler: kernelSchedulerSchema,
  /** Absent = `{ kind: 'all' }`. */
  activeCores: activeCoresSchema.optional(),
  memoryIssue: memoryIssueSchema,
  /** Absent = `{ kind: 'rr' }`. */
  fetchScheduler: fetchSchedulerSchema.optional(),
});

// ---------------------------------------------------------------------------------------------
// Caches
// ---------------------------------------------------------------------------------------------

/**
 * Geometry and policies of one cache, mirroring a GPGPU-Sim cache string
 * `<type>:<sets>:<lineBytes>:<ways>,<repl>:<write>:<alloc>:<writeAlloc>:<setIndex>,<mshrType>:<mshrEntries>:<mshrMaxMerge>,<missQueue>[:<resultFifo>][,<dataPort>]`
 * (gpu-cache.h `cache_config::init`; parsed by `parseGpgpusimCacheString`).
 */
const cacheGeometryShape = {
  /** `<sets>`. */
  sets: posInt(1 << 20).describe('sets (sets; at most 2^20)'),
  /** `<assoc>`. */
  ways: posInt(1024).describe('associativity (ways; at most 1024)'),
  /** `<bsize>`. */
  lineBytes: posInt(1 << 20).describe('line size (bytes; a power of two, at most 1 MiB)'),
  /** Type `S` (sectored): GPGPU-Sim's 32-byte sectors. Absent = type `N` (whole lines). */
  sectorBytes: posInt().optional().describe('sector size of a sectored cache (bytes); absent = not sectored'),
  /** `<rep>`: `L` LRU, `F` FIFO. */
  replacement: z.enum(['lru', 'fifo']).describe('replacement policy'),
  /** `<wr>`: `R` read-only, `B` write-back, `T` write-through, `E` write-evict, `L` local write-back / global write-through. */
  writePolicy: z.enum(['readOnly', 'writeBack', 'writeThrough', 'writeEvict', 'localWbGlobalWt']).describe('write policy'),
  /** `<alloc>`: `m` allocate a line on miss, `f` on fill, `s` streaming (on fill, MSHR per line). */
  allocation: z.enum(['onMiss', 'onFill', 'streaming']).describe('when a line is allocated'),
  /** `<wr_alloc>`: `N` no write-allocate, `W` write-allocate, `F` fetch-on-write, `L` lazy fetch-on-read. */
  writeAllocate: z
    .enum(['noWriteAllocate', 'writeAllocate', 'fetchOnWrite', 'lazyFetchOnRead'])
    .describe('write-miss allocation policy'),
  /** `<set_index_fn>`: `L` linear, `X` bitwise xor, `H` Fermi hash, `P` IPOLY hash, `C` custom. */
  setIndex: z.enum(['linear', 'xor', 'fermiHash', 'ipoly', 'custom']).describe('set index function'),
  /** `<mshr>`: `A` associative, `S` sector-associative, `F` texture FIFO, `T` sector texture FIFO. */
  mshrType: z.enum(['assoc', 'sectorAssoc', 'texFifo', 'sectorTexFifo']).describe('MSHR organisation'),
  /** `<N>`: MSHR entries (fragment FIFO entries for texture caches). */
  mshrEntries: posInt(1 << 16).describe('MSHR entries (entries; at most 65536)'),
  /** `<merge>`: requests merged into one MSHR entry (request FIFO entries for texture caches). */
  mshrMaxMerge: posInt().describe('requests merged per MSHR entry (requests)'),
  /** `<mq>`: miss queue towards the next level (reorder buffer entries for texture caches). */
  missQueueEntries: posInt(1 << 16).describe('miss queue entries (entries; at most 65536)'),
  /** `<fifo_entry>`: result FIFO of texture caches; 0 otherwise. */
  resultFifoEntries: nonNegInt().describe('texture result FIFO entries (entries); 0 = none'),
  /** `<data_port_width>`; GPGPU-Sim's 0 means one line per cycle. */
  dataPortBytes: posInt().describe('data array port width (bytes per cycle)'),
  /** Hit latency; `-gpgpu_l1_latency` for the L1D, 1 elsewhere (see each cache). */
  latencyCycles: posInt().describe('hit latency (cycles of the cache clock)'),
};

function checkCacheGeometry(g: z.infer<z.ZodObject<typeof cacheGeometryShape>>, ctx: z.RefinementCtx): void {
  if (!isPow2(g.lineBytes)) ctx.addIssue({ code: 'custom', path: ['lineBytes'], message: `line size ${g.lineBytes} is not a power of two` });
  if (!isPow2(g.sets)) ctx.addIssue({ code: 'custom', path: ['sets'], message: `set count ${g.sets} is not a power of two` });
  if (g.sectorBytes !== undefined && g.lineBytes % g.sectorBytes !== 0) {
    ctx.addIssue({ code: 'custom', path: ['sectorBytes'], message: `sector size ${g.sectorBytes} does not divide the line size ${g.lineBytes}` });
  }
  if (g.lineBytes % g.dataPortBytes !== 0) {
    ctx.addIssue({ code: 'custom', path: ['dataPortBytes'], message: `data port width ${g.dataPortBytes} does not divide the line size ${g.lineBytes}` });
  }
  // The same two configurations GPGPU-Sim refuses (gpu-cache.h, cache_config::init).
  if (g.allocation !== 'onMiss' && g.writePolicy === 'writeBack') {
    ctx.addIssue({ code: 'custom', path: ['allocation'], message: 'a write-back cache must allocate on miss (allocating on fill can deadlock on write-backs)' });
  }
  if (g.allocation !== 'onMiss' && (g.writeAllocate === 'fetchOnWrite' || g.writeAllocate === 'lazyFetchOnRead')) {
    ctx.addIssue({ code: 'custom', path: ['writeAllocate'], message: `${g.writeAllocate} needs allocation onMiss` });
  }
}

/** A cache (see the field list above); every cache in the config uses it. */
export const cacheGeometrySchema = z.strictObject(cacheGeometryShape).superRefine(checkCacheGeometry);

/**
 * Re-execution queue for L1D requests that were not accepted (reservation failure: MSHRs or miss
 * queue full ...). `none` (also when absent): the failed request blocks the L1D input, GPGPU-Sim's
 * behaviour and the baseline's "memory conflict" (paper 004 Fig. 3). `newcar`: ELF's NewCAR
 * (paper 004 §3.4, Figs. 5-6; spec `warp-level.md` §2.5 E, §2.7): a queue of `entries` (default
 * 32) the failed request moves into while the next one is looked up, with the per-warp ordering
 * rules of Fig. 6. No GPGPU-Sim option.
 */
export const reexecQueueSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('none').describe('a failed request blocks the L1D input (GPGPU-Sim baseline)') }),
  z.strictObject({
    kind: z.literal('newcar').describe('paper 004 §3.4 NewCAR re-execution queue'),
    entries: posInt(1024).optional().describe('queue entries (entries; at most 1024); default 32 (004 §3.4)'),
    choice: z.enum(['rewind', 'rotate', 'oldest']).optional().describe('queued request re-executed each cycle: next allowed to leave after a rotating cursor put back to the oldest when the cache frees an MSHR or miss-queue slot (rewind; default), the same without putting back (rotate), or the oldest allowed to leave (oldest, spec R-E7: in effect FIFO)'),
  }),
]);

/**
 * The L1 data cache: a {@link cacheGeometrySchema} (`-gpgpu_cache:dl1`, hit latency
 * `-gpgpu_l1_latency`) plus its banks, the global-bypass switch and the re-execution queue.
 */
export const l1dSchema = z
  .strictObject({
    ...cacheGeometryShape,
    /** `-gpgpu_l1_banks`. */
    banks: posInt().describe('L1D banks (banks)'),
    /** `-gpgpu_gmem_skip_L1D`: global accesses bypass the L1D (like `-Xptxas -dlcm=cg`). */
    skipGlobal: z.boolean().describe('global loads bypass the L1D'),
    /** Absent = `{ kind: 'none' }` (paper 004 NewCAR off). */
    reexecQueue: reexecQueueSchema.optional().describe('re-execution queue for requests with a reservation failure: none (block the input; default) or newcar (paper 004 §3.4)'),
  })
  .superRefine(checkCacheGeometry);

/** Shared memory banks and timing (its size is `sm.sharedMemBytes`). */
export const sharedMemSchema = z.strictObject({
  /** `-gpgpu_shmem_num_banks`. */
  banks: posInt(1024).describe('shared memory banks (banks; at most 1024)'),
  /** `-gpgpu_smem_latency` (older name `-smem_latency`). */
  latencyCycles: posInt().describe('access latency without bank conflicts (core cycles)'),
  /** `-gpgpu_shmem_limited_broadcast`. */
  limitedBroadcast: z.boolean().describe('at most one broadcast word per cycle'),
  /** `-gpgpu_shmem_warp_parts`. */
  // A power of two up to 32, as the bank model needs (found by the fuzz suite: `-gpgpu_shmem_warp_parts 3`
  // passed here and failed the run with exit 3).
  warpParts: posInt(32)
    .refine(isPow2, { message: 'must be a power of two (1, 2, 4, 8, 16 or 32)' })
    .describe('parts a warp is split into for bank-conflict checks (parts; a power of two, at most 32)'),
});

// ---------------------------------------------------------------------------------------------
// Interconnect, memory partitions, DRAM
// ---------------------------------------------------------------------------------------------

/**
 * The SM <-> memory-partition network. GPGPU-Sim runs either BookSim (`-network_mode 1`, the
 * `.icnt` file) or its local crossbar (`-network_mode 2`, `-icnt_*` options); both shared
 * configs describe a single-stage crossbar.
 */
export const interconnectSchema = z.strictObject({
  topology: z.enum(['crossbar']).describe('network topology'),
  /** `-icnt_flit_size` (local crossbar) or `flit_size` in the BookSim file. */
  flitBytes: posInt().describe('flit size (bytes)'),
  /**
   * Traversal latency of an uncontended packet head. GPGPU-Sim has no such option: from the
   * BookSim file it is routing_delay + vc_alloc_delay + sw_alloc_delay + 1 link cycle; the local
   * crossbar moves a granted packet in 1 cycle.
   */
  latencyCycles: posInt().describe('head traversal latency (interconnect cycles)'),
  /** `-icnt_in_buffer_limit` (local crossbar) or `vc_buf_size` x `num_vcs` (BookSim). */
  inputBufferEntries: posInt(1 << 16).describe('buffer at each input port (entries; at most 65536)'),
  /** `-icnt_out_buffer_limit`. */
  outputBufferEntries: posInt().describe('buffer at each output port (entries)'),
  /** `-icnt_arbiter_algo` 0 -> roundRobin, 1 -> islip (BookSim `sw_allocator = islip`). */
  arbitration: z.enum(['roundRobin', 'islip']).describe('output arbitration'),
  /** `-icnt_subnets` / BookSim `subnets`: 2 = separate request and response networks. */
  subnets: z.int().min(1).max(2).describe('1 = shared network, 2 = separate request and response networks'),
  /** `-gpgpu_n_cluster_ejection_buffer_size`. */
  ejectionBufferEntries: posInt().describe('packets buffered where the network ejects into an SM cluster (entries)'),
});

/**
 * A GPGPU-Sim address mapping (`-gpgpu_mem_addr_mapping`), parsed into the address bits of each
 * field, least significant first (see `address-mapping.ts`). `columnBits` includes the burst
 * bits (`S`), as GPGPU-Sim's decoder packs them into both.
 */
export const addressMappingSchema = z.strictObject({
  /**
   * `dramid@<bit>`: the channel id is inserted at this address bit (log2(channels) bits; the
   * other fields' bits at or above it move up). null = the channel bits are the `D` bits.
   */
  dramIdStartBit: z.int().min(0).max(63).nullable().describe('bit where the channel id is inserted (bit), or null'),
  /** `D` bits. */
  channelBits: z.array(z.int().min(0).max(63)).describe('channel (chip) id bits (bit positions)'),
  /** `B` bits. */
  bankBits: z.array(z.int().min(0).max(63)).describe('bank bits (bit positions)'),
  /** `R` bits. */
  rowBits: z.array(z.int().min(0).max(63)).describe('row bits (bit positions)'),
  /** `C` and `S` bits. */
  columnBits: z.array(z.int().min(0).max(63)).describe('column bits, burst bits included (bit positions)'),
  /** `S` bits. */
  burstBits: z.array(z.int().min(0).max(63)).describe('byte-within-burst bits (bit positions)'),
});

/** Memory partitions (channels): each has `subPartitions` L2 slices and one DRAM controller. */
export const memPartitionsSchema = z.strictObject({
  /** `-gpgpu_n_mem`. */
  count: posInt(1024).describe('memory partitions = DRAM channels (partitions; at most 1024)'),
  /** `-gpgpu_n_sub_partition_per_mchannel` (a power of two). */
  subPartitions: posInt(64).describe('L2 sub-partitions per partition (sub-partitions; at most 64)'),
  /** `-gpgpu_l2_rop_latency` (older name `-rop_latency`); GPGPU-Sim counts it in core cycles. */
  ropLatencyCycles: nonNegInt().describe('ROP delay before an L2 access (core cycles)'),
  /** `-dram_latency`; GPGPU-Sim counts it in core cycles. */
  dramLatencyCycles: nonNegInt().describe('fixed delay added to every DRAM access (core cycles)'),
  /** `-gpgpu_dram_partition_queues <icnt->L2>:<L2->DRAM>:<DRAM->L2>:<L2->icnt>`. */
  queues: z.strictObject({
    icntToL2: posInt().describe('interconnect -> L2 queue (entries)'),
    l2ToDram: posInt().describe('L2 -> DRAM queue (entries)'),
    dramToL2: posInt().describe('DRAM -> L2 queue (entries)'),
    l2ToIcnt: posInt().describe('L2 -> interconnect queue (entries)'),
  }),
  /** `-gpgpu_mem_addr_mapping`. */
  addressMapping: addressMappingSchema,
  /**
   * `-gpgpu_memory_partition_indexing` (older `-memory_partition_indexing`): 0 consecutive,
   * 1 xor, 2 ipoly, 3 pae, 4 random, 5 custom.
   */
  partitionIndexing: z.enum(['consecutive', 'xor', 'ipoly', 'pae', 'random', 'custom']).describe('channel hash'),
});

/** DRAM timing in command-clock cycles; keys of `-gpgpu_dram_timing_opt` (JEDEC names). */
export const dramTimingSchema = z.strictObject({
  /** `CCD`: column to column, different bank group. */
  tCCD: nonNegInt().describe('column-to-column delay (DRAM cycles)'),
  /** `RRD`: activate to activate, different banks. */
  tRRD: nonNegInt().describe('row-to-row activate delay (DRAM cycles)'),
  /** `RCD`: activate to column command. */
  tRCD: nonNegInt().describe('row-to-column delay (DRAM cycles)'),
  /** `RAS`: activate to precharge. */
  tRAS: nonNegInt().describe('row active time (DRAM cycles)'),
  /** `RP`: precharge to activate. */
  tRP: nonNegInt().describe('row precharge time (DRAM cycles)'),
  /** `RC`: activate to activate, same bank. */
  tRC: nonNegInt().describe('row cycle time (DRAM cycles)'),
  /** `CL`: read column command to data. */
  tCL: nonNegInt().describe('CAS (read) latency (DRAM cycles)'),
  /** `WL`: write column command to data. */
  tWL: nonNegInt().describe('write latency (DRAM cycles)'),
  /** `CDLR`: last write data to read command. */
  tCDLR: nonNegInt().describe('write-to-read turnaround (DRAM cycles)'),
  /** `WR`: last write data to precharge. */
  tWR: nonNegInt().describe('write recovery (DRAM cycles)'),
  /** `CCDL`: column to column, same bank group (0 without bank groups). */
  tCCDL: nonNegInt().describe('column-to-column delay, same bank group (DRAM cycles)'),
  /** `RTPL`: read to precharge, same bank group (0 without bank groups). */
  tRTPL: nonNegInt().describe('read-to-precharge delay, same bank group (DRAM cycles)'),
});

/** DRAM chips and controller of one memory partition. */
export const dramSchema = z.strictObject({
  /** `-gpgpu_n_mem_per_ctrlr`. */
  chipsPerPartition: posInt().describe('DRAM chips per partition, side by side on the bus (chips)'),
  /** `-gpgpu_dram_buswidth`. */
  busWidthBytes: posInt().describe('data bus width of one chip (bytes)'),
  /** `-gpgpu_dram_burst_length`. */
  burstLength: posInt().describe('data beats per access (beats)'),
  /** `-dram_data_command_freq_ratio`: 4 for GDDR5 (QDR), 2 for DDR/HBM. */
  dataCommandFreqRatio: posInt().describe('data transfers per command-clock cycle (transfers)'),
  /**
   * `nbk` in `-gpgpu_dram_timing_opt`. The address mapping must have enough bank bits; when it
   * decodes more bank ids than there are banks (e.g. `onac32`: 4 bits, 6 banks) the bank is the
   * decoded id modulo `banks`.
   */
  banks: posInt(1024).describe('banks per chip (banks; at most 1024)'),
  /** `nbkgrp` in `-gpgpu_dram_timing_opt` (1 = no bank groups). */
  bankGroups: posInt().describe('bank groups per chip (groups)'),
  /** The other keys of `-gpgpu_dram_timing_opt`. */
  timing: dramTimingSchema,
  /** `-gpgpu_dram_scheduler`: 0 fifo, 1 frFcfs. */
  scheduler: z.enum(['frFcfs', 'fifo']).describe('DRAM request scheduler'),
  /** `-gpgpu_frfcfs_dram_sched_queue_size` (0 = unlimited). */
  schedulerQueueEntries: nonNegInt(1 << 20).describe('scheduler queue per chip (entries; at most 2^20); 0 = unlimited'),
  /** `-gpgpu_dram_return_queue_size` (0 = unlimited). */
  returnQueueEntries: nonNegInt().describe('return queue per chip (entries); 0 = unlimited'),
  /** `-dram_dual_bus_interface` (HBM issues a row and a column command per cycle). */
  dualBusInterface: z.boolean().describe('separate row and column command buses'),
  /** `-dram_bnk_indexing_policy`: 0 normal, 1 xor with higher bits. */
  bankIndexing: z.enum(['normal', 'xor']).describe('bank index function'),
  /** `-dram_bnkgrp_indexing_policy`: 0 higher bank bits, 1 lower bank bits. */
  bankGroupIndexing: z.enum(['highBits', 'lowBits']).describe('which bank bits select the bank group'),
  /** `-dram_seperate_write_queue_enable` and `-dram_write_queue_size <size>:<high>:<low>`. */
  writeQueue: z.strictObject({
    enabled: z.boolean().describe('writes wait in their own queue and drain between watermarks'),
    entries: posInt().describe('write queue size (entries)'),
    highWatermark: nonNegInt().describe('start draining writes at this occupancy (entries)'),
    lowWatermark: nonNegInt().describe('stop draining writes at this occupancy (entries)'),
  }),
});

/** Kernel-level limits and delays. */
export const kernelSchema = z.strictObject({
  /** `-gpgpu_kernel_launch_latency`. */
  launchLatencyCycles: nonNegInt().describe('delay from launch to the first CTA dispatch (core cycles)'),
  /** `-gpgpu_TB_launch_latency`. */
  ctaLaunchLatencyCycles: nonNegInt().describe('delay to launch each CTA (core cycles)'),
  /** `-gpgpu_max_concurrent_kernel`. */
  maxConcurrentKernels: posInt().describe('kernels resident on the GPU at once (kernels)'),
  /** `-gpgpu_concurrent_kernel_sm`. */
  concurrentKernelsPerSm: z.boolean().describe('CTAs of different kernels may share an SM'),
});

/**
 * Static and dynamic power parameters for the energy model (paper 000 §4.4.4: static power of
 * active vs power-gated SMs, dynamic energy per operation). There is no calibrated source in the
 * papers; presets carry {@link placeholderPower}, whose `placeholder: true` marks the numbers as
 * order-of-magnitude guesses that must not be reported as absolute energy.
 */
export const powerSchema = z.strictObject({
  /** true = the numbers are uncalibrated placeholders. */
  placeholder: z.boolean().describe('true when the values are uncalibrated placeholders'),
  smStaticWatts: z.number().nonnegative().describe('static power of one active SM (W)'),
  smGatedStaticWatts: z.number().nonnegative().describe('residual static power of a power-gated SM (W)'),
  uncoreStaticWatts: z.number().nonnegative().describe('static power of L2, interconnect and memory controllers (W)'),
  dramStaticWattsPerPartition: z.number().nonnegative().describe('DRAM background power per partition (W)'),
  /** Dynamic energy per warp-level event. */
  energyPj: z.strictObject({
    intOp: z.number().nonnegative().describe('integer warp instruction (pJ)'),
    fpOp: z.number().nonnegative().describe('single-precision warp instruction (pJ)'),
    dpOp: z.number().nonnegative().describe('double-precision warp instruction (pJ)'),
    sfuOp: z.number().nonnegative().describe('special-function warp instruction (pJ)'),
    tensorOp: z.number().nonnegative().describe('tensor-core warp instruction (pJ)'),
    regFileAccess: z.number().nonnegative().describe('register file access of a warp operand (pJ)'),
    l1dAccess: z.number().nonnegative().describe('L1D access (pJ)'),
    sharedMemAccess: z.number().nonnegative().describe('shared memory access (pJ)'),
    l2Access: z.number().nonnegative().describe('L2 access (pJ)'),
    icntFlit: z.number().nonnegative().describe('one flit through the interconnect (pJ)'),
    dramAccess32B: z.number().nonnegative().describe('32 bytes read or written in DRAM (pJ)'),
  }),
});

// ---------------------------------------------------------------------------------------------
// The whole GPU
// ---------------------------------------------------------------------------------------------

const gpuConfigObject = z.strictObject({
  /** Preset or config name. */
  name: z.string().min(1).describe('configuration name'),
  /** One line saying what machine this is. */
  description: z.string().optional().describe('what machine this configuration models'),
  /** Where the values come from (paper tables, config files). */
  sources: z.array(z.string()).optional().describe('sources of the values'),
  clocks: clocksSchema,
  sm: smSchema,
  policies: policiesSchema,
  /** `-gpgpu_cache:il1`. */
  l1i: cacheGeometrySchema.extend({
    prefetch: l1iPrefetchSchema.optional().describe('L1I prefetcher (absent = none)'),
  }),
  /** `-gpgpu_cache:dl1`, `-gpgpu_l1_latency`, `-gpgpu_l1_banks`, `-gpgpu_gmem_skip_L1D`. */
  l1d: l1dSchema,
  sharedMem: sharedMemSchema,
  /** `-gpgpu_cache:dl2`: one L2 slice per memory sub-partition. */
  l2: cacheGeometrySchema,
  /** `-gpgpu_const_cache:l1`; absent = no constant cache. */
  constCache: cacheGeometrySchema.optional(),
  /** `-gpgpu_tex_cache:l1`; absent = no texture cache. */
  texCache: cacheGeometrySchema.optional(),
  interconnect: interconnectSchema,
  memPartitions: memPartitionsSchema,
  dram: dramSchema,
  kernel: kernelSchema,
  /** Absent = no energy model. */
  power: powerSchema.optional(),
  /** Blocks spliced into the GPU by config alone (`src/config/extensions.ts`). */
  extensions: extensionsSchema,
});

/** The whole GPU, as validated by {@link gpuConfigSchema}. */
export type GpuConfig = z.infer<typeof gpuConfigObject>;
/** A cache's geometry and policies. */
export type CacheGeometry = z.infer<typeof cacheGeometrySchema>;
/** The L1D: a cache geometry plus banks and the global bypass. */
export type L1dConfig = z.infer<typeof l1dSchema>;
/** Parsed `-gpgpu_mem_addr_mapping`. */
export type AddressMapping = z.infer<typeof addressMappingSchema>;
/** DRAM timing (command-clock cycles). */
export type DramTiming = z.infer<typeof dramTimingSchema>;
/** Warp scheduler policy. */
export type WarpSchedulerPolicy = z.infer<typeof warpSchedulerSchema>;
/** One execution pipeline kind. */
export type FunctionalUnit = z.infer<typeof functionalUnitSchema>;
/** Latency and initiation interval of one opcode class. */
export type OpTiming = z.infer<typeof opTimingSchema>;
/** Power parameters. */
export type PowerConfig = z.infer<typeof powerSchema>;

function checkGpu(c: GpuConfig, ctx: z.RefinementCtx): void {
  const { sm } = c;
  if (sm.maxThreads % sm.warpSize !== 0) {
    ctx.addIssue({ code: 'custom', path: ['sm', 'maxThreads'], message: `${sm.maxThreads} threads is not a whole number of ${sm.warpSize}-thread warps` });
  }
  if (sm.clusters !== undefined && sm.count % sm.clusters !== 0) {
    ctx.addIssue({ code: 'custom', path: ['sm', 'clusters'], message: `${sm.count} SMs cannot be split evenly into ${sm.clusters} clusters` });
  }
  for (const kind of ['sp', 'dp', 'int', 'sfu', 'tensor', 'lsu'] as const) {
    const u = sm.units[kind];
    if (u.count > 0 && (u.idOcWidth === 0 || u.ocExWidth === 0)) {
      ctx.addIssue({ code: 'custom', path: ['sm', 'units', kind], message: `${u.count} ${kind} unit(s) need non-zero pipeline widths (idOcWidth ${u.idOcWidth}, ocExWidth ${u.ocExWidth})` });
    }
  }
  for (const kind of ['sp', 'sfu', 'lsu'] as const) {
    if (sm.units[kind].count === 0) ctx.addIssue({ code: 'custom', path: ['sm', 'units', kind, 'count'], message: `an SM needs at least one ${kind} unit` });
  }
  if ((c.policies.warpScheduler.kind === 'twoLevel' || c.policies.warpScheduler.kind === 'twoLevelGpgpusim' || c.policies.warpScheduler.kind === 'patsTwoLevel') && c.policies.warpScheduler.readyQueueSize > maxWarpsPerSm(c)) {
    ctx.addIssue({ code: 'custom', path: ['policies', 'warpScheduler', 'readyQueueSize'], message: `ready queue of ${c.policies.warpScheduler.readyQueueSize} warps exceeds the ${maxWarpsPerSm(c)} warps of an SM` });
  }
  const mp = c.memPartitions;
  if (!isPow2(mp.subPartitions)) {
    ctx.addIssue({ code: 'custom', path: ['memPartitions', 'subPartitions'], message: `${mp.subPartitions} sub-partitions is not a power of two` });
  }
  const am = mp.addressMapping;
  const fields: [keyof AddressMapping, number[]][] = [
    ['channelBits', am.channelBits],
    ['bankBits', am.bankBits],
    ['rowBits', am.rowBits],
    ['columnBits', am.columnBits],
  ];
  const owner = new Map<number, string>();
  for (const [field, bits] of fields) {
    for (const b of bits) {
      const prev = owner.get(b);
      if (prev !== undefined) ctx.addIssue({ code: 'custom', path: ['memPartitions', 'addressMapping', field], message: `address bit ${b} is in both ${prev} and ${field}` });
      owner.set(b, field);
    }
  }
  for (const b of am.burstBits) {
    if (!am.columnBits.includes(b)) ctx.addIssue({ code: 'custom', path: ['memPartitions', 'addressMapping', 'burstBits'], message: `burst bit ${b} must also be a column bit` });
  }
  if (am.dramIdStartBit !== null && am.channelBits.length > 0) {
    ctx.addIssue({ code: 'custom', path: ['memPartitions', 'addressMapping', 'channelBits'], message: 'give the channel either as dramid@<bit> or as D bits, not both' });
  }
  if (am.dramIdStartBit === null && 2 ** am.channelBits.length !== mp.count) {
    ctx.addIssue({ code: 'custom', path: ['memPartitions', 'addressMapping', 'channelBits'], message: `${am.channelBits.length} channel bits address ${2 ** am.channelBits.length} channels, not ${mp.count}` });
  }
  const d = c.dram;
  if (2 ** am.bankBits.length < d.banks) {
    ctx.addIssue({ code: 'custom', path: ['memPartitions', 'addressMapping', 'bankBits'], message: `${am.bankBits.length} bank bits cannot address ${d.banks} banks` });
  }
  if (d.banks % d.bankGroups !== 0) {
    ctx.addIssue({ code: 'custom', path: ['dram', 'bankGroups'], message: `${d.banks} banks cannot be split evenly into ${d.bankGroups} bank groups` });
  } else if (d.bankGroups > 1 && (!isPow2(d.banks) || !isPow2(d.bankGroups))) {
    // The bank-group index is a bit field of the bank number (GPGPU-Sim's dram.cc).
    ctx.addIssue({ code: 'custom', path: ['dram', 'banks'], message: `${d.banks} banks in ${d.bankGroups} bank groups: both must be powers of two` });
  }
  if (d.writeQueue.lowWatermark > d.writeQueue.highWatermark || d.writeQueue.highWatermark > d.writeQueue.entries) {
    ctx.addIssue({ code: 'custom', path: ['dram', 'writeQueue'], message: 'write queue watermarks must satisfy low <= high <= entries' });
  }
}

/**
 * The zod schema of a whole GPU configuration: strict objects, units in every `.describe()`,
 * and cross-field checks (warp multiples, cluster split, pipeline widths of present units,
 * address-mapping bits disjoint and matching the channel count, bank groups dividing banks).
 * Use {@link parseGpuConfig} to get an `InputError` instead of a zod error.
 */
export const gpuConfigSchema = gpuConfigObject.superRefine(checkGpu);

// ---------------------------------------------------------------------------------------------
// Derived quantities
// ---------------------------------------------------------------------------------------------

/** Resident warps per SM: `sm.maxWarps`, or `maxThreads / warpSize` as GPGPU-Sim derives it. */
export function maxWarpsPerSm(config: GpuConfig): number {
  return config.sm.maxWarps ?? Math.floor(config.sm.maxThreads / config.sm.warpSize);
}

/** Capacity of one cache: sets x ways x lineBytes (bytes). */
export function cacheSizeBytes(cache: CacheGeometry | L1dConfig): number {
  return cache.sets * cache.ways * cache.lineBytes;
}

/** L2 sub-partitions in the GPU: partitions x sub-partitions per partition. */
export function totalL2Slices(config: GpuConfig): number {
  return config.memPartitions.count * config.memPartitions.subPartitions;
}

/** Total L2 capacity: one `l2` slice per memory sub-partition (bytes). */
export function l2TotalBytes(config: GpuConfig): number {
  return cacheSizeBytes(config.l2) * totalL2Slices(config);
}

/**
 * Peak DRAM bandwidth (bytes per second) = partitions x chips per partition x chip bus width x
 * transfers per command cycle x command clock. GTX480: 6 x 2 x 4 B x 4 x 924 MHz = 177.4 GB/s
 * (paper 004 Table 1).
 */
export function peakDramBandwidthBytesPerSec(config: GpuConfig): number {
  const { dram } = config;
  return (
    config.memPartitions.count *
    dram.chipsPerPartition *
    dram.busWidthBytes *
    dram.dataCommandFreqRatio *
    config.clocks.dram *
    1e6
  );
}

/**
 * Peak floating-point rate (FLOP/s) from the paper lane counts: lanes x 2 (a fused multiply-add
 * counts as two operations) x SMs x core clock. M2090 single precision: 32 x 2 x 16 x 1300 MHz =
 * 1331 GFLOP/s (paper 000 Table 3.1: 1330). Returns undefined when `sm.lanes` lacks the kind.
 */
export function peakFlopsPerSec(config: GpuConfig, precision: 'sp' | 'dp'): number | undefined {
  const lanes = config.sm.lanes?.[precision];
  if (lanes === undefined) return undefined;
  return lanes * 2 * config.sm.count * config.clocks.core * 1e6;
}

/**
 * Number of CTAs of one kernel that fit on one SM at once: N_slot of GPUDIAG (paper 003 §3.1,
 * eq. 3.3), the four resource checks of paper 000 §2.2.2. It is the minimum over the CTA slot,
 * thread, warp, register and shared memory limits, with the configured allocation granularities
 * (registers per warp, shared memory per CTA). A CTA breaking a per-CTA limit (threads,
 * `registersPerCta`, `sharedMemPerCtaBytes`) fits 0 times.
 * @param threadsPerCta threads in one CTA (>= 1)
 * @param regsPerThread registers per thread (>= 0)
 * @param sharedBytesPerCta static + dynamic shared memory of one CTA (bytes, >= 0)
 * @returns 0 when one CTA does not fit at all
 */
export function ctasPerSm(config: GpuConfig, threadsPerCta: number, regsPerThread: number, sharedBytesPerCta: number): number {
  const { sm } = config;
  const warps = Math.ceil(threadsPerCta / sm.warpSize);
  const roundUp = (x: number, unit: number): number => Math.ceil(x / unit) * unit;
  const regsPerWarp = roundUp(roundUp(regsPerThread, sm.registerPerThreadGranularity) * sm.warpSize, sm.registerAllocUnit);
  const regsPerCta = regsPerWarp * warps;
  const smem = sharedBytesPerCta === 0 ? 0 : roundUp(sharedBytesPerCta, sm.sharedMemAllocUnit);
  if (threadsPerCta > sm.maxThreads || regsPerCta > sm.registersPerCta || sharedBytesPerCta > sm.sharedMemPerCtaBytes) return 0;
  let n = Math.min(sm.maxCtas, Math.floor(sm.maxThreads / (warps * sm.warpSize)), Math.floor(maxWarpsPerSm(config) / warps));
  if (regsPerCta > 0) n = Math.min(n, Math.floor(sm.registers / regsPerCta));
  if (smem > 0) n = Math.min(n, Math.floor(sm.sharedMemBytes / smem));
  return n;
}
