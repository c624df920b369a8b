/**
 * Kernels compiled by the real nvcc (fixtures/kernels.cu -> fixtures/kernels.ptx): a device
 * function call with .param passing, a local-memory array, a warp-shuffle reduction with ballot,
 * a shared-memory histogram with atomics and barriers, dynamic shared memory. Results are
 * compared with host computations.
 */
import { describe, it, expect } from 'vitest';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parsePtx } from '../../src/isa/parser.ts';
import { FunctionalKernel, GlobalMemory, runFunctional } from '../../src/functional/index.ts';

const path = fileURLToPath(new URL('./fixtures/kernels.ptx', import.meta.url));
const module = parsePtx(readFileSync(path, 'utf8'), path);

function run(entry: string, grid: number, block: number, args: (number | bigint)[], mem: GlobalMemory, dynamicSharedBytes = 0) {
  return runFunctional(new FunctionalKernel({ module, entry, grid, block, args, memory: mem, dynamicSharedBytes }));
}

describe('nvcc-generated kernels', () => {
  it('callk: out[i] = mysq(i, i) through a .func call', () => {
    const mem = new GlobalMemory();
    const n = 100;
    const out = mem.allocate(n * 4);
    run('callk', 2, 64, [out, n], mem);
    const r = mem.readF32(out, n);
    for (let i = 0; i < n; i++) expect(r[i]).toBe(Math.fround(i * i + i));
  });

  it('localarr: per-thread local array with a dynamic index', () => {
    const mem = new GlobalMemory();
    const out = mem.allocate(64 * 4);
    run('localarr', 1, 64, [out, 5], mem);
    const r = mem.readI32(out, 64);
    for (let t = 0; t < 64; t++) expect(r[t]).toBe(t * ((t + 5) & 15));
  });

  it('shflred: warp sums via shfl.down and ballots', () => {
    const mem = new GlobalMemory();
    const inp = new Float32Array(256).map((_, i) => Math.fround((i % 7) / 7));
    const out = mem.allocate(64);
    run('shflred', 1, 256, [out, mem.upload(inp)], mem);
    const sums = mem.readF32(out, 8);
    const ballots = mem.readU32(out + 32, 8);
    for (let w = 0; w < 8; w++) {
      // lane 0's value after the shfl.down tree: v[l] += v[l + o] for o = 16, 8, 4, 2, 1 (f32 adds)
      let v = Array.from(inp.subarray(32 * w, 32 * w + 32));
      for (let o = 16; o > 0; o >>= 1) v = v.map((x, l) => (l + o < 32 ? Math.fround(x + v[l + o]!) : Math.fround(x + x)));
      expect(sums[w]).toBe(v[0]);
      let b = 0;
      for (let l = 0; l < 32; l++) if (inp[32 * w + l]! > 0.5) b = (b | (1 << l)) >>> 0;
      expect(ballots[w]).toBe(b);
    }
  });

  it('hist: shared-memory atomics, barriers, grid-stride loop', () => {
    const mem = new GlobalMemory();
    const n = 1000;
    const data = new Uint8Array(n).map((_, i) => (i * 37) & 255);
    const bins = mem.allocate(64);
    run('hist', 3, 128, [bins, mem.upload(data), n], mem);
    const want = new Array(16).fill(0);
    for (const d of data) want[d & 15]++;
    expect(Array.from(mem.readU32(bins, 16))).toEqual(want);
  });

  it('dyn: extern dynamic shared memory, reversed through a barrier', () => {
    const mem = new GlobalMemory();
    const out = mem.allocate(40 * 4);
    run('dyn', 1, 40, [out], mem, 160);
    expect(Array.from(mem.readF32(out, 40))).toEqual(Array.from({ length: 40 }, (_, t) => (39 - t) * 2));
  });
});
