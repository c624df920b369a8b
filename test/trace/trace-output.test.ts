import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createUnitRegistry } from '../../machines/index.ts';
import { loadScenario } from '../../src/scenario/loader.ts';
import { runScenario } from '../../src/scenario/run.ts';
import type { ChromeTraceEvent } from '../../src/trace/perfetto.ts';
import type { TraceRecord } from '../../src/trace/records.ts';
import { RingSink, TraceFilter } from '../../src/trace/sinks.ts';
import { runCli } from '../helpers/cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'warpstate-trace-'));
const scenarioFile = 'scenarios/memory-network.yaml';
// A shorter run of the default scenario keeps the test fast.
const short = ['--set', 'units.GEN.params.requests=40', '--set', 'units.CTRL.params.runCycles=60', '--set', 'units.CTRL.params.pauseCycles=30'];

describe('trace files from warpstate run', () => {
  it('writes JSONL, Perfetto and stats files; the Perfetto file is valid Chrome Trace Event JSON', async () => {
    const trace = join(dir, 't.jsonl');
    const perfetto = join(dir, 't.json');
    const stats = join(dir, 's.json');
    const r = await runCli(['run', scenarioFile, ...short, '--trace', trace, '--perfetto', perfetto, '--stats', stats, '-q', '--set', 'checks[0].value=640']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);

    const lines = readFileSync(trace, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as TraceRecord);
    expect(lines[0]!.t).toBe('meta');
    const msgs = lines.filter((l) => l.t === 'msg');
    expect(msgs.length).toBe(640 * 4 + 16 * 2 * 2); // 4 hops per request, 2 pauses + 2 resumes to 16 generators
    expect(lines.some((l) => l.t === 'state')).toBe(true);
    expect(lines.some((l) => l.t === 'span')).toBe(true);
    expect(lines.some((l) => l.t === 'counter')).toBe(true);
    // Port occupancy is one record per port per time it ended with a new value (changes within a
    // time are coalesced), and each record's value is the buffer length after that time.
    const occupancy = lines.filter((l): l is Extract<TraceRecord, { t: 'counter' }> => l.t === 'counter' && /\.(in|out|req|rsp)(\[\d+\])?$/.test(l.name));
    expect(occupancy.length).toBeGreaterThan(0);
    const last = new Map<string, { time: number; value: number }>();
    for (const c of occupancy) {
      const prev = last.get(c.name);
      if (prev !== undefined) {
        expect(c.time, c.name).toBeGreaterThan(prev.time);
        expect(c.value, `${c.name} at ${c.time}`).not.toBe(prev.value);
      } else expect(c.value, c.name).not.toBe(0);
      last.set(c.name, c);
    }

    const doc = JSON.parse(readFileSync(perfetto, 'utf8')) as { traceEvents: ChromeTraceEvent[] };
    const ev = doc.traceEvents;
    expect(Array.isArray(ev)).toBe(true);
    // Named tracks: a thread_name for every unit of the scenario.
    const threadNames = new Map(ev.filter((e) => e.ph === 'M' && e.name === 'thread_name').map((e) => [e.tid, (e.args as { name: string }).name]));
    for (const u of ['GEN[0]', 'GEN[15]', 'XBAR', 'MEM[7]', 'CTRL', 'CTRL [state]']) expect([...threadNames.values()]).toContain(u);
    expect(ev.some((e) => e.ph === 'M' && e.name === 'process_name')).toBe(true);
    // Slices with real durations (spans), state slices, and counters.
    const spans = ev.filter((e) => e.ph === 'X' && e.cat === 'span');
    expect(spans.length).toBeGreaterThan(0);
    expect(spans.every((e) => typeof e.ts === 'number' && typeof e.dur === 'number' && e.dur! > 0 && e.tid !== undefined)).toBe(true);
    expect(ev.filter((e) => e.cat === 'state').map((e) => e.name)).toEqual(['running', 'paused', 'running', 'paused', 'running', 'done']);
    const counters = ev.filter((e) => e.ph === 'C');
    expect(counters.length).toBeGreaterThan(0);
    expect(counters.every((e) => typeof (e.args as { value: unknown }).value === 'number')).toBe(true);
    // Flow arrows: every bind_id has exactly one flow_out and one flow_in, out no later than in.
    const flows = new Map<string, { out?: ChromeTraceEvent; in?: ChromeTraceEvent }>();
    for (const e of ev) {
      if (e.bind_id === undefined) continue;
      const f = flows.get(e.bind_id) ?? {};
      if (e.flow_out) {
        expect(f.out).toBeUndefined();
        f.out = e;
      }
      if (e.flow_in) {
        expect(f.in).toBeUndefined();
        f.in = e;
      }
      flows.set(e.bind_id, f);
    }
    expect(flows.size).toBe(msgs.length);
    for (const f of flows.values()) {
      expect(f.out && f.in).toBeTruthy();
      expect(f.out!.ts!).toBeLessThan(f.in!.ts!);
    }
    // Overlapping spans never share a track.
    const byTid = new Map<number, ChromeTraceEvent[]>();
    for (const s of spans) byTid.set(s.tid!, [...(byTid.get(s.tid!) ?? []), s]);
    for (const list of byTid.values()) {
      list.sort((a, b) => a.ts! - b.ts!);
      for (let i = 1; i < list.length; i++) expect(list[i]!.ts!).toBeGreaterThanOrEqual(list[i - 1]!.ts! + list[i - 1]!.dur! - 1e-9);
    }

    const s = JSON.parse(readFileSync(stats, 'utf8'));
    expect(s.stats['XBAR.request_forwarded']).toBe(640);
    expect(s.checks[0].passed).toBe(true);
  });

  it('the export subcommand converts a JSONL trace, and refuses a malformed one with its line', async () => {
    const trace = join(dir, 'e.jsonl');
    await runCli(['run', scenarioFile, ...short, '--trace', trace, '-q']);
    const out = join(dir, 'e.json');
    const r = await runCli(['trace', 'export', trace, '--format', 'perfetto', '-o', out]);
    expect(r.code).toBe(0);
    expect(JSON.parse(readFileSync(out, 'utf8')).traceEvents.length).toBeGreaterThan(100);
    const bad = join(dir, 'bad.jsonl');
    writeFileSync(bad, readFileSync(trace, 'utf8').split('\n').slice(0, 3).join('\n') + '\n{oops\n');
    const r2 = await runCli(['trace', 'export', bad, '-o', join(dir, 'bad.json')]);
    expect(r2.code).toBe(2);
    expect(r2.err).toContain(`${bad}:4: not a JSON line`);
  });

  it('filters by unit glob, kind and time window', async () => {
    const ring = new RingSink(1_000_000);
    const loaded = loadScenario(scenarioFile, short.filter((_, i) => i % 2 === 1));
    await runScenario(loaded, { registry: createUnitRegistry(), sinks: [ring], traceFilter: { units: ['MEM[3]'], kinds: ['mem.rsp'], from: 100_000, to: 200_000 } });
    const msgs = ring.records().filter((r) => r.t === 'msg');
    expect(msgs.length).toBeGreaterThan(0);
    for (const m of msgs) {
      if (m.t !== 'msg') continue;
      expect(m.kind).toBe('mem.rsp');
      expect(m.src === 'MEM[3]' || m.dst === 'MEM[3]').toBe(true);
      expect(m.deliver).toBeGreaterThanOrEqual(100_000);
      expect(m.deliver).toBeLessThanOrEqual(200_000);
    }
    const f = new TraceFilter({ units: ['GPU.SM[*].L1D'] });
    expect(f.accepts({ t: 'state', time: 0, unit: 'GPU.SM[12].L1D', value: 'x' })).toBe(true);
    expect(f.accepts({ t: 'state', time: 0, unit: 'GPU.SM[12].L1I', value: 'x' })).toBe(false);
  });
});

