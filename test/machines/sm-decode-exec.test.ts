/**
 * smDecode and smExec (machines/sm-decode, machines/sm-exec) alone on the port harness, with
 * hand-derived cycles: decode width, the fp.add-style latency rule of EXEC (a write-back reaches
 * ISSUE `latency` cycles after issue), write-back batching, and the lifecycle (pause).
 */
import { describe, expect, it } from 'vitest';
import { smDecode } from '../../machines/sm-decode/sm-decode.ts';
import { smExec } from '../../machines/sm-exec/sm-exec.ts';
import { engine1GHz, probe, probeOf, type ScriptItem } from './gpu-memory/harness.ts';

const line = (cycle: number, warp: number): ScriptItem => ({ cycle, kind: 'fetch.line', payload: { warp, pc: 0, fn: 0, count: 4, gen: 1 } });
const dispatch = (cycle: number, seq: number, latency: number): ScriptItem => ({ cycle, kind: 'exec.dispatch', payload: { warp: 0, unit: 0, latency, initiation: 1, dst: [seq + 1], seq } });

describe('smDecode', () => {
  function run(width: number, script: ScriptItem[], ctrl: ScriptItem[] = []) {
    const e = engine1GHz();
    e.addUnit('FETCH', probe, 'core', { script });
    e.addUnit('DECODE', smDecode, 'core', { decodeWidth: width });
    e.addUnit('ISSUE', probe, 'core', { script: [] });
    e.addUnit('CTRL', probe, 'core', { script: ctrl });
    e.connect('FETCH', 'out', 'DECODE', 'in', { latencyCycles: 1, messagesPerCycle: 4 });
    e.connect('DECODE', 'out', 'ISSUE', 'in', { latencyCycles: 1, messagesPerCycle: 4 });
    e.connect('CTRL', 'out', 'DECODE', 'ctrl', { latencyCycles: 1 });
    e.connect('DECODE', 'status', 'CTRL', 'in', { latencyCycles: 1 });
    e.run();
    return { e, got: probeOf(e, 'ISSUE').received.map((r) => `${(r.msg.payload as { warp: number }).warp}@${r.cycle}`) };
  }

  it('forwards decodeWidth groups per cycle, one cycle after they arrive', () => {
    // three groups reach DECODE at 1; width 2: two leave at 1 (ISSUE 2), the third at 2 (ISSUE 3).
    expect(run(2, [line(0, 0), line(0, 1), line(0, 2)]).got).toEqual(['0@2', '1@2', '2@3']);
    expect(run(1, [line(0, 0), line(0, 1), line(0, 2)]).got).toEqual(['0@2', '1@3', '2@4']);
    expect(run(2, [line(0, 0), line(0, 1), line(0, 2)]).e.stats.value('DECODE.decoded')).toBe(12);
  });

  it('paused: groups wait in its in-port until resumed', () => {
    // pause reaches DECODE at 1 with the group sent at 1 arriving at 2; resume at 10 -> 11 -> ISSUE 12.
    expect(run(2, [line(1, 0)], [{ cycle: 0, kind: 'ctrl.pause', payload: {} }, { cycle: 10, kind: 'ctrl.resume', payload: {} }]).got).toEqual(['0@12']);
  });
});

describe('smExec', () => {
  function run(script: ScriptItem[], ctrl: ScriptItem[] = []) {
    const e = engine1GHz();
    e.addUnit('ISSUE', probe, 'core', { script });
    e.addUnit('EXEC', smExec, 'core', { unitNames: ['sp', 'sfu'] });
    e.addUnit('CTRL', probe, 'core', { script: ctrl });
    e.connect('ISSUE', 'out', 'EXEC', 'in', { latencyCycles: 1, messagesPerCycle: 8 });
    e.connect('EXEC', 'wb', 'ISSUE', 'in', { latencyCycles: 1, messagesPerCycle: 8 });
    e.connect('CTRL', 'out', 'EXEC', 'ctrl', { latencyCycles: 1 });
    e.connect('EXEC', 'status', 'CTRL', 'in', { latencyCycles: 1 });
    e.run();
    const wbs = probeOf(e, 'ISSUE').received.map((r) => `${(r.msg.payload as { items: { seq: number }[] }).items.map((i) => i.seq).join('+')}@${r.cycle}`);
    return { e, wbs, acks: probeOf(e, 'CTRL').received.map((r) => `${(r.msg.payload as { state: string }).state}@${r.cycle}`) };
  }

  it('a write-back reaches ISSUE latency cycles after issue; completions of one cycle travel in one message', () => {
    // issued at 0 with latency 6: EXEC 1, done at 1 + 6 - 2 = 5, ISSUE 6. Latency 4 issued at 2: EXEC 3, done 5, same message.
    const { wbs, e } = run([dispatch(0, 0, 6), dispatch(2, 1, 4), dispatch(3, 2, 20)]);
    expect(wbs).toEqual(['0+1@6', '2@23']);
    expect(e.stats.value('EXEC.sp_insts')).toBe(3);
  });

  it('paused: the pipeline drains and acknowledges; a dispatch waits for the resume', () => {
    // latency 6 issued at 0 completes at 5 (ISSUE 6); pause reaches EXEC at 2 (draining, ack 3) and
    // drains at 5 (paused, ack 6). The dispatch sent at 3 waits; resume at 10 -> EXEC 11 takes it:
    // done at 11 + 4 - 2 = 13 -> ISSUE 14.
    const { wbs, acks } = run([dispatch(0, 0, 6), dispatch(3, 1, 4)], [{ cycle: 1, kind: 'ctrl.pause', payload: {} }, { cycle: 10, kind: 'ctrl.resume', payload: {} }]);
    expect(acks).toEqual(['draining@3', 'paused@6', 'active@12']);
    expect(wbs).toEqual(['0@6', '1@14']);
  });
});
