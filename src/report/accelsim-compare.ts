/**
 * warpstate's statistics beside Accel-Sim's (issue 10 item 3): the table that says which
 * Accel-Sim statistic counts the same thing as which warpstate statistic, and the comparison of
 * one Accel-Sim kernel block ({@link AccelSimLog}) with a warpstate statistics map (`--stats`
 * JSON `stats`, or `engine.stats.toJSON()`).
 *
 * Accel-Sim's names are GPGPU-Sim 4.2's (`gpgpu_sim::gpu_print_stat` in gpu-sim.cc, the cache
 * printers in gpu-cache.cc, `memory_stats_t::memlatstat_print`); warpstate's are the GPU totals
 * of the unit data sheets (`warpstate units <kind>`) and the per-kernel `kernel[<id>].*`
 * statistics of the SM Work Manager.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { InputError } from '../errors.ts';
import { accelSimOptionNumber, type AccelSimKernelBlock, type AccelSimLog } from './accelsim-log.ts';

/**
 * `kernel`: the statistic is the kernel's own in both simulators (Accel-Sim resets it after each
 * block; warpstate's `kernel[<k>].*`). `run`: cumulative since the start of the run (Accel-Sim's
 * block for kernel k counts kernels 1..k; warpstate's are whole-run totals, so they pair only
 * with the last block).
 */
export type StatScope = 'kernel' | 'run';

/** One row of the mapping table. */
export interface StatPairing {
  /** Row label: the Accel-Sim statistic name, or a short name for a sum of them. */
  readonly stat: string;
  /**
   * Accel-Sim side: the sum of `sum` minus the sum of `minus`, times the DRAM atom in bytes when
   * `timesDramAtom` (`-gpgpu_dram_buswidth` x `-gpgpu_dram_burst_length` x
   * `-gpgpu_n_mem_per_ctrlr`, GPGPU-Sim's `dram_atom_size`).
   */
  readonly accelsim: { readonly sum: readonly string[]; readonly minus?: readonly string[]; readonly timesDramAtom?: boolean };
  /**
   * warpstate side: the sum of these statistics (`GPU.SM[*].X` sums every instance,
   * `kernel[<k>]` is the compared kernel), or null where warpstate has no counterpart.
   */
  readonly warpstate: readonly string[] | null;
  /** warpstate statistics subtracted from the `warpstate` sum. */
  readonly warpstateMinus?: readonly string[];
  readonly scope: StatScope;
  /** How the two definitions differ; empty when they count the same thing. */
  readonly note: string;
}

const L2 = 'L2_cache_stats_breakdown';

/**
 * The mapping table: Accel-Sim statistic -> warpstate statistic where both count the same thing,
 * with the difference in definition in `note` where they do not quite.
 *
 * | stat | warpstate | scope | note (abridged) |
 * |---|---|---|---|
 * | gpu_sim_cycle | kernel[k].gpu_sim_cycle | kernel | GPGPU-Sim's warps exit only after their stores are acknowledged; warpstate's stores are posted |
 * | gpu_tot_sim_cycle | gpu_sim_cycle | run | warpstate runs until every unit is idle |
 * | gpu_sim_insn, gpu_tot_sim_insn | kernel[k].gpu_sim_insn, gpu_sim_insn | kernel, run | thread instructions |
 * | gpu_ipc, gpu_tot_ipc | kernel[k].gpu_ipc, gpu_ipc | kernel, run | |
 * | gpgpu_n_tot_w_icount | gpu_tot_warp_insts | run | |
 * | gpu_tot_issued_cta | gpu_tot_ctas_done | run | issued vs completed |
 * | L1I_total_cache_accesses / _misses | sum of FETCH l1i_accesses / l1i_misses + l1i_pending_hits | run | |
 * | L1D_total_cache_accesses / _misses / _pending_hits / _reservation_fails | gpu_l1d_accesses / gpu_l1d_misses / L1D l1d_hit_reserved / gpu_l1d_res_fail | run | |
 * | L2_total_cache_accesses / _misses | gpu_l2_accesses / gpu_l2_misses | run | instruction fetches in both |
 * | L2 data accesses (minus INST_ACC_R) | gpu_l2_accesses - sum of FETCH l1i_misses | run | |
 * | L2_total_cache_pending_hits / _reservation_fails | L2 l2_hit_reserved / l2_res_fail | run | |
 * | L2 breakdown GLOBAL_ACC_R / GLOBAL_ACC_W TOTAL_ACCESS and MISS | none | run | no read/write split |
 * | total dram reads / writes | gpu_dram_reads / gpu_dram_writes | run | atoms vs requests |
 * | dram bytes | gpu_dram_bytes | run | |
 * | gpgpu_n_mem_{read,write}_{global,local} | LSU transactions | run | |
 */
