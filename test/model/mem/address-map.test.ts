import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../../src/errors.ts';
import { AddressMap, DecodedAddress, parseAddressMapping } from '../../../src/model/mem/address-map.ts';

/** From data/gpgpusim-configs/tested-cfgs/SM2_GTX480/gpgpusim.config. */
const GTX480_MAP = 'dramid@8;00000000.00000000.00000000.00000000.0000RRRR.RRRRRRRR.BBBCCCCB.CCSSSSSS';
/** The variant quoted in the task (bank bits 7, 12..14). */
const ALT_MAP = 'dramid@8;00000000.00000000.00000000.00000000.0000RRRR.RRRRRRRR.RBBBCCCC.BCCSSSSS';

const range = (lo: number, hi: number): number[] => Array.from({ length: hi - lo + 1 }, (_, i) => lo + i);

function dec(m: AddressMap, addr: number): Record<string, number> {
  const d = m.decode(addr);
  return { partition: d.partition, subPartition: d.subPartition, bank: d.bank, row: d.row, column: d.column, burst: d.burst };
}

describe('parseAddressMapping', () => {
  it('GTX480: row bits 16..27, bank bits 8,13,14,15, column bits 0..7 and 9..12, burst 0..5', () => {
    const m = parseAddressMapping(GTX480_MAP);
    expect(m.channelStart).toBe(8);
    expect(m.channelBits).toEqual([]);
    expect(m.rowBits).toEqual(range(16, 27));
    expect(m.bankBits).toEqual([8, 13, 14, 15]);
    expect(m.columnBits).toEqual([...range(0, 7), ...range(9, 12)]);
    expect(m.burstBits).toEqual(range(0, 5));
  });

  it('explicit D bits, no dramid@', () => {
    const m = parseAddressMapping('00000000 00000000 00000000 00000000 0000RRRR RRRRRRRR BBBBCCCC DDDSSSSS');
    expect(m.channelStart).toBe(-1);
    expect(m.channelBits).toEqual([5, 6, 7]);
    expect(m.bankBits).toEqual([12, 13, 14, 15]);
  });

  it('rejects bad characters, wrong lengths, D with dramid@, and bad dramid values', () => {
    expect(() => parseAddressMapping(GTX480_MAP.replace('RRRR.', 'RRXR.'))).toThrow(/unknown character 'X'/);
    expect(() => parseAddressMapping(GTX480_MAP.slice(0, -1))).toThrow(/mask has 63 bits, expected 64/);
    expect(() => parseAddressMapping(GTX480_MAP + '0')).toThrow(/mask longer than 64 bits/);
    expect(() => parseAddressMapping(GTX480_MAP.replace('CCSSSSSS', 'DCSSSSSS'))).toThrow(/cannot be combined/);
    expect(() => parseAddressMapping('dramid@x;' + GTX480_MAP.slice(9))).toThrow(InputError);
    const e = (() => {
      try {
        parseAddressMapping('Q', { file: 'gtx480.config', line: 104 });
      } catch (x) {
        return x as InputError;
      }
      return undefined;
    })();
    expect(e).toBeInstanceOf(InputError);
    expect(e!.message).toMatch(/^gtx480\.config:104: -gpgpu_mem_addr_mapping: /);
  });
});

