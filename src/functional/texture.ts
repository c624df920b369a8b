/**
 * Textures and surfaces of the functional model (issue 10 item 4): the descriptor a launch binds
 * (a buffer address and shape, the element format, the sampler state), the device-wide table of
 * texture and surface objects (`cudaTextureObject_t` / `cudaSurfaceObject_t` handles), and the
 * texel arithmetic of `tex`, `tld4`, `suld` and `sust`.
 *
 * ## Texture fetch (CUDA C++ Programming Guide, appendix "Texture Fetching"; PTX ISA §9.7.10.3)
 * For each dimension of size N with coordinate c:
 * - integer coordinates (`tex...s32`): the texel index is c (no filtering);
 * - float coordinates: x = c, or x = Math.fround(c * N) with normalized coordinates;
 *   point (nearest) filtering reads texel floor(x); linear filtering reads texels i and i + 1 with
 *   i = floor(xB), xB = x - 0.5, weight α = frac(xB) held in 9-bit fixed point with 8 fraction
 *   bits (α = round(256 frac) / 256, so 1.0 is representable), and returns
 *   (1 - α) T[i] + α T[i + 1] (2D: (1-α)(1-β)T[i,j] + α(1-β)T[i+1,j] + (1-α)βT[i,j+1] + αβT[i+1,j+1],
 *   3D likewise over 8 texels), summed in binary64 in that order and rounded once to binary32.
 * - Addressing modes act on each texel index: `clamp` to [0, N-1]; `border` reads texels outside
 *   [0, N) as all-zero (CUDA's default border colour); `wrap` takes the index modulo N and
 *   `mirror` reflects it (period 2N). CUDA allows wrap and mirror only with normalized
 *   coordinates; the binding is refused otherwise.
 * - Element values: float channels (f32, f16) as they are; integer channels with read mode
 *   `normalizedFloat` as v / 255, v / 65535 (unsigned) or max(v / 127, -1), max(v / 32767, -1)
 *   (signed), rounded to binary32; with read mode `elementType` as integers (point filtering only:
 *   CUDA refuses linear filtering of integer results).
 * - A format with fewer than 4 channels returns 0 for the missing ones and 1 for the missing
 *   alpha (w) channel (1.0 for float results), as CUDA does.
 * - `tld4.comp` gathers channel `comp` of the 4 texels of the linear footprint, in the order of
 *   `tex2Dgather`: (i, j+1), (i+1, j+1), (i+1, j), (i, j).
 * - The layer of `a1d`/`a2d` geometries is the first coordinate, clamped to [0, layers - 1].
 *
 * ## Surface access (PTX ISA §9.7.11.1-2 `suld.b`, `sust.b`)
 * The x coordinate is a byte offset (not scaled), y and z rows and slices; the access size is the
 * instruction's (element size x vector width). Bounds: 0 <= x <= width x elementBytes - size,
 * 0 <= y < height, 0 <= z < depth, 0 <= layer < layers. Out of bounds: `.trap` ends the kernel
 * with a fault report, `.clamp` accesses the nearest location inside the surface, `.zero` loads
 * zero (a store is dropped). A misaligned access (x not a multiple of its size) is a memory fault.
 *
 * Source: PTX ISA 9.0 §5.3 (texture, sampler and surface types), §9.7.10-11; CUDA C++
 * Programming Guide, "Texture Fetching" and "Texture and Surface Memory".
 */

import { InputError } from '../errors.ts';
import { TexQuery, type SamplerInit } from '../isa/ir.ts';
import { bitsToF16 } from './ops/fp-bits.ts';
import type { GlobalMemory } from './memory.ts';

/** Channel type of a texture or surface element (`f16` is IEEE binary16). */
export type ChannelType = 'u8' | 's8' | 'u16' | 's16' | 'u32' | 's32' | 'f16' | 'f32';
/** Addressing mode of one dimension (CUDA `cudaAddressMode*`). */
export type AddressMode = 'wrap' | 'clamp' | 'mirror' | 'border';
/** Filtering (CUDA `cudaFilterModePoint` / `cudaFilterModeLinear`). */
export type FilterMode = 'point' | 'linear';
/** Read mode (CUDA `cudaReadModeElementType` / `cudaReadModeNormalizedFloat`). */
export type ReadMode = 'elementType' | 'normalizedFloat';

