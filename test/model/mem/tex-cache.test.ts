/**
 * The texture cache model (GPGPU-Sim `tex_cache`): tags allocated valid at the access, the
 * in-order fragment FIFO, the request FIFO and the reorder buffer, the result FIFO and the hit
 * latency; and texel-to-line grouping. Each expectation is derived by hand from the rules in
 * `src/model/mem/tex-cache.ts`.
 */
import { describe, expect, it } from 'vitest';
import { InputError } from '../../../src/errors.ts';
import { TexCache, TexOutcome, TexResFail, texelLines, type TexCacheParams } from '../../../src/model/mem/tex-cache.ts';

const BASE: TexCacheParams = { sets: 4, ways: 2, lineBytes: 128, fragmentFifoEntries: 8, requestFifoEntries: 4, robEntries: 8, resultFifoEntries: 4, hitLatency: 1 };

/** Runs cycles from..to (inclusive) and returns the request ids that reached the result FIFO, in order. */
function drain(c: TexCache, from: number, to: number): number[] {
  const out: number[] = [];
  for (let cy = from; cy <= to; cy++) {
    c.cycle(cy);
    while (c.resultsReady > 0) out.push(c.popResult());
  }
  return out;
}

/** Sends every queued line read and returns [line, ROB slot] pairs. */
function sendAll(c: TexCache): [number, number][] {
  const out: [number, number][] = [];
  while (c.peekRequest() >= 0) {
    const line = c.peekRequest();
    out.push([line, c.popRequest()]);
  }
  return out;
}

describe('TexCache lookups (tags: sets, ways, lineBytes, replacement, allocation, setIndex)', () => {
  it('a miss allocates its line valid at once: a second access to the line is a hit, with no second read', () => {
    const c = new TexCache(BASE);
    expect(c.access(0x1000, 1, 0)).toBe(TexOutcome.miss);
    expect(c.access(0x1040, 2, 0)).toBe(TexOutcome.hit); // same 128-byte line
    expect(sendAll(c)).toEqual([[0x1000, 0]]);
    expect([c.accesses, c.hits, c.misses]).toEqual([2, 1, 1]);
  });

  it('lineBytes decides what one line covers', () => {
    const c = new TexCache({ ...BASE, lineBytes: 64 });
    c.access(0x1000, 1, 0);
    expect(c.access(0x1040, 2, 0)).toBe(TexOutcome.miss); // 0x1040 is the next 64-byte line
    expect(sendAll(c).map(([l]) => l)).toEqual([0x1000, 0x1040]);
  });

  it('sets x ways bound what stays: three lines of one set evict the least recently used of 2 ways', () => {
    // 4 sets of 128 B: lines 0x0, 0x200, 0x400 all map to set 0 (linear index)
    const c = new TexCache(BASE);
    for (const [i, a] of [0x0, 0x200].entries()) c.access(a, i, 0);
    c.access(0x0, 2, 0); // hit: 0x0 most recent
    expect(c.access(0x400, 3, 0)).toBe(TexOutcome.miss); // evicts 0x200
    expect(c.access(0x0, 4, 0)).toBe(TexOutcome.hit);
    expect(c.access(0x200, 5, 0)).toBe(TexOutcome.miss);
    // with 8 sets the three lines spread over sets 0 and 4: 0x0 and 0x400 share set 0 only
    const wide = new TexCache({ ...BASE, sets: 8, fragmentFifoEntries: 16, robEntries: 16, requestFifoEntries: 8 });
    for (const [i, a] of [0x0, 0x200, 0x400, 0x0, 0x200].entries()) wide.access(a, i, 0);
    expect(wide.hits).toBe(2);
    // 1 way: 0x0 and 0x400 evict each other
    const direct = new TexCache({ ...BASE, ways: 1 });
    for (const [i, a] of [0x0, 0x400, 0x0].entries()) direct.access(a, i, 0);
    expect(direct.misses).toBe(3);
  });

  it('replacement fifo evicts the oldest allocation even when it was used last', () => {
    const c = new TexCache({ ...BASE, replacement: 'fifo' });
    c.access(0x0, 0, 0);
    c.access(0x200, 1, 0);
    c.access(0x0, 2, 0); // hit, but 0x0 stays the oldest allocation
    c.access(0x400, 3, 0); // evicts 0x0 (lru would evict 0x200)
    expect(c.access(0x200, 4, 0)).toBe(TexOutcome.hit);
    expect(c.access(0x0, 5, 0)).toBe(TexOutcome.miss);
  });

  it('setIndex xor spreads a stride that linear indexing puts in one set', () => {
    // stride 4 lines = 0x200: linear sets 0, 0, 0; xor sets 0, 1, 2 (index ^ next 2 block bits)
    const lin = new TexCache({ ...BASE, ways: 1 });
    const xor = new TexCache({ ...BASE, ways: 1, setIndex: 'xor' });
    for (const [i, a] of [0x0, 0x200, 0x400, 0x0].entries()) {
      lin.access(a, i, 0);
      xor.access(a, i, 0);
    }
    expect([lin.hits, xor.hits]).toEqual([0, 1]);
  });

  it('allocation onFill installs the line valid at the access as well (one read per line)', () => {
    const c = new TexCache({ ...BASE, allocate: 'onFill' });
    expect(c.access(0x1000, 1, 0)).toBe(TexOutcome.miss);
    expect(c.access(0x1000, 2, 0)).toBe(TexOutcome.hit);
    expect(sendAll(c)).toHaveLength(1);
  });
});

