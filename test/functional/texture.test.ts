/**
 * Texture fetches and surface accesses of the functional model (PTX ISA §9.7.10-11; CUDA C++
 * Programming Guide, appendix "Texture Fetching"): every value below is derived by hand from
 * those rules, on tiny textures whose texels are listed in each test.
 */
import { describe, expect, it } from 'vitest';
import { FunctionalFault, FunctionalKernel, GlobalMemory, runFunctional } from '../../src/functional/index.ts';
import { TextureTable, type TextureDesc } from '../../src/functional/texture.ts';
import { ptx } from './helpers.ts';

const T1D = [10, 20, 30, 40];

/** A texture descriptor with CUDA's defaults (point, clamp, unnormalized, element reads, f32 x 1). */
function desc(address: number, over: Partial<TextureDesc>): TextureDesc {
  const width = over.width ?? 4;
  const eb = 4;
  return {
    kind: 'texture', address, width, height: 1, depth: 1, layers: 0, pitch: width * eb, slicePitch: width * eb,
    format: 'f32', channels: 1, readMode: 'elementType', addressMode: ['clamp', 'clamp', 'clamp'], filterMode: 'point', normalizedCoords: false,
    ...over,
  };
}

/**
 * Runs `instr` (with `{D}` for the 4 (or `n`) destination registers) once per coordinate set:
 * thread i loads 4 words of coordinates (f32 bits in %f4..%f7, the same bits in %r4..%r7) and
 * stores the destinations as 4 words. `%rd1` is the texture / surface handle (argument 0).
 */
function run(instr: string, coords: number[][], bind: (mem: GlobalMemory, t: TextureTable) => { handle: number; refs?: Map<string, number> }, opts: { intCoords?: boolean; dst?: 'f' | 'r'; decl?: string; n?: number } = {}): { words: Uint32Array; floats: Float32Array; ints: Int32Array; mem: GlobalMemory } {
  const n = opts.n ?? 4;
  const dreg = opts.dst ?? 'f';
  const dlist = Array.from({ length: n }, (_, k) => `%${dreg}${8 + k}`).join(', ');
  const stores = dreg === 'f' ? Array.from({ length: n }, (_, k) => `mov.b32 %r${8 + k}, %f${8 + k};`).join('\n') : '';
  const src = `${opts.decl ?? ''}
.visible .entry k(.param .u64 t, .param .u64 c, .param .u64 o)
{
  .reg .b64 %rd<8>;
  .reg .f32 %f<16>;
  .reg .b32 %r<16>;
  ld.param.u64 %rd1, [t];
  ld.param.u64 %rd2, [c];
  ld.param.u64 %rd3, [o];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd4, %r1, 16;
  add.s64 %rd5, %rd2, %rd4;
  ld.global.v4.b32 {%r4, %r5, %r6, %r7}, [%rd5];
  mov.b32 %f4, %r4;
  mov.b32 %f5, %r5;
  mov.b32 %f6, %r6;
  mov.b32 %f7, %r7;
  mov.u32 %r8, 0;
  mov.u32 %r9, 0;
  mov.u32 %r10, 0;
  mov.u32 %r11, 0;
  ${instr.replace('{D}', `{${dlist}}`)}
  ${stores}
  add.s64 %rd6, %rd3, %rd4;
  st.global.v4.b32 [%rd6], {%r8, %r9, %r10, %r11};
  ret;
}`;
  const mem = new GlobalMemory();
  const textures = new TextureTable();
  const { handle, refs } = bind(mem, textures);
  const cw = new Uint32Array(coords.length * 4);
  coords.forEach((c, i) => c.forEach((v, k) => {
    if (opts.intCoords === true || (Number.isInteger(v) && k === 0 && /a[12]d/.test(instr))) cw[4 * i + k] = v >>> 0;
    else new Float32Array(cw.buffer)[4 * i + k] = v;
  }));
  const ca = mem.upload(cw);
  const oa = mem.allocate(coords.length * 16);
  const kernel = new FunctionalKernel({ module: ptx(src), entry: 'k', grid: 1, block: coords.length, args: [BigInt(handle), ca, oa], memory: mem, textures, ...(refs ? { texRefs: refs } : {}) });
  runFunctional(kernel);
  const bytes = mem.read(oa, coords.length * 16);
  return { words: new Uint32Array(bytes.buffer), floats: new Float32Array(bytes.buffer), ints: new Int32Array(bytes.buffer), mem };
}

