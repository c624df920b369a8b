/**
 * Exporter from a warpstate JSONL trace to the Chrome Trace Event JSON format, which
 * ui.perfetto.dev and chrome://tracing open.
 *
 * Layout: one process for the run; one track (thread) per unit for message send/receive
 * slices; spans go to per-unit lane tracks (`unit [k]`), a new lane whenever spans overlap, so
 * overlapping outstanding requests never share a track; statechart state values on a
 * `unit [state]` track; port occupancy and sampled statistics as counter tracks. Each message
 * is a flow arrow from its send slice to its receive slice (`bind_id` with `flow_out` on the
 * sender and `flow_in` on the receiver). Timestamps are microseconds (ps / 1e6).
 *
 * Streaming with bounded memory (issue 9 item 8): a trace record holds both ends of a message
 * (send and deliver times), so nothing waits for a match. What the converter keeps is per unit,
 * never per record: its track ids, one end time per span lane (a lane is reused as soon as its
 * last span ended, so their number follows the unit's largest span overlap, see
 * {@link PerfettoConverterState.lanes}) and the one open state slice of a statechart unit. The file exporter adds one read chunk
 * ({@link PERFETTO_READ_CHUNK_BYTES}), at most one partial line ({@link PERFETTO_MAX_LINE_CHARS})
 * and the event text waiting for a write ({@link PERFETTO_WRITE_CHUNK_CHARS} plus the events of
 * one record). Events are written as JSON text built directly from the record, without event
 * objects; counter lines in the form the sinks write skip JSON.parse. Speed on a 2-core VM
 * (Node 20): about 70-100 MB of JSONL per second (`npm run bench:perfetto`).
 */
