/**
 * Parser of Accel-Sim / GPGPU-Sim standard output logs (issue 10 item 3), so that warpstate's
 * statistics can be compared with the reference simulator's statistic by statistic.
 *
 * The format is what GPGPU-Sim prints, not a documented file format; the parser follows its
 * printers (GPGPU-Sim 4.2, `src/gpgpu-sim/`):
 * - the option dump at start-up (`option_parser_print`: `-name value # description`, and the DRAM
 *   timing block `nbk 16 # ...` after `DRAM Timing Options:`);
 * - one statistics block per finished kernel, printed by `gpgpu_sim::gpu_print_stat`
 *   (gpu-sim.cc): it starts with `kernel_name = ...`, `kernel_launch_uid = n`,
 *   `kernel_stream_id = n`, then `gpu_sim_cycle = n` and the other `name = value` lines;
 * - the cache printers `shader_print_cache_stats` (`L1D_total_cache_accesses = n`, per-core lines
 *   `L1D_cache_core[0]: Access = 0, Miss = 0, ...`), `cache_stats::print_stats` (gpu-cache.cc:
 *   `L2_cache_stats_breakdown[GLOBAL_ACC_R][MISS] = n`, and `[TYPE][TOTAL_ACCESS]` only for
 *   access types with accesses) and `print_fail_stats` (only non-zero entries);
 * - the DRAM printers (`memory_stats_t::memlatstat_print`: `total dram reads = n`, counted in
 *   DRAM atoms; `dram_t::print` per memory partition: `n_cmd=... n_rd=...`).
 *
 * In a block, `gpu_sim_cycle`, `gpu_sim_insn`, `gpu_ipc` and the `partiton_level_parallism`
 * lines are the kernel's own; everything else (`gpu_tot_*`, shader, cache and DRAM counters) is
 * cumulative since the start of the run, because GPGPU-Sim never clears those counters between
 * kernels (`gpgpu_sim::update_stats` only folds the per-kernel ones into the totals).
 */
import { readFileSync } from 'node:fs';
import { InputError } from '../errors.ts';

/** The statistics one `gpu_print_stat` block printed. */
export interface AccelSimKernelBlock {
  /** 1-based position of the block in the log (blocks are printed as kernels finish). */
  readonly index: number;
  /** `kernel_name` (names of every kernel the block covers, space-separated). */
  readonly name: string;
  /** `kernel_launch_uid` (1-based launch order), when printed as one integer. */
  readonly launchUid: number | undefined;
  /** `kernel_stream_id`, when printed. */
  readonly streamId: number | undefined;
  /** 1-based line of `kernel_name = ...`. */
  readonly line: number;
  /**
   * Statistic name -> value, as printed: `gpu_sim_cycle`, `L2_cache_stats_breakdown[GLOBAL_ACC_R][MISS]`,
   * `total dram reads`; per-instance lines get the instance as prefix (`L1D_cache_core[3].Access`,
   * `L2_cache_bank[0].Miss`, `DRAM[2].n_rd`, `DRAM[2].Row_Buffer_Locality`). `-nan` is NaN. A name
   * printed twice in one block keeps its first value.
   */
  readonly stats: ReadonlyMap<string, number>;
}

/** A parsed Accel-Sim / GPGPU-Sim log. */
export interface AccelSimLog {
  /** The file, as given. */
  readonly file: string;
  /**
   * Option name -> value text, as printed at start-up: `-gpgpu_n_clusters` -> `20`,
   * `-gpgpu_cache:dl1` -> `N:64:128:6,...`; the DRAM timing block without a dash (`nbk` -> `16`).
   */
  readonly options: ReadonlyMap<string, string>;
  /** The kernel statistics blocks, in log order (at least one). */
  readonly kernels: readonly AccelSimKernelBlock[];
}

/**
 * Statistics GPGPU-Sim prints per kernel (reset by `gpgpu_sim::update_stats` after each block);
 * every other statistic of a block is cumulative since the start of the run.
 */
export const ACCELSIM_PER_KERNEL_STATS: ReadonlySet<string> = new Set([
  'gpu_sim_cycle',
  'gpu_sim_insn',
  'gpu_ipc',
  'gpu_occupancy',
  'partiton_level_parallism',
  'partiton_level_parallism_util',
  'L2_BW',
]);

