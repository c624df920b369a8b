/**
 * Full-resolution time series as CSV (`--series <file.csv>`), streamed while the run goes on.
 *
 * The stats file keeps each series in bounded memory (down-sampled past `sampleLimit`, see
 * `TimeSeries`); this sink is the lossless companion, like gem5's periodic stats dumps or SST's
 * CSV statistic output: one row per sampling instant, written as it is taken, through a
 * fixed-size buffer, so memory stays bounded for any run length.
 *
 * Layout: header `time_ps,<series names in registration order>`, then one row per sample:
 * the time in ps and each series' raw value. Rows are encoded with `csv-stringify` (RFC 4180
 * quoting should a name need it).
 */
import { closeSync, writeSync } from 'node:fs';
import type { Subscription } from 'rxjs';
import { stringify } from 'csv-stringify/sync';
import type { InputError } from '../errors.ts';
import type { Engine } from '../sim/engine.ts';
import { openOutputFile, outputError } from '../trace/sinks.ts';

/** Writes every time-series sample of an engine to a CSV file. */
export class SeriesCsvSink {
  /** The output path, as given. */
  readonly path: string;
  /** Data rows taken (one per sampling instant), including rows still buffered. */
  rows = 0;
  /**
   * The first write failure (a full disk), naming the path and the OS error; later samples are
   * dropped. Kept, not thrown, so the run and its other outputs finish; the driver reports it
   * once (see {@link throwIfFailed}).
   */
  error: InputError | null = null;
  private fd: number | null;
  private sub: Subscription | null;
  private readonly engine: Pick<Engine, 'stats'>;
  /** Series names of the header, fixed at the first sample (units register series when built). */
  private columns: string[] | null = null;
  private pending: (string | number)[][] = [];
  private readonly flushRows: number;
  private headerWritten = false;
  private thrown = false;

  /**
   * Opens (creates or truncates) `path` and subscribes to `engine.samples$`. Attach before the
   * engine starts so the first sample is seen; the engine samples only with a `sampleInterval`.
   * @param engine the engine whose samples are written
   * @param path output CSV file (its directory is created)
   * @param flushRows rows buffered before a write (default 4096: about 100 KiB for a few series)
   * @throws InputError naming the path when the file cannot be created (a directory, a read-only place)
   * @throws RangeError when `flushRows` is not an integer >= 1
   */
  constructor(engine: Pick<Engine, 'samples$' | 'stats'>, path: string, flushRows = 4096) {
    if (!Number.isInteger(flushRows) || flushRows < 1) throw new RangeError(`flushRows must be an integer >= 1, got ${flushRows}`);
    this.path = path;
    this.engine = engine;
    this.flushRows = flushRows;
    this.fd = openOutputFile(path);
    this.sub = engine.samples$.subscribe((s) => this.add(s.time, s.values));
  }

  /** Buffers one row; writes the buffer when it holds `flushRows` rows. */
  private add(time: number, values: Record<string, number>): void {
    if (this.fd === null) return;
    if (this.columns === null) this.columns = Object.keys(values);
    const cols = this.columns;
    const row: (string | number)[] = new Array(cols.length + 1);
    row[0] = time;
    // A series registered after the header has no column; one missing from a sample is left empty.
    for (let i = 0; i < cols.length; i++) row[i + 1] = values[cols[i]!] ?? '';
    this.pending.push(row);
    this.rows++;
    if (this.pending.length >= this.flushRows) this.flush();
  }

  /** Writes buffered rows (and the header before the first); a failure is kept in {@link error} and stops the sink. */
  flush(): void {
    if (this.fd === null) return;
    let text = '';
    if (!this.headerWritten) {
      // Before the first rows, or alone for a run that took no sample (a valid, empty table).
      this.columns ??= this.engine.stats.series().map((s) => s.name);
      text = stringify([['time_ps', ...this.columns]]);
      this.headerWritten = true;
    }
    if (this.pending.length > 0) text += stringify(this.pending);
    this.pending = [];
    if (text === '') return;
    try {
      writeSync(this.fd, text);
    } catch (e) {
      this.error = outputError(this.path, e);
      this.stop();
    }
  }

  /** Flushes the rest, closes the file and unsubscribes; idempotent, never throws (see {@link error}). */
  close(): void {
    this.flush();
    this.stop();
  }

  /**
   * Throws the write failure, if any, once: later calls return.
   * @throws InputError naming the path and the OS error (e.g. `ENOSPC` on a full disk)
   */
  throwIfFailed(): void {
    if (this.error === null || this.thrown) return;
    this.thrown = true;
    throw this.error;
  }

  private stop(): void {
    this.sub?.unsubscribe();
    this.sub = null;
    if (this.fd !== null) {
      try {
        closeSync(this.fd);
      } catch {
        // Closing a file whose write already failed adds nothing to the error kept.
      }
      this.fd = null;
    }
    this.pending = [];
  }
}
