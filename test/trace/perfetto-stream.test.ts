import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/errors.ts';
import { exportPerfettoFile, PerfettoConverter, toChromeTrace, type ChromeTraceEvent } from '../../src/trace/perfetto.ts';
import { encodeRecord, type TraceRecord } from '../../src/trace/records.ts';

const dir = mkdtempSync(join(tmpdir(), 'warpstate-perfetto-'));

const meta = (units: string[]): TraceRecord => ({
  t: 'meta',
  format: 'warpstate-trace',
  version: 1,
  scenario: 's',
  seed: 7,
  clocks: [{ name: 'core', hz: 1e9 }],
  units: units.map((name) => ({ name, kind: 'k', clock: 'core' })),
});

const msg = (id: number, src: string, dst: string, send: number, deliver: number, payload: unknown = null): TraceRecord => ({
  t: 'msg',
  id,
  kind: 'mem.readReq',
  src,
  srcPort: 'out',
  dst,
  dstPort: 'in',
  send,
  deliver,
  replyTo: -1,
  bytes: 8,
  payload,
});

function writeJsonl(name: string, lines: string[]): string {
  const path = join(dir, name);
  writeFileSync(path, lines.join('\n') + '\n');
  return path;
}

async function exportError(inPath: string, outPath: string, options = {}): Promise<InputError> {
  const e = await exportPerfettoFile(inPath, outPath, options).then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(InputError);
  return e as InputError;
}

describe('Perfetto export: events', () => {
  it('turns each record into the events of the layout (hand-derived)', () => {
    const { traceEvents: ev } = toChromeTrace([
      meta(['A', 'B']),
      msg(10, 'A', 'B', 2_000_000, 3_000_000, { addr: 64 }),
      { t: 'span', unit: 'B', name: 'read', start: 3_000_000, end: 5_000_000, msgId: 10, reason: 'bankBusy' },
      { t: 'state', time: 1_000_000, unit: 'A', value: 'running' },
      { t: 'counter', time: 4_000_000, name: 'B.in', value: 2 },
    ]);
    const thread = (tid: number, name: string, sort: number): ChromeTraceEvent[] => [
      { name: 'thread_name', ph: 'M', pid: 1, tid, args: { name } },
      { name: 'thread_sort_index', ph: 'M', pid: 1, tid, args: { sort_index: sort } },
    ];
    expect(ev).toEqual([
      { name: 'process_name', ph: 'M', pid: 1, args: { name: 'warpstate: s (seed 7)' } },
      ...thread(1, 'A', 10),
      ...thread(2, 'B', 20),
      // ps / 1e6 = us; the flow id is the message id in hex.
      { name: 'mem.readReq', cat: 'msg', ph: 'X', pid: 1, tid: 1, ts: 2, dur: 0, bind_id: '0xa', flow_out: true, args: { id: 10, to: 'B.in', replyTo: -1, bytes: 8 } },
      { name: 'mem.readReq', cat: 'msg', ph: 'X', pid: 1, tid: 2, ts: 3, dur: 0, bind_id: '0xa', flow_in: true, args: { id: 10, from: 'A.out', payload: { addr: 64 } } },
      // First lane of B: sort index = B's tid * 10 + lane + 1.
      ...thread(3, 'B [0]', 21),
      { name: 'read', cat: 'span', ph: 'X', pid: 1, tid: 3, ts: 3, dur: 2, args: { msgId: 10, reason: 'bankBusy' } },
      { name: 'B.in', cat: 'counter', ph: 'C', pid: 1, ts: 4, args: { value: 2 } },
      // The open state slice is closed at the last time seen (the span's end, 5 us).
      ...thread(4, 'A [state]', 10),
      { name: 'running', cat: 'state', ph: 'X', pid: 1, tid: 4, ts: 1, dur: 4, args: { unit: 'A' } },
    ]);
  });

  it('keeps state bounded over 1e5 messages and spans: lanes reused, state slices closed', () => {
    const conv = new PerfettoConverter();
    conv.add(meta(['A', 'B']));
    let events = 0;
    const drain = () => {
      const text = conv.take();
      if (text !== '') events += JSON.parse(`[${text.startsWith(',') ? text.slice(1) : text}]`).length;
    };
    const n = 100_000;
    for (let i = 0; i < n; i++) {
      const t = i * 1000;
      conv.add(msg(i, 'A', 'B', t, t + 500));
      // Spans of 2500 ps every 1000 ps: span i overlaps i+1 and i+2, and i+3 starts when i ended.
      conv.add({ t: 'span', unit: 'B', name: 'busy', start: t, end: t + 2500, msgId: i });
      if (i % 10 === 0) conv.add({ t: 'state', time: t, unit: 'C', value: i % 20 === 0 ? 'on' : 'off' });
      if (i % 1000 === 999) {
        drain();
        expect(conv.pendingChars).toBe(0);
        expect(conv.state.lanes).toBe(3);
        expect(conv.state.openStates).toBe(1);
      }
    }
    conv.finish();
    drain();
    // Tracks: A, B, three lanes of B, C and C [state]; nothing else is kept.
    expect(conv.state).toEqual({ tracks: 7, lanes: 3, openStates: 0, pendingChars: 0 });
    // process_name + 2 metadata events per track + 2 per message + 1 per span + 1 per state slice.
    expect(events).toBe(1 + 2 * 7 + 2 * n + n + n / 10);
    expect(conv.count).toBe(events);
  });
});

