/**
 * NewCAR: the cache-access re-execution queue of ELF (paper 004 §3.4, Figs. 5-6; spec
 * `specs/warp-level.md` §2.5 E), the datapath part without XState. The L1D
 * (`machines/l1d/l1d.ts`) owns one per SM when `l1d.reexecQueue` is `newcar`.
 *
 * A memory request (one coalesced transaction, R-E6) enters the queue when "1) a memory request
 * was sent to one of the caches and not accepted, or 2) a memory request cannot bypass the queue
 * due to the memory consistency semantics" (004 §3.4). The queue keeps its entries in arrival
 * order, which per warp is program order (the LSU sends one instruction's transactions at a time,
 * instructions of a warp in issue order).
 *
 * Ordering rules (004 Fig. 6), for a request R of warp W against W's requests already queued:
 * | W has queued | R is a load | R is a store (or an atomic, R-E5) |
 * |---|---|---|
 * | nothing | may bypass | may bypass |
 * | only loads | may bypass | must enqueue |
 * | a store | must enqueue | must enqueue |
 * Requests of other warps never constrain R. The same rule decides which queued request may
 * leave: a queued load may leave before older queued loads of its warp, never before an older
 * queued store; a queued store (atomic) only when it is the oldest queued request of its warp.
 * A request with no warp (`warp < 0`: a texture-cache line read, read-only data) is never
 * constrained and constrains nothing.
 *
 * Which queued request is tried (one lookup per cycle, R-E7): the first request allowed to
 * leave at or after a rotating cursor, in age order. A success leaves the cursor at the removed
 * position (now the next younger request); a failure moves it past the failed request; with the
 * default choice `rewind` the cursor goes back to the oldest request whenever the cache frees a
 * resource (a fill, a miss sent down), so a freed MSHR is offered to the oldest request first.
 * Stated departure from R-E7 ("the oldest eligible one", kept as choice `oldest`): the oldest
 * queued request is always allowed to leave (nothing of its warp is older), so "oldest eligible"
 * drains the queue strictly in FIFO order and a request that keeps failing (MSHRs full) blocks
 * every hit queued behind it; the paper says requests "in the queue can be processed
 * out-of-order when the weak memory consistency semantics are preserved" (§3.4), and the paper
 * wins. Measured on gtx480-elf (GTO, 192 CTAs): `rewind` 21955 / 75299 cycles on phase_long4 /
 * phase_msl, `oldest` 22179 / 75299, `rotate` 22326 / 80101 (NewCAR off: 22492 / 74089).
 *
 * No allocation after construction: entries live in preallocated arrays; per-warp counters grow
 * (once) when a warp id beyond their size appears.
 */

/** Why a request entered the queue (statistics and trace spans). */
export const NewCarEnqReason = {
  /** Condition 1: looked up, not accepted (reservation failure, or the port below full). */
  notAccepted: 0,
  /** Condition 2: may not bypass an older queued request of its warp (Fig. 6). */
  order: 1,
} as const;

/**
 * Which queued request is tried: `rotate` the first allowed to leave at or after a rotating
 * cursor; `rewind` (default) the same, with the cursor put back to the oldest request whenever
 * the cache frees a resource ({@link NewCarQueue.rewind}: a fill, a miss sent down), so a freed
 * MSHR goes to the oldest request first and the rotation only skips requests that failed since;
 * `oldest` the oldest allowed to leave (R-E7 as the spec words it; in effect FIFO, since the
 * oldest queued request is always allowed to leave).
 */
export type NewCarChoice = 'rotate' | 'oldest' | 'rewind';

/** Name of each {@link NewCarEnqReason} code. */
export const NEWCAR_ENQ_REASON_NAME: readonly string[] = Object.freeze(['notAccepted', 'order']);

/**
 * The re-execution queue: `capacity` entries (004 §3.4: 32) of items `T` (the L1D keeps its
 * request messages), each with the warp slot that sent it and whether it writes.
 */
