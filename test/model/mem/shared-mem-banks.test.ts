import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../../src/errors.ts';
import { SharedMemBanks } from '../../../src/model/mem/shared-mem-banks.ts';

const ALL = 0xffffffff;

function addrs(f: (lane: number) => number): Float64Array {
  const a = new Float64Array(32);
  for (let l = 0; l < 32; l++) a[l] = f(l);
  return a;
}

describe('SharedMemBanks, 32 banks x 4 bytes (Fermi)', () => {
  const sm = new SharedMemBanks({ banks: 32, bankWidthBytes: 4 });

  it('word strides: 1 -> 1 cycle, 2 -> 2, 4 -> 4, 32 -> 32, odd stride 3 -> 1', () => {
    expect(sm.conflictCycles(addrs((l) => 4 * l), ALL, 4)).toBe(1);
    expect(sm.conflictCycles(addrs((l) => 8 * l), ALL, 4)).toBe(2);
    expect(sm.conflictCycles(addrs((l) => 16 * l), ALL, 4)).toBe(4);
    expect(sm.conflictCycles(addrs((l) => 128 * l), ALL, 4)).toBe(32);
    expect(sm.lastWorstBank).toBe(0);
    expect(sm.conflictCycles(addrs((l) => 12 * l), ALL, 4)).toBe(1);
  });

  it('all lanes on the same word: one broadcast cycle', () => {
    expect(sm.conflictCycles(addrs(() => 260), ALL, 4)).toBe(1);
    // sub-word accesses to one word broadcast too (bytes 0..3 of word 5)
    expect(sm.conflictCycles(addrs((l) => 20 + (l & 3)), ALL, 1)).toBe(1);
  });

  it('two words of the same bank, 16 lanes each: 2 cycles', () => {
    expect(sm.conflictCycles(addrs((l) => (l < 16 ? 0 : 128)), ALL, 4)).toBe(2);
  });

  it('8-byte and 16-byte accesses touch 2 and 4 words per lane', () => {
    // 32 lanes x 8 B consecutive: words 0..63, 2 per bank
    expect(sm.conflictCycles(addrs((l) => 8 * l), ALL, 8)).toBe(2);
    // 32 lanes x 16 B consecutive: words 0..127, 4 per bank
    expect(sm.conflictCycles(addrs((l) => 16 * l), ALL, 16)).toBe(4);
    // 16 lanes x 8 B consecutive (half warp): 32 words, one per bank
    expect(sm.conflictCycles(addrs((l) => 8 * l), 0xffff, 8)).toBe(1);
    // 8 B at stride 16 B: lane l touches words 4l and 4l+1; banks 4l mod 32 and +1 get lanes l, l+8, l+16, l+24
    expect(sm.conflictCycles(addrs((l) => 16 * l), ALL, 8)).toBe(4);
  });

  it('inactive lanes do not conflict; no active lane takes 0 cycles', () => {
    // stride 32 words but only lanes 0 and 5 active: 2 distinct words in bank 0
    expect(sm.conflictCycles(addrs((l) => 128 * l), 0b100001, 4)).toBe(2);
    expect(sm.conflictCycles(addrs((l) => 128 * l), 0, 4)).toBe(0);
    expect(sm.lastWorstBank).toBe(-1);
  });

  it('bankOf maps words round-robin to banks', () => {
    expect(sm.bankOf(0)).toBe(0);
    expect(sm.bankOf(7)).toBe(1);
    expect(sm.bankOf(124)).toBe(31);
    expect(sm.bankOf(128)).toBe(0);
  });

  it('rejects bad sizes, addresses and parameters', () => {
    expect(() => sm.conflictCycles(addrs((l) => 4 * l), ALL, 0)).toThrow(InputError);
    expect(() => sm.conflictCycles(addrs(() => -1), ALL, 4)).toThrow(InputError);
    expect(() => new SharedMemBanks({ banks: 32, bankWidthBytes: 3 })).toThrow(/bankWidthBytes/);
    expect(() => new SharedMemBanks({ banks: 0, bankWidthBytes: 4 })).toThrow(/banks/);
  });
});

describe('SharedMemBanks options', () => {
  it('limited broadcast: only one word broadcasts, the other word of the bank counts per lane', () => {
    const sm = new SharedMemBanks({ banks: 32, bankWidthBytes: 4, limitedBroadcast: true });
    // bank 0: word 0 read by 16 lanes (broadcast, 1 access) + word 32 read by 16 lanes (16 accesses)
    expect(sm.conflictCycles(addrs((l) => (l < 16 ? 0 : 128)), ALL, 4)).toBe(17);
    expect(sm.conflictCycles(addrs(() => 0), ALL, 4)).toBe(1);
    expect(sm.conflictCycles(addrs((l) => 4 * l), ALL, 4)).toBe(1);
    expect(sm.conflictCycles(addrs((l) => 128 * l), ALL, 4)).toBe(32);
    // lanes 0..7 read word 0 (bank 0), lanes 8..31 word 1 (bank 1): the broadcast goes to bank 0
    // (lowest bank), so bank 1 serves its 24 lanes one by one
    expect(sm.conflictCycles(addrs((l) => (l < 8 ? 0 : 4)), ALL, 4)).toBe(24);
  });

  it('warp parts add up: half-warps take a cycle each', () => {
    const sm = new SharedMemBanks({ banks: 32, bankWidthBytes: 4, warpParts: 2 });
    expect(sm.conflictCycles(addrs((l) => 4 * l), ALL, 4)).toBe(2);
    expect(sm.conflictCycles(addrs((l) => 4 * l), 0xffff, 4)).toBe(1);
    // each half sees all 32 banks: stride 2 words -> 1 + 1; stride 4 words -> 2 per bank in each half -> 2 + 2
    expect(sm.conflictCycles(addrs((l) => 8 * l), ALL, 4)).toBe(2);
    expect(sm.conflictCycles(addrs((l) => 16 * l), ALL, 4)).toBe(4);
  });

  it('8-byte banks (Kepler 8-byte mode): 32 lanes x 8 B consecutive is conflict-free', () => {
    const sm = new SharedMemBanks({ banks: 32, bankWidthBytes: 8 });
    expect(sm.conflictCycles(addrs((l) => 8 * l), ALL, 8)).toBe(1);
    expect(sm.conflictCycles(addrs((l) => 4 * l), ALL, 4)).toBe(1);
    expect(sm.conflictCycles(addrs((l) => 16 * l), ALL, 8)).toBe(2);
  });

  it('matches a brute-force count of distinct words per bank', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 4095 }), { minLength: 32, maxLength: 32 }),
        fc.integer({ min: 0, max: 0xffffffff }),
        fc.constantFrom(1, 2, 4, 8, 16),
        fc.constantFrom(4, 8),
        (offs, mask, size, width) => {
          const sm = new SharedMemBanks({ banks: 32, bankWidthBytes: width });
          const a = addrs((l) => offs[l]! - (offs[l]! % size));
          const perBank = new Map<number, Set<number>>();
          for (let l = 0; l < 32; l++) {
            if (!((mask >>> l) & 1)) continue;
            for (let b = 0; b < size; b++) {
              const word = Math.floor((a[l]! + b) / width);
              const bank = word % 32;
              if (!perBank.has(bank)) perBank.set(bank, new Set());
              perBank.get(bank)!.add(word);
            }
          }
          let want = 0;
          for (const s of perBank.values()) want = Math.max(want, s.size);
          expect(sm.conflictCycles(a, mask, size)).toBe(want);
        },
      ),
      { numRuns: 300 },
    );
  });
});
