/**
 * Shared types of the scenario buffer generators and the host-side kernel references.
 *
 * A scenario (DESIGN.md §5) names typed buffers, launches kernels on them and checks the final
 * contents against a reference written in TypeScript. These types fix how buffers are held on
 * the host (one JS typed array per buffer, element type given by {@link BufferType}) and what a
 * reference receives ({@link ReferenceInput}) and returns.
 */

/**
 * Element type of a scenario buffer: unsigned/signed integers of 8, 16, 32 and 64 bits, and
 * IEEE-754 binary32/binary64 floats. The names follow PTX fundamental types (PTX ISA §5.2.1).
 */
export type BufferType = 'u8' | 's8' | 'u16' | 's16' | 'u32' | 's32' | 'u64' | 's64' | 'f32' | 'f64';

/** Every {@link BufferType}, in a fixed order (for schemas and error messages). */
export const BUFFER_TYPES: readonly BufferType[] = [
  'u8',
  's8',
  'u16',
  's16',
  'u32',
  's32',
  'u64',
  's64',
  'f32',
  'f64',
];

/** The JS typed array that holds a buffer of each {@link BufferType}. */
export interface BufferArrayMap {
  u8: Uint8Array;
  s8: Int8Array;
  u16: Uint16Array;
  s16: Int16Array;
  u32: Uint32Array;
  s32: Int32Array;
  u64: BigUint64Array;
  s64: BigInt64Array;
  f32: Float32Array;
  f64: Float64Array;
}

/** Host contents of one scenario buffer: any of the typed arrays of {@link BufferArrayMap}. */
export type TypedArray = BufferArrayMap[BufferType];

/** Scalar kernel-argument types a scenario may pass (PTX `.param` types, PTX ISA §5.1.6). */
export type ScalarArgType = 'u32' | 's32' | 'u64' | 's64' | 'f32' | 'f64';

/**
 * One kernel argument as a reference sees it: either a scenario buffer, by name (the kernel
 * receives its device address, a u64), or a scalar with its declared type. 64-bit integers may
 * arrive as `bigint`; the other types as `number`.
 */
export type ReferenceArg = { buffer: string } | { type: ScalarArgType; value: number | bigint } | { texture: ReferenceTexture } | { surface: ReferenceTexture };

/**
 * A texture or surface object argument as a reference sees it: the buffer it is made over, by
 * name, and its shape, format and sampler state with every default filled in (sizes in
 * elements, offset and pitches in bytes). Surfaces carry the texture defaults (point, clamp).
 */
export interface ReferenceTexture {
  readonly buffer: string;
  readonly offset: number;
  readonly width: number;
  readonly height: number;
  readonly depth: number;
  readonly layers: number;
  readonly pitch: number;
  readonly slicePitch: number;
  readonly format: 'u8' | 's8' | 'u16' | 's16' | 'u32' | 's32' | 'f16' | 'f32';
  readonly channels: 1 | 2 | 4;
  readonly readMode: 'elementType' | 'normalizedFloat';
  readonly addressMode: readonly ['wrap' | 'clamp' | 'mirror' | 'border', 'wrap' | 'clamp' | 'mirror' | 'border', 'wrap' | 'clamp' | 'mirror' | 'border'];
  readonly filterMode: 'point' | 'linear';
  readonly normalizedCoords: boolean;
}

/** One kernel launch as a reference sees it. Dimensions are `[x, y, z]`, each >= 1. */
export interface ReferenceLaunch {
  /** Grid dimensions in CTAs. */
  grid: [number, number, number];
  /** CTA dimensions in threads. */
  block: [number, number, number];
  /** The arguments in the kernel's parameter order. */
  args: readonly ReferenceArg[];
}

/** What a {@link KernelReference} receives. */
export interface ReferenceInput {
  /** Initial contents of every scenario buffer (copies: mutate freely). */
  buffers: Record<string, TypedArray>;
  /** Each launch's grid/block and its arguments, buffer args given by name, in launch order. */
  launches: readonly ReferenceLaunch[];
  /**
   * Optional: the scenario file, used as the file name of the `InputError`s a reference throws
   * (defaults to `<reference NAME>`). An addition to the shape of the issue.
   */
  file?: string;
}

/**
 * Computes the expected final contents of buffers from the initial contents and the launches'
 * arguments. The result holds every buffer of the input (those no launch writes unchanged), so
 * a check may compare any of them.
 *
 * Throws `InputError` when the launches do not fit the kernel (wrong argument count or types,
 * a buffer too small for the indices the kernel would touch, a launch shape the kernel does not
 * support).
 */
export type KernelReference = (input: ReferenceInput) => Record<string, TypedArray>;
