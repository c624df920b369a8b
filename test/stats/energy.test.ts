/**
 * Energy model (`../specs/cta-kernel-level.md` §1.6, §6, §12.1 "energy formula with gated
 * intervals"): every expected value is computed by hand in the comment beside it.
 */
import { describe, expect, it } from 'vitest';
import type { PowerConfig } from '../../src/config/schema.ts';
import {
  ENERGY_EVENT_KINDS,
  GATED_SM_STATIC_WATTS_PLACEHOLDER,
  GPUWATTCH_FERMI_IDLE_CORE_WATTS,
  energyReport,
  energyStats,
  smPowerCycles,
  withFermiSmStaticPower,
  type EnergyEventKind,
  type EnergyParams,
} from '../../src/stats/energy.ts';

/** A config `power` block is accepted as it is (compile-time check). */
const fromConfig = (p: PowerConfig): EnergyParams => p;

const pj = Object.fromEntries(ENERGY_EVENT_KINDS.map((k) => [k, 1])) as Record<EnergyEventKind, number>;
const base: EnergyParams = fromConfig({
  placeholder: true,
  smStaticWatts: 2.5,
  smGatedStaticWatts: GATED_SM_STATIC_WATTS_PLACEHOLDER,
  uncoreStaticWatts: 20,
  dramStaticWattsPerPartition: 2,
  energyPj: { ...pj, intOp: 100, dramAccess32B: 3000 },
});
const fermi = withFermiSmStaticPower(base);

describe('SM power intervals', () => {
  it('powered and gated cycles per SM, clipped to the window', () => {
    // SM0: active, paused 200..300 (powered), active: 1000 powered. SM1: gated at 400, woken
    // at 800: 400 + 200 powered, 400 gated. SM2: no change: 1000 powered.
    const changes = [
      { sm: 0, cycle: 200, state: 'paused' as const },
      { sm: 1, cycle: 400, state: 'gated' as const },
      { sm: 0, cycle: 300, state: 'active' as const },
      { sm: 1, cycle: 800, state: 'active' as const },
    ];
    expect(smPowerCycles(3, changes, 0, 1000)).toEqual([
      { powered: 1000, gated: 0 },
      { powered: 600, gated: 400 },
      { powered: 1000, gated: 0 },
    ]);
    // Window [500, 900): SM1 is gated from before the window until 800: 300 gated, 100 powered.
    expect(smPowerCycles(3, changes, 500, 900)[1]).toEqual({ powered: 100, gated: 300 });
  });

  it('bad change lists are refused', () => {
    expect(() => smPowerCycles(2, [{ sm: 2, cycle: 0, state: 'gated' }], 0, 10)).toThrow(RangeError);
    expect(() => smPowerCycles(2, [{ sm: 0, cycle: 5, state: 'gated' }, { sm: 0, cycle: 4, state: 'active' }], 0, 10)).toThrow(/cycle order/);
    expect(() => smPowerCycles(2, [], 10, 5)).toThrow(RangeError);
  });
});