/** Bytes of each channel type. */
export const CHANNEL_BYTES: Readonly<Record<ChannelType, number>> = { u8: 1, s8: 1, u16: 2, s16: 2, u32: 4, s32: 4, f16: 2, f32: 4 };

/**
 * What a launch binds: a texture or surface over device memory. Sizes are in elements, pitches in
 * bytes. `height`/`depth` are 1 for the dimensions a 1D/2D resource lacks; `layers` is 0 unless
 * the resource is layered (each layer `slicePitch` bytes after the previous).
 */
export interface TextureDesc {
  /** `texture` (read by `tex`/`tld4`) or `surface` (read and written by `suld`/`sust`). */
  readonly kind: 'texture' | 'surface';
  /** Device byte address of element (0, 0, 0) of layer 0. */
  readonly address: number;
  readonly width: number;
  readonly height: number;
  readonly depth: number;
  /** Layers of a layered (array) resource; 0 = not layered. */
  readonly layers: number;
  /** Bytes from one row to the next (>= width x element bytes). */
  readonly pitch: number;
  /** Bytes from one slice (3D) or layer to the next (>= pitch x height). */
  readonly slicePitch: number;
  readonly format: ChannelType;
  readonly channels: 1 | 2 | 4;
  readonly readMode: ReadMode;
  /** Per dimension x, y, z. */
  readonly addressMode: readonly [AddressMode, AddressMode, AddressMode];
  readonly filterMode: FilterMode;
  readonly normalizedCoords: boolean;
}

/**
 * Why a descriptor cannot be bound (CUDA's rules: `cudaCreateTextureObject` refuses linear
 * filtering of integer results and wrap/mirror without normalized coordinates), or undefined.
 * @param memory when given, the bytes the descriptor spans must lie inside one of its allocations
 */
export function textureProblem(d: TextureDesc, memory?: GlobalMemory): string | undefined {
  const eb = CHANNEL_BYTES[d.format] * d.channels;
  for (const [k, v] of [['width', d.width], ['height', d.height], ['depth', d.depth]] as const) {
    if (!Number.isInteger(v) || v < 1 || v > 65536) return `${k} must be an integer in 1..65536, got ${v}`;
  }
  if (!Number.isInteger(d.layers) || d.layers < 0 || d.layers > 2048) return `layers must be an integer in 0..2048, got ${d.layers}`;
  if (d.layers > 0 && d.depth > 1) return 'a layered resource has depth 1';
  if (!Number.isInteger(d.pitch) || d.pitch < d.width * eb) return `pitch ${d.pitch} is less than width x element bytes (${d.width * eb})`;
  if (d.pitch % eb !== 0) return `pitch ${d.pitch} is not a multiple of the element size (${eb} bytes)`;
  if (!Number.isInteger(d.slicePitch) || d.slicePitch < d.pitch * d.height || d.slicePitch % eb !== 0) return `slicePitch ${d.slicePitch} must be a multiple of ${eb} and at least pitch x height (${d.pitch * d.height})`;
  if (!Number.isSafeInteger(d.address) || d.address % eb !== 0) return `address must be aligned to the element size (${eb} bytes)`;
  if (d.kind === 'texture') {
    const intResult = d.readMode === 'elementType' && d.format !== 'f32' && d.format !== 'f16';
    if (d.filterMode === 'linear' && intResult) return `linear filtering needs float results: format ${d.format} with readMode elementType returns integers (use readMode normalizedFloat)`;
    if (d.readMode === 'normalizedFloat' && (d.format === 'f32' || d.format === 'f16' || d.format === 'u32' || d.format === 's32')) return `readMode normalizedFloat needs an 8- or 16-bit integer format, not ${d.format}`;
    if (!d.normalizedCoords && d.addressMode.some((m) => m === 'wrap' || m === 'mirror')) return 'addressMode wrap and mirror need normalizedCoords: true (CUDA)';
  }
  if (memory !== undefined) {
    const bytes = footprintBytes(d);
    if (memory.findAllocation(d.address, bytes) === undefined) return `it spans ${bytes} bytes from 0x${d.address.toString(16)}, more than its buffer holds`;
  }
  return undefined;
}

