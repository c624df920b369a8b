/** Shared helpers for the PTX front-end tests. */
import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import { InputError } from '../../src/errors.ts';
import { parsePtx } from '../../src/isa/parser.ts';
import type { PtxFunction, PtxModule } from '../../src/isa/ir.ts';

/** Module header used by hand-written snippets. */
export const HEADER = '.version 9.0\n.target sm_75\n.address_size 64\n';

/** Number of lines in {@link HEADER} plus the `.visible .entry k(...)` and `{` lines of {@link kernel}. */
export const KERNEL_BODY_FIRST_LINE = 6;

/**
 * A module with one kernel `k` whose body is `body` (declarations and instructions). The body
 * starts on line {@link KERNEL_BODY_FIRST_LINE} of the text.
 */
export function kernel(body: string, params = '.param .u64 k_p0', prelude = ''): string {
  const pre = prelude === '' ? '' : prelude + '\n';
  return `${HEADER}${pre}.visible .entry k(${params})\n{\n${body}\n}\n`;
}

/** Parses `text` as `test.ptx`. */
export function parse(text: string): PtxModule {
  return parsePtx(text, 'test.ptx');
}

/** Parses a {@link kernel} and returns its function. */
export function parseKernel(body: string, params?: string, prelude?: string): PtxFunction {
  const m = parse(kernel(body, params, prelude));
  return m.functions[m.functionByName.get('k')!]!;
}

/** Reads a fixture file from test/isa/fixtures. */
export function fixture(name: string): string {
  return readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');
}

/** Register index by name in a function. */
export function reg(fn: PtxFunction, name: string): number {
  const r = fn.registers.find((x) => x.name === name);
  if (!r) throw new Error(`no register ${name}`);
  return r.index;
}

/** Expected shape of an InputError. */
export interface ExpectedError {
  line: number;
  column?: number;
  reason: string | RegExp;
  field?: string;
}

/** Asserts that `fn` throws an InputError on file `test.ptx` with the given line/column/reason/field. */
export function expectInputError(fn: () => unknown, e: ExpectedError): InputError {
  let caught: unknown;
  try {
    fn();
  } catch (err) {
    caught = err;
  }
  expect(caught, 'expected an InputError').toBeInstanceOf(InputError);
  const ie = caught as InputError;
  expect(ie.file).toBe('test.ptx');
  expect(ie.line).toBe(e.line);
  if (e.column !== undefined) expect(ie.column).toBe(e.column);
  if (typeof e.reason === 'string') expect(ie.reason).toContain(e.reason);
  else expect(ie.reason).toMatch(e.reason);
  if (e.field !== undefined) expect(ie.field).toBe(e.field);
  expect(ie.message.startsWith(`test.ptx:${e.line}`)).toBe(true);
  return ie;
}
