import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SimulationError } from '../../../src/errors.ts';
import { CacheController, CacheOutcome, MissKind, MissRequest, ResFailReason, type CacheParams } from '../../../src/model/mem/cache.ts';
import { LineState, ProbeStatus } from '../../../src/model/mem/tag-array.ts';

const A = 0x1000;
const B = 0x2000;
const C = 0x3000;
const D = 0x4000;

const { hit, hitReserved, miss, resFail } = CacheOutcome;

/** Empties the miss queue into [kind, addr, reqId, bytes] tuples. */
function drain(c: CacheController): [number, number, number, number][] {
  const r = new MissRequest();
  const out: [number, number, number, number][] = [];
  while (c.popMiss(r)) out.push([r.kind, r.addr, r.reqId, r.bytes]);
  return out;
}

function answered(c: CacheController): number[] {
  return [...c.readyIds.subarray(0, c.readyCount)];
}

/** One-set cache: every line maps to set 0. */
function cache(p: Partial<CacheParams>): CacheController {
  return new CacheController({ sets: 1, ways: 4, lineBytes: 128, mshrEntries: 8, mshrMaxMerge: 8, missQueueSize: 8, ...p });
}

describe('CacheController reads', () => {
  it('miss opens an MSHR entry and queues a line read; later reads merge until maxMerge', () => {
    const c = cache({ mshrEntries: 2, mshrMaxMerge: 2 });
    expect(c.access(A + 4, false, 1)).toBe(miss);
    expect(drain(c)).toEqual([[MissKind.read, A, 1, 128]]);
    expect(c.access(A + 8, false, 2)).toBe(hitReserved);
    expect(c.access(A + 12, false, 3)).toBe(resFail);
    expect(c.lastReason).toBe(ResFailReason.mshrMergeFull);
    expect(c.access(B, false, 4)).toBe(miss);
    expect(c.access(C, false, 5)).toBe(resFail);
    expect(c.lastReason).toBe(ResFailReason.mshrFull);
    expect(c.missQueueLength).toBe(1); // B's read; the failures queued nothing
    expect(c.fill(A)).toBe(2);
    expect(answered(c)).toEqual([1, 2]);
    expect(c.access(A + 100, false, 6)).toBe(hit);
    expect(c.lastReason).toBe(-1);
    expect(c.access(C, false, 7)).toBe(miss); // A's entry was released
    expect([...c.readOutcomes]).toEqual([1, 1, 3, 2]);
    expect([...c.readResFails]).toEqual([1, 1, 0, 0]);
  });

  it('every way reserved: noLineToAllocate; after a fill the clean victim is replaced silently', () => {
    const c = cache({ ways: 2 });
    expect(c.access(A, false, 1)).toBe(miss);
    expect(c.access(B, false, 2)).toBe(miss);
    expect(c.access(C, false, 3)).toBe(resFail);
    expect(c.lastReason).toBe(ResFailReason.noLineToAllocate);
    c.fill(A);
    drain(c);
    expect(c.access(C, false, 3)).toBe(miss);
    expect(drain(c)).toEqual([[MissKind.read, C, 3, 128]]);
    expect(c.tags.probe(A)).toBe(ProbeStatus.missNoLine); // A evicted; both ways now reserved (B, C)
  });

  it('missQueueFull: a read miss needs room for 2 entries (read + write-back), even to merge', () => {
    const c = cache({ missQueueSize: 2 });
    expect(c.access(A, false, 1)).toBe(miss);
    expect(c.missQueueFull(1)).toBe(true);
    expect(c.access(B, false, 2)).toBe(resFail);
    expect(c.lastReason).toBe(ResFailReason.missQueueFull);
    expect(c.access(A, false, 3)).toBe(resFail); // GPGPU-Sim checks the queue before the MSHR
    expect(c.lastReason).toBe(ResFailReason.missQueueFull);
    const r = new MissRequest();
    expect(c.peekMiss(r)).toBe(true);
    expect(c.missQueueLength).toBe(1);
    expect(c.popMiss(r)).toBe(true);
    expect([r.kind, r.addr, r.reqId]).toEqual([MissKind.read, A, 1]);
    expect(c.access(A, false, 3)).toBe(hitReserved);
    expect(c.access(B, false, 2)).toBe(miss);
    expect(c.stats().resFailMissQueueFull).toBe(2);
  });

  it('fill with no miss in flight is a SimulationError', () => {
    const c = cache({});
    expect(() => c.fill(A)).toThrow(SimulationError);
  });
});

