import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseGpuConfig } from '../../src/config/index.ts';
import { presets } from '../../src/config/presets/index.ts';
import { ctasPerSm, gpuConfigSchema, maxWarpsPerSm, totalL2Slices, type GpuConfig } from '../../src/config/schema.ts';
import { InputError } from '../../src/errors.ts';

const clone = (c: GpuConfig): GpuConfig => structuredClone(c);

function issues(value: unknown): { path: string; message: string; code: string }[] {
  const r = gpuConfigSchema.safeParse(value);
  if (r.success) return [];
  return r.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message, code: i.code }));
}

describe('gpuConfigSchema', () => {
  it('describes every leaf field (units for the CLI and docs)', () => {
    const js = z.toJSONSchema(gpuConfigSchema, { io: 'input' }) as Record<string, unknown>;
    const missing: string[] = [];
    let leaves = 0;
    const walk = (s: any, path: string): void => {
      if (!s || typeof s !== 'object') return;
      for (const [k, v] of Object.entries<any>(s.properties ?? {})) {
        const leaf = (v.type !== undefined && v.type !== 'object') || v.enum !== undefined || v.const !== undefined;
        if (leaf) {
          leaves++;
          if (typeof v.description !== 'string' || v.description.length === 0) missing.push(`${path}.${k}`);
        }
        walk(v, `${path}.${k}`);
      }
      for (const key of ['anyOf', 'oneOf', 'allOf'] as const) (s[key] ?? []).forEach((x: unknown) => walk(x, path));
    };
    walk(js, '');
    expect(leaves).toBeGreaterThan(200);
    expect(missing).toEqual([]);
  });

  it('rejects unknown keys at any depth', () => {
    const top = { ...clone(presets.gtx480!), extra: 1 };
    expect(issues(top)).toContainEqual(expect.objectContaining({ code: 'unrecognized_keys', path: '' }));
    const deep = clone(presets.gtx480!) as any;
    deep.dram.timing.tFAW = 20;
    expect(issues(deep)).toContainEqual(expect.objectContaining({ code: 'unrecognized_keys', path: 'dram.timing' }));
    const policy = clone(presets.gtx480!) as any;
    policy.policies.warpScheduler = { kind: 'gto', readyQueueSize: 4 };
    expect(issues(policy).length).toBeGreaterThan(0);
  });

  it('checks cache geometry', () => {
    const c = clone(presets.gtx480!);
    c.l1d.lineBytes = 96;
    c.l2.dataPortBytes = 48;
    c.l1i.sets = 3;
    const found = issues(c);
    expect(found).toContainEqual(expect.objectContaining({ path: 'l1d.lineBytes', message: 'line size 96 is not a power of two' }));
    expect(found).toContainEqual(expect.objectContaining({ path: 'l2.dataPortBytes', message: 'data port width 48 does not divide the line size 128' }));
    expect(found).toContainEqual(expect.objectContaining({ path: 'l1i.sets' }));
    const d = clone(presets.gtx480!);
    d.l2.allocation = 'onFill'; // write-back + allocate-on-fill deadlocks in GPGPU-Sim
    expect(issues(d)).toContainEqual(expect.objectContaining({ path: 'l2.allocation' }));
    const f = clone(presets.gtx480!);
    f.l1d.allocation = 'streaming';
    f.l1d.writeAllocate = 'fetchOnWrite';
    expect(issues(f)).toContainEqual(expect.objectContaining({ path: 'l1d.writeAllocate' }));
    const s = clone(presets.gtx480!);
    s.l2.sectorBytes = 48;
    expect(issues(s)).toContainEqual(expect.objectContaining({ path: 'l2.sectorBytes' }));
  });

  it('checks SM cross-field constraints', () => {
    const c = clone(presets.gtx480!);
    c.sm.maxThreads = 1000;
    c.sm.clusters = 4;
    c.sm.units.dp.count = 2; // widths are 0 in SM2_GTX480
    c.sm.units.sfu.count = 0;
    const found = issues(c).map((i) => i.path);
    expect(found).toEqual(expect.arrayContaining(['sm.maxThreads', 'sm.clusters', 'sm.units.dp', 'sm.units.sfu.count']));
    const t = clone(presets.gtx480!);
    t.policies.warpScheduler = { kind: 'twoLevel', readyQueueSize: 49, inner: 'rr', outer: 'rr' };
    expect(issues(t)).toContainEqual(expect.objectContaining({ path: 'policies.warpScheduler.readyQueueSize', message: 'ready queue of 49 warps exceeds the 48 warps of an SM' }));
  });

  it('checks the memory system', () => {
    const c = clone(presets.gtx480!);
    c.memPartitions.subPartitions = 3;
    c.memPartitions.addressMapping.bankBits = [8, 13, 14, 16]; // 16 is a row bit
    c.dram.bankGroups = 3;
    c.dram.writeQueue.lowWatermark = 30;
    const found = issues(c);
    expect(found.map((i) => i.path)).toEqual(
      expect.arrayContaining(['memPartitions.subPartitions', 'memPartitions.addressMapping.rowBits', 'dram.bankGroups', 'dram.writeQueue']),
    );
    expect(found.find((i) => i.path === 'memPartitions.addressMapping.rowBits')?.message).toBe('address bit 16 is in both bankBits and rowBits');
    const d = clone(presets.gtx480!);
    d.memPartitions.addressMapping.dramIdStartBit = null;
    d.memPartitions.addressMapping.channelBits = [28, 29]; // 4 channels, not 6
    expect(issues(d)).toContainEqual(expect.objectContaining({ path: 'memPartitions.addressMapping.channelBits', message: '2 channel bits address 4 channels, not 6' }));
    const b = clone(presets.gtx480!);
    b.memPartitions.addressMapping.burstBits = [0, 8];
    expect(issues(b)).toContainEqual(expect.objectContaining({ path: 'memPartitions.addressMapping.burstBits', message: 'burst bit 8 must also be a column bit' }));
  });
});

