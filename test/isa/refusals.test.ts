/**
 * Every PTX feature warpstate still refuses gives an InputError at the offending file:line whose
 * message says `not supported: <feature>` (issue 10 item 4): one snippet per feature, each a
 * valid PTX statement of the ISA (PTX ISA 9.0 chapters 9-11) that warpstate does not execute.
 */
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/errors.ts';
import { parsePtx } from '../../src/isa/parser.ts';
import { HEADER } from './helpers.ts';

const DECLS = '.reg .pred %p<4>; .reg .b16 %rs<4>; .reg .b32 %r<8>; .reg .b64 %rd<4>; .reg .f32 %f<4>;';

/** A kernel whose body line 7 (after the header, the entry, `{` and DECLS) is `line`. */
const inKernel = (line: string, prelude = ''): { text: string; line: number } => {
  const pre = prelude === '' ? '' : `${prelude}\n`;
  const text = `${HEADER}${pre}.visible .entry k(.param .u64 p)\n{\n${DECLS}\n${line}\nret;\n}\n`;
  return { text, line: 7 + (pre === '' ? 0 : prelude.split('\n').length) };
};

const CASES: [feature: string, snippet: { text: string; line: number }, reason: string][] = [
  // device runtime
  ['device malloc', inKernel('{ .param .b64 a; .param .b64 r; st.param.b64 [a], 16; call.uni (r), malloc, (a); }', '.extern .func (.param .b64 r) malloc (.param .b64 s);'), "not supported: device malloc/free (call to 'malloc')"],
  ['device free', inKernel('{ .param .b64 a; st.param.b64 [a], %rd1; call.uni free, (a); }', '.extern .func free (.param .b64 s);'), "not supported: device malloc/free (call to 'free')"],
  ['dynamic parallelism (launch API)', inKernel('{ .param .b64 a; .param .b32 r; call.uni (r), cudaLaunchDeviceV2, (a, a); }', '.extern .func (.param .b32 r) cudaLaunchDeviceV2 (.param .b64 a, .param .b64 b);'), "not supported: dynamic parallelism / device runtime API (call to 'cudaLaunchDeviceV2')"],
  ['dynamic parallelism (kernel address)', inKernel('mov.u64 %rd1, child;', '.visible .entry child() { ret; }'), "not supported: dynamic parallelism (address of kernel 'child')"],
  ['dynamic parallelism (kernel call)', inKernel('call.uni child;', '.visible .entry child() { ret; }'), "not supported: dynamic parallelism (a kernel calling kernel 'child')"],
  // half precision and tensor cores
  // (add, sub, mul, fma of .f16 and .f16x2 are executed: test/functional/half.test.ts)
  ['f16x2 min', inKernel('min.f16x2 %r1, %r2, %r3;'), 'not supported: half-precision arithmetic (.f16x2)'],
  ['f16x2 compare', inKernel('setp.lt.f16x2 %p1|%p2, %r2, %r3;'), 'not supported: half-precision arithmetic (.f16x2)'],
  ['f16 ex2', inKernel('ex2.approx.f16 %rs1, %rs2;'), 'not supported: half-precision arithmetic (.f16)'],
  ['f16 neg', inKernel('neg.f16 %rs1, %rs2;'), 'not supported: half-precision arithmetic (.f16)'],
  ['f16 fma.relu', inKernel('fma.rn.relu.f16 %rs1, %rs2, %rs3, %rs1;'), "not supported: modifier '.relu' on 'fma'"],
  ['f16 directed rounding', inKernel('add.rz.f16x2 %r1, %r2, %r3;'), "not supported: 'add.f16x2' with a rounding other than .rn"],
  ['f32 -> f16x2 cvt', inKernel('cvt.rn.f16x2.f32 %r1, %f1, %f2;'), 'not supported: half-precision arithmetic (.f16x2)'],
  ['bf16 arithmetic', inKernel('add.rn.bf16 %rs1, %rs2, %rs3;'), 'not supported: half-precision arithmetic (.bf16)'],
  ['f16x2 registers', inKernel('.reg .f16x2 %hh<2>;'), 'not supported: half-precision arithmetic (.f16x2 declarations)'],
  ['wmma', inKernel('wmma.load.a.sync.aligned.row.m16n16k16.f16 {%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7}, [%rd1];'), 'not supported: warp matrix instructions (wmma)'],
  ['mma', inKernel('mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%f0, %f1, %f2, %f3}, {%r1, %r2}, {%r3}, {%f0, %f1, %f2, %f3};'), 'not supported: warp matrix instructions (mma)'],
  // SIMD video instructions
  ['vabsdiff4', inKernel('vabsdiff4.u32.u32.u32.add %r1, %r2, %r3, %r4;'), 'not supported: SIMD video instructions (vabsdiff4)'],
  ['vadd2', inKernel('vadd2.u32.u32.u32.sat %r1, %r2, %r3, %r4;'), 'not supported: SIMD video instructions (vadd2)'],
  ['vmax', inKernel('vmax.u32.u32.u32 %r1, %r2, %r3;'), 'not supported: SIMD video instructions (vmax)'],
  // control flow
  ['indirect branch (brx.idx)', inKernel('brx.idx %r1, tbl;'), 'not supported: indirect branch (brx.idx)'],
  ['.branchtargets', inKernel('tbl: .branchtargets L0, L1;'), 'not supported: indirect branch (brx.idx, .branchtargets)'],
  ['indirect bra', inKernel('bra %rd1;'), 'not supported: indirect branches'],
  ['recursion', { text: `${HEADER}.func f ()\n{\ncall.uni f;\nret;\n}\n.visible .entry k() { call.uni f; ret; }\n`, line: 6 }, 'not supported: recursion (f -> f)'],
  // other instructions
  ['redux.sync', inKernel('redux.sync.add.u32 %r1, %r2, -1;'), 'not supported: warp reduction (redux.sync)'],
  ['lop3', inKernel('lop3.b32 %r1, %r2, %r3, %r4, 0xfe;'), "not supported: instruction 'lop3'"],
  ['dp4a', inKernel('dp4a.u32.u32 %r1, %r2, %r3, %r4;'), "not supported: instruction 'dp4a'"],
  ['alloca', inKernel('alloca.u64 %rd1, 16;'), 'not supported: dynamic stack allocation (alloca)'],
  ['cp.async', inKernel('cp.async.ca.shared.global [%rd1], [%rd2], 4;'), 'not supported: asynchronous / cluster instructions (cp)'],
  ['mbarrier', inKernel('mbarrier.init.shared.b64 [%rd1], 1;'), 'not supported: asynchronous / cluster instructions (mbarrier)'],
  ['brkpt', inKernel('brkpt;'), 'not supported: breakpoints (brkpt)'],
  ['fence.proxy', inKernel('fence.proxy.alias;'), 'not supported: proxy fences (fence.proxy)'],
  ['shfl without .sync', inKernel('shfl.down.b32 %r1, %r2, 1, 31;'), "not supported: 'shfl' without '.sync'"],
  ['a modifier warpstate lacks', inKernel('st.async.b32 [%rd1], %r1, [%rd2];'), "not supported: modifier '.async' on 'st'"],
  ['cvt f16 <-> integer', inKernel('cvt.rn.f16.s32 %rs1, %r1;'), 'not supported: cvt between .f16 and integer types'],
  // special registers and declarations
  ['%pm counters', inKernel('mov.u32 %r1, %pm0;'), 'not supported: performance-monitoring counters (%pm<N>)'],
  ['clusters', inKernel('mov.u32 %r1, %cluster_ctarank;'), 'not supported: thread-block clusters (%cluster*)'],
  ['module-scope .local', { text: `${HEADER}.local .b32 x;\n`, line: 4 }, 'not supported: module-scope .local variables'],
  ['function-scope .const', inKernel('.const .b32 c;'), 'not supported: function-scope .const variables'],
  ['.reg parameters', { text: `${HEADER}.func f (.reg .b32 a) { ret; }\n`, line: 4 }, 'not supported: register parameters (.reg); use .param'],
  ['f16 initialisers', { text: `${HEADER}.global .f16 h = 1;\n`, line: 4 }, 'not supported: initialisers of type .f16'],
];

describe('refused PTX features say "not supported: <feature>" at file:line', () => {
  it.each(CASES)('%s', (_feature, snippet, reason) => {
    let caught: unknown;
    try {
      parsePtx(snippet.text, 'refused.ptx');
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(InputError);
    const e = caught as InputError;
    expect(e.reason).toContain(reason);
    expect(e.reason).toMatch(/not supported: /);
    expect([e.file, e.line]).toEqual(['refused.ptx', snippet.line]);
    expect(e.message.startsWith(`refused.ptx:${snippet.line}:`)).toBe(true);
  });

  it('the snippets are well formed otherwise: with the feature removed each kernel parses', () => {
    // the same kernel with a supported instruction in place of the refused one
    expect(() => parsePtx(inKernel('add.u32 %r1, %r2, %r3;').text, 'ok.ptx')).not.toThrow();
  });
});
