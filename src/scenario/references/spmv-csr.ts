/**
 * Host reference of `scenarios/kernels/spmv-csr.cu`: `y = A x` for a CSR matrix, one row per
 * thread. For every row r < min(rows, threads): `sum = 0`, then for j = rowPtr[r] ..
 * rowPtr[r + 1] - 1 in order `sum = fma(val[j], x[colIdx[j]], sum)` (the PTX's `fma.rn.f32`
 * chain, single rounding each), and `y[r] = sum`. Rows not covered by a thread keep their value.
 */
import { fmaF32 } from './float.ts';
import { runLaunches } from './launch-reader.ts';
import type { KernelReference } from './types.ts';

/**
 * Arguments `(s32* rowPtr, s32* colIdx, f32* val, f32* x, f32* y, int rows)`; 1D launch (any
 * CTA). Exact (0 ULP).
 *
 * Throws InputError when `y` is one of the inputs, or when a row's entries (`rowPtr`) fall
 * outside `colIdx`/`val` or a column index outside `x` (the kernel would fault).
 */
export const spmvCsr: KernelReference = (input) =>
  runLaunches('spmv_csr', input, (launch) => {
    launch.expectArgCount(6);
    const { threads } = launch.dims1D();
    const rows = launch.s32(5);
    const active = Math.max(0, Math.min(rows, threads));
    const rowPtr = launch.buffer(0, 's32', active > 0 ? active + 1 : 0);
    const colIdx = launch.buffer(1, 's32');
    const val = launch.buffer(2, 'f32');
    const x = launch.buffer(3, 'f32');
    const y = launch.buffer(4, 'f32', active);
    for (const i of [0, 1, 2, 3]) {
      if (launch.bufferName(i) === launch.bufferName(4)) launch.fail(`y must not be an input buffer (argument ${i})`, 'args[4]');
    }
    for (let r = 0; r < active; r++) {
      let sum = 0;
      const end = rowPtr[r + 1]!;
      for (let j = rowPtr[r]!; j < end; j++) {
        if (j < 0 || j >= colIdx.length || j >= val.length) launch.fail(`row ${r}: entry ${j} is outside colIdx/val`, 'args[0]');
        const col = colIdx[j]!;
        if (col < 0 || col >= x.length) launch.fail(`row ${r}: column ${col} is outside x (${x.length} elements)`, 'args[1]');
        sum = fmaF32(val[j]!, x[col]!, sum);
      }
      y[r] = sum;
    }
  });
