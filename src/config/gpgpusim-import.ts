/**
 * Import of GPGPU-Sim / Accel-Sim `gpgpusim.config` files (DESIGN.md §6).
 *
 * File format: one `-option value` per line; `#` starts a comment (outside quotes); the value is
 * the rest of the line, trimmed, and may contain spaces and commas; a value starting with `"`
 * runs to the closing `"` and may span lines (GPGPU-Sim's DRAM timing strings do). A later line
 * for the same option overrides an earlier one.
 *
 * Every option warpstate models is mapped onto {@link GpuConfig} (the table `HANDLERS` below lists
 * them with the field each sets); every other option is reported in `ignored` with its line.
 * Options a file does not set keep the value of the base configuration, by default the `gtx480`
 * preset, which is GPGPU-Sim's SM2_GTX480 file plus GPGPU-Sim's own defaults for what that file
 * leaves out. GPGPU-Sim has no options for the allocation granularities (`sm.registerAllocUnit`,
 * `sm.registerPerThreadGranularity`, `sm.sharedMemAllocUnit`), the instruction buffer, fetch and
 * decode widths or the issue interval, so those always come from the base. `sm.lanes` is dropped
 * (GPGPU-Sim does not state lanes). For `-network_mode 1` the
 * BookSim file named by `-inter_config_file` is read (relative to the config's directory) for the
 * flit size, buffer depth, subnets, allocator and router delays.
 */
import { readInputText } from '../scenario/yaml-source.ts';

/** Largest gpgpusim.config or BookSim file read, bytes (the copied ones are under 10 KiB). */
const CONFIG_MAX_BYTES = 4 * 1024 * 1024;
import { basename, dirname, resolve } from 'node:path';
import { InputError } from '../errors.ts';
import { leafValues, notModelledReason } from './not-modelled.ts';
import { parseAddressMapping } from './address-mapping.ts';
import { parseGpgpusimCacheString } from './cache-string.ts';
import {
  mergeOpTimings,
  parseBool,
  parseClockDomains,
  parseDramTimingOpt,
  parseOpcodeList,
  parsePipelineWidths,
  parseUint,
  parseUintList,
  parseWarpScheduler,
  type ValueSource,
} from './gpgpusim-values.ts';
import { gtx480 } from './presets/gtx480.ts';
import { gpuConfigSchema, type GpuConfig } from './schema.ts';

/** One `-option value` line of a config file. */
export interface ConfigLine {
  /** Option name with its leading dash, e.g. `-gpgpu_n_mem`. */
  readonly option: string;
  /** Value text (quotes removed; a multi-line quoted value keeps its line breaks). */
  readonly value: string;
  /** 1-based line of the option name. */
  readonly line: number;
}

/** Result of {@link importGpgpusimConfig}. */
export interface GpgpusimImport {
  /** The validated configuration. */
  readonly config: GpuConfig;
  /** Names of the options that were mapped, in file order (each once). */
  readonly mapped: string[];
  /** Mapped options that set fields the model does not read (`src/config/not-modelled.ts`). */
  readonly notModelled: { option: string; line: number; field: string; reason: string }[];
  /** Options warpstate does not model, with the line of their effective occurrence. */
  readonly ignored: { option: string; line: number; value: string }[];
}

/** Options for {@link importGpgpusimConfig}. */
export interface ImportOptions {
  /** Configuration name (default: the name of the file's directory, e.g. `SM7_QV100`). */
  readonly name?: string;
  /** Starting point for options the file does not set (default: the `gtx480` preset). */
  readonly base?: GpuConfig;
}

/**
 * Splits config text into option lines (format in the module comment).
 * @throws InputError for a line that is not `-option value`, or an unterminated quote
 */