export class NewCarQueue<T> {
  /** Entries (004 §3.4: 32; Table 3: 301 bits each). */
  readonly capacity: number;
  /** Requests queued now (entries). */
  length = 0;
  private readonly items: (T | undefined)[];
  /** Set by {@link rewind}: the next {@link select} starts from the oldest request. */
  private rewound = false;
  private readonly warps: Int32Array;
  private readonly stores: Uint8Array;
  private readonly times: Float64Array;
  private readonly reasons: Uint8Array;
  /** Scratch: eligibility of each position, filled by {@link select}. */
  private readonly eligible: Uint8Array;
  /** Queued loads and stores per warp slot. */
  private loadsOf: Int32Array;
  private storesOf: Int32Array;
  /** Scratch per warp: the scan generation at which an older request / older store was seen. */
  private seenAny: Int32Array;
  private seenStore: Int32Array;
  private gen = 0;
  /** Position (age rank) the next search starts from. */
  private cursor = 0;

  /**
   * @param capacity entries (>= 1).
   * @param warps warp slots expected (the per-warp counters grow beyond it when needed).
   * @param choice which queued request {@link select} returns (see {@link NewCarChoice}).
   * @throws RangeError when `capacity` is not a positive integer.
   */
  constructor(capacity: number, warps = 64, readonly choice: NewCarChoice = 'rewind') {
    if (!(Number.isInteger(capacity) && capacity >= 1)) throw new RangeError(`NewCAR queue capacity must be an integer >= 1, got ${capacity}`);
    this.capacity = capacity;
    this.items = new Array<T | undefined>(capacity).fill(undefined);
    this.warps = new Int32Array(capacity);
    this.stores = new Uint8Array(capacity);
    this.times = new Float64Array(capacity);
    this.reasons = new Uint8Array(capacity);
    this.eligible = new Uint8Array(capacity);
    this.loadsOf = new Int32Array(warps);
    this.storesOf = new Int32Array(warps);
    this.seenAny = new Int32Array(warps);
    this.seenStore = new Int32Array(warps);
  }

  /** True when no entry is free (the LSU's request is then not taken, 004 §3.4). */
  get full(): boolean {
    return this.length === this.capacity;
  }

  /** Queued loads of warp `warp` (entries). */
  loadsQueued(warp: number): number {
    return warp >= 0 && warp < this.loadsOf.length ? this.loadsOf[warp]! : 0;
  }

  /** Queued stores and atomics of warp `warp` (entries). */
  storesQueued(warp: number): number {
    return warp >= 0 && warp < this.storesOf.length ? this.storesOf[warp]! : 0;
  }

  /**
   * Fig. 6: may a new request of `warp` go to the cache ahead of the queue? A load may pass the
   * warp's queued loads but not a queued store; a store (or atomic) passes nothing of its warp.
   */
  mayBypass(warp: number, isStore: boolean): boolean {
    if (warp < 0 || warp >= this.loadsOf.length) return true;
    if (this.storesOf[warp]! > 0) return false;
    return !isStore || this.loadsOf[warp]! === 0;
  }

  /**
   * Appends a request (the youngest entry).
   * @param time when it entered (ps; for trace spans).
   * @param reason a {@link NewCarEnqReason} code.
   * @throws RangeError when the queue is full (the caller checks {@link full}).
   */
  push(item: T, warp: number, isStore: boolean, time: number, reason: number): void {
    const n = this.length;
    if (n === this.capacity) throw new RangeError(`NewCAR queue full (${this.capacity} entries)`);
    if (warp >= this.loadsOf.length) this.grow(warp + 1);
    this.items[n] = item;
    this.warps[n] = warp;
    this.stores[n] = isStore ? 1 : 0;
    this.times[n] = time;
    this.reasons[n] = reason;
    this.length = n + 1;
    if (warp >= 0) {
      if (isStore) this.storesOf[warp]!++;
      else this.loadsOf[warp]!++;
    }
  }