describe('Perfetto export: streaming file conversion', () => {
  const records: TraceRecord[] = [
    meta(['SM[0].ünït', 'L2 ⚡', 'DRAM 😀']),
    msg(1, 'SM[0].ünït', 'L2 ⚡', 1000, 2000, { addresses: [1, 2, 3], write: false, note: 'é😀' }),
    { t: 'span', unit: 'L2 ⚡', name: 'mshrWait', start: 2000, end: 9000, msgId: 1, reason: 'mshrFull', tags: { set: 3, hit: false } },
    { t: 'span', unit: 'L2 ⚡', name: 'tag', start: 2500, end: 3000, msgId: -1 },
    msg(2, 'L2 ⚡', 'DRAM 😀', 3000, 4000),
    { t: 'counter', time: 4000, name: 'L2 ⚡.in', value: 3 },
    { t: 'counter', time: 4000, name: 'q"uoted\\name', value: 1.5 },
    { t: 'counter', time: 4500, name: 'ratio', value: Number.NaN },
    { t: 'state', time: 5000, unit: 'DRAM 😀', value: 'refresh' },
    { t: 'state', time: 7000, unit: 'DRAM 😀', value: 'idle' },
    { t: 'counter', time: 9500, name: 'SM[0].ünït.out', value: -2e-7 },
  ];
  const lines = records.map(encodeRecord);
  // A blank line and a CRLF line end, as an edited file may have.
  const file = writeJsonl('mixed.jsonl', [lines[0]!, '', ...lines.slice(1, 4).map((l) => l + '\r'), ...lines.slice(4)]);
  const expected = toChromeTrace(records).traceEvents;

  it.each([
    ['default sizes', {}],
    ['lines and multi-byte characters cut across 7-byte reads, 5-character writes', { readChunkBytes: 7, writeChunkChars: 5 }],
    ['one byte per read', { readChunkBytes: 1 }],
  ])('writes the same events as the in-memory conversion (%s)', async (_name, options) => {
    const out = join(dir, `mixed-${JSON.stringify(options).length}.json`);
    const n = await exportPerfettoFile(file, out, options);
    const doc = JSON.parse(readFileSync(out, 'utf8')) as { displayTimeUnit: string; traceEvents: ChromeTraceEvent[] };
    expect(doc.displayTimeUnit).toBe('ns');
    expect(doc.traceEvents).toEqual(expected);
    expect(n).toBe(expected.length);
    // NaN is written as null in the trace and stays null; the escaped name takes the JSON.parse path.
    expect(doc.traceEvents.filter((e) => e.ph === 'C').map((e) => [e.name, e.args!.value])).toEqual([
      ['L2 ⚡.in', 3],
      ['q"uoted\\name', 1.5],
      ['ratio', null],
      ['SM[0].ünït.out', -2e-7],
    ]);
  });

  it('a file without a final newline still converts its last line', async () => {
    const path = join(dir, 'nonl.jsonl');
    writeFileSync(path, [encodeRecord(meta(['A'])), encodeRecord({ t: 'counter', time: 1e6, name: 'x', value: 4 })].join('\n'));
    const out = join(dir, 'nonl.json');
    expect(await exportPerfettoFile(path, out, { readChunkBytes: 16 })).toBe(4);
    expect(JSON.parse(readFileSync(out, 'utf8')).traceEvents.at(-1)).toEqual({ name: 'x', cat: 'counter', ph: 'C', pid: 1, ts: 1, args: { value: 4 } });
  });
});