/** Rows of 4 results per thread. */
const rows = (a: ArrayLike<number>) => Array.from({ length: a.length / 4 }, (_, i) => Array.from(a).slice(4 * i, 4 * i + 4));

/** A 1D f32 texture over T1D (or `data`) with the given state. */
function tex1d(over: Partial<TextureDesc>, data: number[] = T1D) {
  return (mem: GlobalMemory, t: TextureTable) => ({ handle: t.add(desc(mem.upload(Float32Array.from(data)), { width: data.length, ...over }), mem) });
}

const F1D = 'tex.1d.v4.f32.f32 {D}, [%rd1, {%f4}];';

describe('tex: point sampling and address modes (1D, f32, one channel)', () => {
  it('reads texel floor(x), returns (v, 0, 0, 1) and clamps outside [0, N)', () => {
    const r = run(F1D, [[0], [1.99], [3.5], [-2], [7]], tex1d({}));
    expect(rows(r.floats)).toEqual([[10, 0, 0, 1], [20, 0, 0, 1], [40, 0, 0, 1], [10, 0, 0, 1], [40, 0, 0, 1]]);
  });

  it('border reads texels outside as all zero (alpha too)', () => {
    const r = run(F1D, [[-0.5], [4], [3.9]], tex1d({ addressMode: ['border', 'border', 'border'] }));
    expect(rows(r.floats)).toEqual([[0, 0, 0, 0], [0, 0, 0, 0], [40, 0, 0, 1]]);
  });

  it('wrap and mirror (normalized coordinates): x = u * 4, index wrapped or reflected', () => {
    // wrap: u 1.25 -> x 5 -> 5 mod 4 = 1; u -0.125 -> x -0.5 -> -1 -> 3
    expect(rows(run(F1D, [[1.25], [-0.125]], tex1d({ normalizedCoords: true, addressMode: ['wrap', 'wrap', 'wrap'] })).floats).map((x) => x[0])).toEqual([20, 40]);
    // mirror (period 8): 5 -> 8 - 1 - 5 = 2; -1 -> 7 -> 0
    expect(rows(run(F1D, [[1.25], [-0.125]], tex1d({ normalizedCoords: true, addressMode: ['mirror', 'mirror', 'mirror'] })).floats).map((x) => x[0])).toEqual([30, 10]);
  });

  it('integer coordinates (.s32) index texels directly, clamped', () => {
    const r = run('tex.1d.v4.f32.s32 {D}, [%rd1, {%r4}];', [[2], [-1], [9]], tex1d({}), { intCoords: true });
    expect(rows(r.floats).map((x) => x[0])).toEqual([30, 10, 40]);
  });
});