describe('determinism', () => {
  it('the same scenario and seed give byte-identical traces and stats; another seed differs', async () => {
    const run = async (name: string, seed: number) => {
      const trace = join(dir, `${name}.jsonl`);
      const stats = join(dir, `${name}.stats.json`);
      const r = await runCli(['run', scenarioFile, ...short, '--seed', String(seed), '--trace', trace, '--stats', stats, '-q']);
      expect(r.err).toBe('');
      return { trace: readFileSync(trace), stats: readFileSync(stats) };
    };
    const a = await run('a', 1);
    const b = await run('b', 1);
    const c = await run('c', 2);
    expect(a.trace.length).toBeGreaterThan(10_000);
    expect(a.trace.equals(b.trace)).toBe(true);
    expect(a.stats.equals(b.stats)).toBe(true);
    expect(a.trace.equals(c.trace)).toBe(false);
    const diff = await runCli(['trace', 'diff', join(dir, 'a.jsonl'), join(dir, 'c.jsonl')]);
    expect(diff.code).toBe(1);
    expect(diff.out).toMatch(/traces diverge at line (\d+)/);
    const same = await runCli(['trace', 'diff', join(dir, 'a.jsonl'), join(dir, 'b.jsonl')]);
    expect(same.out).toBe('traces are identical\n');
  });
});

describe('output files', () => {
  it('creates missing output directories, and names an unwritable path', async () => {
    const nested = join(dir, 'a', 'b', 'c');
    const r = await runCli(['run', scenarioFile, ...short, '--set', 'checks[0].value=640', '--stats', join(nested, 's.json'), '--trace', join(nested, 't.jsonl'), '-q']);
    expect(r.code).toBe(0);
    expect(JSON.parse(readFileSync(join(nested, 's.json'), 'utf8')).scenario).toBe('memory-network');
    const blocker = join(dir, 'plain-file');
    writeFileSync(blocker, 'not a directory');
    const bad = await runCli(['run', scenarioFile, ...short, '--stats', join(blocker, 's.json'), '-q']);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/^error: .*plain-file\/s\.json: cannot write output file \(E[A-Z]+: [^)]+\)\n$/);
  });
});

describe('a trace filtered to some units', () => {
  it('holds exactly the full trace records the filter accepts, though other units build no spans or occupancy (observation scope)', async () => {
    const full = join(dir, 'scope-full.jsonl');
    const part = join(dir, 'scope-part.jsonl');
    const units = ['GEN[3]', 'MEM[1]*'];
    const base = ['run', scenarioFile, ...short, '-q', '--set', 'checks[0].value=640'];
    expect((await runCli([...base, '--trace', full])).code).toBe(0);
    expect((await runCli([...base, '--trace', part, '--trace-units', units.join(',')])).code).toBe(0);
    const filter = new TraceFilter({ units });
    const fullLines = readFileSync(full, 'utf8').trim().split('\n');
    const expected = fullLines.filter((l) => filter.accepts(JSON.parse(l) as TraceRecord));
    const got = readFileSync(part, 'utf8').trim().split('\n');
    expect(got).toEqual(expected);
    // the filter kept records of every kind the scope gates, and dropped most of the run
    const kinds = new Set(got.map((l) => (JSON.parse(l) as TraceRecord).t));
    expect([...kinds].sort()).toEqual(['counter', 'meta', 'msg', 'span']);
    expect(got.length * 4).toBeLessThan(fullLines.length);
  });
});
