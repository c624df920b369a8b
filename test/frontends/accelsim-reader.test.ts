import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OpClass, StateSpace } from '../../src/isa/ir.ts';
import { AddressMode, openAccelSimTrace, SassArch, type TraceInstruction } from '../../src/frontends/accelsim/index.ts';

const SHARED = resolve(process.cwd(), 'data', 'accelsim-traces');
const FIX = resolve(process.cwd(), 'test', 'frontends', 'fixtures');

const allInstructions = (dir: string): TraceInstruction[] => {
  const t = openAccelSimTrace(dir);
  const out: TraceInstruction[] = [];
  for (const k of t.kernels) for (const cta of k.ctas()) for (const w of cta.warps) out.push(...w.instructions);
  t.close();
  return out;
};

describe('shared Accel-Sim traces', () => {
  it('vectoradd: commands, header and 344 warp instructions', () => {
    const t = openAccelSimTrace(join(SHARED, 'vectoradd-100-32'));
    // kernelslist.g: three MemcpyHtoD lines then the kernel
    expect(t.commands).toEqual([
      { kind: 'memcpyHtoD', address: 0x00007f2b2d500000, bytes: 400, line: 1 },
      { kind: 'memcpyHtoD', address: 0x00007f2b2d500200, bytes: 400, line: 2 },
      { kind: 'memcpyHtoD', address: 0x00007f2b2d500400, bytes: 400, line: 3 },
      expect.objectContaining({ kind: 'kernel', file: 'kernel-1.traceg', kernelIndex: 0, line: 4 }),
    ]);
    const k = t.kernels[0]!;
    expect(k.header).toEqual({
      name: '_Z6vecAddIfEvPT_S1_S1_i', id: 1, gridDim: { x: 1, y: 1, z: 1 }, blockDim: { x: 1024, y: 1, z: 1 },
      shmem: 0, nregs: 8, binaryVersion: 61, cudaStreamId: 0, shmemBaseAddr: 0x00007f2b5a000000,
      localMemBaseAddr: 0x00007f2b58000000, nvbitVersion: '1.5.5', tracerVersion: 4, enableLineinfo: false, extra: {},
    });
    expect(k.instructionCount).toBe(344);
    expect(t.instructionCount).toBe(344);
    expect(k.ctaCount).toBe(1);
    expect(k.arch).toBe(SassArch.Pascal);
    const cta = k.cta(0);
    expect(cta.id).toEqual({ x: 0, y: 0, z: 0 });
    expect(cta.warps).toHaveLength(32);
    expect(cta.instructionCount).toBe(344);
    // warp 0 line 15: "0098 ffffffff 1 R4 LDG.E.CG 1 R4 4 1 0x7f2b2d500000 4"
    const w0 = cta.warps[0]!;
    expect(w0.length).toBe(23);
    const ldg = w0.instructions[14]!;
    expect(ldg.pc).toBe(0x98);
    expect(ldg.opcode).toBe('LDG.E.CG');
    expect(ldg.opClass).toBe(OpClass.Load);
    expect(ldg.info.space).toBe(StateSpace.Global);
    expect(ldg.info.longLatency).toBe(true);
    expect(Array.from(ldg.dstRegs)).toEqual([4]);
    expect(Array.from(ldg.srcRegs)).toEqual([4]);
    expect(ldg.memWidth).toBe(4);
    expect(ldg.addressMode).toBe(AddressMode.BaseStride);
    for (let lane = 0; lane < 32; lane++) expect(ldg.addresses[lane]).toBe(0x7f2b2d500000 + 4 * lane);
    // "0048 ffffffff 0 ISETP.GE.AND 1 R0 0": no destination register
    const isetp = w0.instructions[6]!;
    expect(isetp.dstRegs.length).toBe(0);
    expect(isetp.addresses.length).toBe(0);
    // "0058 00000000 0 EXIT 0 0": a fully inactive instruction
    expect(w0.instructions[8]!.activeMask).toBe(0);
    expect(w0.instructions[8]!.opClass).toBe(OpClass.Exit);
    t.close();
  });

  it('matrixmul: header and 4416 warp instructions over 32 warps', () => {
    const t = openAccelSimTrace(join(SHARED, 'matrixmul-32-32'));
    expect(t.commands.map((c) => c.kind)).toEqual(['memcpyHtoD', 'memcpyHtoD', 'kernel']);
    const k = t.kernels[0]!;
    expect(k.header).toMatchObject({
      name: '_Z8mult_gpuIfEvPT_S1_S1_ii', id: 1, gridDim: { x: 1, y: 1, z: 1 }, blockDim: { x: 32, y: 32, z: 1 },
      shmem: 8192, nregs: 30, binaryVersion: 61, shmemBaseAddr: 0x00007fb05c000000, localMemBaseAddr: 0x00007fb05a000000,
      tracerVersion: 4, enableLineinfo: false,
    });
    expect(k.instructionCount).toBe(4416);
    const cta = k.cta(0);
    expect(cta.instructionCount).toBe(4416);
    expect(cta.warps.map((w) => w.length).reduce((a, b) => a + b, 0)).toBe(4416);
    expect(cta.warps[0]!.length).toBe(138);
    // "0248 ffffffff 0 STS 2 R0 R25 4 1 0x0 4": shared store, base+stride from 0
    const sts = cta.warps[0]!.instructions.find((i) => i.pc === 0x248)!;
    expect(sts.opClass).toBe(OpClass.Store);
    expect(sts.info.space).toBe(StateSpace.Shared);
    expect(sts.addresses[31]).toBe(124);
    // opcode histogram counted with grep/awk from the file: 1280 LDS, 64 BAR, 1024 FFMA
    const all = allInstructions(join(SHARED, 'matrixmul-32-32'));
    const count = (name: string): number => all.filter((i) => i.info.name === name).length;
    expect(count('LDS')).toBe(1280);
    expect(count('BAR')).toBe(64);
    expect(count('FFMA')).toBe(1024);
    expect(all.filter((i) => i.opClass === OpClass.Barrier).length).toBe(64);
    t.close();
  });

  it('reads a .traceg.xz copy of a trace through the system xz', () => {
    const xz = spawnSync('xz', ['--version']);
    expect(xz.status, 'the xz program is needed for this test').toBe(0);
    const dir = mkdtempSync(join(tmpdir(), 'ws-xz-'));
    copyFileSync(join(SHARED, 'vectoradd-100-32', 'kernel-1.traceg'), join(dir, 'kernel-1.traceg'));
    expect(spawnSync('xz', ['-z', join(dir, 'kernel-1.traceg')]).status).toBe(0);
    writeFileSync(join(dir, 'kernelslist.g'), 'MemcpyHtoD,0x00007f2b2d500000,400\nkernel-1.traceg.xz\n');
    const t = openAccelSimTrace(dir);
    expect(t.kernels[0]!.instructionCount).toBe(344);
    expect(t.kernels[0]!.cta(0).warps[0]!.instructions[14]!.addresses[1]).toBe(0x7f2b2d500004);
    const tmp = t.kernels[0]!.readPath;
    t.close();
    expect(() => readFileSync(tmp)).toThrow();
  });
});

