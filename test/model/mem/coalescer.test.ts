import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../../src/errors.ts';
import { StateSpace } from '../../../src/isa/ir.ts';
import { CoalescedAccesses, Coalescer } from '../../../src/model/mem/coalescer.ts';

const ALL = 0xffffffff;
const BASE = 0x10000; // 128-byte aligned

/** Transactions of `out` as plain objects, for readable assertions. */
function list(out: CoalescedAccesses): { addr: number; size: number; line: number; sectors: number; lanes: number }[] {
  const r = [];
  for (let i = 0; i < out.count; i++) {
    r.push({ addr: out.addr[i]!, size: out.size[i]!, line: out.lineAddr[i]!, sectors: out.sectorMask[i]!, lanes: out.laneMask[i]! });
  }
  return r;
}

function addrs(f: (lane: number) => number): Float64Array {
  const a = new Float64Array(32);
  for (let l = 0; l < 32; l++) a[l] = f(l);
  return a;
}

describe('Coalescer, line mode (Fermi, -gpgpu_coalesce_arch 20)', () => {
  const c = new Coalescer();
  const out = new CoalescedAccesses();

  it('32 lanes x 4 B consecutive and aligned: one 128-byte line, 4 sectors', () => {
    expect(c.coalesce(addrs((l) => BASE + 4 * l), ALL, 4, StateSpace.Global, out)).toBe(1);
    expect(list(out)).toEqual([{ addr: BASE, size: 128, line: BASE, sectors: 0b1111, lanes: ALL }]);
    expect([...out.byteMask.subarray(0, 4)]).toEqual([ALL, ALL, ALL, ALL]);
  });

  it('stride 128 B: 32 lines, each reduced to the one 32-byte sector touched', () => {
    expect(c.coalesce(addrs((l) => BASE + 128 * l), ALL, 4, StateSpace.Global, out)).toBe(32);
    const t = list(out);
    for (let l = 0; l < 32; l++) {
      expect(t[l]).toEqual({ addr: BASE + 128 * l, size: 32, line: BASE + 128 * l, sectors: 0b0001, lanes: 2 ** l });
      expect([...out.byteMask.subarray(4 * l, 4 * l + 4)]).toEqual([0xf, 0, 0, 0]);
    }
  });

  it('transactions come out in increasing address order whatever the lane order', () => {
    c.coalesce(addrs((l) => BASE + 128 * (31 - l)), ALL, 4, StateSpace.Global, out);
    const t = list(out);
    expect(t.map((x) => x.addr)).toEqual(Array.from({ length: 32 }, (_, i) => BASE + 128 * i));
    expect(t[0]!.lanes).toBe(2 ** 31);
    expect(t[31]!.lanes).toBe(1);
  });

  it('misaligned by 4 B: 31 lanes in the first line (128 B), lane 31 alone in the next (32 B)', () => {
    expect(c.coalesce(addrs((l) => BASE + 4 + 4 * l), ALL, 4, StateSpace.Global, out)).toBe(2);
    expect(list(out)).toEqual([
      { addr: BASE, size: 128, line: BASE, sectors: 0b1111, lanes: 0x7fffffff },
      { addr: BASE + 128, size: 32, line: BASE + 128, sectors: 0b0001, lanes: 0x80000000 },
    ]);
    expect([...out.byteMask.subarray(0, 4)]).toEqual([0xfffffff0, ALL, ALL, ALL]);
    expect([...out.byteMask.subarray(4, 8)]).toEqual([0xf, 0, 0, 0]);
  });

  it('a lane access crossing a segment boundary is split over both lines', () => {
    // lane 0 reads 8 bytes at BASE + 124: bytes 124..127 of one line and 0..3 of the next
    expect(c.coalesce(addrs(() => BASE + 124), 1, 8, StateSpace.Global, out)).toBe(2);
    expect(list(out)).toEqual([
      { addr: BASE + 96, size: 32, line: BASE, sectors: 0b1000, lanes: 1 },
      { addr: BASE + 128, size: 32, line: BASE + 128, sectors: 0b0001, lanes: 1 },
    ]);
    expect(out.byteMask[3]).toBe(0xf0000000);
    expect(out.byteMask[4]).toBe(0xf);
  });

  it('scattered lanes within one line still make one transaction', () => {
    const perm = [5, 0, 31, 17, 3, 9, 28, 12, 1, 30, 22, 7, 14, 2, 26, 19, 8, 11, 25, 4, 16, 29, 6, 21, 13, 24, 10, 27, 15, 18, 20, 23];
    expect(c.coalesce(addrs((l) => BASE + 4 * perm[l]!), ALL, 4, StateSpace.Global, out)).toBe(1);
    expect(list(out)[0]).toEqual({ addr: BASE, size: 128, line: BASE, sectors: 0b1111, lanes: ALL });
  });

  it('8-byte and 16-byte consecutive accesses: 2 and 4 full lines', () => {
    expect(c.coalesce(addrs((l) => BASE + 8 * l), ALL, 8, StateSpace.Global, out)).toBe(2);
    expect(list(out)).toEqual([
      { addr: BASE, size: 128, line: BASE, sectors: 15, lanes: 0x0000ffff },
      { addr: BASE + 128, size: 128, line: BASE + 128, sectors: 15, lanes: 0xffff0000 },
    ]);
    expect(c.coalesce(addrs((l) => BASE + 16 * l), ALL, 16, StateSpace.Global, out)).toBe(4);
    expect(list(out).map((t) => [t.addr - BASE, t.size, t.lanes])).toEqual([
      [0, 128, 0x000000ff],
      [128, 128, 0x0000ff00],
      [256, 128, 0x00ff0000],
      [384, 128, 0xff000000],
    ]);
  });

  it('1-byte accesses use 32-byte segments, 2-byte accesses 64-byte segments', () => {
    expect(c.coalesce(addrs((l) => BASE + l), ALL, 1, StateSpace.Global, out)).toBe(1);
    expect(list(out)).toEqual([{ addr: BASE, size: 32, line: BASE, sectors: 1, lanes: ALL }]);
    expect(c.coalesce(addrs((l) => BASE + 2 * l), ALL, 2, StateSpace.Global, out)).toBe(1);
    expect(list(out)).toEqual([{ addr: BASE, size: 64, line: BASE, sectors: 0b0011, lanes: ALL }]);
    // 2-byte accesses in the upper half of a line, lanes 0..15 only: 32 bytes at BASE+96
    expect(c.coalesce(addrs((l) => BASE + 96 + 2 * l), 0xffff, 2, StateSpace.Global, out)).toBe(1);
    expect(list(out)).toEqual([{ addr: BASE + 96, size: 32, line: BASE, sectors: 0b1000, lanes: 0xffff }]);
    // 1-byte accesses, one per 32-byte sector: 4 separate 32-byte segments
    expect(c.coalesce(addrs((l) => BASE + 32 * (l & 3)), ALL, 1, StateSpace.Global, out)).toBe(4);
    expect(list(out).map((t) => [t.addr - BASE, t.size, t.sectors, t.lanes])).toEqual([
      [0, 32, 1, 0x11111111],
      [32, 32, 2, 0x22222222],
      [64, 32, 4, 0x44444444],
      [96, 32, 8, 0x88888888],
    ]);
  });

  it('reduction: one half -> 64 B, one sector -> 32 B, sectors {1,2} stay 128 B', () => {
    // lanes 0..15, 4 B each: bytes 0..63 -> 64 B at BASE
    c.coalesce(addrs((l) => BASE + 4 * l), 0x0000ffff, 4, StateSpace.Global, out);
    expect(list(out)).toEqual([{ addr: BASE, size: 64, line: BASE, sectors: 0b0011, lanes: 0xffff }]);
    // lanes 16..31: bytes 64..127 -> 64 B at BASE+64
    c.coalesce(addrs((l) => BASE + 4 * l), 0xffff0000, 4, StateSpace.Global, out);
    expect(list(out)).toEqual([{ addr: BASE + 64, size: 64, line: BASE, sectors: 0b1100, lanes: 0xffff0000 }]);
    // lanes 24..31: bytes 96..127 -> 32 B at BASE+96
    c.coalesce(addrs((l) => BASE + 4 * l), 0xff000000, 4, StateSpace.Global, out);
    expect(list(out)).toEqual([{ addr: BASE + 96, size: 32, line: BASE, sectors: 0b1000, lanes: 0xff000000 }]);
    // lanes 8..23: bytes 32..95 -> sectors 1 and 2 are in different halves: 128 B
    c.coalesce(addrs((l) => BASE + 4 * l), 0x00ffff00, 4, StateSpace.Global, out);
    expect(list(out)).toEqual([{ addr: BASE, size: 128, line: BASE, sectors: 0b0110, lanes: 0x00ffff00 }]);
  });

  it('all lanes on one word: one 32-byte transaction for the whole warp', () => {
    expect(c.coalesce(addrs(() => BASE + 40), ALL, 4, StateSpace.Global, out)).toBe(1);
    expect(list(out)).toEqual([{ addr: BASE + 32, size: 32, line: BASE, sectors: 0b0010, lanes: ALL }]);
    expect(out.byteMask[1]).toBe(0xf00);
  });

  it('inactive lanes are ignored; an empty mask gives no transaction', () => {
    const a = addrs((l) => (l === 7 ? BASE + 8 : Number.NaN)); // inactive lanes hold garbage
    expect(c.coalesce(a, 1 << 7, 4, StateSpace.Global, out)).toBe(1);
    expect(list(out)).toEqual([{ addr: BASE, size: 32, line: BASE, sectors: 1, lanes: 0x80 }]);
    expect(c.coalesce(a, 0, 4, StateSpace.Global, out)).toBe(0);
  });

  it('local and generic accesses follow the global rules', () => {
    expect(c.coalesce(addrs((l) => BASE + 4 * l), ALL, 4, StateSpace.Local, out)).toBe(1);
    expect(c.coalesce(addrs((l) => BASE + 128 * l), ALL, 4, StateSpace.Generic, out)).toBe(32);
  });

  it('atomics: lanes hitting the same bytes get one transaction each, in lane order', () => {
    expect(c.coalesce(addrs(() => BASE), ALL, 4, StateSpace.Global, out, true)).toBe(32);
    const t = list(out);
    for (let l = 0; l < 32; l++) expect(t[l]).toEqual({ addr: BASE, size: 32, line: BASE, sectors: 1, lanes: 2 ** l });
    // distinct words in one line share a transaction even for atomics
    expect(c.coalesce(addrs((l) => BASE + 4 * l), ALL, 4, StateSpace.Global, out, true)).toBe(1);
    // two lanes per word: 2 transactions of 16 lanes
    expect(c.coalesce(addrs((l) => BASE + 4 * (l >> 1)), ALL, 4, StateSpace.Global, out, true)).toBe(2);
    expect(list(out).map((x) => [x.addr, x.size, x.lanes])).toEqual([
      [BASE, 64, 0x55555555],
      [BASE, 64, 0xaaaaaaaa],
    ]);
  });

  it('warpParts = 2 coalesces each half-warp separately', () => {
    const half = new Coalescer({ warpParts: 2 });
    expect(half.coalesce(addrs((l) => BASE + 4 * l), ALL, 4, StateSpace.Global, out)).toBe(2);
    expect(list(out)).toEqual([
      { addr: BASE, size: 64, line: BASE, sectors: 3, lanes: 0x0000ffff },
      { addr: BASE + 64, size: 64, line: BASE, sectors: 12, lanes: 0xffff0000 },
    ]);
    // both halves on the same word: one transaction per half
    expect(half.coalesce(addrs(() => BASE), ALL, 4, StateSpace.Global, out)).toBe(2);
  });

  it('const and param accesses are grouped by const line, no reduction', () => {
    // 64-byte const lines: lanes 0..15 read BASE, lanes 16..31 read BASE + 200
    expect(c.coalesce(addrs((l) => (l < 16 ? BASE : BASE + 200)), ALL, 4, StateSpace.Const, out)).toBe(2);
    expect(list(out)).toEqual([
      { addr: BASE, size: 64, line: BASE, sectors: 1, lanes: 0x0000ffff },
      { addr: BASE + 192, size: 64, line: BASE + 192, sectors: 1, lanes: 0xffff0000 },
    ]);
    expect(out.byteMask[4]).toBe(0xf00);
    expect(c.coalesce(addrs(() => 8), ALL, 4, StateSpace.Param, out)).toBe(1);
  });

  it('rejects shared memory, bad sizes and bad addresses with InputError', () => {
    const a = addrs((l) => 4 * l);
    expect(() => c.coalesce(a, ALL, 4, StateSpace.Shared, out)).toThrow(InputError);
    expect(() => c.coalesce(a, ALL, 0, StateSpace.Global, out)).toThrow(InputError);
    expect(() => c.coalesce(a, ALL, 64, StateSpace.Global, out)).toThrow(InputError);
    expect(() => c.coalesce(addrs(() => -4), ALL, 4, StateSpace.Global, out)).toThrow(/addrs\[0\]/);
    expect(() => new Coalescer({ warpParts: 3 })).toThrow(InputError);
  });
});