/** Bytes from the first to one past the last element of a descriptor. */
export function footprintBytes(d: TextureDesc): number {
  const planes = Math.max(d.depth, d.layers, 1);
  return (planes - 1) * d.slicePitch + (d.height - 1) * d.pitch + d.width * CHANNEL_BYTES[d.format] * d.channels;
}

const ADDR_CODE: Readonly<Record<AddressMode, number>> = { wrap: 0, mirror: 1, clamp: 2, border: 3 };
const WRAP = 0;
const MIRROR = 1;
const CLAMP = 2;
const BORDER = 3;
/** PTX's `txq.addr_mode_N` enumeration (wrap, mirror, clamp_ogl, clamp_to_edge, clamp_to_border) of each address-mode code. */
const PTX_ADDR_ENUM = [0, 1, 3, 4];

/** A descriptor checked and prepared for fetches (numeric codes, derived sizes). */
export class BoundTexture {
  readonly desc: TextureDesc;
  readonly address: number;
  readonly width: number;
  readonly height: number;
  readonly depth: number;
  readonly layers: number;
  readonly pitch: number;
  readonly slicePitch: number;
  readonly channels: number;
  readonly channelBytes: number;
  /** Bytes per element (texel). */
  readonly elemBytes: number;
  /** Channel type code: 0 u8, 1 s8, 2 u16, 3 s16, 4 u32, 5 s32, 6 f16, 7 f32. */
  readonly chan: number;
  /** Results are floats (float channels or normalized reads); else integers. */
  readonly floatResult: boolean;
  readonly normalizedRead: boolean;
  /** Address-mode codes per dimension. */
  readonly addr: Int8Array;
  readonly linear: boolean;
  readonly normalizedCoords: boolean;

  /** @throws InputError naming the problem (see {@link textureProblem}) */
  constructor(desc: TextureDesc, memory?: GlobalMemory) {
    const problem = textureProblem(desc, memory);
    if (problem !== undefined) throw new InputError({ file: `<${desc.kind}>` }, problem, desc.kind);
    this.desc = desc;
    this.address = desc.address;
    this.width = desc.width;
    this.height = desc.height;
    this.depth = desc.depth;
    this.layers = desc.layers;
    this.pitch = desc.pitch;
    this.slicePitch = desc.slicePitch;
    this.channels = desc.channels;
    this.channelBytes = CHANNEL_BYTES[desc.format];
    this.elemBytes = this.channelBytes * desc.channels;
    this.chan = ['u8', 's8', 'u16', 's16', 'u32', 's32', 'f16', 'f32'].indexOf(desc.format);
    this.normalizedRead = desc.readMode === 'normalizedFloat';
    this.floatResult = this.normalizedRead || desc.format === 'f32' || desc.format === 'f16';
    this.addr = Int8Array.from(desc.addressMode.map((m) => ADDR_CODE[m]));
    this.linear = desc.filterMode === 'linear';
    this.normalizedCoords = desc.normalizedCoords;
  }

  /** Size of dimension `d` (0 x, 1 y, 2 z), elements. */
  size(d: number): number {
    return d === 0 ? this.width : d === 1 ? this.height : this.depth;
  }

  /** Byte address of element (i, j, k) of `layer` (indices in range). */
  elementAddress(i: number, j: number, k: number, layer: number): number {
    return this.address + (k + layer) * this.slicePitch + j * this.pitch + i * this.elemBytes;
  }

  /** `txq`/`suq` value of an attribute ({@link TexQuery}; PTX enumerations for the sampler ones). */
  query(q: number): number {
    switch (q) {
      case TexQuery.Width: return this.width;
      case TexQuery.Height: return this.height;
      case TexQuery.Depth: return this.depth;
      case TexQuery.ArraySize: return this.layers;
      case TexQuery.NumMipmapLevels: return 1;
      case TexQuery.NumSamples: return 0;
      case TexQuery.NormalizedCoords: return this.normalizedCoords ? 1 : 0;
      case TexQuery.FilterMode: return this.linear ? 1 : 0;
      case TexQuery.AddrMode0: return PTX_ADDR_ENUM[this.addr[0]!]!;
      case TexQuery.AddrMode1: return PTX_ADDR_ENUM[this.addr[1]!]!;
      case TexQuery.AddrMode2: return PTX_ADDR_ENUM[this.addr[2]!]!;
      default: return 0;
    }
  }
}

