/**
 * ONAC estimator and statechart on synthetic IPC curves (000 §4.4.2.2; `../specs/
 * cta-kernel-level.md` §4.8, §12.1). The curves reproduce the paper's walk-throughs; every
 * expected estimate is computed by hand beside the case.
 */
import { createActor } from 'xstate';
import { describe, expect, it } from 'vitest';
import { onacMachine } from '../../machines/sm-work-manager/onac.ts';
import { ceilCores, ipcThreshold, meetsThreshold, onacEstimate, onacParams, windowIpc } from '../../src/model/smwm/active-cores.ts';
import { statePaths, toMermaid } from '../../src/report/diagram.ts';
import { runDetector } from '../helpers/fake-smwm.ts';

/** A curve defined only at the counts a walk-through samples (any other count is a test failure). */
function pointCurve(points: Record<number, number>): (n: number) => number {
  return (n) => {
    const v = points[n];
    if (v === undefined) throw new Error(`curve sampled at ${n} cores, not in the walk-through`);
    return v;
  };
}

// Backprop (000 §4.4.2.2, Fig. 4.12): IPC_all 8.4 -> threshold 0.98 x 8.4 = 8.232.
const backprop = pointCurve({ 32: 8.4, 1: 1.0, 9: 7.6, 10: 7.95, 11: 8.15, 12: 8.25 });
// Pathfinder (Fig. 4.11): linear-ish; threshold 0.98 x 32 = 31.36.
const pathfinder = pointCurve({ 32: 32, 1: 1.02, 31: 30.9 });

describe('ONAC estimator (000 §4.4.2.1-2)', () => {
  it('threshold 2 % below IPC_all; windows give IPC; meets is >=', () => {
    expect(ipcThreshold(8.4, 2)).toBeCloseTo(8.232, 12);
    expect(windowIpc(7600, 1000)).toBe(7.6);
    expect(windowIpc(5, 0)).toBe(0);
    expect(meetsThreshold(8.232, 8.232)).toBe(true);
    expect(onacParams.parse({})).toEqual({ thresholdPct: 2, sampleWaves: 4, sampleStart: 'afterInFlight' });
  });

  it('Backprop: 9 -> 10 -> 11 -> 12', () => {
    const thr = 8.232;
    // ceil(8.232 / 1.0) = 9 (origin line, observation 2).
    expect(onacEstimate(null, { cores: 1, ipc: 1.0 }, thr, 32)).toBe(9);
    // (1, 1.0)-(9, 7.6): slope 0.825; 1 + 7.232 / 0.825 = 9.766 -> 10.
    expect(onacEstimate({ cores: 1, ipc: 1.0 }, { cores: 9, ipc: 7.6 }, thr, 32)).toBe(10);
    // (9, 7.6)-(10, 7.95): slope 0.35; 9 + 0.632 / 0.35 = 10.806 -> 11.
    expect(onacEstimate({ cores: 9, ipc: 7.6 }, { cores: 10, ipc: 7.95 }, thr, 32)).toBe(11);
    // (10, 7.95)-(11, 8.15): slope 0.2; 10 + 0.282 / 0.2 = 11.41 -> 12.
    expect(onacEstimate({ cores: 10, ipc: 7.95 }, { cores: 11, ipc: 8.15 }, thr, 32)).toBe(12);
  });

  it('Pathfinder: 31, then the line reaches 32 = nMax', () => {
    // ceil(31.36 / 1.02) = ceil(30.745) = 31; (1, 1.02)-(31, 30.9): slope 0.996;
    // 1 + 30.34 / 0.996 = 31.46 -> 32.
    expect(onacEstimate(null, { cores: 1, ipc: 1.02 }, 31.36, 32)).toBe(31);
    expect(onacEstimate({ cores: 1, ipc: 1.02 }, { cores: 31, ipc: 30.9 }, 31.36, 32)).toBe(32);
  });

  it('non-positive slope steps one core (R11); clamps to [cur + 1, nMax]', () => {
    expect(onacEstimate({ cores: 9, ipc: 7.6 }, { cores: 10, ipc: 7.5 }, 8.232, 32)).toBe(11);
    expect(onacEstimate({ cores: 9, ipc: 7.6 }, { cores: 10, ipc: 7.6 }, 8.232, 32)).toBe(11);
    // A steep line would land at or below cur: at least cur + 1.
    expect(onacEstimate({ cores: 9, ipc: 1 }, { cores: 10, ipc: 8.2 }, 8.232, 32)).toBe(11);
    // Far beyond the chip: nMax.
    expect(onacEstimate(null, { cores: 1, ipc: 0.1 }, 31.36, 32)).toBe(32);
    // Float noise just above an integer is not rounded up: 12 + 1e-12 -> 12.
    expect(ceilCores(12 + 1e-12)).toBe(12);
    expect(ceilCores(12.001)).toBe(13);
  });
});

