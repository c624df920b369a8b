/**
 * Every kernel reference on tiny inputs whose expected outputs are worked out by hand in the
 * comments (not taken from the code), plus the launch/argument validation they share.
 */
import { describe, it, expect } from 'vitest';
import { kernelReferences } from '../../src/scenario/references/index.ts';
import type { ReferenceArg, ReferenceInput, TypedArray } from '../../src/scenario/references/types.ts';
import { expectInputError, list } from './scenario-helpers.ts';

type Dim = [number, number, number];
const buf = (name: string): ReferenceArg => ({ buffer: name });
const u32 = (value: number): ReferenceArg => ({ type: 'u32', value });
const s32 = (value: number): ReferenceArg => ({ type: 's32', value });
const f32 = (value: number): ReferenceArg => ({ type: 'f32', value });
const f64 = (value: number): ReferenceArg => ({ type: 'f64', value });
const launch = (grid: Dim, block: Dim, ...args: ReferenceArg[]) => ({ grid, block, args });

function run(kernel: string, buffers: Record<string, TypedArray>, launches: ReferenceInput['launches']): Record<string, TypedArray> {
  const ref = kernelReferences[kernel];
  if (ref === undefined) throw new Error(`no reference ${kernel}`);
  return ref({ buffers, launches });
}



describe('vecadd', () => {
  it('adds [1, 2] + [3, 4] = [4, 6]', () => {
    const out = run('vecadd', { a: new Float32Array([1, 2]), b: new Float32Array([3, 4]), c: new Float32Array(2) }, [
      launch([1, 1, 1], [2, 1, 1], buf('a'), buf('b'), buf('c'), s32(2)),
    ]);
    expect(list(out.c)).toEqual([4, 6]);
  });

  it('writes only i < n and i < threads', () => {
    const a = new Float32Array([1, 1, 1, 1]);
    const b = new Float32Array([0.5, 0.5, 0.5, 0.5]);
    // n = 3 with 4 threads: c[3] keeps its -1.
    expect(list(run('vecadd', { a, b, c: new Float32Array(4).fill(-1) }, [launch([2, 1, 1], [2, 1, 1], buf('a'), buf('b'), buf('c'), s32(3))]).c)).toEqual([1.5, 1.5, 1.5, -1]);
    // n = 4 with 2 threads: only c[0], c[1] written.
    expect(list(run('vecadd', { a, b, c: new Float32Array(4).fill(-1) }, [launch([1, 1, 1], [2, 1, 1], buf('a'), buf('b'), buf('c'), s32(4))]).c)).toEqual([1.5, 1.5, -1, -1]);
  });

  it('rounds the sum to binary32', () => {
    // 1 + 2^-24 is the midpoint between 1 and 1 + 2^-23: ties to even gives 1.
    const out = run('vecadd', { a: new Float32Array([1]), b: new Float32Array([2 ** -24]), c: new Float32Array(1) }, [
      launch([1, 1, 1], [1, 1, 1], buf('a'), buf('b'), buf('c'), s32(1)),
    ]);
    expect(out.c![0]).toBe(1);
  });
});

describe('saxpy', () => {
  it('computes 2 * [1, 2, 3] + [10, 20, 30] = [12, 24, 36] with one thread (grid-stride)', () => {
    const out = run('saxpy', { x: new Float32Array([1, 2, 3]), y: new Float32Array([10, 20, 30]) }, [
      launch([1, 1, 1], [1, 1, 1], u32(3), f32(2), buf('x'), buf('y')),
    ]);
    expect(list(out.y)).toEqual([12, 24, 36]);
    expect(list(out.x)).toEqual([1, 2, 3]);
  });

  it('fuses the multiply and add as fma.rn.f32 does', () => {
    // a * x = 2^-24 + 2^-60 (see float.test.ts); fused with y = 1 it rounds up to 1 + 2^-23,
    // where a separate multiply and add would give 1.
    const out = run('saxpy', { x: new Float32Array([4097 * 2 ** -30]), y: new Float32Array([1]) }, [
      launch([1, 1, 1], [32, 1, 1], u32(1), f32(16773121 * 2 ** -30), buf('x'), buf('y')),
    ]);
    expect(out.y![0]).toBe(1 + 2 ** -23);
  });
});

