import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../../src/errors.ts';
import { MshrAddResult, MshrTable } from '../../../src/model/mem/mshr.ts';

const A = 0x1000;
const B = 0x1080;
const C = 0x2000;

describe('MshrTable', () => {
  it('merges up to maxMerge requests per line, then mergeFull', () => {
    const m = new MshrTable({ entries: 4, maxMerge: 3 });
    expect(m.probe(A)).toBe(false);
    expect(m.add(A, 10)).toBe(MshrAddResult.newEntry);
    expect(m.add(A, 11)).toBe(MshrAddResult.merged);
    expect(m.full(A)).toBe(false);
    expect(m.add(A, 12)).toBe(MshrAddResult.merged);
    expect(m.full(A)).toBe(true);
    expect(m.add(A, 13)).toBe(MshrAddResult.mergeFull);
    expect(m.mergedCount(A)).toBe(3);
    expect(m.occupancy).toBe(1);
    expect([m.newEntries, m.merges, m.mergeFullFails, m.mshrFullFails]).toEqual([1, 2, 1, 0]);
  });

  it('table full: a new line gets mshrFull while lines in flight can still merge', () => {
    const m = new MshrTable({ entries: 2, maxMerge: 2 });
    expect(m.add(A, 1)).toBe(MshrAddResult.newEntry);
    expect(m.add(B, 2)).toBe(MshrAddResult.newEntry);
    expect(m.full(C)).toBe(true);
    expect(m.add(C, 3)).toBe(MshrAddResult.mshrFull);
    expect(m.probe(C)).toBe(false);
    expect(m.add(B, 4)).toBe(MshrAddResult.merged);
    expect(m.occupancy).toBe(2);
    expect(m.peakOccupancy).toBe(2);
  });

  it('ready releases the entry and returns its requests in arrival order', () => {
    const m = new MshrTable({ entries: 2, maxMerge: 4 });
    m.add(A, 7);
    m.add(B, 8);
    m.add(A, 9);
    m.add(A, 5);
    expect(m.ready(A)).toBe(3);
    expect([...m.readyIds.subarray(0, m.readyCount)]).toEqual([7, 9, 5]);
    expect(m.probe(A)).toBe(false);
    expect(m.occupancy).toBe(1);
    expect(m.add(C, 1)).toBe(MshrAddResult.newEntry);
    expect(m.lineAddrs()).toEqual([B, C]);
    expect(m.ready(0x9999)).toBe(0);
    expect(m.readyCount).toBe(0);
  });

  it('a dirty request marks the whole entry dirty until it is released', () => {
    const m = new MshrTable({ entries: 2, maxMerge: 4 });
    m.add(A, 1);
    m.add(A, 2, true);
    m.add(A, 3);
    m.add(B, 4);
    m.ready(A);
    expect(m.readyDirty).toBe(true);
    m.ready(B);
    expect(m.readyDirty).toBe(false);
    m.add(A, 5); // slot reuse starts clean
    m.ready(A);
    expect(m.readyDirty).toBe(false);
  });

  it('clear drops every entry', () => {
    const m = new MshrTable({ entries: 2, maxMerge: 1 });
    m.add(A, 1);
    m.add(B, 2);
    m.clear();
    expect(m.occupancy).toBe(0);
    expect(m.add(C, 3)).toBe(MshrAddResult.newEntry);
  });

  it('rejects bad parameters', () => {
    expect(() => new MshrTable({ entries: 0, maxMerge: 1 })).toThrow(InputError);
    expect(() => new MshrTable({ entries: 4, maxMerge: 1.5 })).toThrow(/maxMerge/);
  });

  it('behaves like a map of bounded lists (random operation sequences)', () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('add' as const), line: fc.integer({ min: 0, max: 5 }), id: fc.integer({ min: 0, max: 1000 }) }),
      fc.record({ kind: fc.constant('ready' as const), line: fc.integer({ min: 0, max: 5 }) }),
    );
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 4 }), fc.array(op, { maxLength: 60 }), (entries, maxMerge, ops) => {
        const m = new MshrTable({ entries, maxMerge });
        const ref = new Map<number, number[]>();
        for (const o of ops) {
          const line = o.line * 128;
          if (o.kind === 'add') {
            const list = ref.get(line);
            let want: number;
            if (list) {
              if (list.length >= maxMerge) want = MshrAddResult.mergeFull;
              else {
                list.push(o.id);
                want = MshrAddResult.merged;
              }
            } else if (ref.size >= entries) want = MshrAddResult.mshrFull;
            else {
              ref.set(line, [o.id]);
              want = MshrAddResult.newEntry;
            }
            expect(m.add(line, o.id)).toBe(want);
          } else {
            const list = ref.get(line) ?? [];
            ref.delete(line);
            expect(m.ready(line)).toBe(list.length);
            expect([...m.readyIds.subarray(0, m.readyCount)]).toEqual(list);
          }
          expect(m.occupancy).toBe(ref.size);
        }
      }),
      { numRuns: 200 },
    );
  });
});
