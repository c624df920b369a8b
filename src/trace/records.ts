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

/**
 * JSON encoding used by every sink: bigints as decimal strings, typed arrays as arrays, maps as
 * objects; keys in the order the record types above declare them (a key whose value is
 * `undefined` is left out, as `JSON.stringify` does). Message, span, state and counter records
 * are written field by field (names quoted once and cached): only a message payload goes through
 * the generic encoder, which was most of the cost of a full trace (issue 11).
 */
export function encodeRecord(rec: TraceRecord): string {
  switch (rec.t) {
    case 'msg':
      return `{"t":"msg","id":${num(rec.id)},"kind":${quote(rec.kind)},"src":${quote(rec.src)},"srcPort":${quote(rec.srcPort)},` +
        `"dst":${quote(rec.dst)},"dstPort":${quote(rec.dstPort)},"send":${num(rec.send)},"deliver":${num(rec.deliver)},` +
        `"replyTo":${num(rec.replyTo)},"bytes":${num(rec.bytes)}${payloadField(rec.payload)}}`;
    case 'span':
      return `{"t":"span","unit":${quote(rec.unit)},"name":${quote(rec.name)},"start":${num(rec.start)},"end":${num(rec.end)},"msgId":${num(rec.msgId)}` +
        `${rec.reason === undefined ? '' : `,"reason":${quote(rec.reason)}`}${rec.tags === undefined ? '' : `,"tags":${encodeValue(rec.tags)}`}}`;
    case 'state':
      return `{"t":"state","time":${num(rec.time)},"unit":${quote(rec.unit)},"value":${quote(rec.value)}}`;
    case 'counter':
      return `{"t":"counter","time":${num(rec.time)},"name":${quote(rec.name)},"value":${num(rec.value)}}`;
    default:
      return JSON.stringify(rec, jsonReplacer);
  }
}

/** A number as JSON writes it (`null` for NaN and infinities). */
function num(v: number): string {
  return Number.isFinite(v) ? `${v}` : 'null';
}

const QUOTED = new Map<string, string>();
/** Distinct strings kept quoted (unit, port and kind names repeat; a payload-like string would not). */
const QUOTED_MAX = 1 << 16;

/** A string as a JSON string literal, cached. */
function quote(v: string): string {
  let q = QUOTED.get(v);
  if (q === undefined) {
    q = JSON.stringify(v);
    if (QUOTED.size < QUOTED_MAX) QUOTED.set(v, q);
  }
  return q;
}

/** `,"payload":...`, or nothing for a payload JSON leaves out (undefined, a function, a symbol). */
function payloadField(payload: unknown): string {
  const v = encodeValue(payload);
  return v === undefined ? '' : `,"payload":${v}`;
}

/**
 * `JSON.stringify(value, jsonReplacer)` for the values messages carry, written in plain code
 * (a replacer function makes V8 leave its fast path: twice the cost): plain objects, arrays,
 * typed arrays, numbers, strings, booleans, null, bigints. Anything with `toJSON`, a Map or a
 * DataView goes through `JSON.stringify` itself. Returns undefined where JSON writes nothing.
 */
export function encodeValue(v: unknown): string | undefined {
  switch (typeof v) {
    case 'number':
      return num(v);
    case 'string':
      return JSON.stringify(v);
    case 'boolean':
      return v ? 'true' : 'false';
    case 'bigint':
      return `"${v}"`;
    case 'object': {
      if (v === null) return 'null';
      if (Array.isArray(v)) {
        let out = '[';
        for (let i = 0; i < v.length; i++) {
          if (i > 0) out += ',';
          out += encodeValue(v[i]) ?? 'null';
        }
        return out + ']';
      }
      if (ArrayBuffer.isView(v) && !(v instanceof DataView)) {
        const a = v as unknown as ArrayLike<number | bigint>;
        let out = '[';
        for (let i = 0; i < a.length; i++) {
          if (i > 0) out += ',';
          const e = a[i]!;
          out += typeof e === 'bigint' ? `"${e}"` : num(e);
        }
        return out + ']';
      }
      if (typeof (v as { toJSON?: unknown }).toJSON === 'function' || v instanceof Map || v instanceof DataView) return JSON.stringify(v, jsonReplacer);
      let out = '{';
      let first = true;
      const obj = v as Record<string, unknown>;
      for (const key of Object.keys(obj)) {
        const e = encodeValue(obj[key]);
        if (e === undefined) continue;
        out += `${first ? '' : ','}${quote(key)}:${e}`;
        first = false;
      }
      return out + '}';
    }
    default:
      return undefined; // undefined, functions, symbols
  }
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
