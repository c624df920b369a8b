/**
 * Statechart diagrams (issue 8 item 5): the Mermaid and Stately exports name every state,
 * transition, guard, action and delay of a machine, and draw parallel regions.
 */
import { assign, setup } from 'xstate';
import { describe, expect, it } from 'vitest';
import { powerGatingMachine } from '../../machines/power-gating-controller/power-gating-controller.ts';
import { smWorkManagerMachine } from '../../machines/sm-work-manager/sm-work-manager.ts';
import { statePaths, toMermaid, toStatelyJson } from '../../src/report/diagram.ts';
import { unitLifecycleMachine } from '../../src/sim/lifecycle.ts';

/** Composite blocks must balance, and every transition line must have `a --> b`. */
function wellFormed(text: string): void {
  const lines = text.trim().split('\n');
  expect(lines[0]).toBe('stateDiagram-v2');
  let depth = 0;
  for (const l of lines) {
    if (l.trimEnd().endsWith('{')) depth++;
    if (l.trim() === '}') depth--;
    expect(depth).toBeGreaterThanOrEqual(0);
  }
  expect(depth).toBe(0);
}

describe('statechart diagrams', () => {
  it('lifecycle: four states and every transition with its event and guard (read off src/sim/lifecycle.ts)', () => {
    const m = toMermaid(unitLifecycleMachine);
    wellFormed(m);
    expect(statePaths(unitLifecycleMachine)).toEqual(['active', 'draining', 'paused', 'gated']);
    const edges = m.split('\n').filter((l) => l.includes('-->') && !l.includes('[*]')).map((l) => l.trim().replace(/unitLifecycle_/g, ''));
    expect(edges.sort()).toEqual(
      [
        'active --> draining : ctrl.pause',
        'active --> gated : ctrl.gate [holdsNoWork]',
        'draining --> paused : lifecycle.drained',
        'draining --> active : ctrl.resume',
        'paused --> active : ctrl.resume',
        'paused --> gated : ctrl.gate [holdsNoWork]',
        'gated --> active : ctrl.wake',
      ].sort(),
    );
    expect(m).toContain('[*] --> unitLifecycle_active');
  });

  it('power-gating controller: every action, guard and delay name appears', () => {
    const m = toMermaid(powerGatingMachine);
    wellFormed(m);
    for (const name of ['countGateRequest', 'sendGate', 'sendWake', 'ackActiveUp', 'passUp', 'passDown', 'countGate', 'countGateAvoided', 'countGateRefused', 'countWake', 'rememberWake', 'forgetWake']) expect(m).toContain(name);
    for (const guard of ['[ackGated]', '[ackActive]', '[wakeRequested]']) expect(m).toContain(guard);
    for (const delay of ['after idleDetect', 'after wakeup', 'after ackTimeout']) expect(m).toContain(delay);
    // Internal timer actions of XState are not shown.
    expect(m).not.toContain('xstate.');
  });

  it('SM Work Manager: the four parallel regions of spec §1.1, each policy registry as states', () => {
    const m = toMermaid(smWorkManagerMachine);
    wellFormed(m);
    expect(m).toContain('state "smWorkManager (parallel)" as smWorkManager {');
    for (const region of ['kernels', 'mapping', 'coreCount', 'ctaLimit']) expect(m).toContain(`state "${region}" as smWorkManager_${region} {`);
    expect(m.split('\n').filter((l) => l.trim() === '--')).toHaveLength(3);
    const paths = statePaths(smWorkManagerMachine);
    for (const p of ['kernels.idle', 'kernels.active', 'kernels.done', 'mapping.inOrder', 'coreCount.all', 'coreCount.fixed', 'coreCount.gateIdle', 'ctaLimit.roundRobin', 'ctaLimit.fixedLimit']) expect(paths).toContain(p);
    expect(m).toContain('smWorkManager_kernels_active --> smWorkManager_kernels_done : always [allDone]');
  });

  it('a parallel machine with nested states, entry actions and after delays renders its regions', () => {
    const machine = setup({ actions: { count: assign({}), log: () => {} }, guards: { ready: () => true }, delays: { slow: 100 } }).createMachine({
      id: 'toy',
      type: 'parallel',
      states: {
        left: { initial: 'a', states: { a: { on: { GO: { target: 'b', guard: 'ready', actions: 'count' } } }, b: { initial: 'x', states: { x: { after: { slow: 'y' } }, y: { entry: 'log', type: 'final' } } } } },
        right: { initial: 'p', states: { p: { always: { target: 'q' } }, q: {} } },
      },
    });
    const m = toMermaid(machine);
    wellFormed(m);
    expect(m).toContain('toy_left_a --> toy_left_b : GO [ready] / count');
    expect(m).toContain('toy_left_b_x --> toy_left_b_y : after slow');
    expect(m).toContain('toy_left_b_y : entry / log');
    expect(m).toContain('toy_left_b_y --> [*]');
    expect(m).toContain('toy_right_p --> toy_right_q : always');
    expect(m.split('\n').filter((l) => l.trim() === '--')).toHaveLength(1);
    const json = JSON.parse(toStatelyJson(machine));
    expect(json.type).toBe('parallel');
    expect(json.states.left.states.a.on.GO.guard).toBe('ready');
  });
});
