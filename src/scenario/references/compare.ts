/**
 * Comparison of a buffer the simulator produced with the reference's expected contents.
 */
import { bufferTypeOf } from './buffers.ts';
import { ulpDistanceF32, ulpDistanceF64 } from './float.ts';
import type { BufferType, TypedArray } from './types.ts';

/** One element that differs by more than the tolerance. */
export interface BufferMismatch {
  /** Element index (not byte offset). */
  index: number;
  /** Value the reference expects. */
  expected: number | bigint;
  /** Value found. */
  actual: number | bigint;
  /**
   * For floats, the distance in ULPs of the buffer's type (+0 and -0 equal, two NaNs equal, a
   * NaN against a number Infinity). For integers, the absolute difference (as a number, so it
   * may be rounded above 2^53).
   */
  distance: number;
}

/** Structured result of {@link compareBuffers}. */
export interface CompareReport {
  /** True when both buffers have the same type and length and every element is within tolerance. */
  ok: boolean;
  /**
   * Why `ok` is false: `type` (different element types: nothing else compared), `length`
   * (different element counts: the common prefix is still compared) or `values`.
   */
  problem: 'type' | 'length' | 'values' | undefined;
  /** Element type of the expected buffer (undefined if it is not a scenario typed array). */
  expectedType: BufferType | undefined;
  /** Element type of the actual buffer. */
  actualType: BufferType | undefined;
  /** Element count of the expected buffer. */
  expectedLength: number;
  /** Element count of the actual buffer. */
  actualLength: number;
  /** ULP tolerance applied to float elements (integers are always compared exactly). */
  ulp: number;
  /** Number of elements of the common prefix outside the tolerance. */
  mismatchCount: number;
  /** The lowest-index mismatching element, if any. */
  firstMismatch: BufferMismatch | undefined;
  /**
   * Largest element distance seen over the common prefix (ULPs for floats, absolute difference
   * for integers), mismatching or not; 0 when the buffers are empty.
   */
  maxDistance: number;
}

/**
 * Compares `actual` with `expected` element by element. Floats (`f32`, `f64`) may differ by at
 * most `ulp` units in the last place of their type; integers must be equal.
 *
 * Never throws for any typed arrays; throws RangeError when `ulp` is negative or NaN.
 */
export function compareBuffers(expected: TypedArray, actual: TypedArray, ulp: number): CompareReport {
  if (!(ulp >= 0)) throw new RangeError(`compareBuffers: ulp must be >= 0, got ${ulp}`);
  const expectedType = bufferTypeOf(expected);
  const actualType = bufferTypeOf(actual);
  const report: CompareReport = {
    ok: true,
    problem: undefined,
    expectedType,
    actualType,
    expectedLength: expected.length,
    actualLength: actual.length,
    ulp,
    mismatchCount: 0,
    firstMismatch: undefined,
    maxDistance: 0,
  };
  if (expectedType === undefined || expectedType !== actualType) {
    report.ok = false;
    report.problem = 'type';
    return report;
  }
  const n = Math.min(expected.length, actual.length);
  const isF32 = expectedType === 'f32';
  const isFloat = isF32 || expectedType === 'f64';
  for (let i = 0; i < n; i++) {
    const e = expected[i]!;
    const a = actual[i]!;
    let distance: number;
    let tolerance: number;
    if (isFloat) {
      distance = isF32 ? ulpDistanceF32(e as number, a as number) : ulpDistanceF64(e as number, a as number);
      tolerance = ulp;
    } else {
      distance = typeof e === 'bigint' ? Number(e > (a as bigint) ? e - (a as bigint) : (a as bigint) - e) : Math.abs(e - (a as number));
      tolerance = 0;
    }
    if (distance > report.maxDistance) report.maxDistance = distance;
    if (distance > tolerance) {
      if (report.mismatchCount === 0) report.firstMismatch = { index: i, expected: e, actual: a, distance };
      report.mismatchCount++;
    }
  }
  if (expected.length !== actual.length) {
    report.ok = false;
    report.problem = 'length';
  } else if (report.mismatchCount > 0) {
    report.ok = false;
    report.problem = 'values';
  }
  return report;
}