describe('add_x_loops', () => {
  it('scales both inputs loops times, then adds them', () => {
    // factor 2, 3 loops: c = 8a + 8b: [8 + 16, 24 + 40] = [24, 64]
    const out = run('add_x_loops', { a: new Float32Array([1, 3]), b: new Float32Array([2, 5]), c: new Float32Array(2) }, [
      launch([1, 1, 1], [2, 1, 1], buf('a'), buf('b'), buf('c'), f32(2), s32(3), s32(2)),
    ]);
    expect(list(out.c)).toEqual([24, 64]);
  });

  it('rounds every product to binary32 and skips the loop for loops <= 0', () => {
    // factor f = 1 + 2^-12, a = 1, 3 loops. Step 1: 1 + 2^-12 (exact). Step 2: (1 + 2^-12)^2 =
    // 1 + 2^-11 + 2^-24, a tie at half an ULP (2^-23) whose even neighbour is 1 + 2^-11. Step 3:
    // (1 + 2^-11)(1 + 2^-12) = 1 + 3 * 2^-12 + 2^-23, exact. (Rounding only at the end would give
    // (1 + 2^-12)^3 = 1 + 3 * 2^-12 + 3 * 2^-24 + 2^-36 -> 1 + 3 * 2^-12 + 2^-22.)
    const three = run('add_x_loops', { a: new Float32Array([1]), b: new Float32Array([0]), c: new Float32Array(1) }, [
      launch([1, 1, 1], [1, 1, 1], buf('a'), buf('b'), buf('c'), f32(1 + 2 ** -12), s32(3), s32(1)),
    ]);
    expect(three.c![0]).toBe(1 + 3 * 2 ** -12 + 2 ** -23);
    // loops = -4: no iteration, c = a + b = [1 + 0, 5 + 1].
    const none = run('add_x_loops', { a: new Float32Array([1, 5]), b: new Float32Array([0, 1]), c: new Float32Array(2) }, [
      launch([2, 1, 1], [1, 1, 1], buf('a'), buf('b'), buf('c'), f32(100), s32(-4), s32(2)),
    ]);
    expect(list(none.c)).toEqual([1, 6]);
  });
});

describe('stream_x_words', () => {
  it('copies words k*T + g for k < words', () => {
    // T = 4 threads, 2 words each: elements 0..7 copied, 8..11 untouched.
    const src = Uint32Array.from({ length: 12 }, (_, i) => 100 + i);
    const out = run('stream_x_words', { src, dst: new Uint32Array(12) }, [launch([2, 1, 1], [2, 1, 1], buf('src'), buf('dst'), s32(2))]);
    expect(list(out.dst)).toEqual([100, 101, 102, 103, 104, 105, 106, 107, 0, 0, 0, 0]);
  });

  it('clamps words to 8', () => {
    const src = Uint32Array.from({ length: 10 }, (_, i) => i + 1);
    const out = run('stream_x_words', { src, dst: new Uint32Array(10) }, [launch([1, 1, 1], [1, 1, 1], buf('src'), buf('dst'), s32(10))]);
    expect(list(out.dst)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 0, 0]);
  });
});

