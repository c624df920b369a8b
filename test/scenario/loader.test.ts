import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/errors.ts';
import { applyOverrides, loadScenario } from '../../src/scenario/loader.ts';
import { runScenario } from '../../src/scenario/run.ts';
import { createUnitRegistry } from '../../machines/index.ts';
import { runCli } from '../helpers/cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'warpstate-loader-'));
function file(name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}

const good = `name: small
clocks: { core: 1GHz }
units:
  - { name: GEN, kind: trafficGenerator, params: { requests: 5 } }
  - name: MEM
    kind: fixedLatencyMemory
    params:
      latencyCycles: 7
links:
  - { from: GEN.req, to: MEM.req }
  - { from: MEM.rsp, to: GEN.rsp }
checks:
  - { stat: GEN.completed, op: '==', value: 5 }
`;

describe('scenario loading: bad input names file, line and field', () => {
  it('YAML syntax error', () => {
    const p = file('syntax.yaml', 'name: x\nunits: [\n  { name: A, kind: b\n');
    expect(() => loadScenario(p)).toThrow(InputError);
    try {
      loadScenario(p);
    } catch (e) {
      expect((e as InputError).message).toMatch(new RegExp(`^${p.replace(/[.]/g, '\\.')}:\\d+:\\d+: syntax error`));
      expect((e as InputError).line).toBeGreaterThanOrEqual(2);
    }
  });

  it('unknown field, with its own line', () => {
    const p = file('unknown.yaml', good.replace('      latencyCycles: 7', '      latencyCycles: 7\n      latencyCyles: 9'));
    const run = async () => runScenario(loadScenario(p), { registry: createUnitRegistry() });
    return expect(run()).rejects.toThrow(`${p}:9:7: units[1].params.latencyCyles: unknown field 'latencyCyles'`);
  });

  it('unknown top-level field', () => {
    const p = file('unknown-top.yaml', good + 'colour: blue\n');
    expect(() => loadScenario(p)).toThrow(`${p}:14:1: colour: unknown field 'colour'`);
  });

  it('wrong type', () => {
    const p = file('type.yaml', good.replace('latencyCycles: 7', 'latencyCycles: seven'));
    const run = async () => runScenario(loadScenario(p), { registry: createUnitRegistry() });
    return expect(run()).rejects.toThrow(new RegExp(`${p.replace(/[.]/g, '\\.')}:8:22: units\\[1\\]\\.params\\.latencyCycles: .*number`));
  });

  it('missing file', () => {
    expect(() => loadScenario(join(dir, 'nope.yaml'))).toThrow(`${join(dir, 'nope.yaml')}: file not found`);
  });

  it('links that do not resolve', async () => {
    const p = file('links.yaml', good.replace('{ from: GEN.req, to: MEM.req }', '{ from: GEN.request, to: MEM.req }'));
    await expect(runScenario(loadScenario(p), { registry: createUnitRegistry() })).rejects.toThrow(`${p}:10:13: links[0].from: 'GEN.request' matches no output port`);
  });

  it('unknown unit kind lists the known ones', async () => {
    const p = file('kind.yaml', good.replace('kind: fixedLatencyMemory', 'kind: dram'));
    await expect(runScenario(loadScenario(p), { registry: createUnitRegistry() })).rejects.toThrow(/:6:11: units\[1\]\.kind: unknown unit kind 'dram' \(known: .*fixedLatencyMemory/);
  });
});

describe('CLI exit codes', () => {
  it('0 when checks pass, 1 when one fails, 2 for bad input without a stack trace', async () => {
    const ok = await runCli(['run', file('ok.yaml', good), '-q']);
    expect(ok.code).toBe(0);
    expect(ok.out).toContain('checks: 1 passed, 0 failed');
    const failing = await runCli(['run', file('fail.yaml', good.replace("value: 5", 'value: 6')), '-q']);
    expect(failing.code).toBe(1);
    expect(failing.out).toContain('check FAIL: sum(GEN.completed) == 6 (actual 5)');
    for (const bad of ['syntax.yaml', 'unknown-top.yaml', 'nope.yaml']) {
      const r = await runCli(['run', join(dir, bad)]);
      expect(r.code).toBe(2);
      expect(r.err).toMatch(/^error: .*\.yaml/);
      expect(r.err).not.toMatch(/\n\s+at /); // no stack trace
    }
    const typed = await runCli(['run', file('type2.yaml', good.replace('latencyCycles: 7', 'latencyCycles: seven'))]);
    expect(typed.code).toBe(2);
    expect(typed.err).toContain('units[1].params.latencyCycles');
    expect((await runCli(['run'])).code).toBe(2);
  });

  it('--set overrides a field by unit name and changes behaviour', async () => {
    const base = loadScenario(file('set.yaml', good));
    const over = loadScenario(join(dir, 'set.yaml'), ['units.MEM.params.latencyCycles=70', 'seed=9']);
    expect(over.scenario.seed).toBe(9);
    expect(over.scenario.units[1]!.params).toEqual({ latencyCycles: 70 });
    const a = await runScenario(base, { registry: createUnitRegistry() });
    const b = await runScenario(over, { registry: createUnitRegistry() });
    expect(b.engine.now).toBeGreaterThan(a.engine.now);
    expect(() => applyOverrides({ units: [] }, ['units.MEM.params.x=1'])).toThrow(/--set: units\.MEM\.params\.x=1: no element 'MEM' in units/);
  });
});
