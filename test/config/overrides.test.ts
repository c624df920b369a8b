import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyConfigOverrides, parseConfigOverride } from '../../src/config/overrides.ts';
import { getPreset, presets } from '../../src/config/presets/index.ts';
import { InputError } from '../../src/errors.ts';

function catchInput(fn: () => unknown): InputError {
  try {
    fn();
  } catch (e) {
    if (e instanceof InputError) return e;
    throw e;
  }
  throw new Error('expected an InputError');
}

describe('parseConfigOverride', () => {
  it('splits the key into a path and reads the value as YAML', () => {
    expect(parseConfigOverride('sm.count=4')).toEqual({ key: 'sm.count', path: ['sm', 'count'], value: 4 });
    expect(parseConfigOverride('memPartitions.addressMapping.rowBits[2]=30')).toEqual({
      key: 'memPartitions.addressMapping.rowBits[2]',
      path: ['memPartitions', 'addressMapping', 'rowBits', 2],
      value: 30,
    });
    expect(parseConfigOverride('l1d.skipGlobal=true').value).toBe(true);
    expect(parseConfigOverride('name=my gpu').value).toBe('my gpu');
    expect(parseConfigOverride('policies.warpScheduler={kind: twoLevel, readyQueueSize: 8, inner: gto, outer: rr}').value).toEqual({
      kind: 'twoLevel',
      readyQueueSize: 8,
      inner: 'gto',
      outer: 'rr',
    });
  });

  it('rejects text without = and malformed keys', () => {
    expect(catchInput(() => parseConfigOverride('sm.count')).reason).toMatch(/expected key=value/);
    expect(catchInput(() => parseConfigOverride('=4')).reason).toMatch(/expected key=value/);
    expect(catchInput(() => parseConfigOverride('sm..count=4')).reason).toMatch(/malformed key/);
    expect(catchInput(() => parseConfigOverride('sm.count=')).reason).toMatch(/no value/);
  });
});

describe('applyConfigOverrides', () => {
  it('applies the example of the brief and leaves the input untouched', () => {
    const base = getPreset('gtx480');
    const c = applyConfigOverrides(base, ['sm.count=4', 'l1d.mshrEntries=8']);
    expect(c.sm.count).toBe(4);
    expect(c.l1d.mshrEntries).toBe(8);
    expect(base.sm.count).toBe(15);
    expect(base.l1d.mshrEntries).toBe(64);
    expect(c.l2).toEqual(base.l2);
  });

  it('replaces objects, sets optional fields and applies overrides in order', () => {
    const c = applyConfigOverrides(presets.gtx480!, [
      'policies.warpScheduler={kind: twoLevel, readyQueueSize: 8, inner: gto, outer: rr}',
      'sm.lanes.sp=64',
      'clocks.core=1400',
      'clocks.core=1401.5',
    ]);
    expect(c.policies.warpScheduler).toEqual({ kind: 'twoLevel', readyQueueSize: 8, inner: 'gto', outer: 'rr' });
    expect(c.sm.lanes).toEqual({ sp: 64 });
    expect(c.clocks.core).toBe(1401.5);
  });

  it('returns the config itself when there is nothing to apply', () => {
    const g = presets.gtx480!;
    expect(applyConfigOverrides(g, [])).toBe(g);
  });

  it('rejects unknown keys, naming them (file --set)', () => {
    for (const [text, field, re] of [
      ['sm.cout=4', 'sm.cout', /unknown field 'sm\.cout'/],
      ['foo.bar=1', 'foo.bar', /unknown field 'foo'/],
      ['l1d.mshrs=8', 'l1d.mshrs', /unknown field 'l1d\.mshrs'/],
    ] as const) {
      const e = catchInput(() => applyConfigOverrides(presets.gtx480!, [text]));
      expect(e.file).toBe('--set');
      expect(e.field).toBe(field);
      expect(e.reason).toMatch(re);
    }
  });

  it('rejects wrong types and out-of-range values, naming the key', () => {
    const cases: [string, RegExp][] = [
      ['sm.count=abc', /expected number/i],
      ['sm.count=0', />=\s*1|too small/i],
      ['sm.count=1.5', /int/i],
      ['l1d.replacement=random', /lru|fifo|invalid option/i],
      ['l1d.skipGlobal=7', /expected boolean/i],
      ['policies.warpScheduler={kind: twoLevel}', /readyQueueSize|expected number/i],
    ];
    for (const [text, re] of cases) {
      const e = catchInput(() => applyConfigOverrides(presets.gtx480!, [text]));
      expect(e.file, text).toBe('--set');
      expect(e.field, text).toBe(text.slice(0, text.indexOf('=')));
      expect(e.reason, text).toMatch(re);
    }
  });

  it('rejects combinations the schema refuses and blames the override that caused them', () => {
    const e = catchInput(() => applyConfigOverrides(presets.gtx480!, ['sm.count=16', 'sm.clusters=5']));
    expect(e.field).toBe('sm.clusters');
    expect(e.reason).toMatch(/16 SMs cannot be split evenly into 5 clusters/);
    const l = catchInput(() => applyConfigOverrides(presets.gtx480!, ['sm.count=4', 'l2.lineBytes=96']));
    expect(l.field).toBe('l2.lineBytes');
    expect(l.reason).toMatch(/line size 96 is not a power of two/);
    const w = catchInput(() => applyConfigOverrides(presets.gtx480!, ['l2.allocation=onFill']));
    expect(w.reason).toMatch(/write-back cache must allocate on miss/);
  });

  it('refuses paths through values and non-lists', () => {
    expect(catchInput(() => applyConfigOverrides(presets.gtx480!, ['sm.count.x=1'])).reason).toMatch(/'sm\.count' is a value/);
    expect(catchInput(() => applyConfigOverrides(presets.gtx480!, ['sm[0]=1'])).reason).toMatch(/'sm' is not a list/);
    expect(catchInput(() => applyConfigOverrides(presets.gtx480!, ['memPartitions.addressMapping.rowBits.x=1'])).reason).toMatch(/is a list/);
  });

  it('sets exactly the overridden field (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 256 }), fc.integer({ min: 1, max: 4096 }), (n, mshrs) => {
        const c = applyConfigOverrides(presets.m2090!, [`sm.count=${n}`, `l1d.mshrEntries=${mshrs}`]);
        expect(c.sm.count).toBe(n);
        expect(c.l1d.mshrEntries).toBe(mshrs);
        expect({ ...c, sm: { ...c.sm, count: 16 }, l1d: { ...c.l1d, mshrEntries: 32 } }).toEqual(presets.m2090);
      }),
      { numRuns: 50 },
    );
  });
});
