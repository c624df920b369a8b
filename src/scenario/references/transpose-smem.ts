/**
 * Host reference of `scenarios/kernels/transpose-smem.cu`: `out[c * rows + r] = in[r * cols + c]`
 * for every cell (r, c) of the rows x cols input inside the launch's coverage
 * (r < 16 * gridDim.y, c < 16 * gridDim.x).
 */
import { runLaunches } from './launch-reader.ts';
import type { KernelReference } from './types.ts';

/** Tile edge (`TILE` in the kernel). */
export const TRANSPOSE_TILE = 16;

/** Arguments `(f32* in, f32* out, int rows, int cols)`; block (16, 16, 1), 2D grid. Exact. */
export const transposeSmem: KernelReference = (input) =>
  runLaunches('transpose_smem', input, (launch) => {
    launch.expectArgCount(4);
    const { gridX, gridY, blockX, blockY } = launch.dims2D();
    if (blockX !== TRANSPOSE_TILE || blockY !== TRANSPOSE_TILE) launch.fail(`block must be [16, 16, 1], got ${JSON.stringify(launch.launch.block)}`, 'block');
    const rows = launch.s32(2);
    const cols = launch.s32(3);
    if (launch.bufferName(0) === launch.bufferName(1)) launch.fail('in and out must be different buffers', 'args[1]');
    const coveredRows = Math.max(0, Math.min(rows, gridY * TRANSPOSE_TILE));
    const coveredCols = Math.max(0, Math.min(cols, gridX * TRANSPOSE_TILE));
    const src = launch.buffer(0, 'f32', coveredRows > 0 && coveredCols > 0 ? (coveredRows - 1) * cols + coveredCols : 0);
    const dst = launch.buffer(1, 'f32', coveredRows > 0 && coveredCols > 0 ? (coveredCols - 1) * rows + coveredRows : 0);
    for (let r = 0; r < coveredRows; r++) {
      for (let c = 0; c < coveredCols; c++) dst[c * rows + r] = src[r * cols + c]!;
    }
  });
