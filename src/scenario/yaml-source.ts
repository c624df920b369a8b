/**
 * Reading YAML/JSON input files with source positions, and turning zod issues into
 * {@link InputError}s that name the file, line and field.
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { isMap, isSeq, LineCounter, parseDocument, type Document, type Node } from 'yaml';
import type { z } from 'zod';
import { InputError, type SourceLocation } from '../errors.ts';

/** Path into a parsed document: keys and array indices. */
export type DocPath = readonly (string | number)[];

/** A parsed YAML/JSON file that can map a path back to a line and column. */
export class YamlSource {
  readonly file: string;
  readonly text: string;
  readonly value: unknown;
  private readonly doc: Document;
  private readonly lines: LineCounter;

  /**
   * Parses `text` (YAML 1.2, which includes JSON).
   * @throws InputError on a syntax error, with its line and column
   */
  constructor(file: string, text: string) {
    this.file = file;
    this.text = text;
    this.lines = new LineCounter();
    this.doc = parseDocument(text, { lineCounter: this.lines, prettyErrors: false, uniqueKeys: true });
    const err = this.doc.errors[0];
    if (err !== undefined) {
      const pos = this.lines.linePos(err.pos[0]);
      throw new InputError({ file, line: pos.line, column: pos.col }, `syntax error: ${err.message.split('\n')[0]}`);
    }
    try {
      // The yaml library refuses documents whose aliases expand beyond this count (an alias bomb).
      this.value = this.doc.toJS({ maxAliasCount: 1000 });
    } catch (e) {
      if (e instanceof ReferenceError || e instanceof RangeError) {
        throw new InputError({ file }, `YAML aliases expand too far (more than 1000 alias expansions; an "alias bomb"): ${e.message}`);
      }
      throw e;
    }
  }

  /**
   * Reads and parses a file (at most {@link SCENARIO_MAX_BYTES}).
   * @param what what the file should be, for errors ("a scenario", "a GPU config")
   * @throws InputError when the file is missing/unreadable, too large or not valid YAML
   */
  static read(file: string, what = 'a scenario'): YamlSource {
    return new YamlSource(file, readInputText(file, SCENARIO_MAX_BYTES, what));
  }

  /** Location of the node at `path` (or of its nearest existing ancestor). */
  locate(path: DocPath, key?: string): SourceLocation {
    let p = [...path];
    for (;;) {
      const node = (p.length === 0 ? this.doc.contents : this.doc.getIn(p, true)) as Node | null | undefined;
      if (node && typeof node === 'object' && 'range' in node && node.range) {
        let offset = node.range[0];
        if (key !== undefined && isMap(node)) {
          const pair = node.items.find((it) => (it.key as { value?: unknown } | null)?.value === key);
          const kr = (pair?.key as Node | undefined)?.range;
          if (kr) offset = kr[0];
        }
        const pos = this.lines.linePos(offset);
        return { file: this.file, line: pos.line, column: pos.col };
      }
      if (p.length === 0) return { file: this.file };
      p = p.slice(0, -1);
    }
  }

  /** Whether the node at `path` is a sequence (for error wording). */
  isSequence(path: DocPath): boolean {
    return isSeq(this.doc.getIn(path, true));
  }

  /**
   * Validates `value` (default: the whole document) against `schema`.
   * @param base path of `value` inside the document, prepended to issue paths
   * @throws InputError for the first issue, naming file, line and field
   */
  validate<T>(schema: z.ZodType<T>, value: unknown = this.value, base: DocPath = []): T {
    const r = schema.safeParse(value);
    if (r.success) return r.data;
    throw this.issueToError(r.error.issues[0]!, base, value);
  }

  /**
   * Converts one zod issue to an InputError located in this file.
   * @param base path of the validated value inside the document
   * @param root the validated value (issue paths are relative to it), to explain a union's issue
   */
  issueToError(issue: z.core.$ZodIssue, base: DocPath = [], root?: unknown): InputError {
    const path = [...base, ...(issue.path as (string | number)[])];
    if (issue.code === 'invalid_union') return this.unionToError(issue, base, root);
    if (issue.code === 'unrecognized_keys') {
      const key = issue.keys[0]!;
      return new InputError(this.locate(path, key), `unknown field '${key}'`, formatPath([...path, key]));
    }
    return new InputError(this.locate(path), issue.message, formatPath(path));
  }

  /** An `invalid_union` issue, as {@link describeUnionForms} explains it; `root` as in {@link issueToError}. */
  private unionToError(issue: z.core.$ZodIssue & { code: 'invalid_union' }, base: DocPath, root: unknown): InputError {
    const rel = issue.path as (string | number)[];
    const path = [...base, ...rel];
    let value: unknown = root === undefined ? this.value : root;
    for (const k of root === undefined ? path : rel) value = value !== null && typeof value === 'object' ? (value as Record<string | number, unknown>)[k] : undefined;
    const d = describeUnionForms(issue, value);
    if (d.branch !== undefined) return this.issueToError({ ...d.branch, path: [...rel, ...d.branch.path] } as z.core.$ZodIssue, base, root);
    return new InputError(this.locate(path), d.reason, formatPath(path));
  }
}