describe('CacheController write-back, write-allocate (L2)', () => {
  it('a write miss fetches the line and installs it modified; its eviction queues a write-back after the read', () => {
    const c = cache({ ways: 1, writeHit: 'writeBack', writeMiss: 'writeAllocate' });
    expect(c.access(A + 8, true, 1, 4)).toBe(miss);
    expect(drain(c)).toEqual([[MissKind.read, A, 1, 128]]);
    expect(c.fill(A)).toBe(1);
    expect(answered(c)).toEqual([1]);
    expect(c.tags.state[0]).toBe(LineState.modified);
    expect(c.access(B, false, 2)).toBe(miss);
    expect(drain(c)).toEqual([
      [MissKind.read, B, 2, 128],
      [MissKind.writeBack, A, -1, 128],
    ]);
    c.fill(B);
    expect(c.tags.state[0]).toBe(LineState.valid);
    expect(c.access(B + 4, true, 3, 4)).toBe(hit);
    expect(c.tags.state[0]).toBe(LineState.modified);
    expect(c.missQueueLength).toBe(0);
    const s = c.stats();
    expect([s.readsSent, s.writesSent, s.writeBacksSent, s.fills]).toEqual([2, 0, 1, 2]);
  });

  it('a write to a line in flight merges into its MSHR entry and makes the fill dirty', () => {
    const c = cache({ writeHit: 'writeBack', writeMiss: 'writeAllocate' });
    expect(c.access(A, false, 1)).toBe(miss);
    expect(c.access(A + 64, true, 2, 8)).toBe(hitReserved);
    expect(c.fill(A)).toBe(2);
    expect(answered(c)).toEqual([1, 2]);
    expect(c.tags.state[c.tags.index]).toBe(LineState.modified);
    expect([...c.writeOutcomes]).toEqual([0, 1, 0, 0]);
  });

  it('write-allocate write misses fail like reads: no line, MSHR, miss queue', () => {
    const c = cache({ ways: 1, mshrEntries: 1, missQueueSize: 8, writeMiss: 'writeAllocate' });
    expect(c.access(A, true, 1, 4)).toBe(miss);
    expect(c.access(B, true, 2, 4)).toBe(resFail);
    expect(c.lastReason).toBe(ResFailReason.noLineToAllocate);
    const c2 = cache({ mshrEntries: 1 });
    c2.access(A, true, 1, 4);
    expect(c2.access(B, true, 2, 4)).toBe(resFail);
    expect(c2.lastReason).toBe(ResFailReason.mshrFull);
    expect([...c2.writeResFails]).toEqual([1, 0, 0, 0]);
  });

  it('allocation on fill: the dirty victim is found, and written back, when the fill arrives', () => {
    const c = cache({ ways: 1, allocate: 'onFill' });
    c.access(A, true, 1, 4);
    c.fill(A);
    drain(c);
    expect(c.access(B, false, 2)).toBe(miss);
    expect(drain(c)).toEqual([[MissKind.read, B, 2, 128]]); // nothing evicted yet
    expect(c.access(B, false, 3)).toBe(hitReserved); // merged in the MSHR, no reserved line
    expect(c.fill(B)).toBe(2);
    expect(drain(c)).toEqual([[MissKind.writeBack, A, -1, 128]]);
  });
});

describe('CacheController L1D policies (GTX480: local write-back, global write-evict, no write-allocate)', () => {
  const l1 = (p: Partial<CacheParams> = {}): CacheController => cache({ ways: 2, writeHit: 'localWbGlobalWe', writeMiss: 'noWriteAllocate', ...p });

  it('global write hit: the write goes down and the line is evicted', () => {
    const c = l1();
    c.access(A, false, 1);
    c.fill(A);
    drain(c);
    expect(c.access(A + 16, true, 2, 4)).toBe(hit);
    expect(drain(c)).toEqual([[MissKind.write, A + 16, 2, 4]]);
    expect(c.access(A, false, 3)).toBe(miss);
  });

  it('local write hit: the line becomes modified and nothing is sent; its eviction writes it back', () => {
    const c = l1();
    c.access(B, false, 1, 128, true);
    c.fill(B);
    drain(c);
    expect(c.access(B + 4, true, 2, 4, true)).toBe(hit);
    expect(c.missQueueLength).toBe(0);
    c.access(A, false, 3); // way 2: reserved
    expect(c.access(D, false, 4)).toBe(miss); // evicts B, the only non-reserved way
    expect(drain(c)).toEqual([
      [MissKind.read, A, 3, 128],
      [MissKind.read, D, 4, 128],
      [MissKind.writeBack, B, -1, 128],
    ]);
  });

  it('write miss: the write goes down, nothing is allocated, even when every way is reserved', () => {
    const c = l1();
    c.access(A, false, 1);
    c.access(B, false, 2);
    drain(c);
    expect(c.access(C + 4, true, 3, 4)).toBe(miss);
    expect(drain(c)).toEqual([[MissKind.write, C + 4, 3, 4]]);
    expect(c.mshr.probe(C)).toBe(false);
    expect(c.access(A + 4, true, 4, 4)).toBe(miss); // write to a reserved line: no allocation, sent down
    expect(drain(c)).toEqual([[MissKind.write, A + 4, 4, 4]]);
  });

  it('writes need one miss-queue entry', () => {
    const c = l1({ missQueueSize: 1 });
    expect(c.access(C, true, 1, 4)).toBe(miss);
    expect(c.access(D, true, 2, 4)).toBe(resFail);
    expect(c.lastReason).toBe(ResFailReason.missQueueFull);
    expect(c.stats().resFails).toBe(1);
  });
});

