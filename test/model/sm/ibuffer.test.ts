import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { InputError, SimulationError } from '../../../src/errors.ts';
import { InstructionBuffer } from '../../../src/model/sm/ibuffer.ts';

describe('InstructionBuffer', () => {
  it('defaults to 2 entries per warp and fills / issues in program order', () => {
    const ib = new InstructionBuffer<string>({ numWarps: 4 });
    expect(ib.entries).toBe(2);
    expect(ib.isEmpty(1)).toBe(true);
    expect(ib.head(1)).toBeUndefined();
    expect(ib.headPc(1)).toBe(-1);
    ib.fill(1, 10, 'ld');
    ib.fill(1, 11, 'add');
    expect(ib.isFull(1)).toBe(true);
    expect(ib.freeEntries(1)).toBe(0);
    expect(ib.size(1)).toBe(2);
    expect(ib.head(1)).toBe('ld');
    expect(ib.headPc(1)).toBe(10);
    expect(ib.entry(1, 1)).toBe('add');
    expect(ib.entryPc(1, 1)).toBe(11);
    expect(() => ib.fill(1, 12, 'mul')).toThrow(SimulationError);
    // Other warps are independent.
    expect(ib.isEmpty(0)).toBe(true);
    expect(ib.consume(1)).toBe('ld');
    expect(ib.head(1)).toBe('add');
    expect(ib.freeEntries(1)).toBe(1);
    expect(ib.consume(1)).toBe('add');
    expect(ib.isEmpty(1)).toBe(true);
    expect(() => ib.consume(1)).toThrow(SimulationError);
  });

  it('keeps valid bits per physical slot as the ring wraps', () => {
    const ib = new InstructionBuffer<number>({ numWarps: 1, entries: 2 });
    ib.fill(0, 0, 100);
    ib.fill(0, 1, 101);
    expect([ib.isValid(0, 0), ib.isValid(0, 1)]).toEqual([true, true]);
    ib.consume(0); // slot 0 freed
    expect([ib.isValid(0, 0), ib.isValid(0, 1)]).toEqual([false, true]);
    ib.fill(0, 2, 102); // goes to slot 0, behind slot 1
    expect([ib.isValid(0, 0), ib.isValid(0, 1)]).toEqual([true, true]);
    expect(ib.consume(0)).toBe(101);
    expect(ib.consume(0)).toBe(102);
  });

  it('flushes on a control hazard: head PC differs from the SIMT stack next PC', () => {
    const ib = new InstructionBuffer<string>({ numWarps: 2, entries: 3 });
    ib.fill(0, 20, 'bra');
    ib.fill(0, 21, 'fallthrough-1');
    ib.fill(0, 22, 'fallthrough-2');
    ib.consume(0); // issue the branch; it was taken to PC 40
    expect(ib.flushIfPcDiffers(0, 21)).toBe(false); // not-taken path: keep
    expect(ib.size(0)).toBe(2);
    const gen = ib.generation(0);
    expect(ib.flushIfPcDiffers(0, 40)).toBe(true);
    expect(ib.isEmpty(0)).toBe(true);
    expect(ib.generation(0)).toBe(gen + 1);
    expect(ib.flushIfPcDiffers(0, 40)).toBe(false); // empty buffer: nothing to flush
  });

  it('drops a fetch that started before a flush', () => {
    const ib = new InstructionBuffer<string>({ numWarps: 1 });
    const before = ib.generation(0);
    ib.fill(0, 5, 'a');
    expect(ib.flush(0)).toBe(1);
    expect(ib.fillIfCurrent(0, before, 6, 'stale')).toBe(false);
    expect(ib.isEmpty(0)).toBe(true);
    const now = ib.generation(0);
    expect(ib.fillIfCurrent(0, now, 40, 'target')).toBe(true);
    expect(ib.fillIfCurrent(0, now, 41, 'next')).toBe(true);
    expect(ib.fillIfCurrent(0, now, 42, 'no room')).toBe(false);
    expect(ib.headPc(0)).toBe(40);
    ib.reset();
    expect(ib.isEmpty(0)).toBe(true);
    expect(ib.generation(0)).toBe(now + 1);
  });

  it('rejects bad parameters and warp indices', () => {
    expect(() => new InstructionBuffer({ numWarps: 4, entries: 0 })).toThrow(InputError);
    expect(() => new InstructionBuffer({ numWarps: -1 })).toThrow(InputError);
    const ib = new InstructionBuffer<number>({ numWarps: 2 });
    expect(() => ib.fill(2, 0, 0)).toThrow(SimulationError);
    expect(() => ib.flush(-1)).toThrow(SimulationError);
  });

  it('behaves like a bounded FIFO per warp under random fill/consume/flush', () => {
    const op = fc.oneof(
      fc.record({ k: fc.constant('fill' as const), w: fc.nat(2), pc: fc.nat(100) }),
      fc.record({ k: fc.constant('consume' as const), w: fc.nat(2) }),
      fc.record({ k: fc.constant('flush' as const), w: fc.nat(2) }),
    );
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 4 }), fc.array(op, { maxLength: 60 }), (entries, ops) => {
        const ib = new InstructionBuffer<number>({ numWarps: 3, entries });
        const ref: number[][] = [[], [], []];
        for (const o of ops) {
          const q = ref[o.w]!;
          if (o.k === 'fill') {
            if (q.length === entries) {
              expect(() => ib.fill(o.w, o.pc, o.pc)).toThrow(SimulationError);
            } else {
              ib.fill(o.w, o.pc, o.pc);
              q.push(o.pc);
            }
          } else if (o.k === 'consume') {
            if (q.length === 0) expect(() => ib.consume(o.w)).toThrow(SimulationError);
            else expect(ib.consume(o.w)).toBe(q.shift());
          } else {
            expect(ib.flush(o.w)).toBe(q.length);
            q.length = 0;
          }
          for (let w = 0; w < 3; w++) {
            expect(ib.size(w)).toBe(ref[w]!.length);
            expect(ib.headPc(w)).toBe(ref[w]!.length > 0 ? ref[w]![0] : -1);
            let valid = 0;
            for (let s = 0; s < entries; s++) if (ib.isValid(w, s)) valid++;
            expect(valid).toBe(ref[w]!.length);
          }
        }
      }),
    );
  });
});