describe('tex: linear filtering (9-bit fixed-point weights)', () => {
  it('1D: blends texels floor(x - 0.5) and the next, weight frac(x - 0.5) rounded to 1/256', () => {
    // x 1.0: xB 0.5, i 0, a 0.5 -> 15. x 1.3: xB = f32(0.8), a = round(204.8) / 256 = 205/256 ->
    // 10 * 51/256 + 20 * 205/256 = 4610 / 256 = 18.0078125. x 0.25: i -1 (clamped to 0), a 0.75 -> 10.
    // x 4: i 3, a 0.5, texel 4 clamped to 3 -> 40.
    const r = run(F1D, [[1], [1.3], [0.25], [4]], tex1d({ filterMode: 'linear' }));
    expect(rows(r.floats)).toEqual([[15, 0, 0, 1], [18.0078125, 0, 0, 1], [10, 0, 0, 1], [40, 0, 0, 1]]);
  });

  it('1D with border: the outside texel contributes 0 to every channel, alpha included', () => {
    // x 0.25: 0.25 x border (0, 0, 0, 0) + 0.75 x (10, 0, 0, 1)
    const r = run(F1D, [[0.25]], tex1d({ filterMode: 'linear', addressMode: ['border', 'border', 'border'] }));
    expect(rows(r.floats)).toEqual([[7.5, 0, 0, 0.75]]);
  });

  it('normalized coordinates are scaled by the width before filtering', () => {
    // u 0.5 -> x 2 -> xB 1.5: texels 1 and 2, a 0.5 -> 25
    expect(run(F1D, [[0.5]], tex1d({ filterMode: 'linear', normalizedCoords: true })).floats[0]).toBe(25);
  });

  it('2D over a pitched buffer: point and bilinear', () => {
    // 3 x 2 texels, rows 16 bytes apart: [1, 2, 3, _], [4, 5, 6, _]
    const bind = (over: Partial<TextureDesc>) => (mem: GlobalMemory, t: TextureTable) => ({ handle: t.add(desc(mem.upload(Float32Array.from([1, 2, 3, 99, 4, 5, 6, 99])), { width: 3, height: 2, pitch: 16, slicePitch: 32, ...over }), mem) });
    const F2D = 'tex.2d.v4.f32.f32 {D}, [%rd1, {%f4, %f5}];';
    expect(run(F2D, [[2.5, 1], [0.2, 0.9]], bind({})).floats.filter((_, i) => i % 4 === 0)).toEqual(Float32Array.from([6, 1]));
    // (1.5, 1.0): xB 1.0 (i 1, a 0), yB 0.5 (j 0, b 0.5) -> 0.5 x 2 + 0.5 x 5 = 3.5
    // (3.0, 2.0): xB 2.5 (i 2, a 0.5; i 3 clamped to 2), yB 1.5 (j 1, b .5; j 2 clamped to 1) -> 6
    expect(run(F2D, [[1.5, 1], [3, 2]], bind({ filterMode: 'linear' })).floats.filter((_, i) => i % 4 === 0)).toEqual(Float32Array.from([3.5, 6]));
  });

  it('3D trilinear at the centre of a 2 x 2 x 2 texture is the mean of its 8 texels', () => {
    // v(i, j, k) = i + 2j + 4k: mean 3.5
    const bind = (mem: GlobalMemory, t: TextureTable) => ({ handle: t.add(desc(mem.upload(Float32Array.from([0, 1, 2, 3, 4, 5, 6, 7])), { width: 2, height: 2, depth: 2, pitch: 8, slicePitch: 16, filterMode: 'linear' }), mem) });
    expect(run('tex.3d.v4.f32.f32 {D}, [%rd1, {%f4, %f5, %f6, %f7}];', [[1, 1, 1, 0]], bind).floats[0]).toBe(3.5);
  });
});

