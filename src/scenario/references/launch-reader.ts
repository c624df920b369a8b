/**
 * Typed, validated access to one launch's shape and arguments, shared by the kernel references.
 * Every problem is an `InputError` whose field is `launches[i]`, `launches[i].args[j]` etc., in
 * the file `input.file` (or `<reference KERNEL>`).
 */
import { InputError } from '../../errors.ts';
import { bufferTypeOf } from './buffers.ts';
import type { BufferArrayMap, BufferType, ReferenceArg, ReferenceInput, ReferenceLaunch, ReferenceTexture, TypedArray } from './types.ts';

/** How an argument reads in a message: `buffer x`, `a u32 scalar`, `a texture`, `a surface`. */
function describeArg(a: ReferenceArg): string {
  if ('buffer' in a) return `buffer ${a.buffer}`;
  if ('texture' in a) return 'a texture';
  if ('surface' in a) return 'a surface';
  return `a ${a.type} scalar`;
}

/** Reads and checks the arguments of launch `index` of `input` for kernel `kernel`. */
export class LaunchReader {
  /** The launch being read. */
  readonly launch: ReferenceLaunch;

  /**
   * @param kernel reference name, for messages
   * @param input the reference input (its buffers are the ones the arguments name)
   * @param index launch index in `input.launches`
   * @throws InputError when a grid or block dimension is not a positive integer
   */
  constructor(
    readonly kernel: string,
    readonly input: ReferenceInput,
    readonly index: number,
  ) {
    this.launch = input.launches[index]!;
    for (const key of ['grid', 'block'] as const) {
      const dims = this.launch[key];
      if (!Array.isArray(dims) || dims.length !== 3 || !dims.every((d) => Number.isSafeInteger(d) && d >= 1)) {
        this.fail(`${key} must be three positive integers, got ${JSON.stringify(dims)}`, key);
      }
    }
  }

  /** Throws an `InputError` about this launch (`field` is relative to `launches[i]`). */
  fail(reason: string, field?: string): never {
    const base = `launches[${this.index}]`;
    throw new InputError(
      { file: this.input.file ?? `<reference ${this.kernel}>` },
      `${this.kernel}: ${reason}`,
      field === undefined ? base : `${base}.${field}`,
    );
  }

  /** Requires exactly `count` arguments. */
  expectArgCount(count: number): void {
    if (this.launch.args.length !== count) {
      this.fail(`expects ${count} arguments, got ${this.launch.args.length}`, 'args');
    }
  }

  private arg(i: number): ReferenceArg {
    const a = this.launch.args[i];
    if (a === undefined) this.fail(`missing argument ${i}`, 'args');
    return a;
  }

  /** Name of the buffer passed as argument `i`; throws if the argument is a scalar or unknown. */
  bufferName(i: number): string {
    const a = this.arg(i);
    if (!('buffer' in a)) this.fail(`argument ${i} must be a buffer, got ${describeArg(a)}`, `args[${i}]`);
    if (!Object.hasOwn(this.input.buffers, a.buffer)) this.fail(`argument ${i} names unknown buffer ${a.buffer}`, `args[${i}]`);
    return a.buffer;
  }

  /**
   * The buffer passed as argument `i`, which must hold elements of `type` (the kernel's pointer
   * type) and at least `minLength` elements.
   */
  buffer<K extends BufferType>(i: number, type: K, minLength = 0): BufferArrayMap[K] {
    const name = this.bufferName(i);
    const array: TypedArray = this.input.buffers[name]!;
    const actual = bufferTypeOf(array);
    if (actual !== type) this.fail(`argument ${i} (buffer ${name}) must be ${type}, got ${actual ?? 'an unknown array'}`, `args[${i}]`);
    this.requireLength(i, minLength);
    return array as BufferArrayMap[K];
  }

  /** Requires the buffer of argument `i` to have at least `needed` elements. */
  requireLength(i: number, needed: number): void {
    const name = this.bufferName(i);
    const have = this.input.buffers[name]!.length;
    if (have < needed) {
      this.fail(`buffer ${name} (argument ${i}) has ${have} elements, the kernel would access ${needed}`, `args[${i}]`);
    }
  }

