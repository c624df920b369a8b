/**
 * Trace sinks and filters.
 *
 * - {@link JsonlSink}: JSON Lines streamed to a file with a fixed-size write buffer, so memory
 *   stays bounded for any run length; synchronous writes, so a failing run still leaves every
 *   record written before the failure once {@link JsonlSink.close} runs.
 * - {@link RingSink}: the last N records in memory (for tests and post-mortem reports).
 * - {@link TraceFilter}: unit-name globs, message-kind globs and a time window.
 */
import { closeSync, existsSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { InputError } from '../errors.ts';
import picomatch from 'picomatch';
import { encodeRecord, recordTime, type TraceRecord } from './records.ts';

/**
 * Opens an output file for writing, creating its directory first.
 * @returns a file descriptor
 * @throws InputError naming the path when it cannot be created
 */
export function openOutputFile(path: string): number {
  try {
    ensureDir(dirname(path));
    return openSync(path, 'w');
  } catch (e) {
    throw outputError(path, e);
  }
}

/**
 * Creates a directory and its missing parents one at a time (Node 20's recursive `mkdirSync`
 * never returns for a path under `/proc`); each step fails fast with the OS error.
 */
function ensureDir(dir: string): void {
  if (existsSync(dir)) return;
  const parent = dirname(dir);
  if (parent !== dir) ensureDir(parent);
  mkdirSync(dir);
}

/** The input error of an output path that cannot be written: the path, the OS code and message. */
export function outputError(path: string, e: unknown): InputError {
  const err = e as NodeJS.ErrnoException;
  const detail = err.code !== undefined ? `${err.code}: ${err.message.replace(/^[A-Z]+: /, '').replace(/, \w+ '.*'$/, '')}` : String(e);
  return new InputError({ file: path }, `cannot write output file (${detail})`);
}

/** Writes a whole output file, creating its directory first. @throws InputError naming the path and the OS error */
export function writeOutputFile(path: string, text: string): void {
  const fd = openOutputFile(path);
  try {
    writeSync(fd, text);
  } catch (e) {
    throw outputError(path, e);
  } finally {
    closeSync(fd);
  }
}

/** Where trace records go. */
export interface TraceSink {
  write(rec: TraceRecord): void;
  /** Flushes and releases resources; idempotent. */
  close(): void;
}

/** Streams records as JSON Lines to a file. */
export class JsonlSink implements TraceSink {
  readonly path: string;
  private fd: number | null;
  /** Encoded lines not yet written (UTF-8), `used` bytes of it. */
  private readonly buffer: Buffer;
  private used = 0;
  /** Records written. */
  count = 0;

  /**
   * @param path output file (created or truncated)
   * @param flushBytes buffer size before a write, bytes (default 256 KiB; at least 4 KiB)
   */
  constructor(path: string, flushBytes = 256 * 1024) {
    this.path = path;
    this.fd = openOutputFile(path);
    // Lines are encoded straight into one buffer (a string join, then an encode, cost 6x more).
    this.buffer = Buffer.allocUnsafe(Math.max(flushBytes, 4096));
  }

  write(rec: TraceRecord): void {
    if (this.fd === null) return;
    const line = encodeRecord(rec);
    this.count++;
    const worst = 3 * line.length + 1; // UTF-8 bytes per UTF-16 unit are at most 3
    if (this.used + worst > this.buffer.length) {
      this.flush();
      if (this.fd === null) return;
      if (worst > this.buffer.length) {
        this.writeOut(line + '\n');
        return;
      }
    }
    this.used += this.buffer.write(line, this.used);
    this.buffer[this.used++] = 10;
  }

  /** The first write failure (a full disk): later records are dropped; the run driver reports it once. */
  error: InputError | null = null;

  /** Writes buffered lines to the file; a failure is kept in {@link error} and stops the sink. */
  flush(): void {
    if (this.fd === null || this.used === 0) return;
    const n = this.used;
    this.used = 0;
    this.writeOut(this.buffer.subarray(0, n));
  }

  private writeOut(data: string | Buffer): void {
    try {
      if (typeof data === 'string') writeSync(this.fd!, data);
      else {
        for (let off = 0; off < data.length; ) off += writeSync(this.fd!, data, off, data.length - off);
      }
    } catch (e) {
      this.error = outputError(this.path, e);
      closeSync(this.fd!);
      this.fd = null;
    }
  }

  close(): void {
    if (this.fd === null) return;
    this.flush();
    if (this.fd === null) return;
    closeSync(this.fd);
    this.fd = null;
  }
}

/** Keeps the most recent `capacity` records. */
export class RingSink implements TraceSink {
  readonly capacity: number;
  private readonly items: TraceRecord[] = [];
  private next = 0;
  /** Records seen, including overwritten ones. */
  total = 0;

  constructor(capacity: number) {
    if (!(capacity >= 1)) throw new RangeError('RingSink capacity must be >= 1');
    this.capacity = capacity;
  }

  write(rec: TraceRecord): void {
    if (this.items.length < this.capacity) this.items.push(rec);
    else this.items[this.next] = rec;
    this.next = (this.next + 1) % this.capacity;
    this.total++;
  }

  /** Records oldest first. */
  records(): TraceRecord[] {
    if (this.items.length < this.capacity) return [...this.items];
    return [...this.items.slice(this.next), ...this.items.slice(0, this.next)];
  }

  close(): void {}
}

/** Filter options; every given criterion must hold. */
export interface TraceFilterOptions {
  /** Unit-name globs (`GPU.SM[*].L1D` style brackets are literal; use `GPU.SM*` or `**`). */
  units?: readonly string[];
  /** Message-kind globs (`mem.*`). Records other than messages pass this criterion. */
  kinds?: readonly string[];
  /** Window start, ps (records whose time is earlier are dropped). */
  from?: number;
  /** Window end, ps (records whose time is later are dropped). */
  to?: number;
}

/** A compiled filter. */
export class TraceFilter {
  private readonly unitMatch: ((s: string) => boolean) | null;
  private readonly kindMatch: ((s: string) => boolean) | null;
  private readonly from: number;
  private readonly to: number;

  constructor(options: TraceFilterOptions = {}) {
    // Brackets are literal in unit names (SM[3]); picomatch would read them as classes.
    const lit = (g: string) => g.replace(/[[\]]/g, '\\$&');
    const match = options.units?.length ? picomatch(options.units.map(lit), { dot: true }) : null;
    // Unit and port names are a small fixed set: each is matched once (issue 11, filtered traces).
    if (match === null) this.unitMatch = null;
    else {
      const seen = new Map<string, boolean>();
      this.unitMatch = (name: string) => {
        let ok = seen.get(name);
        if (ok === undefined) seen.set(name, (ok = match(name)));
        return ok;
      };
    }
    this.kindMatch = options.kinds?.length ? picomatch([...options.kinds], { dot: true }) : null;
    this.from = options.from ?? -Infinity;
    this.to = options.to ?? Infinity;
  }

  /** Whether the filter lets everything through. */
  get isOpen(): boolean {
    return this.unitMatch === null && this.kindMatch === null && this.from === -Infinity && this.to === Infinity;
  }

  /** Whether a unit filter is set. */
  get unitFiltered(): boolean {
    return this.unitMatch !== null;
  }

  /** Whether records of unit (or counter) `name` can pass the unit filter (true without one). */
  acceptsUnit(name: string): boolean {
    return this.unitMatch === null || this.unitMatch(name);
  }

  /** Whether `rec` passes. Meta records always pass. */
  accepts(rec: TraceRecord): boolean {
    if (rec.t === 'meta') return true;
    const time = recordTime(rec);
    if (time < this.from || time > this.to) return false;
    if (this.kindMatch !== null && rec.t === 'msg' && !this.kindMatch(rec.kind)) return false;
    if (this.unitMatch !== null) {
      switch (rec.t) {
        case 'msg':
          return this.unitMatch(rec.src) || this.unitMatch(rec.dst);
        case 'span':
        case 'state':
          return this.unitMatch(rec.unit);
        case 'counter':
          return this.unitMatch(rec.name);
      }
    }
    return true;
  }
}