describe('AddressMap, GTX480 (6 channels: dramid@8 by modulo, 2 sub-partitions)', () => {
  const m = new AddressMap({ mapping: GTX480_MAP, channels: 6, subPartitionsPerChannel: 2 });

  it('consecutive 256-byte chunks rotate over the 6 channels', () => {
    expect([0, 0x100, 0x200, 0x300, 0x400, 0x500, 0x600].map((a) => m.decode(a).partition)).toEqual([0, 1, 2, 3, 4, 5, 0]);
    expect(dec(m, 0)).toEqual({ partition: 0, subPartition: 0, bank: 0, row: 0, column: 0, burst: 0 });
    expect(dec(m, 0x100)).toEqual({ partition: 1, subPartition: 2, bank: 0, row: 0, column: 0, burst: 0 });
  });

  it('the low 8 bits are column and burst', () => {
    expect(dec(m, 0x5ff)).toEqual({ partition: 5, subPartition: 10, bank: 0, row: 0, column: 255, burst: 63 });
    expect(dec(m, 0x541)).toEqual({ partition: 5, subPartition: 10, bank: 0, row: 0, column: 0x41, burst: 1 });
  });

  it('the second round of channels starts bank 1 (rest-address bit 8), i.e. sub-partition 1', () => {
    // 0x600 = 6 x 256: channel 0, rest address 0x100
    expect(dec(m, 0x600)).toEqual({ partition: 0, subPartition: 1, bank: 1, row: 0, column: 0, burst: 0 });
  });

  it('bank bits 13..15 and row bits of the rest address', () => {
    // rest 0xE100 (bits 8, 13, 14, 15) in channel 2: addr = (0xE1 x 6 + 2) x 256
    expect(dec(m, (0xe1 * 6 + 2) * 256)).toEqual({ partition: 2, subPartition: 5, bank: 15, row: 0, column: 0, burst: 0 });
    // rest 0x10000 (row 1) in channel 3: addr = (0x100 x 6 + 3) x 256
    expect(dec(m, (0x100 * 6 + 3) * 256)).toEqual({ partition: 3, subPartition: 6, bank: 0, row: 1, column: 0, burst: 0 });
    // rest 0x1E00 (column bits 9..12 -> column bits 8..11) in channel 4
    expect(dec(m, (0x1e * 6 + 4) * 256)).toEqual({ partition: 4, subPartition: 8, bank: 0, row: 0, column: 0xf00, burst: 0 });
    // row 0xABC with bank 5 (bits 8 and 14) and column 3, channel 1
    const rest = 0xabc * 0x10000 + 0x4000 + 0x100 + 3;
    const q = Math.floor(rest / 256);
    expect(dec(m, (q * 6 + 1) * 256 + 3)).toEqual({ partition: 1, subPartition: 3, bank: 5, row: 0xabc, column: 3, burst: 3 });
  });

  it('partitionAddress removes the channel and the sub-partition bit', () => {
    expect(m.partitionAddress(0x600)).toBe(0);
    expect(m.partitionAddress(0x6ff)).toBe(0xff);
    expect(m.partitionAddress((0x100 * 6 + 3) * 256)).toBe(0x8000); // rest 0x10000 without bit 8
    expect(m.partitionAddress(0xc00)).toBe(0x100); // rest 0x200 -> 0x100
  });

  it('no two addresses of a range alias to the same location', () => {
    const seen = new Set<string>();
    for (let a = 0; a < 6 * 1024 * 128; a += 32) {
      const d = m.decode(a);
      const k = `${d.partition}.${d.bank}.${d.row}.${d.column}`;
      expect(seen.has(k)).toBe(false);
      seen.add(k);
    }
  });

  it('decode reuses one object unless given another', () => {
    const a = m.decode(0x100);
    const b = m.decode(0x200);
    expect(a).toBe(b);
    const own = new DecodedAddress();
    expect(m.decode(0x300, own)).toBe(own);
    expect(own.partition).toBe(3);
    expect(b.partition).toBe(2);
  });
});

/**
 * GPGPU-Sim's own method for a power-of-two channel count, written with BigInt: shift every
 * mask bit at or above S up by log2(channels), take the channel from bits [S, S + log2 n).
 */
function reference(mapping: string, channels: number, sub: number, addr: number): Record<string, number> {
  const p = parseAddressMapping(mapping);
  const k = BigInt(Math.log2(channels));
  const S = BigInt(p.channelStart);
  const shift = (bits: readonly number[]): bigint[] => bits.map((b) => (BigInt(b) >= S ? BigInt(b) + k : BigInt(b)));
  const a = BigInt(addr);
  const pack = (bits: bigint[]): number => {
    let v = 0n;
    bits.forEach((b, i) => (v |= ((a >> b) & 1n) << BigInt(i)));
    return Number(v);
  };
  const chip = Number((a >> S) & ((1n << k) - 1n));
  const bank = pack(shift(p.bankBits));
  return {
    partition: chip,
    subPartition: chip * sub + (bank % sub),
    bank,
    row: pack(shift(p.rowBits)),
    column: pack(shift(p.columnBits)),
    burst: pack(shift(p.burstBits)),
  };
}

