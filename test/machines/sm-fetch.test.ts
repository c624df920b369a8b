import { fromTransition } from 'xstate';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { smFetch } from '../../machines/sm-fetch/sm-fetch.ts';
import { GpuKind, type FetchReq } from '../../src/protocol/gpu.ts';
import { Engine } from '../../src/sim/engine.ts';
import { defineUnit, type UnitIo } from '../../src/sim/unit.ts';
import { testSink, type SinkState } from '../helpers/units.ts';

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
