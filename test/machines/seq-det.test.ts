/**
 * Seq-Det on synthetic IPC curves (000 §4.4, §4.4.3.4; `../specs/cta-kernel-level.md` §5,
 * §12.1). Expected sample counts and decisions are derived by hand beside each case.
 */
import { describe, expect, it } from 'vitest';
import { onacMachine } from '../../machines/sm-work-manager/onac.ts';
import { seqDetMachine } from '../../machines/sm-work-manager/seq-det.ts';
import { seqDetParams } from '../../src/model/smwm/active-cores.ts';
import { statePaths, toMermaid } from '../../src/report/diagram.ts';
import { runDetector } from '../helpers/fake-smwm.ts';

describe('Seq-Det statechart with a fake SM Work Manager', () => {
  it('0.7 x min(N, 12) on 32 cores: samples at 31..11 (21 after IPC_all), Nopt 12; ONAC needs one estimate', () => {
    // IPC_all = 0.7 x 12 = 8.4, threshold 8.232. N = 31..12 give 8.4 >= 8.232 (one core fewer
    // each time); N = 11 gives 7.7 < 8.232: switch back to 12.
    const curve = (n: number) => 0.7 * Math.min(n, 12);
    const r = runDetector(seqDetMachine, { numSms: 32 }, curve);
    expect(r.rounds).toEqual([32, ...Array.from({ length: 21 }, (_, i) => 31 - i)]);
    expect(r.snapshot.context.samples).toBe(21);
    expect(r.snapshot.context.nOpt).toBe(12);
    expect(r.snapshot.status).toBe('done');
    // One pause per sample, highest index first: cores 31 down to 11; core 11 switches back.
    const of = (type: string) => r.emitted.filter((e) => e.type === type).map((e) => e.sm);
    expect(of('ctrl.pause')).toEqual(Array.from({ length: 21 }, (_, i) => 31 - i));
    expect(of('ctrl.resume')).toEqual(Array.from({ length: 21 }, (_, i) => 11 + i));
    expect(of('ctrl.gate')).toEqual(Array.from({ length: 20 }, (_, i) => 12 + i));
    const onac = runDetector(onacMachine, { numSms: 32 }, curve);
    expect(onac.snapshot.context.nOpt).toBe(12);
    expect(onac.snapshot.context.estimates).toBe(1);
    // Detection cost in sample rounds after IPC_all: Seq-Det 21, ONAC 2 (1 core, 12 cores).
    expect(onac.rounds.length - 1).toBe(2);
  });

  it('a type-B kernel (linear): one sample at 31, switches back to 32 (000 §4.4.3.4)', () => {
    // 31 / 32 = 0.969 < 0.98.
    const r = runDetector(seqDetMachine, { numSms: 32 }, (n) => n);
    expect(r.rounds).toEqual([32, 31]);
    expect(r.snapshot.context.nOpt).toBe(32);
    expect(r.emitted.filter((e) => e.type === 'ctrl.gate')).toEqual([]);
  });

  it('a flat curve goes down to one core', () => {
    // 4 cores, IPC 5 at every count: samples at 3, 2, 1 all meet -> Nopt 1.
    const r = runDetector(seqDetMachine, { numSms: 4 }, () => 5);
    expect(r.rounds).toEqual([4, 3, 2, 1]);
    expect(r.snapshot.context.nOpt).toBe(1);
    expect(r.snapshot.status).toBe('done');
  });

  it("compareTo 'previous' compares with the last sample (R15 option)", () => {
    // IPC(N) = 10 - 0.15 (8 - N) on 8 cores: 10, 9.85, 9.7, ..., 8.95 at N = 1. 'all': N = 7
    // gives 9.85 >= 0.98 x 10 = 9.8, N = 6 gives 9.7 < 9.8: Nopt 7. 'previous': each step loses
    // 0.15, under 2 % of the previous sample (9.7 >= 0.98 x 9.85 = 9.653 ... 8.95 >= 8.918): 1.
    const curve = (n: number) => 10 - 0.15 * (8 - n);
    expect(runDetector(seqDetMachine, { numSms: 8 }, curve).snapshot.context.nOpt).toBe(7);
    expect(runDetector(seqDetMachine, { numSms: 8, compareTo: 'previous' }, curve).snapshot.context.nOpt).toBe(1);
  });

  it('parameters default as ONAC (2 %, 4 waves) with compareTo all', () => {
    expect(seqDetParams.parse({})).toEqual({ thresholdPct: 2, sampleWaves: 4, sampleStart: 'afterInFlight', compareTo: 'all' });
  });

  it('exports as a Mermaid diagram listing its states', () => {
    const m = toMermaid(seqDetMachine);
    expect(statePaths(seqDetMachine)).toEqual(['idle', 'sampleAll', 'pausing', 'sampling', 'judge', 'detected', 'done', 'aborted']);
    expect(m).toContain('seqDet_judge --> seqDet_pausing : always [meetsThreshold] / dropOneCore');
    expect(m).toContain('seqDet_judge --> seqDet_detected : always [and(meetsThreshold, lastCore)] / detectOne<br/>always / detectSwitchBack');
    expect(m).not.toContain('inline');
  });
});
