import { fromTransition } from 'xstate';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { dutyCycleController } from '../../machines/duty-cycle-controller/duty-cycle-controller.ts';
import { SimulationError } from '../../src/errors.ts';
import { Engine } from '../../src/sim/engine.ts';
import { DIRECT_WAKE, defineUnit, wakeLogic, type UnitIo } from '../../src/sim/unit.ts';
import { testSink } from '../helpers/units.ts';

/** A unit that wakes itself every `period` cycles `times` times, recording wake times. */
const ticker = defineUnit<{ period: number; times: number; failAt: number }>({
  kind: 'ticker',
  description: 'self-waking test unit',
  spec: z.object({ period: z.number(), times: z.number(), failAt: z.number().default(-1) }),
  delivery: 'batch',
  ports: [],
  stats: [],
  logic: (p) =>
    fromTransition(
      (s: { io: UnitIo; wakes: number[] }, e: { type: string }) => {
        if (e.type !== 'wake') return s;
        s.wakes.push(s.io.now);
        if (s.wakes.length === p.failAt) throw new Error('boom');
        if (s.wakes.length < p.times) {
          s.io.wakeInCycles(p.period);
          s.io.wakeInCycles(p.period); // duplicate: must fold into one wake
        }
        return s;
      },
      ({ input }: { input: UnitIo }) => ({ io: input, wakes: [] as number[] }),
    ),
});

function tickerEngine(times = 5, failAt = -1) {
  const e = new Engine({ seed: 3 });
  e.addClock('core', 1_000_000_000);
  e.addUnit('T', ticker, 'core', { period: 10, times, failAt });
  return e;
}

