import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ClockDomain, parseDuration, parseFrequency } from '../../src/sim/time.ts';
import { InputError } from '../../src/errors.ts';

// Independent reference: exact rational arithmetic in BigInt.
function refTime(cycle: number, hz: number): number {
  return Number((BigInt(cycle) * 1_000_000_000_000n) / BigInt(hz));
}

describe('ClockDomain', () => {
  const freqs = [700_000_000, 924_000_000, 1_400_000_000, 1_848_000_000, 1_300_000_000, 1_480_000_000];

  it.each(freqs)('has no drift over 10^9 cycles at %d Hz', (hz) => {
    const c = new ClockDomain('x', hz);
    const n = 1_000_000_000;
    expect(c.timeOfCycle(n)).toBe(refTime(n, hz));
    expect(c.cycleAt(c.timeOfCycle(n))).toBe(n);
    expect(c.cycleAt(c.timeOfCycle(n) - 1)).toBe(n - 1);
  });

  it('matches the worked values of the rounding rule', () => {
    const c700 = new ClockDomain('core', 700_000_000);
    // period 10000/7 ps = 1428.571...: edges floor(n * 1428.571...)
    expect([0, 1, 2, 3, 7].map((n) => c700.timeOfCycle(n))).toEqual([0, 1428, 2857, 4285, 10000]);
    expect(c700.timeOfCycle(1_000_000_000)).toBe(1_428_571_428_571);
    const c14 = new ClockDomain('core', 1_400_000_000);
    expect(c14.timeOfCycle(7)).toBe(5000);
  });

  it('round-trips every cycle (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2_000_000_000 }), fc.constantFrom(...freqs, 1_000_000, 123_456_789, 999_999_937), (n, hz) => {
        const c = new ClockDomain('x', hz);
        const t = c.timeOfCycle(n);
        expect(t).toBe(refTime(n, hz));
        expect(c.cycleAt(t)).toBe(n);
        if (t > 0) expect(c.cycleAt(t - 1)).toBeLessThan(n);
        expect(c.cycleAtOrAfter(t)).toBe(n);
        expect(c.cycleAtOrAfter(t + 1)).toBe(n + 1);
      }),
    );
  });

  it('timeAfterCycles is strictly later for >= 1 cycle, also from a non-edge time', () => {
    const c = new ClockDomain('dram', 924_000_000);
    expect(c.timeAfterCycles(0, 1)).toBe(c.timeOfCycle(1));
    const mid = c.timeOfCycle(5) + 3; // between edges 5 and 6
    expect(c.timeAfterCycles(mid, 1)).toBe(c.timeOfCycle(7));
    expect(c.timeAfterCycles(c.timeOfCycle(5), 2)).toBe(c.timeOfCycle(7));
  });

  it('rejects non-integer or non-positive frequencies', () => {
    expect(() => new ClockDomain('x', 0)).toThrow(RangeError);
    expect(() => new ClockDomain('x', 1.5)).toThrow(RangeError);
  });
});

describe('parsing frequencies and durations', () => {
  const where = { file: 'f.yaml', line: 3 };
  it('reads units', () => {
    expect(parseFrequency('1400MHz', where, 'f')).toBe(1_400_000_000);
    expect(parseFrequency('1.4GHz', where, 'f')).toBe(1_400_000_000);
    expect(parseFrequency('924 MHz', where, 'f')).toBe(924_000_000);
    expect(parseDuration('10us', where, 'd')).toBe(10_000_000);
    expect(parseDuration('2500ns', where, 'd')).toBe(2_500_000);
    expect(parseDuration(123, where, 'd')).toBe(123);
  });
  it('names the file, line and field on bad text', () => {
    expect(() => parseFrequency('fast', where, 'clocks.core')).toThrow(InputError);
    expect(() => parseFrequency('fast', where, 'clocks.core')).toThrow(/f\.yaml:3: clocks\.core: not a frequency/);
    expect(() => parseDuration('-5us', where, 'until')).toThrow(/f\.yaml:3: until/);
  });
});
