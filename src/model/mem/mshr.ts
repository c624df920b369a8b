/**
 * MSHR table (miss status holding registers), after GPGPU-Sim's `mshr_table` (`gpu-cache.cc`:
 * `probe`, `full`, `add`, `mark_ready`/`next_access`). One entry per line address with a miss
 * in flight; each entry holds up to `maxMerge` requests (the one that missed first and the later
 * ones merged into it), which are all answered when the line's fill arrives.
 *
 * A failed `add` is one of the L1D reservation failures that paper 001 (§2.1, §3.3) counts:
 * no free entry for a new line (`mshrFull`, GPGPU-Sim `MSHR_ENRTY_FAIL`) or the line's entry
 * already holds `maxMerge` requests (`mergeFull`, `MSHR_MERGE_ENRTY_FAIL`).
 *
 * GTX480 (`gpgpusim.config`): L1D MSHR field `S:64:8` = 64 entries of up to 8 requests; L2
 * field `A:256:4` = 256 entries of up to 4 requests.
 *
 * Request ids are plain numbers chosen by the caller (integers below 2^53). Entries live in
 * preallocated typed arrays; a `Map` from line address to entry slot gives O(1) lookup.
 * Results of {@link MshrTable.ready} go into the reused {@link MshrTable.readyIds}.
 */

import { intParam } from './params.ts';

/** Parameters of an {@link MshrTable}. */
export interface MshrParams {
  /** Number of entries (distinct lines in flight). */
  readonly entries: number;
  /** Most requests one entry holds, counting the first one (GPGPU-Sim `max_merged`). */
  readonly maxMerge: number;
}

/** Result codes of {@link MshrTable.add}. */
export const MshrAddResult = { newEntry: 0, merged: 1, mshrFull: 2, mergeFull: 3 } as const;
/** A {@link MshrAddResult} code. */
export type MshrAddResult = (typeof MshrAddResult)[keyof typeof MshrAddResult];
/** Name of each {@link MshrAddResult}, indexed by code. */
export const MSHR_ADD_RESULT_NAME: readonly string[] = Object.freeze(['newEntry', 'merged', 'mshrFull', 'mergeFull']);

const MODEL = 'MshrParams';

/** MSHR table (see the file comment). */
export class MshrTable {
  /** Number of entries. */
  readonly entries: number;
  /** Requests per entry. */
  readonly maxMerge: number;
  /** Request ids answered by the last {@link ready}, in arrival order (first `readyCount`). */
  readonly readyIds: Float64Array;
  /** Number of valid ids in {@link readyIds}. */
  readyCount = 0;
  /** Whether the entry released by the last {@link ready} was marked dirty by one of its requests. */
  readyDirty = false;

  /** Successful adds that opened an entry. */
  newEntries = 0;
  /** Successful adds merged into an entry. */
  merges = 0;
  /** Adds refused for lack of a free entry. */
  mshrFullFails = 0;
  /** Adds refused because the entry was full. */
  mergeFullFails = 0;
  /** Highest occupancy seen. */
  peakOccupancy = 0;

  private readonly slotOf = new Map<number, number>();
  private readonly slotAddr: Float64Array;
  private readonly slotCount: Int32Array;
  private readonly slotDirty: Uint8Array;
  private readonly slotIds: Float64Array;
  private readonly free: Int32Array;
  private freeTop: number;

  /** @throws InputError for a bad parameter (field named). */
  constructor(params: MshrParams) {
    this.entries = intParam(MODEL, 'entries', params.entries, 1, 1 << 20);
    this.maxMerge = intParam(MODEL, 'maxMerge', params.maxMerge, 1, 1 << 16);
    this.readyIds = new Float64Array(this.maxMerge);
    this.slotAddr = new Float64Array(this.entries);
    this.slotCount = new Int32Array(this.entries);
    this.slotDirty = new Uint8Array(this.entries);
    this.slotIds = new Float64Array(this.entries * this.maxMerge);
    this.free = new Int32Array(this.entries);
    for (let i = 0; i < this.entries; i++) this.free[i] = this.entries - 1 - i;
    this.freeTop = this.entries;
  }