describe('Coalescer, sectored mode (Volta, -gpgpu_coalesce_arch >= 40)', () => {
  const c = new Coalescer({ mode: 'sectored' });
  const out = new CoalescedAccesses();

  it('32 lanes x 4 B: four 32-byte transactions, one sector each', () => {
    expect(c.coalesce(addrs((l) => BASE + 4 * l), ALL, 4, StateSpace.Global, out)).toBe(4);
    expect(list(out)).toEqual([
      { addr: BASE, size: 32, line: BASE, sectors: 1, lanes: 0x000000ff },
      { addr: BASE + 32, size: 32, line: BASE, sectors: 2, lanes: 0x0000ff00 },
      { addr: BASE + 64, size: 32, line: BASE, sectors: 4, lanes: 0x00ff0000 },
      { addr: BASE + 96, size: 32, line: BASE, sectors: 8, lanes: 0xff000000 },
    ]);
  });

  it('stride 128 B: 32 transactions; 16-byte consecutive: 16 sectors', () => {
    expect(c.coalesce(addrs((l) => BASE + 128 * l), ALL, 4, StateSpace.Global, out)).toBe(32);
    expect(c.coalesce(addrs((l) => BASE + 16 * l), ALL, 16, StateSpace.Global, out)).toBe(16);
    expect(out.laneMask[0]).toBe(0b11);
    expect(out.lineAddr[15]).toBe(BASE + 384);
    expect(out.sectorMask[15]).toBe(8);
  });
});

