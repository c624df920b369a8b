/**
 * Time series in bounded memory (issue 9 item 5): 2:1 down-sampling past `sampleLimit`, the
 * effective interval in the stats JSON, `sampleLimit` reaching network and kernel runs, and the
 * full-resolution CSV sink.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fromTransition } from 'xstate';
import { z } from 'zod';
import { createUnitRegistry } from '../../machines/index.ts';
import { InputError } from '../../src/errors.ts';
import { loadScenario } from '../../src/scenario/loader.ts';
import { runScenario } from '../../src/scenario/run.ts';
import { runKernelScenarioTiming } from '../../src/scenario/timing-run.ts';
import { defineUnit, UnitRegistry, type UnitIo } from '../../src/sim/unit.ts';
import { SeriesCsvSink } from '../../src/stats/series-sink.ts';
import { DEFAULT_SAMPLE_LIMIT, StatsRegistry, type TimeSeriesJson } from '../../src/stats/registry.ts';
import { RingSink } from '../../src/trace/sinks.ts';
import { runCli } from '../helpers/cli.ts';

/** A registry with one series `x` fed `values[i]` at `(i + 1) * intervalPs`. */
function sampled(values: readonly number[], limit: number, intervalPs = 100): TimeSeriesJson {
  const s = new StatsRegistry();
  s.configureSeries(intervalPs, limit);
  let v = 0;
  s.timeSeries('x', () => v);
  values.forEach((value, i) => {
    v = value;
    s.sample((i + 1) * intervalPs);
  });
  return s.toJSON()['x'] as TimeSeriesJson;
}

describe('bounded time series', () => {
  it('down-samples a ramp 2:1 in place: 10 samples of 0..9 with limit 4', () => {
    // By hand: samples 0..3 fill the 4 slots; sample 4 merges pairs -> (100: 0.5), (300: 2.5),
    // then points of 2 samples: (500: 4.5), (700: 6.5) fill it again; sample 9 completes (900: 8.5),
    // which merges -> (100: 1.5), (500: 5.5) with 4 samples per point, (900: 8.5) pending.
    // So each point is the mean of 4 consecutive samples: (0+1+2+3)/4, (4+5+6+7)/4, (8+9)/2.
    expect(sampled([0, 1, 2, 3, 4, 5, 6, 7, 8, 9], 4)).toEqual({ times: [100, 500, 900], values: [1.5, 5.5, 8.5], intervalPs: 400, samplesPerPoint: 4, samples: 10 });
    // An odd limit pairs the unpaired last point with the incoming one: the same blocks of 4.
    expect(sampled([0, 1, 2, 3, 4, 5, 6, 7, 8, 9], 3)).toEqual({ times: [100, 500, 900], values: [1.5, 5.5, 8.5], intervalPs: 400, samplesPerPoint: 4, samples: 10 });
    // 9 samples with limit 4: 4 points of 2 samples and one pending: (0+1)/2, (2+3)/2, ... 8.
    expect(sampled([0, 1, 2, 3, 4, 5, 6, 7, 8], 4)).toEqual({ times: [100, 300, 500, 700, 900], values: [0.5, 2.5, 4.5, 6.5, 8], intervalPs: 200, samplesPerPoint: 2, samples: 9 });
  });

  it('keeps every sample below the limit, as before (interval = sampling interval)', () => {
    expect(sampled([5, 7, 9], 4, 50_000)).toEqual({ times: [50_000, 100_000, 150_000], values: [5, 7, 9], intervalPs: 50_000, samplesPerPoint: 1, samples: 3 });
    expect(sampled([], 4)).toEqual({ times: [], values: [], intervalPs: 100, samplesPerPoint: 1, samples: 0 });
  });

  it('stores at most `limit` points, each the exact mean of its block of raw samples (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 24 }), fc.array(fc.integer({ min: -1000, max: 1000 }), { maxLength: 400 }), (limit, raw) => {
        const s = new StatsRegistry();
        s.configureSeries(10, limit);
        let v = 0;
        const series = s.timeSeries('x', () => v);
        raw.forEach((value, i) => {
          v = value;
          s.sample(10 * (i + 1));
          expect(series.values.length).toBeLessThanOrEqual(limit);
        });
        // The smallest power of 2 whose blocks of raw samples fit the limit.
        let per = 1;
        while (Math.floor(raw.length / per) > limit) per *= 2;
        const times: number[] = [];
        const means: number[] = [];
        for (let i = 0; i < raw.length; i += per) {
          const block = raw.slice(i, i + per);
          times.push(10 * (i + 1));
          means.push(block.reduce((a, b) => a + b, 0) / block.length);
        }
        expect(s.toJSON()['x']).toEqual({ times, values: means, intervalPs: 10 * per, samplesPerPoint: per, samples: raw.length });
      }),
      { seed: 9, numRuns: 300 },
    );
  });

  it('reports the latest raw sample as the series value, and refuses a limit below 1', () => {
    const s = new StatsRegistry();
    s.configureSeries(100, 2);
    let v = 0;
    s.timeSeries('x', () => v);
    expect(s.value('x')).toBeUndefined();
    for (v = 1; v <= 5; v++) s.sample(v * 100);
    expect(s.value('x')).toBe(5);
    expect(() => s.configureSeries(100, 0)).toThrow(RangeError);
    expect(() => s.configureSeries(100, 2.5)).toThrow(RangeError);
    expect(DEFAULT_SAMPLE_LIMIT).toBe(4096);
  });
});

