/**
 * Host reference of `scenarios/kernels/op-table.cu`: for every i < n,
 * `out[i] = op[ops[i] & 3](a[i], b[i])` with the four operations of the kernel's function-pointer
 * table, each rounded as its PTX computes it:
 * 0 `add.f32` (x + y), 1 `mul.f32` (x * y), 2 `fma.rn.f32` (x * y + 0.5, one rounding),
 * 3 `sub.f32` then `mul.f32` ((x - y) rounded, then squared and rounded).
 * `ops[i] & 3` is taken on the 32-bit two's-complement value, so -1 selects 3.
 */
import { fmaF32 } from './float.ts';
import { runLaunches } from './launch-reader.ts';
import type { KernelReference } from './types.ts';

/** The table of `op-table.cu`, in table order: binary32 results of two binary32 operands. */
export const OP_TABLE_OPERATIONS: readonly ((x: number, y: number) => number)[] = Object.freeze([
  (x: number, y: number) => Math.fround(x + y),
  (x: number, y: number) => Math.fround(x * y),
  (x: number, y: number) => fmaF32(x, y, 0.5),
  (x: number, y: number) => {
    const d = Math.fround(x - y);
    return Math.fround(d * d);
  },
]);

/**
 * Arguments `(s32* ops, f32* a, f32* b, f32* out, int n)`; 1D launch (any CTA, grid-stride).
 * Exact (0 ULP).
 *
 * Throws InputError when `out` is one of the inputs or a buffer holds fewer than n elements.
 */
export const opTable: KernelReference = (input) =>
  runLaunches('op_table', input, (launch) => {
    launch.expectArgCount(5);
    launch.dims1D();
    const n = Math.max(0, launch.s32(4));
    const ops = launch.buffer(0, 's32', n);
    const a = launch.buffer(1, 'f32', n);
    const b = launch.buffer(2, 'f32', n);
    const out = launch.buffer(3, 'f32', n);
    for (const i of [0, 1, 2]) {
      if (n > 0 && launch.bufferName(i) === launch.bufferName(3)) launch.fail(`out must not be an input buffer (argument ${i})`, 'args[3]');
    }
    for (let i = 0; i < n; i++) out[i] = OP_TABLE_OPERATIONS[ops[i]! & 3]!(a[i]!, b[i]!);
  });
