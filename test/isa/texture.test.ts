/**
 * PTX front end for textures and surfaces (PTX ISA §5.3, §9.7.10-11): module-scope `.texref`,
 * `.surfref`, `.samplerref` (with initialisers), `tex`, `tld4`, `txq`, `suld.b`, `sust.b`, `suq`
 * as nvcc 13 writes them for texture and surface objects, and the forms refused as not supported.
 */
import { describe, expect, it } from 'vitest';
import { OpaqueType, OpClass, Opcode, OperandKind, ScalarType, StateSpace, SurfClamp, TexGeom, TexQuery } from '../../src/isa/ir.ts';
import type { Instruction } from '../../src/isa/ir.ts';
import { expectInputError, HEADER, kernel, KERNEL_BODY_FIRST_LINE, parse, parseKernel, reg } from './helpers.ts';

const DECLS = '.reg .b64 %rd<4>;\n.reg .f32 %f<12>;\n.reg .b32 %r<12>;\n.reg .b16 %rs<4>;\n.reg .pred %p<2>;';
/** Line of the first instruction after {@link DECLS}. */
const FIRST = KERNEL_BODY_FIRST_LINE + 5;

function one(line: string, prelude = ''): { ins: Instruction; fn: ReturnType<typeof parseKernel> } {
  const fn = parseKernel(`${DECLS}\n${line}`, '.param .u64 k_p0', prelude);
  return { ins: fn.instructions[0]!, fn };
}

function refused(line: string, reason: string | RegExp, prelude = '', at = FIRST): void {
  expectInputError(() => parse(kernel(`${DECLS}\n${line}`, '.param .u64 k_p0', prelude)), { line: at + (prelude === '' ? 0 : prelude.split('\n').length), reason });
}

