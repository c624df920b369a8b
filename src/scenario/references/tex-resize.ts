/**
 * Host reference of `scenarios/kernels/tex-resize.cu`: output pixel (x, y) of an outW x outH
 * image is `tex2D<float>(src, u, v)` with u = (x + 0.5) * scaleX, v = (y + 0.5) * scaleY (each
 * step rounded to binary32, as the PTX's `add.f32`, `mul.f32`).
 *
 * The texture lookup is written here from the CUDA C++ Programming Guide's appendix "Texture
 * Fetching", independently of the functional model: normalized coordinates are multiplied by
 * the size (binary32); nearest-point sampling reads texel floor(x); linear filtering reads
 * texels i = floor(x - 0.5) and i + 1 per dimension with weight frac(x - 0.5) rounded to 8
 * fraction bits (9-bit fixed point) and blends (1-a)(1-b)T[i,j] + a(1-b)T[i+1,j] +
 * (1-a)bT[i,j+1] + abT[i+1,j+1] in binary64, rounded once to binary32. Address modes: clamp to
 * the edge, border (texels outside read 0), wrap (modulo) and mirror (reflection) of the texel
 * index.
 */
import { runLaunches } from './launch-reader.ts';
import type { KernelReference, ReferenceTexture } from './types.ts';

/** Texel index `i` of a dimension of `n` texels under address mode `mode`, or -1 (border: reads 0). */
function address(i: number, n: number, mode: ReferenceTexture['addressMode'][number]): number {
  if (i >= 0 && i < n) return i;
  if (mode === 'border') return -1;
  if (mode === 'wrap') return ((i % n) + n) % n;
  if (mode === 'mirror') {
    const r = ((i % (2 * n)) + 2 * n) % (2 * n);
    return r < n ? r : 2 * n - 1 - r;
  }
  return Math.min(Math.max(i, 0), n - 1);
}

/**
 * `tex2D<float>` of a one-channel f32 texture `t` whose texels are `data` (float elements, `t.offset`
 * and `t.pitch` in bytes) at (u, v).
 */
export function texture2DFloat(t: ReferenceTexture, data: Float32Array, u: number, v: number): number {
  const f = Math.fround;
  const texel = (i: number, j: number): number => {
    const ii = address(i, t.width, t.addressMode[0]);
    const jj = address(j, t.height, t.addressMode[1]);
    if (ii < 0 || jj < 0) return 0;
    return data[(t.offset + jj * t.pitch) / 4 + ii]!;
  };
  const x = t.normalizedCoords ? f(u * t.width) : u;
  const y = t.normalizedCoords ? f(v * t.height) : v;
  if (t.filterMode === 'point') return texel(Math.floor(x), Math.floor(y));
  const xb = f(x - 0.5);
  const yb = f(y - 0.5);
  const i = Math.floor(xb);
  const j = Math.floor(yb);
  const a = Math.round((xb - i) * 256) / 256;
  const b = Math.round((yb - j) * 256) / 256;
  return f((1 - a) * (1 - b) * texel(i, j) + a * (1 - b) * texel(i + 1, j) + (1 - a) * b * texel(i, j + 1) + a * b * texel(i + 1, j + 1));
}

/**
 * Arguments `(texture src, f32* dst, int outW, int outH, f32 scaleX, f32 scaleY)`; 2D launch,
 * any block. The texture must be a one-channel f32 texture read in element mode. Exact (0 ULP).
 *
 * Throws InputError for another texture format, or a dst buffer smaller than outW x outH.
 */
export const texResize: KernelReference = (input) =>
  runLaunches('tex_resize', input, (launch) => {
    launch.expectArgCount(6);
    const { gridX, gridY, blockX, blockY } = launch.dims2D();
    const { desc, data } = launch.resource(0, 'texture');
    if (desc.format !== 'f32' || desc.channels !== 1 || !(data instanceof Float32Array)) launch.fail('the texture must be one f32 channel over an f32 buffer', 'args[0]');
    const outW = launch.s32(2);
    const outH = launch.s32(3);
    const sx = launch.f32(4);
    const sy = launch.f32(5);
    const w = Math.max(0, Math.min(outW, gridX * blockX));
    const h = Math.max(0, Math.min(outH, gridY * blockY));
    const dst = launch.buffer(1, 'f32', w > 0 && h > 0 ? (h - 1) * outW + w : 0);
    const f = Math.fround;
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) dst[y * outW + x] = texture2DFloat(desc, data as Float32Array, f(f(x + 0.5) * sx), f(f(y + 0.5) * sy));
    }
  });