describe('ONAC statechart with a fake SM Work Manager', () => {
  it('Backprop walk-through: samples at 32, 1, 9, 10, 11, 12; Nopt 12 at the 4th estimate', () => {
    const r = runDetector(onacMachine, { numSms: 32 }, backprop);
    expect(r.rounds).toEqual([32, 1, 9, 10, 11, 12]);
    const c = r.snapshot.context;
    expect(c.nOpt).toBe(12);
    expect(c.estimates).toBe(4);
    expect(c.er.all.cores).toBe(32);
    expect(c.er.all.ipc).toBeCloseTo(8.4, 9);
    expect(c.history.map((h: { cores: number }) => h.cores)).toEqual([1, 9, 10, 11, 12]);
    // Pauses: 31 cores, highest index first (R13); resumes: 1..8 for the estimate 9, then 9,
    // 10, 11 one per estimate, then 12..31 to drain; each surplus core gated once drained.
    const of = (type: string) => r.emitted.filter((e) => e.type === type).map((e) => e.sm);
    expect(of('ctrl.pause')).toEqual(Array.from({ length: 31 }, (_, i) => 31 - i));
    expect(of('ctrl.resume')).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, ...Array.from({ length: 20 }, (_, i) => 12 + i)]);
    expect(of('ctrl.gate')).toEqual(Array.from({ length: 20 }, (_, i) => 12 + i));
    expect(r.snapshot.status).toBe('done');
    expect(r.snapshot.output).toEqual({ nOpt: 12, estimates: 4 });
    // Cores 0..11 active and unpaused; 12..31 inactive and gated.
    expect(c.cores.map((x: { active: boolean }) => x.active)).toEqual(Array.from({ length: 32 }, (_, i) => i < 12));
    expect(c.cores.every((x: { paused: boolean }) => !x.paused)).toBe(true);
    expect(c.cores.map((x: { gated: boolean }) => x.gated)).toEqual(Array.from({ length: 32 }, (_, i) => i >= 12));
    // Samples end after sampleWaves x ctasPerSm = 4 x 8 own CTA completions, after in-flight work.
    expect(r.emitted.find((e) => e.type === 'ctrl.sampleStart')).toEqual({ type: 'ctrl.sampleStart', sm: 0, id: 1, end: { ctas: 32 }, start: 'afterInFlight', periodic: false });
  });

  it('Pathfinder walk-through: 31 -> 32 at the second estimate, without a sample at 32', () => {
    const r = runDetector(onacMachine, { numSms: 32 }, pathfinder);
    expect(r.rounds).toEqual([32, 1, 31]);
    expect(r.snapshot.context.nOpt).toBe(32);
    expect(r.snapshot.context.estimates).toBe(2);
    // Every core back to work, nothing gated.
    expect(r.emitted.filter((e) => e.type === 'ctrl.gate')).toEqual([]);
    expect(r.emitted.filter((e) => e.type === 'ctrl.resume').map((e) => e.sm)).toEqual(Array.from({ length: 31 }, (_, i) => i + 1));
    expect(r.snapshot.status).toBe('done');
  });

  it('0.7 x min(N, 12) on 32 cores: ceil(8.232 / 0.7) = 12 after one estimate', () => {
    const r = runDetector(onacMachine, { numSms: 32 }, (n) => 0.7 * Math.min(n, 12));
    expect(r.rounds).toEqual([32, 1, 12]);
    expect(r.snapshot.context.nOpt).toBe(12);
    expect(r.snapshot.context.estimates).toBe(1);
  });

  it('pause handshake: the 1-core sample starts only after all 31 acknowledgements', () => {
    const actor = createActor(onacMachine, { input: { numSms: 32 } });
    const emitted: { type: string; sm: number }[] = [];
    actor.on('*', (e) => emitted.push(e));
    actor.start();
    actor.send({ type: 'kernel.start', ctasPerSm: 8 });
    for (let sm = 0; sm < 32; sm++) actor.send({ type: 'sm.sample', sm, id: 1, threadInsts: 262.5, cycles: 1000 });
    expect(actor.getSnapshot().value).toEqual({ init: 'pausing' });
    const before = emitted.length;
    for (let sm = 31; sm >= 2; sm--) actor.send({ type: 'core.paused', sm });
    expect(actor.getSnapshot().value).toEqual({ init: 'pausing' });
    expect(emitted.length).toBe(before);
    // A sample from a paused core, or a stale one, is ignored.
    actor.send({ type: 'sm.sample', sm: 5, id: 1, threadInsts: 1, cycles: 1 });
    actor.send({ type: 'core.paused', sm: 1 });
    expect(actor.getSnapshot().value).toEqual({ init: 'sampleOne' });
    expect(emitted.slice(before)).toEqual([{ type: 'ctrl.sampleStart', sm: 0, id: 2, end: { ctas: 32 }, start: 'afterInFlight', periodic: false }]);
    // CTAs may go only to core 0 now: active and unpaused.
    const cores = actor.getSnapshot().context.cores;
    expect(cores.filter((x) => x.active && !x.paused).length).toBe(1);
  });

  it('surplus cores are gated only once drained', () => {
    const actor = createActor(onacMachine, { input: { numSms: 4 } });
    const gates: number[] = [];
    actor.on('ctrl.gate', (e) => gates.push(e.sm));
    actor.start();
    // Chip IPC 4 with 4 cores, 4 with 1 core: IPC_1 meets the threshold -> Nopt 1.
    actor.send({ type: 'kernel.start', ctasPerSm: 2 });
    for (let sm = 0; sm < 4; sm++) actor.send({ type: 'sm.sample', sm, threadInsts: 1000, cycles: 1000 });
    for (let sm = 3; sm >= 1; sm--) actor.send({ type: 'core.paused', sm });
    actor.send({ type: 'sm.sample', sm: 0, threadInsts: 4000, cycles: 1000 });
    expect(actor.getSnapshot().value).toBe('detected');
    expect(actor.getSnapshot().context.nOpt).toBe(1);
    expect(gates).toEqual([]);
    actor.send({ type: 'core.drained', sm: 2 });
    actor.send({ type: 'core.drained', sm: 0 }); // core 0 stays active: never gated
    expect(gates).toEqual([2]);
    actor.send({ type: 'core.drained', sm: 1 });
    actor.send({ type: 'core.drained', sm: 3 });
    expect(gates).toEqual([2, 1, 3]);
    expect(actor.getSnapshot().status).toBe('done');
  });

  it('kernel.issueComplete before detection aborts and resumes every paused core', () => {
    const actor = createActor(onacMachine, { input: { numSms: 4 } });
    const resumes: number[] = [];
    actor.on('ctrl.resume', (e) => resumes.push(e.sm));
    actor.start();
    actor.send({ type: 'kernel.start', ctasPerSm: 2 });
    for (let sm = 0; sm < 4; sm++) actor.send({ type: 'sm.sample', sm, threadInsts: 1000, cycles: 1000 });
    actor.send({ type: 'kernel.issueComplete' });
    expect(actor.getSnapshot().value).toBe('aborted');
    expect(resumes).toEqual([1, 2, 3]);
    expect(actor.getSnapshot().context.cores.every((x) => x.active && !x.paused)).toBe(true);
  });

  it('one core: Nopt 1 at once', () => {
    const r = runDetector(onacMachine, { numSms: 1 }, () => 1);
    expect(r.rounds).toEqual([]);
    expect(r.snapshot.context.nOpt).toBe(1);
    expect(r.snapshot.status).toBe('done');
  });

  it("exports as a Mermaid diagram with the paper's Init / Est / Opt Det states", () => {
    const m = toMermaid(onacMachine);
    expect(statePaths(onacMachine)).toEqual(['idle', 'init', 'init.sampleAll', 'init.pausing', 'init.sampleOne', 'est', 'unpausing', 'sampling', 'optDet', 'detected', 'done', 'aborted']);
    expect(m).toContain('state "init" as onac_init {');
    expect(m).toContain('onac_optDet --> onac_detected : always [currentMeetsThreshold] / detectCurrent');
    expect(m).toContain('onac_optDet --> onac_est : always');
    expect(m).toContain('onac_est --> onac_detected : always [estimateAtMax] / detectAll');
    expect(m).toContain('onac_init_pausing --> onac_init_sampleOne : always [allPausesAcked]');
    expect(m).toContain('onac_est : entry / estimate');
    expect(m).not.toContain('inline');
  });
});
