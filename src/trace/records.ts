/**
 * Trace records: what a run writes to its message trace (JSON Lines, one record per line).
 *
 * Records are task-shaped (DESIGN.md §4): a message has an id, its request (`replyTo`), sender
 * and receiver, and send/deliver times; a span has a unit, start, end and the reason a request
 * waited. Times are integer picoseconds. Key order is fixed, so equal runs give equal bytes.
 */

/** First line of every trace: what ran. */
export interface MetaRecord {
  readonly t: 'meta';
  readonly format: 'warpstate-trace';
  readonly version: 1;
  readonly scenario: string;
  readonly seed: number;
  readonly clocks: readonly { name: string; hz: number }[];
  readonly units: readonly { name: string; kind: string; clock: string }[];
}

/** A delivered message. */
export interface MessageRecord {
  readonly t: 'msg';
  readonly id: number;
  readonly kind: string;
  readonly src: string;
  readonly srcPort: string;
  readonly dst: string;
  readonly dstPort: string;
  /** ps */
  readonly send: number;
  /** ps */
  readonly deliver: number;
  readonly replyTo: number;
  readonly bytes: number;
  readonly payload: unknown;
}

/** A span of unit activity (busy interval, outstanding request, stall with its reason). */
export interface SpanTraceRecord {
  readonly t: 'span';
  readonly unit: string;
  readonly name: string;
  readonly start: number;
  readonly end: number;
  readonly msgId: number;
  readonly reason?: string;
  readonly tags?: Readonly<Record<string, string | number | boolean>>;
}

/** A statechart unit entered a new state value. */
export interface StateRecord {
  readonly t: 'state';
  readonly time: number;
  readonly unit: string;
  readonly value: string;
}

/** A counter sample (port occupancy, sampled statistic). */
export interface CounterRecord {
  readonly t: 'counter';
  readonly time: number;
  readonly name: string;
  readonly value: number;
}

/** Any trace record. */
export type TraceRecord = MetaRecord | MessageRecord | SpanTraceRecord | StateRecord | CounterRecord;

/** JSON encoding used by every sink: bigints as decimal strings, typed arrays as arrays. */
export function encodeRecord(rec: TraceRecord): string {
  return JSON.stringify(rec, jsonReplacer);
}

function jsonReplacer(_key: string, value: unknown): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (ArrayBuffer.isView(value) && !(value instanceof DataView)) return Array.from(value as unknown as ArrayLike<number>);
  if (value instanceof Map) return Object.fromEntries(value);
  return value;
}

/** The time a record is placed at, for windows and ordering (ps). */
export function recordTime(rec: TraceRecord): number {
  switch (rec.t) {
    case 'msg':
      return rec.deliver;
    case 'span':
      return rec.end;
    case 'state':
    case 'counter':
      return rec.time;
    case 'meta':
      return 0;
  }
}
