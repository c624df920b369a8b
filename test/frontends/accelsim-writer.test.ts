import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  AccelSimTraceWriter, AddressMode, chooseAddressMode, formatInstructionLine, openAccelSimTrace, writeAccelSimTrace,
  type TraceInstruction, type WriterCommand, type WriterCta, type WriterInstruction,
} from '../../src/frontends/accelsim/index.ts';

const SHARED = resolve(process.cwd(), 'data', 'accelsim-traces');
const lanes = (f: (lane: number) => number): number[] => Array.from({ length: 32 }, (_, l) => f(l));

describe('address mode choice', () => {
  it('base + stride for one contiguous run', () => {
    expect(chooseAddressMode(0xffffffff, lanes((l) => 0x1000 + 4 * l))).toEqual({ mode: AddressMode.BaseStride, text: '1 0x1000 4' });
    expect(chooseAddressMode(0x00000ff0, lanes((l) => 1000 - 8 * l))).toEqual({ mode: AddressMode.BaseStride, text: `1 0x${(1000 - 32).toString(16)} -8` });
  });

  it('base + deltas for gaps, irregular strides and one lane', () => {
    // lanes 0, 2, 31 with addresses 0x2000, 0x2010, 0x1ff0
    const a = lanes(() => 0);
    a[0] = 0x2000; a[2] = 0x2010; a[31] = 0x1ff0;
    expect(chooseAddressMode(0x80000005, a)).toEqual({ mode: AddressMode.BaseDelta, text: '2 0x2000 16 -32' });
    expect(chooseAddressMode(0x7, [0, 4, 12, ...lanes(() => 0)])).toEqual({ mode: AddressMode.BaseDelta, text: '2 0x0 4 8' });
    expect(chooseAddressMode(0x10, lanes((l) => l * 100))).toEqual({ mode: AddressMode.BaseDelta, text: '2 0x190' });
  });

  it('no active lane, and the uncompressed list', () => {
    expect(chooseAddressMode(0, lanes(() => 5))).toEqual({ mode: AddressMode.BaseStride, text: '1 0x0 0' });
    expect(chooseAddressMode(0x3, [0x10, 0x20, ...lanes(() => 0)], false)).toEqual({
      mode: AddressMode.ListAll, text: '0 0x0000000000000010 0x0000000000000020',
    });
  });

  it('formats a line as the tracer does', () => {
    const line = formatInstructionLine({
      pc: 0x98, activeMask: 0xffffffff, opcode: 'LDG.E.CG', dstRegs: [4], srcRegs: [4], memWidth: 4,
      addresses: lanes((l) => 0x7f2b2d500000 + 4 * l),
    }, false);
    // line 15 of the shared vectoradd trace
    expect(line).toBe('0098 ffffffff 1 R4 LDG.E.CG 1 R4 4 1 0x7f2b2d500000 4 ');
    expect(formatInstructionLine({ pc: 0x48, activeMask: 0xffffffff, opcode: 'ISETP.GE.AND', dstPreds: [0], srcRegs: [0, 255] }, true))
      .toBe('0 0048 ffffffff 1 P0 ISETP.GE.AND 2 R0 R255 0 ');
    expect(() => formatInstructionLine({ pc: 0, activeMask: 1, opcode: 'two words' }, false)).toThrow(RangeError);
    expect(() => formatInstructionLine({ pc: 0, activeMask: 1, opcode: 'MOV', dstRegs: [256] }, false)).toThrow(RangeError);
  });
});

/** Reads every instruction of every kernel, grouped by kernel, CTA and warp. */
function readAll(dir: string): TraceInstruction[][][][] {
  const t = openAccelSimTrace(dir);
  const out = t.kernels.map((k) => [...k.ctas()].map((c) => c.warps.map((w) => [...w.instructions])));
  t.close();
  return out;
}

describe('writer', () => {
  for (const name of ['vectoradd-100-32', 'matrixmul-32-32']) {
    it(`rewriting the shared ${name} trace reproduces its files byte for byte`, () => {
      const src = openAccelSimTrace(join(SHARED, name));
      const out = mkdtempSync(join(tmpdir(), 'ws-write-'));
      const w = new AccelSimTraceWriter(out);
      for (const c of src.commands) {
        if (c.kind === 'memcpyHtoD') w.memcpyHtoD(c.address, c.bytes);
        else {
          const k = src.kernels[c.kernelIndex]!;
          const kw = w.beginKernel(k.header);
          for (const cta of k.ctas()) kw.writeCta({ id: cta.id, warps: cta.warps.map((x) => x.instructions) });
          kw.end();
        }
      }
      w.close();
      src.close();
      for (const f of ['kernelslist.g', 'kernel-1.traceg']) {
        expect(readFileSync(join(out, f), 'latin1')).toBe(readFileSync(join(SHARED, name, f), 'latin1'));
      }
    });
  }

  it('refuses an incomplete grid at end()', () => {
    const out = mkdtempSync(join(tmpdir(), 'ws-write-'));
    const w = new AccelSimTraceWriter(out);
    const k = w.beginKernel({ name: 'k', gridDim: { x: 2, y: 1, z: 1 }, blockDim: { x: 32, y: 1, z: 1 }, binaryVersion: 70 });
    k.writeCta({ id: { x: 0, y: 0, z: 0 }, warps: [[{ pc: 0, activeMask: 1, opcode: 'EXIT' }]] });
    expect(() => k.end()).toThrow(/1 CTAs written but the grid has 2/);
    expect(() => k.writeCta({ id: { x: 5, y: 0, z: 0 }, warps: [] })).toThrow();
    w.close();
  });
});

