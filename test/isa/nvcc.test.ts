import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Linkage, Opcode, OperandKind, StateSpace } from '../../src/isa/ir.ts';
import type { PtxModule } from '../../src/isa/ir.ts';
import { analyzeElf } from '../../src/isa/elf.ts';
import { analyzePhases } from '../../src/isa/phase.ts';
import { reconvergencePcs } from '../../src/isa/cfg.ts';
import { fixture, parse } from './helpers.ts';

const fixturesDir = fileURLToPath(new URL('./fixtures/', import.meta.url));

function findNvcc(): string | undefined {
  for (const p of ['/usr/local/bin/nvcc', '/usr/local/cuda/bin/nvcc']) if (existsSync(p)) return p;
  try {
    execFileSync('nvcc', ['--version'], { stdio: 'ignore' });
    return 'nvcc';
  } catch {
    return undefined;
  }
}

/** PTX for `source` (a .cu in fixtures/): freshly compiled when nvcc is installed, else the committed file. */
function ptxOf(source: string, committed: string): { text: string; fresh: boolean } {
  const nvcc = findNvcc();
  if (!nvcc) return { text: fixture(committed), fresh: false };
  const dir = mkdtempSync(join(tmpdir(), 'warpstate-isa-'));
  try {
    const out = join(dir, 'out.ptx');
    execFileSync(nvcc, ['-ptx', '-arch=compute_75', join(fixturesDir, source), '-o', out], { stdio: 'pipe' });
    return { text: readFileSync(out, 'utf8'), fresh: true };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const fnOf = (m: PtxModule, name: string) => m.functions[m.functionByName.get(name)!]!;

/** Runs every analysis on every function with a body (they must not throw on real code). */
function analyzeAll(m: PtxModule): void {
  for (const f of m.functions) {
    if (!f.hasBody) continue;
    const rp = reconvergencePcs(f);
    f.instructions.forEach((ins, i) => {
      if (ins.op === Opcode.Bra) expect(rp[i]).toBeGreaterThanOrEqual(0);
    });
    const ph = analyzePhases(f);
    expect(ph.phaseOf.length).toBe(f.instructions.length);
    const e = analyzeElf(f);
    expect(e.points.length).toBeLessThanOrEqual(32);
  }
}

describe('real nvcc 13 output', () => {
  it('parses kernels.cu as nvcc emits it (recompiled when nvcc is installed)', { timeout: 120_000 }, () => {
    const { text } = ptxOf('kernels.cu', 'kernels.ptx');
    const m = parse(text);
    expect(m.version.major).toBeGreaterThanOrEqual(8);
    expect(m.addressSize).toBe(64);
    expect(m.functions.map((f) => f.name)).toEqual(['_Z6helperfi', '_Z2mkf', 'vecadd', 'reduce', 'misc', 'mixed']);
    expect(m.functions.filter((f) => f.isEntry).map((f) => f.name)).toEqual(['vecadd', 'reduce', 'misc', 'mixed']);
    analyzeAll(m);
  });

  it('parses math.cu (tiling, shared atomics, the CUDA math library)', { timeout: 120_000 }, () => {
    const { text } = ptxOf('math.cu', 'math.ptx');
    const m = parse(text);
    expect(m.functions.filter((f) => f.isEntry).map((f) => f.name)).toEqual(['matmul', 'hist', 'mathy']);
    const used = new Set(m.functions.flatMap((f) => f.instructions.map((i) => i.op)));
    for (const op of [Opcode.Madc, Opcode.Shf, Opcode.Bar, Opcode.BarWarpSync, Opcode.Atom, Opcode.Shfl, Opcode.Vote, Opcode.Call]) {
      expect(used.has(op)).toBe(true);
    }
    analyzeAll(m);
  });

  describe('the committed kernels.ptx', () => {
    const m = parse(fixture('kernels.ptx'));

    it('reads module variables: constant table, initialised globals, generic() pointer, dynamic shared memory', () => {
      const g = (name: string) => m.globals.find((v) => v.name === name)!;
      // __constant__ float cst[16] = {1, 2, 3}: nvcc writes it as .b8 cst[64] = {0, 0, 128, 63, ...}
      expect(g('cst')).toMatchObject({ space: StateSpace.Const, sizeBytes: 64 });
      const f32 = new Float32Array(g('cst').init!.buffer.slice(0));
      expect([...f32.slice(0, 4)]).toEqual([1, 2, 3, 0]);
      expect([...g('gvar').init!]).toEqual([5, 0, 0, 0]);
      expect(g('gptr').relocations).toEqual([{ byteOffset: 0, size: 8, symbol: 'gvar', addend: 0, generic: true }]);
      expect(g('smem')).toMatchObject({ isDynamicShared: true, linkage: Linkage.Extern });
    });

    it('lays out reduce: demoted shared counts[4][8] first, dynamic smem after it', () => {
      const fn = fnOf(m, 'reduce');
      const id = (name: string) => m.variables.find((v) => v.name === name)!.id;
      expect(fn.sharedLayout!.offsets[id('_ZZ6reduceE6counts')]).toBe(0);
      expect(fn.sharedLayout!.staticBytes).toBe(128);
      expect(fn.sharedLayout!.dynamicOffset).toBe(128);
      expect(fn.sharedLayout!.offsets[id('smem')]).toBe(128);
      expect(fnOf(m, 'vecadd').sharedLayout!.staticBytes).toBe(0);
    });

    it('lays out the parameters of mixed (five pointers, a 16-byte struct aligned to 8, an int)', () => {
      const fn = fnOf(m, 'mixed');
      expect(fn.params.map((p) => p.offset)).toEqual([0, 8, 16, 24, 32, 40, 56]);
      expect(fn.paramBytes).toBe(60);
      expect(fn.sharedLayout!.staticBytes).toBe(256);
    });

    it('decodes the call to helper with its call-sequence parameters', () => {
      const fn = fnOf(m, 'reduce');
      const call = fn.instructions.find((i) => i.op === Opcode.Call)!;
      expect(m.functions[call.callee]!.name).toBe('_Z6helperfi');
      expect(call.callArgs.map((a) => a.symbol!.name)).toEqual(['param0', 'param1']);
      expect(call.callRets.map((a) => a.kind)).toEqual([OperandKind.Symbol]);
    });

    it('keeps the inline-asm scoped register t of misc', () => {
      const fn = fnOf(m, 'misc');
      const t = fn.registers.find((r) => r.name === 't')!;
      expect(t.scopeDepth).toBe(1);
      const laneid = fn.instructions.find((i) => i.op === Opcode.Mov && i.src[0]!.kind === OperandKind.Special && i.dst[0]!.reg === t.index);
      expect(laneid).toBeDefined();
    });
  });

  it('the -lineinfo build has the same instructions, with .loc positions into kernels.cu', () => {
    const plain = parse(fixture('kernels.ptx'));
    const lined = parse(fixture('kernels-lineinfo.ptx'));
    expect(lined.functions.map((f) => [f.name, f.instructions.length])).toEqual(plain.functions.map((f) => [f.name, f.instructions.length]));
    expect(lined.debugFiles.get(1)!.endsWith('kernels.cu')).toBe(true);
    const vecadd = fnOf(lined, 'vecadd');
    expect(vecadd.instructions.every((i) => i.debugLoc !== undefined)).toBe(true);
    // the bounds check `if (i < n)` is on line 10 of kernels.cu
    const setp = vecadd.instructions.find((i) => i.opText.startsWith('setp'))!;
    expect(setp.debugLoc).toMatchObject({ file: 1, line: 10 });
  });

  it('the -G build (debug sections, prototypes, many small .funcs) parses', () => {
    const m = parse(fixture('vecadd-debug.ptx'));
    expect(m.target).toEqual(['sm_75', 'debug']);
    const fn = fnOf(m, 'vecadd');
    expect(fn.instructions.length).toBeGreaterThan(10);
    expect(fn.instructions.filter((i) => i.debugLoc?.line === 4).length).toBeGreaterThan(0);
    analyzeAll(m);
  });
});
