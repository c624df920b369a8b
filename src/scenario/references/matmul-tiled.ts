/**
 * Host reference of `scenarios/kernels/matmul-tiled.cu`: `C = A * B` with row-major A (m x k),
 * B (k x n), C (m x n). Every element of C inside the launch's coverage (rows < 16 * gridDim.y,
 * columns < 16 * gridDim.x) is the binary32 dot product accumulated from 0.0f in increasing k,
 * one `fma.rn.f32` per term as nvcc emits it (see the PTX), including the zero terms the kernel
 * adds for the padding of the last tile (they never change the sum, but are kept for fidelity).
 */
import { fmaF32 } from './float.ts';
import { runLaunches } from './launch-reader.ts';
import type { KernelReference } from './types.ts';

/** Tile edge (`TILE` in the kernel). */
export const MATMUL_TILE = 16;

/** Arguments `(f32* A, f32* B, f32* C, int m, int n, int k)`; block (16, 16, 1), 2D grid. Exact (0 ULP). */
export const matmulTiled: KernelReference = (input) =>
  runLaunches('matmul_tiled', input, (launch) => {
    launch.expectArgCount(6);
    const { gridX, gridY, blockX, blockY } = launch.dims2D();
    if (blockX !== MATMUL_TILE || blockY !== MATMUL_TILE) launch.fail(`block must be [16, 16, 1], got ${JSON.stringify(launch.launch.block)}`, 'block');
    const m = launch.s32(3);
    const n = launch.s32(4);
    const k = launch.s32(5);
    const rows = Math.max(0, Math.min(m, gridY * MATMUL_TILE));
    const cols = Math.max(0, Math.min(n, gridX * MATMUL_TILE));
    const kk = Math.max(0, k);
    const A = launch.buffer(0, 'f32', rows > 0 ? rows * kk : 0);
    const B = launch.buffer(1, 'f32', cols > 0 && kk > 0 ? (kk - 1) * n + cols : 0);
    const C = launch.buffer(2, 'f32', rows > 0 && cols > 0 ? (rows - 1) * n + cols : 0);
    const tiles = k > 0 ? Math.ceil(k / MATMUL_TILE) : 0;
    for (let row = 0; row < rows; row++) {
      for (let col = 0; col < cols; col++) {
        let acc = 0;
        for (let j = 0; j < tiles * MATMUL_TILE; j++) {
          const a = j < k ? A[row * k + j]! : 0;
          const b = j < k ? B[j * n + col]! : 0;
          acc = fmaF32(a, b, acc);
        }
        C[row * n + col] = acc;
      }
    }
  });
