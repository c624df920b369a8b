/**
 * The library kernels of the shapes Rodinia / PolyBench / Parboil stress (spmv_csr,
 * kmeans_assign, backprop_layer, histogram_global, stencil2d_halo, lud_diagonal): their host
 * references on tiny inputs worked out by hand, the errors they raise, and each kernel, scaled
 * down, on the timing model of every preset, checked against its reference and the functional
 * model.
 */
import { describe, expect, it } from 'vitest';
import { kernelReferences } from '../../src/scenario/references/index.ts';
import { NEG_LOG2E_F32, backpropSigmoid } from '../../src/scenario/references/backprop-layer.ts';
import type { ReferenceArg, ReferenceInput, TypedArray } from '../../src/scenario/references/types.ts';
import { loadScenario } from '../../src/scenario/loader.ts';
import { runKernelScenarioFunctional } from '../../src/scenario/kernel-run.ts';
import { runKernelScenarioTiming } from '../../src/scenario/timing-run.ts';
import { expectInputError, list } from './scenario-helpers.ts';

type Dim = [number, number, number];
const buf = (name: string): ReferenceArg => ({ buffer: name });
const u32 = (value: number): ReferenceArg => ({ type: 'u32', value });
const s32 = (value: number): ReferenceArg => ({ type: 's32', value });
const f32 = (value: number): ReferenceArg => ({ type: 'f32', value });
const launch = (grid: Dim, block: Dim, ...args: ReferenceArg[]) => ({ grid, block, args });

function run(kernel: string, buffers: Record<string, TypedArray>, launches: ReferenceInput['launches']): Record<string, TypedArray> {
  return kernelReferences[kernel]!({ buffers, launches });
}


describe('spmv_csr reference', () => {
  // A = [[2, 0, 1], [0, 0, 0], [3, 0.5, -1]] (row 2's entries stored out of column order),
  // x = [1, 4, 10]: y = [2 + 10, 0, 0.5 * 4 + 3 - 10] = [12, 0, -5].
  const csr = () => ({
    rowPtr: Int32Array.from([0, 2, 2, 5]),
    colIdx: Int32Array.from([0, 2, 1, 0, 2]),
    val: Float32Array.from([2, 1, 0.5, 3, -1]),
    x: Float32Array.from([1, 4, 10]),
    y: new Float32Array(3).fill(-7),
  });
  const args = (rows: number) => [buf('rowPtr'), buf('colIdx'), buf('val'), buf('x'), buf('y'), s32(rows)];

  it('multiplies row by row, an empty row giving 0', () => {
    expect(list(run('spmv_csr', csr(), [launch([1, 1, 1], [4, 1, 1], ...args(3))]).y)).toEqual([12, 0, -5]);
  });

  it('writes only the rows that have a thread', () => {
    // 2 threads: row 2 keeps its -7.
    expect(list(run('spmv_csr', csr(), [launch([1, 1, 1], [2, 1, 1], ...args(3))]).y)).toEqual([12, 0, -7]);
  });

  it('accumulates with fused multiply-adds', () => {
    // Row [1, a] . [-1, a], a = 1 + 2^-12: fma(1, -1, 0) = -1, then fma(a, a, -1) = 2^-11 + 2^-24
    // exactly; rounding a * a first (1 + 2^-11 + 2^-24 ties to 1 + 2^-11) would give 2^-11.
    const a = 1 + 2 ** -12;
    const out = run(
      'spmv_csr',
      { rowPtr: Int32Array.from([0, 2]), colIdx: Int32Array.from([0, 1]), val: Float32Array.from([1, a]), x: Float32Array.from([-1, a]), y: new Float32Array(1) },
      [launch([1, 1, 1], [32, 1, 1], ...args(1))],
    );
    expect(out.y![0]).toBe(2 ** -11 + 2 ** -24);
  });

  it('refuses a column outside x', () => {
    const bad = { ...csr(), colIdx: Int32Array.from([0, 5, 1, 0, 2]) };
    expectInputError(() => run('spmv_csr', bad, [launch([1, 1, 1], [4, 1, 1], ...args(3))]), 'launches[0].args[1]', 'column 5 is outside x');
  });
});

