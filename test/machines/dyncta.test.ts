/**
 * DYNCTA rule table and statechart on synthetic (cIdle, cMem) samples (spec §3.2, §3.8, §12.1).
 * Thresholds are set by each test (tIdle 10, band [100, 300]), never the unverified defaults
 * (spec §3.3: "Tests must not depend on these values").
 */
import { createActor } from 'xstate';
import { describe, expect, it } from 'vitest';
import { dynctaMachine } from '../../machines/sm-work-manager/dyncta.ts';
import { dynctaInitial, dynctaNext, dynctaParams, dynctaRule } from '../../src/model/smwm/dyncta.ts';
import { statePaths, toMermaid } from '../../src/report/diagram.ts';

const T = { tIdle: 10, tMemLow: 100, tMemHigh: 300 };

describe('DYNCTA rule table (000 §4.3.4.2)', () => {
  it.each([
    // [cIdle, cMem, rule]: idle first; then C_mem below / above the band; inside the band keep.
    [10, 500, 'idleHigh'], // cIdle >= tIdle wins even with high C_mem
    [50, 0, 'idleHigh'],
    [9, 99, 'memLow'],
    [9, 100, 'inRange'], // band edges are inside the range
    [0, 200, 'inRange'],
    [0, 300, 'inRange'],
    [0, 301, 'memHigh'],
    [9, 1000, 'memHigh'],
  ] as const)('cIdle %i, cMem %i -> %s', (cIdle, cMem, rule) => {
    expect(dynctaRule({ cIdle, cMem }, T)).toBe(rule);
  });

  it('limits: grow to nMax at most, shrink to 1 at least, keep in range', () => {
    expect(dynctaNext(4, 8, 'idleHigh')).toBe(5);
    expect(dynctaNext(8, 8, 'memLow')).toBe(8);
    expect(dynctaNext(4, 8, 'memHigh')).toBe(3);
    expect(dynctaNext(1, 8, 'memHigh')).toBe(1);
    expect(dynctaNext(4, 8, 'inRange')).toBe(4);
  });

  it('initial limit ceil(nMax/2) (R10) or nMax; parameters validated', () => {
    expect(dynctaInitial(8)).toBe(4);
    expect(dynctaInitial(7)).toBe(4);
    expect(dynctaInitial(8, 'max')).toBe(8);
    expect(dynctaParams.parse({})).toEqual({ samplingCycles: 2048, tIdle: 16, tMemLow: 128, tMemHigh: 384, initial: 'half' });
    expect(dynctaParams.safeParse({ tMemLow: 500, tMemHigh: 100 }).success).toBe(false);
  });
});

describe('DYNCTA statechart', () => {
  it('walks the limit through the table: 4 -> 5 (idle) -> 6 (memLow) -> 5 (memHigh) -> 5 (range) -> 4', () => {
    const actor = createActor(dynctaMachine, { input: { sm: 2, nMax: 8, samplingCycles: 1000, ...T } });
    const emitted: unknown[] = [];
    actor.on('*', (e) => emitted.push(e));
    actor.start();
    expect(emitted).toEqual([{ type: 'ctrl.sampleStart', sm: 2, id: 0, end: { cycles: 1000 }, start: 'now', periodic: true }]);
    const limits = [actor.getSnapshot().context.n];
    for (const [cIdle, cMem] of [[20, 0], [0, 50], [0, 400], [0, 200], [0, 301]] as const) {
      actor.send({ type: 'sm.sample', cIdle, cMem });
      limits.push(actor.getSnapshot().context.n);
    }
    expect(limits).toEqual([4, 5, 6, 5, 5, 4]);
    const c = actor.getSnapshot().context;
    expect([c.samples, c.increments, c.decrements, c.lastRule]).toEqual([5, 2, 2, 'memHigh']);
    actor.send({ type: 'kernel.issueComplete' });
    expect(actor.getSnapshot().value).toBe('frozen');
    expect(actor.getSnapshot().context.n).toBe(4);
    expect(emitted.at(-1)).toEqual({ type: 'ctrl.sampleStop', sm: 2, id: 0 });
  });

  it('saturates at nMax and 1 without counting a change', () => {
    const actor = createActor(dynctaMachine, { input: { sm: 0, nMax: 2, ...T } }).start();
    actor.send({ type: 'sm.sample', cIdle: 99, cMem: 0 }); // 1 -> 2
    actor.send({ type: 'sm.sample', cIdle: 99, cMem: 0 }); // stays 2
    expect(actor.getSnapshot().context.n).toBe(2);
    expect(actor.getSnapshot().context.increments).toBe(1);
    for (let i = 0; i < 3; i++) actor.send({ type: 'sm.sample', cIdle: 0, cMem: 999 });
    expect(actor.getSnapshot().context.n).toBe(1);
    expect(actor.getSnapshot().context.decrements).toBe(1);
  });

  it('exports as a Mermaid diagram listing its states and named guards', () => {
    const m = toMermaid(dynctaMachine);
    expect(statePaths(dynctaMachine)).toEqual(['modulating', 'frozen']);
    expect(m).toContain('dyncta_modulating --> dyncta_modulating : sm.sample [idleHigh] / increaseLimit<br/>sm.sample [memLow] / increaseLimit<br/>sm.sample [memHigh] / decreaseLimit<br/>sm.sample / keepLimit');
    expect(m).toContain('dyncta_modulating --> dyncta_frozen : kernel.issueComplete');
    expect(m).not.toContain('inline');
  });
});
