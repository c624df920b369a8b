/**
 * Seeded generators of initial buffer contents for scenarios (DESIGN.md §5: "buffers ... initial
 * contents from a seeded generator").
 *
 * A scenario buffer's `init` is `{ generator: NAME, ...params }`. {@link bufferGenerators} maps
 * each NAME to a function `(count, type, params, prng, ctx) -> typed array`; parameters are
 * validated with zod and every problem is an `InputError` naming the field
 * (`buffers[2].init.max`). {@link generateBuffer} is the entry point the scenario loader uses:
 * it gives every buffer its own stream `prng.fork(bufferName)`, so adding, removing or
 * reordering buffers never changes another buffer's contents.
 */
import { z } from 'zod';
import { InputError } from '../../errors.ts';
import type { SourceLocation } from '../../errors.ts';
import type { Prng } from '../../sim/prng.ts';
import { INT_RANGES, createBuffer, isBigIntType, isFloatType } from './buffers.ts';
import type { BufferType, TypedArray } from './types.ts';
import { BUFFER_TYPES } from './types.ts';

/** Where a generator's parameters came from, for error messages. */
export interface GeneratorContext {
  /** The scenario file (and line, when the loader knows it). */
  location: SourceLocation;
  /** Dotted path of the `init` object, e.g. `buffers[2].init`. */
  field: string;
}

/**
 * A buffer generator: fills `count` elements of `type` from `params` (the `init` object without
 * its `generator` key) and `prng` (already forked for this buffer). Throws `InputError` for bad
 * parameters or a type the generator cannot fill.
 */
export type BufferGenerator = (
  count: number,
  type: BufferType,
  params: Readonly<Record<string, unknown>>,
  prng: Prng,
  ctx?: GeneratorContext,
) => TypedArray;

const DEFAULT_CONTEXT: GeneratorContext = { location: { file: '<generator>' }, field: 'init' };

const F32_MAX = 3.4028234663852886e38;

const numberOrBigint = z.union([z.number(), z.bigint()]);
const integerOrBigint = z.union([z.number().int(), z.bigint()]);

function fail(ctx: GeneratorContext, reason: string, param?: string): never {
  throw new InputError(ctx.location, reason, param === undefined ? ctx.field : `${ctx.field}.${param}`);
}

function parseParams<S extends z.ZodType>(generator: string, schema: S, params: unknown, ctx: GeneratorContext): z.infer<S> {
  const result = schema.safeParse(params);
  if (result.success) return result.data;
  const issues = result.error.issues;
  const first = issues[0]!;
  const reason = issues
    .map((issue) => (issue.path.length > 0 ? `${issue.path.join('.')}: ${issue.message}` : issue.message))
    .join('; ');
  fail(ctx, `generator ${generator}: ${reason}`, first.path.length > 0 ? first.path.join('.') : undefined);
}

function requireTypes(generator: string, type: BufferType, allowed: readonly BufferType[], ctx: GeneratorContext): void {
  if (!allowed.includes(type)) {
    fail(ctx, `generator ${generator} cannot fill a ${type} buffer (allowed: ${allowed.join(', ')})`);
  }
}

const INTEGER_TYPES: readonly BufferType[] = BUFFER_TYPES.filter((t) => !isFloatType(t));

/**
 * Checks that `value` is representable in `type` and returns it in the array's element form
 * (bigint for 64-bit integers, number otherwise). Floats must be finite and within the type's
 * range (binary32 values are rounded to nearest); integers must be whole and in range.
 */
function toElement(generator: string, type: BufferType, value: number | bigint, ctx: GeneratorContext, param: string): number | bigint {
  if (isFloatType(type)) {
    const v = typeof value === 'bigint' ? Number(value) : value;
    if (!Number.isFinite(v) || (type === 'f32' && Math.abs(v) > F32_MAX)) {
      fail(ctx, `generator ${generator}: ${String(value)} is not a finite ${type} value`, param);
    }
    return type === 'f32' ? Math.fround(v) : v;
  }
  if (typeof value === 'number' && !Number.isSafeInteger(value)) {
    fail(ctx, `generator ${generator}: ${value} is not a whole number within +-(2^53 - 1) (give larger values as bigints)`, param);
  }
  const big = BigInt(value);
  const range = INT_RANGES[type];
  if (big < range.min || big > range.max) {
    fail(ctx, `generator ${generator}: ${big} is outside the ${type} range [${range.min}, ${range.max}]`, param);
  }
  return isBigIntType(type) ? big : Number(big);
}

