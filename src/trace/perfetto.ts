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
 */
import { closeSync, createReadStream, openSync, writeSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { InputError } from '../errors.ts';
import type { TraceRecord } from './records.ts';
import { openOutputFile } from './sinks.ts';

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

const PID = 1;

function us(ps: number): number {
  return ps / 1e6;
}

/** Incremental converter: feed records in trace order, collect events through `emit`. */
export class PerfettoConverter {
  private readonly emit: (ev: ChromeTraceEvent) => void;
  private nextTid = 1;
  private readonly mainTid = new Map<string, number>();
  private readonly lanes = new Map<string, { tid: number; end: number }[]>();
  private readonly stateTid = new Map<string, number>();
  private readonly lastState = new Map<string, { time: number; value: string }>();
  private maxTime = 0;

  constructor(emit: (ev: ChromeTraceEvent) => void) {
    this.emit = emit;
  }

  private thread(name: string, sortIndex: number): number {
    const tid = this.nextTid++;
    this.emit({ name: 'thread_name', ph: 'M', pid: PID, tid, args: { name } });
    this.emit({ name: 'thread_sort_index', ph: 'M', pid: PID, tid, args: { sort_index: sortIndex } });
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

  private laneTid(unit: string, start: number, end: number): number {
    this.unitTid(unit);
    let lanes = this.lanes.get(unit);
    if (lanes === undefined) {
      lanes = [];
      this.lanes.set(unit, lanes);
    }
    for (const lane of lanes) {
      if (lane.end <= start) {
        lane.end = end;
        return lane.tid;
      }
    }
    const tid = this.thread(`${unit} [${lanes.length}]`, this.mainTid.get(unit)! * 10 + lanes.length + 1);
    lanes.push({ tid, end });
    return tid;
  }

  /** Converts one record. */
  add(rec: TraceRecord): void {
    switch (rec.t) {
      case 'meta':
        this.emit({ name: 'process_name', ph: 'M', pid: PID, args: { name: `warpstate: ${rec.scenario} (seed ${rec.seed})` } });
        for (const u of rec.units) this.unitTid(u.name);
        return;
      case 'msg': {
        const id = `0x${rec.id.toString(16)}`;
        this.emit({ name: rec.kind, cat: 'msg', ph: 'X', pid: PID, tid: this.unitTid(rec.src), ts: us(rec.send), dur: 0, bind_id: id, flow_out: true, args: { id: rec.id, to: `${rec.dst}.${rec.dstPort}`, replyTo: rec.replyTo, bytes: rec.bytes } });
        this.emit({ name: rec.kind, cat: 'msg', ph: 'X', pid: PID, tid: this.unitTid(rec.dst), ts: us(rec.deliver), dur: 0, bind_id: id, flow_in: true, args: { id: rec.id, from: `${rec.src}.${rec.srcPort}`, payload: rec.payload } });
        this.maxTime = Math.max(this.maxTime, rec.deliver);
        return;
      }
      case 'span': {
        const tid = this.laneTid(rec.unit, rec.start, rec.end);
        const args: Record<string, unknown> = { msgId: rec.msgId };
        if (rec.reason !== undefined) args.reason = rec.reason;
        if (rec.tags !== undefined) Object.assign(args, rec.tags);
        this.emit({ name: rec.name, cat: 'span', ph: 'X', pid: PID, tid, ts: us(rec.start), dur: us(rec.end - rec.start), args });
        this.maxTime = Math.max(this.maxTime, rec.end);
        return;
      }
      case 'state': {
        this.closeState(rec.unit, rec.time);
        this.lastState.set(rec.unit, { time: rec.time, value: rec.value });
        this.maxTime = Math.max(this.maxTime, rec.time);
        return;
      }
      case 'counter':
        this.emit({ name: rec.name, cat: 'counter', ph: 'C', pid: PID, ts: us(rec.time), args: { value: rec.value } });
        this.maxTime = Math.max(this.maxTime, rec.time);
        return;
    }
  }

  private closeState(unit: string, end: number): void {
    const prev = this.lastState.get(unit);
    if (prev === undefined) return;
    let tid = this.stateTid.get(unit);
    if (tid === undefined) {
      tid = this.thread(`${unit} [state]`, this.unitTid(unit) * 10);
      this.stateTid.set(unit, tid);
    }
    this.emit({ name: prev.value, cat: 'state', ph: 'X', pid: PID, tid, ts: us(prev.time), dur: us(end - prev.time), args: { unit } });
  }

  /** Closes open state slices at the last time seen. */
  finish(): void {
    for (const unit of [...this.lastState.keys()]) this.closeState(unit, this.maxTime);
    this.lastState.clear();
  }
}

/** Converts records in memory (tests, small traces). */
export function toChromeTrace(records: Iterable<TraceRecord>): { traceEvents: ChromeTraceEvent[]; displayTimeUnit: 'ns' } {
  const traceEvents: ChromeTraceEvent[] = [];
  const conv = new PerfettoConverter((ev) => traceEvents.push(ev));
  for (const r of records) conv.add(r);
  conv.finish();
  return { traceEvents, displayTimeUnit: 'ns' };
}

/**
 * Streams a JSONL trace file into a Chrome Trace Event JSON file.
 * @returns number of events written
 * @throws InputError for a missing file or a malformed line (file and line named)
 */
export async function exportPerfettoFile(inPath: string, outPath: string): Promise<number> {
  let input;
  try {
    closeSync(openSync(inPath, 'r'));
    input = createReadStream(inPath, 'utf8');
  } catch {
    throw new InputError({ file: inPath }, 'file not found or unreadable');
  }
  const fd = openOutputFile(outPath);
  let count = 0;
  let buf: string[] = [];
  const flush = () => {
    if (buf.length) writeSync(fd, buf.join(''));
    buf = [];
  };
  const conv = new PerfettoConverter((ev) => {
    buf.push((count === 0 ? '' : ',\n') + JSON.stringify(ev));
    count++;
    if (buf.length >= 4096) flush();
  });
  writeSync(fd, '{"displayTimeUnit":"ns","traceEvents":[\n');
  let lineNo = 0;
  try {
    for await (const line of createInterface({ input, crlfDelay: Infinity })) {
      lineNo++;
      if (line.trim() === '') continue;
      let rec: TraceRecord;
      try {
        rec = JSON.parse(line) as TraceRecord;
      } catch {
        throw new InputError({ file: inPath, line: lineNo }, 'not a JSON line');
      }
      if (rec === null || typeof rec !== 'object' || !['meta', 'msg', 'span', 'state', 'counter'].includes((rec as { t?: string }).t ?? '')) {
        throw new InputError({ file: inPath, line: lineNo }, 'not a warpstate trace record (field t)', 't');
      }
      conv.add(rec);
    }
    conv.finish();
    flush();
    writeSync(fd, '\n]}\n');
  } finally {
    closeSync(fd);
  }
  return count;
}
