/**
 * The headline numbers of a timing run (issue 12 item 6), shared by the console summary
 * (src/cli/summary.ts) and the HTML report: result check, cycles, IPC, instructions, achieved
 * occupancy, L1D/L2 hit rates, DRAM bandwidth used vs peak, top stall reasons, simulation speed.
 * Every number comes from the run's statistics (the `stats` object of the `--stats` file) and
 * the GPU config.
 */
import { maxWarpsPerSm, type GpuConfig } from '../config/schema.ts';

/** A statistics object as written by `--stats` (`stats`): name -> number, or a time series object. */
export type StatsObject = Record<string, unknown>;

/** What the summary needs besides the statistics. */
export interface SummaryInput {
  scenario: string;
  seed: number;
  /** The kernels launched, e.g. `matmul_tiled (grid 4x4x1, block 16x16x1)`. */
  kernels: readonly string[];
  /** The GPU config the run used; undefined when only a stats file is known (no peak, no occupancy). */
  config?: GpuConfig;
  stats: StatsObject;
  checks: readonly { passed: boolean; description: string }[];
  /** Wall-clock seconds of the simulation (undefined: speed not shown). */
  wallSeconds?: number;
  /** Files written: label -> path. */
  outputs?: readonly { label: string; path: string }[];
}

/** One summary quantity: a label and its value text, also a row of the HTML report's summary table. */
export interface SummaryRow {
  label: string;
  value: string;
}

function n(stats: StatsObject, name: string): number {
  const v = stats[name];
  return typeof v === 'number' && Number.isFinite(v) ? v : 0;
}

/** Sum of every numeric stat whose name matches `re` (per-SM or per-partition stats). */
export function sumStats(stats: StatsObject, re: RegExp): number {
  let s = 0;
  for (const [k, v] of Object.entries(stats)) if (typeof v === 'number' && re.test(k)) s += v;
  return s;
}

const int = (x: number) => Math.round(x).toLocaleString('en-US');
const pct = (part: number, whole: number) => (whole > 0 ? `${((100 * part) / whole).toFixed(1)} %` : 'n/a');

/**
 * Achieved occupancy (as Nsight Compute defines it): resident warps averaged over the SMs'
 * active cycles, over the SM's warp slots. Every resident warp is in exactly one of the
 * `warp_state_<state>` states each cycle (000 §5.3), so their sum is resident warp-cycles.
 * @returns `{ warps: mean resident warps per active SM-cycle, fraction: warps / maxWarps }`, or
 *   null without active cycles or config
 */
export function achievedOccupancy(stats: StatsObject, config: GpuConfig | undefined): { warps: number; fraction: number } | null {
  const activeCycles = sumStats(stats, /^GPU\.SM\[\d+\]\.ISSUE\.active_cycles$/);
  if (config === undefined || activeCycles === 0) return null;
  const warps = sumStats(stats, /^GPU\.SM\[\d+\]\.ISSUE\.warp_state_[A-Za-z]+$/) / activeCycles;
  return { warps, fraction: warps / maxWarpsPerSm(config) };
}

/** Stall kinds (004 Fig. 3) summed over SMs, largest first; `none` (an issuing cycle) left out. */
export function stallTotals(stats: StatsObject): { kind: string; cycles: number }[] {
  const totals = new Map<string, number>();
  for (const [k, v] of Object.entries(stats)) {
    const m = /^GPU\.SM\[\d+\]\.ISSUE\.stall_([A-Za-z]+)$/.exec(k);
    if (m && m[1] !== 'none' && typeof v === 'number') totals.set(m[1]!, (totals.get(m[1]!) ?? 0) + v);
  }
  return [...totals].map(([kind, cycles]) => ({ kind, cycles })).sort((a, b) => b.cycles - a.cycles || a.kind.localeCompare(b.kind));
}

