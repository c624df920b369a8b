/**
 * The global event queue, ordered by (time, priority, sequence number).
 *
 * Ties on time break by priority (lower first), then by insertion order, so the same pushes give
 * the same pops on every run (DESIGN.md §2). Event records are pooled: the hot path allocates
 * nothing once the pool has grown to the peak queue length.
 */
import type { Picoseconds } from './time.ts';

/** Something the engine can call back when its event fires. */
export interface EventHandler {
  /** Called once when the event fires; `data` is what was given to {@link EventQueue.push}. */
  fire(data: unknown, time: Picoseconds): void;
}

/**
 * Event priorities within one picosecond (lower fires first). Deliveries land before units wake,
 * so a unit woken at time t sees every message that arrived at t.
 */
export const Priority = {
  /** Link injection (port -> wire) and credit returns. */
  link: 0,
  /** Message arrival into an input port. */
  deliver: 10,
  /** XState clock-adapter timers (statechart `after` delays). */
  timer: 20,
  /** Unit wake-ups (batched delivery, unit timers, port-room notices). */
  wake: 30,
  /** Sampling of statistics and end-of-step bookkeeping. */
  sample: 40,
} as const;

/** One queued event. Records are reused; never keep a reference after it fired. */
export interface EventRecord {
  time: Picoseconds;
  priority: number;
  seq: number;
  handler: EventHandler | null;
  data: unknown;
  /** Cancelled records stay in the heap and are skipped when popped. */
  cancelled: boolean;
}

/**
 * The events of one simulated time: one FIFO lane per priority, lanes in ascending priority.
 * Within a lane, insertion order is sequence order, so (time, priority, seq) order needs no
 * comparison.
 */
interface TimeBucket {
  time: Picoseconds;
  /** Priority of each lane, ascending. */
  readonly priorities: number[];
  /** Records of each lane in insertion order; `heads[i]` is the next one to fire. */
  readonly lanes: EventRecord[][];
  readonly heads: number[];
  /** Records pushed and not yet popped (cancelled ones included). */
  pending: number;
}

/**
 * Deterministic event queue with a record pool: events fire by (time, priority, insertion order).
 *
 * Events are grouped by time: a map from time to a {@link TimeBucket} of per-priority FIFO
 * lanes, and a binary min-heap of the distinct pending times. A GPU model has a handful of
 * pending times (one per clock domain and a few cycles ahead) but hundreds of events at each, so
 * a push is a map lookup and an append, a pop reads the first non-empty lane, and the heap moves
 * only when a time is first used or runs empty (was one heap operation per event; the cost of
 * those grew with the number of SMs, issue 11).
 */
export class EventQueue {
  /** Distinct pending times, a binary min-heap. */
  private times: number[] = [];
  private readonly buckets = new Map<number, TimeBucket>();
  /** The bucket of the last push (most pushes go to the time just used). */
  private lastBucket: TimeBucket | null = null;
  /** The bucket of the earliest pending time (the heap's top), or null when empty. */
  private top: TimeBucket | null = null;
  /** Lane of the record {@link firstLive} found. */
  private liveLane = 0;
  private bucketPool: TimeBucket[] = [];
  private pool: EventRecord[] = [];
  private nextSeq = 0;
  private liveCount = 0;

  /** Number of pending (not cancelled) events. */
  get size(): number {
    return this.liveCount;
  }

  /** Total events ever pushed (also the next sequence number). */
  get pushed(): number {
    return this.nextSeq;
  }

  /**
   * Schedules `handler.fire(data, time)` at `time` ps with `priority` (see {@link Priority}).
   * @returns the record, which may be passed to {@link cancel} until it fires
   */
  push(time: Picoseconds, priority: number, handler: EventHandler, data: unknown): EventRecord {
    const rec = this.pool.pop() ?? { time: 0, priority: 0, seq: 0, handler: null, data: null, cancelled: false };
    rec.time = time;
    rec.priority = priority;
    rec.seq = this.nextSeq++;
    rec.handler = handler;
    rec.data = data;
    rec.cancelled = false;
    let bucket = this.lastBucket;
    if (bucket === null || bucket.time !== time) {
      bucket = this.buckets.get(time) ?? this.openBucket(time);
      this.lastBucket = bucket;
    }
    const prios = bucket.priorities;
    let lane = 0;
    while (lane < prios.length && prios[lane]! < priority) lane++;
    if (lane === prios.length || prios[lane] !== priority) {
      prios.splice(lane, 0, priority);
      bucket.lanes.splice(lane, 0, []);
      bucket.heads.splice(lane, 0, 0);
    }
    bucket.lanes[lane]!.push(rec);
    bucket.pending++;
    this.liveCount++;
    return rec;
  }