describe('TexCache FIFOs (mshrEntries, mshrMaxMerge, missQueueEntries, resultFifoEntries, latencyCycles)', () => {
  it('results leave in access order: a hit waits behind an older miss until its line is filled', () => {
    const c = new TexCache(BASE);
    c.access(0x1000, 10, 0); // miss
    c.access(0x2000, 11, 0); // miss
    c.access(0x1000, 12, 1); // hit (line allocated), behind both misses
    const [[, s0], [, s1]] = sendAll(c) as [[number, number], [number, number]];
    expect(drain(c, 1, 5)).toEqual([]);
    c.fill(s1); // the second read returns first: the ROB keeps the order
    expect(drain(c, 6, 8)).toEqual([]);
    c.fill(s0);
    // one fragment per cycle: 10 at 9, 11 at 10, 12 at 11
    expect(drain(c, 9, 9)).toEqual([10]);
    expect(drain(c, 10, 10)).toEqual([11]);
    expect(drain(c, 11, 11)).toEqual([12]);
  });

  it('a hit leaves hitLatency cycles after its access at the earliest', () => {
    const c = new TexCache({ ...BASE, hitLatency: 4 });
    c.access(0x1000, 1, 0);
    c.fill(sendAll(c)[0]![1]);
    expect(drain(c, 0, 0)).toEqual([1]); // a filled miss leaves at once
    c.access(0x1000, 2, 10);
    expect(drain(c, 10, 13)).toEqual([]);
    expect(drain(c, 14, 14)).toEqual([2]);
  });

  it('the fragment FIFO (mshrEntries) bounds the accesses in flight', () => {
    const c = new TexCache({ ...BASE, fragmentFifoEntries: 2 });
    c.access(0x1000, 1, 0);
    c.access(0x1000, 2, 0);
    expect(c.access(0x1000, 3, 0)).toBe(TexOutcome.resFail);
    expect(c.lastReason).toBe(TexResFail.fragmentFifoFull);
    expect(c.resFailBy[TexResFail.fragmentFifoFull]).toBe(1);
  });

  it('the request FIFO (mshrMaxMerge) bounds the line reads waiting for the port', () => {
    const c = new TexCache({ ...BASE, requestFifoEntries: 2 });
    c.access(0x1000, 1, 0);
    c.access(0x2000, 2, 0);
    expect(c.access(0x3000, 3, 0)).toBe(TexOutcome.resFail);
    expect(c.lastReason).toBe(TexResFail.requestFifoFull);
    c.popRequest();
    expect(c.access(0x3000, 3, 0)).toBe(TexOutcome.miss);
  });

  it('the reorder buffer (missQueueEntries) bounds the line reads in flight', () => {
    const c = new TexCache({ ...BASE, robEntries: 1 });
    c.access(0x1000, 1, 0);
    c.popRequest();
    expect(c.access(0x2000, 2, 0)).toBe(TexOutcome.resFail);
    expect(c.lastReason).toBe(TexResFail.robFull);
  });

  it('the result FIFO (resultFifoEntries) holds ready fragments until they are written back', () => {
    const c = new TexCache({ ...BASE, resultFifoEntries: 1 });
    c.access(0x1000, 1, 0);
    c.fill(sendAll(c)[0]![1]);
    c.access(0x1000, 2, 0);
    c.cycle(1);
    c.cycle(2); // full: fragment 2 stays
    expect(c.resultsReady).toBe(1);
    expect(c.popResult()).toBe(1);
    c.cycle(3);
    expect(c.popResult()).toBe(2);
    expect(c.busy).toBe(false);
  });

  it('refuses a non-positive FIFO size', () => {
    expect(() => new TexCache({ ...BASE, resultFifoEntries: 0 })).toThrow(InputError);
  });
});

describe('texelLines', () => {
  it('gives the distinct lines of the texels in ascending address order', () => {
    const out = new Float64Array(8);
    const n = texelLines([0x1084, 0x1000, 0x1080, 0x0ffc, 0x1004], 5, 128, out);
    expect(Array.from(out.subarray(0, n))).toEqual([0x0f80, 0x1000, 0x1080]);
  });
});
