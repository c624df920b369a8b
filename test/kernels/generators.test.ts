import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { InputError } from '../../src/errors.ts';
import { Prng } from '../../src/sim/prng.ts';
import { bufferGenerators, generateBuffer } from '../../src/scenario/references/generators.ts';
import type { BufferSpec } from '../../src/scenario/references/generators.ts';
import type { BufferType, TypedArray } from '../../src/scenario/references/types.ts';
import { expectInputError, list, nums } from './scenario-helpers.ts';

const gen = (type: BufferType, count: number, init: Record<string, unknown>, seed = 1, name = 'buf'): TypedArray =>
  generateBuffer({ name, type, count, init } as BufferSpec, new Prng(seed));

const bytes = (a: TypedArray): Uint8Array => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);


describe('generator registry', () => {
  it('has the required generators', () => {
    for (const name of ['zeros', 'constant', 'iota', 'uniformInt', 'uniformFloat', 'permutationCycle', 'modulo', 'oneHot', 'csrOffsets']) {
      expect(bufferGenerators[name]).toBeTypeOf('function');
    }
  });

  it('is deterministic: the same seed gives the same bytes, another seed other bytes', () => {
    const cases: [BufferType, Record<string, unknown>][] = [
      ['s32', { generator: 'uniformInt', min: -1000, max: 1000 }],
      ['u64', { generator: 'uniformInt', min: 0, max: 2 ** 40 }],
      ['f32', { generator: 'uniformFloat', min: -1, max: 1 }],
      ['f64', { generator: 'uniformFloat', min: 0, max: 10 }],
      ['u32', { generator: 'permutationCycle' }],
      ['s32', { generator: 'csrOffsets', edges: 5000 }],
    ];
    for (const [type, init] of cases) {
      const a = gen(type, 1000, init, 42);
      const b = gen(type, 1000, init, 42);
      const c = gen(type, 1000, init, 43);
      expect(bytes(a)).toEqual(bytes(b));
      expect(bytes(a)).not.toEqual(bytes(c));
    }
  });

  it('gives each buffer its own stream, keyed by the buffer name', () => {
    const init = { generator: 'uniformInt', min: 0, max: 1_000_000 };
    const x = gen('u32', 64, init, 7, 'x');
    const y = gen('u32', 64, init, 7, 'y');
    expect(bytes(x)).not.toEqual(bytes(y));
    // The stream is prng.fork(name): drawing it by hand gives the same values.
    const fork = new Prng(7).fork('x');
    expect(list(x)).toEqual(Array.from({ length: 64 }, () => fork.int(0, 1_000_000)));
  });

  it('rejects unknown generators, types and counts with the field named', () => {
    expectInputError(() => gen('u32', 4, { generator: 'gaussian' }), 'buffers.buf.init.generator', 'unknown generator "gaussian"');
    expectInputError(() => gen('u32', 4, {}), 'buffers.buf.init.generator', 'unknown generator');
    expectInputError(() => gen('u24' as BufferType, 4, { generator: 'zeros' }), 'buffers.buf.type', 'unknown buffer type u24');
    expectInputError(() => gen('u32', -1, { generator: 'zeros' }), 'buffers.buf.count', 'non-negative integer');
    expectInputError(() => gen('u32', 2.5, { generator: 'zeros' }), 'buffers.buf.count', 'non-negative integer');
  });

  it('uses the location and field the loader passes', () => {
    try {
      generateBuffer({ name: 'x', type: 'f32', count: 4, init: { generator: 'uniformFloat', min: 1 } }, new Prng(1), {
        location: { file: 'scenarios/a.yaml', line: 7 },
        field: 'buffers[3]',
      });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(InputError);
      expect((e as InputError).message).toMatch(/^scenarios\/a\.yaml:7: buffers\[3\]\.init\.max: generator uniformFloat: /);
    }
  });
});

describe('zeros and constant', () => {
  it('fill every element', () => {
    expect(list(gen('s16', 3, { generator: 'zeros' }))).toEqual([0, 0, 0]);
    expect(list(gen('s8', 3, { generator: 'constant', value: -5 }))).toEqual([-5, -5, -5]);
    expect(list(gen('u64', 2, { generator: 'constant', value: 2 ** 40 }))).toEqual([2n ** 40n, 2n ** 40n]);
    expect(list(gen('s64', 1, { generator: 'constant', value: -(2n ** 63n) }))).toEqual([-(2n ** 63n)]);
    expect(list(gen('f32', 2, { generator: 'constant', value: 0.1 }))).toEqual([Math.fround(0.1), Math.fround(0.1)]);
  });

  it('reject values the type cannot hold and stray parameters', () => {
    expectInputError(() => gen('u8', 1, { generator: 'constant', value: 256 }), 'buffers.buf.init.value', 'outside the u8 range [0, 255]');
    expectInputError(() => gen('s32', 1, { generator: 'constant', value: 1.5 }), 'buffers.buf.init.value', 'not a whole number');
    expectInputError(() => gen('f32', 1, { generator: 'constant', value: 1e39 }), 'buffers.buf.init.value', 'not a finite f32');
    expectInputError(() => gen('u32', 1, { generator: 'constant' }), 'buffers.buf.init.value', 'generator constant');
    expectInputError(() => gen('u32', 1, { generator: 'zeros', value: 3 }), 'buffers.buf.init', 'Unrecognized key');
  });
});

