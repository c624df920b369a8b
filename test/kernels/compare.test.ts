import { describe, it, expect } from 'vitest';
import { compareBuffers } from '../../src/scenario/references/compare.ts';

describe('compareBuffers', () => {
  it('accepts identical float buffers, signed zeros and NaNs', () => {
    const r = compareBuffers(new Float32Array([1, 0, NaN, -2.5]), new Float32Array([1, -0, NaN, -2.5]), 0);
    expect(r.ok).toBe(true);
    expect(r.problem).toBeUndefined();
    expect(r.mismatchCount).toBe(0);
    expect(r.firstMismatch).toBeUndefined();
    expect(r.maxDistance).toBe(0);
  });

  it('reports the first mismatch, the count and the ULP distance of f32 elements', () => {
    const expected = new Float32Array([1, 2, 3, 4]);
    // 2 + 2^-22 is the next binary32 above 2 (1 ULP); 4 + 2^-20 is 2 ULPs above 4.
    const actual = new Float32Array([1, 2 + 2 ** -22, 3, 4 + 2 ** -20]);
    const strict = compareBuffers(expected, actual, 0);
    expect(strict.ok).toBe(false);
    expect(strict.problem).toBe('values');
    expect(strict.mismatchCount).toBe(2);
    expect(strict.firstMismatch).toEqual({ index: 1, expected: 2, actual: 2 + 2 ** -22, distance: 1 });
    expect(strict.maxDistance).toBe(2);
    const loose = compareBuffers(expected, actual, 1);
    expect(loose.mismatchCount).toBe(1);
    expect(loose.firstMismatch?.index).toBe(3);
    expect(compareBuffers(expected, actual, 2).ok).toBe(true);
  });

  it('measures f64 distances in binary64 ULPs', () => {
    const r = compareBuffers(new Float64Array([1]), new Float64Array([1 + 2 * Number.EPSILON]), 1);
    expect(r.ok).toBe(false);
    expect(r.firstMismatch?.distance).toBe(2);
  });

  it('compares integers exactly whatever the ULP tolerance', () => {
    const r = compareBuffers(new Int32Array([5, -7, 9]), new Int32Array([5, -6, 9]), 100);
    expect(r.ok).toBe(false);
    expect(r.firstMismatch).toEqual({ index: 1, expected: -7, actual: -6, distance: 1 });
    const big = compareBuffers(new BigUint64Array([1n, 2n ** 63n]), new BigUint64Array([1n, 2n ** 63n + 3n]), 0);
    expect(big.firstMismatch).toEqual({ index: 1, expected: 2n ** 63n, actual: 2n ** 63n + 3n, distance: 3 });
  });

  it('flags different types without comparing values, and different lengths after comparing the prefix', () => {
    const t = compareBuffers(new Float32Array([1]), new Int32Array([1]), 0);
    expect(t).toMatchObject({ ok: false, problem: 'type', expectedType: 'f32', actualType: 's32' });
    const l = compareBuffers(new Uint8Array([1, 2, 3]), new Uint8Array([1, 9]), 0);
    expect(l).toMatchObject({ ok: false, problem: 'length', expectedLength: 3, actualLength: 2, mismatchCount: 1 });
    expect(l.firstMismatch?.index).toBe(1);
  });

  it('rejects a negative tolerance', () => {
    expect(() => compareBuffers(new Float32Array(1), new Float32Array(1), -1)).toThrow(RangeError);
  });
});
