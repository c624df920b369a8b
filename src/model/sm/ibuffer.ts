/**
 * Per-warp instruction buffer (iBuffer) of the baseline pipeline (paper 002 ch. 3 and §4:
 * "In the baseline, it has two entries, and the fetch stage retrieves two instructions when it
 * is empty ... Only the oldest instruction in the Instruction Buffer is considered as a
 * candidate to be issued. Once a instruction is issued, the entry is freed").
 *
 * Each warp has `entries` slots with a valid bit and the PC of the decoded instruction held in
 * it. Fetch/decode fills slots at the tail, issue consumes from the head in program order, and a
 * control hazard flushes the warp's buffer: GPGPU-Sim compares, at issue, the PC of the oldest
 * buffered instruction with the next PC at the top of the warp's SIMT stack and flushes when
 * they differ (taken branch, divergence, reconvergence), see {@link flushIfPcDiffers}.
 *
 * A per-warp generation counter, incremented by every flush, lets the fetch unit drop an
 * instruction that was fetched before the flush and arrives after it.
 *
 * Storage (PCs, valid bits, item references, head/count per warp) is allocated once; no method
 * allocates. The out-of-order SOCGPU buffer (002 §4) is a different structure and is not modelled
 * here.
 */
import { SimulationError } from '../../errors.ts';
import type { SourceLocation } from '../../errors.ts';
import { PARAMS_LOCATION, requireInt } from './validate.ts';

/** Parameters of an {@link InstructionBuffer}. */
export interface InstructionBufferParams {
  /** Warp slots (warps per SM). Integer >= 1. */
  readonly numWarps: number;
  /** Entries per warp; default 2 (GPGPU-Sim `-gpgpu_ibuffer_size`, 002 §4 baseline). Integer >= 1. */
  readonly entries?: number;
}

/**
 * The iBuffers of all warps of one SM. `T` is whatever the decode stage produces (a decoded
 * {@link Instruction}, a trace record); the buffer only stores references.
 */
export class InstructionBuffer<T> {
  /** Warp slots. */
  readonly numWarps: number;
  /** Entries per warp. */
  readonly entries: number;

  /** `[warp * entries + slot]`: PC of the buffered instruction (PTX instruction index or byte address). */
  private readonly pcs: Float64Array;
  /** `[warp * entries + slot]`: 1 when the slot holds an instruction. */
  private readonly valid: Uint8Array;
  /** `[warp * entries + slot]`: the buffered item. */
  private readonly items: (T | undefined)[];
  /** Physical slot of the oldest entry per warp. */
  private readonly heads: Int32Array;
  /** Valid entries per warp. */
  private readonly counts: Int32Array;
  /** Flush counter per warp. */
  private readonly generations: Int32Array;

  /**
   * @throws InputError when `numWarps` or `entries` is not a positive integer.
   */
  constructor(params: InstructionBufferParams, where: SourceLocation = PARAMS_LOCATION) {
    this.numWarps = requireInt(params.numWarps, 'iBuffer.numWarps', 1, 1 << 16, where);
    this.entries = requireInt(params.entries ?? 2, 'iBuffer.entries', 1, 1024, where);
    const n = this.numWarps * this.entries;
    this.pcs = new Float64Array(n);
    this.valid = new Uint8Array(n);
    this.items = new Array<T | undefined>(n).fill(undefined);
    this.heads = new Int32Array(this.numWarps);
    this.counts = new Int32Array(this.numWarps);
    this.generations = new Int32Array(this.numWarps);
  }

  /** Number of buffered instructions of `warp`. */
  size(warp: number): number {
    return this.counts[warp] ?? 0;
  }

  /** True when `warp` has no buffered instruction (GPGPU-Sim's fetch refills only then). */
  isEmpty(warp: number): boolean {
    return this.counts[warp] === 0;
  }

  /** True when every entry of `warp` is valid. */
  isFull(warp: number): boolean {
    return this.counts[warp] === this.entries;
  }

  /** Free entries of `warp`. */
  freeEntries(warp: number): number {
    return this.entries - (this.counts[warp] ?? this.entries);
  }

  /**
   * Valid bit of physical slot `slot` of `warp` (slots are used as a ring; {@link entryPc}
   * addresses entries in program order instead).
   */
  isValid(warp: number, slot: number): boolean {
    return slot >= 0 && slot < this.entries && this.valid[warp * this.entries + slot] === 1;
  }