/** The keys a union branch's issues show it accepts: its missing required keys and the given keys it did not refuse. */
function branchKeys(branch: readonly z.core.$ZodIssue[], given: readonly string[]): string[] {
  const refused = new Set(branch.flatMap((i) => (i.code === 'unrecognized_keys' && i.path.length === 0 ? i.keys : [])));
  const missing = branch.filter((i) => i.path.length === 1 && !given.includes(String(i.path[0]))).map((i) => String(i.path[0]));
  return [...new Set([...given.filter((k) => !refused.has(k)), ...missing])];
}

/**
 * Largest scenario file read, bytes (8 MiB). Library scenarios are a few KiB; a YAML document
 * with positions takes about 20 bytes of heap per byte of text, so a 34 MB scenario (100,000
 * duplicated launches, found by the fuzz suite) exhausted a 768 MB heap before validation.
 */
export const SCENARIO_MAX_BYTES = 8 * 1024 * 1024;

/**
 * Reads a whole input text file (scenario, gpgpusim.config, kernelslist.g, trace.config) with a
 * size bound, reading at most `maxBytes + 1` bytes so that `/dev/zero` or `/dev/urandom` given as
 * an input ends at once instead of filling memory; a FIFO or socket is refused before it is
 * opened (opening one blocks until a writer appears).
 * @param file path as the user gave it (named in errors)
 * @param maxBytes the bound, bytes
 * @param what what the file should be, for the error ("a scenario")
 * @param encoding text decoding (`utf8`; `latin1` for byte-oriented trace files)
 * @throws InputError: file not found, a directory, not a regular file or device, larger than
 *   `maxBytes`, or any other OS error (its code)
 */
export function readInputText(file: string, maxBytes: number, what: string, encoding: BufferEncoding = 'utf8'): string {
  const fail = (e: unknown): never => {
    const code = (e as NodeJS.ErrnoException).code;
    throw new InputError({ file }, code === 'ENOENT' ? 'file not found' : code === 'EISDIR' ? `is a directory, not ${what} file` : `cannot read file (${code ?? String(e)})`);
  };
  let fd: number;
  try {
    const st = statSync(file);
    if (st.isDirectory()) throw new InputError({ file }, `is a directory, not ${what} file`);
    if (st.isFIFO() || st.isSocket()) throw new InputError({ file }, `is a pipe or socket, not ${what} file`);
    fd = openSync(file, 'r');
  } catch (e) {
    if (e instanceof InputError) throw e;
    return fail(e);
  }
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const buf = Buffer.allocUnsafe(Math.min(1 << 20, maxBytes + 1 - total));
      const n = readSync(fd, buf, 0, buf.length, null);
      if (n === 0) break;
      chunks.push(n === buf.length ? buf : buf.subarray(0, n));
      total += n;
      if (total > maxBytes) throw new InputError({ file }, `larger than ${formatBytes(maxBytes)}: not ${what} file warpstate reads whole (is it the right file?)`);
    }
    return Buffer.concat(chunks, total).toString(encoding);
  } catch (e) {
    if (e instanceof InputError) throw e;
    return fail(e);
  } finally {
    closeSync(fd);
  }
}

const formatBytes = (n: number) => (n % (1024 * 1024) === 0 ? `${n / (1024 * 1024)} MiB` : `${n} bytes`);

/**
 * Turns zod's "Invalid input" of a union (a kernel argument, a check) into the useful message:
 * when one branch's keys match the value, that branch's own first issue (`args[1].u32: expected
 * int`); otherwise the accepted forms (`expected one of { buffer }, { u32 }, ...`). Found by the
 * fuzz suite: 215 of 5,000 cases ended on a bare "Invalid input".
 */
function describeUnionForms(issue: z.core.$ZodIssue & { code: 'invalid_union' }, value: unknown): { branch?: z.core.$ZodIssue; reason: string } {
  const branches = issue.errors as z.core.$ZodIssue[][];
  const matched = branches.filter((b) => b.length > 0 && b.every((i) => i.code !== 'unrecognized_keys' && !(i.path.length === 0 && i.code === 'invalid_type')));
  if (matched.length > 0) {
    const best = matched.reduce((a, b) => (b.length < a.length ? b : a));
    return { branch: best[0]!, reason: '' };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    const expected = [...new Set(branches.flatMap((b) => b.filter((i) => i.path.length === 0 && i.code === 'invalid_type').map((i) => (i as { expected?: string }).expected ?? '')))].filter((e) => e !== '');
    return { reason: `expected ${expected.length > 0 ? expected.join(' or ') : 'another form'}, got ${Array.isArray(value) ? 'a list' : value === null ? 'null' : typeof value}` };
  }
  const given = Object.keys(value);
  const forms = [...new Set(branches.map((b) => `{ ${branchKeys(b, given).join(', ')} }`))];
  return { reason: `matches none of the accepted forms: ${forms.join(', ')}` };
}

/** Formats a path as `units[2].params.latencyCycles`. */
export function formatPath(path: DocPath): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? part : `.${part}`;
  }
  return out === '' ? '(document)' : out;
}
