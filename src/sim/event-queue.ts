/**
 * The global event queue: a binary min-heap ordered by (time, priority, sequence number).
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

function before(a: EventRecord, b: EventRecord): boolean {
  if (a.time !== b.time) return a.time < b.time;
  if (a.priority !== b.priority) return a.priority < b.priority;
  return a.seq < b.seq;
}

/** Deterministic binary-heap event queue with a record pool. */
export class EventQueue {
  private heap: EventRecord[] = [];
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
    const heap = this.heap;
    let i = heap.length;
    heap.push(rec);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = heap[parent]!;
      if (!before(rec, p)) break;
      heap[i] = p;
      i = parent;
    }
    heap[i] = rec;
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
    this.dropCancelledTop();
    const top = this.heap[0];
    return top === undefined ? Infinity : top.time;
  }

  /**
   * Removes the earliest live event and returns it, or `null` when empty. The caller must hand
   * the record back with {@link release} after firing it.
   */
  pop(): EventRecord | null {
    this.dropCancelledTop();
    const rec = this.removeTop();
    if (rec !== null) this.liveCount--;
    return rec;
  }

  /** Returns a fired record to the pool. */
  release(rec: EventRecord): void {
    rec.handler = null;
    rec.data = null;
    this.pool.push(rec);
  }

  private dropCancelledTop(): void {
    while (this.heap.length > 0 && this.heap[0]!.cancelled) {
      const rec = this.removeTop()!;
      this.release(rec);
    }
  }

  private removeTop(): EventRecord | null {
    const heap = this.heap;
    const n = heap.length;
    if (n === 0) return null;
    const top = heap[0]!;
    const last = heap.pop()!;
    if (n > 1) {
      const size = n - 1;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= size) break;
        const r = l + 1;
        let c = l;
        if (r < size && before(heap[r]!, heap[l]!)) c = r;
        if (!before(heap[c]!, last)) break;
        heap[i] = heap[c]!;
        i = c;
      }
      heap[i] = last;
    }
    return top;
  }
}