/**
 * The device-wide table of texture and surface objects: a handle (a `.u64` kernel argument, or
 * the value of a bound `.texref`/`.surfref`) is an index into it, from 1 (0 is never a valid
 * object, as `cudaTextureObject_t` 0).
 */
export class TextureTable {
  private readonly entries: (BoundTexture | undefined)[] = [undefined];

  /**
   * Binds a descriptor and returns its handle.
   * @throws InputError when the descriptor is not valid or does not fit its memory
   */
  add(desc: TextureDesc, memory?: GlobalMemory): number {
    this.entries.push(new BoundTexture(desc, memory));
    return this.entries.length - 1;
  }

  /** The object of a handle, or undefined for an invalid one (0, NaN, unknown). */
  get(handle: number): BoundTexture | undefined {
    return handle >= 1 && handle < this.entries.length ? this.entries[handle] : undefined;
  }

  /** Number of objects bound. */
  get size(): number {
    return this.entries.length - 1;
  }
}

/** An empty table (kernels launched without textures). */
export const NO_TEXTURES: TextureTable = new TextureTable();

/**
 * A texture fetch or surface access the program got wrong at run time (an invalid handle, a
 * `.trap` surface access out of bounds): the warp turns it into a `trap` fault report naming the
 * kernel, thread and lane.
 */
export class TextureFault extends Error {
  constructor(
    readonly lane: number,
    readonly reason: string,
  ) {
    super(reason);
    this.name = 'TextureFault';
  }
}

/** Sampler state used by a fetch: the texture's own, or an explicit `.samplerref`'s over it. */
export interface SamplerState {
  readonly addr: Int8Array;
  readonly linear: boolean;
  readonly normalizedCoords: boolean;
}

const PTX_ADDR_BY_NAME: Readonly<Record<string, number>> = { wrap: WRAP, mirror: MIRROR, clamp_ogl: CLAMP, clamp_to_edge: CLAMP, clamp_to_border: BORDER };

/**
 * The sampler state of `init` (a `.samplerref` or `.texref` initialiser) over `base`: fields the
 * initialiser sets replace the texture's.
 */
export function samplerOver(base: SamplerState, init: SamplerInit | undefined): SamplerState {
  if (init === undefined) return base;
  const addr = Int8Array.from(base.addr);
  for (let d = 0; d < 3; d++) {
    const m = init.addrMode[d];
    if (m !== undefined) addr[d] = PTX_ADDR_BY_NAME[m]!;
  }
  return { addr, linear: init.filterMode !== undefined ? init.filterMode === 'linear' : base.linear, normalizedCoords: init.normalizedCoords ?? base.normalizedCoords };
}

/** Texel index `i` of a dimension of size `n` under address mode `m`; -1 for a border texel. */
export function applyAddressMode(i: number, n: number, m: number): number {
  if (i >= 0 && i < n) return i;
  switch (m) {
    case WRAP: {
      const r = i % n;
      return r < 0 ? r + n : r;
    }
    case MIRROR: {
      let r = i % (2 * n);
      if (r < 0) r += 2 * n;
      return r < n ? r : 2 * n - 1 - r;
    }
    case BORDER:
      return -1;
    default:
      return i < 0 ? 0 : n - 1;
  }
}

/** The 9-bit fixed-point (8 fraction bits) linear-filter weight of fraction `f` in [0, 1). */
export function filterWeight(f: number): number {
  return Math.round(f * 256) / 256;
}

/** Reusable scratch of a fetch (no allocation per lane). */
export class FetchScratch {
  /** Texel indices per dimension: [i0, i1] for x, y, z. */
  readonly idx = new Int32Array(6);
  /** Weights of the second texel per dimension. */
  readonly w = new Float64Array(3);
  /** One texel's four channel values. */
  readonly texel = new Float64Array(4);
  /** The result. */
  readonly out = new Float64Array(4);
}

/**
 * Reads element (i, j, k) of `layer` (i, j, k after address modes; -1 = border) into `s.texel`
 * (missing channels 0, missing alpha 1; border all 0) and appends its address to `texels` at
 * `n`. Returns the new texel count.
 * @throws MemoryAccessFault when the element lies outside its buffer
 */
