import { describe, expect, it } from 'vitest';
import { smLsu, type SmLsuParams } from '../../../machines/sm-lsu/sm-lsu.ts';
import type { GpuMemRequest, LsuDispatch, Writeback } from '../../../src/protocol/gpu.ts';
import { StateSpace } from '../../../src/isa/ir.ts';
import { engine1GHz, fakeMem, memOf, probe, probeOf, type ScriptItem } from './harness.ts';

const FULL = 0xffffffff;

function dispatch(cycle: number, seq: number, space: number, addresses: number[], isLoad = true, bytes = 4, mask = FULL): ScriptItem {
  const d: LsuDispatch = { warp: seq % 4, space, isLoad, bytes, mask, addresses, dst: isLoad ? [seq + 10] : [], seq, atomic: false };
  return { cycle, kind: 'lsu.dispatch', payload: d };
}

const lanes = (f: (l: number) => number) => Array.from({ length: 32 }, (_, l) => f(l));

/**
 * ISSUE probe -> LSU -> fake L1D (latency `memLatency`, acks writes); all links 1 cycle. With a
 * `ctrlScript`, a controller probe drives the LSU's `ctrl` port and records its `ctrl.ack`s.
 */
function run(script: ScriptItem[], over: Partial<SmLsuParams> = {}, memLatency = 10, ctrlScript?: ScriptItem[]) {
  const e = engine1GHz();
  const p: SmLsuParams = { smId: 3, sharedMemLatency: 20, constLatency: 8, l1dPortWidth: 1, sharedMem: { banks: 32, bankWidthBytes: 4 }, ...over };
  e.addUnit('ISSUE', probe, 'core', { script });
  e.addUnit('LSU', smLsu, 'core', p);
  e.addUnit('L1D', fakeMem, 'core', { latency: memLatency, ackWrites: true });
  e.connect('ISSUE', 'out', 'LSU', 'topIn', { latencyCycles: 1 });
  e.connect('LSU', 'topOut', 'ISSUE', 'in', { latencyCycles: 1 });
  e.connect('LSU', 'bottomOut', 'L1D', 'req', { latencyCycles: 1, messagesPerCycle: p.l1dPortWidth });
  e.connect('L1D', 'rsp', 'LSU', 'bottomIn', { latencyCycles: 1, messagesPerCycle: 64 });
  if (ctrlScript !== undefined) {
    e.addUnit('CTRL', probe, 'core', { script: ctrlScript });
    e.connect('CTRL', 'out', 'LSU', 'ctrl', { latencyCycles: 1 });
    e.connect('LSU', 'status', 'CTRL', 'in', { latencyCycles: 1 });
  }
  const r = e.run();
  e.finalize();
  expect(r.pendingUnits).toEqual([]);
  const wbs = probeOf(e, 'ISSUE').received.flatMap((x) => {
    const pl = x.msg.payload as Writeback | { items: Writeback[] };
    return ('items' in pl ? pl.items : [pl]).map((w) => ({ cycle: x.cycle, ...w }));
  });
  const acks = ctrlScript === undefined ? [] : probeOf(e, 'CTRL').received.map((x) => `${(x.msg.payload as { state: string }).state}@${x.cycle}`);
  return { e, wbs, reqs: memOf(e, 'L1D').seen, acks };
}

