/**
 * Compiled lane loops of the texture and surface instructions (PTX ISA §9.7.10-11): `tex`,
 * `tld4`, `txq`, `suld.b`, `sust.b`, `suq`. The texel and surface arithmetic is in
 * `texture.ts`; this module reads operands from the warp register file and writes results.
 *
 * The texture or surface of an instruction is a `.u64` handle register (a CUDA texture or
 * surface object, per lane) or a module `.texref`/`.surfref` whose handle the launch binds (its
 * symbol-table entry, {@link ExecWarp.symAddr}). An invalid handle is a {@link TextureFault}.
 * Nothing here runs for kernels without texture or surface instructions.
 */

import { OpaqueType, Opcode, SCALAR_TYPE_BITS, ScalarType, TexGeom, TexQuery, type Instruction, type SamplerInit } from '../isa/ir.ts';
import type { Exec, ExecWarp, Slot } from './exec-types.ts';
import { loadElem, storeElem } from './mem-access.ts';
import { FetchScratch, TextureFault, fetchTexel, gatherTexels, samplerOver, surfaceAddress, type BoundTexture, type SamplerState } from './texture.ts';

/** The texture/surface operand: a 64-bit handle register, or the symbol id of a bound reference. */
export interface TexOperand {
  readonly reg: Slot | undefined;
  readonly symbol: number;
}

/** The handle lane `l` names (a u64 register's value, or the reference's bound handle). */
function handleOf(w: ExecWarp, h: TexOperand, l: number): number {
  if (h.reg === undefined) return w.symAddr[h.symbol]!;
  const i = h.reg.slot + 2 * l;
  return w.u32[i]! + w.u32[i + 1]! * 4294967296;
}

function objectOf(w: ExecWarp, h: TexOperand, l: number, what: string): BoundTexture {
  const handle = handleOf(w, h, l);
  const t = w.textures.get(handle);
  if (t === undefined) {
    throw new TextureFault(l, h.reg === undefined ? `${what} reference is not bound by the launch` : `invalid ${what} handle ${handle} (not a ${what} object of the launch)`);
  }
  return t;
}

/**
 * `tex`/`tld4`: per active lane, resolves the texture, reads the coordinates, fetches (texel
 * addresses appended to {@link ExecWarp.texels}) and writes the four results in the destination
 * type: `.f32` takes float results as they are and integer results converted; `.s32`/`.u32` take
 * integer results and the bit pattern of float ones.
 */
export function texFetchExec(ins: Instruction, tex: TexOperand, coords: readonly Slot[], dsts: readonly (Slot | undefined)[]): Exec {
  const geom = ins.geom;
  const layered = geom === TexGeom.A1d || geom === TexGeom.A2d;
  const dims = geom === TexGeom.D3 ? 3 : geom === TexGeom.D2 || geom === TexGeom.A2d ? 2 : 1;
  const off = layered ? 1 : 0;
  const intCoords = ins.type2 === ScalarType.S32;
  const floatDst = ins.type === ScalarType.F32;
  const gather = ins.op === Opcode.Tld4;
  const comp = ins.texComp;
  // an explicit `.samplerref` (independent mode) overrides the texture's sampler state with the
  // fields its initialiser sets; a `.texref`'s own initialiser does the same in unified mode
  const explicit = ins.src[2]?.symbol;
  const ref = ins.src[0]!.symbol;
  const init: SamplerInit | undefined = explicit !== undefined ? explicit.samplerInit : ref?.opaque === OpaqueType.Texref ? ref.samplerInit : undefined;
  const s = new FetchScratch();
  let lastTex: BoundTexture | undefined;
  let lastSmp: SamplerState | undefined;
  const coord = (w: ExecWarp, k: number, l: number): number => {
    const c = coords[k]!;
    return intCoords ? w.i32[c.slot + l]! : w.f32[c.slot + l]!;
  };
  return (w, mask) => {
    const addrs = w.addresses;
    const texels = w.texels;
    const mem = w.gmem;
    let n = 0;
    for (let l = 0; l < 32; l++) {
      if (((mask >>> l) & 1) === 0) continue;
      const t = objectOf(w, tex, l, 'texture');
      if (t !== lastTex) {
        lastTex = t;
        lastSmp = samplerOver(t, init);
      }
      addrs[l] = t.address;
      const layer = layered ? w.i32[coords[0]!.slot + l]! : 0;
      const x = coord(w, off, l);
      const y = dims > 1 ? coord(w, off + 1, l) : 0;
      const z = dims > 2 ? coord(w, off + 2, l) : 0;
      n = gather ? gatherTexels(t, lastSmp!, mem, x, y, layer, comp, s, texels, n) : fetchTexel(t, lastSmp!, mem, dims, x, y, z, layer, intCoords, s, texels, n);
      const out = s.out;
      const isFloat = t.floatResult;
      for (let c = 0; c < 4; c++) {
        const d = dsts[c];
        if (d === undefined) continue;
        const v = out[c]!;
        if (floatDst || isFloat) w.f32[d.slot + l] = v;
        else w.u32[d.slot + l] = v >>> 0;
      }
      w.texelBytes = t.elemBytes;
    }
    w.texelCount = n > texels.length ? texels.length : n;
  };
}

