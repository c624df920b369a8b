/**
 * The SM Work Manager's controllers (Perf-Sat, DYNCTA, ONAC, Seq-Det; spec §2-§5) export as
 * diagrams like every statechart (issue 8 item 5): well-formed Mermaid naming every state, no
 * anonymous guard or action, and a Stately JSON config that rebuilds the same states.
 */
import { createMachine, type AnyStateMachine } from 'xstate';
import { describe, expect, it } from 'vitest';
import { dynctaMachine } from '../../machines/sm-work-manager/dyncta.ts';
import { onacMachine } from '../../machines/sm-work-manager/onac.ts';
import { perfSatMachine } from '../../machines/sm-work-manager/perf-sat.ts';
import { seqDetMachine } from '../../machines/sm-work-manager/seq-det.ts';
import { statePaths, toMermaid, toStatelyJson } from '../../src/report/diagram.ts';

/** Mermaid stateDiagram-v2 lines the exporter may write (as test/report/diagram.test.ts checks). */
const LINE = /^(state "[^"]*" as \w+( \{)?|\}|--|(\w+|\[\*\]) --> (\w+|\[\*\])( : .+)?|\w+ : .+|note right of \w+ : .+)$/;

const machines: [string, AnyStateMachine, string[]][] = [
  ['perfSat', perfSatMachine, ['measuringTb', 'initialSample', 'weakIncrease', 'weakDecrease', 'strongIncrease', 'strongDecrease', 'done', 'frozen']],
  ['dyncta', dynctaMachine, ['modulating', 'frozen']],
  ['onac', onacMachine, ['idle', 'init', 'init.sampleAll', 'init.pausing', 'init.sampleOne', 'est', 'unpausing', 'sampling', 'optDet', 'detected', 'done', 'aborted']],
  ['seqDet', seqDetMachine, ['idle', 'sampleAll', 'pausing', 'sampling', 'judge', 'detected', 'done', 'aborted']],
];

describe('controller diagrams', () => {
  it.each(machines)('%s: every state in the Mermaid text, well formed, all names', (id, machine, paths) => {
    expect(statePaths(machine)).toEqual(paths);
    const m = toMermaid(machine);
    const lines = m.trim().split('\n');
    expect(lines[0]).toBe('stateDiagram-v2');
    let depth = 0;
    for (const l of lines.slice(1)) {
      const t = l.trim();
      expect(t).toMatch(LINE);
      if (t.endsWith('{')) depth++;
      if (t === '}') depth--;
      expect(depth).toBeGreaterThanOrEqual(0);
    }
    expect(depth).toBe(0);
    for (const p of paths) expect(m).toContain(`state "${p.split('.').at(-1)}" as ${id}_${p.replace(/\./g, '_')}`);
    expect(m).not.toContain('inline');
    expect(m).not.toContain('xstate.');
  });

  it.each(machines)('%s: the Stately JSON rebuilds the same chart', (_id, machine) => {
    const rebuilt = createMachine(JSON.parse(toStatelyJson(machine)));
    expect(statePaths(rebuilt)).toEqual(statePaths(machine));
    expect(toMermaid(rebuilt)).toBe(toMermaid(machine));
  });
});
