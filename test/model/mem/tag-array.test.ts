import { describe, expect, it } from 'vitest';
import { InputError, SimulationError } from '../../../src/errors.ts';
import { LineState, ProbeStatus, TagArray } from '../../../src/model/mem/tag-array.ts';

const L = 128;

/** Byte address of block `k` of a 1-set cache (every block maps to set 0). */
const blk = (k: number): number => k * L;

/** Accesses and fills `addr` so it ends up valid (onMiss allocation). */
function load(t: TagArray, addr: number): void {
  const s = t.access(addr);
  if (s === ProbeStatus.miss) expect(t.fill(addr)).toBeGreaterThanOrEqual(0);
}

describe('TagArray set index functions', () => {
  it('linear: consecutive lines go to consecutive sets', () => {
    const t = new TagArray({ sets: 4, ways: 1, lineBytes: L });
    expect([0, 0x80, 0x100, 0x180, 0x200, 0x27f].map((a) => t.setOf(a))).toEqual([0, 1, 2, 3, 0, 0]);
  });

  it('xor: the index XOR the next log2(sets) block bits', () => {
    const t = new TagArray({ sets: 4, ways: 1, lineBytes: L, setIndex: 'xor' });
    // block 4 (0x200): index 0 ^ higher 1 = 1; block 5: 1 ^ 1 = 0; block 12: 0 ^ 3 = 3; block 7: 3 ^ 1 = 2
    expect([0x200, 0x280, 0x600, 0x380].map((a) => t.setOf(a))).toEqual([1, 0, 3, 2]);
    // a stride of 4 lines camps on set 0 with linear indexing, spreads over all sets with xor
    const lin = new TagArray({ sets: 4, ways: 1, lineBytes: L });
    const stride = [0, 1, 2, 3].map((k) => k * 4 * L);
    expect(stride.map((a) => lin.setOf(a))).toEqual([0, 0, 0, 0]);
    expect(stride.map((a) => t.setOf(a))).toEqual([0, 1, 2, 3]);
  });

  it('fermiHash (GPGPU-Sim H): bits 7..11 XOR bits 13, 14, 15, 17, 19; bit 12 on top with 64 sets', () => {
    const t = new TagArray({ sets: 32, ways: 4, lineBytes: L, setIndex: 'fermiHash' });
    expect(t.setOf(0x80)).toBe(1); // bit 7
    expect(t.setOf(0x2000)).toBe(1); // bit 13 -> upper bit 0
    expect(t.setOf(0x2080)).toBe(0); // both
    expect(t.setOf(0x4000)).toBe(2); // bit 14
    expect(t.setOf(0x8000)).toBe(4); // bit 15
    expect(t.setOf(0x20000)).toBe(8); // bit 17
    expect(t.setOf(0x80000)).toBe(16); // bit 19
    expect(t.setOf(0x10000)).toBe(0); // bit 16 is not hashed and above the index
    expect(t.setOf(0x1000)).toBe(0); // bit 12 unused with 32 sets
    expect(t.setOf(0xf80 + 0xa000)).toBe(0x1f ^ 0b101);
    const t64 = new TagArray({ sets: 64, ways: 4, lineBytes: L, setIndex: 'fermiHash' });
    expect(t64.setOf(0x1000)).toBe(32);
    expect(t64.setOf(0x1000 + 0x2000 + 0x80)).toBe(32);
    // addresses above 2^32 use their low 32 bits for the hash
    expect(t.setOf(2 ** 40 + 0x2000)).toBe(1);
  });

  it('the full block address is the tag: xor-aliased blocks do not hit each other', () => {
    const t = new TagArray({ sets: 4, ways: 2, lineBytes: L, setIndex: 'xor' });
    load(t, 0x000); // block 0 -> set 0
    expect(t.setOf(0x280)).toBe(0); // block 5 -> set 0 too
    expect(t.probe(0x280)).toBe(ProbeStatus.miss);
    expect(t.probe(0x07f)).toBe(ProbeStatus.hit);
  });
});

describe('TagArray replacement', () => {
  it('LRU evicts the least recently used way; hits refresh recency', () => {
    const t = new TagArray({ sets: 1, ways: 4, lineBytes: L });
    for (const k of [0, 1, 2, 3]) load(t, blk(k));
    expect(t.access(blk(0))).toBe(ProbeStatus.hit); // order now 1, 2, 3, 0
    expect(t.access(blk(4))).toBe(ProbeStatus.miss);
    expect([t.victimValid, t.victimAddr, t.victimDirty]).toEqual([true, blk(1), false]);
    t.fill(blk(4));
    expect(t.access(blk(5))).toBe(ProbeStatus.miss);
    expect(t.victimAddr).toBe(blk(2));
    t.fill(blk(5));
    expect(t.access(blk(2))).toBe(ProbeStatus.miss);
    expect(t.victimAddr).toBe(blk(3));
    t.fill(blk(2));
    expect(t.access(blk(6))).toBe(ProbeStatus.miss);
    expect(t.victimAddr).toBe(blk(0));
  });

  it('FIFO evicts in allocation order regardless of hits', () => {
    const t = new TagArray({ sets: 1, ways: 4, lineBytes: L, replacement: 'fifo' });
    for (const k of [0, 1, 2, 3]) load(t, blk(k));
    expect(t.access(blk(0))).toBe(ProbeStatus.hit);
    expect(t.access(blk(4))).toBe(ProbeStatus.miss);
    expect(t.victimAddr).toBe(blk(0));
    t.fill(blk(4));
    expect(t.access(blk(5))).toBe(ProbeStatus.miss);
    expect(t.victimAddr).toBe(blk(1));
  });

  it('invalid ways are used before any eviction', () => {
    const t = new TagArray({ sets: 1, ways: 2, lineBytes: L });
    load(t, blk(0));
    expect(t.access(blk(1))).toBe(ProbeStatus.miss);
    expect(t.victimValid).toBe(false);
    expect(t.victimAddr).toBe(-1);
  });

  it('a modified victim is reported dirty', () => {
    const t = new TagArray({ sets: 1, ways: 1, lineBytes: L });
    load(t, blk(0));
    t.setModified(t.index);
    expect(t.access(blk(1))).toBe(ProbeStatus.miss);
    expect([t.victimValid, t.victimAddr, t.victimDirty]).toEqual([true, blk(0), true]);
  });
});