describe('reduce_smem', () => {
  it('sums 1..100 to 5050 in one CTA', () => {
    const out = run('reduce_smem', { in: Float32Array.from({ length: 100 }, (_, i) => i + 1), out: new Float32Array(1) }, [
      launch([1, 1, 1], [128, 1, 1], buf('in'), buf('out'), u32(100)),
    ]);
    expect(out.out![0]).toBe(5050);
  });

  it('writes one partial per CTA with the grid-stride assignment', () => {
    // in = 1..8, 2 CTAs x 2 threads, T = 4. CTA 0: t0 takes i = 0, 4 (1 + 5), t1 takes 1, 5
    // (2 + 6): 6 + 8 = 14. CTA 1: t0 takes 2, 6 (3 + 7), t1 takes 3, 7 (4 + 8): 10 + 12 = 22.
    // A second launch with one CTA of 2 threads sums the partials: 36.
    const out = run('reduce_smem', { in: Float32Array.from([1, 2, 3, 4, 5, 6, 7, 8]), part: new Float32Array(2), total: new Float32Array(1) }, [
      launch([2, 1, 1], [2, 1, 1], buf('in'), buf('part'), u32(8)),
      launch([1, 1, 1], [2, 1, 1], buf('part'), buf('total'), u32(2)),
    ]);
    expect(list(out.part)).toEqual([14, 22]);
    expect(list(out.total)).toEqual([36]);
  });

  it('adds in tree order with binary32 rounding', () => {
    // Slots [2^24, 1, 1, 0]; s = 2: slot0 = 2^24 + 1 -> 2^24 (tie to even), slot1 = 1 + 0 = 1;
    // s = 1: 2^24 + 1 -> 2^24. The exact sum would be 2^24 + 2.
    const out = run('reduce_smem', { in: Float32Array.from([2 ** 24, 1, 1, 0]), out: new Float32Array(1) }, [
      launch([1, 1, 1], [4, 1, 1], buf('in'), buf('out'), u32(4)),
    ]);
    expect(out.out![0]).toBe(2 ** 24);
  });

  it('mirrors the kernel for a block that is not a power of two', () => {
    // blockDim 3: s = 1 only, slot0 = 1 + 2; slot 2 (value 4) is never added.
    const out = run('reduce_smem', { in: Float32Array.from([1, 2, 4]), out: new Float32Array(1) }, [launch([1, 1, 1], [3, 1, 1], buf('in'), buf('out'), u32(3))]);
    expect(out.out![0]).toBe(3);
  });
});

describe('reduce_shfl', () => {
  it('sums 1..100 to 5050 across CTAs and adds to the initial total', () => {
    const out = run('reduce_shfl', { in: Uint32Array.from({ length: 100 }, (_, i) => i + 1), total: Uint32Array.from([10]) }, [
      launch([2, 1, 1], [64, 1, 1], buf('in'), buf('total'), u32(100)),
    ]);
    expect(list(out.total)).toEqual([5060]);
  });

  it('wraps modulo 2^32', () => {
    const out = run('reduce_shfl', { in: Uint32Array.from([0xffff_ffff, 2]), total: new Uint32Array(1) }, [launch([1, 1, 1], [32, 1, 1], buf('in'), buf('total'), u32(2))]);
    expect(list(out.total)).toEqual([1]);
  });

  it('refuses a block that is not whole warps', () => {
    expectInputError(
      () => run('reduce_shfl', { in: new Uint32Array(4), total: new Uint32Array(1) }, [launch([1, 1, 1], [48, 1, 1], buf('in'), buf('total'), u32(4))]),
      'launches[0].block',
      'multiple of 32',
    );
  });
});

