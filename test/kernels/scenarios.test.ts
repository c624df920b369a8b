/**
 * The `scenarios/k-*.yaml` files: they parse, point at PTX files and entries that exist, pass
 * arguments that match the entry's `.param` list, name buffers and references that exist, stay
 * small enough to simulate, and their references run on the generated data with results that
 * agree with independent approximate or structural expectations.
 */
import { describe, it, expect } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { loadScenario } from '../../src/scenario/loader.ts';
import { kernelReferences } from '../../src/scenario/references/index.ts';
import { BUFFER_TYPES } from '../../src/scenario/references/types.ts';
import type { TypedArray } from '../../src/scenario/references/types.ts';
import {
  generateScenarioBuffers,
  list,
  nums,
  ptxEntries,
  ptxStaticSharedBytes,
  readScenario,
  referenceInputOf,
  scenarioFiles,
} from './scenario-helpers.ts';
import type { RawScenario } from './scenario-helpers.ts';

/** Which PTX `.param` types each scenario argument kind may fill. */
const PARAM_TYPES: Record<string, readonly string[]> = {
  buffer: ['u64', 'b64'],
  u32: ['u32', 's32', 'b32'],
  s32: ['u32', 's32', 'b32'],
  u64: ['u64', 's64', 'b64'],
  s64: ['u64', 's64', 'b64'],
  f32: ['f32'],
  f64: ['f64'],
  texture: ['u64', 'b64'],
  surface: ['u64', 'b64'],
};

const isPositiveInt = (x: unknown): boolean => Number.isSafeInteger(x) && (x as number) >= 1;