export function readConfigLines(text: string, file: string): ConfigLine[] {
  const lines = text.split(/\r?\n/);
  const out: ConfigLine[] = [];
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!;
    const lineNo = i + 1;
    const trimmed = raw.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    const m = /^(-\S+)(?:\s+(.*))?$/.exec(trimmed);
    if (!m) throw new InputError({ file, line: lineNo, column: raw.indexOf(trimmed) + 1 }, `expected '-option value', got '${trimmed}'`);
    const option = m[1]!;
    let rest = (m[2] ?? '').trimStart();
    let value: string;
    if (rest.startsWith('"')) {
      // Quoted: up to the closing quote, possibly on a later line; a comment may follow it.
      let acc = rest.slice(1);
      let j = i;
      while (!acc.includes('"')) {
        j++;
        if (j >= lines.length) throw new InputError({ file, line: lineNo }, 'unterminated quoted value', option);
        acc += '\n' + lines[j]!;
      }
      const close = acc.indexOf('"');
      value = acc.slice(0, close);
      const after = acc.slice(close + 1).trim();
      if (after !== '' && !after.startsWith('#')) throw new InputError({ file, line: j + 1 }, `unexpected text after the quoted value: '${after}'`, option);
      i = j;
    } else {
      const hash = rest.indexOf('#');
      if (hash >= 0) rest = rest.slice(0, hash);
      value = rest.trim();
    }
    out.push({ option, value, line: lineNo });
  }
  return out;
}

type Cfg = GpuConfig;

/** State shared by the option handlers while one file is imported. */
interface Ctx {
  readonly file: string;
  readonly cfg: Cfg;
  /** Which option set which config path (dotted), for errors found by the schema. */
  readonly setBy: Map<string, { option: string; line: number }>;
  /** Values combined after all lines are read. */
  readonly pending: Map<string, ConfigLine>;
}

type Handler = (ctx: Ctx, v: string, src: ValueSource, line: ConfigLine) => void;

function mark(ctx: Ctx, path: string, line: ConfigLine): void {
  ctx.setBy.set(path, { option: line.option, line: line.line });
}

/** Sets a numeric field from an unsigned integer option. */
function uint(path: string, min = 0): Handler {
  return (ctx, v, src, line) => {
    setPath(ctx.cfg, path, parseUint(v, src, min));
    mark(ctx, path, line);
  };
}

/** Sets a boolean field from a 0/1 option. */
function bool(path: string): Handler {
  return (ctx, v, src, line) => {
    setPath(ctx.cfg, path, parseBool(v, src));
    mark(ctx, path, line);
  };
}

/** Maps an integer code to an enum value. */
function code<T extends string>(path: string, values: Record<number, T>): Handler {
  return (ctx, v, src, line) => {
    const n = parseUint(v, src);
    const e = values[n];
    if (e === undefined) {
      throw new InputError(src.where, `value ${n} is not one of ${Object.entries(values).map(([k, x]) => `${k} (${x})`).join(', ')}`, src.option);
    }
    setPath(ctx.cfg, path, e);
    mark(ctx, path, line);
  };
}

/** Defers an option to the finishing step. */
const later: Handler = (ctx, _v, _src, line) => {
  ctx.pending.set(line.option, line);
};

function setPath(obj: object, path: string, value: unknown): void {
  const parts = path.split('.');
  let node = obj as Record<string, unknown>;
  for (let i = 0; i < parts.length - 1; i++) node = node[parts[i]!] as Record<string, unknown>;
  node[parts[parts.length - 1]!] = value;
}

function cacheHandler(key: 'l1i' | 'l1d' | 'l2' | 'constCache' | 'texCache', optional: boolean): Handler {
  return (ctx, v, src, line) => {
    const g = parseGpgpusimCacheString(v, src.where, src.option);
    if (g === 'none') {
      if (!optional) throw new InputError(src.where, `warpstate needs this cache; 'none' is only accepted for the constant and texture caches${key === 'l1d' ? ' (use -gpgpu_gmem_skip_L1D 1 to bypass the L1D for global accesses)' : ''}`, src.option);
      delete (ctx.cfg as Partial<Cfg>)[key];
      mark(ctx, key, line);
      return;
    }
    const prev = ctx.cfg[key] ?? gtx480[key]!;
    const next = { ...prev, ...g };
    if (g.sectorBytes === undefined) delete (next as { sectorBytes?: number }).sectorBytes;
    (ctx.cfg as Record<string, unknown>)[key] = next;
    mark(ctx, key, line);
  };
}