describe('address compression modes (hand-made fixture v4-modes)', () => {
  const t = openAccelSimTrace(join(FIX, 'v4-modes'));
  const k = t.kernels[0]!;
  const w = k.cta(0).warps[0]!;
  const [list, stride, delta, wide, isetp, bar, exit] = w.instructions;

  it('mode 0 lists one address per active lane', () => {
    // mask 0b1011: lanes 0, 1, 3
    expect(list!.addressMode).toBe(AddressMode.ListAll);
    expect(list!.addresses[0]).toBe(0x1000);
    expect(list!.addresses[1]).toBe(0x1010);
    expect(list!.addresses[2]).toBe(0);
    expect(list!.addresses[3]).toBe(0x1100);
    for (let lane = 4; lane < 32; lane++) expect(list!.addresses[lane]).toBe(0);
  });

  it('mode 1 gives base + k*stride to the k-th active lane (negative stride)', () => {
    // mask 0xfff0: lanes 4..15; base 0x7f0000000100 at lane 4, -8 per lane
    expect(stride!.addressMode).toBe(AddressMode.BaseStride);
    expect(stride!.addresses[3]).toBe(0);
    expect(stride!.addresses[4]).toBe(0x7f0000000100);
    expect(stride!.addresses[5]).toBe(0x7f0000000100 - 8);
    expect(stride!.addresses[15]).toBe(0x7f0000000100 - 88);
    expect(stride!.addresses[16]).toBe(0);
    expect(stride!.dstRegs.length).toBe(0);
    expect(Array.from(stride!.srcRegs)).toEqual([4, 2]);
    expect(stride!.opClass).toBe(OpClass.Store);
  });

  it('mode 2 adds each delta to the previous active lane', () => {
    // mask 0x80000005: lanes 0, 2, 31; 0x2000, +16, -32
    expect(delta!.addressMode).toBe(AddressMode.BaseDelta);
    expect(delta!.addresses[0]).toBe(8192);
    expect(delta!.addresses[2]).toBe(8208);
    expect(delta!.addresses[31]).toBe(8176);
    expect(delta!.addresses[1]).toBe(0);
    expect(delta!.activeMask).toBe(0x80000005);
    expect(delta!.opClass).toBe(OpClass.Atomic);
    expect(delta!.info.space).toBe(StateSpace.Global);
  });

  it('several destinations, predicate destinations, RZ, no destination', () => {
    expect(Array.from(wide!.dstRegs)).toEqual([6, 7]);
    expect(wide!.opClass).toBe(OpClass.IntMul);
    expect(Array.from(isetp!.dstRegs)).toEqual([]);
    expect(Array.from(isetp!.dstPreds)).toEqual([0]);
    expect(Array.from(isetp!.srcRegs)).toEqual([0, 255]);
    expect(bar!.opClass).toBe(OpClass.Barrier);
    expect(bar!.dstRegs.length + bar!.srcRegs.length).toBe(0);
    expect(exit!.opClass).toBe(OpClass.Exit);
    expect(exit!.memWidth).toBe(0);
    expect(exit!.addressMode).toBe(AddressMode.None);
  });

  it('header fields, warps and cursor', () => {
    expect(k.header).toMatchObject({ shmem: 1024, nregs: 16, binaryVersion: 70, cudaStreamId: 7, shmemBaseAddr: 0x7f1000000000, tracerVersion: 4 });
    expect(k.arch).toBe(SassArch.Volta);
    expect(k.instructionCount).toBe(8);
    const cta = k.cta(0);
    const w1 = cta.warps[1]!;
    expect(w1.peek()!.opcode).toBe('EXIT');
    expect(w1.next()!.pc).toBe(0x70);
    expect(w1.done).toBe(true);
    expect(w1.next()).toBeUndefined();
    w1.reset();
    expect(w1.position).toBe(0);
    expect(t.commands[1]).toEqual({ kind: 'memcpyHtoD', address: 0x7f0000000000, bytes: 4096, line: 2 });
  });
});