describe('matmul_tiled', () => {
  it('multiplies a 2x3 by a 3x2 matrix', () => {
    // [[1,2,3],[4,5,6]] x [[7,8],[9,10],[11,12]]:
    // row 0: 1*7 + 2*9 + 3*11 = 58, 1*8 + 2*10 + 3*12 = 64
    // row 1: 4*7 + 5*9 + 6*11 = 139, 4*8 + 5*10 + 6*12 = 154
    const out = run('matmul_tiled', { A: Float32Array.from([1, 2, 3, 4, 5, 6]), B: Float32Array.from([7, 8, 9, 10, 11, 12]), C: new Float32Array(4) }, [
      launch([1, 1, 1], [16, 16, 1], buf('A'), buf('B'), buf('C'), s32(2), s32(2), s32(3)),
    ]);
    expect(list(out.C)).toEqual([58, 64, 139, 154]);
  });

  it('crosses tile boundaries in k and leaves rows outside the grid alone', () => {
    // A is 20 x 17 of ones, B is 17 x 1 of ones: every dot product is 17. With one CTA row
    // (16 rows covered) C rows 16..19 keep their -1.
    const out = run('matmul_tiled', { A: new Float32Array(20 * 17).fill(1), B: new Float32Array(17).fill(1), C: new Float32Array(20).fill(-1) }, [
      launch([1, 1, 1], [16, 16, 1], buf('A'), buf('B'), buf('C'), s32(20), s32(1), s32(17)),
    ]);
    expect(list(out.C)).toEqual([...Array<number>(16).fill(17), -1, -1, -1, -1]);
  });

  it('accumulates with one fused multiply-add per term', () => {
    // C = A (1 x 2) x B (2 x 1) with terms 1 * 1 and (2^-24 + 2^-60) from a product:
    // acc = fma(1, 1, 0) = 1, then fma(4097 * 2^-30, 16773121 * 2^-30, 1) = 1 + 2^-23 (fused).
    const out = run('matmul_tiled', { A: Float32Array.from([1, 4097 * 2 ** -30]), B: Float32Array.from([1, 16773121 * 2 ** -30]), C: new Float32Array(1) }, [
      launch([1, 1, 1], [16, 16, 1], buf('A'), buf('B'), buf('C'), s32(1), s32(1), s32(2)),
    ]);
    expect(out.C![0]).toBe(1 + 2 ** -23);
  });

  it('requires 16 x 16 CTAs', () => {
    expectInputError(
      () => run('matmul_tiled', { A: new Float32Array(1), B: new Float32Array(1), C: new Float32Array(1) }, [launch([1, 1, 1], [8, 8, 1], buf('A'), buf('B'), buf('C'), s32(1), s32(1), s32(1))]),
      'launches[0].block',
      'block must be [16, 16, 1]',
    );
  });
});

describe('histogram_smem', () => {
  it('counts a known list of bytes into the 256 bins', () => {
    const bins = new Uint32Array(256);
    bins[7] = 10; // the kernel adds to what is there
    const out = run('histogram_smem', { data: Uint8Array.from([0, 1, 1, 255, 7, 7, 7, 200]), bins }, [
      launch([2, 1, 1], [64, 1, 1], buf('data'), buf('bins'), u32(7)), // n = 7: the 200 is not counted
    ]);
    const expected = new Array<number>(256).fill(0);
    expected[0] = 1;
    expected[1] = 2;
    expected[7] = 13;
    expected[255] = 1;
    expect(list(out.bins)).toEqual(expected);
  });
});

describe('stencil_hotspot', () => {
  it('updates a 1x1 grid, where every neighbour is the cell itself', () => {
    // t = 10, power 1, ambient 0, rz1 0.5, stepOverCap 0.5: delta = 0.5 * (1 + 0 + 0 + (0 - 10) * 0.5)
    // = -2, so 8. Second step from 8: 0.5 * (1 - 4) = -1.5, so 6.5.
    const out = run('stencil_hotspot', { p: Float32Array.from([1]), a: Float32Array.from([10]), b: new Float32Array(1) }, [
      launch([1, 1, 1], [16, 16, 1], buf('p'), buf('a'), buf('b'), s32(1), s32(1), f32(0.5), f32(3), f32(7), f32(0.5), f32(0)),
      launch([1, 1, 1], [16, 16, 1], buf('p'), buf('b'), buf('a'), s32(1), s32(1), f32(0.5), f32(3), f32(7), f32(0.5), f32(0)),
    ]);
    expect(list(out.b)).toEqual([8]);
    expect(list(out.a)).toEqual([6.5]);
  });

  it('uses north/south with ry1, east/west with rx1 and clamps at the border', () => {
    // T = [[1, 2], [3, 4]], power [4, 0, 0, 0], stepOverCap 0.25, rx1 2, ry1 1, rz1 0.5, ambient 5.
    // (0,0) t=1: N=1 S=3 W=1 E=2: (S+N-2t)=2, (E+W-2t)=1, amb 4:
    //        0.25*(4 + 2*1 + 1*2 + 4*0.5) = 0.25*10 = 2.5 -> 3.5
    // (0,1) t=2: N=2 S=4 W=1 E=2: 2, -1, amb 3: 0.25*(0 + 2 - 2 + 1.5) = 0.375 -> 2.375
    // (1,0) t=3: N=1 S=3 W=3 E=4: -2, 1, amb 2: 0.25*(0 - 2 + 2 + 1) = 0.25 -> 3.25
    // (1,1) t=4: N=2 S=4 W=3 E=4: -2, -1, amb 1: 0.25*(0 - 2 - 2 + 0.5) = -0.875 -> 3.125
    const out = run('stencil_hotspot', { p: Float32Array.from([4, 0, 0, 0]), a: Float32Array.from([1, 2, 3, 4]), b: new Float32Array(4) }, [
      launch([1, 1, 1], [2, 2, 1], buf('p'), buf('a'), buf('b'), s32(2), s32(2), f32(0.25), f32(2), f32(1), f32(0.5), f32(5)),
    ]);
    expect(list(out.b)).toEqual([3.5, 2.375, 3.25, 3.125]);
  });

  it('refuses an in-place update', () => {
    expectInputError(
      () => run('stencil_hotspot', { p: new Float32Array(1), a: new Float32Array(1) }, [launch([1, 1, 1], [1, 1, 1], buf('p'), buf('a'), buf('a'), s32(1), s32(1), f32(1), f32(1), f32(1), f32(1), f32(1))]),
      'launches[0].args[2]',
      'different buffers',
    );
  });
});