describe('tex and tld4', () => {
  it('tex.2d.v4.f32.f32 with a texture object: a Load in the tex space, 4 destinations, handle and coordinates read', () => {
    const { ins, fn } = one('tex.2d.v4.f32.f32 {%f0, %f1, %f2, %f3}, [%rd1, {%f4, %f5}];');
    expect([ins.op, ins.opClass, ins.space, ins.geom, ins.type, ins.type2, ins.vec, ins.longLatency, ins.accessBytes]).toEqual([Opcode.Tex, OpClass.Load, StateSpace.Tex, TexGeom.D2, ScalarType.F32, ScalarType.F32, 4, true, 16]);
    expect(ins.src.map((o) => o.kind)).toEqual([OperandKind.Reg, OperandKind.Vec]);
    expect(Array.from(ins.srcRegs)).toEqual(['%rd1', '%f4', '%f5'].map((n) => reg(fn, n)));
    expect(Array.from(ins.dstRegs)).toEqual(['%f0', '%f1', '%f2', '%f3'].map((n) => reg(fn, n)));
  });

  it('every geometry takes its coordinate vector: {x}, {x, y, z, _}, {layer, x}, {layer, x, y, _}; .s32 coordinates and integer results', () => {
    expect(one('tex.1d.v4.f32.s32 {%f0, %f1, %f2, %f3}, [%rd1, {%r1}];').ins.geom).toBe(TexGeom.D1);
    expect(one('tex.3d.v4.f32.f32 {%f0, %f1, %f2, %f3}, [%rd1, {%f4, %f5, %f6, %f6}];').ins.geom).toBe(TexGeom.D3);
    expect(one('tex.a1d.v4.f32.f32 {%f0, %f1, %f2, %f3}, [%rd1, {%r1, %f4}];').ins.geom).toBe(TexGeom.A1d);
    expect(one('tex.a2d.v4.s32.f32 {%r0, %r1, %r2, %r3}, [%rd1, {%r4, %f4, %f5, %f5}];').ins.type).toBe(ScalarType.S32);
    expect(one('tex.2d.v4.u32.f32 {%r0, %r1, %r2, _}, [%rd1, {%f4, %f5}];').ins.dst[0]!.elems[3]!.kind).toBe(OperandKind.Sink);
  });

  it('tld4.{r,g,b,a}.2d gathers one component', () => {
    const { ins } = one('tld4.b.2d.v4.f32.f32 {%f0, %f1, %f2, %f3}, [%rd1, {%f4, %f5}];');
    expect([ins.op, ins.texComp, ins.geom, ins.opClass]).toEqual([Opcode.Tld4, 2, TexGeom.D2, OpClass.Load]);
  });

  it('a module .texref names the texture; an explicit .samplerref is the third operand', () => {
    const pre = '.global .texref tr;\n.global .samplerref smp = { filter_mode = linear, addr_mode_0 = wrap, addr_mode_1 = clamp_to_border };';
    const { ins } = one('tex.2d.v4.f32.f32 {%f0, %f1, %f2, %f3}, [tr, smp, {%f4, %f5}];', pre);
    expect(ins.src.map((o) => o.kind)).toEqual([OperandKind.Symbol, OperandKind.Vec, OperandKind.Symbol]);
    expect([ins.src[0]!.symbol!.opaque, ins.src[2]!.symbol!.opaque]).toEqual([OpaqueType.Texref, OpaqueType.Samplerref]);
    expect(ins.src[2]!.symbol!.samplerInit).toEqual({ filterMode: 'linear', addrMode: ['wrap', 'clamp_to_border', undefined], normalizedCoords: undefined });
  });

  it('refuses what warpstate does not execute, by name', () => {
    refused('tex.level.2d.v4.f32.f32 {%f0, %f1, %f2, %f3}, [%rd1, {%f4, %f5}], %f6;', 'not supported: mipmapped texture fetch (tex.level)');
    refused('tex.grad.2d.v4.f32.f32 {%f0, %f1, %f2, %f3}, [%rd1, {%f4, %f5}], {%f6, %f7}, {%f6, %f7};', 'not supported: mipmapped texture fetch (tex.grad)');
    refused('tex.cube.v4.f32.f32 {%f0, %f1, %f2, %f3}, [%rd1, {%f4, %f5, %f6, %f6}];', 'not supported: cube textures (.cube)');
    refused('tex.2dms.v4.f32.s32 {%f0, %f1, %f2, %f3}, [%rd1, {%r4, %r5, %r6, %r6}];', 'not supported: multisample textures (.2dms)');
    refused('tex.2d.v4.f32.f32 {%f0, %f1, %f2, %f3}|%p0, [%rd1, {%f4, %f5}];', 'not supported: texture residency predicate (d|p)');
    refused('tex.2d.v4.f32.f32 {%f0, %f1, %f2, %f3}, [%rd1, {%f4, %f5}], {%r1, %r2};', /not supported: texture fetch offsets and depth compare/);
    refused('tex.2d.v4.f32.f32 {%f0, %f1, %f2, %f3}, [%rd1, {%f4}];', '.2d takes 2 coordinates, got 1');
    refused('tex.2d.v4.f32.f32 {%f0, %f1, %f2, %f3}, [%r1, {%f4, %f5}];', "texture handle register '%r1' must be .u64 or .b64, not .b32");
    refused('tex.2d.v4.f64.f32 {%f0, %f1, %f2, %f3}, [%rd1, {%f4, %f5}];', /texture destination type \.f64 is not supported/);
    refused('tld4.r.1d.v4.f32.f32 {%f0, %f1, %f2, %f3}, [%rd1, {%f4}];', "'tld4' takes .2d or .a2d, not .1d");
    refused('istypep.texref %p0, %rd1;', 'not supported: texture instructions (istypep)');
  });
});

describe('txq and suq', () => {
  it('read one attribute into a .b32 register (ALU class)', () => {
    const { ins } = one('txq.height.b32 %r0, [%rd1];');
    expect([ins.op, ins.texQuery, ins.opClass, ins.src[0]!.kind]).toEqual([Opcode.Txq, TexQuery.Height, OpClass.Alu, OperandKind.Reg]);
    expect(one('suq.depth.b32 %r0, [%rd1];').ins.texQuery).toBe(TexQuery.Depth);
    expect(one('txq.addr_mode_1.b32 %r0, [smp];', '.global .samplerref smp;').ins.src[0]!.symbol!.opaque).toBe(OpaqueType.Samplerref);
  });

  it('refuses channel and mipmap-level queries, and a sampler where a texture is needed', () => {
    refused('txq.channel_order.b32 %r0, [%rd1];', 'not supported: txq.channel_order');
    refused('txq.level.width.b32 %r0, [%rd1], %r1;', 'not supported: mipmap level queries (txq.level)');
    refused('txq.width.b32 %r0, [smp];', "'smp' is not a .texref variable", '.global .samplerref smp;');
  });
});

