import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { InputError, SimulationError } from '../../../src/errors.ts';
import { parsePtx } from '../../../src/isa/parser.ts';
import {
  Scoreboard,
  ScoreboardHazard,
  SCOREBOARD_HAZARD_NAME,
  checkInstruction,
  isLongLatencyHazard,
} from '../../../src/model/sm/scoreboard.ts';

describe('Scoreboard RAW / WAW', () => {
  it('blocks a reader of a pending register (RAW) until release', () => {
    const sb = new Scoreboard({ numWarps: 2, numRegs: 16 });
    sb.reserve(0, [5], false);
    expect(sb.check(0, [5], [])).toBe(ScoreboardHazard.Raw);
    expect(sb.check(0, [4, 6], [7])).toBe(ScoreboardHazard.None);
    // Registers are per warp: warp 1's r5 is free.
    expect(sb.check(1, [5], [5])).toBe(ScoreboardHazard.None);
    expect(sb.release(0, [5])).toBe(1);
    expect(sb.check(0, [5], [])).toBe(ScoreboardHazard.None);
    expect(sb.pendingCount(0)).toBe(0);
  });

  it('checkOffset reads registers shifted by a called function\'s offset in the combined space', () => {
    const sb = new Scoreboard({ numWarps: 1, numRegs: 16 });
    sb.reserve(0, [12], true); // register 2 of a function whose registers start at 10
    expect(sb.checkOffset(0, [2], [], 10)).toBe(ScoreboardHazard.RawLongLatency);
    expect(sb.checkOffset(0, [], [2], 10)).toBe(ScoreboardHazard.WawLongLatency);
    expect(sb.checkOffset(0, [2], [3], 0)).toBe(ScoreboardHazard.None);
    expect(sb.checkOffset(0, [1, 3], [4], 10)).toBe(ScoreboardHazard.None);
  });

  it('blocks a writer of a pending register (WAW)', () => {
    const sb = new Scoreboard({ numWarps: 1, numRegs: 8 });
    sb.reserve(0, [3], false);
    expect(sb.check(0, [1, 2], [3])).toBe(ScoreboardHazard.Waw);
    expect(sb.canIssue(0, [1, 2], [3])).toBe(false);
    expect(sb.lastHazard).toBe(ScoreboardHazard.Waw);
    expect(sb.canIssue(0, [1, 2], [4])).toBe(true);
    expect(sb.lastHazard).toBe(ScoreboardHazard.None);
  });

  it('flags long-latency producers and counts them per warp', () => {
    const sb = new Scoreboard({ numWarps: 2, numRegs: 8 });
    sb.reserve(1, [2, 3], true); // e.g. ld.global.v2 writing r2, r3
    sb.reserve(1, [6], false);
    expect(sb.check(1, [3], [])).toBe(ScoreboardHazard.RawLongLatency);
    expect(sb.check(1, [], [2])).toBe(ScoreboardHazard.WawLongLatency);
    expect(sb.pendingCount(1)).toBe(3);
    expect(sb.longLatencyPendingCount(1)).toBe(2);
    expect(sb.hasLongLatencyPending(1)).toBe(true);
    expect(sb.isLongLatencyPending(1, 2)).toBe(true);
    expect(sb.isLongLatencyPending(1, 6)).toBe(false);
    expect(sb.isPending(1, 6)).toBe(true);
    expect(sb.releaseReg(1, 2)).toBe(true);
    expect(sb.hasLongLatencyPending(1)).toBe(true);
    expect(sb.releaseReg(1, 3)).toBe(true);
    expect(sb.hasLongLatencyPending(1)).toBe(false);
    expect(sb.pendingCount(1)).toBe(1);
    expect(isLongLatencyHazard(ScoreboardHazard.RawLongLatency)).toBe(true);
    expect(isLongLatencyHazard(ScoreboardHazard.WawLongLatency)).toBe(true);
    expect(isLongLatencyHazard(ScoreboardHazard.Raw)).toBe(false);
    expect(SCOREBOARD_HAZARD_NAME[ScoreboardHazard.RawLongLatency]).toBe('rawLongLatency');
  });

  it('reports the most severe hazard: rawLongLatency > wawLongLatency > raw > waw', () => {
    const sb = new Scoreboard({ numWarps: 1, numRegs: 8 });
    sb.reserve(0, [1], false); // short producer of r1
    sb.reserve(0, [2], true); // long producer of r2
    sb.reserve(0, [4], false); // short producer of r4
    expect(sb.check(0, [1, 2], [])).toBe(ScoreboardHazard.RawLongLatency);
    expect(sb.check(0, [2, 1], [4])).toBe(ScoreboardHazard.RawLongLatency);
    expect(sb.check(0, [1], [2])).toBe(ScoreboardHazard.WawLongLatency);
    expect(sb.check(0, [1], [4])).toBe(ScoreboardHazard.Raw);
    expect(sb.check(0, [0], [4])).toBe(ScoreboardHazard.Waw);
    // A register that is both read and written (add r1, r1, 1) is a RAW.
    expect(sb.check(0, [1], [1])).toBe(ScoreboardHazard.Raw);
  });

  it('refuses a double reservation and out-of-range registers', () => {
    const sb = new Scoreboard({ numWarps: 1, numRegs: 4 });
    sb.reserve(0, [1], false);
    expect(() => sb.reserve(0, [1], true)).toThrow(SimulationError);
    expect(() => sb.reserve(0, [4], false)).toThrow(SimulationError);
    expect(() => sb.reserve(1, [0], false)).toThrow(SimulationError);
    expect(sb.releaseReg(0, 2)).toBe(false);
    expect(sb.releaseReg(0, 9)).toBe(false);
    expect(sb.pendingCount(0)).toBe(1);
  });

  it('clears a warp and resets', () => {
    const sb = new Scoreboard({ numWarps: 2, numRegs: 4 });
    sb.reserve(0, [0, 1], true);
    sb.reserve(1, [3], false);
    sb.clearWarp(0);
    expect(sb.pendingCount(0)).toBe(0);
    expect(sb.hasLongLatencyPending(0)).toBe(false);
    expect(sb.check(0, [0, 1], [])).toBe(ScoreboardHazard.None);
    expect(sb.check(1, [3], [])).toBe(ScoreboardHazard.Raw);
    sb.reset();
    expect(sb.check(1, [3], [])).toBe(ScoreboardHazard.None);
  });

  it('rejects bad sizes with InputError naming the field', () => {
    expect(() => new Scoreboard({ numWarps: 0, numRegs: 4 })).toThrow(InputError);
    try {
      new Scoreboard({ numWarps: 4, numRegs: 2.5 });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(InputError);
      expect((e as InputError).field).toBe('scoreboard.numRegs');
    }
  });

  it('works on the register lists of parsed PTX (combined predicate/data index space)', () => {
    const text = [
      '.version 9.0', '.target sm_75', '.address_size 64',
      '.visible .entry k(.param .u64 p)', '{',
      '  .reg .pred %p<2>;', '  .reg .b32 %r<4>;', '  .reg .b64 %rd<3>;',
      '  ld.param.u64 %rd1, [p];',
      '  ld.global.u32 %r1, [%rd1];',
      '  setp.eq.u32 %p1, %r1, 0;',
      '  @%p1 add.u32 %r2, %r1, 1;',
      '  ret;', '}', '',
    ].join('\n');
    const m = parsePtx(text, 'sb.ptx');
    const fn = m.functions[0]!;
    const [ldParam, ldGlobal, setp, add] = fn.instructions;
    const sb = new Scoreboard({ numWarps: 1, numRegs: fn.registers.length });
    expect(checkInstruction(sb, 0, ldParam!)).toBe(ScoreboardHazard.None);
    sb.reserve(0, ldParam!.dstRegs, ldParam!.longLatency);
    // ld.global reads %rd1 written by the (short) param load.
    expect(checkInstruction(sb, 0, ldGlobal!)).toBe(ScoreboardHazard.Raw);
    sb.release(0, ldParam!.dstRegs);
    sb.reserve(0, ldGlobal!.dstRegs, ldGlobal!.longLatency);
    expect(ldGlobal!.longLatency).toBe(true);
    expect(checkInstruction(sb, 0, setp!)).toBe(ScoreboardHazard.RawLongLatency);
    sb.release(0, ldGlobal!.dstRegs);
    sb.reserve(0, setp!.dstRegs, false);
    // The guard predicate %p1 is a source of the add: RAW on the predicate.
    expect(checkInstruction(sb, 0, add!)).toBe(ScoreboardHazard.Raw);
    sb.release(0, setp!.dstRegs);
    expect(checkInstruction(sb, 0, add!)).toBe(ScoreboardHazard.None);
  });

  it('matches a set-based reference on random reserve/release/check sequences', () => {
    const numRegs = 6;
    const op = fc.oneof(
      fc.record({ kind: fc.constant('reserve' as const), reg: fc.nat(numRegs - 1), long: fc.boolean() }),
      fc.record({ kind: fc.constant('release' as const), reg: fc.nat(numRegs - 1) }),
      fc.record({ kind: fc.constant('check' as const), src: fc.array(fc.nat(numRegs - 1), { maxLength: 3 }), dst: fc.array(fc.nat(numRegs - 1), { maxLength: 2 }) }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), (ops) => {
        const sb = new Scoreboard({ numWarps: 1, numRegs });
        const pending = new Map<number, boolean>(); // reg -> long
        for (const o of ops) {
          if (o.kind === 'reserve') {
            if (pending.has(o.reg)) continue;
            sb.reserve(0, [o.reg], o.long);
            pending.set(o.reg, o.long);
          } else if (o.kind === 'release') {
            expect(sb.releaseReg(0, o.reg)).toBe(pending.delete(o.reg));
          } else {
            const rawLong = o.src.some((r) => pending.get(r) === true);
            const raw = o.src.some((r) => pending.has(r));
            const wawLong = o.dst.some((r) => pending.get(r) === true);
            const waw = o.dst.some((r) => pending.has(r));
            const expected = rawLong ? ScoreboardHazard.RawLongLatency
              : wawLong ? ScoreboardHazard.WawLongLatency
              : raw ? ScoreboardHazard.Raw
              : waw ? ScoreboardHazard.Waw
              : ScoreboardHazard.None;
            expect(sb.check(0, o.src, o.dst)).toBe(expected);
          }
          expect(sb.pendingCount(0)).toBe(pending.size);
          expect(sb.longLatencyPendingCount(0)).toBe([...pending.values()].filter(Boolean).length);
        }
      }),
    );
  });
});
