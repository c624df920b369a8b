/**
 * Texture cache (L1T) of an SM, after GPGPU-Sim's `tex_cache` (`gpu-cache.{h,cc}`), configured
 * by `-gpgpu_tex_cache:l1` (e.g. `N:16:128:24,L:R:m:N:L,F:128:4,128:2`): a read-only tag array
 * whose misses are served in order through a fragment FIFO and a reorder buffer.
 *
 * ## Structures (GPGPU-Sim's unions in `cache_config`)
 * - tag array: `<nsets>:<bsize>:<assoc>`, replacement `<rep>`, set index `<set_index_fn>`;
 * - fragment FIFO, `<mshr_entries>` entries: every accepted access, in order (hit or miss);
 * - request FIFO, `<mshr_max_merge>` entries: line reads waiting for the memory port;
 * - reorder buffer (ROB), `<mq>` entries: one per line read, marked ready by its fill;
 * - result FIFO, `<fifo_entry>` entries: accesses whose data is ready, in order.
 *
 * ## access(addr) (`tex_cache::access`)
 * Refused (reservation failure, nothing changes) when the fragment FIFO, the request FIFO or the
 * ROB is full. Otherwise the tags are looked up and, on a miss, the victim line is allocated and
 * made valid at once (the data "will be" there: a later access to the line is a hit that waits
 * behind the miss in the fragment FIFO); the miss takes a ROB entry and a request-FIFO entry.
 *
 * ## cycle() (`tex_cache::cycle`)
 * The head of the fragment FIFO moves to the result FIFO when the result FIFO has room and its
 * data is ready: a hit `hitLatency` cycles after its access, a miss when its ROB entry (the ROB's
 * head: misses complete in order) has been filled. One fragment per cycle. The head of the
 * request FIFO is taken by the caller with {@link TexCache.peekRequest} / {@link
 * TexCache.popRequest} when its memory port has room, and filled with {@link TexCache.fill}.
 *
 * Source: GPGPU-Sim 4.x `tex_cache::access`, `tex_cache::cycle`, `tex_cache::fill`; the option
 * string format in `src/config/cache-string.ts`. Hot path: typed-array rings, no allocation.
 */

import { SimulationError } from '../../errors.ts';
import { intParam } from './params.ts';
import { ProbeStatus, TagArray, LineState, type TagArrayParams } from './tag-array.ts';

/** Parameters of a {@link TexCache} (`-gpgpu_tex_cache:l1` fields in brackets). */
export interface TexCacheParams extends TagArrayParams {
  /** Fragment FIFO entries [<mshr_entries>]. */
  readonly fragmentFifoEntries: number;
  /** Request FIFO entries: line reads waiting for the memory port [<mshr_max_merge>]. */
  readonly requestFifoEntries: number;
  /** Reorder-buffer entries: line reads in flight [<mq>]. */
  readonly robEntries: number;
  /** Result FIFO entries [<fifo_entry>]. */
  readonly resultFifoEntries: number;
  /** Cycles from the access of a hit to the earliest cycle it may leave the fragment FIFO (>= 1). */
  readonly hitLatency: number;
}

/** Outcome of {@link TexCache.access}. */
export const TexOutcome = { hit: 0, miss: 1, resFail: 2 } as const;
/** A {@link TexOutcome} code. */
export type TexOutcome = (typeof TexOutcome)[keyof typeof TexOutcome];

/** Why an access was refused. */
export const TexResFail = { fragmentFifoFull: 0, requestFifoFull: 1, robFull: 2 } as const;
/** Name of each {@link TexResFail} code. */
export const TEX_RES_FAIL_NAME: readonly string[] = Object.freeze(['fragmentFifoFull', 'requestFifoFull', 'robFull']);

/** A bounded ring of numbers (FIFO). */
class Ring {
  readonly data: Float64Array;
  head = 0;
  length = 0;
  constructor(readonly capacity: number) {
    this.data = new Float64Array(capacity);
  }
  get full(): boolean {
    return this.length >= this.capacity;
  }
  push(v: number): number {
    const i = (this.head + this.length) % this.capacity;
    this.data[i] = v;
    this.length++;
    return i;
  }
  peek(k = 0): number {
    return this.data[(this.head + k) % this.capacity]!;
  }
  shift(): number {
    const v = this.data[this.head]!;
    this.head = (this.head + 1) % this.capacity;
    this.length--;
    return v;
  }
}

/** The texture cache (see the file comment). One per SM, inside the LSU as GPGPU-Sim's `m_L1T`. */
export class TexCache {
  readonly tags: TagArray;
  readonly p: TexCacheParams;
  // fragment FIFO: request id, miss flag, earliest leave cycle (hits)
  private readonly fragId: Ring;
  private readonly fragMiss: Ring;
  private readonly fragReady: Ring;
  // ROB: line address and ready flag of each line read, in order
  private readonly robLine: Ring;
  private readonly robReady: Uint8Array;
  // request FIFO: ROB slot of each line read not yet sent
  private readonly requests: Ring;
  private readonly results: Ring;