function collector(set: 'sp' | 'dp' | 'sfu' | 'int' | 'tensor' | 'mem' | 'gen', field: 'units' | 'inPorts' | 'outPorts'): Handler {
  return (ctx, v, src, line) => {
    const oc = ensureOperandCollector(ctx.cfg);
    oc.sets[set][field] = parseUint(v, src);
    mark(ctx, `sm.operandCollector.sets.${set}.${field}`, line);
  };
}

function ensureOperandCollector(cfg: Cfg): NonNullable<Cfg['sm']['operandCollector']> {
  if (!cfg.sm.operandCollector) cfg.sm.operandCollector = structuredClone(gtx480.sm.operandCollector!);
  return cfg.sm.operandCollector;
}

function opcodeHandler(type: 'int' | 'fp' | 'dp', which: 'latency' | 'initiation'): Handler {
  return (ctx, v, src, line) => {
    const vals = parseOpcodeList(v, type === 'int' ? 6 : 5, src);
    const table = ctx.cfg.sm.opcodeTiming[type] as Record<string, { latency: number; initiation: number }>;
    const merged = mergeOpTimings(which === 'latency' ? vals : {}, which === 'initiation' ? vals : {}, table);
    ctx.cfg.sm.opcodeTiming[type] = merged as never;
    mark(ctx, `sm.opcodeTiming.${type}`, line);
  };
}

function singleOpHandler(type: 'sfu' | 'tensor', which: 'latency' | 'initiation'): Handler {
  return (ctx, v, src, line) => {
    ctx.cfg.sm.opcodeTiming[type][which] = parseUint(v, src, 1);
    mark(ctx, `sm.opcodeTiming.${type}.${which}`, line);
  };
}

