import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configToJson, formatBytes, formatConfig, loadGpuConfigFile, parseGpuConfig, presets, resolveGpuConfig } from '../../src/config/index.ts';
import { InputError } from '../../src/errors.ts';

const dir = mkdtempSync(join(tmpdir(), 'warpstate-cfgfmt-'));
const SM2 = resolve(process.cwd(), 'data', 'gpgpusim-configs', 'tested-cfgs', 'SM2_GTX480', 'gpgpusim.config');

describe('formatConfig', () => {
  const text = formatConfig(presets.gtx480!);
  const lines = text.split('\n');

  it('groups the configuration with units', () => {
    expect(lines[0]).toBe('gtx480 - NVIDIA GTX480 (Fermi) as configured by GPGPU-Sim tested-cfgs/SM2_GTX480');
    for (const heading of ['clocks', 'SM x 15', 'policies', 'caches', 'interconnect', 'memory partitions x 6', 'DRAM (per partition)', 'kernels', 'derived']) {
      expect(lines).toContain(heading);
    }
    expect(text).toContain('core 700 MHz, interconnect 700 MHz, L2 700 MHz, DRAM 924 MHz (command clock)');
    expect(text).toContain('limits      1536 threads, 48 warps of 32, 8 CTAs');
    expect(text).toContain('L1D         16 KiB (16384 B): 32 sets x 4 ways x 128 B lines, hit latency 35 cycles, 1 bank(s)');
    expect(text).toContain('L2 slice    64 KiB (65536 B): 64 sets x 8 ways x 128 B lines, 32 B sectors, hit latency 1 cycle; 12 slices = 768 KiB (786432 B)');
    expect(text).toContain('int    add 4/1, max 13/2, mul 4/2, mad 5/1, div 145/8, shfl 32/4');
    expect(text).toContain('timing (DRAM cycles) tCCD 2 tRRD 6 tRCD 12 tRAS 28 tRP 12 tRC 40 tCL 12 tWL 4 tCDLR 5 tWR 12 tCCDL 3 tRTPL 2');
    expect(text).toContain('peak DRAM bandwidth 177.4 GB/s');
    expect(text).toContain('power (PLACEHOLDER values, not calibrated)');
  });

  it('shows the GPGPU-Sim strings the values correspond to', () => {
    expect(text).toContain('gpgpusim: N:32:128:4,L:L:m:N:H,S:64:8,8,128');
    expect(text).toContain('gpgpusim: S:64:128:8,L:B:m:L:L,A:256:4,4,32');
    expect(text).toContain('address mapping dramid@8;00000000.00000000.00000000.00000000.0000RRRR.RRRRRRRR.BBBCCCCB.CCSSSSSS');
  });

  it('shows policies and peak FLOP/s when lanes are known', () => {
    const m = formatConfig(presets.m2090!);
    expect(m).toContain('warp twoLevel (ready queue 6 warps, inner rr, outer rr, idle states over supervised warps (default)), CTA roundRobin, kernel inOrder, memory issue none');
    expect(m).toContain('peak FLOP/s single 1331.2 G double 665.6 G');
    expect(m).toContain('issue       2 scheduler(s), up to 1 instruction(s) per warp every 2 cycle(s)');
  });

  it("shows GPGPU-Sim's two-level scheduler and the idle-state scope", () => {
    const c = { ...presets.gtx480!, policies: { ...presets.gtx480!.policies, warpScheduler: { kind: 'twoLevelGpgpusim' as const, readyQueueSize: 6, idleStates: 'considered' as const } } };
    expect(formatConfig(c)).toContain('warp twoLevelGpgpusim (GPGPU-Sim two_level_active:6:0:1, active list 6 warps, inner lrr, outer srr, idle states over considered warps), CTA');
  });

  it('formats every preset', () => {
    for (const p of Object.values(presets)) expect(formatConfig(p)).toMatch(/peak DRAM bandwidth \d+\.\d GB\/s/);
  });

  it('formatBytes', () => {
    expect(formatBytes(2048)).toBe('2 KiB (2048 B)');
    expect(formatBytes(2 * 1024 * 1024)).toBe('2 MiB (2097152 B)');
    expect(formatBytes(1000)).toBe('1000 B');
  });
});

describe('JSON and config resolution', () => {
  it('JSON output reads back to the same config', () => {
    for (const p of Object.values(presets)) expect(parseGpuConfig(JSON.parse(configToJson(p)))).toEqual(p);
    const file = join(dir, 'k20x.json');
    writeFileSync(file, configToJson(presets.k20x!));
    expect(loadGpuConfigFile(file)).toEqual(presets.k20x);
    expect(resolveGpuConfig(file)).toEqual({ kind: 'file', config: presets.k20x });
  });

  it('reports a bad field of a JSON/YAML config with its line', () => {
    const file = join(dir, 'bad.yaml');
    const text = configToJson(presets.gtx480!).replace('"maxCtas": 8', '"maxCtas": "eight"');
    writeFileSync(file, text);
    const line = text.split('\n').findIndex((l) => l.includes('"eight"')) + 1;
    let err: unknown;
    try {
      loadGpuConfigFile(file);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InputError);
    expect((err as InputError).line).toBe(line);
    expect((err as InputError).field).toBe('sm.maxCtas');
  });

  it('resolves preset names, gpgpusim.config files and unknown names', () => {
    expect(resolveGpuConfig('m2090')).toEqual({ kind: 'preset', config: presets.m2090 });
    const g = resolveGpuConfig(SM2);
    expect(g.kind).toBe('gpgpusim');
    expect(g.config.sm.count).toBe(15);
    expect(() => resolveGpuConfig('nonesuch')).toThrow(/nonesuch: nonesuch: not a preset \(known: gtx480, gtx480-elf/);
    const other = join(dir, 'fermi.cfg');
    writeFileSync(other, '-gpgpu_n_clusters 3\n');
    expect(resolveGpuConfig(other)).toMatchObject({ kind: 'gpgpusim', config: { sm: { count: 3 } } });
  });
});