import { closeSync, fstatSync, statSync, writeSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';
import { InputError } from '../errors.ts';
import type { TraceRecord } from './records.ts';
import { openOutputFile, outputError } from './sinks.ts';

/** One Chrome Trace Event. */
export interface ChromeTraceEvent {
  name: string;
  ph: 'X' | 'C' | 'M' | 'i';
  pid: number;
  tid?: number;
  ts?: number;
  dur?: number;
  cat?: string;
  args?: Record<string, unknown>;
  bind_id?: string;
  flow_in?: boolean;
  flow_out?: boolean;
  s?: 'g' | 'p' | 't';
}

/**
 * Bytes read from the trace per call (64 KiB). Small chunks and small writes keep the strings
 * of one chunk young: with 1 MiB of each, the garbage collector copied them between scavenges
 * and the export ran at 61 instead of 100 MB/s (measured on a 721 MB network trace).
 */
export const PERFETTO_READ_CHUNK_BYTES = 64 * 1024;

/** Event text gathered before one write call, UTF-16 characters (64 Ki; see {@link PERFETTO_READ_CHUNK_BYTES}). */
export const PERFETTO_WRITE_CHUNK_CHARS = 64 * 1024;

/**
 * Longest JSONL line accepted, UTF-16 characters (64 Mi). Real records are far shorter (the meta
 * record of a 12-SM GPU is 6.5 KB); the bound keeps a file without newlines (`/dev/zero`, a
 * binary) from growing one line until the process runs out of memory.
 */
export const PERFETTO_MAX_LINE_CHARS = 64 * 1024 * 1024;

/** What a {@link PerfettoConverter} holds; every count depends on the units, never on trace length. */
export interface PerfettoConverterState {
  /** Tracks named so far (unit, lane and state tracks): thread ids handed out. */
  readonly tracks: number;
  /**
   * Span lanes over all units. Per unit: with spans in order of start, its largest number of
   * overlapping spans; in order of end (work reported when done) the lane rule is first-fit
   * interval colouring, at most 8 times that (Narayanaswamy and Subhash Babu, 2008). Only
   * spans that go back in time, which the engine never writes, can need more.
   */
  readonly lanes: number;
  /** State slices not yet closed (at most one per statechart unit; 0 after `finish`). */
  readonly openStates: number;
  /** Event text waiting for {@link PerfettoConverter.take}, UTF-16 characters. */
  readonly pendingChars: number;
}

/** A span lane: its track id and the end of its last span (ps). */
interface Lane {
  readonly tid: number;
  end: number;
}

/** JSON text of a value in an event's `args` (a value from JSON.parse, so never a function). */
function jsonValue(v: unknown): string {
  if (typeof v === 'number') return Number.isFinite(v) ? `${v}` : 'null';
  return JSON.stringify(v);
}

/**
 * Incremental converter: feed records in trace order with {@link add}, call {@link finish} at
 * the end, and drain the Chrome Trace events as JSON text (comma-separated, one per line) with
 * {@link take}.
 */
export class PerfettoConverter {
  /** Input named in errors (a file path, or `<records>`). */
  readonly source: string;
  /** Line (1-based) of the record being added, named in errors; set by the caller. */
  line: number | undefined;
  /** Events produced so far. */
  count = 0;
  private text = '';
  private sep = '';
  private nextTid = 1;
  private readonly mainTid = new Map<string, number>();
  private readonly lanes = new Map<string, Lane[]>();
  private laneCount = 0;
  private readonly stateTid = new Map<string, number>();
  private readonly lastState = new Map<string, { time: number; value: string }>();
  private maxTime = 0;

  /** @param source the input named in {@link InputError}s for malformed records */
  constructor(source = '<records>') {
    this.source = source;
  }

  /** Event text waiting for {@link take}, UTF-16 characters (a getter that allocates nothing). */
  get pendingChars(): number {
    return this.text.length;
  }

  /** Counts of what the converter keeps (see {@link PerfettoConverterState}). */
  get state(): PerfettoConverterState {
    return { tracks: this.nextTid - 1, lanes: this.laneCount, openStates: this.lastState.size, pendingChars: this.text.length };
  }

  /**
   * Returns the event text produced since the last call and forgets it: JSON objects joined by
   * `,\n`, with a leading `,\n` when events were taken before (so the pieces concatenate).
   */
  take(): string {
    const t = this.text;
    this.text = '';
    return t;
  }

  private put(json: string): void {
    this.text += this.sep + json;
    this.sep = ',\n';
    this.count++;
  }

  private thread(name: string, sortIndex: number): number {
    const tid = this.nextTid++;
    this.put(`{"name":"thread_name","ph":"M","pid":1,"tid":${tid},"args":{"name":${JSON.stringify(name)}}}`);
    this.put(`{"name":"thread_sort_index","ph":"M","pid":1,"tid":${tid},"args":{"sort_index":${sortIndex}}}`);
    return tid;
  }

  private unitTid(unit: string): number {
    let tid = this.mainTid.get(unit);
    if (tid === undefined) {
      tid = this.thread(unit, this.nextTid * 10);
      this.mainTid.set(unit, tid);
    }
    return tid;
  }

  /** First lane of the unit whose last span ended by `start`; a new lane when all overlap. */
  private laneTid(unit: string, start: number, end: number): number {
    this.unitTid(unit);
    let lanes = this.lanes.get(unit);
    if (lanes === undefined) {
      lanes = [];
      this.lanes.set(unit, lanes);
    }
    for (let i = 0; i < lanes.length; i++) {
      const lane = lanes[i]!;
      if (lane.end <= start) {
        lane.end = end;
        return lane.tid;
      }
    }
    const tid = this.thread(`${unit} [${lanes.length}]`, this.mainTid.get(unit)! * 10 + lanes.length + 1);
    lanes.push({ tid, end });
    this.laneCount++;
    return tid;
  }

  private bad(t: string, field: string, what: string): InputError {
    return new InputError({ file: this.source, line: this.line }, `${what} expected in a ${t} record`, field);
  }

  private str(rec: Record<string, unknown>, field: string): string {
    const v = rec[field];
    if (typeof v !== 'string') throw this.bad(rec.t as string, field, 'a string');
    return v;
  }

  private num(rec: Record<string, unknown>, field: string): number {
    const v = rec[field];
    if (typeof v !== 'number' || !Number.isFinite(v)) throw this.bad(rec.t as string, field, 'a finite number');
    return v;
  }

  /**
   * Converts one record (parsed from one JSONL line).
   * @throws InputError naming {@link source}, {@link line} and the field when the value is not
   *   a warpstate trace record (unknown `t`, a missing or mistyped field the layout needs)
   */
  add(rec: TraceRecord): void {
    const r = rec as unknown as Record<string, unknown>;
    if (r === null || typeof r !== 'object') throw new InputError({ file: this.source, line: this.line }, 'not a warpstate trace record (field t)', 't');
    switch (r.t) {
      case 'msg': {
        const id = this.num(r, 'id');
        const kind = JSON.stringify(this.str(r, 'kind'));
        const src = this.str(r, 'src');
        const dst = this.str(r, 'dst');
        const srcPort = this.str(r, 'srcPort');
        const dstPort = this.str(r, 'dstPort');
        const send = this.num(r, 'send');
        const deliver = this.num(r, 'deliver');
        const bind = `"0x${id.toString(16)}"`;
        const srcTid = this.unitTid(src);
        let args = `{"id":${id},"to":${JSON.stringify(`${dst}.${dstPort}`)}`;
        if (r.replyTo !== undefined) args += `,"replyTo":${jsonValue(r.replyTo)}`;
        if (r.bytes !== undefined) args += `,"bytes":${jsonValue(r.bytes)}`;
        this.put(`{"name":${kind},"cat":"msg","ph":"X","pid":1,"tid":${srcTid},"ts":${send / 1e6},"dur":0,"bind_id":${bind},"flow_out":true,"args":${args}}}`);
        const dstTid = this.unitTid(dst);
        args = `{"id":${id},"from":${JSON.stringify(`${src}.${srcPort}`)}`;
        if (r.payload !== undefined) args += `,"payload":${jsonValue(r.payload)}`;
        this.put(`{"name":${kind},"cat":"msg","ph":"X","pid":1,"tid":${dstTid},"ts":${deliver / 1e6},"dur":0,"bind_id":${bind},"flow_in":true,"args":${args}}}`);
        if (deliver > this.maxTime) this.maxTime = deliver;
        return;
      }
      case 'counter': {
        const name = this.str(r, 'name');
        const time = this.num(r, 'time');
        const v = r.value;
        this.put(`{"name":${JSON.stringify(name)},"cat":"counter","ph":"C","pid":1,"ts":${time / 1e6},"args":{${v === undefined ? '' : `"value":${jsonValue(v)}`}}}`);
        if (time > this.maxTime) this.maxTime = time;
        return;
      }
      case 'span': {
        const unit = this.str(r, 'unit');
        const name = this.str(r, 'name');
        const start = this.num(r, 'start');
        const end = this.num(r, 'end');
        const tags = r.tags;
        if (tags !== undefined && (tags === null || typeof tags !== 'object')) throw this.bad('span', 'tags', 'an object');
        const tid = this.laneTid(unit, start, end);
        let args: string;
        if (r.reason === undefined && tags === undefined) {
          args = r.msgId === undefined ? '{}' : `{"msgId":${jsonValue(r.msgId)}}`;
        } else {
          // Rare (stalls, CTA starts): tags may repeat msgId or reason, so build the object.
          const a: Record<string, unknown> = { msgId: r.msgId };
          if (r.reason !== undefined) a.reason = r.reason;
          if (tags !== undefined) Object.assign(a, tags);
          args = JSON.stringify(a);
        }
        this.put(`{"name":${JSON.stringify(name)},"cat":"span","ph":"X","pid":1,"tid":${tid},"ts":${start / 1e6},"dur":${(end - start) / 1e6},"args":${args}}`);
        if (end > this.maxTime) this.maxTime = end;
        return;
      }
      case 'state': {
        const unit = this.str(r, 'unit');
        const time = this.num(r, 'time');
        const value = this.str(r, 'value');
        this.closeState(unit, time);
        this.lastState.set(unit, { time, value });
        if (time > this.maxTime) this.maxTime = time;
        return;
      }
      case 'meta': {
        const units = r.units;
        if (!Array.isArray(units)) throw this.bad('meta', 'units', 'an array');
        this.put(`{"name":"process_name","ph":"M","pid":1,"args":{"name":${JSON.stringify(`warpstate: ${String(r.scenario)} (seed ${String(r.seed)})`)}}}`);
        for (let i = 0; i < units.length; i++) {
          const u = units[i] as { name?: unknown } | null;
          if (u === null || typeof u !== 'object' || typeof u.name !== 'string') throw this.bad('meta', `units[${i}].name`, 'a string');
          this.unitTid(u.name);
        }
        return;
      }
      default:
        throw new InputError({ file: this.source, line: this.line }, 'not a warpstate trace record (field t)', 't');
    }
  }

  /**
   * Adds a counter record already split by {@link COUNTER_LINE} (the form every sink writes),
   * skipping JSON.parse for the most common line of a trace (port occupancy, sampled statistics).
   * @param quotedName the name as JSON text (quotes included, no escapes)
   * @param time ps
   * @param value the sample (a non-finite value is written as null, as JSON.stringify does)
   */
  addCounter(quotedName: string, time: number, value: number): void {
    this.put(`{"name":${quotedName},"cat":"counter","ph":"C","pid":1,"ts":${time / 1e6},"args":{"value":${Number.isFinite(value) ? `${value}` : 'null'}}}`);
    if (time > this.maxTime) this.maxTime = time;
  }

  private closeState(unit: string, end: number): void {
    const prev = this.lastState.get(unit);
    if (prev === undefined) return;
    let tid = this.stateTid.get(unit);
    if (tid === undefined) {
      tid = this.thread(`${unit} [state]`, this.unitTid(unit) * 10);
      this.stateTid.set(unit, tid);
    }
    this.put(`{"name":${JSON.stringify(prev.value)},"cat":"state","ph":"X","pid":1,"tid":${tid},"ts":${prev.time / 1e6},"dur":${(end - prev.time) / 1e6},"args":{"unit":${JSON.stringify(unit)}}}`);
  }

  /** Closes open state slices at the last time seen. */
  finish(): void {
    for (const unit of [...this.lastState.keys()]) this.closeState(unit, this.maxTime);
    this.lastState.clear();
  }
}

/**
 * Converts records in memory (tests, small traces).
 * @throws InputError for a malformed record (line = its 1-based index)
 */
export function toChromeTrace(records: Iterable<TraceRecord>): { traceEvents: ChromeTraceEvent[]; displayTimeUnit: 'ns' } {
  const conv = new PerfettoConverter();
  conv.line = 0;
  for (const r of records) {
    conv.line++;
    conv.add(r);
  }
  conv.finish();
  return { traceEvents: JSON.parse(`[${conv.take()}]`) as ChromeTraceEvent[], displayTimeUnit: 'ns' };
}

/**
 * A counter line exactly as `encodeRecord` (records.ts) writes it, with a name free of escapes: its
 * time, name (quotes included) and value. Any other line goes through JSON.parse.
 */
const COUNTER_LINE = /^\{"t":"counter","time":(0|[1-9][0-9]*),"name":("[^"\\\x00-\x1f]*"),"value":(-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)\}$/;

/** Sizes of the streaming export (tests use small ones to cut lines across chunks). */
export interface PerfettoExportOptions {
  /** Bytes per read (default {@link PERFETTO_READ_CHUNK_BYTES}). */
  readonly readChunkBytes?: number;
  /** Longest line accepted, UTF-16 characters (default {@link PERFETTO_MAX_LINE_CHARS}). */
  readonly maxLineChars?: number;
  /** Event text per write call, UTF-16 characters (default {@link PERFETTO_WRITE_CHUNK_CHARS}). */
  readonly writeChunkChars?: number;
}

/**
 * Writes a whole string. Writing the string itself is twice as fast as encoding it to a Buffer
 * first; only a short write (a pipe) pays for the Buffer, to write the rest.
 * @throws InputError (outputError) on a write failure
 */
function writeAll(fd: number, path: string, text: string): void {
  if (text.length === 0) return;
  try {
    const n = writeSync(fd, text);
    if (n < text.length || n < Buffer.byteLength(text, 'utf8')) {
      const bytes = Buffer.from(text, 'utf8');
      for (let off = n; off < bytes.length; ) off += writeSync(fd, bytes, off, bytes.length - off);
    }
  } catch (e) {
    throw outputError(path, e);
  }
}

/**
 * Streams a JSONL trace file into a Chrome Trace Event JSON file, in bounded memory (see the
 * module comment): reads {@link PERFETTO_READ_CHUNK_BYTES} at a time, converts every complete
 * line, writes events {@link PERFETTO_WRITE_CHUNK_CHARS} at a time. Each read is awaited, so signals are handled
 * between chunks. Lines end with `\n` (a `\r` before it is JSON whitespace); blank lines are skipped.
 * @param inPath the JSONL trace (`run --trace`)
 * @param outPath the JSON file to write (created, with its directory, or truncated)
 * @returns number of events written
 * @throws InputError for a missing, unreadable or directory input, a line that is not JSON or
 *   not a trace record or longer than {@link PERFETTO_MAX_LINE_CHARS} (file and line named), an
 *   output that is the input, and an output that cannot be created or written (the path and the
 *   OS error, as {@link outputError} words it)
 */
export async function exportPerfettoFile(inPath: string, outPath: string, options: PerfettoExportOptions = {}): Promise<number> {
  const chunkBytes = options.readChunkBytes ?? PERFETTO_READ_CHUNK_BYTES;
  const writeChars = options.writeChunkChars ?? PERFETTO_WRITE_CHUNK_CHARS;
  const maxLine = options.maxLineChars ?? PERFETTO_MAX_LINE_CHARS;
  let input: FileHandle;
  try {
    input = await open(inPath, 'r');
  } catch {
    throw new InputError({ file: inPath }, 'file not found or unreadable');
  }
  let fd: number | null = null;
  try {
    const st = fstatSync(input.fd);
    if (st.isDirectory()) throw new InputError({ file: inPath }, 'is a directory, not a JSONL trace');
    let out: ReturnType<typeof statSync> | undefined;
    try {
      out = statSync(outPath);
    } catch {
      out = undefined; // does not exist yet: openOutputFile creates it or names the error
    }
    if (out !== undefined && st.isFile() && out.ino === st.ino && out.dev === st.dev) {
      throw new InputError({ file: outPath }, 'is the input trace; writing it would destroy the input');
    }
    fd = openOutputFile(outPath);
    const conv = new PerfettoConverter(inPath);
    writeAll(fd, outPath, '{"displayTimeUnit":"ns","traceEvents":[\n');
    const buf = Buffer.allocUnsafe(chunkBytes);
    const decoder = new StringDecoder('utf8');
    // The line cut by the end of a chunk, as decoded pieces, so a long line costs linear time.
    let partial: string[] = [];
    let partialChars = 0;
    let lineNo = 0;
    const convert = (line: string): void => {
      lineNo++;
      // Every record starts with '{'; only other lines pay for the blank-line test.
      if (line.charCodeAt(0) !== 123 && line.trim() === '') return;
      const m = COUNTER_LINE.exec(line);
      if (m !== null) {
        const time = Number(m[1]);
        if (Number.isFinite(time)) {
          conv.addCounter(m[2]!, time, Number(m[3]));
          return;
        }
      }
      let rec: TraceRecord;
      try {
        rec = JSON.parse(line) as TraceRecord;
      } catch {
        throw new InputError({ file: inPath, line: lineNo }, 'not a JSON line');
      }
      conv.line = lineNo;
      conv.add(rec);
    };
    const tooLong = () => new InputError({ file: inPath, line: lineNo + 1 }, `line longer than ${maxLine} characters: not a JSONL trace`);
    for (;;) {
      let n: number;
      try {
        n = (await input.read(buf, 0, chunkBytes, null)).bytesRead;
      } catch (e) {
        const err = e as NodeJS.ErrnoException;
        throw new InputError({ file: inPath }, `cannot read the trace (${err.code ?? String(e)})`);
      }
      const text = n === 0 ? decoder.end() : decoder.write(buf.subarray(0, n));
      let pos = 0;
      let nl = text.indexOf('\n');
      if (nl !== -1 && partialChars > 0) {
        if (partialChars + nl > maxLine) throw tooLong();
        partial.push(text.slice(0, nl));
        convert(partial.join(''));
        partial = [];
        partialChars = 0;
        if (conv.pendingChars >= writeChars) writeAll(fd, outPath, conv.take());
        pos = nl + 1;
        nl = text.indexOf('\n', pos);
      }
      while (nl !== -1) {
        convert(text.slice(pos, nl));
        if (conv.pendingChars >= writeChars) writeAll(fd, outPath, conv.take());
        pos = nl + 1;
        nl = text.indexOf('\n', pos);
      }
      if (pos < text.length) {
        partial.push(text.slice(pos));
        partialChars += text.length - pos;
        if (partialChars > maxLine) throw tooLong();
      }
      if (n === 0) break;
    }
    if (partialChars > 0) convert(partial.join('')); // a last line without '\n'
    conv.finish();
    writeAll(fd, outPath, conv.take() + '\n]}\n');
    return conv.count;
  } finally {
    await input.close();
    if (fd !== null) closeSync(fd);
  }
}
