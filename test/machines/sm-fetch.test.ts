import { fromTransition } from 'xstate';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { smFetch } from '../../machines/sm-fetch/sm-fetch.ts';
import { GpuKind, type FetchReq } from '../../src/protocol/gpu.ts';
import { Engine } from '../../src/sim/engine.ts';
import { defineUnit, type UnitIo } from '../../src/sim/unit.ts';
import { testSink, type SinkState } from '../helpers/units.ts';
import { engine1GHz, probe, probeOf, type ScriptItem } from './gpu-memory/harness.ts';

/** Sends the given fetch requests, one every `gap` cycles from cycle 0. */
const requester = defineUnit<{ reqs: FetchReq[]; gap: number }>({
  kind: 'testFetchRequester',
  description: 'sends fetch.req messages',
  spec: z.custom<{ reqs: FetchReq[]; gap: number }>(),
  delivery: 'batch',
  ports: [{ name: 'out', direction: 'out', description: 'requests', messageKinds: [GpuKind.fetchReq], capacity: 8 }],
  stats: [],
  logic: (p) =>
    fromTransition(
      (s: { io: UnitIo; i: number }, e: { type: string }) => {
        if (e.type !== 'wake' || s.i >= p.reqs.length) return s;
        s.io.out('out').send(GpuKind.fetchReq, p.reqs[s.i++]!);
        if (s.i < p.reqs.length) s.io.wakeInCycles(p.gap);
        return s;
      },
      ({ input }: { input: UnitIo }) => ({ io: input, i: 0 }),
    ),
});

function run(reqs: FetchReq[], missLatency: number, gap = 1) {
  const e = new Engine();
  e.addClock('core', 1_000_000_000);
  e.addUnit('REQ', requester, 'core', { reqs, gap });
  e.addUnit('FETCH', smFetch, 'core', { fetchWidth: 2, maxWarps: 8, l1i: { sets: 4, ways: 4, lineBytes: 128 }, l1iMissLatencyCycles: missLatency });
  e.addUnit('OUT', testSink, 'core', testSink.spec.parse({ capacity: 16 }));
  e.connect('REQ', 'out', 'FETCH', 'req', { latencyCycles: 1 });
  e.connect('FETCH', 'out', 'OUT', 'in', { latencyCycles: 1 });
  e.run();
  return { e, out: (e.snapshot('OUT') as { context: SinkState }).context.arrivals };
}

describe('smFetch', () => {
  it('a miss costs the miss latency; a later fetch of the same line waits for that fill, not less', () => {
    const req = (warp: number, pc: number): FetchReq => ({ warp, pc, fn: 0, count: 2, gen: 1 });
    // Warp 0 misses at cycle 1 (ready at 1 + 50); warp 1 asks for the same line at cycle 2.
    const { out, e } = run([req(0, 0), req(1, 0)], 50);
    // Both leave when the fill arrives (cycle 51) and reach DECODE one per cycle.
    expect(out.map((a) => [(a.msg.payload as FetchReq).warp, a.cycle])).toEqual([
      [0, 52],
      [1, 53],
    ]);
    expect(e.stats.value('FETCH.l1i_misses')).toBe(1);
    expect(e.stats.value('FETCH.l1i_pending_hits')).toBe(1);
  });

  it('after the fill, the line hits: served the cycle the request arrives', () => {
    const req = (warp: number, pc: number): FetchReq => ({ warp, pc, fn: 0, count: 2, gen: 1 });
    // Second request sent at cycle 40 (after the fill at 21): arrives 41, served 41, delivered 42.
    const { out, e } = run([req(0, 0), req(1, 2)], 20, 40);
    expect(out.map((a) => [(a.msg.payload as FetchReq).warp, a.cycle])).toEqual([
      [0, 22],
      [1, 42],
    ]);
    expect(e.stats.value('FETCH.l1i_misses')).toBe(1);
  });
});

describe('smFetch: lifecycle', () => {
  const req = (cycle: number, warp: number, pc: number): ScriptItem => ({ cycle, kind: GpuKind.fetchReq, payload: { warp, pc, fn: 0, count: 2, gen: 1 } satisfies FetchReq });
  const ctrl = (cycle: number, kind: string): ScriptItem => ({ cycle, kind, payload: {} });

  /** A scripted ISSUE and controller around FETCH (miss latency 20); all links 1 cycle. */
  function runCtrl(reqs: ScriptItem[], ctrlScript: ScriptItem[]) {
    const e = engine1GHz();
    e.addUnit('ISSUE', probe, 'core', { script: reqs });
    e.addUnit('FETCH', smFetch, 'core', { fetchWidth: 2, maxWarps: 8, l1i: { sets: 4, ways: 4, lineBytes: 128 }, l1iMissLatencyCycles: 20 });
    e.addUnit('DECODE', probe, 'core', { script: [] });
    e.addUnit('CTRL', probe, 'core', { script: ctrlScript });
    e.connect('ISSUE', 'out', 'FETCH', 'req', { latencyCycles: 1 });
    e.connect('FETCH', 'out', 'DECODE', 'in', { latencyCycles: 1 });
    e.connect('CTRL', 'out', 'FETCH', 'ctrl', { latencyCycles: 1 });
    e.connect('FETCH', 'status', 'CTRL', 'in', { latencyCycles: 1 });
    e.run();
    e.finalize();
    return {
      e,
      out: probeOf(e, 'DECODE').received.map((r) => `${(r.msg.payload as FetchReq).warp}@${r.cycle}`),
      acks: probeOf(e, 'CTRL').received.map((r) => `${(r.msg.payload as { state: string }).state}@${r.cycle}`),
    };
  }

  it('paused: the fill in flight is delivered, then paused is acknowledged; a later request waits for the resume', () => {
    // warp 0 misses at 1 (fill 21, DECODE 22). pause reaches FETCH at 3 (draining, ack 4); the fill
    // at 21 empties it (paused, ack 22). Warp 1 (same line) arrives at 6 and waits; resume at 30 ->
    // FETCH 31 serves it from the filled line (hit) -> DECODE 32.
    const { out, acks, e } = runCtrl([req(0, 0, 0), req(5, 1, 2)], [ctrl(2, 'ctrl.pause'), ctrl(30, 'ctrl.resume')]);
    expect(out).toEqual(['0@22', '1@32']);
    expect(acks).toEqual(['draining@4', 'paused@22', 'active@32']);
    expect(e.stats.value('FETCH.l1i_misses')).toBe(1);
    expect(e.stats.value('FETCH.lifecycle_paused_cycles')).toBe(31 - 21);
  });

  it('gate: accepted when idle; a request reaching a gated FETCH is a simulation error naming the unit', () => {
    expect(runCtrl([], [ctrl(0, 'ctrl.gate'), ctrl(5, 'ctrl.wake')]).acks).toEqual(['gated@2', 'active@7']);
    expect(() => runCtrl([req(3, 0, 0)], [ctrl(0, 'ctrl.gate')])).toThrow(/FETCH: work arrived while the unit is power-gated/);
  });
});
