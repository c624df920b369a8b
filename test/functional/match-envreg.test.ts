/**
 * `match.any.sync` / `match.all.sync` (PTX ISA 9.0 §9.7.13.x; CUDA `__match_any_sync`,
 * `__match_all_sync`) and `%envreg<N>` (§10.x) on the functional model (issue 10 item 4: cheap
 * enough to execute instead of refusing). Expected values are derived by hand.
 */
import { describe, expect, it } from 'vitest';
import { FunctionalKernel, GlobalMemory, runFunctional } from '../../src/functional/index.ts';
import { Opcode, OpClass, VoteMode } from '../../src/isa/ir.ts';
import { ptx } from './helpers.ts';

/** A kernel writing d to out[t] and p (1/0) to out[32 + t], with `a` (b32 %r1 or b64 %rd1) computed by `setup` from %r0 = tid. */
function matchKernel(setup: string, ins: string): string {
  return `
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<8>; .reg .b64 %rd<6>; .reg .pred %p<3>;
  ld.param.u64 %rd5, [out];
  mov.u32 %r0, %tid.x;
  mov.u32 %r3, 0;
  setp.ne.u32 %p1, %r3, 0;
  ${setup}
  ${ins}
  selp.u32 %r4, 1, 0, %p1;
  mul.wide.u32 %rd3, %r0, 4;
  add.s64 %rd4, %rd5, %rd3;
  st.global.u32 [%rd4], %r2;
  st.global.u32 [%rd4+128], %r4;
  ret;
}
`;
}

function runMatch(setup: string, ins: string, block = 32): { d: number[]; p: number[] } {
  const memory = new GlobalMemory();
  const out = memory.allocate(256, 256, 'out');
  memory.write(out, new Uint8Array(256).fill(0xee));
  runFunctional(new FunctionalKernel({ module: ptx(matchKernel(setup, ins)), entry: 'k', grid: 1, block, args: [out], memory }));
  const w = Array.from(new Uint32Array(memory.read(out, 256).slice().buffer));
  return { d: w.slice(0, 32), p: w.slice(32) };
}

const lanes = (f: (l: number) => number) => Array.from({ length: 32 }, (_, l) => f(l) >>> 0);

