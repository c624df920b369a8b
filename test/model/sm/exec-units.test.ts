import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { InputError, SimulationError } from '../../../src/errors.ts';
import { OpClass } from '../../../src/isa/ir.ts';
import { ExecUnits } from '../../../src/model/sm/exec-units.ts';

function drainAll(eu: ExecUnits, cycle: number, cap = 64): number[] {
  const out = new Int32Array(cap);
  const n = eu.drain(cycle, out);
  return Array.from(out.subarray(0, n));
}

describe('ExecUnits pipelines', () => {
  it('accepts one instruction per free pipeline and returns cycle + latency', () => {
    const eu = new ExecUnits({ units: [{ name: 'sp', count: 2 }, { name: 'lsu', count: 1 }] });
    const sp = eu.unitIndex('sp');
    expect(sp).toBe(0);
    expect(eu.unitIndex('sfu')).toBe(-1);
    expect(eu.canAccept(sp, 0)).toBe(true);
    expect(eu.issue(sp, 0, 4, 1, 10)).toBe(4);
    expect(eu.canAccept(sp, 0)).toBe(true); // second pipeline
    expect(eu.issue(sp, 0, 4, 1, 11)).toBe(4);
    expect(eu.canAccept(sp, 0)).toBe(false);
    expect(() => eu.issue(sp, 0, 4, 1)).toThrow(SimulationError);
    expect(eu.canAccept(sp, 1)).toBe(true); // initiation interval 1
    expect(eu.inFlight(sp)).toBe(2);
    expect(eu.inFlight(eu.unitIndex('lsu'))).toBe(0);
  });

  it('blocks a pipeline for its initiation interval', () => {
    const eu = new ExecUnits({ units: [{ name: 'dp', count: 1 }] });
    // GTX480 dp MAD: latency 8, initiation 8 (-ptx_opcode_latency_dp / initiation_dp).
    expect(eu.issue(0, 100, 8, 8)).toBe(108);
    for (let c = 100; c < 108; c++) expect(eu.canAccept(0, c)).toBe(false);
    expect(eu.canAccept(0, 108)).toBe(true);
    expect(eu.nextAcceptCycle(0)).toBe(108);
  });

  it('multiplies the interval by the passes a narrow unit needs for a warp', () => {
    // Fermi: 4 SFU lanes per SM, so a 32-thread warp takes 32/4 = 8 passes.
    const eu = new ExecUnits({ units: [{ name: 'sfu', count: 1, width: 4 }] });
    eu.issue(0, 0, 20, 1);
    expect(eu.canAccept(0, 7)).toBe(false);
    expect(eu.canAccept(0, 8)).toBe(true);
    // A 16-lane unit with interval 2: 2 passes x 2 = 4 cycles.
    const eu16 = new ExecUnits({ units: [{ name: 'sp', count: 1, width: 16 }] });
    eu16.issue(0, 0, 4, 2);
    expect(eu16.nextAcceptCycle(0)).toBe(4);
  });

  it('drains completions in (cycle, issue order) and keeps the rest', () => {
    const eu = new ExecUnits({ units: [{ name: 'sp', count: 4 }, { name: 'sfu', count: 1 }] });
    eu.issue(0, 0, 10, 1, 1); // done 10
    eu.issue(0, 1, 3, 1, 2); // done 4
    eu.issue(1, 2, 2, 1, 3); // done 4, issued after tag 2
    eu.issue(0, 3, 7, 1, 4); // done 10, issued after tag 1
    expect(eu.nextCompletionCycle()).toBe(4);
    expect(drainAll(eu, 3)).toEqual([]);
    const tags = new Int32Array(8);
    const units = new Int32Array(8);
    expect(eu.drain(4, tags, units)).toBe(2);
    expect(Array.from(tags.subarray(0, 2))).toEqual([2, 3]);
    expect(Array.from(units.subarray(0, 2))).toEqual([0, 1]);
    expect(eu.inFlight(1)).toBe(0);
    expect(eu.nextCompletionCycle()).toBe(10);
    // An output array of one entry takes one completion per call.
    expect(drainAll(eu, 20, 1)).toEqual([1]);
    expect(drainAll(eu, 20, 1)).toEqual([4]);
    expect(eu.inFlight()).toBe(0);
    expect(eu.nextCompletionCycle()).toBe(Infinity);
  });

  it('limits writebacks per cycle with a result bus reserved at issue', () => {
    const eu = new ExecUnits({ units: [{ name: 'sp', count: 2 }, { name: 'sfu', count: 1 }], resultBusWidth: 1, maxLatency: 64 });
    expect(eu.issue(0, 0, 5, 1)).toBe(5);
    // Another instruction finishing at cycle 5 is refused; one finishing at 6 is fine.
    expect(eu.canAccept(1, 1, 4)).toBe(false);
    expect(() => eu.issue(1, 1, 4, 1)).toThrow(SimulationError);
    expect(eu.canAccept(1, 1, 5)).toBe(true);
    expect(eu.issue(1, 1, 5, 1)).toBe(6);
    // Without a latency the bus is not consulted.
    expect(eu.canAccept(0, 1)).toBe(true);
    // Latency beyond the horizon is refused.
    expect(eu.canAccept(0, 2, 65)).toBe(false);
    expect(() => eu.issue(0, 2, 65, 1)).toThrow(SimulationError);
    // The ring slot of cycle 5 is reused for cycle 5 + 65 = 70 without stale counts.
    expect(eu.canAccept(0, 6, 64)).toBe(true);
    expect(eu.issue(0, 6, 64, 1)).toBe(70);
  });

  it('refuses issue back in time and bad latency / interval', () => {
    const eu = new ExecUnits({ units: [{ name: 'sp', count: 4 }] });
    eu.issue(0, 10, 4, 1);
    expect(() => eu.issue(0, 9, 4, 1)).toThrow(SimulationError);
    expect(() => eu.issue(0, 10, 0, 1)).toThrow(SimulationError);
    expect(() => eu.issue(0, 10, 4, 0)).toThrow(SimulationError);
    expect(() => eu.issue(7, 10, 4, 1)).toThrow(SimulationError);
    eu.reset();
    expect(eu.inFlight()).toBe(0);
    expect(eu.issue(0, 0, 4, 1)).toBe(4);
  });

  it('grows its completion queue beyond the initial capacity without losing order', () => {
    const eu = new ExecUnits({ units: [{ name: 'lsu', count: 1 }] });
    // 100 loads issued one per cycle with decreasing latency: all complete at cycle 300,
    // so they drain in issue order.
    for (let i = 0; i < 100; i++) eu.issue(0, i, 300 - i, 1, i);
    expect(eu.inFlight(0)).toBe(100);
    expect(drainAll(eu, 299, 200)).toEqual([]);
    expect(drainAll(eu, 300, 200)).toEqual(Array.from({ length: 100 }, (_, i) => i));
  });

  it('drains in (done, seq) order for random issue streams', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ gap: fc.nat(3), unit: fc.nat(2), latency: fc.integer({ min: 1, max: 30 }), initiation: fc.integer({ min: 1, max: 4 }) }), { maxLength: 50 }),
        (ops) => {
          const eu = new ExecUnits({ units: [{ name: 'a', count: 1 }, { name: 'b', count: 2 }, { name: 'c', count: 1, width: 8 }] });
          const expected: { done: number; seq: number }[] = [];
          let cycle = 0;
          let seq = 0;
          for (const o of ops) {
            cycle += o.gap;
            if (!eu.canAccept(o.unit, cycle)) continue;
            const done = eu.issue(o.unit, cycle, o.latency, o.initiation, seq);
            expect(done).toBe(cycle + o.latency);
            expected.push({ done, seq });
            seq++;
          }
          expected.sort((x, y) => x.done - y.done || x.seq - y.seq);
          expect(drainAll(eu, 1000, 64)).toEqual(expected.map((e) => e.seq));
        },
      ),
    );
  });
});

