/**
 * Host reference of `scenarios/kernels/stencil-hotspot.cu`: one explicit step of the
 * hotspot-style thermal update per launch, on a rows x cols row-major grid; a neighbour outside
 * the grid is replaced by the cell itself. Only cells inside the launch's coverage
 * (row < gridDim.y * blockDim.y, col < gridDim.x * blockDim.x) are written.
 *
 * The operation sequence and rounding follow the PTX nvcc emits (stencil-hotspot.ptx):
 *   t2 = t + t;  d1 = (north + south) - t2;  acc = fma(d1, ry1, power)
 *   d2 = (west + east) - t2;  acc = fma(d2, rx1, acc)
 *   acc = fma(ambient - t, rz1, acc);  out = fma(acc, stepOverCap, t)
 * with every add/sub rounded to binary32 and every fma rounded once.
 */
import { fmaF32 } from './float.ts';
import { runLaunches } from './launch-reader.ts';
import type { KernelReference } from './types.ts';

/**
 * Arguments `(f32* power, f32* tempIn, f32* tempOut, int rows, int cols, f32 stepOverCap,
 * f32 rx1, f32 ry1, f32 rz1, f32 ambient)`; 2D launch (any block). Exact (0 ULP).
 */
export const stencilHotspot: KernelReference = (input) =>
  runLaunches('stencil_hotspot', input, (launch) => {
    launch.expectArgCount(10);
    const { gridX, gridY, blockX, blockY } = launch.dims2D();
    const rows = launch.s32(3);
    const cols = launch.s32(4);
    if (launch.bufferName(1) === launch.bufferName(2)) launch.fail('tempIn and tempOut must be different buffers', 'args[2]');
    const coveredRows = Math.max(0, Math.min(rows, gridY * blockY));
    const coveredCols = Math.max(0, Math.min(cols, gridX * blockX));
    // Any covered cell reads its row's neighbours, so all of the rows x cols grid must exist.
    const cells = coveredRows > 0 && coveredCols > 0 ? rows * cols : 0;
    const power = launch.buffer(0, 'f32', cells);
    const tin = launch.buffer(1, 'f32', cells);
    const tout = launch.buffer(2, 'f32', cells);
    const stepOverCap = launch.f32(5);
    const rx1 = launch.f32(6);
    const ry1 = launch.f32(7);
    const rz1 = launch.f32(8);
    const ambient = launch.f32(9);
    const f = Math.fround;
    for (let r = 0; r < coveredRows; r++) {
      for (let c = 0; c < coveredCols; c++) {
        const idx = r * cols + c;
        const t = tin[idx]!;
        const north = r > 0 ? tin[idx - cols]! : t;
        const south = r < rows - 1 ? tin[idx + cols]! : t;
        const west = c > 0 ? tin[idx - 1]! : t;
        const east = c < cols - 1 ? tin[idx + 1]! : t;
        const t2 = f(t + t);
        let acc = fmaF32(f(f(north + south) - t2), ry1, power[idx]!);
        acc = fmaF32(f(f(west + east) - t2), rx1, acc);
        acc = fmaF32(f(ambient - t), rz1, acc);
        tout[idx] = fmaF32(acc, stepOverCap, t);
      }
    }
  });
