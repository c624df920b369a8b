/**
 * Test helpers for the kernel library: paths, PTX entry/parameter parsing, and a minimal
 * conversion of a `scenarios/k-*.yaml` document into the buffers and {@link ReferenceInput} a
 * kernel reference takes (the real loader lives in src/scenario/; this one only serves tests).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { expect } from 'vitest';
import { InputError } from '../../src/errors.ts';
import { Prng } from '../../src/sim/prng.ts';
import { generateBuffer } from '../../src/scenario/references/generators.ts';
import type { BufferType, ReferenceArg, ReferenceInput, ReferenceTexture, ScalarArgType, TypedArray } from '../../src/scenario/references/types.ts';

/** Repository root. */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
/** scenarios/ */
export const SCENARIOS_DIR = join(REPO_ROOT, 'scenarios');
/** scenarios/kernels/ */
export const KERNELS_DIR = join(SCENARIOS_DIR, 'kernels');

/** Kernel file stems (kebab-case) of every `scenarios/kernels/*.cu`, sorted. */
export function kernelStems(): string[] {
  return readdirSync(KERNELS_DIR)
    .filter((f) => f.endsWith('.cu'))
    .map((f) => f.slice(0, -3))
    .sort();
}

/** The `extern "C"` entry name of a kernel file stem: kebab-case to snake_case. */
export function entryOf(stem: string): string {
  return stem.replace(/-/g, '_');
}

/** Every `scenarios/k-*.yaml`, sorted. */
export function scenarioFiles(): string[] {
  return readdirSync(SCENARIOS_DIR)
    .filter((f) => /^k-.*\.yaml$/.test(f))
    .sort()
    .map((f) => join(SCENARIOS_DIR, f));
}

/** `.entry` names of a PTX text with their `.param` types in order (`u64`, `u32`, `f32` ...). */
export function ptxEntries(ptx: string): Map<string, string[]> {
  const entries = new Map<string, string[]>();
  for (const m of ptx.matchAll(/\.entry\s+([A-Za-z_$][\w$]*)\s*\(([^)]*)\)/g)) {
    entries.set(m[1]!, [...m[2]!.matchAll(/\.param\s+\.(\w+)/g)].map((p) => p[1]!));
  }
  return entries;
}

/** Total bytes of the static `.shared` variables declared in a PTX text. */
export function ptxStaticSharedBytes(ptx: string): number {
  let total = 0;
  for (const m of ptx.matchAll(/^\s*\.shared\s+(?:\.align\s+\d+\s+)?\.(\w+)\s+[\w$]+\[(\d+)\]/gm)) {
    const unit = Number(/\d+/.exec(m[1]!)?.[0] ?? '8') / 8;
    total += unit * Number(m[2]);
  }
  return total;
}

/** A scenario document as the YAML gives it (shape checked by the tests, not here). */
export interface RawScenario {
  name: string;
  description: string;
  seed: number;
  mode: string;
  buffers: { name: string; type: BufferType; count: number; init: Record<string, unknown> }[];
  launches: {
    ptx: string;
    entry: string;
    grid: [number, number, number];
    block: [number, number, number];
    dynamicSharedBytes: number;
    args: Record<string, unknown>[];
  }[];
  checks: { reference: string; compare: string[]; ulp: number }[];
}

/** Parses a scenario YAML file. */
export function readScenario(file: string): RawScenario {
  return parse(readFileSync(file, 'utf8')) as RawScenario;
}

const SCALAR_KINDS: readonly ScalarArgType[] = ['u32', 's32', 'u64', 's64', 'f32', 'f64'];

