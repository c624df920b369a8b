/**
 * Host buffers of a scenario: allocation by {@link BufferType}, recognising a typed array's type,
 * element sizes and value ranges.
 */
import type { BufferArrayMap, BufferType, TypedArray } from './types.ts';

/** Size of one element of each buffer type, in bytes. */
export const ELEMENT_BYTES: Readonly<Record<BufferType, number>> = {
  u8: 1,
  s8: 1,
  u16: 2,
  s16: 2,
  u32: 4,
  s32: 4,
  u64: 8,
  s64: 8,
  f32: 4,
  f64: 8,
};

/** Inclusive value range of each integer buffer type, as bigints. */
export const INT_RANGES: Readonly<Record<Exclude<BufferType, 'f32' | 'f64'>, { min: bigint; max: bigint }>> = {
  u8: { min: 0n, max: 0xffn },
  s8: { min: -0x80n, max: 0x7fn },
  u16: { min: 0n, max: 0xffffn },
  s16: { min: -0x8000n, max: 0x7fffn },
  u32: { min: 0n, max: 0xffff_ffffn },
  s32: { min: -0x8000_0000n, max: 0x7fff_ffffn },
  u64: { min: 0n, max: 0xffff_ffff_ffff_ffffn },
  s64: { min: -0x8000_0000_0000_0000n, max: 0x7fff_ffff_ffff_ffffn },
};

/** True for `f32` and `f64`. */
export function isFloatType(type: BufferType): type is 'f32' | 'f64' {
  return type === 'f32' || type === 'f64';
}

/** True for `u64` and `s64`, whose host arrays hold bigints. */
export function isBigIntType(type: BufferType): type is 'u64' | 's64' {
  return type === 'u64' || type === 's64';
}

/**
 * Allocates a zero-filled host buffer of `count` elements of `type`.
 * Throws RangeError when `count` is not a non-negative safe integer (callers validate first).
 */
export function createBuffer<K extends BufferType>(type: K, count: number): BufferArrayMap[K] {
  if (!Number.isSafeInteger(count) || count < 0) {
    throw new RangeError(`createBuffer: count must be a non-negative integer, got ${count}`);
  }
  switch (type) {
    case 'u8':
      return new Uint8Array(count) as BufferArrayMap[K];
    case 's8':
      return new Int8Array(count) as BufferArrayMap[K];
    case 'u16':
      return new Uint16Array(count) as BufferArrayMap[K];
    case 's16':
      return new Int16Array(count) as BufferArrayMap[K];
    case 'u32':
      return new Uint32Array(count) as BufferArrayMap[K];
    case 's32':
      return new Int32Array(count) as BufferArrayMap[K];
    case 'u64':
      return new BigUint64Array(count) as BufferArrayMap[K];
    case 's64':
      return new BigInt64Array(count) as BufferArrayMap[K];
    case 'f32':
      return new Float32Array(count) as BufferArrayMap[K];
    case 'f64':
      return new Float64Array(count) as BufferArrayMap[K];
  }
  throw new RangeError(`createBuffer: unknown buffer type ${String(type)}`);
}

/**
 * The {@link BufferType} a typed array holds, or `undefined` for anything else (a
 * Uint8ClampedArray, a DataView, a plain array).
 */
export function bufferTypeOf(array: unknown): BufferType | undefined {
  if (array instanceof Uint8Array) return 'u8';
  if (array instanceof Int8Array) return 's8';
  if (array instanceof Uint16Array) return 'u16';
  if (array instanceof Int16Array) return 's16';
  if (array instanceof Uint32Array) return 'u32';
  if (array instanceof Int32Array) return 's32';
  if (array instanceof BigUint64Array) return 'u64';
  if (array instanceof BigInt64Array) return 's64';
  if (array instanceof Float32Array) return 'f32';
  if (array instanceof Float64Array) return 'f64';
  return undefined;
}

/** A copy of a host buffer, of the same type. */
export function cloneBuffer<T extends TypedArray>(array: T): T {
  return array.slice() as T;
}
