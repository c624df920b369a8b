/**
 * Textures and surfaces in kernel scenarios: `{ texture: {...} }` / `{ surface: {...} }` launch
 * arguments (object handles) and per-launch `textures:` / `surfaces:` bindings of a module's
 * `.texref`/`.surfref` (the hand-written fixture `fixtures/texref.ptx`), in functional and timing
 * mode; bad entries refused with file, line and field.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/errors.ts';
import { loadScenario } from '../../src/scenario/loader.ts';
import { runKernelScenarioFunctional } from '../../src/scenario/kernel-run.ts';
import { runKernelScenarioTiming } from '../../src/scenario/timing-run.ts';

const dir = mkdtempSync(join(tmpdir(), 'warpstate-tex-'));
const FIXTURE = resolve('test/scenario/fixtures/texref.ptx');

/** Writes a scenario file (YAML text) and returns its path. */
function scenario(name: string, text: string): string {
  const f = join(dir, `${name}.yaml`);
  writeFileSync(f, text);
  return f;
}

const TEXREF = (bind: string) => `name: texref_copy
seed: 1
mode: functional
buffers:
  - { name: src, type: f32, count: 8, init: { generator: iota, start: 10 } }
  - { name: dst, type: f32, count: 8, init: { generator: zeros } }
launches:
  - ptx: ${FIXTURE}
    entry: texref_copy
    grid: [1, 1, 1]
    block: [32, 1, 1]
    args: [ { u32: 8 } ]
${bind}
`;
const BIND = `    textures: { img: { buffer: src, width: 8, format: f32 } }
    surfaces: { outs: { buffer: dst, width: 8, format: f32 } }`;

describe('texture and surface references bound by a launch (hand-written PTX)', () => {
  it('reads the bound .texref, asks its width and writes the bound .surfref: dst[i] = src[i] + 8', () => {
    const r = runKernelScenarioFunctional(loadScenario(scenario('texref', TEXREF(BIND))));
    expect(Array.from(r.buffers.dst as Float32Array)).toEqual([18, 19, 20, 21, 22, 23, 24, 25]);
  });

  it('runs on the timing model: 8 texels read, one 128-byte texture line, through the texture cache', () => {
    const r = runKernelScenarioTiming(loadScenario(scenario('texref-t', TEXREF(BIND)), ['mode=timing', 'gpu={preset: gtx480, set: [sm.count=1]}']));
    expect(Array.from(r.buffers.dst as Float32Array)).toEqual([18, 19, 20, 21, 22, 23, 24, 25]);
    const v = (k: string) => r.engine.stats.value(`GPU.SM[0].LSU.${k}`);
    // lanes 0..7 read the 8 texels (32 bytes) of one line: 1 access, a miss
    expect([v('insts_tex'), v('tex_texels'), v('tex_lines'), v('tex_accesses'), v('tex_misses'), v('tex_hits')]).toEqual([1, 8, 1, 1, 1, 0]);
    // the surface store is a global store through the L1D
    expect(v('insts_global')).toBe(1);
  });

  it('an unbound reference is a trap when the kernel reads it', () => {
    expect(() => runKernelScenarioFunctional(loadScenario(scenario('unbound', TEXREF('    surfaces: { outs: { buffer: dst, width: 8, format: f32 } }'))))).toThrow(/texture reference is not bound by the launch/);
  });

  it('a binding whose name is not a reference of the module is refused at the launch', () => {
    const f = scenario('badname', TEXREF(`${BIND}\n    # extra\n`).replace('textures: { img:', 'textures: { image:'));
    const e = (() => {
      try {
        runKernelScenarioFunctional(loadScenario(f));
      } catch (x) {
        return x as InputError;
      }
      throw new Error('expected an InputError');
    })();
    expect(e).toBeInstanceOf(InputError);
    expect(e.field).toBe('launches[0].textures');
    expect(e.line).toBe(13);
    expect(e.reason).toContain("'image' is not a .texref or .surfref of the module (it has: img, outs)");
  });
});

const ARG = (tex: string) => `name: bad
seed: 1
mode: functional
buffers:
  - { name: img, type: f32, count: 16, init: { generator: zeros } }
  - { name: out, type: f32, count: 16, init: { generator: zeros } }
launches:
  - ptx: ${resolve('scenarios/kernels/tex-resize.ptx')}
    entry: tex_resize
    grid: [1, 1, 1]
    block: [4, 4, 1]
    args:
      - ${tex}
      - { buffer: out }
      - { s32: 4 }
      - { s32: 4 }
      - { f32: 1 }
      - { f32: 1 }
`;

describe('bad texture and surface arguments: file, line and field', () => {
  const refusal = (tex: string): InputError => {
    const f = scenario(`bad-${Math.random().toString(36).slice(2)}`, ARG(tex));
    try {
      runKernelScenarioFunctional(loadScenario(f));
    } catch (e) {
      expect(e).toBeInstanceOf(InputError);
      return e as InputError;
    }
    throw new Error('expected an InputError');
  };

  it.each([
    ['{ texture: { buffer: nope, width: 4, height: 4, format: f32 } }', 'launches[0].args[0].texture.buffer', "unknown buffer 'nope'"],
    ['{ texture: { buffer: img, width: 4, height: 4, format: s32, filterMode: linear } }', 'launches[0].args[0].texture', 'texture: linear filtering needs float results'],
    ['{ texture: { buffer: img, width: 4, height: 4, format: f32, addressMode: wrap } }', 'launches[0].args[0].texture', 'texture: addressMode wrap and mirror need normalizedCoords: true (CUDA)'],
    ['{ texture: { buffer: img, width: 8, height: 4, format: f32 } }', 'launches[0].args[0].texture', 'texture: it spans 128 bytes'],
    ['{ surface: { buffer: img, width: 4, height: 4, format: f32, pitch: 6 } }', 'launches[0].args[0].surface', 'surface: pitch 6 is less than width x element bytes (16)'],
  ])('%s', (tex, field, reason) => {
    const e = refusal(tex);
    expect(e.field).toBe(field);
    expect(e.line).toBe(13);
    expect(e.reason).toContain(reason);
  });

  it('a bad format or an unknown field is a schema error at the field', () => {
    const fmt = refusal('{ texture: { buffer: img, width: 4, format: f64 } }');
    expect(fmt.field).toBe('launches[0].args[0].texture.format');
    expect(fmt.line).toBe(13);
    const unknown = refusal('{ texture: { buffer: img, width: 4, format: f32, filter: linear } }');
    expect(unknown.reason).toBe("unknown field 'filter'");
    expect(unknown.field).toBe('launches[0].args[0].texture.filter');
    const big = refusal('{ texture: { buffer: img, width: 100000, format: f32 } }');
    expect(big.field).toBe('launches[0].args[0].texture.width');
  });
});