describe.each(scenarioFiles().map((f) => [basename(f), f]))('%s', (_name, file) => {
  const doc: RawScenario = readScenario(file);
  const dir = dirname(file);

  it('has the scenario shape', () => {
    expect(Object.keys(doc).sort()).toEqual(['buffers', 'checks', 'description', 'launches', 'mode', 'name', 'seed']);
    expect(typeof doc.name).toBe('string');
    expect(typeof doc.description).toBe('string');
    expect(Number.isSafeInteger(doc.seed)).toBe(true);
    expect(['functional', 'timing']).toContain(doc.mode);
    const names = doc.buffers.map((b) => b.name);
    expect(new Set(names).size).toBe(names.length);
    for (const b of doc.buffers) {
      expect(Object.keys(b).sort()).toEqual(['count', 'init', 'name', 'type']);
      expect(BUFFER_TYPES).toContain(b.type);
      expect(isPositiveInt(b.count)).toBe(true);
      expect(typeof b.init.generator).toBe('string');
    }
    expect(doc.launches.length).toBeGreaterThan(0);
    expect(doc.checks.length).toBeGreaterThan(0);
  });

  it('validates with the project scenario loader', () => {
    const loaded = loadScenario(file).scenario;
    expect(loaded.name).toBe(doc.name);
    expect(loaded.buffers.map((b) => b.name)).toEqual(doc.buffers.map((b) => b.name));
    expect(loaded.launches.length).toBe(doc.launches.length);
  });

  it('launches existing PTX entries with matching arguments and existing buffers', () => {
    const bufferNames = new Set(doc.buffers.map((b) => b.name));
    for (const [i, l] of doc.launches.entries()) {
      expect(Object.keys(l).sort(), `launch ${i}`).toEqual(['args', 'block', 'dynamicSharedBytes', 'entry', 'grid', 'ptx']);
      const ptxPath = resolve(dir, l.ptx);
      expect(existsSync(ptxPath), `launch ${i}: ${l.ptx}`).toBe(true);
      const ptx = readFileSync(ptxPath, 'utf8');
      const params = ptxEntries(ptx).get(l.entry);
      expect(params, `launch ${i}: .entry ${l.entry} in ${l.ptx}`).toBeDefined();
      expect(l.args.length, `launch ${i}: argument count`).toBe(params!.length);
      for (const [j, arg] of l.args.entries()) {
        const [kind] = Object.keys(arg);
        expect(Object.keys(arg).length, `launch ${i} arg ${j}`).toBe(1);
        expect(PARAM_TYPES[kind!], `launch ${i} arg ${j}: kind ${kind}`).toBeDefined();
        expect(PARAM_TYPES[kind!], `launch ${i} arg ${j}: ${kind} for .param .${params![j]}`).toContain(params![j]);
        if (kind === 'buffer') expect(bufferNames.has(String(arg.buffer)), `launch ${i} arg ${j}: buffer ${String(arg.buffer)}`).toBe(true);
      }
      expect(l.grid.length).toBe(3);
      expect(l.block.length).toBe(3);
      expect([...l.grid, ...l.block].every(isPositiveInt)).toBe(true);
      expect(Number.isSafeInteger(l.dynamicSharedBytes) && l.dynamicSharedBytes >= 0).toBe(true);
      // Small enough to simulate, and a legal launch on any preset: <= 1024 threads per CTA,
      // <= 64K threads, <= 48 KiB shared memory per CTA.
      const ctaThreads = l.block[0] * l.block[1] * l.block[2];
      expect(ctaThreads).toBeLessThanOrEqual(1024);
      expect(ctaThreads * l.grid[0] * l.grid[1] * l.grid[2]).toBeLessThanOrEqual(65536);
      expect(ptxStaticSharedBytes(ptx) + l.dynamicSharedBytes).toBeLessThanOrEqual(48 * 1024);
      // A kernel with `extern __shared__` needs the launch to provide it (4 bytes per thread here).
      if (/\.extern\s+\.shared/.test(ptx)) expect(l.dynamicSharedBytes).toBeGreaterThanOrEqual(4 * ctaThreads);
      else expect(l.dynamicSharedBytes).toBe(0);
    }
  });

  it('checks existing buffers with registered references', () => {
    const bufferNames = new Set(doc.buffers.map((b) => b.name));
    for (const c of doc.checks) {
      expect(Object.keys(c).sort()).toEqual(['compare', 'reference', 'ulp']);
      expect(kernelReferences[c.reference], `reference ${c.reference}`).toBeTypeOf('function');
      expect(c.compare.length).toBeGreaterThan(0);
      for (const name of c.compare) expect(bufferNames.has(name), `compare ${name}`).toBe(true);
      expect(c.ulp).toBeGreaterThanOrEqual(0);
    }
  });

  it('generates its buffers and runs its references to full-size results', () => {
    const initial = generateScenarioBuffers(doc);
    for (const c of doc.checks) {
      const result = kernelReferences[c.reference]!(referenceInputOf(doc, initial, file));
      for (const name of c.compare) {
        const declared = doc.buffers.find((b) => b.name === name)!;
        expect(result[name]!.length).toBe(declared.count);
        expect(result[name]!.constructor).toBe(initial[name]!.constructor);
      }
      const sanity = scenarioSanity[doc.name];
      expect(sanity, `sanity check for ${doc.name}`).toBeTypeOf('function');
      sanity!(initial, result, doc);
    }
  });
});

type Sanity = (initial: Record<string, TypedArray>, result: Record<string, TypedArray>, doc: RawScenario) => void;