describe('smLsu: global accesses', () => {
  it('coalesces 32 consecutive 4-byte loads into one 128-byte transaction and writes back after the response', () => {
    const { e, wbs, reqs } = run([dispatch(0, 1, StateSpace.Global, lanes((l) => 4096 + 4 * l))]);
    expect(reqs).toHaveLength(1);
    const pl = reqs[0]!.msg.payload as GpuMemRequest;
    expect(reqs[0]!.msg.kind).toBe('mem.readReq');
    // the warp slot rides along for the L1D's NewCAR queue (004 Fig. 6, spec C10)
    expect(pl).toEqual({ addr: 4096, size: 128, sm: 3, warp: 1 });
    // dispatch 0 -> LSU 1 (sends) -> L1D 2 -> answer 12 -> LSU 13 (write-back) -> ISSUE 14
    expect(wbs).toEqual([{ cycle: 14, warp: 1, dst: [11], seq: 1, longLatency: true }]);
    expect(e.stats.value('LSU.transactions')).toBe(1);
    expect(e.stats.value('LSU.coalescing_efficiency')).toBe(1);
  });

  it('splits a stride-128 load into 32 transactions, one per cycle at port width 1', () => {
    const { e, wbs, reqs } = run([dispatch(0, 2, StateSpace.Global, lanes((l) => 128 * l))]);
    expect(reqs).toHaveLength(32);
    expect(reqs.map((r) => (r.msg.payload as GpuMemRequest).addr)).toEqual(lanes((l) => 128 * l));
    expect(reqs.every((r) => (r.msg.payload as GpuMemRequest).size === 32)).toBe(true);
    // sent at cycles 1..32, arrive 2..33
    expect(reqs.map((r) => r.cycle)).toEqual(lanes((l) => 2 + l));
    // last answer 43, LSU 44, ISSUE 45
    expect(wbs.map((w) => w.cycle)).toEqual([45]);
    expect(e.stats.value('LSU.transactions')).toBe(32);
    expect(e.stats.value('LSU.coalescing_efficiency')).toBe((32 * 4) / (32 * 32));
  });

  it('a wider L1D port sends up to l1dPortWidth transactions per cycle', () => {
    const { reqs, wbs } = run([dispatch(0, 2, StateSpace.Global, lanes((l) => 128 * l))], { l1dPortWidth: 4 });
    expect(reqs).toHaveLength(32);
    // 8 cycles of 4: sent 1..8, arrive 2..9; last answered 19, LSU 20, ISSUE 21
    expect(reqs.map((r) => r.cycle)).toEqual(lanes((l) => 2 + Math.floor(l / 4)));
    expect(wbs.map((w) => w.cycle)).toEqual([21]);
  });

  it('stores are write-backed (not long-latency) once the L1D accepted every transaction', () => {
    const { wbs, reqs } = run([dispatch(0, 5, StateSpace.Global, lanes((l) => 4 * l), false)], {}, 3);
    expect(reqs.map((r) => r.msg.kind)).toEqual(['mem.writeReq']);
    // LSU 1 -> L1D 2, acked 5 -> LSU 6 -> ISSUE 7
    expect(wbs).toEqual([{ cycle: 7, warp: 1, dst: [], seq: 5, longLatency: false }]);
  });

  it('local accesses are marked local; inactive lanes send nothing; a fully masked access writes back at once', () => {
    const { wbs, reqs, e } = run([
      dispatch(0, 1, StateSpace.Local, lanes((l) => 4 * l), true, 4, 0x0000ffff),
      dispatch(0, 2, StateSpace.Global, lanes(() => 0), true, 4, 0),
    ]);
    expect(reqs).toHaveLength(1);
    expect(reqs[0]!.msg.payload).toEqual({ addr: 0, size: 64, sm: 3, local: true, warp: 1 });
    expect(e.stats.value('LSU.insts_local')).toBe(1);
    expect(e.stats.value('LSU.insts_global')).toBe(1);
    // the empty one is accepted at cycle 2 and written back at once -> ISSUE 3
    expect(wbs.map((w) => [w.seq, w.cycle])).toEqual([
      [2, 3],
      [1, 14],
    ]);
  });
});