export const ACCELSIM_STAT_MAP: readonly StatPairing[] = Object.freeze([
  {
    stat: 'gpu_sim_cycle',
    accelsim: { sum: ['gpu_sim_cycle'] },
    warpstate: ['kernel[<k>].gpu_sim_cycle'],
    scope: 'kernel',
    note: "a GPGPU-Sim warp exits only once its stores are acknowledged (shd_warp_t::hardware_done); warpstate's stores are posted (done when the L1D sends them on)",
  },
  {
    stat: 'gpu_tot_sim_cycle',
    accelsim: { sum: ['gpu_tot_sim_cycle'] },
    warpstate: ['gpu_sim_cycle'],
    scope: 'run',
    note: 'warpstate: core cycles until every unit is idle (stores drained to DRAM included)',
  },
  { stat: 'gpu_sim_insn', accelsim: { sum: ['gpu_sim_insn'] }, warpstate: ['kernel[<k>].gpu_sim_insn'], scope: 'kernel', note: '' },
  { stat: 'gpu_tot_sim_insn', accelsim: { sum: ['gpu_tot_sim_insn'] }, warpstate: ['gpu_sim_insn'], scope: 'run', note: '' },
  { stat: 'gpu_ipc', accelsim: { sum: ['gpu_ipc'] }, warpstate: ['kernel[<k>].gpu_ipc'], scope: 'kernel', note: 'insn / cycle: carries the gpu_sim_cycle difference' },
  { stat: 'gpu_tot_ipc', accelsim: { sum: ['gpu_tot_ipc'] }, warpstate: ['gpu_ipc'], scope: 'run', note: 'insn / cycle: carries the gpu_tot_sim_cycle difference' },
  { stat: 'gpgpu_n_tot_w_icount', accelsim: { sum: ['gpgpu_n_tot_w_icount'] }, warpstate: ['gpu_tot_warp_insts'], scope: 'run', note: '' },
  { stat: 'gpu_tot_issued_cta', accelsim: { sum: ['gpu_tot_issued_cta'] }, warpstate: ['gpu_tot_ctas_done'], scope: 'run', note: 'CTAs issued vs CTAs completed: equal once the run finished' },
  {
    stat: 'L1I_total_cache_accesses',
    accelsim: { sum: ['L1I_total_cache_accesses'] },
    warpstate: ['GPU.SM[*].FETCH.l1i_accesses'],
    scope: 'run',
    note: 'one per fetch request in both; fetch grouping differs (warpstate: fetchWidth instructions of one line)',
  },
  {
    stat: 'L1I_total_cache_misses',
    accelsim: { sum: ['L1I_total_cache_misses'] },
    warpstate: ['GPU.SM[*].FETCH.l1i_misses', 'GPU.SM[*].FETCH.l1i_pending_hits'],
    scope: 'run',
    note: "GPGPU-Sim counts a fetch merged into a pending miss (MSHR_HIT) as a miss: warpstate's misses + pending hits",
  },
  { stat: 'L1D_total_cache_accesses', accelsim: { sum: ['L1D_total_cache_accesses'] }, warpstate: ['gpu_l1d_accesses'], scope: 'run', note: 'hits + pending hits + misses; accesses that bypass the L1D count in neither' },
  { stat: 'L1D_total_cache_misses', accelsim: { sum: ['L1D_total_cache_misses'] }, warpstate: ['gpu_l1d_misses'], scope: 'run', note: 'GPGPU-Sim: MISS + SECTOR_MISS' },
  { stat: 'L1D_total_cache_pending_hits', accelsim: { sum: ['L1D_total_cache_pending_hits'] }, warpstate: ['GPU.SM[*].L1D.l1d_hit_reserved'], scope: 'run', note: '' },
  { stat: 'L1D_total_cache_reservation_fails', accelsim: { sum: ['L1D_total_cache_reservation_fails'] }, warpstate: ['gpu_l1d_res_fail'], scope: 'run', note: 'one per failed attempt (retried each cycle) in both' },
  {
    stat: 'L2_total_cache_accesses',
    accelsim: { sum: ['L2_total_cache_accesses'] },
    warpstate: ['gpu_l2_accesses'],
    scope: 'run',
    note: 'hits + pending hits + misses, instruction fetches (INST_ACC_R; warpstate: L1I line reads) included',
  },
  {
    stat: 'L2 data accesses',
    accelsim: { sum: ['L2_total_cache_accesses'], minus: [`${L2}[INST_ACC_R][TOTAL_ACCESS]`] },
    warpstate: ['gpu_l2_accesses'],
    warpstateMinus: ['GPU.SM[*].FETCH.l1i_misses'],
    scope: 'run',
    note: 'without instruction fetches: Accel-Sim minus [INST_ACC_R][TOTAL_ACCESS], warpstate minus one line read per L1I miss',
  },
  {
    stat: 'L2_total_cache_misses',
    accelsim: { sum: ['L2_total_cache_misses'] },
    warpstate: ['gpu_l2_misses'],
    scope: 'run',
    note: 'GPGPU-Sim: MISS + SECTOR_MISS; instruction fetches included in both',
  },
  { stat: 'L2_total_cache_pending_hits', accelsim: { sum: ['L2_total_cache_pending_hits'] }, warpstate: ['GPU.L2[*].l2_hit_reserved'], scope: 'run', note: '' },
  { stat: 'L2_total_cache_reservation_fails', accelsim: { sum: ['L2_total_cache_reservation_fails'] }, warpstate: ['GPU.L2[*].l2_res_fail'], scope: 'run', note: '' },
  { stat: `${L2}[GLOBAL_ACC_R][TOTAL_ACCESS]`, accelsim: { sum: [`${L2}[GLOBAL_ACC_R][TOTAL_ACCESS]`] }, warpstate: null, scope: 'run', note: 'warpstate counts L2 accesses without a read/write split' },
  { stat: `${L2}[GLOBAL_ACC_R][MISS]`, accelsim: { sum: [`${L2}[GLOBAL_ACC_R][MISS]`] }, warpstate: null, scope: 'run', note: 'warpstate counts L2 misses without a read/write split' },
  { stat: `${L2}[GLOBAL_ACC_W][TOTAL_ACCESS]`, accelsim: { sum: [`${L2}[GLOBAL_ACC_W][TOTAL_ACCESS]`] }, warpstate: null, scope: 'run', note: 'warpstate counts L2 accesses without a read/write split' },
  { stat: `${L2}[GLOBAL_ACC_W][MISS]`, accelsim: { sum: [`${L2}[GLOBAL_ACC_W][MISS]`] }, warpstate: null, scope: 'run', note: 'warpstate counts L2 misses without a read/write split' },
  {
    stat: 'total dram reads',
    accelsim: { sum: ['total dram reads'] },
    warpstate: ['gpu_dram_reads'],
    scope: 'run',
    note: 'units differ: Accel-Sim counts DRAM atoms (dram_atom_size bytes each), warpstate read requests; see dram bytes',
  },
  {
    stat: 'total dram writes',
    accelsim: { sum: ['total dram writes'] },
    warpstate: ['gpu_dram_writes'],
    scope: 'run',
    note: 'units differ: Accel-Sim counts DRAM atoms, warpstate write requests; see dram bytes',
  },
  {
    stat: 'dram bytes',
    accelsim: { sum: ['total dram reads', 'total dram writes'], timesDramAtom: true },
    warpstate: ['gpu_dram_bytes'],
    scope: 'run',
    note: 'Accel-Sim: (reads + writes) x dram_atom_size (busW x BL x chips; 32 B on the GTX 1080)',
  },
  {
    stat: 'gpgpu_n_mem_{read,write}_{global,local}',
    accelsim: { sum: ['gpgpu_n_mem_read_global', 'gpgpu_n_mem_write_global', 'gpgpu_n_mem_read_local', 'gpgpu_n_mem_write_local'] },
    warpstate: ['GPU.SM[*].LSU.transactions'],
    scope: 'run',
    note: 'coalesced global and local memory requests the LSU sends',
  },
] satisfies StatPairing[]);