describe('kmeans_assign reference', () => {
  // Centroids (0, 0), (10, 0), (0, 10); points (feature-major) (1, 1), (9, 1), (2, 7), (5, 0).
  // Squared distances: p0 -> 2, 82, 82: c0. p1 -> 82, 2, 146: c1. p2 -> 53, 113, 13: c2.
  // p3 -> 25, 25, 125: a tie, the lower index c0 wins.
  const data = () => ({
    points: Float32Array.from([1, 9, 2, 5, 1, 1, 7, 0]),
    centroids: Float32Array.from([0, 0, 10, 0, 0, 10]),
    membership: Int32Array.from([0, 0, 2, 1]),
    changed: Uint32Array.from([5]),
  });
  const args = (k: number, dims: number) => [buf('points'), buf('centroids'), buf('membership'), buf('changed'), s32(4), s32(k), s32(dims)];

  it('assigns each point its nearest centroid and counts the moves on top of changed', () => {
    const out = run('kmeans_assign', data(), [launch([2, 1, 1], [2, 1, 1], ...args(3, 2))]);
    expect(list(out.membership)).toEqual([0, 1, 2, 0]);
    // p1 moved 0 -> 1 and p3 moved 1 -> 0: 5 + 2.
    expect(list(out.changed)).toEqual([7]);
  });

  it('a second pass with the same centroids changes nothing', () => {
    const out = run('kmeans_assign', data(), [launch([1, 1, 1], [4, 1, 1], ...args(3, 2)), launch([1, 1, 1], [4, 1, 1], ...args(3, 2))]);
    expect(list(out.changed)).toEqual([7]);
  });

  it('refuses more centroid floats than the shared array holds', () => {
    // k = 65, dims = 4: 260 > 256.
    expectInputError(() => run('kmeans_assign', data(), [launch([1, 1, 1], [4, 1, 1], ...args(65, 4))]), 'launches[0].args[5]', '260 exceeds');
  });
});

describe('backprop_layer reference', () => {
  // in = 4, CTA of 2 threads. Unit 0: weights [0.5, -1, 0.25, 0.125] . [1, 2, 3, 4]: thread 0
  // 0.5 + 0.75 = 1.25, thread 1 -2 + 0.5 = -1.5, tree -0.25, + bias 0.25 = 0: sigmoid 1/2.
  // Units 1 and 2 have zero weights and biases 200 and -200: 2^(-200 log2 e) underflows to 0,
  // so 1 / (0 + 1) = 1; 2^(200 log2 e) overflows to +inf, so 1 / inf = 0.
  it('sums, reduces and squashes', () => {
    const weights = new Float32Array(12);
    weights.set([0.5, -1, 0.25, 0.125]);
    const out = run(
      'backprop_layer',
      { input: Float32Array.from([1, 2, 3, 4]), weights, bias: Float32Array.from([0.25, 200, -200]), output: new Float32Array(3) },
      [launch([3, 1, 1], [2, 1, 1], buf('input'), buf('weights'), buf('bias'), buf('output'), s32(4))],
    );
    expect(list(out.output)).toEqual([0.5, 1, 0]);
  });

  it('uses the binary32 -log2(e) constant nvcc emits, and stays close to the exact sigmoid', () => {
    expect(NEG_LOG2E_F32).toBe(-12102203 * 2 ** -23);
    // Rounding net * -log2 e costs up to half an ulp of a (<= 2^-21 for |a| < 16), so relative
    // 2^-21 ln 2 in e^-net; the add and rcp roundings add 2^-23: below 2^-20 in all.
    for (let net = -8; net <= 8; net += 0.0625) {
      const exact = 1 / (1 + Math.exp(-net));
      expect(Math.abs(backpropSigmoid(net) - exact) / exact).toBeLessThan(2 ** -20);
    }
  });

  it('refuses a CTA size that is not a power of two', () => {
    expectInputError(
      () => run('backprop_layer', { input: new Float32Array(4), weights: new Float32Array(4), bias: new Float32Array(1), output: new Float32Array(1) }, [
        launch([1, 1, 1], [96, 1, 1], buf('input'), buf('weights'), buf('bias'), buf('output'), s32(4)),
      ]),
      'launches[0].block',
      'power-of-two',
    );
  });
});

