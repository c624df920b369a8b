/**
 * `warpstate units` (issue 8 item 2): every unit kind is listed; a data sheet shows ports with
 * message kinds, spec fields with units (nested ones as dotted paths) and statistics;
 * `--diagram` prints a statechart; `--inspect` records statechart events of a run.
 */
import { mkdtempSync, readdirSync, readFileSync, existsSync } from 'node:fs';
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

  it('l1d: ports with message kinds, nested spec fields with units, statistics with GPU sums', async () => {
    const r = await runCli(['units', 'l1d']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/in\s+topIn\s+capacity 8\s+mem\.readReq, mem\.writeReq/);
    expect(r.out).toMatch(/out\s+evict\s+capacity 8\s+mem\.evict/);
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
    const unknown = await runCli(['units', 'nope']);
    expect(unknown.code).toBe(2);
    expect(unknown.err).toContain("unknown unit kind 'nope'");
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