describe('ExecUnits opcode-class timing', () => {
  const params = {
    units: [{ name: 'sp', count: 2 }, { name: 'sfu', count: 1, width: 4 }, { name: 'lsu', count: 1 }],
    opClasses: {
      alu: { unit: 'sp', latency: 4, initiation: 1 },
      intDiv: { unit: 'sp', latency: 145, initiation: 8 },
      sfu: { unit: 'sfu', latency: 20, initiation: 1 },
      load: { unit: 'lsu', latency: 1, initiation: 1 },
    },
  };

  it('maps classes to units, latencies and intervals', () => {
    const eu = new ExecUnits(params);
    expect(eu.unitOfClass(OpClass.Alu)).toBe(0);
    expect(eu.unitOfClass(OpClass.Sfu)).toBe(1);
    expect(eu.unitOfClass(OpClass.Dp)).toBe(-1);
    expect(eu.latencyOfClass(OpClass.IntDiv)).toBe(145);
    expect(eu.initiationOfClass(OpClass.IntDiv)).toBe(8);
    expect(eu.issueClass(OpClass.Alu, 0, 1)).toBe(4);
    expect(eu.issueClass(OpClass.IntDiv, 0, 2)).toBe(145);
    expect(eu.canAcceptClass(OpClass.Alu, 0)).toBe(false); // both sp pipelines taken
    expect(eu.canAcceptClass(OpClass.Alu, 1)).toBe(true); // the alu one frees after 1 cycle
    expect(eu.issueClass(OpClass.Sfu, 0, 3)).toBe(20);
    expect(eu.canAcceptClass(OpClass.Sfu, 7)).toBe(false); // 8 passes
    expect(eu.canAcceptClass(OpClass.Dp, 0)).toBe(false);
    expect(() => eu.issueClass(OpClass.Dp, 0)).toThrow(SimulationError);
  });

  it('rejects bad timing tables with InputError naming the field', () => {
    const bad = (p: object, field: string): void => {
      try {
        new ExecUnits(p as never, { file: 'gpu.yaml' });
        expect.unreachable();
      } catch (e) {
        expect(e).toBeInstanceOf(InputError);
        expect((e as InputError).field).toBe(field);
      }
    };
    bad({ units: [] }, 'execUnits.units');
    bad({ units: [{ name: 'sp', count: 1 }, { name: 'sp', count: 2 }] }, 'execUnits.units[1].name');
    bad({ units: [{ name: 'sp', count: 0 }] }, 'execUnits.units[0].count');
    bad({ units: [{ name: 'sp', count: 1 }], opClasses: { vector: { unit: 'sp', latency: 1, initiation: 1 } } }, 'execUnits.opClasses.vector');
    bad({ units: [{ name: 'sp', count: 1 }], opClasses: { alu: { unit: 'tensor', latency: 1, initiation: 1 } } }, 'execUnits.opClasses.alu.unit');
    bad({ units: [{ name: 'sp', count: 1 }], opClasses: { alu: { unit: 'sp', latency: 0, initiation: 1 } } }, 'execUnits.opClasses.alu.latency');
  });
});