describe('transpose_smem', () => {
  it('transposes a 2x3 matrix', () => {
    // [[1,2,3],[4,5,6]] -> [[1,4],[2,5],[3,6]]
    const out = run('transpose_smem', { in: Float32Array.from([1, 2, 3, 4, 5, 6]), out: new Float32Array(6) }, [
      launch([1, 1, 1], [16, 16, 1], buf('in'), buf('out'), s32(2), s32(3)),
    ]);
    expect(list(out.out)).toEqual([1, 4, 2, 5, 3, 6]);
  });

  it('covers several tiles', () => {
    // 17 x 18 input in[r][c] = 100 r + c needs a 2 x 2 grid; out[c][r] = 100 r + c.
    const rows = 17;
    const cols = 18;
    const input = Float32Array.from({ length: rows * cols }, (_, i) => 100 * Math.floor(i / cols) + (i % cols));
    const out = run('transpose_smem', { in: input, out: new Float32Array(rows * cols) }, [launch([2, 2, 1], [16, 16, 1], buf('in'), buf('out'), s32(rows), s32(cols))]);
    expect(out.out![0 * rows + 16]).toBe(1600); // r = 16, c = 0
    expect(out.out![17 * rows + 0]).toBe(17); // r = 0, c = 17
    expect(out.out![17 * rows + 16]).toBe(1617);
    expect(out.out![5 * rows + 3]).toBe(305);
  });
});