function readTexel(t: BoundTexture, mem: GlobalMemory, i: number, j: number, k: number, layer: number, s: FetchScratch, texels: Float64Array, n: number): number {
  const v = s.texel;
  if (i < 0 || j < 0 || k < 0) {
    v[0] = 0;
    v[1] = 0;
    v[2] = 0;
    v[3] = 0;
    return n;
  }
  const a = t.elementAddress(i, j, k, layer);
  if (n < texels.length) texels[n] = a;
  const cb = t.channelBytes;
  const page = mem.page(a, t.elemBytes);
  const base = a % 65536;
  for (let c = 0; c < 4; c++) {
    if (c >= t.channels) {
      v[c] = c === 3 ? 1 : 0;
      continue;
    }
    const o = base + c * cb;
    let x: number;
    switch (t.chan) {
      case 0: x = page.u8[o]!; if (t.normalizedRead) x = Math.fround(x / 255); break;
      case 1: x = page.i8[o]!; if (t.normalizedRead) x = Math.fround(Math.max(x / 127, -1)); break;
      case 2: x = page.u16[o >> 1]!; if (t.normalizedRead) x = Math.fround(x / 65535); break;
      case 3: x = page.i16[o >> 1]!; if (t.normalizedRead) x = Math.fround(Math.max(x / 32767, -1)); break;
      case 4: x = page.u32[o >> 2]!; break;
      case 5: x = page.i32[o >> 2]!; break;
      case 6: x = bitsToF16(page.u16[o >> 1]!); break;
      default: x = page.f32[o >> 2]!;
    }
    v[c] = x;
  }
  return n + 1;
}

/**
 * Texel indices and weights of one dimension for coordinate `c` (see the module comment).
 * Writes `s.idx[2d]`, `s.idx[2d+1]` and `s.w[d]`.
 */
function dimension(t: BoundTexture, smp: SamplerState, d: number, c: number, intCoords: boolean, gather: boolean, s: FetchScratch): void {
  const n = t.size(d);
  const m = smp.addr[d]!;
  if (intCoords) {
    s.idx[2 * d] = applyAddressMode(c | 0, n, m);
    s.idx[2 * d + 1] = -2;
    s.w[d] = 0;
    return;
  }
  const x = smp.normalizedCoords ? Math.fround(c * n) : c;
  if (!(smp.linear || gather)) {
    // NaN reads texel 0 (a defined choice)
    const i = x === x ? Math.floor(x) : 0;
    s.idx[2 * d] = applyAddressMode(Math.max(-2147483648, Math.min(2147483647, i)), n, m);
    s.idx[2 * d + 1] = -2;
    s.w[d] = 0;
    return;
  }
  const xb = Math.fround(x - 0.5);
  const f = xb === xb ? Math.floor(xb) : 0;
  const i0 = Math.max(-2147483648, Math.min(2147483646, f));
  s.idx[2 * d] = applyAddressMode(i0, n, m);
  s.idx[2 * d + 1] = applyAddressMode(i0 + 1, n, m);
  s.w[d] = xb === xb ? filterWeight(xb - f) : 0;
}

/**
 * One lane's `tex` fetch: `dims` coordinates (x, y, z), the layer, integer or float coordinates.
 * Leaves the 4 result values in `s.out` (f32 values for float results, integers otherwise),
 * appends each texel read to `texels` from index `n` and returns the new count.
 * @throws MemoryAccessFault when a texel lies outside its buffer
 */