  /** Accesses accepted: hits + misses. */
  accesses = 0;
  hits = 0;
  misses = 0;
  /** Refused attempts, and per {@link TexResFail} reason. */
  resFails = 0;
  readonly resFailBy = new Float64Array(3);
  /** Reason of the last refusal. */
  lastReason = -1;

  /** @throws InputError for a bad parameter (field named) */
  constructor(params: TexCacheParams) {
    this.p = params;
    this.tags = new TagArray(params);
    const n = (f: 'fragmentFifoEntries' | 'requestFifoEntries' | 'robEntries' | 'resultFifoEntries' | 'hitLatency') => intParam('TexCacheParams', f, params[f], 1);
    this.fragId = new Ring(n('fragmentFifoEntries'));
    this.fragMiss = new Ring(this.fragId.capacity);
    this.fragReady = new Ring(this.fragId.capacity);
    this.robLine = new Ring(n('robEntries'));
    this.robReady = new Uint8Array(this.robLine.capacity);
    this.requests = new Ring(n('requestFifoEntries'));
    this.results = new Ring(n('resultFifoEntries'));
    n('hitLatency');
  }

  /** Line address of `addr`. */
  lineAddr(addr: number): number {
    return this.tags.blockAddr(addr);
  }

  /**
   * Looks up the line of `addr` for request `id` at `cycle` (see the file comment).
   * @returns `hit`, `miss` (a line read queued), or `resFail` ({@link lastReason} says why)
   */
  access(addr: number, id: number, cycle: number): TexOutcome {
    const fifoFull = this.fragId.full;
    if (fifoFull || this.requests.full || this.robLine.full) {
      this.lastReason = fifoFull ? TexResFail.fragmentFifoFull : this.requests.full ? TexResFail.requestFifoFull : TexResFail.robFull;
      this.resFails++;
      this.resFailBy[this.lastReason]!++;
      return TexOutcome.resFail;
    }
    const status = this.tags.access(addr);
    this.accesses++;
    this.fragId.push(id);
    if (status === ProbeStatus.hit) {
      this.hits++;
      this.fragMiss.push(0);
      this.fragReady.push(cycle + this.p.hitLatency);
      return TexOutcome.hit;
    }
    if (status !== ProbeStatus.miss) throw new SimulationError(`texture cache: line ${this.lineAddr(addr)} found ${status === ProbeStatus.hitReserved ? 'reserved' : 'without a free way'} (lines are valid from their access)`);
    // allocated by the access; valid at once (GPGPU-Sim m_tags.fill at access)
    if (this.tags.allocation === 'onMiss') this.tags.setState(this.tags.index, LineState.valid);
    else this.tags.fill(addr);
    this.misses++;
    const slot = this.robLine.push(this.lineAddr(addr));
    this.robReady[slot] = 0;
    this.requests.push(slot);
    this.fragMiss.push(1);
    this.fragReady.push(cycle);
    return TexOutcome.miss;
  }

  /** Line address of the oldest line read not yet sent, or -1. */
  peekRequest(): number {
    return this.requests.length > 0 ? this.robLine.data[this.requests.peek()]! : -1;
  }

  /** Takes the oldest line read (the caller sent it) and returns its ROB slot, for {@link fill}. */
  popRequest(): number {
    return this.requests.shift();
  }

  /** The line read of ROB slot `slot` has returned. */
  fill(slot: number): void {
    this.robReady[slot] = 1;
  }

  /** Moves at most one ready fragment to the result FIFO (see the file comment). */
  cycle(cycle: number): void {
    if (this.fragId.length === 0 || this.results.full) return;
    if (this.fragMiss.peek() === 1) {
      const slot = this.robLine.head;
      if (this.robReady[slot] !== 1) return;
      this.robLine.shift();
    } else if (this.fragReady.peek() > cycle) return;
    this.results.push(this.fragId.shift());
    this.fragMiss.shift();
    this.fragReady.shift();
  }

  /** Number of results ready. */
  get resultsReady(): number {
    return this.results.length;
  }

  /** Takes the oldest ready result: its request id. */
  popResult(): number {
    return this.results.shift();
  }

  /** True while any access, line read or result is held. */
  get busy(): boolean {
    return this.fragId.length > 0 || this.results.length > 0 || this.requests.length > 0;
  }

  /** Held work, for deadlock reports. */
  describe(): string {
    return `${this.fragId.length} fragments, ${this.requests.length} line reads unsent, ${this.robLine.length} in the ROB, ${this.results.length} results`;
  }
}

/**
 * The distinct cache lines of `count` texel addresses in ascending order (GPGPU-Sim's
 * `generate_mem_accesses` for `tex_space`: one access per block, from a `std::map`), written to
 * `out`; returns how many.
 */
export function texelLines(texels: ArrayLike<number>, count: number, lineBytes: number, out: Float64Array): number {
  let n = 0;
  for (let k = 0; k < count; k++) {
    const a = texels[k]!;
    const line = a - (a % lineBytes);
    // insertion into the sorted, distinct list
    let lo = 0;
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (out[mid]! < line) lo = mid + 1;
      else hi = mid;
    }
    if (lo < n && out[lo] === line) continue;
    if (n >= out.length) break;
    for (let i = n; i > lo; i--) out[i] = out[i - 1]!;
    out[lo] = line;
    n++;
  }
  return n;
}