describe('iota', () => {
  it('counts from start by step', () => {
    expect(list(gen('s32', 4, { generator: 'iota', start: 10, step: -3 }))).toEqual([10, 7, 4, 1]);
    expect(list(gen('u32', 3, { generator: 'iota' }))).toEqual([0, 1, 2]);
    expect(list(gen('f32', 3, { generator: 'iota', start: 0.5, step: 0.25 }))).toEqual([0.5, 0.75, 1]);
    expect(list(gen('u64', 2, { generator: 'iota', start: 2n ** 53n, step: 2n ** 53n }))).toEqual([2n ** 53n, 2n ** 54n]);
    expectInputError(() => gen('u64', 2, { generator: 'iota', start: 2 ** 53 }), 'buffers.buf.init.start', 'give larger values as bigints');
  });

  it('rejects a sequence that leaves the type range', () => {
    expectInputError(() => gen('u8', 300, { generator: 'iota' }), 'buffers.buf.init.step', 'outside the u8 range');
    expectInputError(() => gen('u32', 2, { generator: 'iota', start: -1 }), 'buffers.buf.init.start', 'outside the u32 range');
    expectInputError(() => gen('s32', 2, { generator: 'iota', step: 0.5 }), 'buffers.buf.init.step', 'not a whole number');
  });
});

describe('uniformInt', () => {
  it('stays in [min, max] and hits every value of a small range about equally', () => {
    const a = gen('s8', 6000, { generator: 'uniformInt', min: -3, max: 2 }, 5);
    const counts = new Map<number, number>();
    for (const v of nums(a)) counts.set(v, (counts.get(v) ?? 0) + 1);
    expect([...counts.keys()].sort((x, y) => x - y)).toEqual([-3, -2, -1, 0, 1, 2]);
    // Each of the 6 values expects 1000 hits; binomial sd ~ 29, so +-150 is > 5 sd.
    for (const c of counts.values()) expect(Math.abs(c - 1000)).toBeLessThan(150);
  });

  it('produces bigints for 64-bit types and integer floats for float types', () => {
    const u = gen('u64', 100, { generator: 'uniformInt', min: 2 ** 40, max: 2 ** 41 });
    for (const v of u) {
      expect(typeof v).toBe('bigint');
      expect(v >= 2n ** 40n && v <= 2n ** 41n).toBe(true);
    }
    for (const v of gen('f32', 100, { generator: 'uniformInt', min: -5, max: 5 })) expect(Number.isInteger(v) && v >= -5 && v <= 5).toBe(true);
  });

  it('rejects bad bounds', () => {
    expectInputError(() => gen('u32', 1, { generator: 'uniformInt', min: 5, max: 4 }), 'buffers.buf.init.min', 'min 5 > max 4');
    expectInputError(() => gen('u8', 1, { generator: 'uniformInt', min: 0, max: 256 }), 'buffers.buf.init.max', 'outside the u8 range');
    expectInputError(() => gen('u32', 1, { generator: 'uniformInt', min: 0, max: 1.5 }), 'buffers.buf.init.max', 'expected int');
    expectInputError(() => gen('f32', 1, { generator: 'uniformInt', min: 0, max: 2 ** 25 }), 'buffers.buf.init.max', 'f32');
  });
});

describe('uniformFloat', () => {
  it('stays in range with a mean near the middle', () => {
    const a = gen('f32', 20000, { generator: 'uniformFloat', min: -2, max: 6 }, 3) as Float32Array;
    let sum = 0;
    for (const v of a) {
      expect(v >= -2 && v <= 6).toBe(true);
      sum += v;
    }
    // Uniform on [-2, 6]: mean 2, sd 8/sqrt(12) ~ 2.31, so the mean of 20000 has sd ~ 0.016.
    expect(Math.abs(sum / a.length - 2)).toBeLessThan(0.1);
    // f32 values are binary32-representable.
    for (const v of a.subarray(0, 100)) expect(Math.fround(v)).toBe(v);
  });

  it('only fills float buffers and checks its bounds', () => {
    expectInputError(() => gen('u32', 1, { generator: 'uniformFloat', min: 0, max: 1 }), 'buffers.buf.init', 'cannot fill a u32 buffer');
    expectInputError(() => gen('f64', 1, { generator: 'uniformFloat', min: 2, max: 1 }), 'buffers.buf.init.min', 'min 2 > max 1');
    expectInputError(() => gen('f32', 1, { generator: 'uniformFloat', min: 0, max: 1e39 }), 'buffers.buf.init.max', 'not a finite f32');
    expectInputError(() => gen('f64', 1, { generator: 'uniformFloat', min: -1.7e308, max: 1.7e308 }), 'buffers.buf.init.max', 'overflows');
  });
});