describe('histogram_global reference', () => {
  it('counts value mod numBins on top of what the bins hold', () => {
    // 3, 11, 19 -> bin 3; 4 -> bin 4; 8 -> bin 0 (which starts at 10).
    const bins = new Uint32Array(8);
    bins[0] = 10;
    const out = run('histogram_global', { data: Uint32Array.from([3, 11, 4, 8, 19]), bins }, [launch([1, 1, 1], [2, 1, 1], buf('data'), buf('bins'), u32(5), u32(8))]);
    expect(list(out.bins)).toEqual([11, 0, 0, 3, 1, 0, 0, 0]);
  });

  it('refuses zero bins', () => {
    expectInputError(
      () => run('histogram_global', { data: new Uint32Array(2), bins: new Uint32Array(1) }, [launch([1, 1, 1], [2, 1, 1], buf('data'), buf('bins'), u32(2), u32(0))]),
      'launches[0].args[3]',
      'numBins',
    );
  });
});

describe('stencil2d_halo reference', () => {
  const args = (rows: number, cols: number) => [buf('in'), buf('out'), s32(rows), s32(cols), f32(0.5), f32(0.25)];

  it('reads neighbours outside the grid as zero', () => {
    // [[1, 2, 3], [4, 5, 6]], out = 0.5 t + 0.25 (N + S + W + E):
    // (0,0) 0.5 + 0.25 (4 + 2) = 2     (0,1) 1 + 0.25 (5 + 1 + 3) = 3.25  (0,2) 1.5 + 0.25 (6 + 2) = 3.5
    // (1,0) 2 + 0.25 (1 + 5) = 3.5     (1,1) 2.5 + 0.25 (2 + 4 + 6) = 5.5  (1,2) 3 + 0.25 (3 + 5) = 5
    const out = run('stencil2d_halo', { in: Float32Array.from([1, 2, 3, 4, 5, 6]), out: new Float32Array(6) }, [launch([1, 1, 1], [16, 16, 1], ...args(2, 3))]);
    expect(list(out.out)).toEqual([2, 3.25, 3.5, 3.5, 5.5, 5]);
  });

  it('takes the south halo from below the covered tile but writes only covered cells', () => {
    // A 17 x 1 column 1..17 with one 16 x 16 tile: row 15 (t = 16) sees N = 15 and S = 17 (the
    // halo row): 8 + 0.25 * 32 = 16; row 16 is not covered and keeps -1.
    const out = run('stencil2d_halo', { in: Float32Array.from({ length: 17 }, (_, i) => i + 1), out: new Float32Array(17).fill(-1) }, [launch([1, 1, 1], [16, 16, 1], ...args(17, 1))]);
    expect(out.out![15]).toBe(16);
    expect(out.out![16]).toBe(-1);
    // Row 0 (t = 1): 0.5 + 0.25 * (0 + 2) = 1.
    expect(out.out![0]).toBe(1);
  });

  it('refuses a block other than 16 x 16', () => {
    expectInputError(
      () => run('stencil2d_halo', { in: new Float32Array(4), out: new Float32Array(4) }, [launch([1, 1, 1], [8, 8, 1], ...args(2, 2))]),
      'launches[0].block',
      '16 x 16',
    );
  });
});

describe('lud_diagonal reference', () => {
  // A[i][j] = min(i, j) + 1 is L U with L unit lower triangular of ones and U upper triangular
  // of ones (sum over k <= min(i, j) of 1 * 1), so its in-place factors are all ones. Placed at
  // offset 1 of a 17 x 17 matrix whose row 0 and column 0 hold -5 (untouched).
  const matrix = () => {
    const m = new Float32Array(17 * 17).fill(-5);
    for (let r = 1; r < 17; r++) for (let c = 1; c < 17; c++) m[r * 17 + c] = Math.min(r, c);
    return m;
  };

  it('factors min(i, j) + 1 into ones', () => {
    const out = run('lud_diagonal', { m: matrix() }, [launch([1, 1, 1], [16, 1, 1], buf('m'), s32(17), s32(1))]).m as Float32Array;
    for (let r = 0; r < 17; r++) for (let c = 0; c < 17; c++) expect(out[r * 17 + c]).toBe(r === 0 || c === 0 ? -5 : 1);
  });

  it('refuses a block reaching past the matrix, and a grid of several CTAs', () => {
    expectInputError(() => run('lud_diagonal', { m: matrix() }, [launch([1, 1, 1], [16, 1, 1], buf('m'), s32(17), s32(2))]), 'launches[0].args[2]', 'reaches past');
    expectInputError(() => run('lud_diagonal', { m: matrix() }, [launch([2, 1, 1], [16, 1, 1], buf('m'), s32(17), s32(0))]), 'launches[0].grid', 'one CTA');
  });
});