/** Statistics every block must carry as numbers. */
const REQUIRED = ['gpu_sim_cycle', 'gpu_sim_insn', 'gpu_tot_sim_cycle', 'gpu_tot_sim_insn'] as const;

/** Wall-clock lines: not statistics of the simulated machine, and not numbers (`0 days, ...`). */
const WALL_CLOCK = new Set(['gpgpu_simulation_time']);

/** A statistic's name: words of `\w` and brackets separated by single blanks (`total dram reads`). */
const STAT_NAME = /^[A-Za-z_][\w\[\]]*(?: [\w\[\]]+)*$/;

/** A leading number as printf writes it (`%lld`, `%12.4f`, `%e`), or `nan`/`inf` with a sign. */
const NUMBER = /^[-+]?(?:(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?|nan|inf(?:inity)?)/i;

/** Parses printf's rendering of a number; undefined when `text` does not start with one. */
function leadingNumber(text: string): number | undefined {
  const m = NUMBER.exec(text.trim());
  if (m === null) return undefined;
  const t = m[0].toLowerCase().replace(/^\+/, '');
  if (t.endsWith('nan')) return NaN;
  if (t.includes('inf')) return t.startsWith('-') ? -Infinity : Infinity;
  return Number(t);
}

/**
 * Reads and parses an Accel-Sim log file.
 * @throws InputError naming the file when it cannot be read, or as {@link parseAccelSimLog}
 */
export function readAccelSimLog(file: string): AccelSimLog {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new InputError({ file }, `cannot read the Accel-Sim log: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  return parseAccelSimLog(text, file);
}

/**
 * Parses the text of an Accel-Sim / GPGPU-Sim stdout log (see the module comment for the format).
 * Lines that are not options or `name = value` statistics (progress messages, histograms,
 * per-bank tables, the interconnect's BookSim report) are skipped.
 * @param file the file name used in errors
 * @throws InputError naming file and line: a file with no `kernel_name = ...` statistics block
 *   (not such a log, or a run that finished no kernel), a block without `gpu_sim_cycle`, or one
 *   of `gpu_sim_cycle`, `gpu_sim_insn`, `gpu_tot_sim_cycle`, `gpu_tot_sim_insn` not a number
 */
export function parseAccelSimLog(text: string, file: string): AccelSimLog {
  if (text.includes('\0')) throw new InputError({ file, line: 1 }, 'not an Accel-Sim/GPGPU-Sim log: the file is binary');
  const lines = text.split(/\r?\n/);
  const options = new Map<string, string>();
  const kernels: AccelSimKernelBlock[] = [];
  let section: 'none' | 'options' | 'stats' = 'none';
  let block: { name: string; line: number; stats: Map<string, number>; lineOf: Map<string, number>; uid?: number; stream?: number } | null = null;
  // Inside a `Memory Partition n:` report, names repeat per partition: prefixed `DRAM[n].`.
  let partition: string | null = null;
  let inIcnt = false;

  const closeBlock = () => {
    if (block === null) return;
    for (const name of REQUIRED) {
      if (!block.lineOf.has(name)) throw new InputError({ file, line: block.line }, `the statistics block of kernel '${block.name}' has no '${name} = ' line (a truncated log?)`, name);
    }
    kernels.push({ index: kernels.length + 1, name: block.name, launchUid: block.uid, streamId: block.stream, line: block.line, stats: block.stats });
    block = null;
  };

  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!;
    const lineNo = i + 1;
    const line = raw.trim();
    if (line === 'GPGPU-Sim: Configuration options:') {
      section = 'options';
      continue;
    }
    if (line.startsWith('kernel_name =') || line.startsWith('kernel_name=')) {
      closeBlock();
      section = 'stats';
      partition = null;
      inIcnt = false;
      block = { name: line.slice(line.indexOf('=') + 1).trim(), line: lineNo, stats: new Map(), lineOf: new Map() };
      continue;
    }
    if (line.startsWith('Processing kernel ') || line.startsWith('launching kernel ')) {
      // The next kernel's header: its `-name = value` lines are neither options nor statistics.
      closeBlock();
      section = 'none';
      continue;
    }
    if (section === 'options') {
      const m = /^(-?[A-Za-z_][\w:.\-]*)\s+(.*?)\s*#(?:\s|$)/.exec(raw);
      if (m !== null && !options.has(m[1]!)) options.set(m[1]!, m[2]!);
      continue;
    }
    if (section !== 'stats' || block === null) continue;
    const b = block as NonNullable<typeof block>;
    if (line.startsWith('----------------------------Interconnect-DETAILS')) {
      inIcnt = true;
      continue;
    }
    if (line.startsWith('----------------------------END-of-Interconnect-DETAILS')) {
      inIcnt = false;
      continue;
    }
    if (inIcnt) continue;
    const part = /^Memory Partition (\d+):$/.exec(line);
    if (part !== null) {
      partition = `DRAM[${part[1]}]`;
      continue;
    }
    if (line.startsWith('=========')) partition = null;
    const put = (name: string, value: number | undefined) => {
      if (value === undefined || b.stats.has(name)) return;
      b.stats.set(name, value);
      b.lineOf.set(name, lineNo);
    };
    // `label: k = v, k = v, ...` (per-core / per-bank cache lines).
    const labelled = /^(\w+\[\d+\]):\s+(\w+ = .*)$/.exec(line);
    if (labelled !== null) {
      for (const kv of labelled[2]!.split(/,\s*/)) {
        const m = /^(\w+) = (.*)$/.exec(kv);
        if (m !== null) put(`${labelled[1]}.${m[1]}`, leadingNumber(m[2]!));
      }
      continue;
    }
    // `name = value`, with blanks around `=` (`gpu_ipc =       8.2028`, `L2_BW  =  0.56 GB/Sec`,
    // `total dram reads = 56`, `L2_cache_stats_breakdown[GLOBAL_ACC_R][MISS] = 250`).
    const eq = /^([^=]+?)\s*(?:\s=|=\s)\s*(.*)$/.exec(line);
    if (eq !== null && STAT_NAME.test(eq[1]!)) {
      const name = eq[1]!;
      const value = eq[2]!;
      if (name === 'kernel_launch_uid') {
        if (/^\d+$/.test(value.trim())) b.uid = Number(value.trim());
        continue;
      }
      if (name === 'kernel_stream_id') {
        b.stream = leadingNumber(value);
        continue;
      }
      if (WALL_CLOCK.has(name)) continue;
      const n = leadingNumber(value);
      if ((REQUIRED as readonly string[]).includes(name) && (n === undefined || !Number.isFinite(n))) {
        throw new InputError({ file, line: lineNo }, `expected a number, got '${value.trim()}'`, name);
      }
      put(partition !== null ? `${partition}.${name}` : name, n);
      continue;
    }
    // `k=v k=v ...` tokens (DRAM command counters, `gpu_total_sim_rate=10516`), optionally after
    // a label (`DRAM[4]: 16 bks, busW=4 BL=8 CL=12, ...`, `mrqq: max=2 avg=0.01`).
    const tokens = [...line.matchAll(/(?:^|[\s,])(\w+)=([^\s,]+)/g)];
    if (tokens.length > 0) {
      const own = /^(\w+(?:\[\d+\])?):/.exec(line)?.[1];
      const label = [partition, own !== partition ? own : undefined].filter((x) => x !== null && x !== undefined).join('.');
      for (const t of tokens) put(label !== '' ? `${label}.${t[1]}` : t[1]!, leadingNumber(t[2]!));
    }
  }
  closeBlock();
  if (kernels.length === 0) {
    throw new InputError(
      { file, line: 1 },
      options.size > 0
        ? 'the Accel-Sim/GPGPU-Sim log has no kernel statistics block (no \'kernel_name = \' line): the run finished no kernel'
        : "not an Accel-Sim/GPGPU-Sim log: no option dump ('GPGPU-Sim: Configuration options:') and no kernel statistics block ('kernel_name = ...')",
    );
  }
  return { file, options, kernels };
}

/** An option's value text, by name with or without its leading dash; undefined when not printed. */
export function accelSimOption(log: AccelSimLog, name: string): string | undefined {
  return log.options.get(name) ?? log.options.get(name.startsWith('-') ? name.slice(1) : `-${name}`);
}

/** An option's value as a number (its leading number), or undefined. */
export function accelSimOptionNumber(log: AccelSimLog, name: string): number | undefined {
  const v = accelSimOption(log, name);
  return v === undefined ? undefined : leadingNumber(v);
}
