import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/errors.ts';
import { HEADER, KERNEL_BODY_FIRST_LINE, expectInputError, kernel, parse } from './helpers.ts';

/** One line of declarations, then the lines under test (the first of which is at DECL_LINE + 1). */
const DECLS =
  '.reg .pred %p<2>; .reg .b16 %rs<2>; .reg .b32 %r<4>; .reg .u32 %u<2>; .reg .b64 %rd<2>; .reg .f32 %f<2>;';
const FIRST = KERNEL_BODY_FIRST_LINE + 1;

/** Parses a kernel with DECLS and `lines`; the error is expected on `lines[at]`. */
function bodyError(lines: string[], at: number, reason: string | RegExp, column?: number, field?: string): InputError {
  return expectInputError(() => parse(kernel([DECLS, ...lines].join('\n'))), { line: FIRST + at, column, reason, field });
}

describe('malformed PTX is refused with file, line, column and reason', () => {
  it('syntax error: missing semicolon (reported at the next token)', () => {
    bodyError(['add.s32 %r0, %r1, %r1', 'ret;'], 1, "expected ',' or ';' after operand, found 'ret'", 1, 'ret');
  });

  it('undeclared register, named with its column', () => {
    // "add.s32 %r0, %r1, " is 18 characters, so %r9 starts at column 19
    bodyError(['add.s32 %r0, %r1, %r9;'], 0, "undeclared register '%r9'", 19, '%r9');
  });

  it('unknown opcode', () => {
    bodyError(['  frobnicate.u32 %r0;'], 0, "unknown opcode 'frobnicate'", 3, 'frobnicate.u32');
  });

  it('a real PTX instruction warpstate does not execute is refused at load time', () => {
    bodyError(['lop3.b32 %r0, %r1, %r1, %r1, 0xff;'], 0, "not supported: instruction 'lop3'", 1);
    bodyError(['tex.level.2d.v4.f32.f32 {%f0, %f1, %f0, %f1}, [%rd0, {%f0, %f1}], %f0;'], 0, 'not supported: mipmapped texture fetch (tex.level)');
  });

  it('bad operand type: a .u32 register in an .f32 instruction', () => {
    // "add.f32 %f0, " is 13 characters
    bodyError(['add.f32 %f0, %u0, %u1;'], 0, "register '%u0' has type .u32, incompatible with .f32", 14, '%u0');
  });

  it('bad operand size: a 64-bit register in a 32-bit add', () => {
    bodyError(['add.s32 %r0, %rd0, %r1;'], 0, "register '%rd0' has type .b64, incompatible with .s32");
  });

  it('wrong operand count', () => {
    bodyError(['add.s32 %r0, %r1;'], 0, "'add' expects 3 operands, got 2", 1, 'add.s32');
  });

  it('wrong operand kind', () => {
    bodyError(['ld.global.u32 %r0, %rd0;'], 0, 'expected an address');
    bodyError(['st.global.u32 [%rd0], {%r0, %r1};'], 0, 'expected a register or immediate');
    bodyError(['st.global.v4.f32 [%rd0], {%f0, %f1};'], 0, 'expected 4 vector elements, got 2');
    bodyError(['mov.b64 {%r0, %r1, %r2}, %rd0;'], 0, 'a pack/unpack vector has 2 or 4 elements');
    bodyError(['add.u32 %r0, %tid.x, 1;'], 0, "special register '%tid.x' can only be read by mov or cvt");
    bodyError(['ld.global.f32 %f0, [%f1];'], 0, "address register '%f1' must be a 32- or 64-bit integer register");
  });

  it('immediates that do not fit or have the wrong kind', () => {
    bodyError(['add.u16 %rs0, %rs1, 70000;'], 0, 'immediate 70000 does not fit in .u16');
    bodyError(['add.s32 %r0, %r1, 1.5;'], 0, 'a floating-point literal is not allowed for .s32');
    bodyError(['mov.b32 %r0, 0f3F80;'], 0, "malformed numeric literal '0f3F80'");
    bodyError(['mov.pred %p0, 1.5;'], 0, 'a predicate immediate must be an integer');
  });

  it('unsupported or missing modifiers', () => {
    bodyError(['add.rn.s32 %r0, %r1, %r1;'], 0, "not supported: modifier '.rn' on 'add'");
    bodyError(['add %r0, %r1, %r1;'], 0, "missing type modifier on 'add'");
    bodyError(['mul.s32 %r0, %r1, %r1;'], 0, "integer 'mul' needs .lo, .hi or .wide");
    bodyError(['cvt.s32.f32 %r0, %f0;'], 0, 'float-to-integer cvt needs .rni, .rzi, .rmi or .rpi');
    bodyError(['div.f32 %f0, %f0, %f1;'], 0, "'div.f32' needs exactly one of .approx, .full, .rn/.rz/.rm/.rp");
    bodyError(['setp.lt.b32 %p0, %r0, %r1;'], 0, 'comparison .lt is not allowed with .b32');
    bodyError(['setp.equ.s32 %p0, %r0, %r1;'], 0, 'comparison .equ is only allowed with floating-point types');
    bodyError(['shfl.down.b32 %r0, %r1, 1, 31;'], 0, "not supported: 'shfl' without '.sync'");
    bodyError(['atom.global.cas.u64 %rd0, [%rd1], %rd0, %rd0;'], 0, "type .u64 is not supported for 'atom'");
    bodyError(['add.sat.u32 %r0, %r1, %r1;'], 0, '.sat is only allowed with .s32');
    bodyError(['ld.shared.nc.f32 %f0, [%r0];'], 0, '.nc is only allowed on ld.global');
    bodyError(['bar.sync 16;'], 0, 'barrier id must be 0..15');
  });

  it('guards must be declared predicates', () => {
    bodyError(['@%r0 ret;'], 0, "guard '%r0' is not a .pred register", 1, '%r0');
    bodyError(['@!%p7 ret;'], 0, "undeclared guard predicate '%p7'", 1, '%p7');
  });

  it('a symbol in the wrong state space', () => {
    expectInputError(() => parse(kernel(`${DECLS}\nld.global.f32 %f0, [s];\nret;`, '', '.shared .f32 s[4];')), {
      line: KERNEL_BODY_FIRST_LINE + 2,
      reason: "'s' is in .shared space, not .global",
      field: '[s]',
    });
  });

  it('branch to an undefined label', () => {
    // "@%p0 bra " is 9 characters
    bodyError(['@%p0 bra $L_nowhere;', 'ret;'], 0, "branch to undefined label '$L_nowhere'", 10, '$L_nowhere');
  });

  it('duplicate labels and registers', () => {
    bodyError(['$L1:', 'ret;', '$L1:', 'ret;'], 2, "label '$L1' defined twice");
    bodyError(['.reg .b32 %r1;'], 0, "register '%r1' declared twice");
    bodyError(['.reg .b32 %tid;'], 0, "'%tid' is a reserved register name");
  });

  const fn = (name: string, body: string) => `.func ${name}()\n{\n${body}\n}`;

  it('call to an undefined .func, or to one that is declared but has no body', () => {
    expectInputError(() => parse(`${HEADER}.visible .entry k()\n{\ncall foo;\nret;\n}\n`), {
      line: 6,
      column: 1,
      reason: "call to undefined function 'foo'",
      field: 'foo',
    });
    expectInputError(() => parse(`${HEADER}.func foo();\n.visible .entry k()\n{\nret;\ncall foo;\n}\n`), {
      line: 8,
      reason: "call to .func 'foo' which is declared but never defined",
    });
  });

  it('recursive calls, direct and mutual, are refused', () => {
    expectInputError(() => parse(`${HEADER}${fn('f', 'call f;\nret;')}\n`), {
      line: 6,
      reason: 'not supported: recursion (f -> f)',
    });
    const text = `${HEADER}.func h();\n${fn('g', 'call h;\nret;')}\n${fn('h', 'ret;\ncall g;\nret;')}\n.visible .entry k()\n{\ncall g;\nret;\n}\n`;
    // h is declared first (function 0); g is at lines 5-9 (call h at 7), h at 10-15 (call g at 13).
    // The search starts at h, goes h -> g, and finds the back edge at g's call to h.
    expectInputError(() => parse(text), { line: 7, reason: 'not supported: recursion (h -> g -> h)' });
  });

  it('call argument count and kind mismatches, and calling a kernel', () => {
    expectInputError(() => parse(`${HEADER}.func f(.param .b32 a)\n{\nret;\n}\n.visible .entry k()\n{\ncall f;\nret;\n}\n`), {
      line: 10,
      reason: "'f' takes 1 argument(s), got 0",
    });
    expectInputError(
      () => parse(`${HEADER}.func f(.param .b32 a)\n{\nret;\n}\n.visible .entry k()\n{\n.reg .b64 %rd0;\ncall f, (%rd0);\nret;\n}\n`),
      { line: 11, reason: "argument 0 of 'f' is 8 bytes, the parameter 'a' is 4" },
    );
    expectInputError(() => parse(`${HEADER}.visible .entry j()\n{\nret;\n}\n.visible .entry k()\n{\ncall j;\nret;\n}\n`), {
      line: 10,
      reason: "not supported: dynamic parallelism (a kernel calling kernel 'j')",
    });
  });

  it('module-level problems', () => {
    expectInputError(() => parse('.target sm_75\n'), { line: 1, column: 1, reason: 'a PTX module must start with .version' });
    expectInputError(() => parse('.version 9.0\n.target sm_75\n.version 9.0\n'), { line: 3, reason: 'duplicate .version' });
    expectInputError(() => parse(`${HEADER}.local .b32 x;\n`), { line: 4, reason: 'not supported: module-scope .local variables' });
    expectInputError(() => parse(`${HEADER}.global .b32 x[] ;\n`), { line: 4, reason: "array 'x' needs a size or an initialiser" });
    expectInputError(() => parse(`${HEADER}.global .u8 x[2] = {1, 2, 3};\n`), { line: 4, reason: "initialiser has 3 elements, 'x' holds 2" });
    expectInputError(() => parse(`${HEADER}.global .u8 x = 256;\n`), { line: 4, reason: 'initialiser 256 does not fit in .u8' });
    expectInputError(() => parse(`${HEADER}.global .u64 p = generic(nope);\n`), { line: 4, reason: "initialiser refers to undeclared symbol 'nope'" });
    expectInputError(() => parse(`${HEADER}.global .b32 x;\n.global .b32 x;\n`), { line: 5, reason: "variable 'x' defined twice" });
    expectInputError(() => parse(`${HEADER}.bogus 1\n`), { line: 4, reason: "unknown or misplaced directive '.bogus'" });
    expectInputError(() => parse(`${HEADER}.visible .entry k()\n{\nret;\n`), { line: 5, reason: "unterminated body of 'k'" });
    expectInputError(() => parse(`${HEADER}.visible .entry k()\n{\nret;\n}\n.visible .entry k()\n{\nret;\n}\n`), {
      line: 8,
      reason: "function 'k' defined twice",
    });
  });

  it('lexical errors', () => {
    expectInputError(() => parse(`${HEADER}/* never closed\n.visible .entry k()\n`), { line: 4, column: 1, reason: 'unterminated block comment' });
    expectInputError(() => parse(`${HEADER}.visible .entry k()\n{\n  # ret;\n}\n`), { line: 6, column: 3, reason: "unexpected character '#'" });
    expectInputError(() => parse(`${HEADER}.pragma "never closed;\n`), { line: 4, reason: 'unterminated string literal' });
  });

  it('the message is formatted file:line:column: field: reason', () => {
    const e = bodyError(['add.s32 %r0, %r1, %r9;'], 0, 'undeclared register');
    expect(e.message).toBe(`test.ptx:${FIRST}:19: %r9: add.s32: undeclared register '%r9'`);
  });
});