describe('header variants', () => {
  it('tracer 3: no lineinfo key, Turing table', () => {
    const t = openAccelSimTrace(join(FIX, 'v3-turing'));
    const k = t.kernels[0]!;
    expect(k.header.tracerVersion).toBe(3);
    expect(k.header.enableLineinfo).toBe(false);
    expect(k.header.nvbitVersion).toBe('1.4');
    expect(k.arch).toBe(SassArch.Turing);
    const [mov, shfl, lds] = k.cta(0).warps[0]!.instructions;
    expect(Array.from(mov!.srcRegs)).toEqual([255, 255]);
    expect(shfl!.srcRegs.length).toBe(4);
    expect(shfl!.activeMask).toBe(0);
    // 16 lanes, 16 bytes each, base 0x80
    expect(lds!.memWidth).toBe(16);
    expect(lds!.addresses[15]).toBe(0x80 + 15 * 16);
    expect(lds!.addresses[16]).toBe(0);
    expect(lds!.info.longLatency).toBe(false);
    t.close();
  });

  it('tracer 4 with lineinfo: the leading source line column', () => {
    const t = openAccelSimTrace(join(FIX, 'v4-lineinfo'));
    const k = t.kernels[0]!;
    expect(k.header.enableLineinfo).toBe(true);
    expect(k.header.id).toBe(3);
    expect(k.arch).toBe(SassArch.Ampere);
    const ins = k.cta(0).warps[0]!.instructions;
    expect(ins.map((i) => i.sourceLine)).toEqual([12, 14, 15]);
    expect(ins.map((i) => i.pc)).toEqual([0, 0x10, 0x20]);
    // one active lane, base+delta with no deltas
    expect(ins[1]!.addresses[0]).toBe(0x7f2b2d500000);
    expect(ins[1]!.traceLine).toBe(24);
    t.close();
  });
});