describe('permutationCycle', () => {
  /** Follows the chain from 0 and returns how many steps return to 0, or -1 if it repeats elsewhere. */
  function cycleLength(a: ArrayLike<number | bigint>): number {
    const seen = new Uint8Array(a.length);
    let j = 0;
    for (let steps = 1; steps <= a.length; steps++) {
      seen[j] = 1;
      j = Number(a[j]!);
      if (j === 0) return steps;
      if (seen[j]) return -1;
    }
    return -1;
  }

  it('is one cycle through all indices, for any size and seed', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 300 }), fc.integer(), (count, seed) => {
        const a = gen('u32', count, { generator: 'permutationCycle' }, seed);
        const sorted = nums(a).sort((x, y) => x - y);
        return sorted.every((v, i) => v === i) && cycleLength(a) === count;
      }),
      { numRuns: 200 },
    );
  });

  it('never maps an index to itself beyond size 1 and varies with the seed', () => {
    const a = gen('u16', 1000, { generator: 'permutationCycle' }, 9);
    for (let i = 0; i < a.length; i++) expect(a[i]).not.toBe(i);
    expect(list(gen('u8', 1, { generator: 'permutationCycle' }))).toEqual([0]);
    expect(cycleLength(gen('u64', 50, { generator: 'permutationCycle' }))).toBe(50);
  });

  it('rejects float types and sizes whose indices do not fit', () => {
    expectInputError(() => gen('f32', 4, { generator: 'permutationCycle' }), 'buffers.buf.init', 'cannot fill a f32 buffer');
    expectInputError(() => gen('u8', 257, { generator: 'permutationCycle' }), 'buffers.buf.init.count', 'outside the u8 range');
  });
});

describe('modulo', () => {
  it('wraps start + i*step into [0, modulus)', () => {
    expect(list(gen('u32', 7, { generator: 'modulo', modulus: 5, start: 3, step: 2 }))).toEqual([3, 0, 2, 4, 1, 3, 0]);
    expect(list(gen('s32', 4, { generator: 'modulo', modulus: 4, start: -1, step: -1 }))).toEqual([3, 2, 1, 0]);
    expect(list(gen('u64', 3, { generator: 'modulo', modulus: 2 }))).toEqual([0n, 1n, 0n]);
  });

  it('rejects a modulus below 1 or too large for the type', () => {
    expectInputError(() => gen('u32', 1, { generator: 'modulo', modulus: 0 }), 'buffers.buf.init.modulus', 'generator modulo');
    expectInputError(() => gen('u8', 1, { generator: 'modulo', modulus: 1000 }), 'buffers.buf.init.modulus', 'outside the u8 range');
  });
});

describe('oneHot', () => {
  it('sets one element over a background', () => {
    expect(list(gen('s32', 4, { generator: 'oneHot', index: 2, value: 0, background: -1 }))).toEqual([-1, -1, 0, -1]);
    expect(list(gen('u8', 3, { generator: 'oneHot', index: 0 }))).toEqual([1, 0, 0]);
  });

  it('rejects an index outside the buffer', () => {
    expectInputError(() => gen('u8', 3, { generator: 'oneHot', index: 3 }), 'buffers.buf.init.index', 'not below count 3');
    expectInputError(() => gen('u8', 3, { generator: 'oneHot', index: 0, background: -1 }), 'buffers.buf.init.background', 'outside the u8 range');
  });
});

describe('csrOffsets', () => {
  it('is non-decreasing from 0 to edges with varying degrees', () => {
    const a = gen('s32', 1001, { generator: 'csrOffsets', edges: 4000 }, 2) as Int32Array;
    expect(a[0]).toBe(0);
    expect(a[1000]).toBe(4000);
    const degrees = new Set<number>();
    for (let i = 0; i < 1000; i++) {
      expect(a[i + 1]! >= a[i]!).toBe(true);
      degrees.add(a[i + 1]! - a[i]!);
    }
    expect(degrees.size).toBeGreaterThan(5);
    expect(list(gen('u32', 1, { generator: 'csrOffsets', edges: 0 }))).toEqual([0]);
    expect(list(gen('u32', 2, { generator: 'csrOffsets', edges: 9 }))).toEqual([0, 9]);
  });

  it('rejects impossible graphs', () => {
    expectInputError(() => gen('u32', 1, { generator: 'csrOffsets', edges: 3 }), 'buffers.buf.init.edges', 'no vertices');
    expectInputError(() => gen('u32', 0, { generator: 'csrOffsets', edges: 0 }), 'buffers.buf.init.edges', 'count >= 1');
    expectInputError(() => gen('u8', 4, { generator: 'csrOffsets', edges: 300 }), 'buffers.buf.init.edges', 'outside the u8 range');
    expectInputError(() => gen('f32', 4, { generator: 'csrOffsets', edges: 3 }), 'buffers.buf.init', 'cannot fill a f32 buffer');
  });
});
