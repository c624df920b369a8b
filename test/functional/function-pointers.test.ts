/**
 * Calls through function pointers on the functional model (issue 10 item 4, PTX ISA 9.0
 * §9.7.12.2): nvcc 13 output of fixtures/function-pointers.cu (pointers chosen by `selp`, call
 * tables in global and constant memory, a pointer in a struct, a pointer passed to a function
 * that calls it twice, pointers the host writes) and hand-written PTX for the SIMT order of a
 * divergent call, faults and recursion. Expected values are derived by hand from the sources.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parsePtx } from '../../src/isa/parser.ts';
import { FunctionalFault, FunctionalKernel, GlobalMemory, runFunctional, WarpStepInfo } from '../../src/functional/index.ts';
import type { PtxModule } from '../../src/isa/ir.ts';
import { runCli } from '../helpers/cli.ts';
import { launch, ptx } from './helpers.ts';

const dir = fileURLToPath(new URL('./fixtures/', import.meta.url));
const text = readFileSync(join(dir, 'function-pointers.ptx'), 'utf8');
const module = parsePtx(text, 'function-pointers.ptx');
/** inc, dbl, sq are the module's functions 0, 1, 2 (declared first): addresses 0xF0000000 + 16 i. */
const INC = 0xf0000000;
const DBL = 0xf0000010;
const SQ = 0xf0000020;

function run(m: PtxModule, entry: string, block: number, extra: (mem: GlobalMemory) => (number | bigint)[] = () => []) {
  const mem = new GlobalMemory();
  const out = mem.allocate(Math.max(16, 4 * block), 256, 'out');
  const kernel = new FunctionalKernel({ module: m, entry, grid: 1, block, args: [out, ...extra(mem)], memory: mem });
  const result = runFunctional(kernel);
  return { mem, out, result, i32: () => Array.from(new Int32Array(mem.read(out, 4 * block).slice().buffer)) };
}

function fault(f: () => unknown): FunctionalFault {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(FunctionalFault);
    return e as FunctionalFault;
  }
  throw new Error('expected a FunctionalFault');
}

const lanes = (n: number, f: (t: number) => number) => Array.from({ length: n }, (_, t) => f(t));

