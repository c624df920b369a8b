/**
 * Cache tag array: sets x ways of lines with a state, a set index function, LRU or FIFO
 * replacement and allocation on miss or on fill, after GPGPU-Sim's `tag_array` (`gpu-cache.cc`:
 * `probe`, `access`, `fill`, `flush`) and `cache_config::set_index`. It is the storage part of
 * the L1D and L2 models (`cache.ts`); no data is stored, only tags and states.
 *
 * ## Line states
 * `invalid`, `reserved` (allocated on a miss, fill pending), `valid` (clean), `modified` (dirty,
 * must be written back when evicted). Each line keeps the full block address as its tag (as
 * GPGPU-Sim does, so hashed set indices never alias).
 *
 * ## probe(addr)
 * `hit` when a valid or modified line holds the block; `hitReserved` when a reserved line holds
 * it; otherwise `miss` with a replacement candidate (the first invalid way, else the
 * least-recently-used (`lru`) or earliest-allocated (`fifo`) non-reserved way), or `missNoLine`
 * when every way of the set is reserved (GPGPU-Sim's `RESERVATION_FAIL` from the tag array,
 * counted as reason `LINE_ALLOC_FAIL`; only possible with allocation on miss).
 *
 * ## Allocation policy
 * - `onMiss` (GPGPU-Sim `m`): `access` of a missing block reserves the victim way at once; the
 *   victim (with its dirty flag) is reported so a write-back can be sent; `fill` later turns the
 *   reserved line valid.
 * - `onFill` (GPGPU-Sim `f`): nothing is reserved on a miss; `fill` picks the victim and installs
 *   the line valid, reporting the victim then.
 *
 * ## Recency
 * Recency is an internal counter incremented on every touch, not the cycle number, so several
 * accesses in one cycle still have a strict LRU order (GPGPU-Sim uses the cycle, where equal
 * times fall back to the lowest way).
 *
 * ## Set index functions
 * - `linear`: `floor(addr / lineBytes) mod sets`.
 * - `xor` (GPGPU-Sim `X`, `bitwise_hash_function`): the linear index XOR the next log2(sets)
 *   address bits above it: `(floor(addr / lineBytes) ^ floor(addr / (lineBytes * sets))) mod sets`.
 * - `fermiHash` (GPGPU-Sim `H`, `FERMI_HASH_SET_FUNCTION`, from Nugteren et al., "A detailed
 *   GPU cache model based on reuse distance theory", HPCA 2014): only for 32 or 64 sets. With
 *   `L = log2(lineBytes)`: `lower = addr bits [L, L+5)`; `upper` = address bits 13, 14, 15, 17,
 *   19 packed into bits 0..4; `set = lower ^ upper`; with 64 sets, address bit 12 becomes set
 *   bit 5. This is the `H` of the GTX480 L1D config `N:32:128:4,L:L:m:N:H`.
 *
 * Callers that index a cache slice by a partition-local address (GPGPU-Sim's L2 uses
 * `partition_address(addr)` to remove the channel bits, see `address-map.ts`) pass that address.
 */

import { SimulationError } from '../../errors.ts';
import { choiceParam, intParam, log2, paramError, pow2Param, TWO_POW_32 } from './params.ts';

/** Set index function name (see the file comment). */
export type SetIndexFunction = 'linear' | 'xor' | 'fermiHash';
/** Replacement policy among non-reserved ways. */
export type ReplacementPolicy = 'lru' | 'fifo';
/** When a missing line gets its way: at the miss (`onMiss`) or when the fill arrives (`onFill`). */
export type AllocationPolicy = 'onMiss' | 'onFill';

/** Parameters of a {@link TagArray}. GTX480 L1D: 32 sets, 4 ways, 128 B, fermiHash, lru, onMiss. */
export interface TagArrayParams {
  /** Number of sets (power of two). */
  readonly sets: number;
  /** Ways per set (associativity), >= 1. */
  readonly ways: number;
  /** Line size in bytes (power of two). */
  readonly lineBytes: number;
  /** Set index function; default `linear`. */
  readonly setIndex?: SetIndexFunction;
  /** Replacement policy; default `lru`. */
  readonly replacement?: ReplacementPolicy;
  /** Allocation policy; default `onMiss`. */
  readonly allocate?: AllocationPolicy;
}

/** Line state codes. */
export const LineState = { invalid: 0, reserved: 1, valid: 2, modified: 3 } as const;
/** A {@link LineState} code. */
export type LineState = (typeof LineState)[keyof typeof LineState];
/** Name of each {@link LineState}, indexed by code. */
export const LINE_STATE_NAME: readonly string[] = Object.freeze(['invalid', 'reserved', 'valid', 'modified']);

/** Result codes of {@link TagArray.probe} / {@link TagArray.access}. */
export const ProbeStatus = { hit: 0, hitReserved: 1, miss: 2, missNoLine: 3 } as const;
/** A {@link ProbeStatus} code. */
export type ProbeStatus = (typeof ProbeStatus)[keyof typeof ProbeStatus];
/** Name of each {@link ProbeStatus}, indexed by code. */
export const PROBE_STATUS_NAME: readonly string[] = Object.freeze(['hit', 'hitReserved', 'miss', 'missNoLine']);