describe('round trip: written traces read back as the same instruction stream', () => {
  const opcode = fc.constantFrom('FFMA', 'IADD3', 'LDG.E.SYS', 'STS.128', 'ATOMG.E.ADD.STRONG.GPU', 'ISETP.GE.AND', 'EXIT', 'BAR.SYNC',
    'ld.global.f32', 'st.shared.u32', 'mad.lo.s32', 'div.rn.f64');
  const address = fc.integer({ min: 0, max: 2 ** 48 });
  const addresses = fc.oneof(
    // strided
    fc.tuple(address, fc.integer({ min: -4096, max: 4096 })).map(([b, s]) => lanes((l) => Math.max(0, b + s * l))),
    // arbitrary
    fc.array(address, { minLength: 32, maxLength: 32 }),
    // all the same
    address.map((a) => lanes(() => a)),
  );
  const mask = fc.oneof(fc.constant(0xffffffff), fc.constant(0), fc.integer({ min: 0, max: 0xffffffff }),
    fc.tuple(fc.nat({ max: 31 }), fc.nat({ max: 31 })).map(([a, b]) => { const lo = Math.min(a, b); const hi = Math.max(a, b); return (((2 ** (hi - lo + 1)) - 1) * 2 ** lo) >>> 0; }));
  const instruction: fc.Arbitrary<WriterInstruction> = fc.record({
    pc: fc.nat({ max: 0xfffff }),
    activeMask: mask,
    opcode,
    dstRegs: fc.array(fc.nat({ max: 255 }), { maxLength: 4 }),
    dstPreds: fc.array(fc.nat({ max: 7 }), { maxLength: 2 }),
    srcRegs: fc.array(fc.nat({ max: 255 }), { maxLength: 5 }),
    srcPreds: fc.array(fc.nat({ max: 7 }), { maxLength: 2 }),
    memWidth: fc.constantFrom(0, 0, 1, 4, 8, 16),
    addresses,
    sourceLine: fc.nat({ max: 5000 }),
  });
  const kernel = fc.record({
    grid: fc.record({ x: fc.integer({ min: 1, max: 3 }), y: fc.integer({ min: 1, max: 2 }), z: fc.constant(1) }),
    threads: fc.integer({ min: 1, max: 96 }),
    lineinfo: fc.boolean(),
    warps: fc.array(fc.array(instruction, { maxLength: 6 }), { minLength: 1, maxLength: 3 }),
  });

  it('property: write then read gives the same fields', () => {
    fc.assert(fc.property(fc.array(kernel, { minLength: 1, maxLength: 2 }), fc.boolean(), (kernels, compress) => {
      const out = mkdtempSync(join(tmpdir(), 'ws-rt-'));
      const expected: WriterInstruction[][][][] = [];
      const commands: WriterCommand[] = [{ kind: 'memcpyHtoD', address: 0x1000, bytes: 64 }];
      for (const k of kernels) {
        const warpsPerCta = Math.ceil(k.threads / 32);
        const ctas: WriterCta[] = [];
        for (let z = 0; z < k.grid.z; z++) for (let y = 0; y < k.grid.y; y++) for (let x = 0; x < k.grid.x; x++) {
          // every CTA gets the generated warps (cut to the block's warp count), shifted by the CTA index
          const shift = ctas.length * 8;
          const warps = Array.from({ length: warpsPerCta }, (_, w) => (k.warps[w] ?? []).map((i) => ({ ...i, pc: i.pc + shift })));
          ctas.push({ id: { x, y, z }, warps });
        }
        expected.push(ctas.map((c) => c.warps as WriterInstruction[][]));
        commands.push({ kind: 'kernel', kernel: { header: { name: 'k', gridDim: k.grid, blockDim: { x: k.threads, y: 1, z: 1 }, binaryVersion: 70, enableLineinfo: k.lineinfo }, ctas } });
      }
      writeAccelSimTrace(out, commands, { compress });
      const got = readAll(out);
      expect(got.length).toBe(kernels.length);
      for (let ki = 0; ki < kernels.length; ki++) {
        expect(got[ki]!.length).toBe(expected[ki]!.length);
        for (let c = 0; c < expected[ki]!.length; c++) {
          for (let w = 0; w < expected[ki]![c]!.length; w++) {
            const want = expected[ki]![c]![w]!;
            const have = got[ki]![c]![w]!;
            expect(have.length).toBe(want.length);
            for (let i = 0; i < want.length; i++) {
              const a = want[i]!;
              const b = have[i]!;
              expect(b.pc).toBe(a.pc);
              expect(b.activeMask).toBe(a.activeMask >>> 0);
              expect(b.opcode).toBe(a.opcode);
              expect(Array.from(b.dstRegs)).toEqual(Array.from(a.dstRegs!));
              expect(Array.from(b.dstPreds)).toEqual(Array.from(a.dstPreds!));
              expect(Array.from(b.srcRegs)).toEqual(Array.from(a.srcRegs!));
              expect(Array.from(b.srcPreds)).toEqual(Array.from(a.srcPreds!));
              expect(b.memWidth).toBe(a.memWidth);
              expect(b.sourceLine).toBe(kernels[ki]!.lineinfo ? a.sourceLine : 0);
              if (a.memWidth! > 0) {
                expect(Array.from(b.addresses)).toEqual(lanes((l) => ((a.activeMask >>> l) & 1 ? a.addresses![l]! : 0)));
                if (!compress) expect(b.addressMode).toBe(AddressMode.ListAll);
              } else {
                expect(b.addresses.length).toBe(0);
              }
            }
          }
        }
      }
      expect(readFileSync(join(out, 'kernelslist.g'), 'latin1').split('\n')[0]).toBe('MemcpyHtoD,0x0000000000001000,64');
    }), { numRuns: 60, seed: 10 });
  });
});