describe('suld.b and sust.b', () => {
  it('suld.b.2d.b32.clamp as nvcc writes it: a one-element vector destination, a global Load', () => {
    const { ins, fn } = one('suld.b.2d.b32.clamp {%r0}, [%rd1, {%r1, %r2}];');
    expect([ins.op, ins.opClass, ins.space, ins.geom, ins.surfClamp, ins.type, ins.vec, ins.accessBytes, ins.longLatency]).toEqual([Opcode.Suld, OpClass.Load, StateSpace.Global, TexGeom.D2, SurfClamp.Clamp, ScalarType.B32, 1, 4, true]);
    expect(Array.from(ins.dstRegs)).toEqual([reg(fn, '%r0')]);
  });

  it('vector, byte and layered forms; sust with a value vector is a Store', () => {
    expect(one('suld.b.1d.v2.b32.zero {%r0, %r1}, [%rd1, {%r2}];').ins.accessBytes).toBe(8);
    expect(one('suld.b.1d.b16.trap {%rs0}, [%rd1, {%r2}];').ins.accessBytes).toBe(2);
    const st = one('sust.b.3d.v4.b8.trap [%rd1, {%r1, %r2, %r3, %r3}], {%rs0, %rs1, %rs2, %rs3};').ins;
    expect([st.op, st.opClass, st.geom, st.surfClamp, st.accessBytes, st.longLatency]).toEqual([Opcode.Sust, OpClass.Store, TexGeom.D3, SurfClamp.Trap, 4, false]);
    expect(one('sust.b.a1d.b32.clamp [%rd1, {%r1, %r2}], {%r3};').ins.src.length).toBe(3);
    expect(one('suld.b.2d.b32.trap %r0, [sr, {%r1, %r2}];', '.global .surfref sr;').ins.src[0]!.symbol!.opaque).toBe(OpaqueType.Surfref);
  });

  it('refuses formatted accesses and missing modes', () => {
    refused('sust.p.2d.b32.trap [%rd1, {%r1, %r2}], {%r3};', 'not supported: formatted surface store (sust.p)');
    refused('suld.p.2d.b32.trap {%r0}, [%rd1, {%r1, %r2}];', 'not supported: formatted surface load (suld.p)');
    refused('suld.b.2d.b32 {%r0}, [%rd1, {%r1, %r2}];', "'suld' needs an out-of-bounds mode (.trap .clamp .zero)");
    refused('sured.b.add.2d.u32.trap [%rd1, {%r1, %r2}], %r3;', 'not supported: surface reductions (sured)');
    refused('suld.b.2d.b32.trap {%r0}, [%rd1, {%f1, %f2}];', "register '%f1' has type .f32, incompatible with .s32");
  });
});

describe('module-scope texture, surface and sampler references', () => {
  it('.global .texref/.surfref/.samplerref (and .tex .u32) are opaque variables with no storage', () => {
    const m = parse(`${HEADER}.global .texref a, b;\n.global .surfref s;\n.tex .u32 old;\n.global .texref init = { normalized_coords = 1, filter_mode = nearest };\n.visible .entry k() { ret; }\n`);
    expect(m.globals.map((g) => [g.name, g.opaque, g.sizeBytes])).toEqual([['a', OpaqueType.Texref, 0], ['b', OpaqueType.Texref, 0], ['s', OpaqueType.Surfref, 0], ['old', OpaqueType.Texref, 0], ['init', OpaqueType.Texref, 0]]);
    expect(m.globals[4]!.samplerInit).toEqual({ filterMode: 'nearest', addrMode: [undefined, undefined, undefined], normalizedCoords: true });
  });

  it('bad declarations and initialisers are refused at their line', () => {
    const at = (decl: string, reason: string | RegExp) => expectInputError(() => parse(`${HEADER}${decl}\n.visible .entry k() { ret; }\n`), { line: 4, reason });
    at('.global .samplerref p = { filter_mode = cubic };', 'filter_mode must be nearest or linear, found \'cubic\'');
    at('.global .samplerref p = { addr_mode_3 = wrap };', "not supported: field 'addr_mode_3' in a .samplerref initialiser");
    at('.global .surfref s = { filter_mode = linear };', 'a .surfref cannot be initialised');
    at('.global .texref t[4];', 'not supported: arrays of .texref');
    at('.const .texref t;', '.texref variables must be declared in .global');
    expectInputError(() => parse(`${HEADER}.visible .entry k(.param .texref t) { ret; }\n`), { line: 4, reason: 'not supported: .texref parameters (pass a texture or surface object as .u64)' });
  });

  it('a reference cannot be used as memory or as a value', () => {
    refused('ld.global.u64 %rd0, [tr];', "'tr' is a texture, surface or sampler reference, not memory", '.global .texref tr;');
    refused('mov.u64 %rd0, tr;', "not supported: the value of texture, surface or sampler reference 'tr'", '.global .texref tr;');
  });
});