/** One row of a comparison. Numbers are null where a side has no value (`-` in the table). */
export interface ComparisonRow {
  readonly stat: string;
  /** Accel-Sim's value (NaN where Accel-Sim printed `nan`). */
  readonly accelsim: number | null;
  readonly warpstate: number | null;
  /** (warpstate - Accel-Sim) / |Accel-Sim| x 100; 0 when both are 0; null when undefined. */
  readonly differencePct: number | null;
  readonly scope: StatScope;
  /** The Accel-Sim expression, e.g. `L2_total_cache_accesses - L2_cache_stats_breakdown[INST_ACC_R][TOTAL_ACCESS]`. */
  readonly accelsimSource: string;
  /** The warpstate expression (`kernel[<k>]` resolved), or null. */
  readonly warpstateSource: string | null;
  readonly note: string;
}

/** The outcome of {@link compareWithAccelSim}. */
export interface Comparison {
  /** The compared Accel-Sim block. */
  readonly kernel: { readonly index: number; readonly name: string; readonly launchUid: number | undefined; readonly blocks: number; readonly last: boolean };
  /** warpstate's kernel id the `kernel`-scope rows read (`kernel[<id>].*`). */
  readonly warpstateKernel: number;
  readonly rows: readonly ComparisonRow[];
  /** Things the reader should know (kernel counts that differ, a non-last block). */
  readonly warnings: readonly string[];
}

