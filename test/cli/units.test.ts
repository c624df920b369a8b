/**
 * `warpstate units` (issue 8 item 2): every unit kind is listed; a data sheet shows ports with
 * message kinds, spec fields with units (nested ones as dotted paths) and statistics;
 * `--diagram` prints a statechart; `--inspect` records statechart events of a run.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';

describe('warpstate units', () => {
  it('lists one kind per unit definition found in machines/<folder>/<folder>.ts, the GPU units included', async () => {
    const r = await runCli(['units']);
    expect(r.code).toBe(0);
    const kinds = r.out.trim().split('\n').map((l) => l.split(/\s+/)[0]);
    for (const k of ['smWorkManager', 'smFetch', 'smDecode', 'smIssue', 'smExec', 'smLsu', 'l1d', 'gpuInterconnect', 'l2Slice', 'dramChannel', 'victimCache', 'powerGatingController', 'crossbar', 'trafficGenerator', 'fixedLatencyMemory', 'dutyCycleController']) {
      expect(kinds).toContain(k);
    }
    const folders = readdirSync('machines', { withFileTypes: true }).filter((d) => d.isDirectory() && existsSync(join('machines', d.name, `${d.name}.ts`)));
    expect(kinds.length).toBeGreaterThanOrEqual(folders.length);
  });

  it('says how each kind is modelled: statechart logic, datapath with the lifecycle statechart, or datapath only', async () => {
    const r = await runCli(['units']);
    const model = new Map(r.out.trim().split('\n').map((l) => l.split(/\s+/).slice(0, 2) as [string, string]));
    // Control units whose logic is a machine (setup(...).createMachine in their folders).
    for (const k of ['dutyCycleController', 'powerGatingController', 'smWorkManager']) expect(model.get(k)).toBe('statechart');
    // SM stages and the L1D embed src/sim/lifecycle.ts for ctrl.pause/resume/gate/wake.
    for (const k of ['smFetch', 'smDecode', 'smIssue', 'smExec', 'smLsu', 'l1d']) expect(model.get(k)).toBe('datapath+lifecycle');
    for (const k of ['crossbar', 'gpuInterconnect', 'l2Slice', 'dramChannel', 'fixedLatencyMemory', 'trafficGenerator', 'victimCache']) expect(model.get(k)).toBe('datapath');
  });

  it('l1d: ports with message kinds, nested spec fields with units, statistics with GPU sums', async () => {
    const r = await runCli(['units', 'l1d']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/in\s+topIn\s+capacity 8\s+mem\.readReq, mem\.writeReq/);
    expect(r.out).toMatch(/out\s+evict\s+capacity 8\s+mem\.evict/);
    // ctrl/status may stay unbound (DESIGN.md port convention: optional on SM units).
    expect(r.out).toMatch(/in\s+ctrl\s+capacity 4\s+ctrl\.pause, ctrl\.resume, ctrl\.gate, ctrl\.wake .*\(optional\)$/m);
    expect(r.out).not.toMatch(/in\s+topIn\s.*\(optional\)/);
    expect(r.out).toMatch(/cache\.mshrEntries\s+integer\s+MSHR entries \(entries\)/);
    expect(r.out).toMatch(/l1dLatency\s+integer\s+.*\(core cycles\) \[-gpgpu_l1_latency\]/);
    expect(r.out).toMatch(/l1d_accesses\s+count\s+.*\[sum: gpu_l1d_accesses\]/);
    const json = JSON.parse((await runCli(['units', 'l1d', '--json'])).out);
    expect(json.spec.map((f: { path: string }) => f.path)).toContain('cache.sets');
  });

  it('--diagram mermaid draws the SM Work Manager with its regions; a datapath kind has none (exit 2)', async () => {
    const r = await runCli(['units', 'smWorkManager', '--diagram', 'mermaid']);
    expect(r.code).toBe(0);
    for (const region of ['kernels', 'mapping', 'coreCount', 'ctaLimit']) expect(r.out).toContain(`state "${region}"`);
    const none = await runCli(['units', 'gpuInterconnect', '--diagram', 'mermaid']);
    expect(none.code).toBe(2);
    expect(none.err).toContain('has no statechart');
    expect(none.err).toMatch(/kinds with one: .*dutyCycleController.*smWorkManager/);
    const unknown = await runCli(['units', 'nope']);
    expect(unknown.code).toBe(2);
    expect(unknown.err).toContain("unknown unit kind 'nope'");
  });

  it('a control unit whose logic is its statechart (no declared machine) is drawn from its logic', async () => {
    const r = await runCli(['units', 'dutyCycleController', '--diagram', 'mermaid']);
    expect(r.code).toBe(0);
    // machines/duty-cycle-controller: running --after runCycles--> paused (guard periodsLeft) or done.
    expect(r.out).toContain('dutyCycleController_running --> dutyCycleController_paused : after runCycles [periodsLeft]');
    expect(r.out).toContain('dutyCycleController_done --> [*]');
    const sheet = await runCli(['units', 'dutyCycleController']);
    expect(sheet.out).toContain('statechart: dutyCycleController');
    expect(sheet.out).toMatch(/statistics .*\n {2}\(none\)/);
    const stately = JSON.parse((await runCli(['units', 'dutyCycleController', '--diagram', 'stately'])).out);
    expect(Object.keys(stately.states)).toEqual(['running', 'paused', 'done']);
  });

  it('a network scenario refuses a kind that needs a resource only a GPU topology builds', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'warpstate-units-'));
    const file = join(dir, 'net.yaml');
    // gpuInterconnect routes by partitionOf (an address-map function): no JSON param can carry it.
    writeFileSync(file, 'name: net\nclocks: { core: 1GHz }\nunits:\n  - { name: ICNT, kind: gpuInterconnect, clock: core, params: {} }\n');
    const r = await runCli(['run', file]);
    expect(r.code).toBe(2);
    expect(r.err).toContain(`${file}:4:`);
    expect(r.err).toContain("units[0].kind: unit kind 'gpuInterconnect' needs resource 'partitionOf'");
    expect(r.err).not.toMatch(/\n\s+at /);
  });

  it('--inspect is refused on a functional run, where no statechart runs', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'warpstate-inspect-')), 'inspect.jsonl');
    const functional = await runCli(['run', 'scenarios/k-vecadd.yaml', '--functional', '-q', '--inspect', file]);
    expect(functional.code).toBe(2);
    expect(functional.err).toContain('needs a timing run');
    expect(existsSync(file)).toBe(false);
  });

  it('--inspect on a network scenario records the duty-cycle controller at its cycle boundaries', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'warpstate-inspect-')), 'inspect.jsonl');
    const net = await runCli(['run', 'scenarios/memory-network.yaml', '-q', '--inspect', file]);
    expect(net.code).toBe(0);
    const states = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { time: number; unit: string; kind: string; state?: string })
      .filter((r) => r.kind === 'snapshot');
    // CTRL at 1400 MHz: run 300 cycles, pause 100, twice (scenarios/memory-network.yaml); a
    // boundary at cycle c is at floor(c * 1e12 / 1.4e9) ps: 300 -> 214285, 400 -> 285714,
    // 700 -> 500000, 800 -> 571428, 1100 -> 785714.
    expect(states.map((r) => [r.unit, r.time, r.state])).toEqual([
      ['CTRL', 0, 'running'],
      ['CTRL', 214285, 'paused'],
      ['CTRL', 285714, 'running'],
      ['CTRL', 500000, 'paused'],
      ['CTRL', 571428, 'running'],
      ['CTRL', 785714, 'done'],
    ]);
  });

  it('--inspect on an Accel-Sim trace run records the SM Work Manager from launch to done', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'warpstate-inspect-')), 'inspect.jsonl');
    const traces = 'data/accelsim-traces';
    const r = await runCli(['run', '--accelsim-trace', `${traces}/vectoradd-100-32`, '--gpu', `${traces}/gtx1080-config/gpgpusim.config`, '-q', '--inspect', file]);
    expect(r.code).toBe(0);
    const records = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const smwm = records.filter((x) => x.unit === 'GPU.SMWM');
    // One kernel in the trace's kernelslist.g: one launch event, and the kernels region ends done.
    expect(smwm.filter((x) => x.kind === 'event' && x.event === 'kernel.launch')).toHaveLength(1);
    const last = smwm.filter((x) => x.kind === 'snapshot').at(-1);
    expect(JSON.parse(last.state).kernels).toBe('done');
    // Times are simulated ps and never go back.
    const times = records.map((x) => x.time as number);
    expect(times.every((t, i) => i === 0 || t >= times[i - 1]!)).toBe(true);
  });

  it('--inspect writes the statechart units\' events and states of a run as JSON Lines', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'warpstate-inspect-')), 'inspect.jsonl');
    const r = await runCli(['run', 'scenarios/ext-power-gating.yaml', '-q', '--inspect', file]);
    expect(r.code).toBe(0);
    const records = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const units = new Set(records.map((x) => x.unit));
    expect(units.has('GPU.SMWM')).toBe(true);
    expect(units.has('GPU.SM[14].PG')).toBe(true);
    // Datapath units are never inspected.
    expect([...units].some((u) => u.endsWith('.L1D') || u.endsWith('.ISSUE'))).toBe(false);
    // SM 14's controller reaches `gated` after a gate request (see the power-gating test).
    expect(records.some((x) => x.unit === 'GPU.SM[14].PG' && x.kind === 'snapshot' && x.state === 'gated')).toBe(true);
  });
});
