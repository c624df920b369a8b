/**
 * The op_table library kernel (issue 10 item 4): a `__device__` table of four function pointers
 * indexed per element, so the lanes of a warp call different functions through one indirect call.
 * Its host reference on inputs worked out by hand, and the kernel, scaled down, on the functional
 * model and the timing model of every preset, checked against the reference; its trace written
 * with Accel-Sim names and replayed instruction for instruction.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writePtxScenarioTrace } from '../../src/frontends/accelsim/ptx-trace.ts';
import { kernelReferences } from '../../src/scenario/references/index.ts';
import type { ReferenceArg, TypedArray } from '../../src/scenario/references/types.ts';
import { loadScenario } from '../../src/scenario/loader.ts';
import { runKernelScenarioFunctional } from '../../src/scenario/kernel-run.ts';
import { runKernelScenarioTiming } from '../../src/scenario/timing-run.ts';
import { runAccelSimTrace } from '../../src/scenario/trace-run.ts';
import { expectInputError, list } from './scenario-helpers.ts';

const buf = (name: string): ReferenceArg => ({ buffer: name });

function reference(buffers: Record<string, TypedArray>, n: number, threads = 32): Record<string, TypedArray> {
  return kernelReferences.op_table!({ buffers, launches: [{ grid: [1, 1, 1], block: [threads, 1, 1], args: [buf('ops'), buf('a'), buf('b'), buf('out'), { type: 's32', value: n }] }] });
}

describe('op_table reference', () => {
  it('applies add, mul, fma(x, y, 0.5), (x - y)^2 by ops & 3 (negative ops too)', () => {
    const out = reference(
      {
        ops: Int32Array.from([0, 1, 2, 3, -1, 4, 7]),
        a: Float32Array.from([1.5, 2, 3, 5, 0.5, 1, -2]),
        b: Float32Array.from([2.25, -3, 0.25, 2, 4, 10, 3]),
        out: new Float32Array(8).fill(-7),
      },
      7,
    );
    // 1.5 + 2.25; 2 * -3; 3 * 0.25 + 0.5; (5 - 2)^2; -1 & 3 = 3: (0.5 - 4)^2; 4 & 3 = 0: 1 + 10;
    // 7 & 3 = 3: (-2 - 3)^2; out[7] is past n and keeps -7
    expect(list(out.out)).toEqual([3.75, -6, 1.25, 9, 12.25, 11, 25, -7]);
  });

  it('fuses the multiply-add of operation 2 (one rounding)', () => {
    // a * b = (1 - 2^-15)(-0.5 - 2^-16) = -0.5 + 2^-31: rounding the product to binary32 first
    // (grid 2^-25 in [0.25, 0.5)) would give -0.5 and a sum of 0; fused, the sum is 2^-31
    const out = reference({ ops: Int32Array.from([2]), a: Float32Array.from([1 - 2 ** -15]), b: Float32Array.from([-0.5 - 2 ** -16]), out: new Float32Array(1) }, 1);
    expect(out.out![0]).toBe(2 ** -31);
  });

  it('rounds the difference of operation 3 before squaring it', () => {
    // 1 - 2^-30 rounds to 1 in binary32 (grid 2^-24 below 1): the square is exactly 1
    const out = reference({ ops: Int32Array.from([3]), a: Float32Array.from([1]), b: Float32Array.from([2 ** -30]), out: new Float32Array(1) }, 1);
    expect(out.out![0]).toBe(1);
  });

  it('refuses an output buffer that is an input, and buffers shorter than n', () => {
    const bufs = () => ({ ops: new Int32Array(4), a: new Float32Array(4), b: new Float32Array(4), out: new Float32Array(4) });
    expectInputError(
      () => kernelReferences.op_table!({ buffers: bufs(), launches: [{ grid: [1, 1, 1], block: [32, 1, 1], args: [buf('ops'), buf('a'), buf('b'), buf('a'), { type: 's32', value: 4 }] }] }),
      'launches[0].args[3]',
      'out must not be an input buffer',
    );
    expectInputError(() => reference(bufs(), 5), 'launches[0].args[0]', 'buffer ops (argument 0) has 4 elements, the kernel would access 5');
  });
});

// 256 elements by one CTA of 64 threads (four grid-stride iterations, two warps)
const SCALED = ['launches[0].grid=[1,1,1]', 'launches[0].block=[64,1,1]', 'launches[0].args[4].s32=256'];
const PRESETS = ['gtx480', 'gtx480-elf', 'm2090', 'k20x', 'onac32', 'maxwell-cke', 'gtx1080ti'];

describe('k-op-table.yaml, scaled down', () => {
  const functional = runKernelScenarioFunctional(loadScenario('scenarios/k-op-table.yaml', SCALED));

  it('passes its reference check functionally', () => {
    expect(functional.checks.map((c) => c.actual)).toEqual(['out: 2048 elements match (max distance 0)']);
    // the 256 elements the launch covers were written (the rest keep the generator's -1)
    const out = functional.buffers.out as Float32Array;
    expect(out.slice(256).every((v) => v === -1)).toBe(true);
  });

  it.each(PRESETS)('on the timing model of %s', (preset) => {
    const r = runKernelScenarioTiming(loadScenario('scenarios/k-op-table.yaml', [...SCALED, 'mode=timing', `gpu={preset: ${preset}}`]));
    expect(r.config.name).toBe(preset);
    expect(r.checks.map((c) => c.passed)).toEqual([true]);
    const s = r.engine.stats;
    expect(s.value('gpu_tot_ctas_done')).toBe(1);
    // the timing model issues exactly what the functional model executes, calls through pointers included
    expect(s.value('gpu_tot_warp_insts')).toBe(functional.stats.value('functional.warp_insts'));
    expect(s.value('gpu_sim_insn')).toBe(functional.stats.value('gpu_sim_insn'));
    expect(r.engine.pendingWork()).toEqual([]);
  });

  it('its Accel-Sim trace (JCAL, CAL, RET) replays every warp instruction', () => {
    const loaded = loadScenario('scenarios/k-op-table.yaml', SCALED);
    const out = join(mkdtempSync(join(tmpdir(), 'warpstate-op-table-')), 'trace');
    const counts = writePtxScenarioTrace(loaded, out);
    expect(counts).toEqual([functional.stats.value('functional.warp_insts')]);
    const tr = runAccelSimTrace(out, { gpu: { preset: 'gtx480' }, baseDir: '.' });
    expect(tr.engine.stats.value('gpu_tot_warp_insts')).toBe(counts[0]);
    expect(tr.engine.stats.value('gpu_sim_insn')).toBe(functional.stats.value('gpu_sim_insn'));
  });
});
