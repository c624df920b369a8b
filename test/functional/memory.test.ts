import { describe, it, expect } from 'vitest';
import { GlobalMemory, MemoryAccessFault, GLOBAL_HEAP_BASE, PAGE_BYTES } from '../../src/functional/index.ts';

describe('GlobalMemory', () => {
  it('allocates aligned, non-overlapping, never-reused ranges above the null region', () => {
    const m = new GlobalMemory();
    const a = m.allocate(100);
    const b = m.allocate(10, 4096, 'b');
    const c = m.allocate(1);
    expect(a).toBeGreaterThanOrEqual(GLOBAL_HEAP_BASE);
    expect(a % 256).toBe(0);
    expect(b % 4096).toBe(0);
    expect(b).toBeGreaterThan(a + 100);
    expect(c).toBeGreaterThan(b + 10);
    expect(m.findAllocation(b + 9)!.label).toBe('b');
    expect(m.findAllocation(b + 9, 2)).toBeUndefined(); // would run past the end
    expect(m.findAllocation(a + 100)).toBeUndefined(); // the gap after a
    expect(() => m.allocate(0)).toThrow(RangeError);
    expect(() => m.allocate(8, 3)).toThrow(RangeError);
  });

  it('is sparse: a huge allocation costs nothing until touched, and reads back zeros', () => {
    const m = new GlobalMemory();
    const big = m.allocate(2 ** 36); // 64 GiB
    const data = new Uint8Array([1, 2, 3, 4, 5]);
    m.write(big + 2 ** 35 - 2, data); // straddles a page boundary
    expect(Array.from(m.read(big + 2 ** 35 - 4, 9))).toEqual([0, 0, 1, 2, 3, 4, 5, 0, 0]);
    expect((big + 2 ** 35) % PAGE_BYTES).toBe(0);
  });

  it('round-trips typed data little-endian', () => {
    const m = new GlobalMemory();
    const f = new Float32Array([1.5, -2, 3.25]);
    const p = m.upload(f);
    expect(Array.from(m.readF32(p, 3))).toEqual([1.5, -2, 3.25]);
    expect(Array.from(m.read(p, 4))).toEqual([0, 0, 0xc0, 0x3f]); // 1.5f = 0x3fc00000
    m.writeU(p + 4, 2, 0xbeef);
    expect(m.readU(p + 4, 2)).toBe(0xbeef);
    expect(m.readU(p + 4, 1)).toBe(0xef);
    const q = m.upload(new Float64Array([Math.PI]));
    expect(m.readF64(q, 1)[0]).toBe(Math.PI);
  });

  it('faults outside allocations and on misaligned accesses', () => {
    const m = new GlobalMemory();
    const p = m.allocate(16);
    expect(() => m.readU(p + 16, 4)).toThrow(MemoryAccessFault);
    expect(() => m.readU(0, 4)).toThrow(/out-of-bounds 4-byte global access at 0x0/);
    expect(() => m.readU(p + 2, 4)).toThrow(/misaligned/);
    expect(() => m.write(p + 10, new Uint8Array(8))).toThrow(MemoryAccessFault);
    expect(() => m.read(p - 1, 2)).toThrow(MemoryAccessFault);
    try {
      m.readU(p + 64, 4);
    } catch (e) {
      expect(e).toMatchObject({ space: 'global', address: p + 64, size: 4, reason: 'out-of-bounds' });
    }
  });
});

describe('GlobalMemory robustness', () => {
  it('a NaN or huge address faults instead of touching memory', () => {
    const m = new GlobalMemory();
    const p = m.allocate(64);
    m.readU(p, 4); // primes the allocation cache
    expect(() => m.readU(NaN, 4)).toThrow(MemoryAccessFault);
    expect(() => m.readU(2 ** 60, 4)).toThrow(MemoryAccessFault);
  });
});
