/**
 * Host references of the scheduling kernels (scenarios/kernels/phase-msl.cu, phase-long4.cu,
 * l1i-bigcode.cu): values derived by hand, relations between runs, and an fma written
 * independently (exact BigInt arithmetic) for the single-rounding steps of phase_long4.
 */
import { describe, expect, it } from 'vitest';
import { kernelReferences } from '../../src/scenario/references/index.ts';
import { mixBigcode } from '../../src/scenario/references/l1i-bigcode.ts';
import { mixLong, mixMedium } from '../../src/scenario/references/phase-msl.ts';
import type { ReferenceArg, ReferenceInput, TypedArray } from '../../src/scenario/references/types.ts';
import { expectInputError, list } from './scenario-helpers.ts';

type Dim = [number, number, number];
const buf = (name: string): ReferenceArg => ({ buffer: name });
const u32 = (value: number): ReferenceArg => ({ type: 'u32', value });
const s32 = (value: number): ReferenceArg => ({ type: 's32', value });
const launch = (grid: Dim, block: Dim, ...args: ReferenceArg[]) => ({ grid, block, args });

function run(kernel: string, buffers: Record<string, TypedArray>, launches: ReferenceInput['launches']): Record<string, TypedArray> {
  return kernelReferences[kernel]!({ buffers, launches });
}

/**
 * a * b + c for binary32 a, b, c, computed exactly on integers scaled by 2^298 and rounded once
 * to binary32 (nearest, ties to even); finite results in the normal or subnormal range only.
 */
function exactFmaF32(a: number, b: number, c: number): number {
  const A = BigInt(a * 2 ** 149);
  const B = BigInt(b * 2 ** 149);
  const C = BigInt(c * 2 ** 149) << 149n;
  const sum = A * B + C; // value = sum * 2^-298
  if (sum === 0n) return 0;
  const neg = sum < 0n;
  const mag = neg ? -sum : sum;
  const msb = mag.toString(2).length - 1 - 298;
  const lsb = Math.max(msb - 23, -149);
  const shift = BigInt(lsb + 298);
  let q = mag >> shift;
  const rem = mag - (q << shift);
  const half = 1n << (shift - 1n);
  if (rem > half || (rem === half && (q & 1n) === 1n)) q += 1n;
  const value = Number(q) * 2 ** lsb;
  return neg ? -value : value;
}

describe('phase_msl', () => {
  it('mix steps: xor-shift, then multiply by the odd constant modulo 2^32', () => {
    // 1 >> 15 = 0, so the step is the multiplier itself.
    expect(mixMedium(1)).toBe(0x2c1b3c6d);
    expect(mixLong(1)).toBe(0x297a2d39);
    // 0x80000000 ^ 0x10000 = 0x80010000; times 0x2c1b3c6d: 0x80000000 (odd multiplier) +
    // 0x3c6d0000 (0x10000 x 0x2c1b3c6d mod 2^32) = 0xbc6d0000.
    expect(mixMedium(0x8000_0000)).toBe(0xbc6d_0000);
    expect(mixMedium(0)).toBe(0);
    expect(mixLong(0)).toBe(0);
  });

  it('thread 0 with B = 0 stays 0; no iteration leaves 0', () => {
    // run = 0 is a fixed point of the medium mix, b ^ run = 0 of the long one.
    const out = run('phase_msl', { A: new Uint32Array([7, 9]), B: new Uint32Array([0, 0]), out: new Uint32Array([5]) }, [
      launch([1, 1, 1], [1, 1, 1], buf('A'), buf('B'), buf('out'), s32(2), u32(0)),
    ]);
    expect(list(out.out)).toEqual([0]);
    const none = run('phase_msl', { A: new Uint32Array(2), B: new Uint32Array(2), out: new Uint32Array([5, 6]) }, [
      launch([1, 1, 1], [2, 1, 1], buf('A'), buf('B'), buf('out'), s32(0), u32(0)),
    ]);
    expect(list(none.out)).toEqual([0, 0]);
  });

  it('thread 0, one iteration: out = long^48(B[0])', () => {
    let x = 0x1234_5678;
    for (let k = 0; k < 48; k++) x = mixLong(x);
    const out = run('phase_msl', { A: new Uint32Array([1]), B: new Uint32Array([0x1234_5678]), out: new Uint32Array(1) }, [
      launch([1, 1, 1], [1, 1, 1], buf('A'), buf('B'), buf('out'), s32(1), u32(0)),
    ]);
    expect(out.out![0]).toBe(x);
  });

  it('A & mask offsets the B element; an offset past the buffer is refused', () => {
    // A[0] = 5, mask 3: offset 1, so B[1] = 20 is read, as B[0] = 20 with mask 0.
    const masked = run('phase_msl', { A: new Uint32Array([5]), B: new Uint32Array([10, 20]), out: new Uint32Array(1) }, [
      launch([1, 1, 1], [1, 1, 1], buf('A'), buf('B'), buf('out'), s32(1), u32(3)),
    ]);
    const plain = run('phase_msl', { A: new Uint32Array([5]), B: new Uint32Array([20, 99]), out: new Uint32Array(1) }, [
      launch([1, 1, 1], [1, 1, 1], buf('A'), buf('B'), buf('out'), s32(1), u32(0)),
    ]);
    expect(masked.out![0]).toBe(plain.out![0]);
    expect(masked.out![0]).not.toBe(0);
    // A[0] = 7, mask 7: element 7 of a 2-element B.
    expectInputError(
      () => run('phase_msl', { A: new Uint32Array([7]), B: new Uint32Array(2), out: new Uint32Array(1) }, [launch([1, 1, 1], [1, 1, 1], buf('A'), buf('B'), buf('out'), s32(1), u32(7))]),
      'launches[0].args[1]',
      'has 2 elements, the kernel would access 8',
    );
  });
});

