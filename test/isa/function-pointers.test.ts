/**
 * Function pointers in the PTX front end (issue 10 item 4, PTX ISA 9.0 §9.7.12.2 `call`, §11.3
 * `.callprototype` / `.calltargets`): a function's address taken by `mov` and by initialisers,
 * the three forms of an indirect call and the functions each may reach, and the errors of
 * malformed ones (file:line named).
 */
import { describe, expect, it } from 'vitest';
import { FUNCTION_ADDRESS_BASE, functionAddress, functionAtAddress, Opcode, OperandKind, OpClass } from '../../src/isa/ir.ts';
import { expectInputError, HEADER, parse } from './helpers.ts';

/** Three `.func (.b32) f(.b32)` of one signature, one of another (`two`: two parameters), a kernel `k` with `body`. */
function module(body: string, extra = ''): string {
  return `${HEADER}.func (.param .b32 r) inc (.param .b32 a) { ret; }
.func (.param .b32 r) dbl (.param .b32 a) { ret; }
.func (.param .b32 r) neg (.param .b32 a) { ret; }
.func (.param .b32 r) two (.param .b32 a, .param .b32 b) { ret; }
${extra}.visible .entry k(.param .u64 p)
{
.reg .b32 %r<4>; .reg .b64 %rd<4>; .reg .pred %p<2>;
${body}
ret;
}
`;
}
/** Line of the first body line of {@link module}: three header lines, four functions, the entry, `{` and the register line come first. */
const BODY = 11;

const callsOf = (text: string) => {
  const m = parse(text);
  const k = m.functions[m.functionByName.get('k')!]!;
  return { m, calls: k.instructions.filter((i) => i.op === Opcode.Call) };
};
const names = (m: ReturnType<typeof parse>, idx: readonly number[]) => idx.map((i) => m.functions[i]!.name);

describe('function addresses', () => {
  it('are 0xF0000000 + 16 x function index, and map back', () => {
    expect(FUNCTION_ADDRESS_BASE).toBe(0xf0000000);
    expect(functionAddress(0)).toBe(0xf0000000);
    expect(functionAddress(3)).toBe(0xf0000030);
    expect(functionAtAddress(0xf0000030, 4)).toBe(3);
    expect(functionAtAddress(0xf0000040, 4)).toBe(-1); // past the last function
    expect(functionAtAddress(0xf0000018, 4)).toBe(-1); // between two
    expect(functionAtAddress(0xefffffff, 4)).toBe(-1);
    expect(functionAtAddress(0, 4)).toBe(-1);
  });

  it('mov of a .func gives its address as an immediate and marks it address-taken', () => {
    const { m } = callsOf(module('mov.u64 %rd1, dbl;\nmov.b32 %r1, neg;'));
    const k = m.functions[m.functionByName.get('k')!]!;
    const [a, b] = k.instructions;
    // inc, dbl, neg, two are functions 0..3, k is 4
    expect([a!.src[0]!.kind, a!.src[0]!.value, b!.src[0]!.value]).toEqual([OperandKind.Imm, 0xf0000010, 0xf0000020]);
    expect(names(m, m.addressTaken)).toEqual(['dbl', 'neg']);
  });

  it('function names in .global and .const initialisers are relocations to functions (call tables)', () => {
    const m = parse(module('', '.global .align 8 .u64 gt[2] = {neg, inc};\n.const .align 8 .u64 ct[1] = {generic(two)};\n'));
    expect(m.globals.find((v) => v.name === 'gt')!.relocations.map((r) => [r.symbol, r.byteOffset])).toEqual([['neg', 0], ['inc', 8]]);
    expect(names(m, m.addressTaken)).toEqual(['inc', 'neg', 'two']);
  });

  it('a function name anywhere else, a kernel address, an offset on a function are refused', () => {
    expectInputError(() => parse(module('add.s64 %rd1, dbl, 8;')), { line: BODY, reason: "'dbl' is a function: take its address with mov" });
    expectInputError(() => parse(module('mov.u64 %rd1, k;')), { line: BODY, reason: "not supported: dynamic parallelism (address of kernel 'k')" });
    expectInputError(() => parse(module('mov.f32 %r1, dbl;')), { line: BODY, reason: /type .f32 is not supported for 'mov'|needs a 32- or 64-bit integer type/ });
    expectInputError(() => parse(module('', '.global .align 8 .u64 gt[1] = {dbl+16};\n')), { line: 8, reason: 'a function address takes no offset' });
  });
});

