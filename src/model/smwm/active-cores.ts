/**
 * Active-core detection arithmetic and core status table (CST) operations for ONAC (000 §4.4.2)
 * and Seq-Det (000 §4.4, after Song et al. [67]); `../specs/cta-kernel-level.md` §4, §5.
 * Pure functions over JSON rows, no XState: the statecharts that use them are
 * `machines/sm-work-manager/onac.ts` and `machines/sm-work-manager/seq-det.ts`.
 */
import { z } from 'zod';

/**
 * Parameters of the ONAC active-core policy (spec §4.3, §10 `policies.activeCores = {kind:
 * 'onac', thresholdPct, sampleWaves, sampleStart}`), the config object minus `kind`.
 */
export const onacParams = z.strictObject({
  thresholdPct: z.number().min(0).max(100).default(2).describe('saturated = within this many percent of IPC_all (percent; 000 §4.4.1.1: 2)'),
  sampleWaves: z.int().min(1).max(64).default(4).describe("sample = this many of the core's own CTA waves, counted in CTA completions (waves; 000 §4.4.2.4: 4; spec R12)"),
  sampleStart: z.enum(['afterInFlight', 'now']).default('afterInFlight').describe("when a sample window opens: after the in-flight instructions wrote back (000 §4.4.2.4; spec R2) or at once"),
});

/** Validated ONAC parameters. */
export type OnacParams = z.infer<typeof onacParams>;

/**
 * Parameters of the Seq-Det active-core policy (spec §5.2-5.3, §10). `compareTo`: `'all'`
 * compares each sample with IPC_all (spec R15, default), `'previous'` with the previous sample.
 */
export const seqDetParams = z.strictObject({
  thresholdPct: z.number().min(0).max(100).default(2).describe('saturated = within this many percent of the reference IPC (percent; as ONAC, spec R15)'),
  sampleWaves: z.int().min(1).max(64).default(4).describe("sample = this many of the core's own CTA waves (waves; as ONAC)"),
  sampleStart: z.enum(['afterInFlight', 'now']).default('afterInFlight').describe('when a sample window opens (as ONAC)'),
  compareTo: z.enum(['all', 'previous']).default('all').describe("reference of the threshold: IPC_all (spec R15) or the previous sample"),
});

/** Validated Seq-Det parameters. */
export type SeqDetParams = z.infer<typeof seqDetParams>;

/**
 * One estimation record (ER) entry: a core count and the chip IPC sampled with it, the sum of
 * the sampled cores' IPCs (000 §4.4.2.3: "When all the cores have taken their samples, the IPC is
 * summed and stored in the ER"; spec §4.9).
 */
export interface EstimationRecord {
  /** Active, unpaused cores during the sample (SMs). */
  readonly cores: number;
  /** Σ per-core IPC of those cores (thread instructions per core cycle). */
  readonly ipc: number;
}

/**
 * One row of the core status table as the detectors need it (000 §4.4.2.3: "three new fields
 * per core to this structure: active bit, paused bit and a field to record the IPCs sampled at
 * runtime. CTAs are issued only to cores which have the active bit set and paused bit unset";
 * spec §4.1 adds `gated` and `pauseAcked`). JSON.
 */
export interface CstRow {
  /** Active bit: the core takes CTAs (when also unpaused). Cleared for surplus cores at detection. */
  active: boolean;
  /** Paused bit: the core's scheduler issues nothing; its CTAs stay resident. */
  paused: boolean;
  /** The core acknowledged its pause (its in-flight instructions wrote back; 000 §4.4.2.5). */
  pauseAcked: boolean;
  /** Power-gated after draining (000 §4.4.2.5). */
  gated: boolean;
  /** IPC of the core's last sample (thread instructions per core cycle), null when not sampled. */
  ipc: number | null;
  /** A sample was requested and has not arrived. */
  sampling: boolean;
}

/** A fresh CST of `n` cores: all active, unpaused, powered (000 §4.4.2.3 "At the beginning of a kernel, all cores are active and un-paused"). */
export function freshCst(n: number): CstRow[] {
  return Array.from({ length: n }, () => ({ active: true, paused: false, pauseAcked: false, gated: false, ipc: null, sampling: false }));
}

/**
 * IPC of one core's sample window: thread instructions issued in the window over its cycles
 * (spec §4.2 "IPC per core = thread instructions issued in the window / window cycles").
 * @returns thread instructions per core cycle; 0 for an empty window
 */
export function windowIpc(threadInsts: number, cycles: number): number {
  return cycles > 0 ? threadInsts / cycles : 0;
}

/**
 * IPC_threshold = (1 − pct/100) × reference (000 §4.4.1.1: "within 2% of the performance when
 * Nactive equals 32"). The reference is IPC_all for ONAC and Seq-Det (R15).
 */
export function ipcThreshold(referenceIpc: number, thresholdPct: number): number {
  return ((100 - thresholdPct) * referenceIpc) / 100;
}

/** A sample meets the performance threshold: `ipc ≥ threshold` (000 §4.4.2.2 "greater than or equal to"). */
export function meetsThreshold(ipc: number, threshold: number): boolean {
  return ipc >= threshold;
}

/** Tolerance of {@link ceilCores}: a float intersection within 1e-9 of an integer counts as that integer. */
const CEIL_TOLERANCE = 1e-9;

/** ⌈x⌉ of a core-count intersection, ignoring float noise of 1e-9 above an integer. */
export function ceilCores(x: number): number {
  return Math.ceil(x - CEIL_TOLERANCE);
}