describe('Coalescer properties', () => {
  const sizes = [1, 2, 4, 8, 16] as const;
  const arb = fc.record({
    mode: fc.constantFrom('line' as const, 'sectored' as const),
    parts: fc.constantFrom(1, 2, 4),
    size: fc.constantFrom(...sizes),
    mask: fc.integer({ min: 0, max: 0xffffffff }),
    aligned: fc.boolean(),
    offs: fc.array(fc.integer({ min: 0, max: 1023 }), { minLength: 32, maxLength: 32 }),
  });

  it('transactions cover exactly the bytes the active lanes touch, and only their lanes', () => {
    const out = new CoalescedAccesses();
    fc.assert(
      fc.property(arb, ({ mode, parts, size, mask, aligned, offs }) => {
        const c = new Coalescer({ mode, warpParts: parts });
        const a = addrs((l) => BASE + (aligned ? offs[l]! - (offs[l]! % size) : offs[l]!));
        c.coalesce(a, mask, size, StateSpace.Global, out);
        // bytes touched per lane, by brute force
        const want = new Set<number>();
        for (let l = 0; l < 32; l++) if ((mask >>> l) & 1) for (let b = 0; b < size; b++) want.add(a[l]! + b);
        const got = new Set<number>();
        const lanesSeen = new Set<number>();
        for (let i = 0; i < out.count; i++) {
          const line = out.lineAddr[i]!;
          expect(line % 128).toBe(0);
          for (let b = 0; b < 128; b++) {
            if ((out.byteMask[4 * i + (b >> 5)]! >>> (b & 31)) & 1) {
              const x = line + b;
              expect(x >= out.addr[i]! && x < out.addr[i]! + out.size[i]!).toBe(true); // request covers its bytes
              expect((out.sectorMask[i]! >> (b >> 5)) & 1).toBe(1);
              got.add(x);
            }
          }
          const lanes = out.laneMask[i]!;
          expect((lanes & ~mask) >>> 0).toBe(0);
          for (let l = 0; l < 32; l++) if ((lanes >>> l) & 1) lanesSeen.add(l);
          if (mode === 'sectored') expect(out.size[i]).toBe(32);
          expect(out.addr[i]! % out.size[i]!).toBe(0);
        }
        expect([...got].sort((x, y) => x - y)).toEqual([...want].sort((x, y) => x - y));
        const active = [];
        for (let l = 0; l < 32; l++) if ((mask >>> l) & 1) active.push(l);
        expect([...lanesSeen].sort((x, y) => x - y)).toEqual(active);
      }),
      { numRuns: 300 },
    );
  });

  it('within a warp part, transactions are distinct segments in increasing order', () => {
    const out = new CoalescedAccesses();
    fc.assert(
      fc.property(arb, ({ mode, parts, size, mask, offs }) => {
        const c = new Coalescer({ mode, warpParts: parts });
        const a = addrs((l) => BASE + offs[l]! - (offs[l]! % size));
        c.coalesce(a, mask, size, StateSpace.Global, out);
        const seg = c.segmentBytes(size);
        const partLanes = 32 / parts;
        let prevPart = -1;
        let prevSeg = -1;
        for (let i = 0; i < out.count; i++) {
          const part = Math.floor((31 - Math.clz32(out.laneMask[i]!)) / partLanes);
          const s = out.addr[i]! - (out.addr[i]! % seg);
          if (part === prevPart) expect(s).toBeGreaterThan(prevSeg);
          else expect(part).toBeGreaterThan(prevPart);
          prevPart = part;
          prevSeg = s;
        }
      }),
      { numRuns: 300 },
    );
  });
});