/** Mapped options: option name -> handler. The field each sets is in the handler's path. */
const HANDLERS: Record<string, Handler> = {
  // --- GPU / SM counts and clocks
  '-gpgpu_n_clusters': later,
  '-gpgpu_n_cores_per_cluster': later,
  '-gpgpu_clock_domains': (ctx, v, src, line) => {
    ctx.cfg.clocks = parseClockDomains(v, src);
    mark(ctx, 'clocks', line);
  },
  '-gpgpu_shader_core_pipeline': (ctx, v, src, line) => {
    const [threads, warp] = parseUintList(v, ':', [2], src) as [number, number];
    if (threads < 1 || warp < 1) throw new InputError(src.where, `threads and warp size must be positive, got '${v}'`, src.option);
    ctx.cfg.sm.maxThreads = threads;
    ctx.cfg.sm.warpSize = warp;
    ctx.cfg.sm.maxWarps = Math.floor(threads / warp);
    mark(ctx, 'sm.maxThreads', line);
    mark(ctx, 'sm.warpSize', line);
    mark(ctx, 'sm.maxWarps', line);
  },
  '-gpgpu_shader_cta': uint('sm.maxCtas', 1),
  '-gpgpu_shader_registers': uint('sm.registers', 1),
  '-gpgpu_registers_per_block': uint('sm.registersPerCta', 1),
  '-gpgpu_shmem_size': uint('sm.sharedMemBytes'),
  '-gpgpu_shmem_per_block': uint('sm.sharedMemPerCtaBytes'),
  '-gpgpu_num_sched_per_core': uint('sm.schedulers', 1),
  '-gpgpu_max_insn_issue_per_warp': uint('sm.issueWidth', 1),
  '-gpgpu_dual_issue_diff_exec_units': bool('sm.dualIssueDiffUnits'),
  '-gpgpu_inst_fetch_throughput': uint('sm.fetchThroughput', 1),
  '-gpgpu_sub_core_model': bool('sm.subCoreModel'),
  // --- execution units
  '-gpgpu_pipeline_widths': (ctx, v, src, line) => {
    const w = parsePipelineWidths(v, src);
    const u = ctx.cfg.sm.units;
    const put = (k: 'sp' | 'dp' | 'int' | 'sfu' | 'tensor' | 'lsu', pair: [number, number] | undefined, absent: [number, number] | null): void => {
      const p = pair ?? absent;
      if (p === null) return;
      u[k] = { ...u[k], idOcWidth: p[0], ocExWidth: p[1] };
      mark(ctx, `sm.units.${k}`, line);
    };
    put('sp', w.sp, null);
    put('sfu', w.sfu, null);
    put('lsu', w.mem, null);
    put('dp', w.dp, [0, 0]); // the 7-value (3.x) form has no DP or INT stage
    put('int', w.int, [0, 0]);
    put('tensor', w.tensor, null);
    u.exWbWidth = w.exWb;
    mark(ctx, 'sm.units.exWbWidth', line);
  },
  '-gpgpu_num_sp_units': uint('sm.units.sp.count'),
  '-gpgpu_num_dp_units': uint('sm.units.dp.count'),
  '-gpgpu_num_int_units': uint('sm.units.int.count'),
  '-gpgpu_num_sfu_units': uint('sm.units.sfu.count'),
  '-gpgpu_tensor_core_avail': later,
  '-gpgpu_num_tensor_core_units': later,
  '-ptx_opcode_latency_int': opcodeHandler('int', 'latency'),
  '-ptx_opcode_initiation_int': opcodeHandler('int', 'initiation'),
  '-ptx_opcode_latency_fp': opcodeHandler('fp', 'latency'),
  '-ptx_opcode_initiation_fp': opcodeHandler('fp', 'initiation'),
  '-ptx_opcode_latency_dp': opcodeHandler('dp', 'latency'),
  '-ptx_opcode_initiation_dp': opcodeHandler('dp', 'initiation'),
  '-ptx_opcode_latency_sfu': singleOpHandler('sfu', 'latency'),
  '-ptx_opcode_initiation_sfu': singleOpHandler('sfu', 'initiation'),
  '-ptx_opcode_latency_tesnor': singleOpHandler('tensor', 'latency'), // GPGPU-Sim's spelling
  '-ptx_opcode_initiation_tensor': singleOpHandler('tensor', 'initiation'),
  // --- operand collectors
  '-gpgpu_num_reg_banks': (ctx, v, src, line) => {
    ensureOperandCollector(ctx.cfg).regBanks = parseUint(v, src, 1);
    mark(ctx, 'sm.operandCollector.regBanks', line);
  },
  '-gpgpu_reg_file_port_throughput': (ctx, v, src, line) => {
    ensureOperandCollector(ctx.cfg).regFilePorts = parseUint(v, src, 1);
    mark(ctx, 'sm.operandCollector.regFilePorts', line);
  },
  '-gpgpu_enable_specialized_operand_collector': (ctx, v, src, line) => {
    ensureOperandCollector(ctx.cfg).specialized = parseBool(v, src);
    mark(ctx, 'sm.operandCollector.specialized', line);
  },
  ...Object.fromEntries(
    (['sp', 'dp', 'sfu', 'int', 'tensor_core', 'mem', 'gen'] as const).flatMap((set) => {
      const key = set === 'tensor_core' ? 'tensor' : set;
      return [
        [`-gpgpu_operand_collector_num_units_${set}`, collector(key, 'units')],
        [`-gpgpu_operand_collector_num_in_ports_${set}`, collector(key, 'inPorts')],
        [`-gpgpu_operand_collector_num_out_ports_${set}`, collector(key, 'outPorts')],
      ];
    }),
  ),
  // --- policies
  '-gpgpu_scheduler': (ctx, v, src, line) => {
    ctx.cfg.policies.warpScheduler = parseWarpScheduler(v, src);
    mark(ctx, 'policies.warpScheduler', line);
  },
  // --- caches and shared memory
  '-gpgpu_cache:il1': cacheHandler('l1i', false),
  '-gpgpu_cache:dl1': cacheHandler('l1d', false),
  '-gpgpu_cache:dl2': cacheHandler('l2', false),
  '-gpgpu_const_cache:l1': cacheHandler('constCache', true),
  '-gpgpu_tex_cache:l1': cacheHandler('texCache', true),
  '-gpgpu_l1_latency': uint('l1d.latencyCycles', 1),
  '-l1_latency': uint('l1d.latencyCycles', 1), // older name
  '-gpgpu_l1_banks': uint('l1d.banks', 1),
  '-gpgpu_gmem_skip_L1D': bool('l1d.skipGlobal'),
  '-gmem_skip_L1D': bool('l1d.skipGlobal'), // older name
  '-gpgpu_shmem_num_banks': uint('sharedMem.banks', 1),
  '-gpgpu_smem_latency': uint('sharedMem.latencyCycles', 1),
  '-smem_latency': uint('sharedMem.latencyCycles', 1), // older name
  '-gpgpu_shmem_limited_broadcast': bool('sharedMem.limitedBroadcast'),
  '-gpgpu_shmem_warp_parts': uint('sharedMem.warpParts', 1),
  // --- interconnect
  '-network_mode': later,
  '-inter_config_file': later,
  '-icnt_flit_size': later,
  '-icnt_in_buffer_limit': later,
  '-icnt_out_buffer_limit': uint('interconnect.outputBufferEntries', 1),
  '-icnt_subnets': later,
  '-icnt_arbiter_algo': later,
  '-gpgpu_n_cluster_ejection_buffer_size': uint('interconnect.ejectionBufferEntries', 1),
  // --- memory partitions
  '-gpgpu_n_mem': uint('memPartitions.count', 1),
  '-gpgpu_n_sub_partition_per_mchannel': uint('memPartitions.subPartitions', 1),
  '-gpgpu_l2_rop_latency': uint('memPartitions.ropLatencyCycles'),
  '-rop_latency': uint('memPartitions.ropLatencyCycles'), // older name
  '-dram_latency': uint('memPartitions.dramLatencyCycles'),
  '-gpgpu_dram_partition_queues': (ctx, v, src, line) => {
    const q = parseUintList(v, ':', [4], src);
    if (q.some((x) => x < 1)) throw new InputError(src.where, `queue sizes must be at least 1, got '${v}'`, src.option);
    ctx.cfg.memPartitions.queues = { icntToL2: q[0]!, l2ToDram: q[1]!, dramToL2: q[2]!, l2ToIcnt: q[3]! };
    mark(ctx, 'memPartitions.queues', line);
  },
  '-gpgpu_mem_addr_mapping': (ctx, v, src, line) => {
    ctx.cfg.memPartitions.addressMapping = parseAddressMapping(v, src.where, src.option);
    mark(ctx, 'memPartitions.addressMapping', line);
  },
  '-gpgpu_memory_partition_indexing': code('memPartitions.partitionIndexing', PARTITION_INDEXING()),
  '-memory_partition_indexing': code('memPartitions.partitionIndexing', PARTITION_INDEXING()), // older name
  // --- DRAM
  '-gpgpu_n_mem_per_ctrlr': uint('dram.chipsPerPartition', 1),
  '-gpgpu_dram_buswidth': uint('dram.busWidthBytes', 1),
  '-gpgpu_dram_burst_length': uint('dram.burstLength', 1),
  '-dram_data_command_freq_ratio': uint('dram.dataCommandFreqRatio', 1),
  '-gpgpu_dram_timing_opt': (ctx, v, src, line) => {
    const t = parseDramTimingOpt(v, src);
    if (t.banks !== undefined) ctx.cfg.dram.banks = t.banks;
    if (t.bankGroups !== undefined) ctx.cfg.dram.bankGroups = t.bankGroups;
    ctx.cfg.dram.timing = { ...ctx.cfg.dram.timing, ...t.timing };
    mark(ctx, 'dram.banks', line);
    mark(ctx, 'dram.bankGroups', line);
    mark(ctx, 'dram.timing', line);
  },
  '-gpgpu_dram_scheduler': code('dram.scheduler', { 0: 'fifo', 1: 'frFcfs' }),
  '-gpgpu_frfcfs_dram_sched_queue_size': uint('dram.schedulerQueueEntries'),
  '-gpgpu_dram_return_queue_size': uint('dram.returnQueueEntries'),
  '-dram_dual_bus_interface': bool('dram.dualBusInterface'),
  '-dram_bnk_indexing_policy': code('dram.bankIndexing', { 0: 'normal', 1: 'xor' }),
  '-dram_bnkgrp_indexing_policy': code('dram.bankGroupIndexing', { 0: 'highBits', 1: 'lowBits' }),
  '-dram_seperate_write_queue_enable': bool('dram.writeQueue.enabled'), // GPGPU-Sim's spelling
  '-dram_write_queue_size': (ctx, v, src, line) => {
    const [entries, high, low] = parseUintList(v, ':', [3], src) as [number, number, number];
    ctx.cfg.dram.writeQueue = { ...ctx.cfg.dram.writeQueue, entries, highWatermark: high, lowWatermark: low };
    mark(ctx, 'dram.writeQueue', line);
  },
  // --- kernels
  '-gpgpu_kernel_launch_latency': uint('kernel.launchLatencyCycles'),
  '-gpgpu_TB_launch_latency': uint('kernel.ctaLaunchLatencyCycles'),
  '-gpgpu_max_concurrent_kernel': uint('kernel.maxConcurrentKernels', 1),
  '-gpgpu_concurrent_kernel_sm': bool('kernel.concurrentKernelsPerSm'),
};

