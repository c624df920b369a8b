/**
 * {@link FunctionalCta}: one CTA of a launch: its shared memory, its warps, and the state of its
 * 16 named barriers (PTX ISA §9.7.13.4 `bar`/`barrier`).
 *
 * Barrier model: a warp arrives at barrier `id` when it executes `bar.sync`/`bar.arrive` with at
 * least one active lane (warp granularity, as on pre-Volta GPUs and in GPGPU-Sim). Without a
 * thread count the barrier completes when every warp of the CTA that has not exited arrived;
 * with a count `b` (a multiple of 32) when `b / 32` warps arrived. `bar.sync` blocks the warp
 * until completion, `bar.arrive` does not. A warp that exits no longer counts, which may complete
 * a barrier the others wait at.
 *
 * `bar.red` (PTX ISA §9.7.13.4) is a `bar.sync` that also reduces a predicate: each arriving
 * warp adds its active lanes' predicates (popc: the count of true ones; and: all true; or: any
 * true) and, when the barrier completes, every lane that took part gets the result in its
 * destination register, before any of the released warps runs again.
 */

import { BarRedOp } from '../isa/ir.ts';
import type { Slot } from './exec-types.ts';
import type { Dim3, FunctionalKernel } from './kernel.ts';
import { ByteStore } from './memory.ts';
import { popc32 } from './ops/int.ts';
import { FunctionalWarp } from './warp.ts';

/** A CTA being executed. */
export class FunctionalCta {
  readonly kernel: FunctionalKernel;
  /** CTA id (`%ctaid`). */
  get ctaId(): Dim3 {
    return this.id;
  }
  /** SM the CTA runs on (`%smid`). */
  get smId(): number {
    return this.sm;
  }
  private id: Dim3;
  private sm: number;
  /** Shared memory (static variables first, dynamic shared memory after them). */
  readonly shared: ByteStore;
  /** The warps, by warp index. */
  readonly warps: readonly FunctionalWarp[];
  /** Warps that have not exited. */
  liveWarps: number;
  /** Warps arrived at each barrier in the current round. */
  private readonly arrived = new Int32Array(16);
  /** Warps expected at each barrier in the current round (0: all live warps). */
  private readonly expected = new Int32Array(16);
  /** `bar.red` state per barrier in the current round: threads with a true predicate, whether all / any were true. */
  private readonly redCount = new Int32Array(16);
  private readonly redAll = new Uint8Array(16).fill(1);
  private readonly redAny = new Uint8Array(16);

  constructor(kernel: FunctionalKernel, ctaId: Dim3, smId: number) {
    this.kernel = kernel;
    this.id = ctaId;
    this.sm = smId;
    this.shared = new ByteStore(Math.max(8, kernel.sharedBytes));
    const warps: FunctionalWarp[] = [];
    for (let w = 0; w < kernel.warpsPerCta; w++) warps.push(new FunctionalWarp(this, w));
    this.warps = warps;
    this.liveWarps = warps.filter((w) => !w.done).length;
    if (this.liveWarps === 0) kernel.ctaCompleted();
  }

  /**
   * Re-initialises this CTA object as CTA `ctaId` on SM `smId` (shared memory zeroed, warps at
   * the entry). Used by `FunctionalKernel.createCta` to recycle released CTAs.
   */
  reinit(ctaId: Dim3, smId: number): void {
    this.id = ctaId;
    this.sm = smId;
    this.shared.u8.fill(0);
    this.arrived.fill(0);
    this.expected.fill(0);
    this.redCount.fill(0);
    this.redAll.fill(1);
    this.redAny.fill(0);
    this.liveWarps = this.kernel.warpsPerCta;
    for (const w of this.warps) {
      w.reset();
      if (w.done) this.liveWarps--;
    }
    if (this.liveWarps === 0) this.kernel.ctaCompleted();
  }

  /** True when every warp finished. */
  get done(): boolean {
    return this.liveWarps === 0;
  }

  /**
   * A warp arrives at barrier `id` (0..15). `threadCount` 0 means all threads of the CTA.
   * With `wait` the warp blocks until the barrier completes (it may complete at once).
   */
  arrive(warp: FunctionalWarp, id: number, threadCount: number, wait: boolean): void {
    if (threadCount > 0) this.expected[id] = Math.ceil(threadCount / 32);
    this.arrived[id]!++;
    if (wait) warp.atBarrier = id;
    this.tryRelease(id);
  }

  /**
   * A warp arrives at barrier `id` with `bar.red` (it waits, as with `bar.sync`): `active` are
   * its participating lanes, `trueLanes` those whose predicate is true; `dst` receives the
   * result in those lanes when the barrier completes.
   */
  arriveRed(warp: FunctionalWarp, id: number, threadCount: number, op: BarRedOp, trueLanes: number, active: number, dst: Slot): void {
    this.redCount[id]! += popc32(trueLanes);
    if (trueLanes !== active) this.redAll[id] = 0;
    if (trueLanes !== 0) this.redAny[id] = 1;
    warp.redBarrier = id;
    warp.redOp = op;
    warp.redMask = active;
    warp.redDst = dst;
    this.arrive(warp, id, threadCount, true);
  }

  /** Called by a warp when its last lane exits. */
  warpExited(_warp: FunctionalWarp): void {
    this.liveWarps--;
    for (let id = 0; id < 16; id++) if (this.arrived[id]! > 0) this.tryRelease(id);
    if (this.liveWarps === 0) this.kernel.ctaCompleted();
  }

  private tryRelease(id: number): void {
    const need = this.expected[id]! > 0 ? this.expected[id]! : this.liveWarps;
    if (this.arrived[id]! < need) return;
    this.arrived[id] = 0;
    this.expected[id] = 0;
    const count = this.redCount[id]!;
    const all = this.redAll[id] === 1;
    const any = this.redAny[id] === 1;
    this.redCount[id] = 0;
    this.redAll[id] = 1;
    this.redAny[id] = 0;
    for (const w of this.warps) {
      if (w.redBarrier === id) {
        const d = w.redDst!;
        const m = w.redMask;
        if (w.redOp === BarRedOp.Popc) {
          for (let l = 0; l < 32; l++) if ((m >>> l) & 1) w.u32[d.slot + l] = count;
        } else {
          const v = (w.redOp === BarRedOp.And ? all : any) ? -1 : 0;
          w.preds[d.slot] = (w.preds[d.slot]! & ~m) | (v & m);
        }
        w.redBarrier = -1;
      }
      if (w.atBarrier === id) w.atBarrier = -1;
    }
  }

  /** Barrier ids with waiting warps, and how many arrived of how many needed (for deadlock reports). */
  barrierState(): { id: number; arrived: number; needed: number; waiting: number[] }[] {
    const out: { id: number; arrived: number; needed: number; waiting: number[] }[] = [];
    for (let id = 0; id < 16; id++) {
      const waiting = this.warps.filter((w) => w.atBarrier === id).map((w) => w.warpIndex);
      if (waiting.length === 0 && this.arrived[id] === 0) continue;
      out.push({ id, arrived: this.arrived[id]!, needed: this.expected[id]! > 0 ? this.expected[id]! : this.liveWarps, waiting });
    }
    return out;
  }
}
