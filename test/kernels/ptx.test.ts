/**
 * The kernel library's CUDA sources and their committed PTX.
 *
 * Every test always runs. Where nvcc is on PATH, each `.cu` is recompiled with the project's
 * one command line into a temporary directory and must equal the committed `.ptx` (so a stale
 * PTX fails); where it is not, the same test checks what it can without it (the PTX exists, has
 * the nvcc header, `.version`, `.target sm_75` and the entry) and says on stderr that the
 * comparison was not possible.
 */
import { describe, it, expect } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kernelReferences } from '../../src/scenario/references/index.ts';
import { KERNELS_DIR, REPO_ROOT, SCENARIOS_DIR, entryOf, kernelStems, ptxEntries } from './scenario-helpers.ts';

const nvccFound = spawnSync('nvcc', ['--version'], { encoding: 'utf8' }).status === 0;
if (!nvccFound) console.warn('test/kernels/ptx.test.ts: nvcc is not on PATH; PTX staleness is not checked, only structure');

/** The kernels the issue asks for, by file stem. */
const REQUIRED = [
  'vecadd',
  'saxpy',
  'add-x-loops',
  'stream-x-words',
  'reduce-smem',
  'reduce-shfl',
  'matmul-tiled',
  'histogram-smem',
  'stencil-hotspot',
  'transpose-smem',
  'bfs-level',
  'dpoly',
  'pointer-chase',
  'nw-tile',
  'spmv-csr',
  'kmeans-assign',
  'backprop-layer',
  'histogram-global',
  'stencil2d-halo',
  'lud-diagonal',
  // issue 10 item 4: a texture-object kernel and a surface-object kernel
  'tex-resize',
  'surf-sobel',
  // issue 10 item 4: calls through a table of function pointers
  'op-table',
  // issue 13 item 5: scheduling kernels of specs/warp-level.md §7 (type A, type B) and code larger than the L1I
  'phase-msl',
  'phase-long4',
  'l1i-bigcode',
];

describe('kernel library', () => {
  it('has every required kernel, each with a reference and a scenario', () => {
    const stems = kernelStems();
    expect(stems).toEqual([...REQUIRED].sort());
    for (const stem of stems) {
      expect(kernelReferences[entryOf(stem)], `reference for ${stem}`).toBeTypeOf('function');
      expect(existsSync(join(SCENARIOS_DIR, `k-${stem}.yaml`)), `scenarios/k-${stem}.yaml`).toBe(true);
    }
    expect(Object.keys(kernelReferences).sort()).toEqual(stems.map(entryOf).sort());
  });

  it('keeps the one nvcc command line in build-ptx.sh', () => {
    const script = readFileSync(join(KERNELS_DIR, 'build-ptx.sh'), 'utf8');
    expect(script).toContain('nvcc -ptx -arch=compute_75 -o "scenarios/kernels/${name}.ptx" "scenarios/kernels/${name}.cu"');
  });
});

describe.each(kernelStems())('kernel %s', (stem) => {
  const cuPath = join(KERNELS_DIR, `${stem}.cu`);
  const ptxPath = join(KERNELS_DIR, `${stem}.ptx`);
  const entry = entryOf(stem);

  it('is plain extern "C" CUDA without the features the library excludes', () => {
    const cu = readFileSync(cuPath, 'utf8');
    const code = cu.replace(/\/\/.*$/gm, '').replace(/\/\*[\s\S]*?\*\//g, '');
    const globals = [...code.matchAll(/__global__/g)].length;
    expect(globals).toBe(1);
    expect(code).toMatch(new RegExp(`extern\\s+"C"\\s+__global__\\s+void\\s+${entry}\\s*\\(`));
    for (const banned of [/\btemplate\b/, /\bprintf\b/, /#include/, /\bthrust\b/, /\bcub\b/, /cooperative_groups/, /\btexture\s*</, /<<</]) {
      expect(code, `${stem}.cu must not use ${banned.source}`).not.toMatch(banned);
    }
  });

  it(nvccFound ? 'committed PTX equals a fresh nvcc -ptx -arch=compute_75' : 'committed PTX is well formed (nvcc absent: not recompiled)', () => {
    expect(existsSync(ptxPath), `${stem}.ptx exists`).toBe(true);
    const committed = readFileSync(ptxPath, 'utf8');
    expect(committed.startsWith('//')).toBe(true);
    expect(committed).toMatch(/^\.version \d+\.\d+$/m);
    expect(committed).toMatch(/^\.target sm_75$/m);
    expect(committed).toMatch(/^\.address_size 64$/m);
    expect([...ptxEntries(committed).keys()]).toEqual([entry]);
    if (!nvccFound) return;
    const dir = mkdtempSync(join(tmpdir(), 'warpstate-ptx-'));
    try {
      const out = join(dir, `${stem}.ptx`);
      const result = spawnSync('nvcc', ['-ptx', '-arch=compute_75', '-o', out, `scenarios/kernels/${stem}.cu`], { cwd: REPO_ROOT, encoding: 'utf8' });
      expect(result.status, result.stderr).toBe(0);
      expect(readFileSync(out, 'utf8'), `${stem}.ptx is stale: run scenarios/kernels/build-ptx.sh`).toBe(committed);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