/** Converts one YAML argument (`{buffer: x}` or `{u32: 5}` ...) into a {@link ReferenceArg}. */
export function toReferenceArg(arg: Record<string, unknown>): ReferenceArg {
  const keys = Object.keys(arg);
  if (keys.length !== 1) throw new Error(`argument must have exactly one key: ${JSON.stringify(arg)}`);
  const key = keys[0]!;
  const value = arg[key];
  if (key === 'buffer') return { buffer: String(value) };
  if (key === 'texture' || key === 'surface') {
    // the loader's defaults (src/scenario/schema.ts), filled in as references see them
    const t = value as Record<string, unknown>;
    const bytes = { u8: 1, s8: 1, u16: 2, s16: 2, u32: 4, s32: 4, f16: 2, f32: 4 }[t.format as string]! * ((t.channels as number | undefined) ?? 1);
    const width = t.width as number;
    const height = (t.height as number | undefined) ?? 1;
    const pitch = (t.pitch as number | undefined) ?? width * bytes;
    const mode = (t.addressMode as string | string[] | undefined) ?? 'clamp';
    const modes = (typeof mode === 'string' ? [mode] : mode) as ReferenceTexture['addressMode'][number][];
    const m = (d: number) => modes[Math.min(d, modes.length - 1)]!;
    const desc: ReferenceTexture = {
      buffer: String(t.buffer), offset: (t.offset as number | undefined) ?? 0, width, height, depth: (t.depth as number | undefined) ?? 1,
      layers: (t.layers as number | undefined) ?? 0, pitch, slicePitch: (t.slicePitch as number | undefined) ?? pitch * height,
      format: t.format as ReferenceTexture['format'], channels: ((t.channels as number | undefined) ?? 1) as 1 | 2 | 4,
      readMode: (t.readMode as ReferenceTexture['readMode'] | undefined) ?? 'elementType', addressMode: [m(0), m(1), m(2)],
      filterMode: (t.filterMode as ReferenceTexture['filterMode'] | undefined) ?? 'point', normalizedCoords: (t.normalizedCoords as boolean | undefined) ?? false,
    };
    return key === 'texture' ? { texture: desc } : { surface: desc };
  }
  if (!(SCALAR_KINDS as readonly string[]).includes(key)) throw new Error(`unknown argument kind ${key}`);
  if (typeof value !== 'number' && typeof value !== 'bigint') throw new Error(`argument ${key} needs a number`);
  return { type: key as ScalarArgType, value };
}

/** Generates a scenario's initial buffers (seeded as the loader will: one fork per buffer name). */
export function generateScenarioBuffers(doc: RawScenario): Record<string, TypedArray> {
  const prng = new Prng(doc.seed);
  const buffers: Record<string, TypedArray> = {};
  for (const b of doc.buffers) buffers[b.name] = generateBuffer(b, prng);
  return buffers;
}

/** The reference input of a scenario: fresh copies of its initial buffers and its launches. */
export function referenceInputOf(doc: RawScenario, buffers: Record<string, TypedArray>, file?: string): ReferenceInput {
  const copies: Record<string, TypedArray> = {};
  for (const [name, b] of Object.entries(buffers)) copies[name] = b.slice();
  const input: ReferenceInput = {
    buffers: copies,
    launches: doc.launches.map((l) => ({ grid: l.grid, block: l.block, args: l.args.map(toReferenceArg) })),
  };
  if (file !== undefined) input.file = file;
  return input;
}

/** The elements of any scenario typed array as a plain array (numbers, or bigints for 64-bit). */
export function list(a: TypedArray | undefined): (number | bigint)[] {
  const out: (number | bigint)[] = [];
  if (a === undefined) return out;
  for (let i = 0; i < a.length; i++) out.push(a[i]!);
  return out;
}

/** The elements of a non-64-bit typed array as numbers. */
export function nums(a: TypedArray | undefined): number[] {
  return list(a).map((v) => Number(v));
}

/**
 * Expects `fn` to throw an InputError whose field is `field` and whose message contains `text`.
 * @throws the assertion failure when it does not
 */
export function expectInputError(fn: () => unknown, field: string, text: string): void {
  let caught: unknown;
  try {
    fn();
  } catch (e) {
    caught = e;
  }
  expect(caught).toBeInstanceOf(InputError);
  expect((caught as InputError).field).toBe(field);
  expect((caught as InputError).message).toContain(text);
}