describe('sampleLimit in scenarios', () => {
  // memory-network with 50 requests per generator runs for several microseconds.
  const overrides = ['units.GEN.params.requests=50', 'sampleInterval=100ns'];

  it('bounds a network run and records the effective interval; samples$ still streams every sample', async () => {
    const full = await runScenario(loadScenario('scenarios/memory-network.yaml', overrides), { registry: createUnitRegistry() });
    const ring = new RingSink(1_000_000);
    const small = await runScenario(loadScenario('scenarios/memory-network.yaml', [...overrides, 'sampleLimit=4']), { registry: createUnitRegistry(), sinks: [ring] });
    expect(small.engine.now).toBe(full.engine.now);
    const raw = full.engine.stats.toJSON()['MEM[0].occupancy'] as TimeSeriesJson;
    const n = Math.floor(full.engine.now / 100_000); // one sample per 100 ns until the run ends
    expect(raw).toMatchObject({ intervalPs: 100_000, samplesPerPoint: 1, samples: n });
    expect(raw.times).toEqual(Array.from({ length: n }, (_, i) => (i + 1) * 100_000));
    const got = small.engine.stats.toJSON()['MEM[0].occupancy'] as TimeSeriesJson;
    let per = 1;
    while (Math.floor(n / per) > 4) per *= 2;
    expect(per).toBeGreaterThan(1);
    expect(got.samplesPerPoint).toBe(per);
    expect(got.intervalPs).toBe(100_000 * per);
    expect(got.samples).toBe(n);
    expect(got.times).toEqual(Array.from({ length: Math.ceil(n / per) }, (_, i) => 100_000 + i * got.intervalPs));
    // Each point is the mean of its block of the full-resolution series.
    const means = got.times.map((_, k) => {
      const block = raw.values.slice(k * per, (k + 1) * per);
      return block.reduce((a, b) => a + b, 0) / block.length;
    });
    expect(got.values).toEqual(means);
    const streamed = ring.records().filter((r) => r.t === 'counter' && r.name === 'MEM[0].occupancy');
    expect(streamed.map((r) => (r as { value: number }).value)).toEqual(raw.values);
  });

  it('reaches kernel scenarios: per-interval issue counts keep their total (mean x samples per point)', () => {
    const full = runKernelScenarioTiming(loadScenario('scenarios/quickstart.yaml')).engine.stats.toJSON();
    const small = runKernelScenarioTiming(loadScenario('scenarios/quickstart.yaml', ['sampleLimit=8'])).engine.stats.toJSON();
    const a = full['GPU.SM[0].ISSUE.alu_load'] as TimeSeriesJson;
    const b = small['GPU.SM[0].ISSUE.alu_load'] as TimeSeriesJson;
    expect(b.samples).toBe(a.samples);
    expect(b.times.length).toBeLessThanOrEqual(9); // 8 stored points and at most one pending
    expect(b.samplesPerPoint).toBeGreaterThan(1);
    const total = (s: TimeSeriesJson) => s.values.reduce((sum, v, k) => sum + v * Math.min(s.samplesPerPoint, s.samples - k * s.samplesPerPoint), 0);
    expect(total(b)).toBe(total(a));
  });

  it('refuses a sampleLimit out of range, naming file, line and field', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'warpstate-series-'));
    const file = join(dir, 'bad.yaml');
    writeFileSync(file, 'name: bad\nsampleInterval: 10ns\nsampleLimit: 1\nunits: []\n');
    let err: unknown;
    try {
      loadScenario(file);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InputError);
    expect((err as InputError).file).toBe(file);
    expect((err as InputError).line).toBe(3);
    expect((err as InputError).field).toBe('sampleLimit');
    const big = await runCli(['run', 'scenarios/memory-network.yaml', '--set', 'sampleLimit=2000000']);
    expect(big.code).toBe(2);
    expect(big.err).toMatch(/^error: .*sampleLimit.*1048576/);
  });
});