function PARTITION_INDEXING(): Record<number, GpuConfig['memPartitions']['partitionIndexing']> {
  return { 0: 'consecutive', 1: 'xor', 2: 'ipoly', 3: 'pae', 4: 'random', 5: 'custom' };
}

/** Names of every option the importer maps (for documentation and tests). */
export const MAPPED_OPTIONS: readonly string[] = Object.keys(HANDLERS);

/** BookSim settings read from an `.icnt` file. */
interface BooksimSettings {
  flitSize?: number;
  vcBufSize?: number;
  numVcs?: number;
  subnets?: number;
  swAllocator?: string;
  delays: number;
}

/** Reads `key = value;` lines (with `//` comments) of a BookSim config. Returns null if unreadable. */
function readBooksim(path: string): BooksimSettings | null {
  let text: string;
  try {
    text = readInputText(path, CONFIG_MAX_BYTES, 'an interconnect config');
  } catch {
    return null;
  }
  const kv = new Map<string, string>();
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/\/\/.*$/, '').trim();
    const m = /^([A-Za-z_][A-Za-z0-9_]*)\s*=\s*([^;]*);?/.exec(line);
    if (m) kv.set(m[1]!, m[2]!.trim());
  }
  const num = (k: string): number | undefined => {
    const v = kv.get(k);
    return v !== undefined && /^\d+$/.test(v) ? Number(v) : undefined;
  };
  return {
    flitSize: num('flit_size'),
    vcBufSize: num('vc_buf_size'),
    numVcs: num('num_vcs'),
    subnets: num('subnets'),
    swAllocator: kv.get('sw_allocator'),
    delays: (num('routing_delay') ?? 0) + (num('vc_alloc_delay') ?? 0) + (num('sw_alloc_delay') ?? 0),
  };
}