/** Each kernel's scenario scaled down (overrides), and the CTAs its launches start in all. */
const SCALED: Record<string, { overrides: string[]; ctas: number }> = {
  // 64 rows by one CTA.
  'k-spmv-csr.yaml': { overrides: ['launches[0].grid=[1,1,1]', 'launches[0].block=[64,1,1]', 'launches[0].args[5].s32=64'], ctas: 1 },
  // 64 points by one CTA (the centroid staging and the atomics unchanged).
  'k-kmeans-assign.yaml': { overrides: ['launches[0].grid=[1,1,1]', 'launches[0].block=[64,1,1]', 'launches[0].args[4].s32=64'], ctas: 1 },
  // 4 outputs of 128 inputs, CTAs of 64.
  'k-backprop-layer.yaml': { overrides: ['launches[0].grid=[4,1,1]', 'launches[0].block=[64,1,1]', 'launches[0].args[4].s32=128'], ctas: 4 },
  // 512 words by 2 CTAs of 64 (4 grid-stride iterations each).
  'k-histogram-global.yaml': { overrides: ['launches[0].grid=[2,1,1]', 'launches[0].block=[64,1,1]', 'launches[0].args[2].u32=512'], ctas: 2 },
  // A 20 x 24 grid: 2 x 2 tiles per launch, both launches.
  'k-stencil2d-halo.yaml': {
    overrides: [0, 1].flatMap((l) => [`launches[${l}].grid=[2,2,1]`, `launches[${l}].args[2].s32=20`, `launches[${l}].args[3].s32=24`]),
    ctas: 8,
  },
  // One block (the first launch alone) of a 16 x 16 matrix.
  'k-lud-diagonal.yaml': {
    overrides: ['launches=[{ptx: kernels/lud-diagonal.ptx, entry: lud_diagonal, grid: [1,1,1], block: [16,1,1], args: [{buffer: m}, {s32: 16}, {s32: 0}]}]'],
    ctas: 1,
  },
};

const PRESETS = ['gtx480', 'gtx480-elf', 'm2090', 'k20x', 'onac32', 'maxwell-cke', 'gtx1080ti'];

describe.each(Object.keys(SCALED))('%s, scaled down, on the timing model of every preset', (file) => {
  const { overrides, ctas } = SCALED[file]!;
  const functional = runKernelScenarioFunctional(loadScenario(`scenarios/${file}`, overrides));

  it('passes its reference check functionally', () => {
    expect(functional.checks.map((c) => c.passed)).toEqual([true]);
    expect(functional.stats.value('functional.ctas')).toBe(ctas);
  });

  it.each(PRESETS)('%s', (preset) => {
    const r = runKernelScenarioTiming(loadScenario(`scenarios/${file}`, [...overrides, 'mode=timing', `gpu={preset: ${preset}}`]));
    expect(r.config.name).toBe(preset);
    expect(r.checks.map((c) => c.passed)).toEqual([true]);
    expect(r.passed).toBe(true);
    const s = r.engine.stats;
    expect(s.value('gpu_tot_ctas_done')).toBe(ctas);
    // The timing model issues exactly the instructions the functional model executes.
    expect(s.value('gpu_tot_warp_insts')).toBe(functional.stats.value('functional.warp_insts'));
    expect(s.value('gpu_sim_insn')).toBe(functional.stats.value('gpu_sim_insn'));
    expect(r.engine.pendingWork()).toEqual([]);
  });
});