  /**
   * The position of the request to try this cycle: the first one allowed to leave (Fig. 6) at or
   * after the cursor, wrapping around; -1 when the queue is empty. Position 0 is the oldest.
   */
  select(): number {
    const n = this.length;
    if (n === 0) return -1;
    if (this.gen >= 0x7fffffff) {
      this.gen = 0;
      this.seenAny.fill(0);
      this.seenStore.fill(0);
    }
    const gen = ++this.gen;
    const seenAny = this.seenAny;
    const seenStore = this.seenStore;
    for (let i = 0; i < n; i++) {
      const w = this.warps[i]!;
      const st = this.stores[i] === 1;
      if (w < 0) {
        this.eligible[i] = 1;
        continue;
      }
      this.eligible[i] = seenStore[w] === gen || (st && seenAny[w] === gen) ? 0 : 1;
      seenAny[w] = gen;
      if (st) seenStore[w] = gen;
    }
    const start = this.choice === 'oldest' || this.rewound || this.cursor >= n ? 0 : this.cursor;
    this.rewound = false;
    for (let k = 0; k < n; k++) {
      const i = start + k < n ? start + k : start + k - n;
      if (this.eligible[i] === 1) return i;
    }
    return -1; // unreachable: the oldest entry is always eligible
  }

  /** The request at position `pos` (0 = oldest). */
  at(pos: number): T {
    return this.items[pos]!;
  }

  /** Warp slot of the request at `pos` (-1 = none). */
  warpAt(pos: number): number {
    return this.warps[pos]!;
  }

  /** Whether the request at `pos` is a store or atomic. */
  isStoreAt(pos: number): boolean {
    return this.stores[pos] === 1;
  }

  /** Time (ps) the request at `pos` entered. */
  timeAt(pos: number): number {
    return this.times[pos]!;
  }

  /** {@link NewCarEnqReason} of the request at `pos`. */
  reasonAt(pos: number): number {
    return this.reasons[pos]!;
  }

  /**
   * The request at `pos` was accepted by the cache: removes it (younger entries move up one
   * position; the cursor stays at `pos`, the next younger request).
   */
  remove(pos: number): T {
    const n = this.length;
    if (pos < 0 || pos >= n) throw new RangeError(`NewCAR queue: no entry at ${pos} (length ${n})`);
    const item = this.items[pos]!;
    const w = this.warps[pos]!;
    if (w >= 0) {
      if (this.stores[pos] === 1) this.storesOf[w]!--;
      else this.loadsOf[w]!--;
    }
    for (let i = pos + 1; i < n; i++) {
      this.items[i - 1] = this.items[i];
      this.warps[i - 1] = this.warps[i]!;
      this.stores[i - 1] = this.stores[i]!;
      this.times[i - 1] = this.times[i]!;
      this.reasons[i - 1] = this.reasons[i]!;
    }
    this.items[n - 1] = undefined;
    this.length = n - 1;
    this.cursor = pos < n - 1 ? pos : 0;
    return item;
  }

  /**
   * The cache freed a resource (an MSHR entry, a miss-queue slot): with choice `rewind`, the next
   * search starts from the oldest request again. Other choices ignore it.
   */
  rewind(): void {
    if (this.choice === 'rewind') this.rewound = true;
  }

  /** The request at `pos` was tried and not accepted: it stays; the next search starts after it. */
  failed(pos: number): void {
    this.cursor = pos + 1 < this.length ? pos + 1 : 0;
  }

  private grow(size: number): void {
    const g = (a: Int32Array) => {
      const b = new Int32Array(Math.max(size, a.length * 2));
      b.set(a);
      return b;
    };
    this.loadsOf = g(this.loadsOf);
    this.storesOf = g(this.storesOf);
    this.seenAny = g(this.seenAny);
    this.seenStore = g(this.seenStore);
  }
}
