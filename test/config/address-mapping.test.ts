import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatAddressMapping, parseAddressMapping, resolveAddressMapping } from '../../src/config/address-mapping.ts';
import { InputError } from '../../src/errors.ts';

const range = (lo: number, hi: number): number[] => Array.from({ length: hi - lo + 1 }, (_, i) => lo + i);

describe('parseAddressMapping', () => {
  it('decodes the GTX480 mapping into bit positions (least significant first)', () => {
    // ...0000RRRR.RRRRRRRR.BBBCCCCB.CCSSSSSS: bits 27..16 row, 15..13 and 8 bank, 12..9 and 7..6
    // column, 5..0 burst (burst bits also count as column).
    const m = parseAddressMapping('dramid@8;00000000.00000000.00000000.00000000.0000RRRR.RRRRRRRR.BBBCCCCB.CCSSSSSS');
    expect(m).toEqual({
      dramIdStartBit: 8,
      channelBits: [],
      bankBits: [8, 13, 14, 15],
      rowBits: range(16, 27),
      columnBits: [...range(0, 7), 9, 10, 11, 12],
      burstBits: range(0, 5),
    });
  });

  it('decodes the Volta HBM mapping RBBBCCCB.CCCSSSSS', () => {
    const m = parseAddressMapping('dramid@8;00000000.00000000.00000000.00000000.0000RRRR.RRRRRRRR.RBBBCCCB.CCCSSSSS');
    expect(m.bankBits).toEqual([8, 12, 13, 14]);
    expect(m.rowBits).toEqual(range(15, 27));
    expect(m.burstBits).toEqual(range(0, 4));
    expect(m.columnBits).toEqual([...range(0, 7), 9, 10, 11]);
  });

  it('reads explicit D channel bits without a dramid@ prefix, and lower-case letters', () => {
    const m = parseAddressMapping('00000000 00000000 00000000 00000000 0000rrrr rrrrrrrr bbbbDDDc ccssssss');
    expect(m.dramIdStartBit).toBeNull();
    expect(m.channelBits).toEqual([9, 10, 11]);
    expect(m.bankBits).toEqual([12, 13, 14, 15]);
    expect(m.columnBits).toEqual(range(0, 8));
  });

  it('formats back to the same string', () => {
    const s = 'dramid@8;00000000.00000000.00000000.00000000.0000RRRR.RRRRRRRR.RBBBCCCC.BCCSSSSS';
    expect(formatAddressMapping(parseAddressMapping(s))).toBe(s);
  });

  it('round-trips any assignment of the 64 bits (property)', () => {
    const letters = fc.array(fc.constantFrom('0', 'B', 'R', 'C', 'S', 'D'), { minLength: 64, maxLength: 64 });
    fc.assert(
      fc.property(letters, (chars) => {
        const text = chars.join('');
        const m = parseAddressMapping(text);
        expect(parseAddressMapping(formatAddressMapping(m))).toEqual(m);
        expect(m.channelBits.length + m.bankBits.length + m.rowBits.length + m.columnBits.length).toBe(chars.filter((c) => c !== '0').length);
      }),
      { numRuns: 200 },
    );
  });

  it('rejects bad characters, wrong lengths and D bits with dramid@', () => {
    const cases: [string, RegExp][] = [
      ['dramid@8;00000000.00000000.00000000.00000000.0000RRRR.RRRRRRRR.BBBCCCCB.CCSSSSSX', /unknown character 'X'/],
      ['dramid@8;0000RRRR.RRRRRRRR.BBBCCCCB.CCSSSSSS', /32 bits, expected 64/],
      ['dramid@8;00000000.00000000.00000000.00000000.0000RRRR.RRRRRRRR.BBBCCCCB.CCSSSSSS0', /longer than 64/],
      ['dramid@8;00000000.00000000.00000000.00000000.0000RRRR.RRRRRRRR.BBBDDDDB.CCSSSSSS', /'D' bits cannot be combined/],
      ['dramid@x;00000000', /dramid@<bit>/],
    ];
    for (const [text, re] of cases) {
      expect(() => parseAddressMapping(text, { file: 'f.config', line: 3 }, '-gpgpu_mem_addr_mapping')).toThrow(re);
      expect(() => parseAddressMapping(text)).toThrow(InputError);
    }
  });
});

describe('resolveAddressMapping', () => {
  it('inserts log2(channels) channel bits at dramid@ for a power-of-two channel count', () => {
    const m = parseAddressMapping('dramid@8;00000000.00000000.00000000.00000000.0000RRRR.RRRRRRRR.RBBBCCCB.CCCSSSSS');
    const r = resolveAddressMapping(m, 32); // QV100: 32 channels -> 5 bits at 8..12
    expect(r.kind).toBe('bits');
    if (r.kind !== 'bits') return;
    expect(r.channelBits).toEqual([8, 9, 10, 11, 12]);
    expect(r.bankBits).toEqual([13, 17, 18, 19]); // 8 -> 13, 12..14 -> 17..19
    expect(r.rowBits).toEqual(range(20, 32));
    expect(r.columnBits).toEqual([...range(0, 7), 14, 15, 16]);
    expect(r.burstBits).toEqual(range(0, 4));
  });

  it("uses GPGPU-Sim's modulo ('gap') mode for 6 or 11 channels", () => {
    const m = parseAddressMapping('dramid@8;00000000.00000000.00000000.00000000.0000RRRR.RRRRRRRR.BBBCCCCB.CCSSSSSS');
    expect(resolveAddressMapping(m, 6)).toEqual({
      kind: 'modulo',
      startBit: 8,
      channels: 6,
      bankBits: m.bankBits,
      rowBits: m.rowBits,
      columnBits: m.columnBits,
      burstBits: m.burstBits,
    });
  });

  it('keeps explicit D bits as they are', () => {
    const m = parseAddressMapping('00000000.00000000.00000000.00000000.0000RRRR.RRRRRRRR.BBBBDDDC.CCSSSSSS');
    const r = resolveAddressMapping(m, 8);
    expect(r).toMatchObject({ kind: 'bits', channelBits: [9, 10, 11] });
  });
});