const MODEL = 'TagArrayParams';

/** A set-associative tag array (see the file comment). Line `i` is way `i % ways` of set `floor(i / ways)`. */
export class TagArray {
  /** Number of sets. */
  readonly sets: number;
  /** Ways per set. */
  readonly ways: number;
  /** Line size in bytes. */
  readonly lineBytes: number;
  /** Set index function. */
  readonly setIndex: SetIndexFunction;
  /** Replacement policy. */
  readonly replacement: ReplacementPolicy;
  /** Allocation policy. */
  readonly allocation: AllocationPolicy;
  /** sets x ways. */
  readonly numLines: number;
  /** Block address held by each line (meaningful when its state is not invalid). */
  readonly lineAddr: Float64Array;
  /** {@link LineState} of each line. */
  readonly state: Uint8Array;
  /** Recency stamp of the last touch of each line (LRU). */
  readonly lastAccess: Float64Array;
  /** Recency stamp of the allocation of each line (FIFO). */
  readonly allocTime: Float64Array;

  /** Line index found by the last probe/access/allocate/fill: the hit line or the chosen victim; -1 for missNoLine. */
  index = -1;
  /** Whether the last allocation (allocate, access on miss with onMiss, fill with onFill) evicted a line. */
  victimValid = false;
  /** Block address of that evicted line (-1 when none). */
  victimAddr = -1;
  /** Whether that evicted line was modified (needs a write-back). */
  victimDirty = false;

  /** Calls of {@link access}. */
  accesses = 0;
  /** {@link access} calls that hit. */
  hits = 0;
  /** {@link access} calls that hit a reserved line (pending hits). */
  pendingHits = 0;
  /** {@link access} calls that missed. */
  misses = 0;
  /** {@link access} calls that found every way reserved. */
  resFails = 0;

  private stamp = 0;
  private readonly lineLog2: number;
  private readonly setsLog2: number;

  /** @throws InputError for a bad parameter (field named). */
  constructor(params: TagArrayParams) {
    this.sets = pow2Param(MODEL, 'sets', params.sets);
    this.ways = intParam(MODEL, 'ways', params.ways, 1, 4096);
    this.lineBytes = pow2Param(MODEL, 'lineBytes', params.lineBytes, 1, 1 << 20);
    this.setIndex = choiceParam(MODEL, 'setIndex', params.setIndex, ['linear', 'xor', 'fermiHash'] as const, 'linear');
    this.replacement = choiceParam(MODEL, 'replacement', params.replacement, ['lru', 'fifo'] as const, 'lru');
    this.allocation = choiceParam(MODEL, 'allocate', params.allocate, ['onMiss', 'onFill'] as const, 'onMiss');
    if (this.setIndex === 'fermiHash' && this.sets !== 32 && this.sets !== 64) {
      throw paramError(MODEL, 'setIndex', `fermiHash needs 32 or 64 sets, got ${this.sets}`);
    }
    this.lineLog2 = log2(this.lineBytes);
    this.setsLog2 = log2(this.sets);
    this.numLines = this.sets * this.ways;
    this.lineAddr = new Float64Array(this.numLines).fill(-1);
    this.state = new Uint8Array(this.numLines);
    this.lastAccess = new Float64Array(this.numLines);
    this.allocTime = new Float64Array(this.numLines);
  }

  /** Block (line) address of byte address `addr`. */
  blockAddr(addr: number): number {
    return addr - (addr % this.lineBytes);
  }

  /** Set index of byte address `addr` under the configured function. */
  setOf(addr: number): number {
    const block = Math.floor(addr / this.lineBytes);
    switch (this.setIndex) {
      case 'linear':
        return block % this.sets;
      case 'xor': {
        const higher = Math.floor(block / this.sets) % this.sets;
        return ((block % this.sets) ^ higher) & (this.sets - 1);
      }
      default: {
        const lo = addr % TWO_POW_32; // bits 0..31 are all the hash reads
        const lower = (lo >>> this.lineLog2) & 0x1f;
        const upper = ((lo >>> 13) & 7) | (((lo >>> 17) & 1) << 3) | (((lo >>> 19) & 1) << 4);
        let set = lower ^ upper;
        if (this.setsLog2 === 6) set |= ((lo >>> 12) & 1) << 5;
        return set;
      }
    }
  }

  /**
   * Looks `addr` up without changing anything. Sets {@link index} to the hit line or the
   * replacement candidate (-1 for missNoLine).
   */
  probe(addr: number): ProbeStatus {
    const tag = this.blockAddr(addr);
    const first = this.setOf(addr) * this.ways;
    let invalid = -1;
    let victim = -1;
    let victimStamp = Infinity;
    const lru = this.replacement === 'lru';
    for (let i = first; i < first + this.ways; i++) {
      const st = this.state[i]!;
      if (st !== LineState.invalid && this.lineAddr[i] === tag) {
        this.index = i;
        return st === LineState.reserved ? ProbeStatus.hitReserved : ProbeStatus.hit;
      }
      if (st === LineState.invalid) {
        if (invalid < 0) invalid = i;
      } else if (st !== LineState.reserved) {
        const s = lru ? this.lastAccess[i]! : this.allocTime[i]!;
        if (s < victimStamp) {
          victimStamp = s;
          victim = i;
        }
      }
    }
    if (invalid >= 0) {
      this.index = invalid;
      return ProbeStatus.miss;
    }
    this.index = victim;
    return victim >= 0 ? ProbeStatus.miss : ProbeStatus.missNoLine;
  }