/** Writes one element, converting a number to bigint for 64-bit arrays. */
function put(array: TypedArray, index: number, value: number | bigint): void {
  if (array instanceof BigInt64Array || array instanceof BigUint64Array) {
    array[index] = typeof value === 'bigint' ? value : BigInt(value);
  } else {
    (array as Float64Array)[index] = Number(value);
  }
}

/** `zeros`: every element 0. Any type; no parameters. */
export const zeros: BufferGenerator = (count, type, params, _prng, ctx = DEFAULT_CONTEXT) => {
  parseParams('zeros', z.strictObject({}), params, ctx);
  return createBuffer(type, count);
};

/** `constant {value}`: every element `value` (must be representable in the type). Any type. */
export const constant: BufferGenerator = (count, type, params, _prng, ctx = DEFAULT_CONTEXT) => {
  const p = parseParams('constant', z.strictObject({ value: numberOrBigint }), params, ctx);
  const v = toElement('constant', type, p.value, ctx, 'value');
  const out = createBuffer(type, count);
  for (let i = 0; i < count; i++) put(out, i, v);
  return out;
};

/**
 * `iota {start = 0, step = 1}`: element i is `start + i * step`. Integer types need whole
 * `start` and `step` and every value in range (checked at both ends); float types compute the
 * value in binary64 and round it to the buffer type.
 */
export const iota: BufferGenerator = (count, type, params, _prng, ctx = DEFAULT_CONTEXT) => {
  const p = parseParams(
    'iota',
    z.strictObject({ start: numberOrBigint.default(0), step: numberOrBigint.default(1) }),
    params,
    ctx,
  );
  const out = createBuffer(type, count);
  if (count === 0) return out;
  if (isFloatType(type)) {
    const start = Number(toElement('iota', 'f64', p.start, ctx, 'start'));
    const step = Number(toElement('iota', 'f64', p.step, ctx, 'step'));
    toElement('iota', type, start, ctx, 'start');
    toElement('iota', type, start + (count - 1) * step, ctx, 'step');
    for (let i = 0; i < count; i++) put(out, i, start + i * step);
    return out;
  }
  if (typeof p.start === 'number' && !Number.isSafeInteger(p.start)) fail(ctx, `generator iota: start ${p.start} is not a whole number within +-(2^53 - 1) (give larger values as bigints)`, 'start');
  if (typeof p.step === 'number' && !Number.isSafeInteger(p.step)) fail(ctx, `generator iota: step ${p.step} is not a whole number within +-(2^53 - 1) (give larger values as bigints)`, 'step');
  const start = BigInt(p.start);
  const step = BigInt(p.step);
  toElement('iota', type, start, ctx, 'start');
  toElement('iota', type, start + BigInt(count - 1) * step, ctx, 'step');
  if (isBigIntType(type)) {
    for (let i = 0; i < count; i++) put(out, i, start + BigInt(i) * step);
  } else {
    const s = Number(start);
    const d = Number(step);
    for (let i = 0; i < count; i++) put(out, i, s + i * d); // every value is in range, so exact
  }
  return out;
};

/**
 * `uniformInt {min, max}`: independent uniform integers in `[min, max]`, both included. Any
 * integer type (min and max in range), or a float type when every integer of the range is
 * exactly representable (|min|, |max| <= 2^24 for f32, 2^53 for f64).
 */
export const uniformInt: BufferGenerator = (count, type, params, prng, ctx = DEFAULT_CONTEXT) => {
  const p = parseParams('uniformInt', z.strictObject({ min: z.number().int(), max: z.number().int() }), params, ctx);
  if (p.min > p.max) fail(ctx, `generator uniformInt: min ${p.min} > max ${p.max}`, 'min');
  if (type === 'f32' && Math.max(Math.abs(p.min), Math.abs(p.max)) > 2 ** 24) {
    fail(ctx, 'generator uniformInt: an f32 buffer holds every integer only within [-2^24, 2^24]', 'max');
  }
  toElement('uniformInt', type, p.min, ctx, 'min');
  toElement('uniformInt', type, p.max, ctx, 'max');
  const out = createBuffer(type, count);
  for (let i = 0; i < count; i++) put(out, i, prng.int(p.min, p.max));
  return out;
};

