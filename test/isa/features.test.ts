/**
 * Decoding of the PTX features added for benchmark suites (issue 10 item 4): `.pred`
 * immediates, `bar.red`, `nanosleep`, `bmsk`, `trap`, runtime calls (`vprintf`,
 * `__assertfail`); and the refusal of every feature warpstate does not execute with
 * "not supported: <feature>" at the right file and line, checked on nvcc 13 output
 * (fixtures/unsupported.cu -> unsupported.ptx) kernel by kernel.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/errors.ts';
import { BarOp, BarRedOp, OpClass, Opcode, OperandKind, Syscall } from '../../src/isa/ir.ts';
import { parsePtx } from '../../src/isa/parser.ts';
import { KERNEL_BODY_FIRST_LINE, expectInputError, kernel, parse } from './helpers.ts';

const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url));

const DECLS = '.reg .pred %p<5>; .reg .b32 %r<4>; .reg .b64 %rd<2>;';

/** The instructions of a kernel with DECLS and `lines`. */
function only(lines: string[]) {
  const m = parse(kernel([DECLS, ...lines].join('\n')));
  return m.functions[m.functionByName.get('k')!]!.instructions;
}

/** The error of a kernel with DECLS and `lines`, expected on `lines[at]` (test.ptx). */
function bodyError(lines: string[], at: number, reason: string): InputError {
  return expectInputError(() => parse(kernel([DECLS, ...lines].join('\n'))), { line: KERNEL_BODY_FIRST_LINE + 1 + at, reason });
}

describe('decoding', () => {
  it('.pred immediates: -1 and any non-zero integer are true (1), 0 is false', () => {
    const ins = only(['mov.pred %p1, -1;', 'xor.pred %p2, %p1, -1;', 'and.pred %p3, %p1, 0;', 'not.pred %p4, 7;']);
    expect(ins.slice(0, 4).map((i) => [i.op, i.src[i.src.length - 1]!.kind, i.src[i.src.length - 1]!.lo])).toEqual([
      [Opcode.Mov, OperandKind.Imm, 1],
      [Opcode.Xor, OperandKind.Imm, 1],
      [Opcode.And, OperandKind.Imm, 0],
      [Opcode.Not, OperandKind.Imm, 1],
    ]);
  });

  it('bar.red.popc.u32 / barrier.red.and.pred / bar.red.or.pred with a thread count', () => {
    const ins = only(['bar.red.popc.u32 %r1, 0, %p1;', 'barrier.red.and.aligned.pred %p2, 1, !%p1;', 'bar.cta.red.or.pred %p3, 2, 64, %p1;']);
    expect(ins.slice(0, 3).map((i) => [i.op, i.barOp, i.barRed, i.opClass, i.src.length, i.dst.length])).toEqual([
      [Opcode.Bar, BarOp.Sync, BarRedOp.Popc, OpClass.Barrier, 2, 1],
      [Opcode.Bar, BarOp.Sync, BarRedOp.And, OpClass.Barrier, 2, 1],
      [Opcode.Bar, BarOp.Sync, BarRedOp.Or, OpClass.Barrier, 3, 1],
    ]);
    expect(ins[1]!.src[1]!.negate).toBe(true);
    // the predicate is read, the destination written (scoreboard view)
    expect(ins[0]!.dstRegs.length).toBe(1);
    expect(ins[0]!.srcRegs.length).toBe(1);
  });

  it('bar.red refuses a wrong destination type, a missing reduction and a bad thread count', () => {
    bodyError(['bar.red.popc.pred %p1, 0, %p2;'], 0, "type .pred is not supported for 'bar'");
    bodyError(['bar.red.u32 %r1, 0, %p2;'], 0, "'bar.red' needs .popc, .and or .or");
    bodyError(['bar.red.and.pred %p1, 0, 33, %p2;'], 0, 'thread count must be a positive multiple of 32');
  });

  it('nanosleep.u32, bmsk.clamp/wrap.b32 and trap', () => {
    const ins = only(['nanosleep.u32 100;', 'nanosleep.u32 %r1;', 'bmsk.clamp.b32 %r2, %r1, 3;', 'bmsk.wrap.b32 %r2, 1, 2;', 'trap;']);
    expect(ins.slice(0, 5).map((i) => [i.op, i.opClass, i.clamp])).toEqual([
      [Opcode.Nanosleep, OpClass.Other, false],
      [Opcode.Nanosleep, OpClass.Other, false],
      [Opcode.Bmsk, OpClass.Alu, true],
      [Opcode.Bmsk, OpClass.Alu, false],
      [Opcode.Trap, OpClass.Exit, false],
    ]);
    bodyError(['bmsk.b32 %r2, %r1, 3;'], 0, "'bmsk' needs exactly one of .clamp or .wrap");
    bodyError(['nanosleep.u64 %rd1;'], 0, "type .u64 is not supported for 'nanosleep'");
  });

  it('calls of vprintf and __assertfail are runtime calls; their extern declarations need no body', () => {
    const m = parsePtx(readFileSync(`${fixtures}../../functional/fixtures/features.ptx`, 'utf8'), 'features.ptx');
    const calls = m.functions.flatMap((f) => f.instructions.filter((i) => i.op === Opcode.Call).map((i) => [f.name, m.functions[i.callee]!.name, i.syscall, i.opClass]));
    expect(calls).toEqual([
      ['assertk', '__assertfail', Syscall.AssertFail, OpClass.Call],
      ['printk', 'vprintf', Syscall.Vprintf, OpClass.Call],
    ]);
  });
});