export function fetchTexel(t: BoundTexture, smp: SamplerState, mem: GlobalMemory, dims: number, x: number, y: number, z: number, layer: number, intCoords: boolean, s: FetchScratch, texels: Float64Array, n: number): number {
  const ly = t.layers > 0 ? Math.min(Math.max(layer, 0), t.layers - 1) : 0;
  dimension(t, smp, 0, x, intCoords, false, s);
  if (dims > 1) dimension(t, smp, 1, y, intCoords, false, s);
  else {
    s.idx[2] = 0;
    s.idx[3] = -2;
    s.w[1] = 0;
  }
  if (dims > 2) dimension(t, smp, 2, z, intCoords, false, s);
  else {
    s.idx[4] = 0;
    s.idx[5] = -2;
    s.w[2] = 0;
  }
  const out = s.out;
  const idx = s.idx;
  if (idx[1] === -2) {
    // point sampling (or integer coordinates): one texel
    n = readTexel(t, mem, idx[0]!, idx[2]!, idx[4]!, ly, s, texels, n);
    for (let c = 0; c < 4; c++) out[c] = s.texel[c]!;
    return n;
  }
  // linear: 2, 4 or 8 texels, weights (1 - a, a) per dimension
  out[0] = 0;
  out[1] = 0;
  out[2] = 0;
  out[3] = 0;
  const nz = dims > 2 ? 2 : 1;
  const ny = dims > 1 ? 2 : 1;
  for (let kz = 0; kz < nz; kz++) {
    const wz = dims > 2 ? (kz === 0 ? 1 - s.w[2]! : s.w[2]!) : 1;
    for (let jy = 0; jy < ny; jy++) {
      const wy = dims > 1 ? (jy === 0 ? 1 - s.w[1]! : s.w[1]!) : 1;
      for (let ix = 0; ix < 2; ix++) {
        const wx = ix === 0 ? 1 - s.w[0]! : s.w[0]!;
        n = readTexel(t, mem, idx[ix]!, idx[2 + jy]!, idx[4 + kz]!, ly, s, texels, n);
        const wgt = wx * wy * wz;
        for (let c = 0; c < 4; c++) out[c] = out[c]! + wgt * s.texel[c]!;
      }
    }
  }
  for (let c = 0; c < 4; c++) out[c] = Math.fround(out[c]!);
  return n;
}

/**
 * One lane's `tld4.comp.2d` gather: channel `comp` of the 4 texels of the bilinear footprint of
 * (x, y), in `tex2Dgather` order (i, j+1), (i+1, j+1), (i+1, j), (i, j), into `s.out`.
 * @throws MemoryAccessFault when a texel lies outside its buffer
 */
export function gatherTexels(t: BoundTexture, smp: SamplerState, mem: GlobalMemory, x: number, y: number, layer: number, comp: number, s: FetchScratch, texels: Float64Array, n: number): number {
  const ly = t.layers > 0 ? Math.min(Math.max(layer, 0), t.layers - 1) : 0;
  dimension(t, smp, 0, x, false, true, s);
  dimension(t, smp, 1, y, false, true, s);
  const idx = s.idx;
  const i0 = idx[0]!;
  const i1 = idx[1]!;
  const j0 = idx[2]!;
  const j1 = idx[3]!;
  n = readTexel(t, mem, i0, j1, 0, ly, s, texels, n);
  s.out[0] = s.texel[comp]!;
  n = readTexel(t, mem, i1, j1, 0, ly, s, texels, n);
  s.out[1] = s.texel[comp]!;
  n = readTexel(t, mem, i1, j0, 0, ly, s, texels, n);
  s.out[2] = s.texel[comp]!;
  n = readTexel(t, mem, i0, j0, 0, ly, s, texels, n);
  s.out[3] = s.texel[comp]!;
  return n;
}

/**
 * The byte address of a surface access, or -1 when it is out of bounds under `.zero`.
 * `x` is in bytes; `size` the access bytes.
 * @throws TextureFault for an out-of-bounds `.trap` access (lane `lane`)
 */
export function surfaceAddress(t: BoundTexture, clamp: number, x: number, y: number, z: number, layer: number, size: number, lane: number): number {
  const maxX = t.width * t.elemBytes - size;
  const inside = x >= 0 && x <= maxX && y >= 0 && y < t.height && z >= 0 && z < t.depth && (t.layers === 0 ? layer === 0 : layer >= 0 && layer < t.layers);
  if (!inside) {
    if (clamp === 1) {
      throw new TextureFault(lane, `surface access out of bounds: x ${x} bytes, y ${y}, z ${z}, layer ${layer} (surface ${t.width} x ${t.height} x ${t.depth} elements of ${t.elemBytes} bytes${t.layers > 0 ? `, ${t.layers} layers` : ''}, access ${size} bytes)`);
    }
    if (clamp === 3) return -1;
    x = Math.min(Math.max(x, 0), Math.max(0, maxX));
    y = Math.min(Math.max(y, 0), t.height - 1);
    z = Math.min(Math.max(z, 0), t.depth - 1);
    layer = t.layers === 0 ? 0 : Math.min(Math.max(layer, 0), t.layers - 1);
  }
  return t.address + (z + layer) * t.slicePitch + y * t.pitch + x;
}