  /** Marks a pending record cancelled; it will not fire. */
  cancel(rec: EventRecord): void {
    if (!rec.cancelled && rec.handler !== null) {
      rec.cancelled = true;
      this.liveCount--;
    }
  }

  /** Time of the earliest live event, or `Infinity` when the queue is empty. */
  peekTime(): Picoseconds {
    for (;;) {
      const bucket = this.top;
      if (bucket === null) return Infinity;
      if (this.firstLive(bucket) !== null) return bucket.time;
    }
  }

  /**
   * Removes the earliest live event and returns it, or `null` when empty. The caller must hand
   * the record back with {@link release} after firing it.
   */
  pop(): EventRecord | null {
    for (;;) {
      const bucket = this.top;
      if (bucket === null) return null;
      const rec = this.firstLive(bucket);
      if (rec === null) continue;
      // firstLive left the record at the head of lane liveLane: take it
      bucket.heads[this.liveLane]!++;
      bucket.pending--;
      if (bucket.pending === 0) this.closeBucket(bucket);
      this.liveCount--;
      return rec;
    }
  }

  /** Returns a fired record to the pool. */
  release(rec: EventRecord): void {
    rec.handler = null;
    rec.data = null;
    this.pool.push(rec);
  }

  /**
   * The first live record of the earliest time's bucket, left in place, after releasing the
   * cancelled records before it; null (and the bucket closed) when only cancelled ones were left.
   */
  private firstLive(bucket: TimeBucket): EventRecord | null {
    const lanes = bucket.lanes;
    const heads = bucket.heads;
    for (let lane = 0; lane < lanes.length; lane++) {
      const list = lanes[lane]!;
      let h = heads[lane]!;
      while (h < list.length) {
        const rec = list[h]!;
        if (!rec.cancelled) {
          heads[lane] = h;
          this.liveLane = lane;
          return rec;
        }
        h++;
        bucket.pending--;
        this.release(rec);
      }
      heads[lane] = h;
    }
    this.closeBucket(bucket);
    return null;
  }

  private openBucket(time: Picoseconds): TimeBucket {
    const bucket = this.bucketPool.pop() ?? { time: 0, priorities: [], lanes: [], heads: [], pending: 0 };
    bucket.time = time;
    bucket.pending = 0;
    this.buckets.set(time, bucket);
    const heap = this.times;
    let i = heap.length;
    heap.push(time);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = heap[parent]!;
      if (p <= time) break;
      heap[i] = p;
      i = parent;
    }
    heap[i] = time;
    if (i === 0) this.top = bucket;
    return bucket;
  }

  /** Removes the earliest time's (empty) bucket: it must be the heap's top. */
  private closeBucket(bucket: TimeBucket): void {
    this.buckets.delete(bucket.time);
    if (this.lastBucket === bucket) this.lastBucket = null;
    for (let lane = 0; lane < bucket.lanes.length; lane++) {
      bucket.lanes[lane]!.length = 0;
      bucket.heads[lane] = 0;
    }
    this.bucketPool.push(bucket);
    const heap = this.times;
    const last = heap.pop()!;
    const size = heap.length;
    if (size === 0) {
      this.top = null;
      return;
    }
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= size) break;
      const r = l + 1;
      let c = l;
      if (r < size && heap[r]! < heap[l]!) c = r;
      if (heap[c]! >= last) break;
      heap[i] = heap[c]!;
      i = c;
    }
    heap[i] = last;
    this.top = this.buckets.get(heap[0]!)!;
  }
}