  private scalar(i: number, allowed: readonly string[], what: string): number | bigint {
    const a = this.arg(i);
    if (!('type' in a)) this.fail(`argument ${i} must be a ${what} scalar, got ${describeArg(a)}`, `args[${i}]`);
    if (!allowed.includes(a.type)) this.fail(`argument ${i} must be ${allowed.join(' or ')}, got ${a.type}`, `args[${i}]`);
    return a.value;
  }

  private int32Bits(i: number, what: string): number {
    const v = this.scalar(i, ['u32', 's32'], what);
    const n = typeof v === 'bigint' ? Number(v) : v;
    if (!Number.isSafeInteger(n) || n < -0x8000_0000 || n > 0xffff_ffff) {
      this.fail(`argument ${i} must be a 32-bit integer, got ${String(v)}`, `args[${i}]`);
    }
    return n;
  }

  /** A C `int` argument (`s32`, or `u32` reinterpreted as two's complement, as the kernel sees its bits). */
  s32(i: number): number {
    return this.int32Bits(i, 'int') | 0;
  }

  /** A C `unsigned int` argument (`u32`, or `s32` reinterpreted modulo 2^32). */
  u32(i: number): number {
    return this.int32Bits(i, 'unsigned int') >>> 0;
  }

  /**
   * The texture (`kind` texture, a `cudaTextureObject_t`) or surface (`cudaSurfaceObject_t`)
   * passed as argument `i`, with its buffer, which must hold elements of a type of the format's
   * channel size and cover the texture's bytes.
   */
  resource(i: number, kind: 'texture' | 'surface'): { desc: ReferenceTexture; data: TypedArray } {
    const a = this.arg(i);
    const desc = kind === 'texture' ? ('texture' in a ? a.texture : undefined) : 'surface' in a ? a.surface : undefined;
    if (desc === undefined) this.fail(`argument ${i} must be a ${kind}, got ${describeArg(a)}`, `args[${i}]`);
    const data = this.input.buffers[desc.buffer];
    if (data === undefined) this.fail(`argument ${i} names unknown buffer ${desc.buffer}`, `args[${i}]`);
    return { desc, data };
  }

  /** A C `float` argument (`f32`), rounded to binary32. */
  f32(i: number): number {
    return Math.fround(Number(this.scalar(i, ['f32'], 'float')));
  }

  /** A C `double` argument (`f64`). */
  f64(i: number): number {
    return Number(this.scalar(i, ['f64'], 'double'));
  }

  /**
   * Grid and CTA size of a one-dimensional kernel (one that only reads `.x` indices); requires
   * y = z = 1 in both, since extra y/z threads would repeat the x threads' work.
   */
  dims1D(): { gridX: number; blockX: number; threads: number } {
    const { grid, block } = this.launch;
    if (grid[1] !== 1 || grid[2] !== 1) this.fail(`expects a 1D grid, got ${JSON.stringify(grid)}`, 'grid');
    if (block[1] !== 1 || block[2] !== 1) this.fail(`expects a 1D block, got ${JSON.stringify(block)}`, 'block');
    return { gridX: grid[0], blockX: block[0], threads: grid[0] * block[0] };
  }

  /** Grid and CTA size of a two-dimensional kernel; requires z = 1 in both. */
  dims2D(): { gridX: number; gridY: number; blockX: number; blockY: number } {
    const { grid, block } = this.launch;
    if (grid[2] !== 1) this.fail(`expects a 2D grid (z = 1), got ${JSON.stringify(grid)}`, 'grid');
    if (block[2] !== 1) this.fail(`expects a 2D block (z = 1), got ${JSON.stringify(block)}`, 'block');
    return { gridX: grid[0], gridY: grid[1], blockX: block[0], blockY: block[1] };
  }
}

/**
 * Runs `step` once per launch of `input`, in order, with a {@link LaunchReader}, and returns the
 * (mutated) buffers: the usual body of a kernel reference.
 */
export function runLaunches(
  kernel: string,
  input: ReferenceInput,
  step: (reader: LaunchReader) => void,
): Record<string, TypedArray> {
  for (let i = 0; i < input.launches.length; i++) step(new LaunchReader(kernel, input, i));
  return input.buffers;
}