describe('AddressMap, power-of-two channels', () => {
  const m8 = new AddressMap({ mapping: ALT_MAP, channels: 8, subPartitionsPerChannel: 2 });

  it('8 channels: channel from bits 8..10, the mapping read with those bits removed', () => {
    expect(dec(m8, 0x700)).toEqual({ partition: 7, subPartition: 14, bank: 0, row: 0, column: 0, burst: 0 });
    expect(dec(m8, 0x80)).toEqual({ partition: 0, subPartition: 1, bank: 1, row: 0, column: 0, burst: 0 });
    expect(dec(m8, 0x800)).toEqual({ partition: 0, subPartition: 0, bank: 0, row: 0, column: 128, burst: 0 });
    expect(dec(m8, 0x40500)).toEqual({ partition: 5, subPartition: 10, bank: 0, row: 1, column: 0, burst: 0 });
    expect(m8.partitionAddress(0x40580)).toBe(0x4000); // rest 0x8080, bank bit 7 removed
  });

  it('agrees with GPGPU-Sim shifted masks (BigInt reference) on random addresses, including above 2^32', () => {
    for (const [mapping, channels, sub] of [
      [ALT_MAP, 8, 2],
      [GTX480_MAP, 4, 2],
      [GTX480_MAP, 16, 1],
      [ALT_MAP, 1, 1],
    ] as const) {
      const m = new AddressMap({ mapping, channels, subPartitionsPerChannel: sub });
      fc.assert(
        fc.property(fc.integer({ min: 0, max: 2 ** 40 }), (addr) => {
          expect(dec(m, addr)).toEqual(reference(mapping, channels, sub, addr));
        }),
        { numRuns: 300 },
      );
    }
  });

  it('explicit D bits select the channel directly', () => {
    const m = new AddressMap({ mapping: '00000000.00000000.00000000.00000000.0000RRRR.RRRRRRRR.BBBBCCCC.DDDSSSSS', channels: 8 });
    expect(dec(m, 0xe0)).toEqual({ partition: 7, subPartition: 7, bank: 0, row: 0, column: 0, burst: 0 });
    expect(dec(m, 0x3000 + 0x40 + 0x1f)).toEqual({ partition: 2, subPartition: 2, bank: 3, row: 0, column: 0x1f, burst: 0x1f });
    expect(m.partitionAddress(0xff)).toBe(0x1f);
  });

  it('xor partition indexing flips the channel with the bits above channel and sub-partition', () => {
    const m = new AddressMap({ mapping: ALT_MAP, channels: 8, subPartitionsPerChannel: 2, partitionIndexing: 'xor' });
    // 0x1000: channel bits 8..10 are 0, bit 12 (first bit above 8 + 3 + 1) is 1 -> channel 1
    expect(m.decode(0x1000).partition).toBe(1);
    expect(m.decode(0x1300).partition).toBe(2); // 3 ^ 1
    expect(m.decode(0x300).partition).toBe(3);
  });

  it('xor bank indexing hashes the bank with the low row bits', () => {
    const m = new AddressMap({ mapping: ALT_MAP, channels: 8, subPartitionsPerChannel: 2, bankIndexing: 'xor', banks: 16 });
    // rest 0x8000 = row 1, bank 0 -> bank 0 ^ 1 = 1; sub-partition from the unhashed bank 0
    const d = m.decode(0x40500);
    expect([d.row, d.bank, d.subPartition]).toEqual([1, 1, 10]);
  });

  it('rejects inconsistent parameters', () => {
    expect(() => new AddressMap({ mapping: ALT_MAP, channels: 6, partitionIndexing: 'xor' })).toThrow(/partitionIndexing/);
    expect(() => new AddressMap({ mapping: ALT_MAP, channels: 8, subPartitionsPerChannel: 3 })).toThrow(/subPartitionsPerChannel/);
    expect(() => new AddressMap({ mapping: ALT_MAP, channels: 8, bankIndexing: 'xor' })).toThrow(/banks/);
    expect(() => new AddressMap({ mapping: '00000000.00000000.00000000.00000000.0000RRRR.RRRRRRRR.BBBBCCCC.0DDSSSSS', channels: 8 })).toThrow(InputError);
    expect(() => new AddressMap({ mapping: ALT_MAP, channels: 0 })).toThrow(/channels/);
  });
});

describe('AddressMap from a parsed mapping', () => {
  it('accepts the GPU config spelling (dramIdStartBit, any bit order) and decodes like the string', () => {
    const p = parseAddressMapping(GTX480_MAP);
    const m = new AddressMap({
      mapping: { dramIdStartBit: 8, channelBits: [], bankBits: [15, 14, 13, 8], rowBits: [...p.rowBits].reverse(), columnBits: p.columnBits, burstBits: p.burstBits },
      channels: 6,
      subPartitionsPerChannel: 2,
    });
    const s = new AddressMap({ mapping: GTX480_MAP, channels: 6, subPartitionsPerChannel: 2 });
    for (const a of [0, 0x100, 0x5ff, 0x600, (0xe1 * 6 + 2) * 256, 123456789]) expect(dec(m, a)).toEqual(dec(s, a));
    expect(() => new AddressMap({ mapping: { ...p, bankBits: [64] }, channels: 6 })).toThrow(/outside 0\.\.63/);
    expect(() => new AddressMap({ mapping: { ...p, channelBits: [30] }, channels: 6 })).toThrow(/cannot be combined/);
  });
});