describe('energy formula (spec §1.6)', () => {
  it('two SMs, one gated from cycle 400, 1000 cycles at 1000 MHz', () => {
    // T = 1000 / 1e9 = 1e-6 s. SM static: (1000 x 1.59 + 400 x 1.59 + 600 x 0.1) / 1e9
    // = (1590 + 636 + 60) e-9 = 2286e-9 J. Uncore + DRAM: 1e-6 x (20 + 2 x 2) = 24e-6 J.
    // Static 26286e-9 J. Dynamic: 100 x 100 pJ + 10 x 3000 pJ = 40 000 pJ = 4e-8 J.
    // Total 26326e-9 J; P_avg = 26.326 W, static 26.286 W, dynamic 0.04 W.
    const r = energyReport({ numSms: 2, memPartitions: 2, coreClockMhz: 1000, endCycle: 1000, smPower: [{ sm: 1, cycle: 400, state: 'gated' }], events: { intOp: 100, dramAccess32B: 10 } }, fermi);
    expect(r.seconds).toBeCloseTo(1e-6, 18);
    expect(r.smStaticJ).toBeCloseTo(2286e-9, 18);
    expect(r.uncoreStaticJ).toBeCloseTo(24e-6, 18);
    expect(r.staticJ).toBeCloseTo(26286e-9, 18);
    expect(r.dynamicJ).toBeCloseTo(4e-8, 18);
    expect(r.totalJ).toBeCloseTo(26326e-9, 18);
    expect(r.avgPowerW).toBeCloseTo(26.326, 9);
    expect(r.staticAvgW).toBeCloseTo(26.286, 9);
    expect(r.dynamicAvgW).toBeCloseTo(0.04, 9);
    expect([r.smPoweredCycles, r.smGatedCycles]).toEqual([1400, 600]);
    expect(r.eventsJ.intOp).toBeCloseTo(1e-8, 18);
    expect(r.eventsJ.dramAccess32B).toBeCloseTo(3e-8, 18);
    expect(r.eventsJ.fpOp).toBe(0);
    // Only the SM static power has a source (GPUWattch 1.59 W); the rest that was used is flagged.
    expect(r.placeholder).toBe(true);
    expect(r.placeholders).toEqual(['smGatedStaticWatts', 'uncoreStaticWatts', 'dramStaticWattsPerPartition', 'energyPj.intOp', 'energyPj.dramAccess32B']);
  });

  it('gating saves (smStaticWatts - smGatedStaticWatts) per gated SM-second, at every smStaticWatts of the sensitivity run', () => {
    // 600 gated cycles at 1 GHz = 0.6 us: saving 0.6e-6 x (s - 0.1) J.
    for (const s of [0.5, 1.59, 3.0]) {
      const p = { ...base, smStaticWatts: s };
      const input = { numSms: 2, memPartitions: 2, coreClockMhz: 1000, endCycle: 1000, events: { intOp: 100 } };
      const on = energyReport({ ...input, smPower: [] }, p);
      const gated = energyReport({ ...input, smPower: [{ sm: 1, cycle: 400, state: 'gated' as const }] }, p);
      expect(on.totalJ - gated.totalJ).toBeCloseTo(0.6e-6 * (s - 0.1), 18);
      expect(gated.totalJ).toBeLessThan(on.totalJ);
    }
  });

  it('a kernel window [500, 1000) with its own events', () => {
    // 700 MHz: T = 500 / 7e8 s. SM0 powered 500, SM1 gated 500 (since 400).
    // SM static (500 x 1.59 + 500 x 0.1) / 7e8 = 845 / 7e8 J; uncore 500/7e8 x 24 = 12000 / 7e8 J.
    const r = energyReport({ numSms: 2, memPartitions: 2, coreClockMhz: 700, startCycle: 500, endCycle: 1000, smPower: [{ sm: 1, cycle: 400, state: 'gated' }], events: {} }, fermi);
    expect(r.staticJ).toBeCloseTo(12845 / 7e8, 18);
    expect(r.dynamicJ).toBe(0);
    expect(r.staticAvgW).toBeCloseTo(12845 / 500, 9); // = 25.69 W
  });

  it('calibrated parameters report no placeholder; stats carry the spec names', () => {
    const r = energyReport({ numSms: 1, memPartitions: 1, coreClockMhz: 1000, endCycle: 10, smPower: [], events: { l2Access: 2 } }, { ...base, placeholder: false });
    expect(r.placeholders).toEqual([]);
    const s = energyStats(r, 'kernel[0].');
    expect(Object.keys(s).slice(0, 8)).toEqual([
      'kernel[0].energy.static_j',
      'kernel[0].energy.dynamic_j',
      'kernel[0].energy.total_j',
      'kernel[0].power.avg_w',
      'kernel[0].power.static_avg_w',
      'kernel[0].power.dynamic_avg_w',
      'kernel[0].energy.sm_powered_cycles',
      'kernel[0].energy.sm_gated_cycles',
    ]);
    expect(s['kernel[0].energy.events.l2Access']).toBeCloseTo(2e-12, 24);
    expect(s['kernel[0].energy.placeholder']).toBe(0);
    expect(GPUWATTCH_FERMI_IDLE_CORE_WATTS).toBe(1.59);
  });

  it('an empty window is zero energy and zero power', () => {
    const r = energyReport({ numSms: 2, memPartitions: 1, coreClockMhz: 1000, endCycle: 0, smPower: [], events: {} }, fermi);
    expect([r.totalJ, r.avgPowerW, r.placeholders.length]).toEqual([0, 0, 0]);
    expect(() => energyReport({ numSms: 1, memPartitions: 1, coreClockMhz: 0, endCycle: 1, smPower: [], events: {} }, fermi)).toThrow(RangeError);
  });
});
