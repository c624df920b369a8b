/**
 * smDecode (machines/sm-decode) alone on the port harness, with hand-derived cycles: decode
 * width (groups per cycle), the one-cycle links on both sides, and the lifecycle (a paused
 * decode forwards nothing; a gated one accepts nothing).
 */
import { describe, expect, it } from 'vitest';
import { smDecode } from '../../machines/sm-decode/sm-decode.ts';
import { engine1GHz, probe, probeOf, type ScriptItem } from './gpu-memory/harness.ts';

/** A fetched group of 4 instructions of warp `warp`, sent by FETCH at `cycle`. */
const line = (cycle: number, warp: number): ScriptItem => ({ cycle, kind: 'fetch.line', payload: { warp, pc: 0, fn: 0, count: 4, gen: 1 } });
const ctrl = (cycle: number, kind: string): ScriptItem => ({ cycle, kind, payload: {} });

/** FETCH probe -> DECODE -> ISSUE probe, and a controller probe; all links 1 cycle. */
function run(width: number, script: ScriptItem[], ctrlScript: ScriptItem[] = []) {
  const e = engine1GHz();
  e.addUnit('FETCH', probe, 'core', { script });
  e.addUnit('DECODE', smDecode, 'core', { decodeWidth: width });
  e.addUnit('ISSUE', probe, 'core', { script: [] });
  e.addUnit('CTRL', probe, 'core', { script: ctrlScript });
  e.connect('FETCH', 'out', 'DECODE', 'in', { latencyCycles: 1, messagesPerCycle: 4 });
  e.connect('DECODE', 'out', 'ISSUE', 'in', { latencyCycles: 1, messagesPerCycle: 4 });
  e.connect('CTRL', 'out', 'DECODE', 'ctrl', { latencyCycles: 1 });
  // Two acks may leave in one cycle (draining then paused): a link wide enough to carry both.
  e.connect('DECODE', 'status', 'CTRL', 'in', { latencyCycles: 1, messagesPerCycle: 4 });
  e.run();
  e.finalize();
  return {
    e,
    got: probeOf(e, 'ISSUE').received.map((r) => `${(r.msg.payload as { warp: number }).warp}@${r.cycle}`),
    acks: probeOf(e, 'CTRL').received.map((r) => `${(r.msg.payload as { state: string }).state}@${r.cycle}`),
  };
}

describe('smDecode', () => {
  it('forwards decodeWidth groups per cycle, in arrival order, one link cycle after they arrive', () => {
    // three groups reach DECODE at 1; width 2: two leave at 1 (ISSUE 2), the third at 2 (ISSUE 3).
    const w2 = run(2, [line(0, 0), line(0, 1), line(0, 2)]);
    expect(w2.got).toEqual(['0@2', '1@2', '2@3']);
    // width 1: one per cycle.
    expect(run(1, [line(0, 0), line(0, 1), line(0, 2)]).got).toEqual(['0@2', '1@3', '2@4']);
    // 3 groups x 4 instructions.
    expect(w2.e.stats.value('DECODE.decoded')).toBe(12);
  });

  it('a group arriving while the previous cycle still forwards waits its turn (width 1, groups 1 cycle apart)', () => {
    // arrivals 1, 1, 2: forwarded at 1, 2, 3 (the third waits behind the second) -> ISSUE 2, 3, 4.
    expect(run(1, [line(0, 0), line(0, 1), line(1, 2)]).got).toEqual(['0@2', '1@3', '2@4']);
  });

  it('paused: groups wait in its in-port until resumed; decode holds nothing, so paused is acknowledged at once', () => {
    // pause sent at 0 reaches DECODE at 1 (draining, then paused in the same cycle: nothing held;
    // acks at 2). The group sent at 1 arrives at 2 and waits; resume at 10 -> 11 -> ISSUE 12.
    const { got, acks, e } = run(2, [line(1, 0)], [ctrl(0, 'ctrl.pause'), ctrl(10, 'ctrl.resume')]);
    expect(got).toEqual(['0@12']);
    expect(acks).toEqual(['draining@2', 'paused@2', 'active@12']);
    expect(e.stats.value('DECODE.lifecycle_paused_cycles')).toBe(11 - 1);
  });

  it('gate: accepted when idle; a group arriving while gated is a simulation error naming the unit', () => {
    const ok = run(1, [line(10, 0)], [ctrl(0, 'ctrl.gate'), ctrl(5, 'ctrl.wake')]);
    // gated at 1 (ack 2), woken at 6 (ack 7); the group sent at 10 reaches ISSUE at 12.
    expect(ok.acks).toEqual(['gated@2', 'active@7']);
    expect(ok.got).toEqual(['0@12']);
    expect(ok.e.stats.value('DECODE.lifecycle_gated_cycles')).toBe(6 - 1);
    expect(() => run(1, [line(3, 0)], [ctrl(0, 'ctrl.gate')])).toThrow(/DECODE: work arrived while the unit is power-gated/);
  });
});