describe('tex: formats, read modes, destination types, layers', () => {
  it('u8 x 4 read as normalized floats: v / 255', () => {
    const bind = (mem: GlobalMemory, t: TextureTable) => ({ handle: t.add(desc(mem.upload(Uint8Array.from([255, 0, 128, 51])), { width: 1, pitch: 4, slicePitch: 4, format: 'u8', channels: 4, readMode: 'normalizedFloat' }), mem) });
    expect(rows(run(F1D, [[0]], bind).floats)).toEqual([[1, 0, Math.fround(128 / 255), Math.fround(0.2)]]);
  });

  it('s16 normalized reads clamp -32768 to -1; u16 65535 reads 1', () => {
    const bind = (fmt: 's16' | 'u16', v: number) => (mem: GlobalMemory, t: TextureTable) => ({ handle: t.add(desc(mem.upload(fmt === 's16' ? Int16Array.from([v, 0]) : Uint16Array.from([v, 0])), { width: 1, pitch: 4, slicePitch: 4, format: fmt, channels: 2, readMode: 'normalizedFloat' }), mem) });
    expect(rows(run(F1D, [[0]], bind('s16', -32768)).floats)).toEqual([[-1, 0, 0, 1]]);
    expect(rows(run(F1D, [[0]], bind('u16', 65535)).floats)).toEqual([[1, 0, 0, 1]]);
  });

  it('s8 element reads into .s32 registers: integers, the missing alpha an integer 1', () => {
    const bind = (mem: GlobalMemory, t: TextureTable) => ({ handle: t.add(desc(mem.upload(Int8Array.from([-5, 7, 0, 0])), { width: 2, pitch: 2, slicePitch: 2, format: 's8', channels: 1 }), mem) });
    const r = run('tex.1d.v4.s32.f32 {D}, [%rd1, {%f4}];', [[0], [1]], bind, { dst: 'r' });
    expect(rows(r.ints)).toEqual([[-5, 0, 0, 1], [7, 0, 0, 1]]);
  });

  it('f16 x 2: (x, y, 0, 1)', () => {
    // 1.5 = 0x3e00, -2 = 0xc000
    const bind = (mem: GlobalMemory, t: TextureTable) => ({ handle: t.add(desc(mem.upload(Uint16Array.from([0x3e00, 0xc000])), { width: 1, pitch: 4, slicePitch: 4, format: 'f16', channels: 2 }), mem) });
    expect(rows(run(F1D, [[0.5]], bind).floats)).toEqual([[1.5, -2, 0, 1]]);
  });

  it('a1d: the first coordinate picks the layer, clamped to [0, layers - 1]', () => {
    // 3 layers of 2 texels: layer k = [10k + 1, 10k + 2]
    const bind = (mem: GlobalMemory, t: TextureTable) => ({ handle: t.add(desc(mem.upload(Float32Array.from([1, 2, 11, 12, 21, 22])), { width: 2, layers: 3, pitch: 8, slicePitch: 8 }), mem) });
    const r = run('tex.a1d.v4.f32.f32 {D}, [%rd1, {%r4, %f5}];', [[2, 1.5], [7, 0], [-1, 1]], bind);
    expect(rows(r.floats).map((x) => x[0])).toEqual([22, 21, 2]);
  });

  it('tld4.r gathers the bilinear footprint as (i, j+1), (i+1, j+1), (i+1, j), (i, j)', () => {
    const bind = (mem: GlobalMemory, t: TextureTable) => ({ handle: t.add(desc(mem.upload(Float32Array.from([1, 2, 3, 4, 5, 6])), { width: 3, height: 2, pitch: 12, slicePitch: 24 }), mem) });
    // (1.5, 1.0): i 1, j 0 -> T[1,1] 5, T[2,1] 6, T[2,0] 3, T[1,0] 2
    expect(rows(run('tld4.r.2d.v4.f32.f32 {D}, [%rd1, {%f4, %f5}];', [[1.5, 1]], bind).floats)).toEqual([[5, 6, 3, 2]]);
  });
});

describe('txq and suq', () => {
  it('answer sizes and the sampler state with the PTX enumerations', () => {
    const bind = (mem: GlobalMemory, t: TextureTable) => ({ handle: t.add(desc(mem.upload(new Float32Array(24)), { width: 3, height: 2, layers: 4, pitch: 12, slicePitch: 24, normalizedCoords: true, filterMode: 'linear', addressMode: ['wrap', 'border', 'mirror'] }), mem) });
    const q = (what: string) => run(`txq.${what}.b32 %r8, [%rd1];`, [[0]], bind, { dst: 'r' }).words[0];
    expect(['width', 'height', 'depth', 'array_size', 'normalized_coords', 'filter_mode', 'addr_mode_0', 'addr_mode_1', 'addr_mode_2', 'num_mipmap_levels'].map(q)).toEqual([3, 2, 1, 4, 1, 1, 0, 4, 1, 1]);
    const sq = (what: string) => run(`suq.${what}.b32 %r8, [%rd1];`, [[0]], bind, { dst: 'r' }).words[0];
    expect(['width', 'height', 'depth'].map(sq)).toEqual([3, 2, 1]);
  });

  it('txq of a .samplerref answers from its initialiser', () => {
    const decl = '.global .samplerref smp = { filter_mode = linear, addr_mode_0 = clamp_to_border, force_unnormalized_coords = 1 };';
    const q = (what: string) => run(`txq.${what}.b32 %r8, [smp];`, [[0]], tex1d({}), { dst: 'r', decl }).words[0];
    expect(['filter_mode', 'addr_mode_0', 'addr_mode_1', 'force_unnormalized_coords'].map(q)).toEqual([1, 4, 3, 1]);
  });
});