/**
 * `uniformFloat {min, max}`: independent uniform reals `min + (max - min) * u`, u uniform in
 * [0, 1) with 53 random bits, rounded to the buffer type (so they lie in [min, max] after
 * rounding). f32 and f64 only; min <= max, both finite and in the type's range.
 */
export const uniformFloat: BufferGenerator = (count, type, params, prng, ctx = DEFAULT_CONTEXT) => {
  requireTypes('uniformFloat', type, ['f32', 'f64'], ctx);
  const p = parseParams('uniformFloat', z.strictObject({ min: z.number(), max: z.number() }), params, ctx);
  if (!(p.min <= p.max)) fail(ctx, `generator uniformFloat: min ${p.min} > max ${p.max}`, 'min');
  toElement('uniformFloat', type, p.min, ctx, 'min');
  toElement('uniformFloat', type, p.max, ctx, 'max');
  const span = p.max - p.min;
  if (!Number.isFinite(span)) fail(ctx, 'generator uniformFloat: max - min overflows', 'max');
  const out = createBuffer(type, count);
  for (let i = 0; i < count; i++) put(out, i, p.min + span * prng.float());
  return out;
};

/**
 * `permutationCycle`: a uniformly random cyclic permutation of `0 .. count-1` (Sattolo's
 * algorithm): following `j = a[j]` from any index visits every index once before returning, the
 * access pattern of a pointer-chasing latency probe. Integer types with `count - 1` in range.
 */
export const permutationCycle: BufferGenerator = (count, type, params, prng, ctx = DEFAULT_CONTEXT) => {
  requireTypes('permutationCycle', type, INTEGER_TYPES, ctx);
  parseParams('permutationCycle', z.strictObject({}), params, ctx);
  if (count > 0) toElement('permutationCycle', type, count - 1, ctx, 'count');
  const perm = new Float64Array(count);
  for (let i = 0; i < count; i++) perm[i] = i;
  // Sattolo: swapping each position only with a strictly earlier one yields a single cycle.
  for (let i = count - 1; i > 0; i--) {
    const j = prng.int(0, i - 1);
    const t = perm[i]!;
    perm[i] = perm[j]!;
    perm[j] = t;
  }
  const out = createBuffer(type, count);
  for (let i = 0; i < count; i++) put(out, i, perm[i]!);
  return out;
};

/**
 * `modulo {modulus, start = 0, step = 1}`: element i is `(start + i * step) mod modulus`, in
 * `[0, modulus)` (a ring or strided pattern, e.g. `next[i] = (i + stride) mod n` for a
 * fixed-stride pointer chase). Integer types; modulus >= 1 with `modulus - 1` in range.
 */
export const modulo: BufferGenerator = (count, type, params, _prng, ctx = DEFAULT_CONTEXT) => {
  requireTypes('modulo', type, INTEGER_TYPES, ctx);
  const p = parseParams(
    'modulo',
    z.strictObject({ modulus: z.number().int().min(1), start: integerOrBigint.default(0), step: integerOrBigint.default(1) }),
    params,
    ctx,
  );
  toElement('modulo', type, p.modulus - 1, ctx, 'modulus');
  const m = BigInt(p.modulus);
  const mod = (x: bigint): bigint => ((x % m) + m) % m;
  let v = mod(BigInt(p.start));
  const d = mod(BigInt(p.step));
  const out = createBuffer(type, count);
  for (let i = 0; i < count; i++) {
    put(out, i, isBigIntType(type) ? v : Number(v));
    v += d;
    if (v >= m) v -= m;
  }
  return out;
};

/**
 * `oneHot {index, value = 1, background = 0}`: every element `background` except element
 * `index`, which is `value` (e.g. a BFS frontier with only the source set, or costs with the
 * source at 0 and the rest at -1). Any type; `index` in `[0, count)`.
 */
