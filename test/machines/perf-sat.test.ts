/**
 * Perf-Sat controller alone on synthetic samples (000 §4.3.2.2; `../specs/cta-kernel-level.md`
 * §2.8, §12.1). Every expected limit is derived by hand from the paper's prose and the spec's
 * reconstructed statechart (§2.2, resolutions §2.9), written beside each case.
 */
import { createActor } from 'xstate';
import { describe, expect, it } from 'vitest';
import { perfSatMachine, type PerfSatInput } from '../../machines/sm-work-manager/perf-sat.ts';
import type { SampleStartRequest, SampleStopRequest } from '../../machines/sm-work-manager/controller-events.ts';
import { conservativeLimit, initialLimit, isBetter, samplePeriod, stalledCycles } from '../../src/model/smwm/perf-sat.ts';
import { statePaths, toMermaid } from '../../src/report/diagram.ts';

/** Runs the machine: first CTA after `oneCta` cycles, then one sample per stalled-cycle count. */
function drive(input: PerfSatInput, oneCta: number, stalls: readonly number[]) {
  const actor = createActor(perfSatMachine, { input });
  const emitted: (SampleStartRequest | SampleStopRequest)[] = [];
  actor.on('*', (e) => emitted.push(e));
  actor.start();
  const limitsPerSample: number[] = [];
  const states: string[] = [];
  if (actor.getSnapshot().status === 'active') actor.send({ type: 'cta.firstDone', cycles: oneCta });
  for (const s of stalls) {
    if (actor.getSnapshot().status !== 'active') break;
    limitsPerSample.push(actor.getSnapshot().context.n);
    // Split S between the two stall kinds: only their sum matters (000 §4.3.2.1).
    actor.send({ type: 'sm.sample', notReady: Math.floor(s / 2), pipelineStall: s - Math.floor(s / 2) });
    states.push(String(actor.getSnapshot().value));
  }
  return { actor, snap: actor.getSnapshot(), limitsPerSample, states, emitted };
}

describe('Perf-Sat arithmetic (000 §4.3.2)', () => {
  it('stalled cycles = scoreboard + pipeline stalls; strictly lower is better (R5)', () => {
    expect(stalledCycles({ notReady: 70, pipelineStall: 30 })).toBe(100);
    expect(isBetter(99, 100)).toBe(true);
    expect(isBetter(100, 100)).toBe(false);
  });

  it('initial ceil(nMax/2), conservative ceil(nMax/2 + 1), period One_TB_cycles x nMax', () => {
    expect(initialLimit(15)).toBe(8);
    expect(initialLimit(8)).toBe(4);
    expect(initialLimit(1)).toBe(1);
    expect(conservativeLimit(initialLimit(15), 15)).toBe(9); // ceil(7.5 + 1) = 9
    expect(conservativeLimit(initialLimit(8), 8)).toBe(5); // ceil(4 + 1) = 5
    expect(samplePeriod(1000, 15)).toBe(15_000);
    expect(() => initialLimit(0)).toThrow(RangeError);
  });
});