/** Sum of the numbers in `stats` named by `pattern` (`[*]` matches any instance index). */
function warpstateSum(stats: Readonly<Record<string, unknown>>, pattern: string): number | undefined {
  if (!pattern.includes('[*]')) {
    const v = stats[pattern];
    return typeof v === 'number' ? v : undefined;
  }
  const re = new RegExp('^' + pattern.split('[*]').map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('\\[\\d+\\]') + '$');
  let total = 0;
  let found = false;
  // Summing is order-independent, so iterating the object's keys is deterministic here.
  for (const [k, v] of Object.entries(stats)) {
    if (typeof v === 'number' && re.test(k)) {
      total += v;
      found = true;
    }
  }
  return found ? total : undefined;
}

/**
 * A statistic of an Accel-Sim block; a breakdown `[TYPE][TOTAL_ACCESS]` that is absent counts 0
 * when the breakdown itself was printed (GPGPU-Sim prints it only for types with accesses).
 */
function accelsimStat(block: AccelSimKernelBlock, name: string): number | undefined {
  const v = block.stats.get(name);
  if (v !== undefined) return v;
  const m = /^(.*\[\w+\])\[TOTAL_ACCESS\]$/.exec(name);
  if (m !== null && block.stats.has(`${m[1]}[HIT]`)) return 0;
  return undefined;
}

function accelsimValue(log: AccelSimLog, block: AccelSimKernelBlock, p: StatPairing): number | null {
  let total = 0;
  for (const n of p.accelsim.sum) {
    const v = accelsimStat(block, n);
    if (v === undefined) return null;
    total += v;
  }
  for (const n of p.accelsim.minus ?? []) {
    const v = accelsimStat(block, n);
    if (v === undefined) return null;
    total -= v;
  }
  if (p.accelsim.timesDramAtom) {
    const atom = dramAtomBytes(log);
    if (atom === undefined) return null;
    total *= atom;
  }
  return total;
}

/**
 * GPGPU-Sim's `dram_atom_size` in bytes from the log's options: `-gpgpu_dram_buswidth` x
 * `-gpgpu_dram_burst_length` x `-gpgpu_n_mem_per_ctrlr`; undefined when one is not printed.
 */