export const oneHot: BufferGenerator = (count, type, params, _prng, ctx = DEFAULT_CONTEXT) => {
  const p = parseParams(
    'oneHot',
    z.strictObject({ index: z.number().int().min(0), value: numberOrBigint.default(1), background: numberOrBigint.default(0) }),
    params,
    ctx,
  );
  if (p.index >= count) fail(ctx, `generator oneHot: index ${p.index} is not below count ${count}`, 'index');
  const v = toElement('oneHot', type, p.value, ctx, 'value');
  const bg = toElement('oneHot', type, p.background, ctx, 'background');
  const out = createBuffer(type, count);
  for (let i = 0; i < count; i++) put(out, i, bg);
  put(out, p.index, v);
  return out;
};

/**
 * `csrOffsets {edges}`: the row-offset array of a random CSR graph with `count - 1` vertices
 * and `edges` edges: element 0 is 0, the last is `edges`, and the ones between are sorted
 * uniform draws from `[0, edges]`, so vertex degrees vary. Pair it with a `uniformInt` column
 * buffer of `edges` elements. Integer types; count >= 1 (count 1 needs edges 0).
 */
export const csrOffsets: BufferGenerator = (count, type, params, prng, ctx = DEFAULT_CONTEXT) => {
  requireTypes('csrOffsets', type, INTEGER_TYPES, ctx);
  const p = parseParams('csrOffsets', z.strictObject({ edges: z.number().int().min(0) }), params, ctx);
  if (count < 1) fail(ctx, 'generator csrOffsets: needs count >= 1 (vertices + 1)', 'edges');
  if (count === 1 && p.edges !== 0) fail(ctx, 'generator csrOffsets: a graph with no vertices has no edges', 'edges');
  toElement('csrOffsets', type, p.edges, ctx, 'edges');
  const inner = new Float64Array(Math.max(count - 2, 0));
  for (let i = 0; i < inner.length; i++) inner[i] = prng.int(0, p.edges);
  inner.sort(); // typed-array sort is numeric
  const out = createBuffer(type, count);
  put(out, 0, 0);
  for (let i = 1; i < count - 1; i++) put(out, i, inner[i - 1]!);
  put(out, count - 1, p.edges);
  return out;
};

/** Every generator by the name a scenario's `init.generator` uses. */
export const bufferGenerators: Readonly<Record<string, BufferGenerator>> = {
  zeros,
  constant,
  iota,
  uniformInt,
  uniformFloat,
  permutationCycle,
  modulo,
  oneHot,
  csrOffsets,
};

/** A scenario buffer declaration, as far as the generators need it. */
export interface BufferSpec {
  /** Buffer name; also the name of its random stream (`prng.fork(name)`). */
  name: string;
  /** Element type. */
  type: BufferType;
  /** Number of elements (not bytes). */
  count: number;
  /** `{ generator: NAME, ...params }`. */
  init: Readonly<Record<string, unknown>>;
}

/**
 * Creates a buffer's initial contents: validates `spec`, looks up `spec.init.generator` and runs
 * it with `scenarioPrng.fork(spec.name)`. `ctx.field` should name the buffer
 * (`buffers[2]`); the generator's parameters are reported under `<field>.init`.
 *
 * Throws `InputError` for an unknown type or generator, a bad count or bad parameters.
 */
export function generateBuffer(spec: BufferSpec, scenarioPrng: Prng, ctx: GeneratorContext = { location: { file: '<scenario>' }, field: `buffers.${spec.name}` }): TypedArray {
  if (!BUFFER_TYPES.includes(spec.type)) {
    throw new InputError(ctx.location, `unknown buffer type ${String(spec.type)} (one of ${BUFFER_TYPES.join(', ')})`, `${ctx.field}.type`);
  }
  if (!Number.isSafeInteger(spec.count) || spec.count < 0) {
    throw new InputError(ctx.location, `count must be a non-negative integer, got ${String(spec.count)}`, `${ctx.field}.count`);
  }
  const { generator, ...params } = spec.init;
  if (typeof generator !== 'string' || !Object.hasOwn(bufferGenerators, generator)) {
    throw new InputError(
      ctx.location,
      `unknown generator ${JSON.stringify(generator)} (known: ${Object.keys(bufferGenerators).join(', ')})`,
      `${ctx.field}.init.generator`,
    );
  }
  const run = bufferGenerators[generator]!;
  return run(spec.count, spec.type, params, scenarioPrng.fork(spec.name), { location: ctx.location, field: `${ctx.field}.init` });
}