describe('parseGpuConfig', () => {
  it('returns a validated config and reports the first bad field as an InputError', () => {
    expect(parseGpuConfig(JSON.parse(JSON.stringify(presets.k20x)))).toEqual(presets.k20x);
    const bad = clone(presets.k20x!) as any;
    bad.sm.count = -1;
    let err: unknown;
    try {
      parseGpuConfig(bad, 'my.json');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InputError);
    expect((err as InputError).file).toBe('my.json');
    expect((err as InputError).field).toBe('sm.count');
    const extra = clone(presets.k20x!) as any;
    extra.l1d.foo = 1;
    expect(() => parseGpuConfig(extra, 'my.json')).toThrow(/my\.json: l1d\.foo: unknown field 'l1d\.foo'/);
  });
});

describe('derived helpers', () => {
  it('derives maxWarps from threads when not given', () => {
    const c = clone(presets.gtx480!);
    delete c.sm.maxWarps;
    expect(maxWarpsPerSm(c)).toBe(48);
    c.sm.maxThreads = 2048;
    expect(maxWarpsPerSm(c)).toBe(64);
    expect(totalL2Slices(presets.gtx480!)).toBe(12);
  });

  // Paper 000 Table 4.2: maximum CTAs per SM for M2090 and K20X. "Reg (Bytes)" is registers x 4
  // per CTA; the kernels' shared memory does not limit them.
  const table42: [string, number, number, number, number][] = [
    // name, register bytes per CTA, threads per CTA, max M2090, max K20X
    ['BP-2', 24576, 256, 5, 8],
    ['CFD', 39936, 192, 3, 6],
    ['Gaussian', 1536, 16, 8, 16],
    ['LUD', 16384, 256, 6, 8],
    ['Hotspot', 36864, 256, 3, 6],
    ['SRAD-4', 20480, 256, 6, 8],
  ];
  it.each(table42)('ctasPerSm reproduces paper 000 Table 4.2 for %s', (_name, regBytes, threads, m2090Max, k20xMax) => {
    const regsPerThread = regBytes / 4 / threads;
    expect(ctasPerSm(presets.m2090!, threads, regsPerThread, 0)).toBe(m2090Max);
    expect(ctasPerSm(presets.k20x!, threads, regsPerThread, 0)).toBe(k20xMax);
  });

  it('ctasPerSm applies shared memory and per-CTA limits', () => {
    const g = presets.gtx480!;
    // 48 KiB per SM, 128-byte allocation: 12000 B -> 12032 B -> 4 CTAs
    expect(ctasPerSm(g, 64, 8, 12000)).toBe(4);
    expect(ctasPerSm(g, 64, 8, 49152)).toBe(1);
    expect(ctasPerSm(g, 64, 8, 49153)).toBe(0);
    expect(ctasPerSm(g, 1537, 8, 0)).toBe(0);
    expect(ctasPerSm(g, 32, 0, 0)).toBe(8); // CTA slots
  });
});