describe('texture references and samplers', () => {
  it('a bound .texref is read by name; its handle comes from the launch', () => {
    const decl = '.global .texref tr;';
    const r = run('tex.1d.v4.f32.s32 {D}, [tr, {%r4}];', [[1], [3]], (mem, t) => {
      const h = t.add(desc(mem.upload(Float32Array.from(T1D)), {}), mem);
      return { handle: 0, refs: new Map([['tr', h]]) };
    }, { intCoords: true, decl });
    expect(rows(r.floats).map((x) => x[0])).toEqual([20, 40]);
  });

  it('an explicit .samplerref overrides the texture sampler state with the fields it sets', () => {
    const decl = '.global .samplerref smp = { addr_mode_0 = wrap, filter_mode = nearest };';
    // the texture is normalized + clamp; the sampler's wrap makes u 1.25 read texel 1 (clamp would read 3)
    const r = run('tex.1d.v4.f32.f32 {D}, [%rd1, smp, {%f4}];', [[1.25]], tex1d({ normalizedCoords: true }), { decl });
    expect(r.floats[0]).toBe(20);
  });

  it('an unbound .texref and an invalid handle are trap faults naming the lane', () => {
    const decl = '.global .texref tr;';
    expect(() => run('tex.1d.v4.f32.s32 {D}, [tr, {%r4}];', [[1]], () => ({ handle: 0 }), { intCoords: true, decl })).toThrow(/texture reference is not bound/);
    let fault: unknown;
    try {
      run(F1D, [[0], [1]], () => ({ handle: 42 }));
    } catch (e) {
      fault = e;
    }
    expect(fault).toBeInstanceOf(FunctionalFault);
    expect((fault as FunctionalFault).details).toMatchObject({ kind: 'trap', lane: 0, reason: expect.stringContaining('invalid texture handle 42') });
  });

  it('a launch binding a name that is not a .texref of the module is refused', () => {
    const mem = new GlobalMemory();
    expect(() => new FunctionalKernel({ module: ptx('.global .texref tr;\n.visible .entry k() { ret; }'), entry: 'k', grid: 1, block: 1, args: [], memory: mem, texRefs: new Map([['nope', 1]]) })).toThrow(/'nope' is not a \.texref or \.surfref of the module \(it has: tr\)/);
  });
});

