/**
 * Statechart diagrams (issue 8 item 5): the Mermaid and Stately exports name every state,
 * transition, guard, action and delay of a machine, and draw parallel regions.
 */
import { and, assign, createMachine, not, setup } from 'xstate';
import { describe, expect, it } from 'vitest';
import { dutyCycleController, dutyCycleMachine } from '../../machines/duty-cycle-controller/duty-cycle-controller.ts';
import { powerGatingMachine } from '../../machines/power-gating-controller/power-gating-controller.ts';
import { smWorkManagerMachine } from '../../machines/sm-work-manager/sm-work-manager.ts';
import { statechartOf } from '../../src/cli/describe.ts';
import { statePaths, toMermaid, toStatelyJson } from '../../src/report/diagram.ts';
import { unitLifecycleMachine } from '../../src/sim/lifecycle.ts';

/**
 * Mermaid stateDiagram-v2 structure: composite blocks balance; every line is a state, a block
 * end, a region separator, a transition `a --> b : label`, a description `a : text` or a note;
 * a composite state gets no description (Mermaid: "group nodes can only have label"); `--`
 * only inside a block.
 */
function wellFormed(text: string): void {
  const lines = text.trim().split('\n');
  expect(lines[0]).toBe('stateDiagram-v2');
  const composite = new Set(lines.map((l) => /^\s*state "[^"]*" as (\w+) \{$/.exec(l)?.[1]).filter((x) => x !== undefined));
  let depth = 0;
  for (const l of lines.slice(1)) {
    const t = l.trim();
    expect(t).toMatch(/^(state "[^"]*" as \w+( \{)?|\}|--|(\w+|\[\*\]) --> (\w+|\[\*\])( : .+)?|\w+ : .+|note right of \w+ : .+)$/);
    if (t.endsWith('{')) depth++;
    if (t === '}') depth--;
    if (t === '--') expect(depth).toBeGreaterThan(0);
    const described = /^(\w+) : /.exec(t)?.[1];
    if (described !== undefined) expect(composite.has(described)).toBe(false);
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

  it('duty-cycle controller: every state, transition, guard, action and delay (read off its folder)', () => {
    const machine = dutyCycleMachine({ targets: 2, runCycles: 200, pauseCycles: 100, periods: 2 });
    const m = toMermaid(machine);
    wellFormed(m);
    expect(statePaths(machine)).toEqual(['running', 'paused', 'done']);
    const lines = m.split('\n').map((l) => l.trim().replace(/dutyCycleController_/g, ''));
    // running: after runCycles, to paused while periods are left, else to done (first match wins).
    const edges = lines.filter((l) => l.includes('-->') && !l.includes('[*]'));
    expect(edges.sort()).toEqual(['paused --> running : after pauseCycles', 'running --> done : after runCycles', 'running --> paused : after runCycles [periodsLeft]'].sort());
    expect(lines).toContain('paused : entry / broadcastPause, countPause');
    expect(lines).toContain('paused : exit / broadcastResume');
    expect(lines).toContain('done --> [*]');
    expect(lines).toContain('[*] --> running');
    // The unit declares no `machine`: the data sheet draws it from its logic, the same chart.
    expect(toMermaid(statechartOf(dutyCycleController)!)).toBe(m);
  });

  it('the Stately JSON is a machine config: createMachine rebuilds the same states', () => {
    for (const machine of [unitLifecycleMachine, powerGatingMachine, smWorkManagerMachine]) {
      const rebuilt = createMachine(JSON.parse(toStatelyJson(machine)));
      expect(statePaths(rebuilt)).toEqual(statePaths(machine));
      expect(toMermaid(rebuilt)).toBe(toMermaid(machine));
    }
  });

  it('power-gating controller: every action, guard and delay name appears', () => {
    const m = toMermaid(powerGatingMachine);
    wellFormed(m);
    for (const name of ['countGateRequest', 'sendGate', 'sendWake', 'ackActiveUp', 'passUp', 'passDown', 'countGate', 'countGateAvoided', 'countGateRefused', 'countWake', 'rememberWake', 'forgetWake']) expect(m).toContain(name);
    for (const guard of ['[ackGated]', '[ackActive]', '[wakeRequested]']) expect(m).toContain(guard);
    for (const delay of ['after idleDetect', 'after wakeup', 'after ackTimeout']) expect(m).toContain(delay);
    // Internal timer actions of XState are not shown.
    expect(m).not.toContain('xstate.');
    // gating handles ctrl.ack without ackGated and ctrl.wake in place: two self-loops, drawn as
    // one edge (Mermaid keeps only one of several self-loops), labels in definition order.
    expect(m).toContain('powerGatingController_gating --> powerGatingController_gating : ctrl.ack / passUp<br/>ctrl.wake / rememberWake');
    // The root's handlers (in every state) loop on the root.
    expect(m).toContain('powerGatingController --> powerGatingController : ctrl.ack / passUp<br/>ctrl.pause / passDown<br/>ctrl.resume / passDown');
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

  it('inline and higher-order guards, inline and built-in actions keep a name (Mermaid and Stately JSON)', () => {
    function beep(): void {}
    const machine = setup({ guards: { ready: () => true, busy: () => false } }).createMachine({
      id: 'm',
      initial: 'a',
      entry: beep,
      states: {
        a: { on: { GO: { target: 'b', guard: and(['ready', not('busy')]), actions: [beep, assign({})] } } },
        b: { initial: 'c', states: { c: { type: 'parallel', states: { r1: {}, r2: {} } } }, on: { BACK: { target: '#m.a', guard: function isBack() { return true; } } } },
      },
    });
    const m = toMermaid(machine);
    wellFormed(m);
    expect(m).toContain('m_a --> m_b : GO [and(ready, not(busy))] / beep, assign');
    expect(m).toContain('m_b --> m_a : BACK [isBack]');
    // Mermaid allows no description on a composite state: its entry actions are a note.
    expect(m).toContain('  note right of m : entry / beep');
    // A parallel state nested in a compound one: its own block, its regions separated by --.
    expect(m).toContain('state "c (parallel)" as m_b_c {');
    expect(m.split('\n').filter((l) => l.trim() === '--')).toHaveLength(1);
    const json = JSON.parse(toStatelyJson(machine));
    expect(json.states.a.on.GO.guard).toBe('and(ready, not(busy))');
    expect(json.states.a.on.GO.actions).toEqual(['beep', 'assign']);
    expect(json.states.b.on.BACK.guard).toBe('isBack');
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
