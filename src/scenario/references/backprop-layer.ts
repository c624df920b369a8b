/**
 * Host reference of `scenarios/kernels/backprop-layer.cu`: the forward step of one fully
 * connected layer, one CTA per output unit, in the kernel's exact order of operations.
 *
 * CTA j: thread t sums `sum = fma(weights[j * in + i], input[i], sum)` over i = t, t + B, ...
 * < in (B = blockDim.x, from 0, the PTX's `fma.rn.f32`); slots are then added by the tree
 * s = B/2, B/4, ..., 1 (slot t += slot t + s); and with `net = slot0 + bias[j]`:
 *   a = net * -log2(e)        (`mul.f32` by the binary32 constant 0xBFB8AA3B: `__expf(-net)`)
 *   e = ex2.approx.f32(a)     (2^a rounded to binary32)
 *   output[j] = rcp.approx.ftz.f32(e + 1)   (1 / x rounded to binary32, subnormals flushed)
 *
 * The two approximate instructions are computed as the functional model does
 * (src/functional/ops/float.ts: 2^a and 1/x correctly rounded to binary32), so the scenario
 * checks with 0 ULP. Real hardware is allowed more (PTX ISA §9.7.3: `ex2.approx.f32` within
 * 2 ULP, `rcp.approx.f32` within 1 ULP). A relative error r in e becomes at most
 * r * e / (1 + e) < r in 1 + e and the same in 1 / (1 + e), so a GPU's output differs from this
 * reference by at most about 4 ULP (2 from ex2, 1 from re-rounding the add, 1 from rcp).
 */
import { f32FromBits, fmaF32 } from './float.ts';
import { runLaunches } from './launch-reader.ts';
import type { KernelReference } from './types.ts';

/** Shared slots of the reduction (`MAX_THREADS` in the kernel): the CTA size limit. */
export const BACKPROP_MAX_THREADS = 256;

/** -log2(e) as the binary32 immediate nvcc emits for `__expf(-x)` (0xBFB8AA3B). */
export const NEG_LOG2E_F32 = f32FromBits(0xbfb8aa3b);

const F32_MIN_NORMAL = 2 ** -126;

/** Flushes a binary32 subnormal to a zero of the same sign (`.ftz`). */
function flushF32(x: number): number {
  return x !== 0 && Math.abs(x) < F32_MIN_NORMAL ? (x < 0 ? -0 : 0) : x;
}

/** `ex2.approx.f32` as the functional model computes it: 2^a rounded to binary32. */
export function ex2ApproxF32(a: number): number {
  return Math.fround(2 ** a);
}

/** `rcp.approx.ftz.f32` as the functional model computes it: 1 / x rounded, subnormals flushed. */
export function rcpApproxFtzF32(x: number): number {
  return flushF32(Math.fround(1 / flushF32(x)));
}

/** The kernel's sigmoid of a binary32 `net`: `rcp.approx.ftz(ex2.approx(net * -log2 e) + 1)`. */
export function backpropSigmoid(net: number): number {
  return rcpApproxFtzF32(Math.fround(ex2ApproxF32(Math.fround(net * NEG_LOG2E_F32)) + 1));
}

/**
 * Arguments `(f32* input, f32* weights, f32* bias, f32* output, int in)`; 1D launch, grid
 * (outputs, 1, 1), block a power of two <= 256. Exact (0 ULP against the functional model).
 *
 * Throws InputError for another block size (the tree would drop slots or overrun the shared
 * array), `output` aliasing an input, or buffers too small (weights needs gridDim.x * in).
 */
export const backpropLayer: KernelReference = (input) =>
  runLaunches('backprop_layer', input, (launch) => {
    launch.expectArgCount(5);
    const { gridX, blockX } = launch.dims1D();
    if (blockX > BACKPROP_MAX_THREADS || (blockX & (blockX - 1)) !== 0) {
      launch.fail(`needs a power-of-two block of at most ${BACKPROP_MAX_THREADS} threads, got ${blockX}`, 'block');
    }
    const inCount = Math.max(0, launch.s32(4));
    const units = launch.buffer(0, 'f32', inCount);
    const weights = launch.buffer(1, 'f32', gridX * inCount);
    const bias = launch.buffer(2, 'f32', gridX);
    const output = launch.buffer(3, 'f32', gridX);
    for (const i of [0, 1, 2]) {
      if (launch.bufferName(i) === launch.bufferName(3)) launch.fail(`output must not be an input buffer (argument ${i})`, 'args[3]');
    }
    const slots = new Float64Array(blockX);
    for (let j = 0; j < gridX; j++) {
      for (let t = 0; t < blockX; t++) {
        let sum = 0;
        for (let i = t; i < inCount; i += blockX) sum = fmaF32(weights[j * inCount + i]!, units[i]!, sum);
        slots[t] = sum;
      }
      for (let s = blockX >>> 1; s > 0; s >>>= 1) {
        for (let t = 0; t < s; t++) slots[t] = Math.fround(slots[t]! + slots[t + s]!);
      }
      output[j] = backpropSigmoid(Math.fround(slots[0]! + bias[j]!));
    }
  });