describe('bfs_level', () => {
  // The graph: 0 -> 1, 0 -> 2, 1 -> 3, 2 -> 3, 3 -> 4, 4 -> 0 (and vertex 5 unreachable, 5 -> 0).
  // BFS levels from 0: cost = [0, 1, 1, 2, 3, -1].
  const graph = () => ({
    rowPtr: Int32Array.from([0, 2, 3, 4, 5, 6, 7]),
    colIdx: Int32Array.from([1, 2, 3, 3, 4, 0, 0]),
    fa: Uint8Array.from([1, 0, 0, 0, 0, 0]),
    fb: new Uint8Array(6),
    cost: Int32Array.from([0, -1, -1, -1, -1, -1]),
    changed: new Uint32Array(1),
  });
  const level = (front: string, next: string) =>
    launch([2, 1, 1], [4, 1, 1], buf('rowPtr'), buf('colIdx'), buf(front), buf(next), buf('cost'), buf('changed'), s32(6));

  it('expands one level per launch', () => {
    const out = run('bfs_level', graph(), [level('fa', 'fb')]);
    expect(list(out.cost)).toEqual([0, 1, 1, -1, -1, -1]);
    expect(list(out.fa)).toEqual([0, 0, 0, 0, 0, 0]);
    expect(list(out.fb)).toEqual([0, 1, 1, 0, 0, 0]);
    expect(list(out.changed)).toEqual([1]);
  });

  it('reaches every level by ping-ponging the frontier buffers', () => {
    const out = run('bfs_level', graph(), [level('fa', 'fb'), level('fb', 'fa'), level('fa', 'fb'), level('fb', 'fa')]);
    expect(list(out.cost)).toEqual([0, 1, 1, 2, 3, -1]);
    // Launch 4 visits vertex 4 only; its neighbour 0 is reached already, so both are empty.
    expect(list(out.fa)).toEqual([0, 0, 0, 0, 0, 0]);
    expect(list(out.fb)).toEqual([0, 0, 0, 0, 0, 0]);
  });

  it('leaves changed at 0 when a level finds nothing', () => {
    const g = graph();
    g.fa.fill(0);
    g.fa[4] = 1;
    g.cost.set([0, 1, 1, 2, 3, -1]);
    const out = run('bfs_level', g, [level('fa', 'fb')]);
    expect(list(out.changed)).toEqual([0]);
    expect(list(out.fa)).toEqual([0, 0, 0, 0, 0, 0]);
  });

  it('refuses frontiers whose vertices have different costs', () => {
    const g = graph();
    g.fa[1] = 1; // vertex 1 in the frontier with cost -1
    expectInputError(() => run('bfs_level', g, [level('fa', 'fb')]), 'launches[0].args[4]', 'frontier vertex 1 has cost -1');
  });
});

describe('dpoly', () => {
  it('evaluates sqrt(|p|) + p / (1 + x^2)', () => {
    // p(x) = 4 + 12 x^2: x = 0 -> p = 4: 2 + 4/1 = 6; x = 1 and -1 -> p = 16: 4 + 16/2 = 12.
    const out = run('dpoly', { x: Float64Array.from([0, 1, -1]), y: new Float64Array(3) }, [
      launch([1, 1, 1], [2, 1, 1], u32(3), f64(4), f64(0), f64(12), f64(0), buf('x'), buf('y')),
    ]);
    expect(list(out.y)).toEqual([6, 12, 12]);
    // p = -9 (constant): x = 0 -> 3 - 9 = -6; x = 1 -> 3 - 4.5 = -1.5.
    const neg = run('dpoly', { x: Float64Array.from([0, 1]), y: new Float64Array(2) }, [
      launch([1, 1, 1], [1, 1, 1], u32(2), f64(-9), f64(0), f64(0), f64(0), buf('x'), buf('y')),
    ]);
    expect(list(neg.y)).toEqual([-6, -1.5]);
  });

  it('uses the cubic coefficient in Horner order', () => {
    // p(x) = 1 - 2x + 0.5 x^2 + 0.25 x^3 at x = 2: 1 - 4 + 2 + 2 = 1; y = 1 + 1/5 = 1.2.
    const out = run('dpoly', { x: Float64Array.from([2]), y: new Float64Array(1) }, [
      launch([1, 1, 1], [1, 1, 1], u32(1), f64(1), f64(-2), f64(0.5), f64(0.25), buf('x'), buf('y')),
    ]);
    expect(out.y![0]).toBe(1 + 1 / 5);
  });
});