describe('indirect calls', () => {
  const seq = (call: string, decl = '') => `{
.param .b32 a0;
.param .b32 r0;
${decl}
st.param.b32 [a0], %r1;
${call}
ld.param.b32 %r2, [r0];
}`;

  it('with a .callprototype: every address-taken function of that signature (nvcc\'s form)', () => {
    const text = module(`mov.u64 %rd1, dbl;\nmov.u64 %rd2, inc;\nmov.u64 %rd3, two;\n${seq('call (r0), %rd1, (a0), proto;', 'proto : .callprototype (.param .b32 _) _ (.param .b32 _);')}`);
    const { m, calls } = callsOf(text);
    expect(calls.length).toBe(1);
    const c = calls[0]!;
    expect(c.callee).toBe(-1);
    expect(c.opClass).toBe(OpClass.Call);
    // neg has the signature but its address is never taken; two takes two parameters
    expect(names(m, c.callTargets)).toEqual(['inc', 'dbl']);
    // the pointer register is a source (the scoreboard waits for it), the return register a destination
    expect(c.src.map((o) => o.kind)).toEqual([OperandKind.Reg]);
    expect(c.srcRegs.length).toBe(1);
  });

  it('without arguments or return values (call fptr, proto;)', () => {
    const text = `${HEADER}.func nop0 () { ret; }\n.visible .entry k()\n{\n.reg .b64 %rd<2>;\nmov.u64 %rd1, nop0;\n{\nq : .callprototype _ ();\ncall %rd1, q;\n}\nret;\n}\n`;
    const { m, calls } = callsOf(text);
    expect(names(m, calls[0]!.callTargets)).toEqual(['nop0']);
  });

  it('with .calltargets: the functions listed, in module order', () => {
    const { m, calls } = callsOf(module(seq('call (r0), %rd1, (a0), tl;', 'tl: .calltargets neg, inc;')));
    expect(names(m, calls[0]!.callTargets)).toEqual(['inc', 'neg']);
  });

  it('with a call table (an array initialised with function names)', () => {
    const { m, calls } = callsOf(module(seq('call (r0), %rd1, (a0), tab;'), '.global .align 8 .u64 tab[3] = {dbl, neg, dbl};\n'));
    expect(names(m, calls[0]!.callTargets)).toEqual(['dbl', 'neg']);
  });

  it('prototypes are scoped to their block', () => {
    const text = module(`mov.u64 %rd1, dbl;\n${seq('call (r0), %rd1, (a0), proto;', 'proto : .callprototype (.param .b32 _) _ (.param .b32 _);')}\n${seq('call (r0), %rd1, (a0), proto;')}`);
    // the second call sequence (its own block) does not see the first block's prototype
    expectInputError(() => parse(text), { line: BODY + 14, reason: "'proto' is no .callprototype or .calltargets label in scope, nor a call table" });
  });

  it('refuses a call that does not match its prototype, a listed function of another signature, a list naming no function or a kernel', () => {
    // the call passes one .b32, the prototype wants two
    expectInputError(() => parse(module(seq('call (r0), %rd1, (a0), proto;', 'proto : .callprototype (.param .b32 _) _ (.param .b32 _, .param .b32 _);'))), {
      line: BODY + 5,
      reason: "the call's arguments and return values do not match prototype 'proto' (4) _ (4, 4) bytes",
    });
    expectInputError(() => parse(module(seq('call (r0), %rd1, (a0), tl;', 'tl: .calltargets inc, two;'))), { line: BODY + 5, reason: "call target 'two' of 'tl' takes (4) _ (4, 4) bytes" });
    expectInputError(() => parse(module(seq('call (r0), %rd1, (a0), tl;', 'tl: .calltargets inc, nosuch;'))), { line: BODY + 3, reason: "call target 'nosuch' of 'tl' is not a function" });
    expectInputError(() => parse(module(seq('call (r0), %rd1, (a0), tl;', 'tl: .calltargets k;'))), { line: BODY + 3, reason: "not supported: dynamic parallelism (kernel 'k' as a call target)" });
  });

  it('refuses malformed indirect calls: no list, a list that is nothing, a float pointer, a direct call with a list, a label-less prototype', () => {
    expectInputError(() => parse(module(seq('call (r0), %rd1, (a0);'))), { line: BODY + 5, reason: 'an indirect call needs a .callprototype or .calltargets label' });
    expectInputError(() => parse(module(seq('call (r0), %rd1, (a0), nothing;'))), { line: BODY + 5, reason: "'nothing' is no .callprototype or .calltargets label in scope" });
    expectInputError(() => parse(module(seq('call (r0), %p1, (a0), proto;', 'proto : .callprototype (.param .b32 _) _ (.param .b32 _);'))), { line: BODY + 5, reason: "function pointer '%p1' must be a 32- or 64-bit integer register" });
    expectInputError(() => parse(module(seq('call (r0), inc, (a0), proto;', 'proto : .callprototype (.param .b32 _) _ (.param .b32 _);'))), { line: BODY + 5, reason: 'a direct call takes no prototype or target list' });
    expectInputError(() => parse(module('.callprototype (.param .b32 _) _ (.param .b32 _);')), { line: BODY, reason: '.callprototype needs a label' });
    expectInputError(() => parse(module('p: .callprototype (.param .b32 _) f (.param .b32 _);')), { line: BODY, reason: "expected '_' (the function name) in a .callprototype" });
  });

  it('a cycle through a pointer is not a load-time error (it is checked per thread at run time)', () => {
    // f calls through a pointer of its own signature, and takes its own address
    const text = `${HEADER}.func f (.param .b64 a)
{
.reg .b64 %rd<2>;
ld.param.u64 %rd1, [a];
{
.param .b64 x;
st.param.b64 [x], %rd1;
pr : .callprototype _ (.param .b64 _);
call %rd1, (x), pr;
}
ret;
}
.visible .entry k()
{
.reg .b64 %rd<2>;
mov.u64 %rd1, f;
ret;
}
`;
    const m = parse(text);
    const call = m.functions[0]!.instructions.find((i) => i.op === Opcode.Call)!;
    expect(names(m, call.callTargets)).toEqual(['f']);
  });
});