describe('Perf-Sat statechart', () => {
  it("paper example (nMax 15, Nopt 12): limits 8, 9, 9, 10, 11, 12, 13, 13 -> 12", () => {
    // S at 8 = 100 stored, n -> 9; 90 < 100 at 9: history bit; 89 < 100 at 9: direction set,
    // strong-increase, n -> 10; 80, 70, 60 keep improving: n -> 11, 12, 13; 65 > 60 at 13:
    // discarded, weak-increase, n stays 13; 66 > 60 again: optimum = 12.
    const r = drive({ sm: 3, nMax: 15 }, 1000, [100, 90, 89, 80, 70, 60, 65, 66]);
    expect(r.limitsPerSample).toEqual([8, 9, 9, 10, 11, 12, 13, 13]);
    expect(r.states).toEqual(['weakIncrease', 'weakIncrease', 'strongIncrease', 'strongIncrease', 'strongIncrease', 'strongIncrease', 'weakIncrease', 'done']);
    expect(r.snap.status).toBe('done');
    expect(r.snap.context.final).toBe(12);
    expect(r.snap.context.n).toBe(12);
    expect(r.snap.output).toEqual({ final: 12, n: 12, samples: 8 });
    // One periodic sampler of One_TB_cycles x nMax = 15 000 cycles, stopped at detection.
    expect(r.emitted).toEqual([
      { type: 'ctrl.sampleStart', sm: 3, id: 0, end: { cycles: 15_000 }, start: 'now', periodic: true },
      { type: 'ctrl.sampleStop', sm: 3, id: 0 },
    ]);
  });

  it('the limit is ceil(nMax/2) before the first CTA completes', () => {
    const actor = createActor(perfSatMachine, { input: { sm: 0, nMax: 15 } }).start();
    expect(actor.getSnapshot().value).toBe('measuringTb');
    expect(actor.getSnapshot().context.n).toBe(8);
  });

  it('phase 2, worse every sample: ends at ceil(nMax/2 + 1) = 9 on the 4th toggle', () => {
    // 100 at 8; 110 at 9 worse -> weakDecrease (toggle 1, n 8); 120 worse -> weakIncrease
    // (2, n 9); 130 -> weakDecrease (3, n 8); 140 -> 4th toggle > 3: conservative 9.
    const r = drive({ sm: 0, nMax: 15 }, 500, [100, 110, 120, 130, 140]);
    expect(r.limitsPerSample).toEqual([8, 9, 8, 9, 8]);
    expect(r.states).toEqual(['weakIncrease', 'weakDecrease', 'weakIncrease', 'weakDecrease', 'done']);
    expect(r.snap.context.final).toBe(9);
  });

  it('phase 2, alternating better/worse: the history bit is reset by each incoherent sample; 9 after the 4th toggle', () => {
    // 100 at 8; 110 at 9 worse (t1 -> weakDecrease, prev 110, n 8); 105 better: hist 1;
    // 115 worse (t2 -> weakIncrease, prev 115, n 9); 112 better: hist 1; 120 worse (t3, n 8);
    // 118 better: hist 1; 125 worse: t4 > 3 -> 9.
    const r = drive({ sm: 0, nMax: 15 }, 500, [100, 110, 105, 115, 112, 120, 118, 125]);
    expect(r.limitsPerSample).toEqual([8, 9, 8, 8, 9, 9, 8, 8]);
    expect(r.snap.context.final).toBe(9);
  });

  it('phase 3, toggling between weak- and strong-increase at 13 ends at the stored 12', () => {
    // As the paper example up to 65 at 13 (t1, weakIncrease); 55 < 60 back to strongIncrease
    // (t2, n and stored S12 unchanged); 62 > 60 (t3, weakIncrease); 58 < 60: t4 > 3 -> 12.
    const r = drive({ sm: 0, nMax: 15 }, 1000, [100, 90, 89, 80, 70, 60, 65, 55, 62, 58]);
    expect(r.limitsPerSample).toEqual([8, 9, 9, 10, 11, 12, 13, 13, 13, 13]);
    expect(r.states.slice(-4)).toEqual(['weakIncrease', 'strongIncrease', 'weakIncrease', 'done']);
    expect(r.snap.context.final).toBe(12);
    expect(r.snap.context.toggles).toBe(4);
  });

  it('strong-decrease path ends at the stored count, n + 1', () => {
    // 100 at 8 -> n 9; 110 worse -> weakDecrease (prev 110, n 8); 105 better: hist; 100 better:
    // strongDecrease (prev 100, n 7); 90 better: n 6; 95 worse: weakDecrease, n 6; 96 worse: 7.
    const r = drive({ sm: 0, nMax: 15 }, 1000, [100, 110, 105, 100, 90, 95, 96]);
    expect(r.limitsPerSample).toEqual([8, 9, 8, 8, 7, 6, 6]);
    expect(r.states).toEqual(['weakIncrease', 'weakDecrease', 'weakDecrease', 'strongDecrease', 'strongDecrease', 'weakDecrease', 'done']);
    expect(r.snap.context.final).toBe(7);
  });

  it('strong-decrease reaching 1 ends at 1', () => {
    // nMax 4: n0 2. 100 at 2 -> n 3; 110 worse -> weakDecrease n 2; 105, 104 better -> strong, n 1;
    // 90 better at 1: cannot go lower -> 1.
    const r = drive({ sm: 0, nMax: 4 }, 10, [100, 110, 105, 104, 90]);
    expect(r.limitsPerSample).toEqual([2, 3, 2, 2, 1]);
    expect(r.snap.context.final).toBe(1);
  });

  it('strong-increase reaching nMax ends at nMax', () => {
    // nMax 4: 100 at 2 -> n 3; 90, 80 better -> strongIncrease, n 4; 70 better at nMax -> 4.
    const r = drive({ sm: 0, nMax: 4 }, 10, [100, 90, 80, 70]);
    expect(r.limitsPerSample).toEqual([2, 3, 3, 4]);
    expect(r.snap.context.final).toBe(4);
  });

  it('equal stall counts are not better (R5): 100 then 100 turns to weak-decrease', () => {
    const r = drive({ sm: 0, nMax: 15 }, 10, [100, 100]);
    expect(r.states).toEqual(['weakIncrease', 'weakDecrease']);
    expect(r.snap.context.n).toBe(8);
  });

  it('nMax = 1: done(1) at once, no sampler', () => {
    const r = drive({ sm: 0, nMax: 1 }, 10, [5]);
    expect(r.snap.status).toBe('done');
    expect(r.snap.context.final).toBe(1);
    expect(r.emitted).toEqual([]);
  });

  it('kernel.issueComplete freezes the current limit and stops the sampler (R6)', () => {
    const actor = createActor(perfSatMachine, { input: { sm: 1, nMax: 15, samplerId: 7 } });
    const emitted: unknown[] = [];
    actor.on('*', (e) => emitted.push(e));
    actor.start();
    actor.send({ type: 'cta.firstDone', cycles: 100 });
    actor.send({ type: 'sm.sample', notReady: 50, pipelineStall: 50 });
    actor.send({ type: 'kernel.issueComplete' });
    const snap = actor.getSnapshot();
    expect(snap.value).toBe('frozen');
    expect(snap.context.n).toBe(9);
    expect(snap.output).toEqual({ final: null, n: 9, samples: 1 });
    expect(emitted.at(-1)).toEqual({ type: 'ctrl.sampleStop', sm: 1, id: 7 });
  });

  it('toggleLimit is a parameter: with 1, phase 2 ends on the 2nd toggle', () => {
    const r = drive({ sm: 0, nMax: 15, toggleLimit: 1 }, 10, [100, 110, 120]);
    expect(r.states).toEqual(['weakIncrease', 'weakDecrease', 'done']);
    expect(r.snap.context.final).toBe(9);
  });

  it('exports as a Mermaid diagram listing every state and named guard', () => {
    const m = toMermaid(perfSatMachine);
    expect(statePaths(perfSatMachine)).toEqual(['measuringTb', 'initialSample', 'weakIncrease', 'weakDecrease', 'strongIncrease', 'strongDecrease', 'done', 'frozen']);
    for (const s of ['measuringTb', 'initialSample', 'weakIncrease', 'weakDecrease', 'strongIncrease', 'strongDecrease', 'done', 'frozen']) expect(m).toContain(`state "${s}" as perfSat_${s}`);
    expect(m).toContain('perfSat_weakIncrease --> perfSat_strongIncrease : sm.sample [and(directionSet, better)] / countSample, countToggle');
    expect(m).toContain('perfSat_strongIncrease --> perfSat_weakIncrease : sm.sample / countSample, countToggle, clearHistory');
    expect(m).toContain('perfSat_measuringTb --> perfSat_done : always [singleCta] / detectSingle');
    expect(m).toContain('perfSat --> perfSat_frozen : kernel.issueComplete');
    expect(m).not.toContain('inline');
  });
});