export function dramAtomBytes(log: AccelSimLog): number | undefined {
  const busW = accelSimOptionNumber(log, 'gpgpu_dram_buswidth');
  const bl = accelSimOptionNumber(log, 'gpgpu_dram_burst_length');
  const chips = accelSimOptionNumber(log, 'gpgpu_n_mem_per_ctrlr') ?? 1;
  return busW === undefined || bl === undefined ? undefined : busW * bl * chips;
}

function accelsimSource(p: StatPairing): string {
  let s = p.accelsim.sum.join(' + ');
  if (p.accelsim.minus !== undefined) s += ' - ' + p.accelsim.minus.join(' - ');
  if (p.accelsim.timesDramAtom) s = `(${s}) x dram_atom_size`;
  return s;
}

/** (w - a) / |a| x 100; 0 when both are 0; null when a is 0 (w not) or either is not finite. */
export function relativeDifferencePct(a: number | null, w: number | null): number | null {
  if (a === null || w === null || !Number.isFinite(a) || !Number.isFinite(w)) return null;
  if (a === 0) return w === 0 ? 0 : null;
  return ((w - a) / Math.abs(a)) * 100;
}

/** warpstate kernel ids present in `stats` (`kernel[<id>].gpu_sim_cycle`), ascending. */
function warpstateKernels(stats: Readonly<Record<string, unknown>>): number[] {
  const ids: number[] = [];
  for (const k of Object.keys(stats)) {
    const m = /^kernel\[(\d+)\]\.gpu_sim_cycle$/.exec(k);
    if (m !== null) ids.push(Number(m[1]));
  }
  return ids.sort((a, b) => a - b);
}

/**
 * Compares one kernel block of an Accel-Sim log with warpstate's statistics of the same trace.
 *
 * The default block is the last one: its cumulative statistics cover the whole run, as
 * warpstate's GPU totals do, and its per-kernel ones (`gpu_sim_cycle`, `gpu_sim_insn`, `gpu_ipc`)
 * are the last kernel's. An earlier block pairs only the per-kernel rows (warpstate has no
 * per-kernel memory statistics); its cumulative rows show Accel-Sim's value alone. The
 * warpstate kernel is `kernel_launch_uid - 1` (both number launches in trace order).
 * @param stats warpstate statistics: the `stats` object of a `--stats` file or `engine.stats.toJSON()`
 * @param kernel 1-based block index; default the last
 * @throws InputError (`--kernel`) when `kernel` is not a block of the log
 */
export function compareWithAccelSim(log: AccelSimLog, stats: Readonly<Record<string, unknown>>, kernel?: number): Comparison {
  const blocks = log.kernels.length;
  const index = kernel ?? blocks;
  if (!Number.isInteger(index) || index < 1 || index > blocks) {
    throw new InputError({ file: '--kernel' }, `${log.file} has ${blocks} kernel statistics block(s) (1 to ${blocks}), got ${kernel}`);
  }
  const block = log.kernels[index - 1]!;
  const last = index === blocks;
  const wk = (block.launchUid ?? index) - 1;
  const warnings: string[] = [];
  const ids = warpstateKernels(stats);
  if (ids.length !== blocks) warnings.push(`${log.file} reports ${blocks} kernel(s), the warpstate statistics ${ids.length}: whole-run totals cover different work`);
  if (!ids.includes(wk)) warnings.push(`the warpstate statistics have no kernel[${wk}] (Accel-Sim kernel_launch_uid ${wk + 1})`);
  if (!last) warnings.push(`block ${index} is not the log's last: cumulative statistics (scope run) are shown for Accel-Sim only`);
  const rows = ACCELSIM_STAT_MAP.map((p): ComparisonRow => {
    const a = accelsimValue(log, block, p);
    const comparable = p.warpstate !== null && (p.scope === 'kernel' || last);
    const names = p.warpstate?.map((n) => n.replace('<k>', String(wk))) ?? null;
    let w: number | null = null;
    if (comparable && names !== null) {
      let total = 0;
      const terms: [string, number][] = [...names.map((n): [string, number] => [n, 1]), ...(p.warpstateMinus ?? []).map((n): [string, number] => [n, -1])];
      for (const [n, sign] of terms) {
        const v = warpstateSum(stats, n);
        if (v === undefined) {
          total = NaN;
          break;
        }
        total += sign * v;
      }
      w = Number.isNaN(total) ? null : total;
    }
    return {
      stat: p.stat,
      accelsim: a,
      warpstate: w,
      differencePct: relativeDifferencePct(a, w),
      scope: p.scope,
      accelsimSource: accelsimSource(p),
      warpstateSource: comparable && names !== null ? names.join(' + ') + (p.warpstateMinus ?? []).map((n) => ` - ${n}`).join('') : null,
      note: p.note,
    };
  });
  return { kernel: { index, name: block.name, launchUid: block.launchUid, blocks, last }, warpstateKernel: wk, rows, warnings };
}