describe('CacheController write-through and write-evict', () => {
  it('write-through hit: write sent, line stays clean, so no write-back on eviction', () => {
    const c = cache({ ways: 1, writeHit: 'writeThrough', writeMiss: 'noWriteAllocate' });
    c.access(A, false, 1);
    c.fill(A);
    drain(c);
    expect(c.access(A, true, 2, 8)).toBe(hit);
    expect(c.tags.state[0]).toBe(LineState.valid);
    expect(c.access(A, false, 3)).toBe(hit);
    expect(c.access(B, false, 4)).toBe(miss);
    expect(drain(c)).toEqual([
      [MissKind.write, A, 2, 8],
      [MissKind.read, B, 4, 128],
    ]);
  });

  it('write-through with write-allocate: a write miss fetches the line clean and sends the write down', () => {
    const c = cache({ ways: 1, writeHit: 'writeThrough', writeMiss: 'writeAllocate' });
    expect(c.access(A + 4, true, 1, 4)).toBe(miss);
    expect(drain(c)).toEqual([
      [MissKind.read, A, 1, 128],
      [MissKind.write, A + 4, 1, 4],
    ]);
    c.fill(A);
    expect(c.tags.state[0]).toBe(LineState.valid);
  });

  it('write-evict hit invalidates the line', () => {
    const c = cache({ writeHit: 'writeEvict', writeMiss: 'noWriteAllocate' });
    c.access(A, false, 1);
    c.fill(A);
    expect(c.access(A, true, 2, 4)).toBe(hit);
    expect(c.tags.probe(A)).toBe(ProbeStatus.miss);
  });
});

describe('CacheController invariants (random traffic)', () => {
  it('every miss or merged request is answered by exactly one fill; counts add up', () => {
    const op = fc.oneof(
      { weight: 5, arbitrary: fc.record({ k: fc.constant('acc' as const), line: fc.integer({ min: 0, max: 7 }), write: fc.boolean() }) },
      { weight: 2, arbitrary: fc.record({ k: fc.constant('fill' as const), pick: fc.nat() }) },
      { weight: 2, arbitrary: fc.record({ k: fc.constant('pop' as const) }) },
    );
    fc.assert(
      fc.property(
        fc.constantFrom('writeBack' as const, 'localWbGlobalWe' as const, 'writeThrough' as const),
        fc.constantFrom('writeAllocate' as const, 'noWriteAllocate' as const),
        fc.array(op, { maxLength: 80 }),
        (writeHit, writeMiss, ops) => {
          const c = new CacheController({ sets: 2, ways: 2, lineBytes: 128, mshrEntries: 3, mshrMaxMerge: 2, missQueueSize: 4, writeHit, writeMiss });
          const waiting = new Set<number>();
          const r = new MissRequest();
          let id = 0;
          let accesses = 0;
          for (const o of ops) {
            if (o.k === 'acc') {
              const out = c.access(o.line * 128 + 4, o.write, ++id, 4);
              accesses++;
              const answeredLater = out === hitReserved || (out === miss && (!o.write || writeMiss === 'writeAllocate'));
              if (answeredLater) waiting.add(id);
              expect(c.mshr.occupancy).toBeLessThanOrEqual(3);
              expect(c.missQueueLength).toBeLessThanOrEqual(4);
            } else if (o.k === 'fill') {
              const lines = c.mshr.lineAddrs();
              if (lines.length === 0) continue;
              const n = c.fill(lines[o.pick % lines.length]!);
              for (const x of c.readyIds.subarray(0, n)) {
                expect(waiting.delete(x)).toBe(true);
              }
            } else c.popMiss(r);
          }
          // drain the rest
          for (const line of c.mshr.lineAddrs()) for (const x of c.readyIds.subarray(0, c.fill(line))) expect(waiting.delete(x)).toBe(true);
          expect(waiting.size).toBe(0);
          expect(c.stats().accesses).toBe(accesses);
        },
      ),
      { numRuns: 200 },
    );
  });
});
