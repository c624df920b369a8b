import { describe, it, expect } from 'vitest';
import { FunctionalFault, FunctionalKernel, GlobalMemory, WarpStepInfo, runFunctional } from '../../src/functional/index.ts';
import { InputError } from '../../src/errors.ts';
import { OpClass, StateSpace } from '../../src/isa/ir.ts';
import { launch, ptx } from './helpers.ts';

const FULL = 0xffffffff;

describe('control flow and SIMT reconvergence', () => {
  const divergent = ptx(`
.visible .entry divergent(.param .u64 out)
{
  .reg .pred %p<3>;
  .reg .b32 %r<10>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  rem.u32 %r2, %r1, 3;
  setp.eq.u32 %p1, %r2, 0;
  @%p1 bra THEN;
  add.u32 %r3, %r1, 100;
  bra JOIN;
THEN:
  shl.b32 %r3, %r1, 1;
JOIN:
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r3;
  ret;
}`);

  it('if/else: each lane takes its path and the warp reconverges at the join', () => {
    const steps: { pc: number; mask: number; diverged: boolean }[] = [];
    let out = 0;
    const { mem } = launch({
      module: divergent,
      entry: 'divergent',
      block: 32,
      args: (m) => [(out = m.allocate(128))],
      run: { onStep: (i) => steps.push({ pc: i.pc, mask: i.activeMask, diverged: i.diverged }) },
    });
    const got = mem.readU32(out, 32);
    for (let t = 0; t < 32; t++) expect(got[t]).toBe(t % 3 === 0 ? 2 * t : t + 100);
    const thenMask = [...Array(32).keys()].filter((t) => t % 3 === 0).reduce((m, t) => (m | (1 << t)) >>> 0, 0);
    // the branch (pc 4) diverges; else-path instructions (pc 5, 6) run with the other lanes,
    // the then-path (pc 7) with the lanes where tid % 3 == 0; the join (pc 8..) with all lanes
    expect(steps.find((s) => s.pc === 4)!.diverged).toBe(true);
    expect(steps.find((s) => s.pc === 5)!.mask).toBe((~thenMask) >>> 0);
    expect(steps.find((s) => s.pc === 7)!.mask).toBe(thenMask);
    expect(steps.filter((s) => s.pc === 10)).toEqual([{ pc: 10, mask: FULL, diverged: false }]);
    // 12 instructions are executed once by the whole warp or once per path
    expect(steps.map((s) => s.pc)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
  });

  const loops = ptx(`
.visible .entry loops(.param .u64 out)
{
  .reg .pred %p<3>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  rem.u32 %r2, %r1, 5;
  rem.u32 %r3, %r1, 3;
  mov.u32 %r4, 0;
  mov.u32 %r10, 0;
OUTER:
  add.u32 %r5, %r4, %r3;
  mov.u32 %r6, 0;
INNER:
  mad.lo.u32 %r7, %r4, %r6, 1;
  add.u32 %r10, %r10, %r7;
  add.u32 %r6, %r6, 1;
  setp.le.u32 %p1, %r6, %r5;
  @%p1 bra INNER;
  add.u32 %r4, %r4, 1;
  setp.le.u32 %p2, %r4, %r2;
  @%p2 bra OUTER;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r10;
  ret;
}`);

  it('nested loops with per-lane trip counts, without growing the SIMT stack', () => {
    let out = 0;
    let maxDepth = 0;
    const { mem } = launch({
      module: loops,
      entry: 'loops',
      block: 64,
      args: (m) => [(out = m.allocate(256))],
      run: { onStep: (i) => (maxDepth = Math.max(maxDepth, i.stackDepth)) },
    });
    const got = mem.readU32(out, 64);
    for (let t = 0; t < 64; t++) {
      let acc = 0;
      for (let i = 0; i <= t % 5; i++) for (let j = 0; j <= i + (t % 3); j++) acc += i * j + 1;
      expect(got[t]).toBe(acc);
    }
    expect(maxDepth).toBeLessThanOrEqual(3);
  });

  it('exit with partial warps: exited lanes drop out, barriers count only live warps', () => {
    const m = ptx(`
.shared .align 4 .b8 buf[256];
.visible .entry partial(.param .u64 out)
{
  .reg .pred %p<4>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 3;
  setp.eq.u32 %p1, %r2, 1;
  @%p1 exit;
  shl.b32 %r3, %r1, 2;
  mov.u64 %rd2, buf;
  cvt.u64.u32 %rd3, %r3;
  add.s64 %rd4, %rd2, %rd3;
  st.shared.u32 [%rd4], %r1;
  bar.sync 0;
  setp.ge.u32 %p2, %r1, 40;
  @%p2 bra LATE;
  mov.u32 %r4, 47;
  sub.u32 %r5, %r4, %r1;
  shl.b32 %r6, %r5, 2;
  cvt.u64.u32 %rd3, %r6;
  add.s64 %rd4, %rd2, %rd3;
  ld.shared.u32 %r7, [%rd4];
  bra STORE;
LATE:
  setp.eq.u32 %p3, %r1, 44;
  @%p3 exit;
  mov.u32 %r7, 7777;
STORE:
  mul.wide.u32 %rd5, %r1, 4;
  add.s64 %rd5, %rd1, %rd5;
  st.global.u32 [%rd5], %r7;
  ret;
}`);
    let out = 0;
    const { mem } = launch({
      module: m,
      entry: 'partial',
      block: 48,
      args: (g) => {
        out = g.allocate(48 * 4);
        g.write(out, new Uint8Array(new Uint32Array(48).fill(0xdeadbeef).buffer));
        return [out];
      },
    });
    const got = mem.readU32(out, 48);
    for (let t = 0; t < 48; t++) {
      let want: number;
      if (t % 4 === 1 || t === 44) want = 0xdeadbeef;
      else if (t >= 40) want = 7777;
      else want = (47 - t) % 4 === 1 ? 0 : 47 - t; // exited threads never wrote their slot
      expect(got[t]).toBe(want);
    }
  });

  it('call to a .func with parameters and a return value, guarded (partial) call', () => {
    const m = ptx(`
.func (.param .b32 ret) addmul(.param .b32 a, .param .b32 b)
{
  .reg .b32 %r<5>;
  .reg .pred %p<2>;
  ld.param.u32 %r1, [a];
  ld.param.u32 %r2, [b];
  setp.gt.u32 %p1, %r1, 20;
  @%p1 bra BIG;
  mad.lo.u32 %r3, %r1, %r2, 1;
  st.param.b32 [ret], %r3;
  ret;
BIG:
  sub.u32 %r3, %r1, %r2;
  st.param.b32 [ret], %r3;
  ret;
}
.visible .entry caller(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<6>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r4, 999;
  and.b32 %r2, %r1, 1;
  setp.eq.u32 %p1, %r2, 1;
  {
  .param .b32 pa;
  .param .b32 pb;
  .param .b32 pr;
  st.param.b32 [pa], %r1;
  st.param.b32 [pb], 3;
  @%p1 call (pr), addmul, (pa, pb);
  @%p1 ld.param.b32 %r4, [pr];
  }
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r4;
  ret;
}`);
    let out = 0;
    const { mem } = launch({ module: m, entry: 'caller', block: 32, args: (g) => [(out = g.allocate(128))] });
    const got = mem.readU32(out, 32);
    for (let t = 0; t < 32; t++) {
      const want = t % 2 === 0 ? 999 : t > 20 ? t - 3 : t * 3 + 1;
      expect(got[t]).toBe(want);
    }
  });

  it('a warp deadlocked at a barrier is reported, not hung', () => {
    const m = ptx(`
.visible .entry dead()
{
  .reg .pred %p<2>;
  .reg .b32 %r<3>;
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 32;
  @%p1 bra A;
  bar.sync 1;
  ret;
A:
  bar.sync 0;
  ret;
}`);
    let err: unknown;
    try {
      launch({ module: m, entry: 'dead', block: 64, args: () => [] });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(FunctionalFault);
    const f = err as FunctionalFault;
    expect(f.details.kind).toBe('deadlock');
    expect(f.message).toMatch(/barrier 0: 1\/2 warps arrived, waiting warps \[0\]/);
    expect(f.message).toMatch(/barrier 1: 1\/2 warps arrived, waiting warps \[1\]/);
  });
});

describe('memories', () => {
  it('shared memory tree reduction with bar.sync (several CTAs)', () => {
    const m = ptx(`
.shared .align 4 .b8 buf[1024];
.visible .entry reduce(.param .u64 in, .param .u64 out)
{
  .reg .pred %p<3>;
  .reg .b32 %r<12>;
  .reg .f32 %f<4>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mad.lo.s32 %r4, %r2, %r3, %r1;
  mul.wide.u32 %rd3, %r4, 4;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.f32 %f1, [%rd4];
  shl.b32 %r5, %r1, 2;
  mov.u32 %r6, buf;
  add.u32 %r7, %r6, %r5;
  st.shared.f32 [%r7], %f1;
  bar.sync 0;
  shr.u32 %r8, %r3, 1;
LOOP:
  setp.ge.u32 %p1, %r1, %r8;
  @%p1 bra SKIP;
  shl.b32 %r9, %r8, 2;
  add.u32 %r10, %r7, %r9;
  ld.shared.f32 %f2, [%r10];
  ld.shared.f32 %f3, [%r7];
  add.f32 %f3, %f3, %f2;
  st.shared.f32 [%r7], %f3;
SKIP:
  bar.sync 0;
  shr.u32 %r8, %r8, 1;
  setp.ne.u32 %p2, %r8, 0;
  @%p2 bra LOOP;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra DONE;
  ld.shared.f32 %f1, [buf];
  mul.wide.u32 %rd5, %r2, 4;
  add.s64 %rd6, %rd2, %rd5;
  st.global.f32 [%rd6], %f1;
DONE:
  ret;
}`);
    const n = 256 * 3;
    const input = new Float32Array(n);
    for (let i = 0; i < n; i++) input[i] = Math.fround(Math.sin(i) * 10);
    let out = 0;
    const { mem } = launch({ module: m, entry: 'reduce', grid: 3, block: 256, args: (g) => [g.upload(input), (out = g.allocate(12))] });
    const got = mem.readF32(out, 3);
    for (let c = 0; c < 3; c++) {
      // the same tree, rounded to f32 at every step
      const s = Array.from(input.subarray(c * 256, c * 256 + 256));
      for (let h = 128; h > 0; h >>= 1) for (let t = 0; t < h; t++) s[t] = Math.fround(s[t]! + s[t + h]!);
      expect(got[c]).toBe(s[0]);
    }
  });

  it('generic addressing through cvta windows, local memory, dynamic shared memory', () => {
    const m = ptx(`
.extern .shared .align 8 .b8 dsm[];
.visible .entry windows(.param .u64 out)
{
  .local .align 8 .b8 depot[16];
  .reg .b32 %r<10>;
  .reg .b64 %rd<12>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %tid.x;
  mov.u64 %rd2, dsm;
  cvta.shared.u64 %rd3, %rd2;
  mul.wide.u32 %rd4, %r1, 4;
  add.s64 %rd5, %rd3, %rd4;
  add.u32 %r2, %r1, 1000;
  st.u32 [%rd5], %r2;
  mov.u64 %rd6, depot;
  cvta.local.u64 %rd7, %rd6;
  mul.lo.u32 %r3, %r1, %r1;
  st.u32 [%rd7+4], %r3;
  ld.local.u32 %r4, [depot+4];
  ld.shared.u32 %r5, [dsm];
  bar.sync 0;
  ld.u32 %r6, [%rd5];
  add.u32 %r7, %r4, %r6;
  add.u32 %r7, %r7, %r5;
  add.s64 %rd8, %rd1, %rd4;
  st.u32 [%rd8], %r7;
  ret;
}`);
    let out = 0;
    const spaces: number[] = [];
    const { mem } = launch({
      module: m,
      entry: 'windows',
      block: 40,
      dynamicSharedBytes: 160,
      args: (g) => [(out = g.allocate(160))],
      run: { onStep: (i) => i.accessBytes && spaces.push(i.space) },
    });
    const got = mem.readU32(out, 40);
    // ld.shared [dsm] reads thread 0's value (1000) once every thread of the warp stored its own
    for (let t = 0; t < 40; t++) expect(got[t]).toBe(t * t + (t + 1000) + (t < 32 ? 1000 : 1000));
    // generic accesses report the space they resolved to
    expect(spaces).toContain(StateSpace.Shared);
    expect(spaces).toContain(StateSpace.Local);
    expect(spaces).toContain(StateSpace.Global);
    expect(spaces).not.toContain(StateSpace.Generic);
  });

  it('module .const and .global variables with initialisers and an address relocation', () => {
    const m = ptx(`
.const .align 4 .u32 table[4] = {10, 20, 30, 40};
.global .align 4 .u32 counter = 5;
.global .align 8 .u64 ptr = generic(counter);
.visible .entry vars(.param .u64 out)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 3;
  shl.b32 %r2, %r2, 2;
  mov.u64 %rd2, table;
  cvt.u64.u32 %rd3, %r2;
  add.s64 %rd2, %rd2, %rd3;
  ld.const.u32 %r3, [%rd2];
  ld.global.u64 %rd4, [ptr];
  atom.add.u32 %r4, [%rd4], 1;
  add.u32 %r5, %r3, 0;
  mul.wide.u32 %rd5, %r1, 4;
  add.s64 %rd5, %rd1, %rd5;
  st.global.u32 [%rd5], %r5;
  ret;
}`);
    const mem = new GlobalMemory();
    const out = mem.allocate(32);
    const k = new FunctionalKernel({ module: m, entry: 'vars', grid: 1, block: 8, args: [out], memory: mem });
    runFunctional(k);
    expect(Array.from(mem.readU32(out, 8))).toEqual([10, 20, 30, 40, 10, 20, 30, 40]);
    const counter = mem.allocations.find((a) => a.label === 'counter')!;
    expect(mem.readU32(counter.start, 1)[0]).toBe(13);
    // module globals persist across launches on the same memory
    runFunctional(new FunctionalKernel({ module: m, entry: 'vars', grid: 1, block: 8, args: [out], memory: mem }));
    expect(mem.readU32(counter.start, 1)[0]).toBe(21);
  });
});

describe('atomics (lane order within a warp instruction)', () => {
  const m = ptx(`
.shared .align 4 .u32 sh;
.visible .entry atomics(.param .u64 c, .param .u64 olds)
{
  .reg .pred %p<2>;
  .reg .b32 %r<12>;
  .reg .f32 %f<3>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [c];
  ld.param.u64 %rd2, [olds];
  mov.u32 %r1, %tid.x;
  atom.global.add.u32 %r2, [%rd1], 1;
  atom.global.inc.u32 %r3, [%rd1+4], 9;
  sub.s32 %r4, %r1, 20;
  atom.global.max.s32 %r5, [%rd1+8], %r4;
  mul.lo.u32 %r6, %r1, 7919;
  rem.u32 %r6, %r6, 1000;
  add.u32 %r6, %r6, 5;
  atom.global.min.u32 %r7, [%rd1+12], %r6;
  cvt.u64.u32 %rd3, %r1;
  shl.b64 %rd3, %rd3, 32;
  add.s64 %rd3, %rd3, 1;
  atom.global.add.u64 %rd4, [%rd1+16], %rd3;
  mov.f32 %f1, 0f3F000000;
  red.global.add.f32 [%rd1+24], %f1;
  add.u32 %r8, %r1, 1;
  atom.global.cas.b32 %r9, [%rd1+28], %r1, %r8;
  atom.shared.exch.b32 %r10, [sh], %r1;
  atom.global.dec.u32 %r11, [%rd1+32], 3;
  mul.wide.u32 %rd5, %r1, 16;
  add.s64 %rd6, %rd2, %rd5;
  st.global.v4.u32 [%rd6], {%r2, %r9, %r10, %r11};
  ret;
}`);

  it('add/inc/dec/max/min/add.u64/add.f32/cas/exch give the lane-ordered results', () => {
    let c = 0;
    let olds = 0;
    const init = new Uint32Array([0, 0, 0x80000000, 0xffffffff, 0, 0, 0, 0, 0]);
    const { mem } = launch({
      module: m,
      entry: 'atomics',
      block: 32,
      args: (g) => [(c = g.upload(init)), (olds = g.allocate(32 * 16))],
    });
    const r = mem.readU32(c, 9);
    expect(r[0]).toBe(32);
    expect(r[1]).toBe(32 % 10); // inc wraps to 0 after 9
    expect(r[2] | 0).toBe(31 - 20);
    let mn = 0xffffffff;
    for (let t = 0; t < 32; t++) mn = Math.min(mn, ((t * 7919) % 1000) + 5);
    expect(r[3]).toBe(mn);
    const sum64 = mem.readU32(c + 16, 2);
    expect(sum64[0]).toBe(32);
    expect(sum64[1]).toBe((31 * 32) / 2);
    expect(mem.readF32(c + 24, 1)[0]).toBe(16);
    expect(r[7]).toBe(32); // lane l sees l and installs l+1, in lane order
    const o = mem.readU32(olds, 32 * 4);
    let dec = 0;
    for (let t = 0; t < 32; t++) {
      expect(o[4 * t]).toBe(t); // old value of atom.add
      expect(o[4 * t + 1]).toBe(t); // cas old
      expect(o[4 * t + 2]).toBe(t === 0 ? 0 : t - 1); // exch returns the previous lane's value
      expect(o[4 * t + 3]).toBe(dec); // dec with wrap at 3: 0 -> 3 -> 2 -> 1 -> 0 -> 3 ...
      dec = dec === 0 || dec > 3 ? 3 : dec - 1;
    }
  });
});

describe('warp-level: shfl.sync, vote.sync, activemask', () => {
  const m = ptx(`
.visible .entry warpops(.param .u64 out)
{
  .reg .pred %p<6>;
  .reg .b32 %r<24>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %laneid;
  // butterfly sum of lane ids
  shfl.sync.bfly.b32 %r2, %r1, 16, 31, -1;
  add.u32 %r2, %r2, %r1;
  shfl.sync.bfly.b32 %r3, %r2, 8, 31, -1;
  add.u32 %r2, %r2, %r3;
  shfl.sync.bfly.b32 %r3, %r2, 4, 31, -1;
  add.u32 %r2, %r2, %r3;
  shfl.sync.bfly.b32 %r3, %r2, 2, 31, -1;
  add.u32 %r2, %r2, %r3;
  shfl.sync.bfly.b32 %r3, %r2, 1, 31, -1;
  add.u32 %r2, %r2, %r3;
  // inclusive scan of (lane+1) with shfl.up and its predicate
  add.u32 %r4, %r1, 1;
  shfl.sync.up.b32 %r5|%p1, %r4, 1, 0, -1;
  @%p1 add.u32 %r4, %r4, %r5;
  shfl.sync.up.b32 %r5|%p1, %r4, 2, 0, -1;
  @%p1 add.u32 %r4, %r4, %r5;
  shfl.sync.up.b32 %r5|%p1, %r4, 4, 0, -1;
  @%p1 add.u32 %r4, %r4, %r5;
  shfl.sync.up.b32 %r5|%p1, %r4, 8, 0, -1;
  @%p1 add.u32 %r4, %r4, %r5;
  shfl.sync.up.b32 %r5|%p1, %r4, 16, 0, -1;
  @%p1 add.u32 %r4, %r4, %r5;
  // idx within segments of 8 lanes: lane 3 of each segment; c = ((32-8) << 8) | 31
  mul.lo.u32 %r6, %r1, 10;
  shfl.sync.idx.b32 %r7, %r6, 3, 6175, -1;
  // down by 5 with clamp 31: lanes >= 27 keep their own value and p = false
  shfl.sync.down.b32 %r8|%p2, %r6, 5, 31, -1;
  selp.u32 %r9, 1, 0, %p2;
  // vote
  rem.u32 %r10, %r1, 3;
  setp.eq.u32 %p3, %r10, 0;
  vote.sync.ballot.b32 %r11, %p3, -1;
  vote.sync.any.pred %p4, %p3, -1;
  vote.sync.all.pred %p5, %p3, -1;
  selp.u32 %r12, 2, 0, %p4;
  selp.u32 %r13, 1, 0, %p5;
  or.b32 %r12, %r12, %r13;
  // activemask inside a divergent branch
  and.b32 %r14, %r1, 1;
  setp.eq.u32 %p3, %r14, 1;
  mov.u32 %r15, 0;
  @!%p3 bra SKIP;
  activemask.b32 %r15;
SKIP:
  mul.wide.u32 %rd2, %r1, 32;
  add.s64 %rd3, %rd1, %rd2;
  st.global.v4.u32 [%rd3], {%r2, %r4, %r7, %r8};
  st.global.v4.u32 [%rd3+16], {%r9, %r11, %r12, %r15};
  ret;
}`);

  it('computes reductions, scans, segmented broadcast, clamped shifts, ballots', () => {
    let out = 0;
    const { mem } = launch({ module: m, entry: 'warpops', block: 32, args: (g) => [(out = g.allocate(32 * 32))] });
    const o = mem.readU32(out, 32 * 8);
    let ballot = 0;
    for (let l = 0; l < 32; l++) if (l % 3 === 0) ballot = (ballot | (1 << l)) >>> 0;
    for (let l = 0; l < 32; l++) {
      const r = o.subarray(8 * l, 8 * l + 8);
      expect(r[0]).toBe(496);
      expect(r[1]).toBe(((l + 1) * (l + 2)) / 2);
      expect(r[2]).toBe(((l & ~7) | 3) * 10);
      expect(r[3]).toBe(l + 5 <= 31 ? (l + 5) * 10 : l * 10);
      expect(r[4]).toBe(l + 5 <= 31 ? 1 : 0);
      expect(r[5]).toBe(ballot);
      expect(r[6]).toBe(2); // any, not all
      expect(r[7]).toBe(l % 2 === 1 ? 0xaaaaaaaa : 0);
    }
  });
});

describe('special registers', () => {
  it('tid/ntid/ctaid/nctaid in 3D, laneid, warpid, smid', () => {
    const m = ptx(`
.visible .entry sregs(.param .u64 out)
{
  .reg .b32 %r<30>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %tid.y;
  mov.u32 %r3, %tid.z;
  mov.u32 %r4, %ntid.x;
  mov.u32 %r5, %ntid.y;
  mov.u32 %r6, %ctaid.x;
  mov.u32 %r7, %ctaid.y;
  mov.u32 %r8, %nctaid.x;
  mov.u32 %r9, %nctaid.y;
  mad.lo.u32 %r10, %r3, %r5, %r2;
  mad.lo.u32 %r10, %r10, %r4, %r1;
  mad.lo.u32 %r11, %r7, %r8, %r6;
  mul.lo.u32 %r12, %r4, %r5;
  mov.u32 %r13, %ntid.z;
  mul.lo.u32 %r12, %r12, %r13;
  mad.lo.u32 %r14, %r11, %r12, %r10;
  mov.u32 %r15, %laneid;
  mov.u32 %r16, %warpid;
  mov.u32 %r17, %smid;
  shl.b32 %r18, %r3, 16;
  shl.b32 %r19, %r2, 8;
  or.b32 %r18, %r18, %r19;
  or.b32 %r18, %r18, %r1;
  shl.b32 %r20, %r7, 8;
  or.b32 %r20, %r20, %r6;
  shl.b32 %r21, %r9, 8;
  or.b32 %r21, %r21, %r8;
  mul.wide.u32 %rd2, %r14, 32;
  add.s64 %rd3, %rd1, %rd2;
  st.global.v4.u32 [%rd3], {%r18, %r20, %r21, %r15};
  st.global.v2.u32 [%rd3+16], {%r16, %r17};
  ret;
}`);
    const mem = new GlobalMemory();
    const grid = [2, 3, 1] as const;
    const block = [4, 5, 3] as const; // 60 threads: two warps, the second partial
    const n = 6 * 60;
    const out = mem.allocate(n * 32);
    const k = new FunctionalKernel({ module: m, entry: 'sregs', grid, block, args: [out], memory: mem });
    runFunctional(k, { smId: 7 });
    const o = mem.readU32(out, n * 8);
    for (let cy = 0; cy < 3; cy++) {
      for (let cx = 0; cx < 2; cx++) {
        for (let t = 0; t < 60; t++) {
          const x = t % 4;
          const y = Math.floor(t / 4) % 5;
          const z = Math.floor(t / 20);
          const g = (cy * 2 + cx) * 60 + t;
          const r = o.subarray(8 * g, 8 * g + 8);
          expect(Array.from(r.subarray(0, 6))).toEqual([(z << 16) | (y << 8) | x, (cy << 8) | cx, (3 << 8) | 2, t % 32, Math.floor(t / 32), 7]);
        }
      }
    }
  });
});

describe('faults and launch errors', () => {
  const oob = ptx(`
.visible .entry oob(.param .u64 out, .param .u32 off)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r2, [off];
  mov.u32 %r1, %tid.x;
  add.u32 %r1, %r1, %r2;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r1;
  ret;
}`);

  function faultOf(fn: () => unknown): FunctionalFault {
    try {
      fn();
    } catch (e) {
      if (e instanceof FunctionalFault) return e;
      throw e;
    }
    throw new Error('expected a FunctionalFault');
  }

  it('an out-of-bounds store names kernel, pc, line, lane and address', () => {
    const mem = new GlobalMemory();
    const out = mem.allocate(64); // 16 words: lanes 14.. of a 2-word offset overflow
    const f = faultOf(() => runFunctional(new FunctionalKernel({ module: oob, entry: 'oob', grid: 1, block: 32, args: [out, 2], memory: mem })));
    expect(f.details).toMatchObject({ kind: 'memory', kernel: 'oob', pc: 6, lane: 14, address: out + 64, space: 'global', size: 4, reason: 'out-of-bounds' });
    expect(f.details.line).toBe(15); // 3 header lines, a blank line, then the kernel
    expect(f.message).toMatch(/lane 14/);
    expect(f.message).toMatch(/st\.global\.u32/);
    // stores of lower lanes happened; the faulting lane's did not
    expect(mem.readU32(out, 16)[15]).toBe(15);
  });

  it('null and misaligned accesses fault', () => {
    const mem = new GlobalMemory();
    const f = faultOf(() => runFunctional(new FunctionalKernel({ module: oob, entry: 'oob', grid: 1, block: 1, args: [0, 0], memory: mem })));
    expect(f.details.address).toBe(0);
    const out = mem.allocate(64);
    const g = faultOf(() => runFunctional(new FunctionalKernel({ module: oob, entry: 'oob', grid: 1, block: 1, args: [out + 2, 0], memory: mem })));
    expect(g.details.reason).toBe('misaligned');
  });

  it('out-of-bounds shared access and the instruction limit', () => {
    const m = ptx(`
.shared .align 4 .b8 s[64];
.visible .entry shoob()
{
  .reg .b32 %r<4>;
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 3;
  mov.u32 %r3, s;
  add.u32 %r2, %r2, %r3;
  st.shared.u32 [%r2], %r1;
  ret;
}
.visible .entry forever()
{
LOOP:
  bra LOOP;
}`);
    const mem = new GlobalMemory();
    const f = faultOf(() => runFunctional(new FunctionalKernel({ module: m, entry: 'shoob', grid: 1, block: 32, args: [], memory: mem })));
    expect(f.details).toMatchObject({ space: 'shared', lane: 8, address: 64 });
    const g = faultOf(() => runFunctional(new FunctionalKernel({ module: m, entry: 'forever', grid: 1, block: 32, args: [], memory: mem }), { maxWarpInstructions: 1000 }));
    expect(g.details.kind).toBe('limit');
    expect(g.details.warpInstructions).toBe(1001);
  });

  it('refuses bad launches with InputError', () => {
    const mem = new GlobalMemory();
    const mk = (o: Partial<ConstructorParameters<typeof FunctionalKernel>[0]>) => () =>
      new FunctionalKernel({ module: oob, entry: 'oob', grid: 1, block: 32, args: [0, 0], memory: mem, ...o });
    expect(mk({ entry: 'nope' })).toThrow(InputError);
    expect(mk({ args: [0] })).toThrow(/takes 2 argument/);
    expect(mk({ args: [0, 1.5] })).toThrow(/needs an integer/);
    expect(mk({ args: [0, 2 ** 33] })).toThrow(/does not fit/);
    expect(mk({ block: 2048 })).toThrow(/exceed the limit of 1024/);
    expect(mk({ block: [0, 1, 1] })).toThrow(InputError);
    expect(mk({ dynamicSharedBytes: 1 << 20 })).toThrow(/shared memory/);
  });
});

describe('the step interface (what the timing model reads)', () => {
  const m = ptx(`
.shared .align 4 .b8 s[512];
.visible .entry stepper(.param .u64 in)
{
  .reg .b32 %r<6>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [in];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  ld.global.u32 %r2, [%rd3];
  mov.u64 %rd4, s;
  cvta.shared.u64 %rd5, %rd4;
  add.s64 %rd6, %rd5, %rd2;
  st.u32 [%rd6], %r2;
  bar.sync 0;
  ret;
}`);

  it('reports pc, instruction, masks, per-lane addresses, space, barrier and exit', () => {
    const mem = new GlobalMemory();
    const input = mem.upload(new Uint32Array(64).map((_, i) => i * 3));
    const k = new FunctionalKernel({ module: m, entry: 'stepper', grid: 1, block: 64, args: [input], memory: mem });
    const cta = k.createCta(0, 3);
    expect(cta.warps.length).toBe(2);
    const [w0, w1] = cta.warps;
    const info = new WarpStepInfo();
    const addrs = info.addresses;
    for (let i = 0; i < 4; i++) w0!.step(info);
    expect(info.pc).toBe(3);
    expect(info.instruction!.opText).toBe('add.s64');
    w0!.step(info); // ld.global.u32
    expect(info.pc).toBe(4);
    expect(info.instruction!.opClass).toBe(OpClass.Load);
    expect(info.space).toBe(StateSpace.Global);
    expect(info.accessBytes).toBe(4);
    expect(info.isLoad).toBe(true);
    expect(info.activeMask).toBe(FULL);
    expect(info.activeCount).toBe(32);
    for (let l = 0; l < 32; l++) expect(addrs[l]).toBe(input + 4 * l);
    expect(info.nextPc).toBe(5);
    w0!.step(info);
    w0!.step(info);
    w0!.step(info);
    w0!.step(info); // generic st into the shared window
    expect(info.space).toBe(StateSpace.Shared);
    expect(info.isStore).toBe(true);
    w0!.step(info); // bar.sync
    expect(info.instruction!.opClass).toBe(OpClass.Barrier);
    expect(info.atBarrier).toBe(true);
    expect(w0!.ready).toBe(false);
    expect(() => w0!.step(info)).toThrow(FunctionalFault);
    while (!w1!.ready || w1!.pc !== 9) w1!.step(info);
    w1!.step(info); // the last warp arrives: both are released
    expect(info.atBarrier).toBe(false);
    expect(w0!.ready).toBe(true);
    w0!.step(info); // ret
    expect(info.exited).toBe(true);
    expect(info.nextPc).toBe(-1);
    expect(w0!.done).toBe(true);
    expect(cta.done).toBe(false);
    w1!.step(info);
    expect(cta.done).toBe(true);
    expect(Array.from(new Uint32Array(cta.shared.u32.buffer, 0, 64))).toEqual(Array.from({ length: 64 }, (_, i) => i * 3));
  });

  it('counts thread and warp instructions', () => {
    const mem = new GlobalMemory();
    const input = mem.upload(new Uint32Array(64));
    const r = runFunctional(new FunctionalKernel({ module: m, entry: 'stepper', grid: 1, block: 48, args: [input], memory: mem }));
    // 11 instructions per warp; the second warp has 16 threads
    expect(r.warpInstructions).toBe(22);
    expect(r.threadInstructions).toBe(11 * 32 + 11 * 16);
    expect(r.ctas).toBe(1);
  });
});

describe('extended precision, packing, sub-word memory, f16', () => {
  it('128-bit add and subtract with add.cc/addc and sub.cc/subc; madc', () => {
    const m = ptx(`
.visible .entry wide(.param .u64 in, .param .u64 out)
{
  .reg .b32 %r<21>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  mov.u32 %r20, %tid.x;
  mul.wide.u32 %rd3, %r20, 32;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.v4.u32 {%r1, %r2, %r3, %r4}, [%rd4];
  ld.global.v4.u32 {%r5, %r6, %r7, %r8}, [%rd4+16];
  add.cc.u32 %r9, %r1, %r5;
  addc.cc.u32 %r10, %r2, %r6;
  addc.cc.u32 %r11, %r3, %r7;
  addc.u32 %r12, %r4, %r8;
  sub.cc.u32 %r13, %r1, %r5;
  subc.cc.u32 %r14, %r2, %r6;
  subc.cc.u32 %r15, %r3, %r7;
  subc.u32 %r16, %r4, %r8;
  mul.lo.u32 %r17, %r1, %r5;
  mad.hi.cc.u32 %r18, %r1, %r5, %r2;
  madc.lo.u32 %r19, %r2, %r6, %r3;
  add.s64 %rd5, %rd2, %rd3;
  add.s64 %rd5, %rd5, %rd3;
  st.global.v4.u32 [%rd5], {%r9, %r10, %r11, %r12};
  st.global.v4.u32 [%rd5+16], {%r13, %r14, %r15, %r16};
  st.global.v4.u32 [%rd5+32], {%r17, %r18, %r19, %r19};
  ret;
}`);
    const n = 32;
    const words = new Uint32Array(n * 8);
    let s = 12345;
    for (let i = 0; i < words.length; i++) {
      s = (Math.imul(s, 1103515245) + 12345) >>> 0;
      words[i] = i % 5 === 0 ? 0xffffffff : i % 7 === 0 ? 0 : s;
    }
    let out = 0;
    const { mem } = launch({ module: m, entry: 'wide', block: n, args: (g) => [g.upload(words), (out = g.allocate(n * 64))] });
    const o = mem.readU32(out, n * 16);
    const big = (w: Uint32Array, k: number) => [0, 1, 2, 3].reduce((acc, j) => acc | (BigInt(w[k + j]!) << BigInt(32 * j)), 0n);
    for (let t = 0; t < n; t++) {
      const a = big(words, 8 * t);
      const b = big(words, 8 * t + 4);
      const sum = BigInt.asUintN(128, a + b);
      const dif = BigInt.asUintN(128, a - b);
      expect(big(o, 16 * t)).toBe(sum);
      expect(big(o, 16 * t + 4)).toBe(dif);
      const [a0, a1, a2] = [words[8 * t]!, words[8 * t + 1]!, words[8 * t + 2]!].map(BigInt);
      const [b0, b1] = [words[8 * t + 4]!, words[8 * t + 5]!].map(BigInt);
      const p = a0! * b0!;
      expect(o[16 * t + 8]).toBe(Number(p & 0xffffffffn));
      const hiSum = (p >> 32n) + a1!;
      expect(o[16 * t + 9]).toBe(Number(hiSum & 0xffffffffn));
      const carry = hiSum >> 32n;
      expect(o[16 * t + 10]).toBe(Number(((a1! * b1!) + a2! + carry) & 0xffffffffn));
    }
  });

  it('mov pack/unpack, sign/zero-extending sub-word loads, f16 conversions', () => {
    const m = ptx(`
.visible .entry bytes(.param .u64 in, .param .u64 out)
{
  .reg .b16 %h<6>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<8>;
  .reg .f32 %f<4>;
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x;
  cvt.u64.u32 %rd3, %r1;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.s8 %r2, [%rd4];
  ld.global.u8 %r3, [%rd4];
  ld.global.s8 %rd5, [%rd4];
  mov.b64 {%r4, %r5}, %rd5;
  mov.b32 {%h1, %h2}, %r2;
  mov.b32 %r6, {%h2, %h1};
  cvt.rn.f32.s32 %f1, %r2;
  mul.f32 %f1, %f1, 0f3DCCCCCD;
  cvt.rn.f16.f32 %h3, %f1;
  cvt.f32.f16 %f2, %h3;
  mov.b32 %r7, %f2;
  mul.wide.u32 %rd6, %r1, 32;
  add.s64 %rd7, %rd2, %rd6;
  st.global.v4.u32 [%rd7], {%r2, %r3, %r4, %r5};
  st.global.v2.u32 [%rd7+16], {%r6, %r7};
  ret;
}`);
    const n = 32;
    const bytes = new Uint8Array(n).map((_, i) => (i * 37 + 200) & 0xff);
    let out = 0;
    const { mem } = launch({ module: m, entry: 'bytes', block: n, args: (g) => [g.upload(bytes), (out = g.allocate(n * 32))] });
    const o = mem.readU32(out, n * 8);
    const f = new Float32Array(o.buffer);
    for (let t = 0; t < n; t++) {
      const sv = (bytes[t]! << 24) >> 24;
      const r = o.subarray(8 * t, 8 * t + 6);
      expect(r[0]).toBe(sv >>> 0);
      expect(r[1]).toBe(bytes[t]);
      expect(r[2]).toBe(sv >>> 0);
      expect(r[3]).toBe(sv < 0 ? 0xffffffff : 0);
      expect(r[4]).toBe((((sv >>> 0) & 0xffff) * 65536 + ((sv >>> 0) >>> 16)) >>> 0);
      // f16 has 11 significant bits: round sv*0.1f to the nearest f16 (|x| < 13: ulp 2^-7 or less)
      const x = Math.fround(Math.fround(sv) * Math.fround(0.1));
      const e = Math.floor(Math.log2(Math.abs(x)));
      const ulp = 2 ** (Math.max(e, -14) - 10);
      const q = x / ulp;
      const fl = Math.floor(q);
      const rn = q - fl > 0.5 || (q - fl === 0.5 && fl % 2 !== 0) ? fl + 1 : fl;
      expect(f[8 * t + 5]).toBe(x === 0 ? 0 : rn * ulp);
    }
  });
});

describe('CTA recycling, early warp exit, clocks', () => {
  const m = ptx(`
.shared .align 4 .b8 sh[256];
.visible .entry misc(.param .u64 out)
{
  .reg .pred %p<3>;
  .reg .b32 %r<10>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  setp.ge.u32 %p1, %r1, 32;
  @%p1 exit;
  mov.u32 %r3, sh;
  shl.b32 %r4, %r1, 2;
  add.u32 %r3, %r3, %r4;
  ld.shared.u32 %r5, [%r3];
  add.u32 %r5, %r5, %r2;
  st.shared.u32 [%r3], %r5;
  bar.sync 0;
  mov.u32 %r6, %clock;
  mov.u32 %r7, %clock;
  sub.u32 %r8, %r7, %r6;
  mad.lo.u32 %r9, %r2, 32, %r1;
  mul.wide.u32 %rd2, %r9, 8;
  add.s64 %rd3, %rd1, %rd2;
  st.global.v2.u32 [%rd3], {%r5, %r8};
  ret;
}`);

  it('a recycled CTA starts from zeroed shared memory; a warp that exits early does not block the barrier', () => {
    const mem = new GlobalMemory();
    const out = mem.allocate(4 * 32 * 8);
    const k = new FunctionalKernel({ module: m, entry: 'misc', grid: 4, block: 64, args: [out], memory: mem });
    const first = k.createCta(0);
    const info = new WarpStepInfo();
    while (!first.done) for (const w of first.warps) while (w.ready) w.step(info);
    k.releaseCta(first);
    const again = k.createCta(1);
    expect(again).toBe(first); // recycled
    expect(again.ctaId).toEqual([1, 0, 0]);
    while (!again.done) for (const w of again.warps) while (w.ready) w.step(info);
    runFunctional(k, { ctas: [2, 3] });
    const o = mem.readU32(out, 4 * 32 * 2);
    for (let c = 0; c < 4; c++) {
      for (let t = 0; t < 32; t++) {
        expect(o[2 * (c * 32 + t)]).toBe(c); // shared was zero before each CTA added its id
        expect(o[2 * (c * 32 + t) + 1]).toBe(1); // %clock advances by one per instruction by default
      }
    }
  });

  it('%clock follows the value the caller sets', () => {
    const mem = new GlobalMemory();
    const out = mem.allocate(32 * 8);
    const k = new FunctionalKernel({ module: m, entry: 'misc', grid: 1, block: 32, args: [out], memory: mem });
    const cta = k.createCta(0);
    const w = cta.warps[0]!;
    const info = new WarpStepInfo();
    let cycle = 1000;
    while (!w.done) {
      w.clock = cycle;
      cycle += 7;
      w.step(info);
    }
    expect(mem.readU32(out, 2)[1]).toBe(7);
  });
});

describe('implicit returns and peeking', () => {
  it('functions and kernels may fall off their end; nextInstruction is what step() runs', () => {
    const m = ptx(`
.func inc(.param .b64 p)
{
  .reg .b64 %rd<2>;
  .reg .b32 %r<3>;
  ld.param.b64 %rd1, [p];
  ld.u32 %r1, [%rd1];
  add.u32 %r2, %r1, 1;
  st.u32 [%rd1], %r2;
}
.visible .entry noret(.param .u64 out)
{
  .reg .b64 %rd<4>;
  .reg .b32 %r<3>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  {
  .param .b64 a;
  st.param.b64 [a], %rd3;
  call inc, (a);
  call inc, (a);
  }
}`);
    const mem = new GlobalMemory();
    const out = mem.upload(new Uint32Array(32).map((_, i) => i * 10));
    const k = new FunctionalKernel({ module: m, entry: 'noret', grid: 1, block: 32, args: [out], memory: mem });
    const w = k.createCta(0).warps[0]!;
    const info = new WarpStepInfo();
    const seen: string[] = [];
    while (!w.done) {
      const peek = w.nextInstruction;
      w.step(info);
      expect(info.instruction).toBe(peek);
      seen.push(info.instruction!.opText);
    }
    expect(w.nextInstruction).toBeUndefined();
    expect(Array.from(mem.readU32(out, 32))).toEqual(Array.from({ length: 32 }, (_, i) => i * 10 + 2));
    expect(seen.filter((o) => o === 'call').length).toBe(2);
    expect(seen.filter((o) => o === 'st.u32').length).toBe(2);
    expect(seen.length).toBe(7 + 2 * 4);
  });
});
