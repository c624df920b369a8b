import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createUnitRegistry } from '../../machines/index.ts';
import { loadScenario } from '../../src/scenario/loader.ts';
import { runScenario } from '../../src/scenario/run.ts';
import { Prng } from '../../src/sim/prng.ts';
import { observe, StatsRegistry } from '../../src/stats/registry.ts';
import { JsonlSink, RingSink } from '../../src/trace/sinks.ts';

describe('Prng', () => {
  it('is reproducible, and forks are independent of draws and of each other', () => {
    const a = new Prng(42);
    const b = new Prng(42);
    const xs = Array.from({ length: 50 }, () => a.uint32());
    expect(Array.from({ length: 50 }, () => b.uint32())).toEqual(xs);
    const fresh = new Prng(42).fork('GEN[0]').uint32();
    expect(a.fork('GEN[0]').uint32()).toBe(fresh); // drawing from the parent does not shift forks
    expect(new Prng(42).fork('GEN[1]').uint32()).not.toBe(fresh);
    const r = new Prng(1);
    for (let i = 0; i < 1000; i++) {
      const v = r.int(3, 9);
      expect(v >= 3 && v <= 9 && Number.isInteger(v)).toBe(true);
      const f = r.float();
      expect(f >= 0 && f < 1).toBe(true);
    }
    expect(() => r.int(5, 4)).toThrow(RangeError);
  });
});

describe('StatsRegistry', () => {
  it('prints name = value lines in registration order and JSON', () => {
    const s = new StatsRegistry();
    const c = s.counter('gpu_sim_cycle', 'cycles', 'cycles');
    c.value += 1234;
    const h = s.histogram('lat', [10, 20]);
    for (const v of [5, 15, 25, 10]) observe(h, v);
    s.derived('gpu_ipc', () => 1.5);
    expect(s.format()).toBe('gpu_sim_cycle = 1234\nlat = 4 (mean 13.75, max 25)\ngpu_ipc = 1.5');
    expect(s.toJSON()).toEqual({ gpu_sim_cycle: 1234, lat: { bounds: [10, 20], counts: [2, 1, 1], samples: 4, sum: 55, min: 5, max: 25 }, gpu_ipc: 1.5 });
    expect(() => s.counter('gpu_sim_cycle')).toThrow(/registered twice/);
  });

  it('samples time series at the scenario interval and streams them as counters', async () => {
    const loaded = loadScenario('scenarios/memory-network.yaml', ['units.GEN.params.requests=50', 'sampleInterval=100ns']);
    const ring = new RingSink(1_000_000);
    const r = await runScenario(loaded, { registry: createUnitRegistry(), sinks: [ring] });
    const series = r.engine.stats.toJSON()['MEM[0].occupancy'] as { times: number[]; values: number[] };
    expect(series.times[0]).toBe(100_000);
    expect(series.times[1]).toBe(200_000);
    expect(series.times.length).toBe(Math.floor(r.engine.now / 100_000));
    expect(Math.max(...series.values)).toBeGreaterThan(0);
    const sampled = ring.records().filter((x) => x.t === 'counter' && x.name === 'MEM[0].occupancy');
    expect(sampled.length).toBe(series.times.length);
  });
});

describe('JsonlSink', () => {
  it('streams to disk while running (bounded buffer), and close flushes the rest', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'warpstate-sink-')), 't.jsonl');
    const sink = new JsonlSink(path, 4096);
    for (let i = 0; i < 10_000; i++) sink.write({ t: 'counter', time: i, name: 'x', value: i });
    const before = statSync(path).size;
    expect(before).toBeGreaterThan(300_000); // most of it already on disk before close
    sink.close();
    const lines = readFileSync(path, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(10_000);
    expect(JSON.parse(lines[9_999]!)).toEqual({ t: 'counter', time: 9999, name: 'x', value: 9999 });
  });
});
