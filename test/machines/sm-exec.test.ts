/**
 * smExec (machines/sm-exec) alone on the port harness, with hand-derived cycles: the latency
 * rule (an instruction issued at c with latency L writes back to ISSUE at c + L, the dispatch
 * and write-back hops included), completion order by done cycle, write-back batching (all
 * completions of a cycle in one message), and the lifecycle. Initiation intervals are enforced
 * at issue (see test/machines/sm-issue.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { smExec } from '../../machines/sm-exec/sm-exec.ts';
import { engine1GHz, probe, probeOf, type ScriptItem } from './gpu-memory/harness.ts';

/** ISSUE sends instruction `seq` (pipeline `unit`, latency in cycles) at cycle `cycle`. */
const dispatch = (cycle: number, seq: number, latency: number, unit = 0): ScriptItem => ({ cycle, kind: 'exec.dispatch', payload: { warp: 0, unit, latency, initiation: 1, dst: [seq + 1], seq } });
const ctrl = (cycle: number, kind: string): ScriptItem => ({ cycle, kind, payload: {} });

/** ISSUE probe -> EXEC -> ISSUE probe, and a controller probe; all links 1 cycle. */
function run(script: ScriptItem[], ctrlScript: ScriptItem[] = []) {
  const e = engine1GHz();
  e.addUnit('ISSUE', probe, 'core', { script });
  e.addUnit('EXEC', smExec, 'core', { unitNames: ['sp', 'sfu'] });
  e.addUnit('CTRL', probe, 'core', { script: ctrlScript });
  e.connect('ISSUE', 'out', 'EXEC', 'in', { latencyCycles: 1, messagesPerCycle: 8 });
  e.connect('EXEC', 'wb', 'ISSUE', 'in', { latencyCycles: 1, messagesPerCycle: 8 });
  e.connect('CTRL', 'out', 'EXEC', 'ctrl', { latencyCycles: 1 });
  e.connect('EXEC', 'status', 'CTRL', 'in', { latencyCycles: 1 });
  e.run();
  e.finalize();
  // One entry per write-back message: the seqs it carries and the cycle ISSUE receives it.
  const wbs = probeOf(e, 'ISSUE').received.map((r) => `${(r.msg.payload as { items: { seq: number }[] }).items.map((i) => i.seq).join('+')}@${r.cycle}`);
  return { e, wbs, acks: probeOf(e, 'CTRL').received.map((r) => `${(r.msg.payload as { state: string }).state}@${r.cycle}`) };
}

describe('smExec', () => {
  it('a write-back reaches ISSUE latency cycles after issue; completions of one cycle travel in one message', () => {
    // issued at 0 with latency 6: EXEC 1, done at 1 + 6 - 2 = 5, ISSUE 6. Latency 4 issued at 2:
    // EXEC 3, done 5: the same message. Latency 20 issued at 3: ISSUE 23.
    const { wbs, e } = run([dispatch(0, 0, 6), dispatch(2, 1, 4), dispatch(3, 2, 20)]);
    expect(wbs).toEqual(['0+1@6', '2@23']);
    expect(e.stats.value('EXEC.sp_insts')).toBe(3);
  });

  it('completions leave in done order, not dispatch order; per-pipeline counters', () => {
    // seq 0 (sfu, latency 20) issued at 0 -> ISSUE 20; seq 1 (sp, latency 4) issued at 1 -> ISSUE 5.
    const { wbs, e } = run([dispatch(0, 0, 20, 1), dispatch(1, 1, 4, 0)]);
    expect(wbs).toEqual(['1@5', '0@20']);
    expect(e.stats.value('EXEC.sp_insts')).toBe(1);
    expect(e.stats.value('EXEC.sfu_insts')).toBe(1);
  });

  it('back-to-back issues of one latency write back in consecutive cycles, one message each', () => {
    expect(run([dispatch(0, 0, 4), dispatch(1, 1, 4), dispatch(2, 2, 4)]).wbs).toEqual(['0@4', '1@5', '2@6']);
  });

  it('paused: the pipeline drains and acknowledges; a dispatch waits for the resume', () => {
    // latency 6 issued at 0 completes at 5 (ISSUE 6); pause reaches EXEC at 2 (draining, ack 3) and
    // drains at 5 (paused, ack 6). The dispatch sent at 3 waits; resume at 10 -> EXEC 11 takes it:
    // done at 11 + 4 - 2 = 13 -> ISSUE 14.
    const { wbs, acks, e } = run([dispatch(0, 0, 6), dispatch(3, 1, 4)], [ctrl(1, 'ctrl.pause'), ctrl(10, 'ctrl.resume')]);
    expect(acks).toEqual(['draining@3', 'paused@6', 'active@12']);
    expect(wbs).toEqual(['0@6', '1@14']);
    expect(e.stats.value('EXEC.lifecycle_draining_cycles')).toBe(5 - 2);
    expect(e.stats.value('EXEC.lifecycle_paused_cycles')).toBe(11 - 5);
  });

  it('gate: refused while an instruction is in flight, accepted when idle; a dispatch while gated is a simulation error', () => {
    // latency 10 issued at 0 is in flight at 2 (done 9): the gate is refused, no ack. The gate at 20
    // (EXEC 21) finds it empty: gated, ack 22.
    const { wbs, acks } = run([dispatch(0, 0, 10)], [ctrl(1, 'ctrl.gate'), ctrl(20, 'ctrl.gate')]);
    expect(wbs).toEqual(['0@10']);
    expect(acks).toEqual(['gated@22']);
    expect(() => run([dispatch(5, 0, 4)], [ctrl(0, 'ctrl.gate')])).toThrow(/EXEC: work arrived while the unit is power-gated/);
  });
});
