/**
 * Statistics registry: counters, histograms and sampled time series, printed as GPGPU-Sim-style
 * `name = value` lines and written as JSON (DESIGN.md §4).
 *
 * Counters are plain objects with a mutable `value` so the hot path increments a field
 * (`c.value++`) instead of calling a function. Names are registered once; registration order is
 * the print order, so output is deterministic.
 */

/** A monotonically updated number. */
export interface Counter {
  readonly name: string;
  readonly description: string;
  /** Unit of the value: `count`, `cycles`, `bytes`, `ps`, ... */
  readonly unit: string;
  value: number;
}

/** A histogram with fixed upper bucket bounds; the last bucket is open (overflow). */
export interface Histogram {
  readonly name: string;
  readonly description: string;
  readonly unit: string;
  /** Inclusive upper bounds of all buckets but the last. */
  readonly bounds: readonly number[];
  /** `bounds.length + 1` counts. */
  readonly counts: number[];
  /** Number of samples, their sum, min and max. */
  samples: number;
  sum: number;
  min: number;
  max: number;
}

/** Default of {@link StatsRegistry.configureSeries}'s `limit`: stored points per time series. */
export const DEFAULT_SAMPLE_LIMIT = 4096;

/**
 * A time series sampled by the engine at a fixed interval, kept in bounded memory.
 *
 * Every raw sample is offered to the series (and streamed to `Engine.samples$` observers, e.g. a
 * CSV sink, at full resolution). In memory a series stores at most `limit` points: when a point
 * would not fit, adjacent pairs are merged in place (2:1 down-sampling) and from then on each
 * stored point stands for twice as many raw samples (1, 2, 4, 8 ...), so memory is O(limit)
 * whatever the run length, and the points stay uniformly spaced over the whole run (the
 * fixed-memory down-sampling of a round-robin archive, as in RRDtool).
 *
 * A stored point is the mean of its raw samples, at the time of its first raw sample. The mean
 * keeps the value's unit: a gauge (a queue length) becomes its time average over the point
 * (raw samples are evenly spaced in time), and a per-interval count (`alu_load`, instructions
 * per `sampleInterval`) stays a count per raw interval, so a plot keeps its scale as the run
 * grows; the count over the point's span is `value * samplesPerPoint`. Pairs of equal weight are
 * merged, so the mean is exact for integer samples.
 */
export interface TimeSeries {
  readonly name: string;
  readonly description: string;
  readonly unit: string;
  /** Reads the current value at a sampling instant. */
  readonly read: () => number;
  /** Times of the stored complete points (their first raw sample), ps. */
  readonly times: number[];
  /** Stored complete points: each the mean of `samplesPerPoint` raw samples. */
  readonly values: number[];
  /** Raw samples per stored point: 1 until the first down-sampling, then 2, 4, 8 ... */
  samplesPerPoint: number;
  /** Raw samples taken so far. */
  samples: number;
  /** The latest raw sample (NaN before the first). */
  last: number;
  /** Time of the first raw sample of the point being accumulated, ps. */
  pendingTime: number;
  /** Sum of the raw samples of the point being accumulated. */
  pendingSum: number;
  /** Raw samples in the point being accumulated (0 to `samplesPerPoint - 1`). */
  pendingCount: number;
}

/**
 * JSON shape of a time series in {@link StatsRegistry.toJSON}: the stored points, then the
 * partly accumulated last point (the mean of the `samples - (times.length - 1) * samplesPerPoint`
 * raw samples it holds, at least 1) when there is one.
 */
export interface TimeSeriesJson {
  /** Point times (first raw sample of each point), ps. */
  times: number[];
  /** Point values: means of their raw samples. */
  values: number[];
  /** Effective interval between points, ps: the sampling interval times `samplesPerPoint` (0 when the interval is not known). */
  intervalPs: number;
  /** Raw samples per point (a power of 2; the last point may hold fewer). */
  samplesPerPoint: number;
  /** Raw samples taken in all. */
  samples: number;
}

/** Value of a derived statistic, computed when printed (e.g. `gpu_ipc`). */
export interface Derived {
  readonly name: string;
  readonly description: string;
  readonly unit: string;
  readonly compute: () => number;
}