describe('nvcc output of function-pointers.cu', () => {
  it('the module takes the addresses of inc, dbl and sq (selp operands, call tables, a struct)', () => {
    expect(module.addressTaken.map((i) => module.functions[i]!.name)).toEqual(['_Z3inci', '_Z3dbli', '_Z2sqi']);
    const r = run(module, 'addresses', 1);
    expect(Array.from(new BigUint64Array(r.mem.read(r.out, 16).slice().buffer))).toEqual([BigInt(INC), BigInt(DBL)]);
  });

  it('pick: odd lanes call inc, even lanes dbl through one divergent call', () => {
    expect(run(module, 'pick', 32).i32()).toEqual(lanes(32, (t) => (t & 1 ? t + 1 : 2 * t)));
  });

  it('tables: gtab[t % 3](t) + twice(ctab[t & 1], t) + tagged.f(tagged.k)', () => {
    // gtab = {inc, dbl, sq}; ctab = {dbl, inc}: twice gives dbl(dbl(t)) = 4t for even t and
    // inc(inc(t)) = t + 2 for odd t; tagged = {sq, 7}: sq(7) = 49. 40 threads: a partial second warp.
    const want = lanes(40, (t) => [t + 1, 2 * t, t * t][t % 3]! + (t & 1 ? t + 2 : 4 * t) + 49);
    expect(run(module, 'tables', 40).i32()).toEqual(want);
  });

  it('through: pointers the host wrote, one per thread', () => {
    const r = run(module, 'through', 32, (mem) => {
      const p = new BigUint64Array(32).map((_, t) => BigInt([INC, DBL, SQ][t % 3]!));
      return [mem.upload(p, 256, 'ptrs')];
    });
    expect(r.i32()).toEqual(lanes(32, (t) => [t + 1, 2 * t, t * t][t % 3]!));
  });

  it('a pointer that is no function, or one to a function the call cannot reach, is a fault naming the thread', () => {
    const bad = (lane: number, value: bigint) =>
      fault(() =>
        run(module, 'through', 32, (mem) => {
          const p = new BigUint64Array(32).fill(BigInt(INC));
          p[lane] = value;
          return [mem.upload(p, 256, 'ptrs')];
        }),
      );
    const between = bad(5, BigInt(INC + 8));
    expect(between.details).toMatchObject({ kind: 'call', kernel: 'through', lane: 5, thread: [5, 0, 0] });
    expect(between.message).toContain('call through a pointer that is no function (0xf0000008)');
    expect(between.message).toMatch(/^function-pointers\.ptx:\d+: /);
    // a data address (a buffer of the run)
    expect(bad(0, 0x100000000n).message).toContain('call through a pointer that is no function (0x100000000)');
    // twice (function 3) takes (pointer, int): not the prototype (int) -> int of this call
    const other = bad(9, BigInt(INC + 3 * 16));
    expect(other.details).toMatchObject({ kind: 'call', lane: 9 });
    expect(other.message).toContain("call through a pointer to '_Z5twicePFiiEi', which this call cannot reach (another prototype, or not in its call targets)");
  });

  it('on the timing model, through the CLI: exit 3 and partial statistics with the fault report (kind call)', async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'warpstate-fnptr-bad-'));
    try {
      const stats = join(tmp, 'stats.json');
      const r = await runCli(['run', join(dir, 'fnptr-bad.yaml'), '--stats', stats, '-q']);
      expect(r.code).toBe(3);
      expect(r.err).toContain('call through a pointer that is no function (0xf0000008) in kernel through, CTA (0,0,0), thread (0,0,0)');
      expect(r.err).not.toMatch(/\n\s+at /);
      const doc = JSON.parse(readFileSync(stats, 'utf8'));
      expect(doc.stop).toMatchObject({ reason: 'error', partial: true, report: { kind: 'call', kernel: 'through', lane: 0 } });
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });

  const nvcc = ['/usr/local/bin/nvcc', '/usr/local/cuda/bin/nvcc'].find((p) => existsSync(p));
  it.runIf(nvcc !== undefined)('the committed PTX is what nvcc 13 writes for function-pointers.cu', { timeout: 120_000 }, () => {
    const tmp = mkdtempSync(join(tmpdir(), 'warpstate-fnptr-'));
    try {
      const out = join(tmp, 'function-pointers.ptx');
      execFileSync(nvcc!, ['-arch=compute_75', '-ptx', join(dir, 'function-pointers.cu'), '-o', out], { stdio: 'pipe' });
      expect(readFileSync(out, 'utf8')).toBe(text);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});

describe('the SIMT stack of a divergent indirect call', () => {
  it('runs one callee per distinct target, the group of the lowest lane first, and reconverges after the call', () => {
    const memory = new GlobalMemory();
    const kernel = new FunctionalKernel({ module, entry: 'pick', grid: 1, block: 32, args: [memory.allocate(128, 256, 'out')], memory });
    const warp = kernel.createCta(0).warps[0]!;
    const info = new WarpStepInfo();
    const pick = module.functionByName.get('pick')!;
    const seen: [string, number, number][] = [];
    let last = pick;
    let diverged: boolean | undefined;
    while (!warp.done) {
      warp.step(info);
      if (info.instruction!.opText === 'call') diverged = info.diverged;
      if (info.nextFunctionIndex !== last && info.nextFunctionIndex >= 0) {
        seen.push([module.functions[info.nextFunctionIndex]!.name, info.nextPc, info.nextMask]);
        last = info.nextFunctionIndex;
      }
    }
    const call = module.functions[pick]!.instructions.findIndex((i) => i.opText === 'call');
    expect(seen).toEqual([
      ['_Z3dbli', 0, 0x55555555], // lane 0 is even: dbl's group first
      ['_Z3inci', 0, 0xaaaaaaaa],
      ['pick', call + 1, 0xffffffff], // every lane continues after the call
    ]);
    expect(diverged).toBe(true); // two callees
  });

  const RECURSE = `
.func (.param .b32 r) g (.param .b64 p, .param .b32 x)
{
  .reg .b32 %r<3>;
  ld.param.u32 %r1, [x];
  mul.lo.s32 %r2, %r1, 10;
  st.param.b32 [r], %r2;
  ret;
}
// f(p, x) = p(p, x) + 1
.func (.param .b32 r) f (.param .b64 p, .param .b32 x)
{
  .reg .b32 %r<4>; .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [p];
  ld.param.u32 %r1, [x];
  {
    .param .b64 a0; .param .b32 a1; .param .b32 r0;
    st.param.b64 [a0], %rd1;
    st.param.b32 [a1], %r1;
    proto : .callprototype (.param .b32 _) _ (.param .b64 _, .param .b32 _);
    call (r0), %rd1, (a0, a1), proto;
    ld.param.b32 %r2, [r0];
  }
  add.s32 %r3, %r2, 1;
  st.param.b32 [r], %r3;
  ret;
}
// out[t] = q(p, t) with q = (t even ? f : g) and p = (inner ? f : g)
.visible .entry k(.param .u64 out, .param .u32 inner)
{
  .reg .b32 %r<6>; .reg .b64 %rd<8>; .reg .pred %p<3>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r5, [inner];
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 1;
  setp.eq.u32 %p1, %r2, 0;
  mov.u64 %rd2, f;
  mov.u64 %rd3, g;
  selp.b64 %rd4, %rd2, %rd3, %p1;
  setp.ne.u32 %p2, %r5, 0;
  selp.b64 %rd5, %rd2, %rd3, %p2;
  {
    .param .b64 a0; .param .b32 a1; .param .b32 r0;
    st.param.b64 [a0], %rd5;
    st.param.b32 [a1], %r1;
    proto : .callprototype (.param .b32 _) _ (.param .b64 _, .param .b32 _);
    call (r0), %rd4, (a0, a1), proto;
    ld.param.b32 %r3, [r0];
  }
  mul.wide.u32 %rd6, %r1, 4;
  add.s64 %rd7, %rd1, %rd6;
  st.global.u32 [%rd7], %r3;
  ret;
}
`;
  const m = ptx(RECURSE);

  it('a function may run for some lanes while others wait to enter it: f calls g through a pointer, g is also a pending target', () => {
    // even t: f(g, t) = g(g, t) + 1 = 10 t + 1; odd t: g(g, t) = 10 t
    const mem = new GlobalMemory();
    const at = mem.allocate(128, 256, 'out');
    launch({ module: m, entry: 'k', block: 32, memory: mem, args: () => [at, 0] });
    const out = Array.from(new Int32Array(mem.read(at, 128).slice().buffer));
    expect(out).toEqual(lanes(32, (t) => (t & 1 ? 10 * t : 10 * t + 1)));
  });

  it('a thread entering a function it is already in, through a pointer, is refused with a fault report', () => {
    // even t: f(f, t) calls f again for the same thread
    const f = fault(() => launch({ module: m, entry: 'k', block: 32, args: (mm) => [mm.allocate(128, 256, 'out'), 1] }));
    expect(f.details).toMatchObject({ kind: 'unsupported', kernel: 'k', function: 'f', lane: 0, thread: [0, 0, 0] });
    expect(f.message).toContain("not supported: recursion through a function pointer ('f' is already running in this thread)");
  });

  it('a 32-bit pointer register works as a 64-bit one', () => {
    const m32 = ptx(`
.func (.param .b32 r) seven ()
{
  st.param.b32 [r], 7;
  ret;
}
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<3>; .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, seven;
  {
    .param .b32 r0;
    t : .calltargets seven;
    call (r0), %r1, (), t;
    ld.param.b32 %r2, [r0];
  }
  st.global.u32 [%rd1], %r2;
  ret;
}
`);
    const mem = new GlobalMemory();
    const at = mem.allocate(4, 256, 'out');
    launch({ module: m32, entry: 'k', block: 1, memory: mem, args: () => [at] });
    expect(new Int32Array(mem.read(at, 4).slice().buffer)[0]).toBe(7);
  });
});
