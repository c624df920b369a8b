/**
 * Host reference of `scenarios/kernels/surf-sobel.cu`: out(x, y) = |gx| + |gy| of the Sobel
 * operator on the w x h f32 image of surface `in`, neighbours outside the image read at the
 * nearest edge pixel (`suld .clamp`), written to surface `out`.
 *
 * The rounding follows the PTX nvcc emits (surf-sobel.ptx), with p(i, j) the pixel at (x + i, y + j):
 * gx = (fma(p(1,0), 2, p(1,-1)) + p(1,1)) - (fma(p(-1,0), 2, p(-1,-1)) + p(-1,1)),
 * gy = (fma(p(0,1), 2, p(-1,1)) + p(1,1)) - (fma(p(0,-1), 2, p(-1,-1)) + p(1,-1)),
 * each `+`/`-` rounded to binary32.
 */
import { fmaF32 } from './float.ts';
import { runLaunches } from './launch-reader.ts';
import type { KernelReference } from './types.ts';

/**
 * Arguments `(surface in, surface out, int w, int h)`; 2D launch, any block. Both surfaces must
 * be one f32 channel wide, at least w x h, over f32 buffers. Exact (0 ULP).
 *
 * Throws InputError for another format or a surface smaller than the image.
 */
export const surfSobel: KernelReference = (input) =>
  runLaunches('surf_sobel', input, (launch) => {
    launch.expectArgCount(4);
    const { gridX, gridY, blockX, blockY } = launch.dims2D();
    const src = launch.resource(0, 'surface');
    const dst = launch.resource(1, 'surface');
    const w = launch.s32(2);
    const h = launch.s32(3);
    for (const [k, r] of [[0, src], [1, dst]] as const) {
      if (r.desc.format !== 'f32' || r.desc.channels !== 1 || !(r.data instanceof Float32Array)) launch.fail('surfaces must be one f32 channel over f32 buffers', `args[${k}]`);
      if (r.desc.width < w || r.desc.height < h) launch.fail(`surface ${r.desc.width} x ${r.desc.height} is smaller than the ${w} x ${h} image`, `args[${k}]`);
    }
    if (src.desc.buffer === dst.desc.buffer) launch.fail('in and out must be different buffers', 'args[1]');
    const inData = src.data as Float32Array;
    const outData = dst.data as Float32Array;
    const cw = Math.max(0, Math.min(w, gridX * blockX));
    const ch = Math.max(0, Math.min(h, gridY * blockY));
    const s = src.desc;
    // suld .clamp: the element nearest to (x, y) inside the surface
    const p = (x: number, y: number): number => {
      const xi = Math.min(Math.max(x, 0), s.width - 1);
      const yi = Math.min(Math.max(y, 0), s.height - 1);
      return inData[(s.offset + yi * s.pitch) / 4 + xi]!;
    };
    const f = Math.fround;
    for (let y = 0; y < ch; y++) {
      for (let x = 0; x < cw; x++) {
        const gx = f(f(fmaF32(p(x + 1, y), 2, p(x + 1, y - 1)) + p(x + 1, y + 1)) - f(fmaF32(p(x - 1, y), 2, p(x - 1, y - 1)) + p(x - 1, y + 1)));
        const gy = f(f(fmaF32(p(x, y + 1), 2, p(x - 1, y + 1)) + p(x + 1, y + 1)) - f(fmaF32(p(x, y - 1), 2, p(x - 1, y - 1)) + p(x + 1, y - 1)));
        outData[(dst.desc.offset + y * dst.desc.pitch) / 4 + x] = f(Math.abs(gx) + Math.abs(gy));
      }
    }
  });