/**
 * The ONAC estimate of the optimal core count (000 §4.4.2.2; spec §4.2):
 * - first (`pre` null): the line through the origin with slope IPC_1 (observation 2) meets
 *   IPC_threshold at `⌈threshold / IPC_1⌉`;
 * - next: the line through `pre` and `cur` (observation 3) meets it at
 *   `⌈pre.cores + (threshold − pre.ipc) × (cur.cores − pre.cores) / (cur.ipc − pre.ipc)⌉`;
 *   with a non-positive slope (`cur.ipc ≤ pre.ipc`) the estimate is `cur.cores + 1` (spec R11);
 * - clamped to [cur.cores + 1, nMax]: an estimate at nMax needs no sample, IPC_all is known
 *   (Pathfinder: 31 → 32 "at the second estimate").
 * @param cur the record just sampled (its IPC is below the threshold)
 * @param nMax cores on the chip (SMs)
 * @returns cores (SMs), in [min(cur.cores + 1, nMax), nMax]
 */
export function onacEstimate(pre: EstimationRecord | null, cur: EstimationRecord, threshold: number, nMax: number): number {
  const p = pre ?? { cores: 0, ipc: 0 };
  let n: number;
  if (cur.ipc <= p.ipc || cur.cores <= p.cores) n = cur.cores + 1;
  else n = ceilCores(p.cores + ((threshold - p.ipc) * (cur.cores - p.cores)) / (cur.ipc - p.ipc));
  return Math.min(Math.max(n, cur.cores + 1), nMax);
}

/**
 * Marks every active, unpaused core as sampling (its IPC cleared) for a new sample round.
 * @returns the new rows and the cores asked, ascending
 */
export function requestSampleRound(cores: readonly CstRow[]): { cores: CstRow[]; sms: number[] } {
  const sms: number[] = [];
  const next = cores.map((c, i) => {
    if (!c.active || c.paused) return { ...c, sampling: false };
    sms.push(i);
    return { ...c, ipc: null, sampling: true };
  });
  return { cores: next, sms };
}

/** Is core `sm` waiting for a sample? */
export function awaitsSample(cores: readonly CstRow[], sm: number): boolean {
  return cores[sm]?.sampling === true;
}

/** Records the IPC of core `sm`'s sample (a core not waiting for one is left as it is). */
export function recordSample(cores: readonly CstRow[], sm: number, ipc: number): CstRow[] {
  return cores.map((c, i) => (i === sm && c.sampling ? { ...c, ipc, sampling: false } : c));
}

/** Every requested sample of the round has arrived. */
export function roundComplete(cores: readonly CstRow[]): boolean {
  return cores.every((c) => !c.sampling);
}

/** The ER entry of a completed round: the active, unpaused cores and the sum of their IPCs. */
export function roundRecord(cores: readonly CstRow[]): EstimationRecord {
  let n = 0;
  let ipc = 0;
  for (const c of cores) {
    if (!c.active || c.paused) continue;
    n++;
    ipc += c.ipc ?? 0;
  }
  return { cores: n, ipc };
}

/** Sets the paused bit of `sms` (acknowledgement pending). */
export function pauseCores(cores: readonly CstRow[], sms: readonly number[]): CstRow[] {
  return cores.map((c, i) => (sms.includes(i) ? { ...c, paused: true, pauseAcked: false } : c));
}

/** Records core `sm`'s pause acknowledgement (ignored unless it is paused). */
export function ackPause(cores: readonly CstRow[], sm: number): CstRow[] {
  return cores.map((c, i) => (i === sm && c.paused ? { ...c, pauseAcked: true } : c));
}

/** Every paused core has acknowledged. */
export function pausesAcked(cores: readonly CstRow[]): boolean {
  return cores.every((c) => !c.paused || c.pauseAcked);
}

/**
 * Un-pauses the paused cores with index < `upTo` (ascending: spec R13).
 * @returns the new rows and the cores to send `ctrl.resume`
 */
export function unpauseBelow(cores: readonly CstRow[], upTo: number): { cores: CstRow[]; resumed: number[] } {
  const resumed: number[] = [];
  const next = cores.map((c, i) => {
    if (i >= upTo || !c.paused) return c;
    resumed.push(i);
    return { ...c, paused: false, pauseAcked: false };
  });
  return { cores: next, resumed };
}

/**
 * Applies a decided core count (spec §4.2 `detected`): cores `0..nOpt−1` stay active and are
 * un-paused; cores `nOpt..` lose their active bit and are un-paused too, so they drain their
 * resident CTAs (resume issue, no new CTAs; 000 §4.4.2.5 "the cores that are paused, are drained
 * and power-gated").
 * @returns the new rows and the cores to send `ctrl.resume` (ascending)
 */
export function adoptCoreCount(cores: readonly CstRow[], nOpt: number): { cores: CstRow[]; resumed: number[] } {
  const resumed: number[] = [];
  const next = cores.map((c, i) => {
    if (c.paused) resumed.push(i);
    return { ...c, active: i < nOpt, paused: false, pauseAcked: false, sampling: false };
  });
  return { cores: next, resumed };
}

/** Makes every core active and un-paused (abort); returns the cores to resume. */
export function releaseAll(cores: readonly CstRow[]): { cores: CstRow[]; resumed: number[] } {
  return adoptCoreCount(cores, cores.length);
}

/** A core without its active bit that is not gated yet. */
export function isSurplus(cores: readonly CstRow[], sm: number): boolean {
  const c = cores[sm];
  return c !== undefined && !c.active && !c.gated;
}

/** Marks core `sm` gated. */
export function gateCore(cores: readonly CstRow[], sm: number): CstRow[] {
  return cores.map((c, i) => (i === sm ? { ...c, gated: true } : c));
}

/** Every core without its active bit is gated. */
export function surplusGated(cores: readonly CstRow[]): boolean {
  return cores.every((c) => c.active || c.gated);
}