  /** Entries in use. */
  get occupancy(): number {
    return this.entries - this.freeTop;
  }

  /** True when a miss to `lineAddr` is already in flight (GPGPU-Sim `mshr_table::probe`). */
  probe(lineAddr: number): boolean {
    return this.slotOf.has(lineAddr);
  }

  /**
   * GPGPU-Sim `mshr_table::full`: for a line in flight, whether its entry holds `maxMerge`
   * requests; otherwise whether every entry is in use.
   */
  full(lineAddr: number): boolean {
    const s = this.slotOf.get(lineAddr);
    if (s !== undefined) return this.slotCount[s]! >= this.maxMerge;
    return this.freeTop === 0;
  }

  /** Requests held for `lineAddr` (0 when no entry). */
  mergedCount(lineAddr: number): number {
    const s = this.slotOf.get(lineAddr);
    return s === undefined ? 0 : this.slotCount[s]!;
  }

  /**
   * Adds request `reqId` for `lineAddr`: merges into the line's entry or opens a new one.
   * `dirty` marks the entry so the line is installed modified on fill (a write merged into a
   * read miss of a write-back cache; GPGPU-Sim's `m_has_atomic` plays this role for atomics).
   * Returns `newEntry`, `merged`, or the failure `mshrFull` / `mergeFull` (nothing changed).
   */
  add(lineAddr: number, reqId: number, dirty = false): MshrAddResult {
    let s = this.slotOf.get(lineAddr);
    if (s !== undefined) {
      const n = this.slotCount[s]!;
      if (n >= this.maxMerge) {
        this.mergeFullFails++;
        return MshrAddResult.mergeFull;
      }
      this.slotIds[s * this.maxMerge + n] = reqId;
      this.slotCount[s] = n + 1;
      if (dirty) this.slotDirty[s] = 1;
      this.merges++;
      return MshrAddResult.merged;
    }
    if (this.freeTop === 0) {
      this.mshrFullFails++;
      return MshrAddResult.mshrFull;
    }
    s = this.free[--this.freeTop]!;
    this.slotOf.set(lineAddr, s);
    this.slotAddr[s] = lineAddr;
    this.slotCount[s] = 1;
    this.slotDirty[s] = dirty ? 1 : 0;
    this.slotIds[s * this.maxMerge] = reqId;
    this.newEntries++;
    const occ = this.entries - this.freeTop;
    if (occ > this.peakOccupancy) this.peakOccupancy = occ;
    return MshrAddResult.newEntry;
  }

  /**
   * The fill of `lineAddr` arrived: releases its entry and copies its requests, in arrival
   * order, to {@link readyIds}; sets {@link readyDirty}. Returns their number (0 when the line
   * had no entry).
   */
  ready(lineAddr: number): number {
    const s = this.slotOf.get(lineAddr);
    if (s === undefined) {
      this.readyCount = 0;
      this.readyDirty = false;
      return 0;
    }
    const n = this.slotCount[s]!;
    const base = s * this.maxMerge;
    for (let i = 0; i < n; i++) this.readyIds[i] = this.slotIds[base + i]!;
    this.readyCount = n;
    this.readyDirty = this.slotDirty[s] === 1;
    this.slotOf.delete(lineAddr);
    this.slotCount[s] = 0;
    this.free[this.freeTop++] = s;
    return n;
  }

  /** Line addresses in flight, ascending (for reports and debugging; allocates). */
  lineAddrs(): number[] {
    return [...this.slotOf.keys()].sort((a, b) => a - b);
  }

  /** Drops every entry (statistics are kept). */
  clear(): void {
    this.slotOf.clear();
    for (let i = 0; i < this.entries; i++) this.free[i] = this.entries - 1 - i;
    this.freeTop = this.entries;
  }
}
