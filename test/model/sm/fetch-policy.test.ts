/**
 * Fetch scheduling policies (C9 of specs/warp-level.md §4): the registry's picks on hand-made
 * request tables, and the order the FETCH stage serves requests that wait together under `rr`
 * and under `warpPriority`.
 */
import { describe, expect, it } from 'vitest';
import { InputError } from '../../../src/errors.ts';
import { createFetchPolicy, fetchPolicyNames } from '../../../src/model/sm/fetch-policy.ts';
import { fromTransition } from 'xstate';
import { z } from 'zod';
import { smFetch } from '../../../machines/sm-fetch/sm-fetch.ts';
import { GpuKind, type FetchReq } from '../../../src/protocol/gpu.ts';
import { Engine } from '../../../src/sim/engine.ts';
import { defineUnit, type UnitIo } from '../../../src/sim/unit.ts';
import { testSink, type SinkState } from '../../helpers/units.ts';

describe('fetch policy registry', () => {
  const rr = createFetchPolicy('rr');
  const prio = createFetchPolicy('warpPriority');

  it('has rr (the default) and warpPriority', () => {
    expect(fetchPolicyNames()).toEqual(['rr', 'warpPriority']);
  });

  it('rr serves the first slot with a request at or after the start, wrapping around', () => {
    const req = [null, {}, null, {}, null];
    expect(rr(req, 0, 0, 1)).toBe(1);
    expect(rr(req, 2, 0, 1)).toBe(3);
    expect(rr(req, 4, 0, 1)).toBe(1);
    expect(rr([null, null], 1, 0, 1)).toBe(-1);
  });

  it('warpPriority with one scheduler serves the lowest priority, ties in round-robin order from the start', () => {
    expect(prio([{ priority: 5 }, { priority: 2 }, null, { priority: 2 }, {}], 0, 0, 1)).toBe(4); // no priority counts as 0
    expect(prio([{ priority: 5 }, { priority: 2 }, null, { priority: 2 }], 0, 0, 1)).toBe(1);
    expect(prio([{ priority: 5 }, { priority: 2 }, null, { priority: 2 }], 2, 0, 1)).toBe(3);
    expect(prio([null, null], 0, 0, 1)).toBe(-1);
  });

  it('warpPriority with two schedulers interleaves their orders, the leader alternating by cycle (R-E4)', () => {
    // slots 0, 2, 4 belong to scheduler 0; 1, 3, 5 to scheduler 1
    const req = [{ priority: 7 }, { priority: 9 }, { priority: 3 }, { priority: 1 }, null, { priority: 4 }];
    expect(prio(req, 0, 0, 2)).toBe(2); // even cycle: scheduler 0 leads; its best is slot 2 (3), not the global best (slot 3)
    expect(prio(req, 0, 1, 2)).toBe(3); // odd cycle: scheduler 1 leads
    // the leader has no request: the next scheduler's best
    expect(prio([null, { priority: 9 }, null, { priority: 1 }], 0, 0, 2)).toBe(3);
  });

  it('refuses an unknown name, naming the field and the known names', () => {
    expect(() => createFetchPolicy('elfx')).toThrow(InputError);
    expect(() => createFetchPolicy('elfx')).toThrow(/policies\.fetchScheduler\.kind.*known: rr, warpPriority/);
  });
});

describe('fetch order at the FETCH stage', () => {
  /** Sends every request in its first wake (they arrive together: a link of 8 messages per cycle). */
  const burst = defineUnit<{ reqs: FetchReq[] }>({
    kind: 'testFetchBurst',
    description: 'sends all fetch.req messages at once',
    spec: z.custom<{ reqs: FetchReq[] }>(),
    delivery: 'batch',
    ports: [{ name: 'out', direction: 'out', description: 'requests', messageKinds: [GpuKind.fetchReq], capacity: 8 }],
    stats: [],
    logic: (p) =>
      fromTransition(
        (s: { io: UnitIo; sent: boolean }, e: { type: string }) => {
          if (e.type !== 'wake' || s.sent) return s;
          for (const r of p.reqs) s.io.out('out').send(GpuKind.fetchReq, r);
          s.sent = true;
          return s;
        },
        ({ input }: { input: UnitIo }) => ({ io: input, sent: false }),
      ),
  });

  /** Warps whose fetched groups reach DECODE, in order: 4 requests for 4 different lines (all miss, latency 10). */
  function served(fetchPolicy: string, priorities: number[]): number[] {
    const reqs: FetchReq[] = priorities.map((priority, warp) => ({ warp, pc: warp * 64, fn: 0, count: 2, gen: 1, priority }));
    const e = new Engine();
    e.addClock('core', 1_000_000_000);
    e.addUnit('REQ', burst, 'core', { reqs });
    e.addUnit('FETCH', smFetch, 'core', { fetchWidth: 2, maxWarps: 8, l1i: { sets: 4, ways: 4, lineBytes: 128 }, l1iMissLatencyCycles: 10, fetchPolicy });
    e.addUnit('OUT', testSink, 'core', testSink.spec.parse({ capacity: 16 }));
    e.connect('REQ', 'out', 'FETCH', 'req', { latencyCycles: 1, messagesPerCycle: 8 });
    e.connect('FETCH', 'out', 'OUT', 'in', { latencyCycles: 1 });
    e.run();
    return (e.snapshot('OUT') as { context: SinkState }).context.arrivals.map((a) => (a.msg.payload as FetchReq).warp);
  }

  it('rr serves the requests that arrived together in slot order; warpPriority in priority order', () => {
    // one request served (one line read) per cycle; equal miss latencies keep the service order
    expect(served('rr', [3, 1, 2, 0])).toEqual([0, 1, 2, 3]);
    expect(served('warpPriority', [3, 1, 2, 0])).toEqual([3, 1, 2, 0]);
  });
});