/** Independent, approximate expectations on each scenario's reference results. */
const scenarioSanity: Record<string, Sanity> = {
  nw_tile(initial, result) {
    // The whole dynamic program in plain row-major order (no tiles) gives the same matrix.
    const sim = initial.sim as Int32Array;
    const got = result.score as Int32Array;
    const n = 64;
    const w = n + 1;
    const s = new Int32Array(w * w);
    for (let i = 0; i <= n; i++) {
      s[i * w] = -2 * i;
      s[i] = -2 * i;
    }
    for (let i = 1; i <= n; i++) for (let j = 1; j <= n; j++) s[i * w + j] = Math.max(s[(i - 1) * w + j - 1]! + sim[i * w + j]!, s[(i - 1) * w + j]! - 2, s[i * w + j - 1]! - 2);
    expect([...got]).toEqual([...s]);
    // Aligning every pair scores at most 6 per step and at least -2 per gap.
    expect(got[n * w + n]!).toBeLessThanOrEqual(6 * n);
    expect(got[n * w + n]!).toBeGreaterThanOrEqual(-4 * n);
  },
  vecadd(initial, result) {
    const { a, b } = initial as { a: Float32Array; b: Float32Array };
    const c = result.c as Float32Array;
    for (let i = 0; i < 4000; i++) expect(Math.abs(c[i]! - (a[i]! + b[i]!))).toBeLessThanOrEqual(Math.abs(a[i]! + b[i]!) * 2 ** -23);
  },
  saxpy(initial, result) {
    const { x, y } = initial as { x: Float32Array; y: Float32Array };
    const out = result.y as Float32Array;
    for (let i = 0; i < 4096; i++) expect(Math.abs(out[i]! - (2.5 * x[i]! + y[i]!))).toBeLessThan(1e-6);
  },
  add_x_loops(initial, result) {
    const { a, b } = initial as { a: Float32Array; b: Float32Array };
    // In real arithmetic c = (a + b) * factor^loops; 20 roundings stay within ~1e-5 relative.
    const c20 = result.c20 as Float32Array;
    const c7 = result.c7 as Float32Array;
    for (let i = 0; i < 4096; i++) {
      expect(Math.abs(c20[i]! - (a[i]! + b[i]!) * 1.03125 ** 20)).toBeLessThan(1e-4 * (Math.abs(a[i]!) + Math.abs(b[i]!)) * 1.03125 ** 20 + 1e-30);
      if (i < 4000) expect(Math.abs(c7[i]! - (a[i]! + b[i]!) * 0.9 ** 7)).toBeLessThan(1e-5 * (Math.abs(a[i]!) + Math.abs(b[i]!)) + 1e-30);
      else expect(c7[i]).toBe(-1);
    }
  },
  stream_x_words(initial, result) {
    expect(list(result.dst)).toEqual(list(initial.src));
  },
  reduce_smem(initial, result) {
    const values = initial.in as Float32Array;
    let exact = 0;
    for (const v of values) exact += v;
    // 10000 values in [-1, 1]; f32 rounding of partial sums stays far below 1e-2 in total.
    expect(Math.abs(result.total![0] as number - exact)).toBeLessThan(1e-2);
    let partials = 0;
    for (const p of result.partial as Float32Array) partials += p;
    expect(Math.abs(partials - exact)).toBeLessThan(1e-2);
  },
  reduce_shfl(initial, result) {
    let sum = 0;
    for (const v of initial.in as Uint32Array) sum += v;
    expect(result.total![0]).toBe(sum % 2 ** 32);
  },
  matmul_tiled(initial, result) {
    const A = initial.A as Float32Array;
    const B = initial.B as Float32Array;
    const C = result.C as Float32Array;
    for (let r = 0; r < 40; r++) {
      for (let c = 0; c < 56; c++) {
        let dot = 0;
        for (let k = 0; k < 36; k++) dot += A[r * 36 + k]! * B[k * 56 + c]!;
        expect(Math.abs(C[r * 56 + c]! - dot)).toBeLessThan(1e-5);
      }
    }
  },
  histogram_smem(initial, result) {
    const bins = result.bins as Uint32Array;
    let total = 0;
    for (const b of bins) total += b;
    expect(total).toBe(20000);
    const data = initial.data as Uint8Array;
    expect(bins[data[0]!]! >= 1 && bins[data[19999]!]! >= 1).toBe(true);
  },
  stencil_hotspot(_initial, result) {
    // Four steps from 320..340 with small power and weak coupling to 80: stays in ~[300, 345].
    for (const t of result.tempA as Float32Array) expect(t > 300 && t < 345).toBe(true);
  },
  transpose_smem(_initial, result) {
    const out = result.out as Float32Array;
    // in[r][c] = r * 72 + c (iota), so out[c][r] = out[c * 40 + r] = r * 72 + c.
    for (let c = 0; c < 72; c++) for (let r = 0; r < 40; r++) expect(out[c * 40 + r]).toBe(r * 72 + c);
  },
  bfs_level(initial, result) {
    // Breadth-first search by a queue, independently: the level of every vertex.
    const rowPtr = initial.rowPtr as Int32Array;
    const colIdx = initial.colIdx as Int32Array;
    const level = new Int32Array(2048).fill(-1);
    level[0] = 0;
    const queue = [0];
    for (let h = 0; h < queue.length; h++) {
      const v = queue[h]!;
      for (let e = rowPtr[v]!; e < rowPtr[v + 1]!; e++) {
        const u = colIdx[e]!;
        if (level[u]! < 0) {
          level[u] = level[v]! + 1;
          queue.push(u);
        }
      }
    }
    expect(list(result.cost)).toEqual(list(level));
    expect(Math.max(...level)).toBeLessThanOrEqual(8); // 9 launches are enough to finish
    expect(nums(result.frontierA).every((f) => f === 0)).toBe(true);
    expect(nums(result.frontierB).every((f) => f === 0)).toBe(true);
    expect(result.changed![0]).toBe(1);
  },
  dpoly(initial, result) {
    const x = initial.x as Float64Array;
    const y = result.y as Float64Array;
    for (let i = 0; i < 4096; i++) {
      const xi = x[i]!;
      const p = 0.5 - 1.25 * xi + 0.75 * xi * xi + 0.125 * xi * xi * xi;
      expect(Math.abs(y[i]! - (Math.sqrt(Math.abs(p)) + p / (1 + xi * xi)))).toBeLessThan(1e-12);
    }
  },
  spmv_csr(initial, result) {
    // Dot products in binary64 from the CSR arrays: the f32 fma chain stays within 1e-5.
    const rowPtr = initial.rowPtr as Int32Array;
    const colIdx = initial.colIdx as Int32Array;
    const val = initial.val as Float32Array;
    const x = initial.x as Float32Array;
    const y = result.y as Float32Array;
    const lengths = new Set<number>();
    for (let r = 0; r < 1024; r++) {
      let dot = 0;
      for (let j = rowPtr[r]!; j < rowPtr[r + 1]!; j++) dot += val[j]! * x[colIdx[j]!]!;
      expect(Math.abs(y[r]! - dot)).toBeLessThan(1e-5);
      lengths.add(rowPtr[r + 1]! - rowPtr[r]!);
    }
    // 8192 entries over 1024 rows: mean 8 per row, and the lengths vary (at least 10 distinct).
    expect(rowPtr[1024]).toBe(8192);
    expect(lengths.size).toBeGreaterThanOrEqual(10);
  },
  kmeans_assign(initial, result) {
    // Nearest centroid by binary64 distances; changed counts the points whose membership moved.
    const points = initial.points as Float32Array;
    const cents = initial.centroids as Float32Array;
    const before = initial.membership as Int32Array;
    const after = result.membership as Int32Array;
    let moved = 0;
    for (let i = 0; i < 2048; i++) {
      const dist = (c: number): number => {
        let s = 0;
        for (let d = 0; d < 4; d++) s += (points[d * 2048 + i]! - cents[c * 4 + d]!) ** 2;
        return s;
      };
      const m = after[i]!;
      expect(m >= 0 && m < 8).toBe(true);
      for (let c = 0; c < 8; c++) expect(dist(m)).toBeLessThanOrEqual(dist(c) * (1 + 1e-5) + 1e-9);
      if (m !== before[i]) moved++;
    }
    expect(result.changed![0]).toBe(moved);
    // Random starting memberships: about 7 in 8 points move.
    expect(moved).toBeGreaterThan(1500);
  },
  backprop_layer(initial, result) {
    // 1 / (1 + e^-net) with net in binary64; the approximations and f32 sums stay within 1e-5.
    const input = initial.input as Float32Array;
    const w = initial.weights as Float32Array;
    const bias = initial.bias as Float32Array;
    const out = result.output as Float32Array;
    for (let j = 0; j < 32; j++) {
      let net = bias[j]!;
      for (let i = 0; i < 512; i++) net += w[j * 512 + i]! * input[i]!;
      expect(Math.abs(out[j]! - 1 / (1 + Math.exp(-net)))).toBeLessThan(1e-5);
    }
  },
  histogram_global(initial, result) {
    const bins = result.bins as Uint32Array;
    expect(nums(bins).reduce((a, b) => a + b, 0)).toBe(8192);
    // Uniform values: each of the 8 bins holds about 1024 (binomial sd ~30).
    for (const b of bins) expect(Math.abs(b - 1024)).toBeLessThan(200);
    expect(bins[(initial.data as Uint32Array)[0]! % 8]!).toBeGreaterThan(0);
  },
  stencil2d_halo(initial, result) {
    // Two steps in binary64 with zero outside the 40 x 56 grid.
    const rows = 40;
    const cols = 56;
    const step = (g: Float64Array): Float64Array => {
      const at = (r: number, c: number): number => (r >= 0 && r < rows && c >= 0 && c < cols ? g[r * cols + c]! : 0);
      const out = new Float64Array(rows * cols);
      for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) out[r * cols + c] = 0.5 * at(r, c) + 0.125 * (at(r - 1, c) + at(r + 1, c) + at(r, c - 1) + at(r, c + 1));
      return out;
    };
    const once = step(Float64Array.from(initial.gridA as Float32Array));
    const twice = step(once);
    const a = result.gridA as Float32Array;
    const b = result.gridB as Float32Array;
    for (let i = 0; i < rows * cols; i++) {
      expect(Math.abs(b[i]! - once[i]!)).toBeLessThan(1e-4);
      expect(Math.abs(a[i]! - twice[i]!)).toBeLessThan(1e-4);
    }
    // The corner loses two of its four neighbours to the zero boundary: at most 0.5 + 0.25 of 100.
    expect(b[0]!).toBeLessThan(75);
  },
  lud_diagonal(initial, result) {
    // Each diagonal block: unit-lower L times upper U gives the block back (binary64 products
    // of the f32 factors, entries in [1, 2)); every other element is untouched.
    const a = initial.m as Float32Array;
    const lu = result.m as Float32Array;
    const n = 48;
    for (let r = 0; r < n; r++) for (let c = 0; c < n; c++) if (Math.floor(r / 16) !== Math.floor(c / 16)) expect(lu[r * n + c]).toBe(a[r * n + c]);
    for (const o of [0, 16, 32]) {
      for (let i = 0; i < 16; i++) {
        for (let j = 0; j < 16; j++) {
          let s = 0;
          for (let k = 0; k <= Math.min(i, j); k++) s += (k === i ? 1 : lu[(o + i) * n + o + k]!) * lu[(o + k) * n + o + j]!;
          expect(Math.abs(s - a[(o + i) * n + o + j]!)).toBeLessThan(1e-3);
        }
      }
    }
  },
  tex_resize(initial, result) {
    // Bilinear in plain binary64 (exact weights): within 1/256 of the 0..1 range of the 9-bit weights.
    const img = initial.img as Float32Array;
    const out = result.out as Float32Array;
    const at = (i: number, j: number) => img[Math.min(Math.max(j, 0), 14) * 24 + Math.min(Math.max(i, 0), 23)]!;
    for (let y = 0; y < 30; y++) {
      for (let x = 0; x < 40; x++) {
        const xb = (x + 0.5) * 0.6 - 0.5;
        const yb = (y + 0.5) * 0.5 - 0.5;
        const i = Math.floor(xb);
        const j = Math.floor(yb);
        const a = xb - i;
        const b = yb - j;
        const want = (1 - a) * (1 - b) * at(i, j) + a * (1 - b) * at(i + 1, j) + (1 - a) * b * at(i, j + 1) + a * b * at(i + 1, j + 1);
        expect(Math.abs(out[y * 40 + x]! - want)).toBeLessThan(1 / 256);
      }
    }
    // The corner samples (0.3, 0.25): both footprints clamp to texel (0, 0).
    expect(out[0]).toBe(img[0]);
  },
  surf_sobel(initial, result) {
    // |gx| + |gy| in binary64 with clamped neighbours.
    const img = initial.img as Float32Array;
    const edges = result.edges as Float32Array;
    const p = (x: number, y: number) => img[Math.min(Math.max(y, 0), 27) * 40 + Math.min(Math.max(x, 0), 39)]!;
    for (let y = 0; y < 28; y++) {
      for (let x = 0; x < 40; x++) {
        const gx = p(x + 1, y - 1) + 2 * p(x + 1, y) + p(x + 1, y + 1) - p(x - 1, y - 1) - 2 * p(x - 1, y) - p(x - 1, y + 1);
        const gy = p(x - 1, y + 1) + 2 * p(x, y + 1) + p(x + 1, y + 1) - p(x - 1, y - 1) - 2 * p(x, y - 1) - p(x + 1, y - 1);
        expect(Math.abs(edges[y * 40 + x]! - (Math.abs(gx) + Math.abs(gy)))).toBeLessThan(1e-3);
      }
    }
  },
  op_table(initial, result) {
    // Each operation in binary64 from the inputs: within a few binary32 ulps of the result.
    const ops = initial.ops as Int32Array;
    const a = initial.a as Float32Array;
    const b = initial.b as Float32Array;
    const out = result.out as Float32Array;
    const used = new Set<number>();
    for (let i = 0; i < 2048; i++) {
      const x = a[i]!;
      const y = b[i]!;
      const op = ((ops[i]! % 4) + 4) % 4;
      used.add(op);
      const want = [x + y, x * y, x * y + 0.5, (x - y) * (x - y)][op]!;
      expect(Math.abs(out[i]! - want)).toBeLessThanOrEqual(2 ** -20 * Math.max(1, Math.abs(want)));
    }
    // every operation is used, and the first warp's 32 elements pick more than one
    expect([...used].sort()).toEqual([0, 1, 2, 3]);
    expect(new Set(Array.from(ops.slice(0, 32), (o) => o & 3)).size).toBeGreaterThan(1);
  },
  phase_msl(initial, result) {
    // Thread g re-computed with BigInt arithmetic modulo 2^32 (T = 4096, 4 iterations, mask 0).
    const A = initial.A as Uint32Array;
    const B = initial.B as Uint32Array;
    const out = result.out as Uint32Array;
    const M = (1n << 32n) - 1n;
    const mix = (v: bigint, shift: bigint, mul: bigint): bigint => ((v ^ (v >> shift)) * mul) & M;
    for (let g = 0; g < 4096; g += 61) {
      let run = BigInt(g);
      let acc = 0n;
      for (let it = 0; it < 4; it++) {
        for (let k = 0; k < 12; k++) run = mix(run, 15n, 0x2c1b3c6dn);
        let x = BigInt(B[it * 4096 + g]!) ^ run;
        for (let k = 0; k < 48; k++) x = mix(x, 13n, 0x297a2d39n);
        acc = (acc + x) & M;
      }
      expect(out[g], `thread ${g}`).toBe(Number(acc));
    }
    // A is only an address offset under mask 0: the result does not depend on it, and the
    // outputs are all distinct 32-bit hashes.
    expect(A.length).toBe(16384);
    expect(new Set(nums(out)).size).toBe(4096);
  },
  phase_long4(initial, result) {
    // In binary64: 48 steps of t = 0.999 t + 0.001 from v, plus the four loads; 4 phases.
    const X = initial.X as Float32Array;
    const out = result.out as Float32Array;
    for (let g = 0; g < 4096; g++) {
      let v = 0;
      for (let s = 0; s < 4; s++) {
        let t = v;
        for (let k = 0; k < 48; k++) t = t * 0.999 + 0.001;
        v = t + X[4 * s * 4096 + g]! + X[(4 * s + 1) * 4096 + g]! + X[(4 * s + 2) * 4096 + g]! + X[(4 * s + 3) * 4096 + g]!;
      }
      expect(Math.abs(out[g]! - v), `thread ${g}`).toBeLessThan(1e-4);
    }
  },
  l1i_bigcode(initial, result) {
    // Thread g re-computed with BigInt arithmetic modulo 2^32 (T = 2048, 2 iterations of 4 chunks).
    const src = initial.src as Uint32Array;
    const out = result.out as Uint32Array;
    const M = (1n << 32n) - 1n;
    for (let g = 0; g < 2048; g += 53) {
      let x = BigInt(g);
      for (let it = 0; it < 2; it++) {
        for (let c = 0; c < 4; c++) {
          x ^= BigInt(src[(4 * it + c) * 2048 + g]!);
          for (let k = 0; k < 40; k++) x = ((x ^ (x >> BigInt(7 + 2 * c))) * 0x9e3779b1n) & M;
        }
      }
      expect(out[g], `thread ${g}`).toBe(Number(x));
    }
  },
  pointer_chase(initial, result) {
    // Walking 3000 steps of a single 4096-cycle visits 3000 distinct indices.
    const next = initial.next as Uint32Array;
    const seen = new Set<number>();
    let j = 0;
    for (let s = 0; s < 3000; s++) {
      j = next[j]!;
      seen.add(j);
    }
    expect(seen.size).toBe(3000);
    expect(result.lastIndex![0]).toBe(j);
    let sum = 0n;
    for (const v of seen) sum += BigInt(v);
    expect(result.indexSum![0]).toBe(sum);
  },
};
