/**
 * First divergence between two JSONL traces: the line where two runs (two schedulers, two
 * seeds, two builds) stop agreeing. Streams both files; memory stays bounded.
 */
import { createReadStream } from 'node:fs';
import { access } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { InputError } from '../errors.ts';
import { recordTime, type TraceRecord } from './records.ts';

/** Where two traces first differ. */
export interface TraceDivergence {
  /** 1-based line number. */
  readonly line: number;
  /** Line of the first trace, or null at its end. */
  readonly a: string | null;
  readonly b: string | null;
  /** Time of the earlier diverging record, ps, when parseable. */
  readonly time?: number;
}

/**
 * Compares two trace files line by line.
 * @returns null when identical
 * @throws InputError when a file is missing
 */
export async function diffTraceFiles(pathA: string, pathB: string): Promise<TraceDivergence | null> {
  for (const p of [pathA, pathB]) {
    try {
      await access(p);
    } catch {
      throw new InputError({ file: p }, 'file not found');
    }
  }
  const ia = createInterface({ input: createReadStream(pathA, 'utf8'), crlfDelay: Infinity })[Symbol.asyncIterator]();
  const ib = createInterface({ input: createReadStream(pathB, 'utf8'), crlfDelay: Infinity })[Symbol.asyncIterator]();
  let line = 0;
  for (;;) {
    const [ra, rb] = await Promise.all([ia.next(), ib.next()]);
    line++;
    const a = ra.done ? null : ra.value;
    const b = rb.done ? null : rb.value;
    if (a === null && b === null) return null;
    if (a !== b) {
      const times = [a, b].flatMap((l) => {
        try {
          return l === null ? [] : [recordTime(JSON.parse(l) as TraceRecord)];
        } catch {
          return [];
        }
      });
      return { line, a, b, ...(times.length ? { time: Math.min(...times) } : {}) };
    }
  }
}
