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

/** A time series sampled by the engine at a fixed interval. */
export interface TimeSeries {
  readonly name: string;
  readonly description: string;
  readonly unit: string;
  /** Reads the current value at a sampling instant. */
  readonly read: () => number;
  /** Sample times in ps. */
  readonly times: number[];
  /** Sampled values. */
  readonly values: number[];
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
  | { times: number[]; values: number[] }
>;

/** Registry of every statistic of a run. */
export class StatsRegistry {
  private readonly entries = new Map<string, Entry>();

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
    const stat: TimeSeries = { name, description, unit, read, times: [], values: [] };
    this.add(name, { type: 'series', stat });
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

  /** The current scalar value of a counter or derived stat, or `undefined`. */
  value(name: string): number | undefined {
    const e = this.entries.get(name);
    if (e === undefined) return undefined;
    if (e.type === 'counter') return e.stat.value;
    if (e.type === 'derived') return e.stat.compute();
    if (e.type === 'histogram') return e.stat.samples;
    return e.stat.values.at(-1);
  }

  /** Names in registration order. */
  names(): string[] {
    return [...this.entries.keys()];
  }

  /** Every registered time series. */
  series(): TimeSeries[] {
    const out: TimeSeries[] = [];
    for (const e of this.entries.values()) if (e.type === 'series') out.push(e.stat);
    return out;
  }

  /** Samples every time series at `time` ps. */
  sample(time: number): void {
    for (const e of this.entries.values()) {
      if (e.type === 'series') {
        e.stat.times.push(time);
        e.stat.values.push(e.stat.read());
      }
    }
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
      } else out[name] = { times: [...e.stat.times], values: [...e.stat.values] };
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

function roundForJson(v: number): number {
  return Number.isFinite(v) ? Number(v.toPrecision(12)) : 0;
}

function formatNumber(v: number): string {
  if (Number.isInteger(v)) return String(v);
  if (!Number.isFinite(v)) return String(v);
  return String(Number(v.toPrecision(6)));
}