describe('surfaces: byte-addressed x, out-of-bounds modes', () => {
  // a 4 x 2 f32 surface: row 0 [1, 2, 3, 4], row 1 [5, 6, 7, 8]
  const surf = (mem: GlobalMemory, t: TextureTable) => ({ handle: t.add({ ...desc(mem.upload(Float32Array.from([1, 2, 3, 4, 5, 6, 7, 8])), { width: 4, height: 2, pitch: 16, slicePitch: 32 }), kind: 'surface' }, mem) });
  const ld = (mode: string) => `suld.b.2d.b32.${mode} {%r8}, [%rd1, {%r4, %r5}];`;

  it('x is in bytes: x 8, y 1 reads element (2, 1)', () => {
    expect(run(ld('trap'), [[8, 1], [0, 0], [12, 1]], surf, { intCoords: true, dst: 'r' }).floats.filter((_, i) => i % 4 === 0)).toEqual(Float32Array.from([7, 1, 8]));
  });

  it('.clamp reads the nearest element inside; .zero reads 0', () => {
    // x -4 -> 0; x 16 -> 12 (the last 4-byte element); y 5 -> 1
    expect(run(ld('clamp'), [[-4, 0], [16, 1], [4, 5]], surf, { intCoords: true, dst: 'r' }).floats.filter((_, i) => i % 4 === 0)).toEqual(Float32Array.from([1, 8, 6]));
    expect(run(ld('zero'), [[16, 0], [4, -1], [4, 1]], surf, { intCoords: true, dst: 'r' }).floats.filter((_, i) => i % 4 === 0)).toEqual(Float32Array.from([0, 0, 6]));
  });

  it('.trap out of bounds ends the kernel with a trap fault naming the lane; a misaligned x is a memory fault', () => {
    let fault: unknown;
    try {
      run(ld('trap'), [[0, 0], [16, 0]], surf, { intCoords: true, dst: 'r' });
    } catch (e) {
      fault = e;
    }
    expect((fault as FunctionalFault).details).toMatchObject({ kind: 'trap', lane: 1, reason: expect.stringContaining('surface access out of bounds: x 16 bytes') });
    expect(() => run(ld('clamp'), [[2, 0]], surf, { intCoords: true, dst: 'r' })).toThrow(/misaligned 4-byte global access/);
  });

  it('vector and byte loads: v2.b32 at x 8 reads elements 2 and 3; b8 at x 5 reads byte 5', () => {
    expect(Array.from(run('suld.b.2d.v2.b32.trap {%r8, %r9}, [%rd1, {%r4, %r5}];', [[8, 1]], surf, { intCoords: true, dst: 'r', n: 2 }).floats.slice(0, 2))).toEqual([7, 8]);
    // f32 2.0 = 0x40000000: bytes 00 00 00 40; byte 5 is byte 1 of element 1 (2.0): 0x00; byte 7 is 0x40
    const b = run('suld.b.1d.b8.trap {%r8}, [%rd1, {%r4}];', [[5], [7]], surf, { intCoords: true, dst: 'r', n: 1 });
    expect([b.words[0], b.words[4]]).toEqual([0x00, 0x40]);
  });

  it('stores: .trap writes in bounds, .clamp writes the nearest element, .zero drops an out-of-bounds store', () => {
    const st = (mode: string, x: number, y: number) => {
      let addr = 0;
      const r = run(`mov.u32 %r12, 0x42c80000;\nsust.b.2d.b32.${mode} [%rd1, {%r4, %r5}], {%r12};`, [[x, y]], (mem, t) => {
        addr = mem.upload(Float32Array.from([1, 2, 3, 4, 5, 6, 7, 8]));
        return { handle: t.add({ ...desc(addr, { width: 4, height: 2, pitch: 16, slicePitch: 32 }), kind: 'surface' }, mem) };
      }, { intCoords: true, dst: 'r' });
      return Array.from(r.mem.readF32(addr, 8));
    };
    expect(st('trap', 4, 1)).toEqual([1, 2, 3, 4, 5, 100, 7, 8]);
    expect(st('clamp', 40, 3)).toEqual([1, 2, 3, 4, 5, 6, 7, 100]);
    expect(st('zero', 40, 3)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });
});

describe('texture descriptors', () => {
  it('are refused when CUDA would: linear integer results, wrap without normalized coordinates, a footprint past the buffer', () => {
    const mem = new GlobalMemory();
    const a = mem.upload(new Float32Array(4));
    const t = new TextureTable();
    expect(() => t.add(desc(a, { format: 's32', filterMode: 'linear' }), mem)).toThrow(/linear filtering needs float results/);
    expect(() => t.add(desc(a, { addressMode: ['wrap', 'clamp', 'clamp'] }), mem)).toThrow(/wrap and mirror need normalizedCoords/);
    expect(() => t.add(desc(a, { width: 8, pitch: 32, slicePitch: 32 }), mem)).toThrow(/spans 32 bytes .* more than its buffer holds/);
    expect(t.add(desc(a, {}), mem)).toBe(1);
  });
});