  /**
   * GPGPU-Sim `tag_array::access`: probes `addr`, counts the outcome, makes a hit or pending hit
   * most recently used and, on a miss with `onMiss` allocation, reserves the victim way
   * ({@link victimValid}/{@link victimAddr}/{@link victimDirty} tell what was evicted).
   */
  access(addr: number): ProbeStatus {
    this.accesses++;
    const status = this.probe(addr);
    switch (status) {
      case ProbeStatus.hit:
        this.hits++;
        this.touch(this.index);
        break;
      case ProbeStatus.hitReserved:
        this.pendingHits++;
        this.touch(this.index);
        break;
      case ProbeStatus.miss:
        this.misses++;
        this.victimValid = false;
        this.victimAddr = -1;
        this.victimDirty = false;
        if (this.allocation === 'onMiss') this.install(this.index, this.blockAddr(addr), LineState.reserved);
        break;
      default:
        this.resFails++;
        break;
    }
    return status;
  }

  /** Makes line `index` the most recently used. */
  touch(index: number): void {
    this.lastAccess[index] = ++this.stamp;
  }

  /**
   * Allocates a way for the missing block of `addr` and marks it reserved (fill pending).
   * Sets the victim fields. Returns the line index, or -1 when every way is reserved.
   * @throws SimulationError when the block is already present (a caller bug).
   */
  allocate(addr: number): number {
    const status = this.probe(addr);
    if (status === ProbeStatus.hit || status === ProbeStatus.hitReserved) {
      throw new SimulationError(`tag array: allocate of block ${this.blockAddr(addr)} that is already present`);
    }
    this.victimValid = false;
    this.victimAddr = -1;
    this.victimDirty = false;
    if (status === ProbeStatus.missNoLine) return -1;
    this.install(this.index, this.blockAddr(addr), LineState.reserved);
    return this.index;
  }

  /**
   * Installs the fill of `addr`. With `onMiss`: the reserved line of the block becomes valid
   * (returns -1 when no reserved line holds it, e.g. after an invalidation). With `onFill`: a
   * victim is chosen (victim fields set) and the block is installed valid; a block already
   * present is left as is. Returns the line index.
   */
  fill(addr: number): number {
    const status = this.probe(addr);
    if (this.allocation === 'onMiss') {
      if (status !== ProbeStatus.hitReserved) return -1;
      this.state[this.index] = LineState.valid;
      return this.index;
    }
    this.victimValid = false;
    this.victimAddr = -1;
    this.victimDirty = false;
    if (status === ProbeStatus.hit || status === ProbeStatus.hitReserved) {
      if (status === ProbeStatus.hitReserved) this.state[this.index] = LineState.valid;
      return this.index;
    }
    if (status === ProbeStatus.missNoLine) return -1;
    const i = this.index;
    this.install(i, this.blockAddr(addr), LineState.valid);
    return i;
  }

  /** Marks line `index` modified (dirty). */
  setModified(index: number): void {
    this.state[index] = LineState.modified;
  }

  /** Sets the state of line `index`. */
  setState(index: number, state: LineState): void {
    this.state[index] = state;
  }

  /**
   * Invalidates the line holding `addr`'s block, if any, and returns its previous state
   * (`invalid` when absent; `modified` tells the caller a write-back is owed).
   */
  invalidate(addr: number): LineState {
    const status = this.probe(addr);
    if (status !== ProbeStatus.hit && status !== ProbeStatus.hitReserved) return LineState.invalid;
    const prev = this.state[this.index]! as LineState;
    this.state[this.index] = LineState.invalid;
    return prev;
  }

  /** Invalidates every line (GPGPU-Sim `flush`, e.g. `-gpgpu_flush_l1_cache` between kernels). */
  invalidateAll(): void {
    this.state.fill(LineState.invalid);
  }

  /** Number of lines in each state, indexed by {@link LineState} code. */
  stateCounts(): [number, number, number, number] {
    const c: [number, number, number, number] = [0, 0, 0, 0];
    for (let i = 0; i < this.numLines; i++) c[this.state[i]!]++;
    return c;
  }

  /** Puts block `tag` in line `i` with state `st`, recording the evicted line in the victim fields. */
  private install(i: number, tag: number, st: LineState): void {
    const old = this.state[i]!;
    if (old === LineState.valid || old === LineState.modified) {
      this.victimValid = true;
      this.victimAddr = this.lineAddr[i]!;
      this.victimDirty = old === LineState.modified;
    }
    this.lineAddr[i] = tag;
    this.state[i] = st;
    const s = ++this.stamp;
    this.allocTime[i] = s;
    this.lastAccess[i] = s;
  }
}
