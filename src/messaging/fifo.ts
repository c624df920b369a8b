/**
 * A growable ring-buffer FIFO: O(1) push and shift without `Array.prototype.shift`'s copying.
 * Used for port buffers and other hardware queues.
 */
export class Fifo<T> {
  private items: (T | undefined)[];
  private head = 0;
  private count = 0;

  /** @param initialCapacity starting slot count (grows by doubling). */
  constructor(initialCapacity = 8) {
    this.items = new Array<T | undefined>(Math.max(2, initialCapacity));
  }

  /** Number of queued items. */
  get length(): number {
    return this.count;
  }

  /** Appends at the tail. */
  push(item: T): void {
    if (this.count === this.items.length) this.grow();
    this.items[(this.head + this.count) % this.items.length] = item;
    this.count++;
  }

  /** Removes and returns the head, or `undefined` when empty. */
  shift(): T | undefined {
    if (this.count === 0) return undefined;
    const item = this.items[this.head];
    this.items[this.head] = undefined;
    this.head = (this.head + 1) % this.items.length;
    this.count--;
    return item;
  }

  /** The head without removing it, or `undefined`. */
  peek(): T | undefined {
    return this.count === 0 ? undefined : this.items[this.head];
  }

  /** The `i`-th item from the head (0-based), or `undefined`. */
  at(i: number): T | undefined {
    return i < 0 || i >= this.count ? undefined : this.items[(this.head + i) % this.items.length];
  }

  /** Removes every item. */
  clear(): void {
    this.items.fill(undefined);
    this.head = 0;
    this.count = 0;
  }

  /** Items from head to tail, as a new array (for reports, not the hot path). */
  toArray(): T[] {
    const out: T[] = [];
    for (let i = 0; i < this.count; i++) out.push(this.items[(this.head + i) % this.items.length]!);
    return out;
  }

  private grow(): void {
    const old = this.items;
    const next = new Array<T | undefined>(old.length * 2);
    for (let i = 0; i < this.count; i++) next[i] = old[(this.head + i) % old.length];
    this.items = next;
    this.head = 0;
  }
}