/** Combines the deferred options once every line is known. */
function finish(ctx: Ctx, dir: string, ignored: GpgpusimImport['ignored'], mapped: Set<string>): void {
  const { cfg, pending } = ctx;
  const src = (l: ConfigLine): ValueSource => ({ where: { file: ctx.file, line: l.line }, option: l.option });
  const get = (o: string): ConfigLine | undefined => pending.get(o);

  // SM count = clusters x cores per cluster.
  const clusters = get('-gpgpu_n_clusters');
  const perCluster = get('-gpgpu_n_cores_per_cluster');
  if (clusters || perCluster) {
    const nc = clusters ? parseUint(clusters.value, src(clusters), 1) : (cfg.sm.clusters ?? cfg.sm.count);
    const pc = perCluster ? parseUint(perCluster.value, src(perCluster), 1) : cfg.sm.count / (cfg.sm.clusters ?? cfg.sm.count);
    cfg.sm.count = nc * pc;
    if (pc > 1) cfg.sm.clusters = nc;
    else delete cfg.sm.clusters;
    for (const l of [clusters, perCluster]) if (l) mark(ctx, 'sm.count', l);
  }

  // Tensor cores exist only with -gpgpu_tensor_core_avail 1.
  const avail = get('-gpgpu_tensor_core_avail');
  const tensorUnits = get('-gpgpu_num_tensor_core_units');
  if (avail || tensorUnits) {
    const on = avail ? parseBool(avail.value, src(avail)) : cfg.sm.units.tensor.count > 0;
    const n = tensorUnits ? parseUint(tensorUnits.value, src(tensorUnits)) : cfg.sm.units.tensor.count;
    cfg.sm.units.tensor.count = on ? n : 0;
    for (const l of [avail, tensorUnits]) if (l) mark(ctx, 'sm.units.tensor', l);
  }

  // Interconnect: BookSim file (-network_mode 1) or local crossbar (-network_mode 2).
  const modeLine = get('-network_mode');
  const mode = modeLine ? parseUint(modeLine.value, src(modeLine)) : 1;
  if (modeLine && mode !== 1 && mode !== 2) {
    throw new InputError(src(modeLine).where, `network mode ${mode} is not modelled (1 = BookSim crossbar file, 2 = local crossbar)`, modeLine.option);
  }
  if (modeLine) mark(ctx, 'interconnect', modeLine);
  const fileLine = get('-inter_config_file');
  const icnt = cfg.interconnect;
  const localFlit = get('-icnt_flit_size');
  if (localFlit) {
    icnt.flitBytes = parseUint(localFlit.value, src(localFlit), 1);
    mark(ctx, 'interconnect.flitBytes', localFlit);
  }
  if (mode === 1 && fileLine) {
    const bs = readBooksim(resolve(dir, fileLine.value));
    if (bs === null) {
      mapped.delete(fileLine.option);
      ignored.push({ option: fileLine.option, line: fileLine.line, value: fileLine.value });
    } else {
      if (bs.flitSize !== undefined && bs.flitSize > 0) icnt.flitBytes = bs.flitSize;
      if (bs.vcBufSize !== undefined && bs.vcBufSize > 0) icnt.inputBufferEntries = bs.vcBufSize * Math.max(1, bs.numVcs ?? 1);
      if (bs.subnets === 1 || bs.subnets === 2) icnt.subnets = bs.subnets;
      if (bs.swAllocator !== undefined) icnt.arbitration = bs.swAllocator === 'islip' ? 'islip' : 'roundRobin';
      icnt.latencyCycles = bs.delays + 1;
      mark(ctx, 'interconnect', fileLine);
    }
  } else if (fileLine) {
    // The BookSim file is not used by the local crossbar.
    mapped.delete(fileLine.option);
    ignored.push({ option: fileLine.option, line: fileLine.line, value: fileLine.value });
  }
  const local = (o: string): ConfigLine | undefined => {
    const l = get(o);
    if (l && mode !== 2) {
      mapped.delete(o);
      ignored.push({ option: o, line: l.line, value: l.value });
      return undefined;
    }
    return l;
  };
  if (mode === 2) icnt.latencyCycles = 1;
  const inBuf = local('-icnt_in_buffer_limit');
  if (inBuf) {
    icnt.inputBufferEntries = parseUint(inBuf.value, src(inBuf), 1);
    mark(ctx, 'interconnect.inputBufferEntries', inBuf);
  }
  const subnets = local('-icnt_subnets');
  if (subnets) {
    const n = parseUint(subnets.value, src(subnets), 1);
    if (n > 2) throw new InputError(src(subnets).where, `${n} subnets: warpstate models 1 or 2`, subnets.option);
    icnt.subnets = n;
    mark(ctx, 'interconnect.subnets', subnets);
  }
  const arb = local('-icnt_arbiter_algo');
  if (arb) {
    const n = parseUint(arb.value, src(arb));
    if (n > 1) throw new InputError(src(arb).where, `arbiter ${n} is not one of 0 (round robin), 1 (iSLIP)`, arb.option);
    icnt.arbitration = n === 0 ? 'roundRobin' : 'islip';
    mark(ctx, 'interconnect.arbitration', arb);
  }
}