describe('features warpstate does not execute: "not supported: <feature>" at file:line', () => {
  const text = readFileSync(`${fixtures}unsupported.ptx`, 'utf8');
  const lines = text.split('\n');
  // each kernel alone (with the module's declarations and device functions), as nvcc wrote it
  const entries = [...text.matchAll(/^\.visible \.entry (\w+)\([\s\S]*?(?=^\s*\/\/ \.globl|(?![\s\S]))/gm)].map((m) => ({ name: m[1]!, start: m.index!, end: m.index! + m[0].length }));
  const alone = (name: string, keep: readonly string[] = []): string => {
    let t = text;
    for (const e of [...entries].reverse()) if (e.name !== name && !keep.includes(e.name)) t = t.slice(0, e.start) + t.slice(e.end);
    return t;
  };
  const refused = (src: string): InputError => {
    try {
      parsePtx(src, 'unsupported.ptx');
    } catch (e) {
      expect(e).toBeInstanceOf(InputError);
      return e as InputError;
    }
    throw new Error('expected an InputError');
  };

  it.each([
    ['mallock', "not supported: device malloc/free (call to 'malloc')", 'call.uni (retval0)'],
    ['parent', "not supported: dynamic parallelism (address of kernel 'child')", 'mov.u64 \t%rd3, child;'],
    ['wmmak', 'not supported: warp matrix instructions (wmma)', 'wmma.load.a'],
    ['vabsk', 'not supported: SIMD video instructions (vabsdiff4)', 'vabsdiff4.u32'],
  ])('%s: %s', (name, reason, marker) => {
    const src = alone(name, name === 'parent' ? ['child'] : []);
    const e = refused(src);
    expect(e.reason).toContain(reason);
    expect(e.file).toBe('unsupported.ptx');
    // the line named is the line of the offending token in the text parsed
    expect(src.split('\n')[e.line! - 1]).toContain(marker);
    expect(lines.some((l) => l.includes(marker))).toBe(true);
  });

  it('texture and surface objects (texk, surfk), function pointers (fnptr), match (matchk), %envreg (envk) and f16x2 add (half2k) are executed, no longer refused (issue 10 item 4)', () => {
    for (const [name, op] of [['texk', 'tex.1d.v4.f32.s32'], ['surfk', 'suld.b.2d.b32.trap'], ['fnptr', 'call'], ['matchk', 'match.any.sync.b32'], ['envk', 'mov.u32'], ['half2k', 'add.f16x2']] as const) {
      const m = parsePtx(alone(name), 'unsupported.ptx');
      expect(m.functions.find((f) => f.name === name)!.instructions.map((i) => i.opText)).toContain(op);
    }
  });

  it('an indirect call without a prototype or target list, brx, indirect bra, .branchtargets, a kernel in an initialiser', () => {
    bodyError(['call %rd1, (%r1);'], 0, 'an indirect call needs a .callprototype or .calltargets label');
    bodyError(['brx.idx %r1, tbl;'], 0, 'not supported: indirect branch (brx.idx)');
    bodyError(['bra %rd1;'], 0, 'not supported: indirect branches');
    bodyError(['bt: .branchtargets L1, L2;'], 0, 'not supported: indirect branch (brx.idx, .branchtargets)');
    const e = (() => {
      try {
        parsePtx('.version 8.0\n.target sm_75\n.address_size 64\n.entry f() { ret; }\n.global .align 8 .u64 tbl[1] = {f};\n', 'fp.ptx');
      } catch (x) {
        return x as InputError;
      }
      throw new Error('expected an InputError');
    })();
    expect(e.message).toBe("fp.ptx:5:33: f: not supported: dynamic parallelism (address of kernel 'f' in an initialiser)");
  });
});
