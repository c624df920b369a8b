/**
 * Host reference of `scenarios/kernels/stencil2d-halo.cu`: one Jacobi step of a 5-point
 * stencil per launch on a rows x cols row-major grid, neighbours outside the grid read as 0.
 * Only cells covered by the launch (row < gridDim.y * 16, col < gridDim.x * 16) are written.
 *
 * The rounding follows the PTX nvcc emits (stencil2d-halo.ptx): `ns = north + south`,
 * `we = west + east`, `m = (ns + we) * c1` (each rounded to binary32), `out = fma(t, c0, m)`.
 * Where the tile's halo comes from (shared memory) does not change the values.
 */
import { fmaF32 } from './float.ts';
import { runLaunches } from './launch-reader.ts';
import type { KernelReference } from './types.ts';

/** CTA edge in threads (`TILE` in the kernel); the kernel indexes by it, so the block must be 16 x 16. */
export const STENCIL2D_TILE = 16;

/**
 * Arguments `(f32* in, f32* out, int rows, int cols, f32 c0, f32 c1)`; 2D launch with block
 * (16, 16, 1). Exact (0 ULP).
 *
 * Throws InputError for another block shape, `in` and `out` the same buffer, or buffers
 * smaller than rows x cols.
 */
export const stencil2dHalo: KernelReference = (input) =>
  runLaunches('stencil2d_halo', input, (launch) => {
    launch.expectArgCount(6);
    const { gridX, gridY, blockX, blockY } = launch.dims2D();
    if (blockX !== STENCIL2D_TILE || blockY !== STENCIL2D_TILE) launch.fail(`needs a 16 x 16 block, got ${blockX} x ${blockY}`, 'block');
    const rows = launch.s32(2);
    const cols = launch.s32(3);
    const c0 = launch.f32(4);
    const c1 = launch.f32(5);
    if (launch.bufferName(0) === launch.bufferName(1)) launch.fail('in and out must be different buffers', 'args[1]');
    const coveredRows = Math.max(0, Math.min(rows, gridY * STENCIL2D_TILE));
    const coveredCols = Math.max(0, Math.min(cols, gridX * STENCIL2D_TILE));
    const cells = coveredRows > 0 && coveredCols > 0 ? rows * cols : 0;
    const src = launch.buffer(0, 'f32', cells);
    const dst = launch.buffer(1, 'f32', cells);
    const at = (r: number, c: number): number => (r >= 0 && r < rows && c >= 0 && c < cols ? src[r * cols + c]! : 0);
    const f = Math.fround;
    for (let r = 0; r < coveredRows; r++) {
      for (let c = 0; c < coveredCols; c++) {
        const ns = f(at(r - 1, c) + at(r + 1, c));
        const we = f(at(r, c - 1) + at(r, c + 1));
        dst[r * cols + c] = fmaF32(at(r, c), c0, f(f(ns + we) * c1));
      }
    }
  });