type Entry =
  | { type: 'counter'; stat: Counter }
  | { type: 'histogram'; stat: Histogram }
  | { type: 'series'; stat: TimeSeries }
  | { type: 'derived'; stat: Derived };

/** JSON shape of {@link StatsRegistry.toJSON}. */
export type StatsJson = Record<
  string,
  | number
  | { bounds: number[]; counts: number[]; samples: number; sum: number; min: number; max: number }
  | TimeSeriesJson
>;

/** Registry of every statistic of a run. */
export class StatsRegistry {
  private readonly entries = new Map<string, Entry>();
  /** Time series in registration order (the sampler's loop; no map walk per sample). */
  private readonly seriesList: TimeSeries[] = [];
  private sampleIntervalPs = 0;
  private sampleLimit = DEFAULT_SAMPLE_LIMIT;

  /**
   * Sets the sampling interval (reported as `intervalPs`) and the stored-point limit of every time series.
   * Call before sampling starts (the engine does, from its options).
   * @param intervalPs interval between raw samples, ps (0 or less: unknown, reported as 0)
   * @param limit stored points per series, an integer >= 1 (scenario field `sampleLimit`)
   * @throws RangeError for a limit that is not an integer >= 1
   */
  configureSeries(intervalPs: number, limit: number = DEFAULT_SAMPLE_LIMIT): void {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`sample limit must be an integer >= 1, got ${limit}`);
    this.sampleIntervalPs = intervalPs > 0 ? intervalPs : 0;
    this.sampleLimit = limit;
  }

  /**
   * Registers a counter.
   * @throws Error when the name is already taken
   */
  counter(name: string, description = '', unit = 'count'): Counter {
    const stat: Counter = { name, description, unit, value: 0 };
    this.add(name, { type: 'counter', stat });
    return stat;
  }

  /** Registers a histogram with inclusive upper `bounds` (sorted ascending). */
  histogram(name: string, bounds: readonly number[], description = '', unit = 'count'): Histogram {
    const stat: Histogram = {
      name,
      description,
      unit,
      bounds: [...bounds],
      counts: new Array<number>(bounds.length + 1).fill(0),
      samples: 0,
      sum: 0,
      min: Infinity,
      max: -Infinity,
    };
    this.add(name, { type: 'histogram', stat });
    return stat;
  }

  /** Registers a time series whose value `read()` is sampled by the engine. */
  timeSeries(name: string, read: () => number, description = '', unit = 'count'): TimeSeries {
    const stat: TimeSeries = { name, description, unit, read, times: [], values: [], samplesPerPoint: 1, samples: 0, last: NaN, pendingTime: 0, pendingSum: 0, pendingCount: 0 };
    this.add(name, { type: 'series', stat });
    this.seriesList.push(stat);
    return stat;
  }

  /** Registers a value computed at print time. */
  derived(name: string, compute: () => number, description = '', unit = ''): Derived {
    const stat: Derived = { name, description, unit, compute };
    this.add(name, { type: 'derived', stat });
    return stat;
  }

  /** Whether `name` is registered. */
  has(name: string): boolean {
    return this.entries.has(name);
  }

  /** The current scalar value of a counter or derived stat (histograms: samples; series: the latest raw sample), or `undefined`. */
  value(name: string): number | undefined {
    const e = this.entries.get(name);
    if (e === undefined) return undefined;
    if (e.type === 'counter') return e.stat.value;
    if (e.type === 'derived') return e.stat.compute();
    if (e.type === 'histogram') return e.stat.samples;
    return e.stat.samples > 0 ? e.stat.last : undefined;
  }

  /** Names in registration order. */
  names(): string[] {
    return [...this.entries.keys()];
  }

  /** Every registered time series, in registration order (the registry's own list: do not modify). */
  series(): readonly TimeSeries[] {
    return this.seriesList;
  }

  /**
   * Takes one raw sample of every time series at `time` ps: `read()` each and add it to the
   * series' bounded store (down-sampling it 2:1 when full). Allocates nothing once a series is full.
   */
  sample(time: number): void {
    const list = this.seriesList;
    for (let i = 0; i < list.length; i++) addSample(list[i]!, time, list[i]!.read(), this.sampleLimit);
  }

  /** `name = value` lines (histograms as `name = samples (mean m, max x)`; series omitted). */
  format(): string {
    const lines: string[] = [];
    for (const [name, e] of this.entries) {
      if (e.type === 'counter') lines.push(`${name} = ${formatNumber(e.stat.value)}`);
      else if (e.type === 'derived') lines.push(`${name} = ${formatNumber(e.stat.compute())}`);
      else if (e.type === 'histogram') {
        const h = e.stat;
        const mean = h.samples > 0 ? h.sum / h.samples : 0;
        lines.push(`${name} = ${h.samples} (mean ${formatNumber(mean)}, max ${h.samples > 0 ? formatNumber(h.max) : 0})`);
      }
    }
    return lines.join('\n');
  }

  /** Every statistic as JSON, keys in registration order. */
  toJSON(): StatsJson {
    const out: StatsJson = {};
    for (const [name, e] of this.entries) {
      if (e.type === 'counter') out[name] = e.stat.value;
      else if (e.type === 'derived') out[name] = roundForJson(e.stat.compute());
      else if (e.type === 'histogram') {
        const h = e.stat;
        out[name] = { bounds: [...h.bounds], counts: [...h.counts], samples: h.samples, sum: h.sum, min: h.samples ? h.min : 0, max: h.samples ? h.max : 0 };
      } else out[name] = seriesJson(e.stat, this.sampleIntervalPs);
    }
    return out;
  }

  private add(name: string, entry: Entry): void {
    if (this.entries.has(name)) throw new Error(`statistic '${name}' is registered twice`);
    this.entries.set(name, entry);
  }
}