describe('TagArray line states and allocation', () => {
  it('allocate on miss: reserved until filled; probes see hitReserved, then hit', () => {
    const t = new TagArray({ sets: 2, ways: 2, lineBytes: L });
    expect(t.access(0x1234)).toBe(ProbeStatus.miss);
    const i = t.index;
    expect(t.state[i]).toBe(LineState.reserved);
    expect(t.lineAddr[i]).toBe(0x1200);
    expect(t.probe(0x1200 + 127)).toBe(ProbeStatus.hitReserved);
    expect(t.access(0x1200)).toBe(ProbeStatus.hitReserved);
    expect(t.fill(0x1200)).toBe(i);
    expect(t.state[i]).toBe(LineState.valid);
    expect(t.access(0x1201)).toBe(ProbeStatus.hit);
    expect([t.accesses, t.hits, t.pendingHits, t.misses, t.resFails]).toEqual([3, 1, 1, 1, 0]);
  });

  it('every way reserved: missNoLine, until a fill frees a way to evict', () => {
    const t = new TagArray({ sets: 1, ways: 2, lineBytes: L });
    t.access(blk(0));
    t.access(blk(1));
    expect(t.probe(blk(2))).toBe(ProbeStatus.missNoLine);
    expect(t.access(blk(2))).toBe(ProbeStatus.missNoLine);
    expect(t.index).toBe(-1);
    expect(t.resFails).toBe(1);
    expect(t.allocate(blk(2))).toBe(-1);
    t.fill(blk(0));
    expect(t.access(blk(2))).toBe(ProbeStatus.miss);
    expect(t.victimAddr).toBe(blk(0));
  });

  it('allocate on fill: misses reserve nothing; the fill installs the line valid and evicts then', () => {
    const t = new TagArray({ sets: 1, ways: 2, lineBytes: L, allocate: 'onFill' });
    expect(t.access(blk(0))).toBe(ProbeStatus.miss);
    expect(t.stateCounts()).toEqual([2, 0, 0, 0]);
    expect(t.access(blk(0))).toBe(ProbeStatus.miss); // still not present
    t.fill(blk(0));
    t.fill(blk(1));
    expect(t.victimValid).toBe(false);
    expect(t.stateCounts()).toEqual([0, 0, 2, 0]);
    t.access(blk(0)); // block 1 is now LRU
    expect(t.fill(blk(2))).toBeGreaterThanOrEqual(0);
    expect([t.victimValid, t.victimAddr]).toEqual([true, blk(1)]);
    expect(t.probe(blk(1))).toBe(ProbeStatus.miss);
    expect(t.probe(blk(2))).toBe(ProbeStatus.hit);
  });

  it('allocate() reserves a way and reports its victim; allocating a present block is a bug', () => {
    const t = new TagArray({ sets: 1, ways: 1, lineBytes: L });
    load(t, blk(0));
    expect(t.allocate(blk(1))).toBe(0);
    expect([t.victimValid, t.victimAddr]).toEqual([true, blk(0)]);
    expect(t.state[0]).toBe(LineState.reserved);
    expect(() => t.allocate(blk(1))).toThrow(SimulationError);
  });

  it('invalidate returns the previous state; invalidateAll empties the array', () => {
    const t = new TagArray({ sets: 2, ways: 2, lineBytes: L });
    load(t, 0);
    t.setModified(t.index);
    load(t, 0x80);
    expect(t.invalidate(0)).toBe(LineState.modified);
    expect(t.invalidate(0)).toBe(LineState.invalid);
    expect(t.probe(0)).toBe(ProbeStatus.miss);
    expect(t.probe(0x80)).toBe(ProbeStatus.hit);
    t.invalidateAll();
    expect(t.stateCounts()).toEqual([4, 0, 0, 0]);
  });

  it('fill of a block with no reserved line (onMiss) returns -1', () => {
    const t = new TagArray({ sets: 1, ways: 2, lineBytes: L });
    expect(t.fill(blk(3))).toBe(-1);
  });

  it('rejects bad parameters with InputError naming the field', () => {
    expect(() => new TagArray({ sets: 3, ways: 1, lineBytes: L })).toThrow(/sets/);
    expect(() => new TagArray({ sets: 4, ways: 0, lineBytes: L })).toThrow(/ways/);
    expect(() => new TagArray({ sets: 4, ways: 1, lineBytes: 100 })).toThrow(/lineBytes/);
    expect(() => new TagArray({ sets: 16, ways: 1, lineBytes: L, setIndex: 'fermiHash' })).toThrow(InputError);
    expect(() => new TagArray({ sets: 4, ways: 1, lineBytes: L, replacement: 'random' as never })).toThrow(/replacement/);
  });
});
