/**
 * The texture and surface library kernels (tex_resize, surf_sobel) on the timing model of every
 * preset, checked against their host references (as the functional runs are in
 * scenarios.test.ts), with the texel traffic counted where it is served: texture fetches by the
 * SMs' texture caches (not the L1D), surface accesses by the L1D as global loads and stores.
 */
import { describe, expect, it } from 'vitest';
import { presetNames } from '../../src/config/index.ts';
import { loadScenario } from '../../src/scenario/loader.ts';
import { runKernelScenarioTiming } from '../../src/scenario/timing-run.ts';

/** Sum of a per-SM LSU statistic over the SMs that registered it. */
function perSm(r: ReturnType<typeof runKernelScenarioTiming>, name: string): number {
  let total = 0;
  for (let i = 0; i < r.config.sm.count; i++) total += r.engine.stats.value(`GPU.SM[${i}].LSU.${name}`) ?? 0;
  return total;
}

describe.each(presetNames())('%s', (preset) => {
  it('tex_resize matches its reference; its 4,800 texels go through the texture caches', () => {
    const r = runKernelScenarioTiming(loadScenario('scenarios/k-tex-resize.yaml', ['mode=timing', `gpu={preset: ${preset}}`]));
    expect(r.checks.map((c) => c.actual)).toEqual(['out: 1200 elements match (max distance 0)']);
    // 40 x 30 output pixels, one bilinear fetch each: 4 texels (clamped texels are still read)
    expect(perSm(r, 'tex_texels')).toBe(4800);
    // 12 CTAs of 4 warps (2 rows of 16 threads each); the last warp of each of the 3 CTAs of the
    // bottom row holds rows 30 and 31, outside the 30-row output: 45 warps fetch once each
    expect(perSm(r, 'insts_tex')).toBe(45);
    expect(perSm(r, 'tex_accesses')).toBe(perSm(r, 'tex_lines'));
    expect(perSm(r, 'tex_hits') + perSm(r, 'tex_misses')).toBe(perSm(r, 'tex_accesses'));
    // the L1D sees only the output stores (one per fetching warp): texture lines pass it by
    expect(perSm(r, 'insts_global')).toBe(45);
  });

  it('surf_sobel matches its reference; its surface accesses are global loads and stores', () => {
    const r = runKernelScenarioTiming(loadScenario('scenarios/k-surf-sobel.yaml', ['mode=timing', `gpu={preset: ${preset}}`]));
    expect(r.checks.map((c) => c.actual)).toEqual(['edges: 1120 elements match (max distance 0)']);
    // warps with a pixel: the bottom CTAs (rows 24..31) have 2 of their 4 warps inside the 28 rows,
    // so 12 x 4 - 3 x 2 = 42 warps, each 8 suld + 1 sust
    expect(perSm(r, 'insts_global')).toBe(42 * 9);
    expect(perSm(r, 'insts_tex')).toBe(0);
  });
});