/** Adds one sample to a histogram. */
export function observe(h: Histogram, value: number): void {
  const bounds = h.bounds;
  let i = 0;
  while (i < bounds.length && value > bounds[i]!) i++;
  h.counts[i]!++;
  h.samples++;
  h.sum += value;
  if (value < h.min) h.min = value;
  if (value > h.max) h.max = value;
}

/**
 * Adds raw sample `value` taken at `time` ps to `s`, keeping at most `limit` stored points.
 * A point completes after `samplesPerPoint` raw samples; storing it into a full series first
 * merges adjacent pairs (2:1). With an odd count the unpaired last point pairs with the new one.
 */
export function addSample(s: TimeSeries, time: number, value: number, limit: number): void {
  s.samples++;
  s.last = value;
  if (s.pendingCount === 0) s.pendingTime = time;
  s.pendingSum += value;
  if (++s.pendingCount < s.samplesPerPoint) return;
  const per = s.samplesPerPoint;
  const t = s.pendingTime;
  const sum = s.pendingSum;
  const v = sum / per;
  s.pendingSum = 0;
  s.pendingCount = 0;
  const times = s.times;
  const values = s.values;
  const n = times.length;
  if (n < limit) {
    times.push(t);
    values.push(v);
    return;
  }
  // Full: merge pairs in place; each stored point now stands for 2 * per raw samples.
  const half = n >> 1;
  for (let i = 0; i < half; i++) {
    times[i] = times[2 * i]!;
    values[i] = (values[2 * i]! + values[2 * i + 1]!) / 2;
  }
  s.samplesPerPoint = 2 * per;
  if (n & 1) {
    // The unpaired last point and the new one (equal weights) make one complete point.
    times[half] = times[n - 1]!;
    values[half] = (values[n - 1]! + v) / 2;
    times.length = half + 1;
    values.length = half + 1;
  } else {
    // The new point is the first half of the next, still accumulating.
    times.length = half;
    values.length = half;
    s.pendingTime = t;
    s.pendingSum = sum;
    s.pendingCount = per;
  }
}

/** The JSON form of a series: stored points plus the partly accumulated one. */
function seriesJson(s: TimeSeries, intervalPs: number): TimeSeriesJson {
  const times = [...s.times];
  const values = [...s.values];
  if (s.pendingCount > 0) {
    times.push(s.pendingTime);
    values.push(s.pendingSum / s.pendingCount);
  }
  return { times, values, intervalPs: intervalPs * s.samplesPerPoint, samplesPerPoint: s.samplesPerPoint, samples: s.samples };
}

function roundForJson(v: number): number {
  return Number.isFinite(v) ? Number(v.toPrecision(12)) : 0;
}

function formatNumber(v: number): string {
  if (Number.isInteger(v)) return String(v);
  if (!Number.isFinite(v)) return String(v);
  return String(Number(v.toPrecision(6)));
}