describe('match.sync', () => {
  it('decodes as an `other`-class instruction with its mode', () => {
    const m = ptx(matchKernel('', 'match.all.sync.b64 %r2|%p1, %rd1, -1;'));
    const ins = m.functions[0]!.instructions.find((i) => i.op === Opcode.Match)!;
    expect([ins.voteMode, ins.opClass, ins.dst.length, ins.src.length]).toEqual([VoteMode.All, OpClass.Other, 2, 2]);
  });

  it('match.any.b32: the lanes holding the same value (tid / 8: blocks of eight lanes)', () => {
    const { d } = runMatch('shr.u32 %r1, %r0, 3;', 'match.any.sync.b32 %r2, %r1, -1;');
    expect(d).toEqual(lanes((l) => 0xff << (8 * (l >> 3))));
  });

  it('match.any.b32 within a member mask: lanes outside it are not counted', () => {
    // membermask 0x0000ffff: lanes 0-15 see their own block; lanes 16-31 (outside the mask, PTX
    // leaves them undefined) find no lane of the mask with their value: 0
    const { d } = runMatch('shr.u32 %r1, %r0, 3;', 'match.any.sync.b32 %r2, %r1, 0xffff;');
    expect(d).toEqual(lanes((l) => (l < 16 ? 0xff << (8 * (l >> 3)) : 0)));
  });

  it('match.any.b64 compares both halves (equal low words, different high words)', () => {
    // a = (tid & 1) << 32: even lanes hold 0, odd lanes 2^32
    const { d } = runMatch('and.b32 %r5, %r0, 1;\n  cvt.u64.u32 %rd2, %r5;\n  shl.b64 %rd1, %rd2, 32;', 'match.any.sync.b64 %r2, %rd1, -1;');
    expect(d).toEqual(lanes((l) => (l & 1 ? 0xaaaaaaaa : 0x55555555)));
  });

  it('match.all: the member mask and true when every lane agrees, else 0 and false', () => {
    const same = runMatch('mov.u32 %r1, 5;', 'match.all.sync.b32 %r2|%p1, %r1, -1;');
    expect(same).toEqual({ d: lanes(() => 0xffffffff), p: lanes(() => 1) });
    const differ = runMatch('mov.u32 %r1, %r0;', 'match.all.sync.b32 %r2|%p1, %r1, -1;');
    expect(differ).toEqual({ d: lanes(() => 0), p: lanes(() => 0) });
    // the destination may be the source: every lane reads a before any lane writes d
    const inPlace = runMatch('mov.u32 %r2, 9;', 'match.all.sync.b32 %r2|%p1, %r2, 0x0f0f0f0f;');
    expect(inPlace).toEqual({ d: lanes(() => 0x0f0f0f0f), p: lanes(() => 1) });
  });

  it('match.all over the lanes that execute it (a partial warp of 12 threads, all holding tid / 16 = 0)', () => {
    const { d, p } = runMatch('shr.u32 %r1, %r0, 4;', 'match.all.sync.b32 %r2|%p1, %r1, 0xfff;', 12);
    expect(d.slice(0, 12)).toEqual(lanes(() => 0xfff).slice(0, 12));
    expect(p.slice(0, 12)).toEqual(lanes(() => 1).slice(0, 12));
    // lanes without a thread write nothing
    expect(d.slice(12)).toEqual(lanes(() => 0xeeeeeeee).slice(12));
  });

  it('refuses a predicate destination on match.any, a missing mode and a wrong type', () => {
    expect(() => ptx(matchKernel('', 'match.any.sync.b32 %r2|%p1, %r1, -1;'))).toThrow(/only match.all has a predicate destination/);
    expect(() => ptx(matchKernel('', 'match.sync.b32 %r2, %r1, -1;'))).toThrow(/'match.sync' needs .any or .all/);
    expect(() => ptx(matchKernel('', 'match.any.sync.u16 %r2, %r1, -1;'))).toThrow(/type .u16 is not supported for 'match'/);
    expect(() => ptx(matchKernel('', 'match.any.b32 %r2, %r1, -1;'))).toThrow(/not supported: 'match' without '.sync'/);
  });
});

describe('%envreg<N>', () => {
  const ENV = `
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<4>; .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %envreg3;
  mov.b32 %r2, %envreg31;
  st.global.u32 [%rd1], %r1;
  st.global.u32 [%rd1+4], %r2;
  ret;
}
`;
  const read = (envRegs?: number[]): number[] => {
    const memory = new GlobalMemory();
    const out = memory.allocate(8, 256, 'out');
    runFunctional(new FunctionalKernel({ module: ptx(ENV), entry: 'k', grid: 1, block: 1, args: [out], memory, ...(envRegs ? { envRegs } : {}) }));
    return Array.from(new Uint32Array(memory.read(out, 8).slice().buffer));
  };

  it('reads the values the launch gives (0 by default)', () => {
    expect(read()).toEqual([0, 0]);
    const regs = new Array<number>(32).fill(0);
    regs[3] = 42;
    regs[31] = 0xfffffffe;
    expect(read(regs)).toEqual([42, 0xfffffffe]);
  });

  it('refuses %envreg32, a 64-bit destination, and %envreg as an operand of anything but mov/cvt', () => {
    expect(() => ptx(ENV.replace('%envreg31', '%envreg32'))).toThrow(/'%envreg32' does not exist/);
    expect(() => ptx(ENV.replace('mov.u32 %r1, %envreg3;', '.reg .b64 %x; mov.u64 %x, %envreg3;'))).toThrow(/special register '%envreg3' is 32-bit, incompatible with .u64/);
    expect(() => ptx(ENV.replace('mov.u32 %r1, %envreg3;', 'add.u32 %r1, %envreg3, 1;'))).toThrow(/special register '%envreg3' can only be read by mov or cvt/);
  });
});
