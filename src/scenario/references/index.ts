/**
 * The registry of host-side kernel references (DESIGN.md §5: "Results of a kernel are checked
 * against a host-side reference"), keyed by the name a scenario's `checks[].reference` uses,
 * which is the kernel's entry name in its PTX. Also re-exports the reference types, buffer
 * generators and the buffer comparison.
 */
import { addXLoops } from './add-x-loops.ts';
import { backpropLayer } from './backprop-layer.ts';
import { bfsLevel } from './bfs-level.ts';
import { dpoly } from './dpoly.ts';
import { histogramGlobal } from './histogram-global.ts';
import { histogramSmem } from './histogram-smem.ts';
import { kmeansAssign } from './kmeans-assign.ts';
import { l1iBigcode } from './l1i-bigcode.ts';
import { ludDiagonal } from './lud-diagonal.ts';
import { matmulTiled } from './matmul-tiled.ts';
import { nwTile } from './nw-tile.ts';
import { opTable } from './op-table.ts';
import { phaseLong4 } from './phase-long4.ts';
import { phaseMsl } from './phase-msl.ts';
import { pointerChase } from './pointer-chase.ts';
import { reduceShfl } from './reduce-shfl.ts';
import { reduceSmem } from './reduce-smem.ts';
import { saxpy } from './saxpy.ts';
import { spmvCsr } from './spmv-csr.ts';
import { stencil2dHalo } from './stencil2d-halo.ts';
import { stencilHotspot } from './stencil-hotspot.ts';
import { surfSobel } from './surf-sobel.ts';
import { texResize } from './tex-resize.ts';
import { streamXWords } from './stream-x-words.ts';
import { transposeSmem } from './transpose-smem.ts';
import type { KernelReference } from './types.ts';
import { vecadd } from './vecadd.ts';

/** Every kernel reference, by the kernel's PTX entry name (scenarios/kernels/*.cu). */
export const kernelReferences: Record<string, KernelReference> = {
  vecadd,
  saxpy,
  add_x_loops: addXLoops,
  stream_x_words: streamXWords,
  reduce_smem: reduceSmem,
  reduce_shfl: reduceShfl,
  matmul_tiled: matmulTiled,
  histogram_smem: histogramSmem,
  stencil_hotspot: stencilHotspot,
  transpose_smem: transposeSmem,
  bfs_level: bfsLevel,
  dpoly,
  pointer_chase: pointerChase,
  nw_tile: nwTile,
  spmv_csr: spmvCsr,
  kmeans_assign: kmeansAssign,
  backprop_layer: backpropLayer,
  histogram_global: histogramGlobal,
  stencil2d_halo: stencil2dHalo,
  lud_diagonal: ludDiagonal,
  tex_resize: texResize,
  surf_sobel: surfSobel,
  op_table: opTable,
  phase_msl: phaseMsl,
  phase_long4: phaseLong4,
  l1i_bigcode: l1iBigcode,
};

export type {
  BufferArrayMap,
  BufferType,
  KernelReference,
  ReferenceArg,
  ReferenceInput,
  ReferenceLaunch,
  ReferenceTexture,
  ScalarArgType,
  TypedArray,
} from './types.ts';
export { BUFFER_TYPES } from './types.ts';
export { ELEMENT_BYTES, INT_RANGES, bufferTypeOf, cloneBuffer, createBuffer, isBigIntType, isFloatType } from './buffers.ts';
export { compareBuffers } from './compare.ts';
export type { BufferMismatch, CompareReport } from './compare.ts';
export { bufferGenerators, generateBuffer } from './generators.ts';
export type { BufferGenerator, BufferSpec, GeneratorContext } from './generators.ts';
export { fmaF32, fmaF64, ulpDistanceF32, ulpDistanceF64 } from './float.ts';