/**
 * `suld.b`/`sust.b`: per active lane, resolves the surface, computes the byte address from the
 * coordinates (x in bytes) under the out-of-bounds mode, and loads or stores the vector. A
 * `.zero` access out of bounds loads zeros (a store is dropped) and reports the clamped address to
 * the timing model.
 */
export function surfaceExec(ins: Instruction, surf: TexOperand, coords: readonly Slot[], data: readonly (Slot | undefined)[]): Exec {
  const geom = ins.geom;
  const layered = geom === TexGeom.A1d || geom === TexGeom.A2d;
  const dims = geom === TexGeom.D3 ? 3 : geom === TexGeom.D2 || geom === TexGeom.A2d ? 2 : 1;
  const off = layered ? 1 : 0;
  const esz = SCALAR_TYPE_BITS[ins.type]! >> 3;
  const n = data.length;
  const size = esz * n;
  const clamp = ins.surfClamp;
  const isStore = ins.op === Opcode.Sust;
  return (w, mask) => {
    const addrs = w.addresses;
    const i32 = w.i32;
    for (let l = 0; l < 32; l++) {
      if (((mask >>> l) & 1) === 0) continue;
      const t = objectOf(w, surf, l, 'surface');
      const layer = layered ? i32[coords[0]!.slot + l]! : 0;
      const x = i32[coords[off]!.slot + l]!;
      const y = dims > 1 ? i32[coords[off + 1]!.slot + l]! : 0;
      const z = dims > 2 ? i32[coords[off + 2]!.slot + l]! : 0;
      const a = surfaceAddress(t, clamp, x, y, z, layer, size, l);
      if (a < 0) {
        // .zero out of bounds: the timing model sees the nearest in-bounds element
        addrs[l] = surfaceAddress(t, 2, x, y, z, layer, size, l);
        if (!isStore) {
          for (let e = 0; e < n; e++) {
            const d = data[e];
            if (d === undefined) continue;
            if (d.bits === 64) {
              w.u32[d.slot + 2 * l] = 0;
              w.u32[d.slot + 2 * l + 1] = 0;
            } else w.u32[d.slot + l] = 0;
          }
        }
        continue;
      }
      addrs[l] = a;
      const st = w.gmem.page(a, size);
      const o = a % 65536;
      for (let e = 0; e < n; e++) {
        const d = data[e];
        if (d === undefined) continue;
        if (isStore) storeElem(w, st, o + e * esz, esz, d, l);
        else loadElem(w, st, o + e * esz, esz, false, d, l);
      }
    }
  };
}

/** PTX `txq` value of a sampler attribute set by a `.samplerref` initialiser (defaults: nearest, clamp_to_edge, normalized). */
function samplerQuery(init: SamplerInit | undefined, q: number): number {
  const addrEnum: Record<string, number> = { wrap: 0, mirror: 1, clamp_ogl: 2, clamp_to_edge: 3, clamp_to_border: 4 };
  switch (q) {
    case TexQuery.FilterMode:
      return init?.filterMode === 'linear' ? 1 : 0;
    case TexQuery.AddrMode0:
    case TexQuery.AddrMode1:
    case TexQuery.AddrMode2:
      return addrEnum[init?.addrMode[q - TexQuery.AddrMode0] ?? 'clamp_to_edge']!;
    case TexQuery.ForceUnnormalizedCoords:
      return init?.normalizedCoords === false ? 1 : 0;
    default:
      return 0;
  }
}

/** `txq`/`suq`: the queried attribute of each lane's texture or surface (a `.samplerref`'s from its initialiser). */
export function texQueryExec(ins: Instruction, obj: TexOperand, d: Slot): Exec {
  const q = ins.texQuery;
  const sym = ins.src[0]!.symbol;
  if (sym !== undefined && sym.opaque === OpaqueType.Samplerref) {
    const v = samplerQuery(sym.samplerInit, q);
    return (w, mask) => {
      for (let l = 0; l < 32; l++) if ((mask >>> l) & 1) w.u32[d.slot + l] = v;
    };
  }
  const what = ins.op === Opcode.Suq ? 'surface' : 'texture';
  return (w, mask) => {
    for (let l = 0; l < 32; l++) {
      if (((mask >>> l) & 1) === 0) continue;
      w.u32[d.slot + l] = objectOf(w, obj, l, what).query(q);
    }
  };
}