/** A unit that wakes every `period` cycles `times` times and samples its wake count as `wakes`. */
const counter = defineUnit<{ period: number; times: number }>({
  kind: 'wakeCounter',
  description: 'self-waking test unit with a time series',
  spec: z.object({ period: z.number().int(), times: z.number().int() }),
  delivery: 'batch',
  ports: [],
  stats: [],
  logic: (p) =>
    fromTransition(
      (s: { io: UnitIo; wakes: number }, e: { type: string }) => {
        if (e.type !== 'wake') return s;
        s.wakes++;
        if (s.wakes < p.times) s.io.wakeInCycles(p.period);
        return s;
      },
      ({ input }: { input: UnitIo }) => {
        const s = { io: input, wakes: 0 };
        input.timeSeries('wakes', () => s.wakes, 'wakes so far', 'count');
        return s;
      },
    ),
});

/** Two counters on a 1 GHz clock (1 cycle = 1000 ps), sampled every 12 ns. */
function tinyScenario(dir: string, extra = ''): string {
  const file = join(dir, 'tiny.yaml');
  writeFileSync(
    file,
    `name: tiny\nsampleInterval: 12ns\n${extra}clocks: { core: 1000MHz }\nunits:\n  - { name: A, kind: wakeCounter, clock: core, params: { period: 10, times: 5 } }\n  - { name: B, kind: wakeCounter, clock: core, params: { period: 20, times: 3 } }\n`,
  );
  return file;
}

function tinyRegistry(): UnitRegistry {
  const r = new UnitRegistry();
  r.register(counter);
  return r;
}

describe('SeriesCsvSink', () => {
  it('writes every sample of a tiny network scenario as CSV', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'warpstate-series-'));
    const out = join(dir, 'sub', 'series.csv');
    let sink: SeriesCsvSink | null = null;
    // limit 2: the stats file keeps 2 points, the CSV all 4 samples.
    const r = await runScenario(loadScenario(tinyScenario(dir), ['sampleLimit=2']), { registry: tinyRegistry(), onEngine: (e) => (sink = new SeriesCsvSink(e, out, 3)) });
    sink!.close();
    // By hand: A wakes at 0, 10, 20, 30, 40 ns; B at 0, 20, 40 ns. Samples at 12, 24, 36, 48 ns
    // (the last one because A's wake at 40 ns was still queued at 36 ns; then the queue is empty).
    expect(readFileSync(out, 'utf8')).toBe('time_ps,A.wakes,B.wakes\n12000,2,1\n24000,3,2\n36000,4,2\n48000,5,3\n');
    expect(sink!.rows).toBe(4);
    expect(sink!.error).toBeNull();
    // The stats file: pairs merged, (2+3)/2 and (4+5)/2 at 12 and 36 ns.
    expect(r.engine.stats.toJSON()['A.wakes']).toEqual({ times: [12_000, 36_000], values: [2.5, 4.5], intervalPs: 24_000, samplesPerPoint: 2, samples: 4 });
  });

  it('writes the header alone when nothing was sampled (sampling off)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'warpstate-series-'));
    const out = join(dir, 'series.csv');
    let sink: SeriesCsvSink | null = null;
    const file = tinyScenario(dir);
    await runScenario(loadScenario(file, ['sampleInterval=0']), { registry: tinyRegistry(), onEngine: (e) => (sink = new SeriesCsvSink(e, out)) });
    sink!.close();
    expect(readFileSync(out, 'utf8')).toBe('time_ps,A.wakes,B.wakes\n');
  });

  it('reports a write error on /dev/full once, naming the path, and stops writing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'warpstate-series-'));
    let sink: SeriesCsvSink | null = null;
    let observed = true;
    const r = await runScenario(loadScenario(tinyScenario(dir)), {
      registry: tinyRegistry(),
      onEngine: (e) => {
        sink = new SeriesCsvSink(e, '/dev/full', 1);
        e.samples$.subscribe(() => void (observed = e.samples$.observed));
      },
    });
    // The run and its statistics are unaffected.
    expect((r.engine.stats.toJSON()['A.wakes'] as TimeSeriesJson).samples).toBe(4);
    const s = sink!;
    s.close();
    expect(s.rows).toBe(1); // the first row's write failed; the sink unsubscribed
    expect(observed).toBe(true); // the other observer still ran
    expect(s.error).toBeInstanceOf(InputError);
    expect(s.error!.message).toMatch(/^\/dev\/full: cannot write output file \(ENOSPC: /);
    expect(() => s.throwIfFailed()).toThrow(s.error!);
    expect(() => s.throwIfFailed()).not.toThrow();
  });

  it('refuses an output path that is a directory, naming it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'warpstate-series-'));
    await expect(runScenario(loadScenario(tinyScenario(dir)), { registry: tinyRegistry(), onEngine: (e) => void new SeriesCsvSink(e, dir) })).rejects.toThrow(
      new RegExp(`^${dir}: cannot write output file \\(EISDIR: `),
    );
  });
});