describe('pointer_chase', () => {
  it('follows the known cycle 0 -> 2 -> 3 -> 1 -> 0', () => {
    // next = [2, 0, 3, 1]. From 0, 5 steps visit 2, 3, 1, 0, 2: last 2, sum 8.
    const out = run('pointer_chase', { next: Uint32Array.from([2, 0, 3, 1]), last: new Uint32Array(1), sum: new BigUint64Array(1) }, [
      launch([1, 1, 1], [32, 1, 1], buf('next'), u32(0), u32(5), buf('last'), buf('sum')),
    ]);
    expect(list(out.last)).toEqual([2]);
    expect(list(out.sum)).toEqual([8n]);
  });

  it('stores the start for zero steps', () => {
    const out = run('pointer_chase', { next: Uint32Array.from([1, 0]), last: new Uint32Array(1), sum: new BigUint64Array(1).fill(9n) }, [
      launch([1, 1, 1], [1, 1, 1], buf('next'), u32(1), u32(0), buf('last'), buf('sum')),
    ]);
    expect(list(out.last)).toEqual([1]);
    expect(list(out.sum)).toEqual([0n]);
  });

  it('refuses a chain that leaves the buffer', () => {
    expectInputError(
      () => run('pointer_chase', { next: Uint32Array.from([5]), last: new Uint32Array(1), sum: new BigUint64Array(1) }, [launch([1, 1, 1], [1, 1, 1], buf('next'), u32(0), u32(2), buf('last'), buf('sum'))]),
      'launches[0].args[0]',
      'next[5]',
    );
  });
});

describe('launch and argument validation (shared by all references)', () => {
  const vec = () => ({ a: new Float32Array(4), b: new Float32Array(4), c: new Float32Array(4), i: new Int32Array(4) });

  it('checks the argument count, kinds, buffer types and sizes', () => {
    expectInputError(() => run('vecadd', vec(), [launch([1, 1, 1], [4, 1, 1], buf('a'), buf('b'), buf('c'))]), 'launches[0].args', 'expects 4 arguments, got 3');
    expectInputError(() => run('vecadd', vec(), [launch([1, 1, 1], [4, 1, 1], buf('a'), buf('b'), buf('c'), buf('a'))]), 'launches[0].args[3]', 'must be a int scalar');
    expectInputError(() => run('vecadd', vec(), [launch([1, 1, 1], [4, 1, 1], buf('a'), buf('b'), buf('c'), f32(4))]), 'launches[0].args[3]', 'must be u32 or s32');
    expectInputError(() => run('vecadd', vec(), [launch([1, 1, 1], [4, 1, 1], buf('a'), buf('i'), buf('c'), s32(4))]), 'launches[0].args[1]', 'must be f32, got s32');
    expectInputError(() => run('vecadd', vec(), [launch([1, 1, 1], [4, 1, 1], buf('a'), buf('zz'), buf('c'), s32(4))]), 'launches[0].args[1]', 'unknown buffer zz');
    expectInputError(() => run('vecadd', vec(), [launch([2, 1, 1], [4, 1, 1], buf('a'), buf('b'), buf('c'), s32(8))]), 'launches[0].args[0]', 'has 4 elements, the kernel would access 8');
    expectInputError(() => run('vecadd', vec(), [launch([1, 1, 1], [4, 1, 1], buf('a'), buf('b'), buf('c'), u32(2 ** 32))]), 'launches[0].args[3]', '32-bit integer');
  });

  it('checks launch shapes', () => {
    expectInputError(() => run('vecadd', vec(), [launch([1, 2, 1], [4, 1, 1], buf('a'), buf('b'), buf('c'), s32(4))]), 'launches[0].grid', '1D grid');
    expectInputError(() => run('vecadd', vec(), [launch([1, 1, 1], [0, 1, 1], buf('a'), buf('b'), buf('c'), s32(4))]), 'launches[0].block', 'positive integers');
  });

  it('reinterprets 32-bit integer bits between u32 and s32 as the kernel would', () => {
    // n = u32 0xffffffff is int -1 in vecadd: nothing is written.
    const out = run('vecadd', { a: new Float32Array([1]), b: new Float32Array([1]), c: new Float32Array([7]) }, [
      launch([1, 1, 1], [1, 1, 1], buf('a'), buf('b'), buf('c'), u32(0xffff_ffff)),
    ]);
    expect(list(out.c)).toEqual([7]);
  });

  it('names the scenario file when the input gives one', () => {
    const ref = kernelReferences.vecadd!;
    expect(() => ref({ file: 'scenarios/k-vecadd.yaml', buffers: vec(), launches: [launch([1, 1, 1], [4, 1, 1])] })).toThrow(
      /^scenarios\/k-vecadd\.yaml: launches\[0\]\.args: vecadd: expects 4 arguments/,
    );
  });
});