describe('phase_long4', () => {
  it('each step rounds once (fma.rn.f32), checked against an exact fma', () => {
    // The exact fma itself: (2^-24 + 2^-60) + 1 rounds up to 1 + 2^-23 (a product rounded first
    // would give 2^-24, a tie with 1 that rounds to even, 1).
    expect(exactFmaF32(4097 * 2 ** -30, 16773121 * 2 ** -30, 1)).toBe(1 + 2 ** -23);
    // T = 1, one phase: t runs 48 steps from v = 0, then v = t + ((1 + 2) + (3 + 4)).
    const s = Math.fround(0.999);
    const o = Math.fround(0.001);
    let t = 0;
    for (let k = 0; k < 48; k++) t = exactFmaF32(t, s, o);
    const want = Math.fround(t + 10);
    const out = run('phase_long4', { X: new Float32Array([1, 2, 3, 4]), out: new Float32Array(1) }, [launch([1, 1, 1], [1, 1, 1], buf('X'), buf('out'), s32(1), u32(0))]);
    expect(out.out![0]).toBe(want);
    // In real arithmetic t = 1 - 0.999^48 = 0.04685...
    expect(Math.abs((out.out as Float32Array)[0]! - (10 + 1 - 0.999 ** 48))).toBeLessThan(1e-5);
  });

  it('two phases read their own four elements, T apart, for each thread', () => {
    // T = 2; phase s of thread g reads X[(4s + j) * 2 + g]. Thread 1's elements are all zero
    // except phase 1's, whose sum is 4 (j = 0..3 at indices 9, 11, 13, 15).
    const X = new Float32Array(16);
    for (const i of [9, 11, 13, 15]) X[i] = 1;
    const out = run('phase_long4', { X, out: new Float32Array(2) }, [launch([1, 1, 1], [2, 1, 1], buf('X'), buf('out'), s32(2), u32(0))]);
    // Both threads do the same fma chains; thread 1 ends 4 higher (within a rounding of 5.x).
    const v = out.out as Float32Array;
    expect(Math.abs(v[1]! - v[0]! - 4)).toBeLessThan(1e-6);
    // No phase: 0.
    const none = run('phase_long4', { X, out: new Float32Array([3, 3]) }, [launch([1, 1, 1], [2, 1, 1], buf('X'), buf('out'), s32(0), u32(0))]);
    expect(list(none.out)).toEqual([0, 0]);
  });

  it('the mask turns the previous phase value into an offset; past the buffer is refused', () => {
    // After phase 0, v = t + 10 is about 10.05 (bits 0x4120...), so mask 0xffffffff offsets
    // phase 1 by more than 10^9 elements.
    expectInputError(
      () => run('phase_long4', { X: new Float32Array(8).fill(1), out: new Float32Array(1) }, [launch([1, 1, 1], [1, 1, 1], buf('X'), buf('out'), s32(2), u32(0xffff_ffff))]),
      'launches[0].args[0]',
      'the kernel would access',
    );
  });
});

describe('l1i_bigcode', () => {
  it('mix step of chunk c shifts by 7 + 2c', () => {
    expect(mixBigcode(1, 0)).toBe(0x9e37_79b1);
    // 0x80 ^ (0x80 >> 7) = 0x81; 0x81 x 0x9e3779b1 mod 2^32 = 0xb9f45231.
    expect(mixBigcode(0x80, 0)).toBe(0xb9f4_5231);
    // Chunk 3 shifts by 13: 0x80 >> 13 = 0, so the step is 0x80 x 0x9e3779b1 mod 2^32 = 0x1bbcd880.
    expect(mixBigcode(0x80, 3)).toBe(0x1bbc_d880);
  });

  it('no iteration stores g; thread 0 with zero input stays 0', () => {
    const none = run('l1i_bigcode', { src: new Uint32Array(4), out: new Uint32Array(4) }, [launch([2, 1, 1], [2, 1, 1], buf('src'), buf('out'), s32(0))]);
    expect(list(none.out)).toEqual([0, 1, 2, 3]);
    const zero = run('l1i_bigcode', { src: new Uint32Array(8), out: new Uint32Array([9]) }, [launch([1, 1, 1], [1, 1, 1], buf('src'), buf('out'), s32(2))]);
    expect(list(zero.out)).toEqual([0]);
  });

  it('chunk c of iteration it reads element (4 it + c) T + g', () => {
    // T = 1, one iteration, only src[2] set: chunks 0, 1 leave 0, chunk 2 starts from 5, chunk
    // 3 mixes the result.
    let x = 5;
    for (let k = 0; k < 40; k++) x = mixBigcode(x, 2);
    for (let k = 0; k < 40; k++) x = mixBigcode(x, 3);
    const out = run('l1i_bigcode', { src: new Uint32Array([0, 0, 5, 0]), out: new Uint32Array(1) }, [launch([1, 1, 1], [1, 1, 1], buf('src'), buf('out'), s32(1))]);
    expect(out.out![0]).toBe(x);
  });
});