/**
 * The summary as label/value rows (the console summary and the report's summary table).
 * Sources: GPGPU-Sim stat names (`gpu_sim_cycle`, `gpu_sim_insn`, `gpu_ipc`, `gpu_l1d_*`,
 * `gpu_l2_*`, `gpu_dram_bandwidth_gbps`), peak DRAM bandwidth from
 * `peakDramBandwidthBytesPerSec` (config), stall kinds of 004 Fig. 3.
 */
export function summaryRows(input: SummaryInput, peakDramBytesPerSec?: number): SummaryRow[] {
  const s = input.stats;
  const rows: SummaryRow[] = [];
  const passed = input.checks.filter((c) => c.passed).length;
  const failed = input.checks.filter((c) => !c.passed);
  rows.push({ label: 'result check', value: input.checks.length === 0 ? 'no checks' : failed.length === 0 ? `PASS (${passed} of ${input.checks.length} checks)` : `FAIL (${failed.length} of ${input.checks.length} failed: ${failed[0]!.description})` });
  const cycles = n(s, 'gpu_sim_cycle');
  rows.push({ label: 'cycles', value: `${int(cycles)} core cycles (${(n(s, 'engine.sim_time_ps') / 1e6).toFixed(2)} µs simulated)` });
  rows.push({ label: 'instructions', value: `${int(n(s, 'gpu_sim_insn'))} thread instructions (${int(n(s, 'gpu_tot_warp_insts'))} warp instructions)` });
  rows.push({ label: 'IPC', value: `${n(s, 'gpu_ipc').toFixed(2)} thread instructions / cycle` });
  const occ = achievedOccupancy(s, input.config);
  if (occ !== null) rows.push({ label: 'occupancy', value: `${(100 * occ.fraction).toFixed(1)} % achieved (${occ.warps.toFixed(1)} of ${maxWarpsPerSm(input.config!)} warps per active SM-cycle)` });
  const l1a = n(s, 'gpu_l1d_accesses');
  rows.push({ label: 'L1D', value: l1a > 0 ? `${pct(l1a - n(s, 'gpu_l1d_misses'), l1a)} hits of ${int(l1a)} accesses (${int(n(s, 'gpu_l1d_res_fail'))} reservation failures)` : 'no accesses' });
  const l2a = n(s, 'gpu_l2_accesses');
  const l2reserved = sumStats(s, /^GPU\.L2\[\d+\]\.l2_hit_reserved$/);
  rows.push({ label: 'L2', value: l2a > 0 ? `${pct(n(s, 'gpu_l2_hits'), l2a)} hits, ${pct(l2reserved, l2a)} hit-reserved (miss pending), ${pct(n(s, 'gpu_l2_misses'), l2a)} misses of ${int(l2a)} accesses` : 'no accesses' });
  const used = n(s, 'gpu_dram_bandwidth_gbps');
  const peak = peakDramBytesPerSec === undefined ? undefined : peakDramBytesPerSec / 1e9;
  rows.push({ label: 'DRAM', value: `${used.toFixed(2)} GB/s used${peak !== undefined ? ` of ${peak.toFixed(1)} GB/s peak (${pct(used, peak)})` : ''}, ${int(n(s, 'gpu_dram_bytes'))} bytes` });
  const stalls = stallTotals(s);
  const stalled = stalls.reduce((a, x) => a + x.cycles, 0);
  if (stalled > 0) rows.push({ label: 'top stalls', value: `${stalls.slice(0, 3).map((x) => `${x.kind} ${pct(x.cycles, stalled)}`).join(', ')} of ${int(stalled)} stalled scheduler-cycles` });
  if (input.wallSeconds !== undefined && input.wallSeconds > 0) {
    rows.push({ label: 'speed', value: `${int(n(s, 'gpu_tot_warp_insts') / input.wallSeconds)} warp instructions/s (${input.wallSeconds.toFixed(2)} s wall)` });
  }
  return rows;
}