describe('smLsu: shared, const and param', () => {
  it('shared latency grows with bank conflicts: sharedMemLatency + k - 1', () => {
    const conflictFree = run([dispatch(0, 1, StateSpace.Shared, lanes((l) => 4 * l))]);
    const twoWay = run([dispatch(0, 1, StateSpace.Shared, lanes((l) => 8 * l))]);
    const worst = run([dispatch(0, 1, StateSpace.Shared, lanes((l) => 128 * l))]);
    // accepted at 1; write-back at 1 + 20 + (k - 1); seen one cycle later
    expect(conflictFree.wbs.map((w) => w.cycle)).toEqual([22]);
    expect(twoWay.wbs.map((w) => w.cycle)).toEqual([23]);
    expect(worst.wbs.map((w) => w.cycle)).toEqual([53]);
    expect(worst.e.stats.value('LSU.shared_bank_conflict_cycles')).toBe(31);
    expect(conflictFree.reqs).toHaveLength(0);
    expect(conflictFree.wbs[0]!.longLatency).toBe(false);
  });

  it('a conflicting shared access holds the stage: the next instruction is accepted k cycles later', () => {
    const { wbs } = run([dispatch(0, 1, StateSpace.Shared, lanes((l) => 128 * l)), dispatch(0, 2, StateSpace.Shared, lanes((l) => 4 * l))]);
    // first accepted 1 (k = 32): stage free at 33; second (arrived 2) accepted 33, wb 53 -> 54
    expect(wbs.map((w) => [w.seq, w.cycle])).toEqual([
      [1, 53],
      [2, 54],
    ]);
  });

  it('const and param accesses write back after constLatency', () => {
    const { wbs, reqs } = run([dispatch(0, 1, StateSpace.Const, lanes(() => 0)), dispatch(0, 2, StateSpace.Param, lanes(() => 16))]);
    expect(reqs).toHaveLength(0);
    // accepted 1 and 2, write-backs 9 and 10, seen 10 and 11
    expect(wbs.map((w) => [w.seq, w.cycle])).toEqual([
      [1, 10],
      [2, 11],
    ]);
  });

  it('write-backs completing in the same cycle leave in one message', () => {
    const { e } = run([dispatch(0, 1, StateSpace.Const, lanes(() => 0)), dispatch(0, 2, StateSpace.Shared, lanes((l) => 4 * l))], { constLatency: 20, sharedMemLatency: 19 });
    const got = probeOf(e, 'ISSUE').received;
    expect(got).toHaveLength(1);
    expect((got[0]!.msg.payload as { items: Writeback[] }).items.map((w) => w.seq)).toEqual([1, 2]);
  });
});

describe('smLsu: lifecycle', () => {
  const ctrl = (cycle: number, kind: string): ScriptItem => ({ cycle, kind, payload: {} });

  it('paused: the instruction in flight completes and the pause is acknowledged; the next waits for the resume', () => {
    // seq 1 (conflict-free shared) accepted 1, written back 21 (ISSUE 22). pause reaches the LSU at
    // 2 (draining, ack 3); drained at 21 (paused, ack 22). seq 2 arrives at 5 and waits; resume at
    // 30 -> LSU 31 accepts it: write-back 31 + 20 = 51 -> ISSUE 52.
    const { wbs, acks, e } = run([dispatch(0, 1, StateSpace.Shared, lanes((l) => 4 * l)), dispatch(4, 2, StateSpace.Shared, lanes((l) => 4 * l))], {}, 10, [ctrl(1, 'ctrl.pause'), ctrl(30, 'ctrl.resume')]);
    expect(acks).toEqual(['draining@3', 'paused@22', 'active@32']);
    expect(wbs.map((w) => [w.seq, w.cycle])).toEqual([
      [1, 22],
      [2, 52],
    ]);
    expect(e.stats.value('LSU.lifecycle_paused_cycles')).toBe(31 - 21);
  });

  it('gate: accepted when idle; an instruction reaching a gated LSU is a simulation error naming the unit', () => {
    const { acks } = run([], {}, 10, [ctrl(0, 'ctrl.gate'), ctrl(5, 'ctrl.wake')]);
    expect(acks).toEqual(['gated@2', 'active@7']);
    expect(() => run([dispatch(3, 1, StateSpace.Shared, lanes((l) => 4 * l))], {}, 10, [ctrl(0, 'ctrl.gate')])).toThrow(/LSU: work arrived while the unit is power-gated/);
  });
});