/** A value as the table prints it: `-` for none, `nan`, integers as is, else 4 significant decimals. */
function formatValue(v: number | null): string {
  if (v === null) return '-';
  if (Number.isNaN(v)) return 'nan';
  if (Number.isInteger(v)) return String(v);
  return String(Number(v.toFixed(4)));
}

/** A relative difference as the table prints it: `+12.3%`, `-4.0%`, `0.0%`, or `-`. */
export function formatDifference(d: number | null): string {
  if (d === null) return '-';
  const s = d.toFixed(1);
  return d > 0 ? `+${s}%` : `${s === '-0.0' ? '0.0' : s}%`;
}

/**
 * The side-by-side table: columns statistic, Accel-Sim, warpstate, difference, note; one line per
 * row of {@link ACCELSIM_STAT_MAP}, with a header naming the compared kernel.
 */
export function formatComparison(c: Comparison, title: string): string {
  const head = ['statistic', 'Accel-Sim', 'warpstate', 'difference', 'note'];
  const body = c.rows.map((r) => [r.stat, formatValue(r.accelsim), formatValue(r.warpstate), formatDifference(r.differencePct), r.note]);
  const width = head.slice(0, 4).map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (i === 0 ? cell.padEnd(width[i]!) : i < 4 ? cell.padStart(width[i]!) : cell))
      .join('  ')
      .trimEnd();
  const k = c.kernel;
  const out = [
    `# ${title}`,
    `# Accel-Sim kernel block ${k.index} of ${k.blocks} (${k.name}${k.launchUid !== undefined ? `, kernel_launch_uid ${k.launchUid}` : ''}); warpstate kernel[${c.warpstateKernel}]`,
    `# difference = (warpstate - Accel-Sim) / Accel-Sim`,
    line(head),
    line(width.map((w) => '-'.repeat(w)).concat('----')),
    ...body.map(line),
  ];
  return out.join('\n') + '\n';
}

/** JSON form of a comparison (NaN written as null, as JSON has no NaN). */
export function comparisonToJson(c: Comparison, extra: Record<string, unknown>): string {
  return JSON.stringify({ ...extra, ...c }, (_k, v) => (typeof v === 'number' && !Number.isFinite(v) ? null : v), 1) + '\n';
}

/** The parts of a `warpstate run --stats` file the comparison reads. */
const StatsFileSchema = z.object({
  stats: z.record(z.string(), z.unknown()),
  stop: z.object({ partial: z.boolean().optional(), reason: z.string().optional() }).optional(),
});

/**
 * Reads the `stats` object of a statistics file written by `warpstate run --stats`.
 * @returns the statistics and whether the file marks them partial (`stop.partial`)
 * @throws InputError naming the file when it cannot be read, is not JSON or has no `stats` object
 */
export function readWarpstateStats(file: string): { stats: Record<string, unknown>; partial: boolean } {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new InputError({ file }, `cannot read the warpstate statistics file: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new InputError({ file }, `not a JSON statistics file (warpstate run --stats): ${(e as Error).message}`);
  }
  const r = StatsFileSchema.safeParse(doc);
  if (!r.success) throw new InputError({ file }, "not a warpstate statistics file: expected an object with a 'stats' object (warpstate run --stats)", 'stats');
  return { stats: r.data.stats, partial: r.data.stop?.partial === true };
}
