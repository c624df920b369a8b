/**
 * The declarative GPU topology (issue 8 item 1): every preset's template validates against its
 * units' own schemas; splice points and config `extensions` rewire links as documented; bad
 * extension entries are input errors naming the scenario file, line and field.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { victimCache } from '../../machines/victim-cache/victim-cache.ts';
import { getPreset, presetNames } from '../../src/config/index.ts';
import { InputError } from '../../src/errors.ts';
import { GpuContext } from '../../src/model/gpu-context.ts';
import { loadScenario } from '../../src/scenario/loader.ts';
import { runKernelScenarioTiming } from '../../src/scenario/timing-run.ts';
import { gpuTopology } from '../../src/topology/gpu.ts';
import { applyExtensions } from '../../src/topology/splice.ts';
import { endpointName, validateTopology } from '../../src/topology/template.ts';

const lookup = (kind: string) => (kind === 'victimCache' ? victimCache : undefined);
const source = { field: 'extensions', locate: () => ({ file: 'test' }) };

describe('GPU topology as data', () => {
  it.each(presetNames())('%s: every unit spec satisfies its kind schema; every link names existing ports', (name) => {
    const config = getPreset(name);
    const t = gpuTopology(config, new GpuContext(), []);
    expect(validateTopology(t)).toEqual([]);
    const units = new Map(t.units.map((u) => [u.name, u.definition]));
    // One SM = FETCH, DECODE, ISSUE, EXEC, LSU, L1D; plus SMWM, ICNT, L2 slices, DRAM channels.
    expect(t.units.length).toBe(1 + 6 * config.sm.count + 1 + config.memPartitions.count * config.memPartitions.subPartitions + config.memPartitions.count);
    for (const l of t.links) {
      const base = (p: string) => p.replace(/\[\d+\]$/, '');
      expect(units.get(l.from.unit)?.ports.some((p) => p.name === base(l.from.port) && p.direction === 'out'), endpointName(l.from)).toBe(true);
      expect(units.get(l.to.unit)?.ports.some((p) => p.name === base(l.to.port) && p.direction === 'in'), endpointName(l.to)).toBe(true);
    }
    // Splice points per SM and per L2 slice.
    const count = (p: string) => t.splices.filter((s) => s.name === p).length;
    expect(count('sm.l1d-icnt')).toBe(config.sm.count);
    expect(count('sm.l1d-evict')).toBe(config.sm.count);
    expect(count('l2.dram')).toBe(config.memPartitions.count * config.memPartitions.subPartitions);
  });

  it('an inline splice replaces the two links of its point; the near side takes 1 cycle, the far side keeps the flit link', () => {
    const config = { ...getPreset('gtx480'), sm: { ...getPreset('gtx480').sm, count: 2 } };
    const t = gpuTopology(config, new GpuContext(), []);
    const before = t.links.length;
    const icntLink = t.links.find((l) => l.from.unit === 'GPU.SM[1].L1D' && l.from.port === 'bottomOut')!;
    applyExtensions(t, [{ name: 'VC', kind: 'victimCache', splice: ['sm.l1d-icnt', 'sm.l1d-evict'], spec: { entries: 8 } }], lookup, source);
    expect(t.units.filter((u) => u.definition.kind === 'victimCache').map((u) => u.name)).toEqual(['GPU.SM[0].VC', 'GPU.SM[1].VC']);
    // Per SM: two links become four (inline) and one is added (tap).
    expect(t.links.length).toBe(before + 2 * (2 + 1));
    const find = (from: string, to: string) => t.links.find((l) => endpointName(l.from) === from && endpointName(l.to) === to);
    expect(find('GPU.SM[1].L1D.bottomOut', 'GPU.SM[1].VC.topIn')!.spec).toEqual({ latencyCycles: 1 });
    const far = find('GPU.SM[1].VC.bottomOut', 'GPU.ICNT.topIn[1]')!;
    expect(far.spec).toEqual(icntLink.spec);
    expect(far.spec.bytesPerCycle).toBe(config.interconnect.flitBytes);
    expect(find('GPU.ICNT.topOut[1]', 'GPU.SM[1].VC.bottomIn')!.clock).toBe('icnt');
    expect(find('GPU.SM[1].VC.topOut', 'GPU.SM[1].L1D.bottomIn')!.spec).toEqual({ latencyCycles: 1 });
    expect(find('GPU.SM[1].L1D.evict', 'GPU.SM[1].VC.evict')).toBeDefined();
    expect(find('GPU.SM[1].L1D.bottomOut', 'GPU.ICNT.topIn[1]')).toBeUndefined();
    expect(validateTopology(t)).toEqual([]);
  });

  it('refuses an unknown kind, an unknown point, a block without the ports a point needs, and two blocks at one point', () => {
    const t = () => gpuTopology(getPreset('gtx480'), new GpuContext(), []);
    const apply = (ext: object[]) => () => applyExtensions(t(), ext as never, lookup, source);
    expect(apply([{ name: 'X', kind: 'nope', splice: ['sm.l1d-icnt'], spec: {} }])).toThrow(/unknown unit kind 'nope'/);
    expect(apply([{ name: 'X', kind: 'victimCache', splice: ['sm.l1i'], spec: {} }])).toThrow(/unknown splice point 'sm.l1i' \(this GPU has: sm.ctrl|unknown splice point 'sm.l1i' \(this GPU has: sm.lsu-l1d/);
    expect(apply([{ name: 'X', kind: 'victimCache', splice: ['sm.l1d-icnt'], spec: { entries: 0 } }])).toThrow(/extensions\[0\]\.spec\.entries/);
    expect(apply([
      { name: 'A', kind: 'victimCache', splice: ['sm.l1d-icnt'], spec: {} },
      { name: 'B', kind: 'victimCache', splice: ['sm.l1d-icnt'], spec: {} },
    ])).toThrow(/already holds a block/);
    expect(apply([{ name: 'X', kind: 'victimCache', splice: ['sm.l1d-icnt', 'l2.dram'], spec: {} }])).toThrow(/never in one scope/);
  });

  it('a bad extension spec in a scenario names the scenario file, its line and the field', () => {
    const dir = mkdtempSync(join(tmpdir(), 'warpstate-ext-'));
    const file = join(dir, 'bad.yaml');
    const text = [
      'name: bad_ext',
      'mode: timing',
      'gpu:',
      '  preset: gtx480',
      '  extensions:',
      '    - name: VC',
      '      kind: victimCache',
      '      splice: [sm.l1d-icnt, sm.l1d-evict]',
      '      spec: { entries: -3 }',
      'buffers:',
      '  - { name: a, type: f32, count: 32, init: { generator: zeros } }',
      'launches:',
      `  - { ptx: ${join(process.cwd(), 'scenarios/kernels/vecadd.ptx')}, entry: vecadd, grid: [1, 1, 1], block: [32, 1, 1], args: [ { buffer: a }, { buffer: a }, { buffer: a }, { s32: 32 } ] }`,
    ].join('\n');
    writeFileSync(file, text);
    let error: unknown;
    try {
      runKernelScenarioTiming(loadScenario(file));
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InputError);
    const ie = error as InputError;
    expect(ie.file).toBe(file);
    expect(ie.line).toBe(9);
    expect(ie.field).toBe('gpu.extensions[0].spec.entries');
  });
});