/**
 * Parses `gpgpusim.config` text (see the module comment for the format and defaults).
 * @param file name used in errors and to resolve `-inter_config_file`
 * @throws InputError with file, line and option name for a malformed line or a malformed value of
 *   a mapped option, or for a combination the schema rejects (naming the option that set it)
 */
export function importGpgpusimConfigText(text: string, file: string, options: ImportOptions = {}): GpgpusimImport {
  const lines = readConfigLines(text, file);
  const last = new Map<string, ConfigLine>();
  for (const l of lines) {
    last.delete(l.option); // re-insert so the map keeps the order of effective occurrences
    last.set(l.option, l);
  }
  const base = options.base ?? gtx480;
  const cfg: Cfg = structuredClone(base);
  cfg.name = options.name ?? (basename(dirname(resolve(file))) || basename(file));
  cfg.description = `imported from ${file}`;
  cfg.sources = [file];
  delete cfg.sm.lanes;
  const ctx: Ctx = { file, cfg, setBy: new Map(), pending: new Map() };
  const mapped = new Set<string>();
  const ignored: GpgpusimImport['ignored'] = [];
  for (const l of last.values()) {
    const h = HANDLERS[l.option];
    if (h === undefined) {
      ignored.push({ option: l.option, line: l.line, value: l.value });
      continue;
    }
    const src: ValueSource = { where: { file, line: l.line }, option: l.option };
    if (l.value === '') throw new InputError(src.where, 'option has no value', l.option);
    h(ctx, l.value, src, l);
    mapped.add(l.option);
  }
  finish(ctx, dirname(resolve(file)), ignored, mapped);
  ignored.sort((a, b) => a.line - b.line);

  const r = gpuConfigSchema.safeParse(cfg);
  if (!r.success) {
    const issue = r.error.issues[0]!;
    const path = issue.path.map(String);
    // The longest config path some option set that is a prefix of (or extends) the issue path.
    let best: { option: string; line: number } | undefined;
    let bestLen = -1;
    for (const [p, who] of ctx.setBy) {
      const parts = p.split('.');
      const n = Math.min(parts.length, path.length);
      let same = 0;
      while (same < n && parts[same] === path[same]) same++;
      if (same === n && n > bestLen) {
        best = who;
        bestLen = n;
      }
    }
    const where = best ? { file, line: best.line } : { file };
    const field = path.join('.') || '(config)';
    if (best) throw new InputError(where, `${issue.message} (config field ${field})`, best.option);
    throw new InputError(where, issue.message, field);
  }
  const notModelled: GpgpusimImport['notModelled'] = [];
  const leaves = [...leafValues(r.data).keys()];
  for (const [path, who] of ctx.setBy) {
    for (const field of leaves) {
      if (field !== path && !field.startsWith(`${path}.`)) continue;
      const reason = notModelledReason(field);
      if (reason !== undefined) notModelled.push({ option: who.option, line: who.line, field, reason });
    }
  }
  // The field is modelled, but only two of its values: src/topology/gpu.ts addressMapParams
  // simulates any other channel hash as consecutive channels. Say so rather than be silent.
  const hashing = r.data.memPartitions.partitionIndexing;
  const hashedBy = ctx.setBy.get('memPartitions.partitionIndexing');
  if (hashedBy !== undefined && hashing !== 'consecutive' && hashing !== 'xor') {
    notModelled.push({
      option: hashedBy.option,
      line: hashedBy.line,
      field: 'memPartitions.partitionIndexing',
      reason: `channel hashing '${hashing}' is not modelled: simulated as consecutive channels (warpstate models consecutive and xor)`,
    });
  }
  notModelled.sort((a, b) => a.line - b.line || a.field.localeCompare(b.field));
  return { config: r.data, mapped: [...last.keys()].filter((o) => mapped.has(o)), ignored, notModelled };
}

/**
 * Imports a GPGPU-Sim / Accel-Sim `gpgpusim.config` file into a validated {@link GpuConfig}.
 * @returns the config, the option names mapped, and the options ignored (name, line, value)
 * @throws InputError for a missing file, a malformed line, a malformed value of a mapped option
 *   (file, line and option named), or a value combination the schema rejects
 */
export function importGpgpusimConfig(path: string, options: ImportOptions = {}): GpgpusimImport {
  return importGpgpusimConfigText(readInputText(path, CONFIG_MAX_BYTES, 'a gpgpusim.config'), path, options);
}