describe('Perfetto export: input and output errors', () => {
  const good = writeJsonl('good.jsonl', [encodeRecord(meta(['A'])), encodeRecord({ t: 'counter', time: 0, name: 'x', value: 1 })]);

  it('a full disk (/dev/full) is an InputError naming the path and ENOSPC', async () => {
    const e = await exportError(good, '/dev/full');
    expect(e.message).toContain('/dev/full: cannot write output file (ENOSPC: no space left on device');
  });

  it('refuses a directory, a missing file and an output that is the input', async () => {
    expect((await exportError(dir, join(dir, 'o.json'))).message).toBe(`${dir}: is a directory, not a JSONL trace`);
    expect((await exportError(join(dir, 'none.jsonl'), join(dir, 'o.json'))).message).toBe(`${join(dir, 'none.jsonl')}: file not found or unreadable`);
    expect((await exportError(good, good)).file).toBe(good);
    expect(readFileSync(good, 'utf8').split('\n').length).toBe(3); // left as it was
  });

  it('a line longer than the bound (a file without newlines) is refused with its line', async () => {
    const path = writeJsonl('long.jsonl', [encodeRecord(meta(['A'])), 'x'.repeat(1000)]);
    const e = await exportError(path, join(dir, 'long.json'), { maxLineChars: 400, readChunkBytes: 64 });
    expect(e.message).toBe(`${path}:2: line longer than 400 characters: not a JSONL trace`);
  });

  it('names the line and field of a malformed record; a counter-shaped line must still be JSON', async () => {
    const badField = writeJsonl('field.jsonl', [encodeRecord(meta(['A'])), encodeRecord(msg(1, 'A', 'A', 0, 1)).replace('"send":0', '"send":"0"')]);
    expect((await exportError(badField, join(dir, 'f.json'))).message).toBe(`${badField}:2: send: a finite number expected in a msg record`);
    const trailing = writeJsonl('trailing.jsonl', [encodeRecord(meta(['A'])), '{"t":"counter","time":1,"name":"a","value":1}x']);
    expect((await exportError(trailing, join(dir, 't.json'))).message).toBe(`${trailing}:2: not a JSON line`);
    const zero = writeJsonl('zero.jsonl', [encodeRecord(meta(['A'])), '{"t":"counter","time":01,"name":"a","value":1}']);
    expect((await exportError(zero, join(dir, 'z.json'))).message).toBe(`${zero}:2: not a JSON line`);
    const kind = writeJsonl('kind.jsonl', ['{"t":"bogus"}']);
    expect((await exportError(kind, join(dir, 'k.json'))).message).toBe(`${kind}:1: t: not a warpstate trace record (field t)`);
  });
});