  /**
   * Appends a decoded instruction at the tail (the decode stage filling the buffer).
   *
   * @param warp warp slot.
   * @param pc its PC.
   * @param item the decoded instruction.
   * @throws SimulationError when the warp's buffer is full or `warp` is out of range.
   */
  fill(warp: number, pc: number, item: T): void {
    this.checkWarp(warp);
    const count = this.counts[warp]!;
    if (count === this.entries) {
      throw new SimulationError(`iBuffer: fill of warp ${warp} with all ${this.entries} entries valid`, { warp, pc });
    }
    const slot = (this.heads[warp]! + count) % this.entries;
    const at = warp * this.entries + slot;
    this.pcs[at] = pc;
    this.valid[at] = 1;
    this.items[at] = item;
    this.counts[warp] = count + 1;
  }

  /**
   * Like {@link fill}, but only when the warp's buffer has not been flushed since the fetch
   * started (`generation` is what {@link generation} returned then) and has room.
   *
   * @returns true when the instruction was stored, false when it was dropped.
   */
  fillIfCurrent(warp: number, generation: number, pc: number, item: T): boolean {
    if (this.generations[warp] !== generation || this.counts[warp] === this.entries) return false;
    this.fill(warp, pc, item);
    return true;
  }

  /** The oldest buffered instruction of `warp` (the issue candidate), or `undefined`. */
  head(warp: number): T | undefined {
    if (!(this.counts[warp]! > 0)) return undefined;
    return this.items[warp * this.entries + this.heads[warp]!];
  }

  /** PC of the oldest buffered instruction of `warp`, or -1 when empty. */
  headPc(warp: number): number {
    if (!(this.counts[warp]! > 0)) return -1;
    return this.pcs[warp * this.entries + this.heads[warp]!]!;
  }

  /** The `i`-th buffered instruction of `warp` in program order (0 = oldest), or `undefined`. */
  entry(warp: number, i: number): T | undefined {
    if (!(i >= 0 && i < this.counts[warp]!)) return undefined;
    return this.items[warp * this.entries + ((this.heads[warp]! + i) % this.entries)];
  }

  /** PC of the `i`-th buffered instruction of `warp` in program order, or -1. */
  entryPc(warp: number, i: number): number {
    if (!(i >= 0 && i < this.counts[warp]!)) return -1;
    return this.pcs[warp * this.entries + ((this.heads[warp]! + i) % this.entries)]!;
  }

  /**
   * Removes and returns the oldest instruction of `warp` (the issue stage consuming it).
   *
   * @throws SimulationError when the buffer is empty.
   */
  consume(warp: number): T {
    this.checkWarp(warp);
    const count = this.counts[warp]!;
    if (count === 0) throw new SimulationError(`iBuffer: issue from warp ${warp} with an empty buffer`, { warp });
    const head = this.heads[warp]!;
    const at = warp * this.entries + head;
    const item = this.items[at] as T;
    this.items[at] = undefined;
    this.valid[at] = 0;
    this.heads[warp] = (head + 1) % this.entries;
    this.counts[warp] = count - 1;
    return item;
  }

  /**
   * Invalidates every entry of `warp` and bumps its generation.
   *
   * @returns the number of instructions discarded.
   */
  flush(warp: number): number {
    this.checkWarp(warp);
    const count = this.counts[warp]!;
    const base = warp * this.entries;
    for (let s = 0; s < this.entries; s++) {
      this.valid[base + s] = 0;
      this.items[base + s] = undefined;
    }
    this.heads[warp] = 0;
    this.counts[warp] = 0;
    this.generations[warp] = (this.generations[warp]! + 1) | 0;
    return count;
  }

  /**
   * The control-hazard check done at issue: when the buffer is not empty and its oldest
   * instruction's PC differs from `nextPc` (the PC at the top of the warp's SIMT stack after a
   * taken branch, a divergence or a reconvergence), the buffer holds the wrong path and is
   * flushed.
   *
   * @returns true when it flushed.
   */
  flushIfPcDiffers(warp: number, nextPc: number): boolean {
    if (!(this.counts[warp]! > 0)) return false;
    if (this.pcs[warp * this.entries + this.heads[warp]!] === nextPc) return false;
    this.flush(warp);
    return true;
  }

  /** Flush counter of `warp`: read it when a fetch starts and pass it to {@link fillIfCurrent}. */
  generation(warp: number): number {
    return this.generations[warp] ?? 0;
  }

  /** Flushes every warp's buffer (each generation advances, so fetches in flight are dropped). */
  reset(): void {
    for (let w = 0; w < this.numWarps; w++) this.flush(w);
  }

  private checkWarp(warp: number): void {
    if (!(Number.isInteger(warp) && warp >= 0 && warp < this.numWarps)) {
      throw new SimulationError(`iBuffer: warp ${warp} out of range [0, ${this.numWarps})`, { warp, numWarps: this.numWarps });
    }
  }
}