describe('Engine', () => {
  it('wakes batch units at 0 and on their timers, folding duplicate wakes', () => {
    const e = tickerEngine();
    const r = e.run();
    expect(r.reason).toBe('idle');
    const s = (e.snapshot('T') as { context: { wakes: number[] } }).context;
    expect(s.wakes).toEqual([0, 10_000, 20_000, 30_000, 40_000]);
    expect(e.actorEvents.value).toBe(5);
  });

  it('runUntil a time fires events at exactly that time and stops before later ones', () => {
    const e = tickerEngine();
    const r = e.runUntil(20_000);
    expect(r.reason).toBe('timeLimit');
    expect((e.snapshot('T') as { context: { wakes: number[] } }).context.wakes).toEqual([0, 10_000, 20_000]);
    e.run();
    expect((e.snapshot('T') as { context: { wakes: number[] } }).context.wakes).toHaveLength(5);
  });

  it('runUntil a predicate, step, and pause/resume', () => {
    const e = tickerEngine();
    const r = e.runUntil((en) => en.now >= 10_000);
    expect(r.reason).toBe('predicate');
    expect(e.now).toBe(10_000);
    expect(e.step()).toBe(true);
    expect(e.now).toBe(20_000);
    const stopAt = e.events.value + 1;
    const r2 = e.run(Infinity, (en) => {
      if (en.events.value === stopAt) en.pause();
      return false;
    });
    expect(r2.reason).toBe('paused');
    expect(e.now).toBe(30_000);
    expect(e.run().reason).toBe('idle');
    expect(e.step()).toBe(false);
  });

  it('turns a unit failure into a SimulationError naming the unit and time', () => {
    const e = tickerEngine(5, 2);
    expect(() => e.run()).toThrow(SimulationError);
    const e2 = tickerEngine(5, 2);
    expect(() => e2.run()).toThrow(/unit T \(ticker\) failed at 10000 ps: boom/);
  });

  it('wakes a wakeLogic unit straight on its actor state (no mailbox), with the same wakes and failure report', () => {
    // The same ticker written with wakeLogic: its logic carries the direct wake.
    const direct = defineUnit<{ period: number; times: number; failAt: number }>({
      ...ticker,
      kind: 'directTicker',
      logic: (p) =>
        wakeLogic(
          (s: { io: UnitIo; wakes: number[] }) => {
            s.wakes.push(s.io.now);
            if (s.wakes.length === p.failAt) throw new Error('boom');
            if (s.wakes.length < p.times) s.io.wakeInCycles(p.period);
          },
          ({ input }: { input: UnitIo }) => ({ io: input, wakes: [] as number[] }),
        ),
    });
    expect(typeof (direct.logic({ period: 1, times: 1, failAt: -1 }, {}) as unknown as Record<symbol, unknown>)[DIRECT_WAKE]).toBe('function');
    const make = (failAt: number) => {
      const e = new Engine({ seed: 3 });
      e.addClock('core', 1_000_000_000);
      e.addUnit('D', direct, 'core', { period: 10, times: 5, failAt });
      return e;
    };
    const e = make(-1);
    const snapshotBefore = (e.start(), e.snapshot('D'));
    expect(e.run().reason).toBe('idle');
    // The actor keeps its one state object, mutated in place; no snapshot was rebuilt per wake.
    expect(e.snapshot('D')).toBe(snapshotBefore);
    expect((e.snapshot('D') as { context: { wakes: number[] } }).context.wakes).toEqual([0, 10_000, 20_000, 30_000, 40_000]);
    expect(e.actorEvents.value).toBe(5);
    expect(() => make(2).run()).toThrow(/unit D \(directTicker\) failed at 10000 ps: boom/);
  });

  it('runs statechart after-delays in cycles of the unit clock through the global queue', () => {
    const e = new Engine();
    e.addClock('core', 1_000_000_000);
    e.addUnit('CTRL', dutyCycleController, 'core', dutyCycleController.spec.parse({ targets: 1, runCycles: 30, pauseCycles: 20, periods: 2 }));
    e.addUnit('S', testSink, 'core', testSink.spec.parse({}));
    e.connect('CTRL', 'ctrl[0]', 'S', 'in', { latencyCycles: 1 });
    const changes: string[] = [];
    e.stateChanges$.subscribe((c) => changes.push(`${c.time}:${c.value}`));
    e.run();
    // running 0-30, paused 30-50, running 50-80, paused 80-100, running 100-130, done.
    expect(changes).toEqual(['0:running', '30000:paused', '50000:running', '80000:paused', '100000:running', '130000:done']);
    const sink = (e.snapshot('S') as { context: { arrivals: { time: number; msg: { kind: string } }[] } }).context;
    expect(sink.arrivals.map((a) => `${a.time}:${a.msg.kind}`)).toEqual(['31000:ctrl.pause', '51000:ctrl.resume', '81000:ctrl.pause', '101000:ctrl.resume']);
    expect(e.statechartEvents.value).toBe(5);
  });

  it('reports units with unconsumed input or pending work when the queue runs dry', () => {
    const e = new Engine();
    e.addClock('core', 1_000_000_000);
    e.addUnit('CTRL', dutyCycleController, 'core', dutyCycleController.spec.parse({ targets: 1, runCycles: 5, pauseCycles: 5, periods: 1 }));
    // A sink that never consumes: consumeEveryCycles huge and capacity 4.
    e.addUnit('S', testSink, 'core', testSink.spec.parse({ consumeEveryCycles: 1_000_000, capacity: 4 }));
    e.connect('CTRL', 'ctrl[0]', 'S', 'in', { latencyCycles: 1 });
    const r = e.runUntil(1_000_000);
    expect(r.reason).toBe('timeLimit');
    // Pause consumed at once; the resume waits a million cycles in the in-port.
    expect(e.pendingWork()).toEqual([{ unit: 'S', work: 'in: 1 unconsumed' }]);
    expect(e.pendingWork().find((p) => p.unit === 'CTRL')).toBeUndefined();
  });

  it('rejects wiring mistakes', () => {
    const e = new Engine();
    e.addClock('core', 1_000_000_000);
    e.addUnit('S', testSink, 'core', testSink.spec.parse({}));
    expect(() => e.addUnit('S', testSink, 'core', {})).toThrow(/duplicate unit name/);
    expect(() => e.connect('S', 'nope', 'S', 'in', { latencyCycles: 1 })).toThrow(/no output port 'nope'/);
    expect(() => e.addUnit('X', testSink, 'mem', {})).toThrow(/unknown clock domain 'mem'/);
  });
});
