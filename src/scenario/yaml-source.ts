/**
 * Reading YAML/JSON input files with source positions, and turning zod issues into
 * {@link InputError}s that name the file, line and field.
 */
import { readFileSync } from 'node:fs';
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
   * Reads and parses a file.
   * @throws InputError when the file is missing/unreadable or not valid YAML
   */
  static read(file: string): YamlSource {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      throw new InputError({ file }, code === 'ENOENT' ? 'file not found' : `cannot read file (${code ?? String(e)})`);
    }
    return new YamlSource(file, text);
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
    throw this.issueToError(r.error.issues[0]!, base);
  }

  /** Converts one zod issue to an InputError located in this file. */
  issueToError(issue: z.core.$ZodIssue, base: DocPath = []): InputError {
    const path = [...base, ...(issue.path as (string | number)[])];
    if (issue.code === 'unrecognized_keys') {
      const key = issue.keys[0]!;
      return new InputError(this.locate(path, key), `unknown field '${key}'`, formatPath([...path, key]));
    }
    return new InputError(this.locate(path), issue.message, formatPath(path));
  }
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
