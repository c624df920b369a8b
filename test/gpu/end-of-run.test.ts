/**
 * The end of a timing run (issue 8 item 3): the run ends when the workload is done (the SM Work
 * Manager's `endOfWork`), so a statechart timer still pending then does not move
 * `gpu_sim_cycle`; `finalize` hooks run once at the end time.
 */
import { setup } from 'xstate';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { loadScenario } from '../../src/scenario/loader.ts';
import { runKernelScenarioTiming } from '../../src/scenario/timing-run.ts';
import { defineUnit } from '../../src/sim/unit.ts';
import type { Engine } from '../../src/sim/engine.ts';

/**
 * A periodic controller: every 3,000 cycles it toggles between `on` and `off`, so a 3,000-cycle
 * timer is always pending, at the end of the run too (the case of a duty-cycle or sampling
 * controller).
 */
const timerMachine = setup({}).createMachine({
  id: 'pendingTimer',
  initial: 'on',
  states: { on: { after: { 3000: { target: 'off' } } }, off: { after: { 3000: { target: 'on' } } } },
});

let finalizedAt = -1;
const pendingTimer = defineUnit({
  kind: 'testPendingTimer',
  description: 'statechart re-arming a 3,000-cycle timer forever',
  spec: z.object({}),
  delivery: 'perMessage',
  ports: [],
  stats: [],
  machine: timerMachine,
  logic: () => timerMachine,
  finalize: () => {
    finalizedAt = engineRef!.now;
  },
});
let engineRef: Engine | null = null;

function quickstart(withTimer: boolean) {
  const loaded = loadScenario('scenarios/quickstart.yaml');
  return runKernelScenarioTiming(loaded, {
    onEngine: (engine) => {
      engineRef = engine;
      if (withTimer) engine.addUnit('GPU.TIMER', pendingTimer, 'core', {});
    },
  });
}

describe('end of a timing run', () => {
  it('a 3,000-cycle statechart timer pending at the end leaves gpu_sim_cycle unchanged', () => {
    const plain = quickstart(false);
    const cycles = plain.engine.stats.value('gpu_sim_cycle')!;
    expect(plain.passed).toBe(true);
    // The quickstart outlasts the timer period, so the timer has fired and re-armed at the end.
    expect(cycles).toBeGreaterThan(3000);
    expect(cycles % 3000).not.toBe(0);
    const toggles = Math.floor(cycles / 3000);
    finalizedAt = -1;
    const timed = quickstart(true);
    expect(timed.passed).toBe(true);
    expect(timed.engine.stats.value('gpu_sim_cycle')).toBe(cycles);
    // The controller ran: it toggled at every multiple of 3000 cycles before the end, and its
    // next timer was pending.
    expect((timed.engine.snapshot('GPU.TIMER') as { value: string }).value).toBe(toggles % 2 === 1 ? 'off' : 'on');
    expect(timed.engine.queue.size).toBeGreaterThan(0);
    // finalize ran once, at the end time.
    expect(finalizedAt).toBe(timed.engine.now);
    expect(timed.engine.clock('core').cycleAt(finalizedAt)).toBe(cycles);
  });
});
