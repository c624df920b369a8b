/**
 * `[reg+imm]` addresses wrap in the address size of the register (PTX ISA, "Addresses as
 * operands"): a 32-bit shared address computed as `s + 4*tid - k` and accessed at `[r+k]` is
 * `s + 4*tid` even where `s + 4*tid - k` is negative (Rodinia nw: nvcc computes `temp - 64*tid`
 * and loads `[%r4+68]`). Issue 9 item 1.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { launch, ptx } from './helpers.ts';

/** One CTA of 32 threads: thread t stores 3t at s + 4t through `[s + 4t - k + k]` and reads it back. */
function sharedKernel(k: number) {
  return ptx(`
.visible .entry wrap(.param .u64 out)
{
  .reg .b32 %r<10>;
  .reg .b64 %rd<4>;
  .shared .align 4 .b8 s[128];
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mul.lo.u32 %r2, %r1, 3;
  mov.u32 %r3, s;
  shl.b32 %r4, %r1, 2;
  add.s32 %r5, %r3, %r4;
  add.s32 %r6, %r5, ${-k};
  st.shared.u32 [%r6+${k}], %r2;
  bar.sync 0;
  ld.shared.u32 %r7, [%r6+${k}];
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r7;
  ret;
}`);
}

function runShared(k: number): number[] {
  let out = 0;
  const { mem } = launch({ module: sharedKernel(k), entry: 'wrap', block: 32, args: (m) => [(out = m.allocate(128))] });
  return [...mem.readU32(out, 32)];
}

const expected = Array.from({ length: 32 }, (_, t) => 3 * t);

describe('32-bit address arithmetic wraps modulo 2^32', () => {
  it('the nw reproduction: [%r6+8] with %r6 = s + 4*tid - 8 (negative for thread 0, 1) reads what it wrote', () => {
    // Without the wrap, thread 0 accessed 0x100000000 ("out-of-bounds 4-byte shared access").
    expect(runShared(8)).toEqual(expected);
    expect(runShared(68)).toEqual(expected);
  });

  it('property: any offset k (multiple of 4, up to 2^20) subtracted then added back addresses s + 4*tid', () => {
    fc.assert(
      fc.property(fc.integer({ min: -(1 << 18), max: 1 << 18 }), (q) => {
        expect(runShared(4 * q)).toEqual(expected);
      }),
      { numRuns: 40, seed: 9 },
    );
  });
});

describe('64-bit address arithmetic', () => {
  /** Thread t stores 5t at out + 4t through `[out + 4t - k + k]`, with 64-bit registers. */
  function run64(k: number): number[] {
    const m = ptx(`
.visible .entry wrap64(.param .u64 out)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mul.lo.u32 %r2, %r1, 5;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  add.s64 %rd4, %rd3, ${-k};
  st.global.u32 [%rd4+${k}], %r2;
  ret;
}`);
    let out = 0;
    const { mem } = launch({ module: m, entry: 'wrap64', block: 32, args: (g) => [(out = g.allocate(128))] });
    return [...mem.readU32(out, 32)];
  }

  it('a 64-bit base minus k plus k is the base, for small and large k (2^31 - 4)', () => {
    const want = Array.from({ length: 32 }, (_, t) => 5 * t);
    expect(run64(8)).toEqual(want);
    expect(run64(2147483644)).toEqual(want);
    expect(run64(-2147483648 + 4)).toEqual(want);
  });
});