describe('lazy reading', () => {
  it('reads CTA 3 alone: only its byte range', () => {
    const t = openAccelSimTrace(join(FIX, 'multi-cta'));
    const k = t.kernels[0]!;
    expect(k.ctaCount).toBe(4);
    expect(k.instructionCount).toBe(10);
    expect(k.bytesRead).toBe(0);
    const [start, end] = k.ctaByteRange(3);
    const text = readFileSync(join(FIX, 'multi-cta', 'kernel-1.traceg'), 'latin1');
    // the range starts at the 4th #BEGIN_TB and ends after the last #END_TB line
    let at = -1;
    for (let i = 0; i < 4; i++) at = text.indexOf('#BEGIN_TB', at + 1);
    expect(start).toBe(at);
    expect(end).toBe(text.lastIndexOf('#END_TB') + '#END_TB\n'.length);
    const cta = k.cta(3);
    expect(k.bytesRead).toBe(end - start);
    expect(k.bytesRead).toBeLessThan(text.length / 3);
    expect(cta.id).toEqual({ x: 1, y: 1, z: 0 });
    expect(cta.instructionCount).toBe(4);
    expect(cta.warps[0]!.instructions[2]!.addresses[3]).toBe(0x100c);
    expect(k.ctaId(1)).toEqual({ x: 1, y: 0, z: 0 });
    expect(k.ctaInstructionCount(2)).toBe(1);
    t.close();
  });

  it('a malformed line in CTA 1 does not stop CTA 3 (structure-only open pass)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ws-lazy-'));
    const text = readFileSync(join(FIX, 'multi-cta', 'kernel-1.traceg'), 'latin1');
    writeFileSync(join(dir, 'kernel-1.traceg'), text.replace('0018 ffffffff 1 R2 S2R 0 0', '0018 ffffffff 1 Q2 S2R 0 0'));
    writeFileSync(join(dir, 'kernelslist.g'), 'kernel-1.traceg\n');
    const t = openAccelSimTrace(dir, { chunkBytes: 64 });
    const k = t.kernels[0]!;
    expect(k.cta(3).instructionCount).toBe(4);
    expect(() => k.cta(1)).toThrow(/kernel-1\.traceg:35:.*reg_dest/);
    t.close();
    expect(() => openAccelSimTrace(dir, { validate: 'full' })).toThrow(/kernel-1\.traceg:35:/);
  });

  it('the index pass gives the same result for any chunk size', () => {
    for (const chunkBytes of [16, 100, 4096]) {
      const t = openAccelSimTrace(join(SHARED, 'vectoradd-100-32'), { chunkBytes });
      expect(t.kernels[0]!.instructionCount).toBe(344);
      expect(t.kernels[0]!.ctaByteRange(0)).toEqual(openAccelSimTrace(join(SHARED, 'vectoradd-100-32')).kernels[0]!.ctaByteRange(0));
      t.close();
    }
  });
});
