/**
 * GPGPU-Sim's DRAM address mapping string (`-gpgpu_mem_addr_mapping`), e.g.
 *
 * ```
 * dramid@8;00000000.00000000.00000000.00000000.0000RRRR.RRRRRRRR.BBBCCCCB.CCSSSSSS
 * ```
 *
 * Semantics (GPGPU-Sim addrdec.cc, `addrdec_parseoption` and `init`):
 * - An optional `dramid@<bit>;` prefix says the channel (memory partition) id is taken at address
 *   bit `<bit>`: for a power-of-two channel count, log2(channels) bits are inserted there and every
 *   bank/row/column bit at or above `<bit>` moves up by that many positions; for other counts the
 *   address above `<bit>` is divided by the channel count and the remainder is the channel
 *   ("gap" mode). Without the prefix the channel id is the `D` bits.
 * - The rest is a 64-character mask, most significant bit first: `D` channel, `B` bank, `R` row,
 *   `C` column, `S` burst (byte within a burst; also counted as column), `0` unused.
 *   `.`, `|` and spaces are separators. Letters may be lower case.
 *
 * {@link parseAddressMapping} returns the bit positions of each field, least significant first,
 * as written (before the channel insertion); {@link resolveAddressMapping} applies the insertion.
 */
import { InputError, type SourceLocation } from '../errors.ts';
import type { AddressMapping } from './schema.ts';

/**
 * Parses a GPGPU-Sim address mapping string (format in the module comment).
 * @param where file/line for errors (default `<address-mapping>`)
 * @param field option name for errors
 * @throws InputError for an unknown character, a mask that is not 64 bits long, a malformed
 *   `dramid@` prefix, or `D` bits together with `dramid@`
 */
export function parseAddressMapping(
  text: string,
  where: SourceLocation = { file: '<address-mapping>' },
  field?: string,
): AddressMapping {
  let s = text.trim();
  let dramIdStartBit: number | null = null;
  const fail = (reason: string): never => {
    throw new InputError(where, `${reason} in address mapping '${text.trim()}'`, field);
  };
  if (s.startsWith('dramid@')) {
    const m = /^dramid@(\d+)\s*;(.*)$/s.exec(s);
    if (!m) return fail("expected 'dramid@<bit>;<mask>'");
    dramIdStartBit = Number(m[1]);
    if (dramIdStartBit > 63) fail(`dramid bit ${dramIdStartBit} is beyond bit 63`);
    s = m[2]!;
  } else if (s.includes(';')) {
    s = s.slice(s.indexOf(';') + 1);
  }
  const out: AddressMapping = { dramIdStartBit, channelBits: [], bankBits: [], rowBits: [], columnBits: [], burstBits: [] };
  let bit = 63;
  for (const ch of s) {
    if (ch === '.' || ch === '|' || ch === ' ' || ch === '\t') continue;
    if (bit < 0) fail('mask longer than 64 bits');
    switch (ch) {
      case 'D':
      case 'd':
        if (dramIdStartBit !== null) fail("'D' bits cannot be combined with dramid@");
        out.channelBits.push(bit);
        break;
      case 'B':
      case 'b':
        out.bankBits.push(bit);
        break;
      case 'R':
      case 'r':
        out.rowBits.push(bit);
        break;
      case 'C':
      case 'c':
        out.columnBits.push(bit);
        break;
      case 'S':
      case 's':
        out.burstBits.push(bit);
        out.columnBits.push(bit);
        break;
      case '0':
        break;
      default:
        fail(`unknown character '${ch}' (expected D, B, R, C, S, 0 or separators)`);
    }
    bit--;
  }
  if (bit !== -1) fail(`mask has ${63 - bit} bits, expected 64`);
  for (const list of [out.channelBits, out.bankBits, out.rowBits, out.columnBits, out.burstBits]) list.sort((a, b) => a - b);
  return out;
}

/** Writes a mapping back in GPGPU-Sim's form (64 mask characters in groups of 8). */
export function formatAddressMapping(m: AddressMapping): string {
  const chars: string[] = new Array<string>(64).fill('0');
  const put = (bits: readonly number[], c: string): void => {
    for (const b of bits) chars[63 - b] = c;
  };
  put(m.columnBits, 'C');
  put(m.burstBits, 'S');
  put(m.rowBits, 'R');
  put(m.bankBits, 'B');
  put(m.channelBits, 'D');
  const groups: string[] = [];
  for (let i = 0; i < 64; i += 8) groups.push(chars.slice(i, i + 8).join(''));
  const mask = groups.join('.');
  return m.dramIdStartBit === null ? mask : `dramid@${m.dramIdStartBit};${mask}`;
}

/**
 * The mapping a DRAM model decodes with, for `channels` memory partitions.
 * - `kind: 'bits'`: every field is a list of address bits (least significant first), with the
 *   channel bits inserted at `dramIdStartBit` when the channel count is a power of two.
 * - `kind: 'modulo'` (GPGPU-Sim's "gap" mode, channel count not a power of two): the channel is
 *   `floor(addr / 2^startBit) mod channels`; the other fields are decoded from the address with
 *   that quotient put back in place of the bits above `startBit`, using the listed bits.
 */
export type ResolvedAddressMapping =
  | { kind: 'bits'; channelBits: number[]; bankBits: number[]; rowBits: number[]; columnBits: number[]; burstBits: number[] }
  | { kind: 'modulo'; startBit: number; channels: number; bankBits: number[]; rowBits: number[]; columnBits: number[]; burstBits: number[] };

/**
 * Applies the `dramid@` channel insertion of GPGPU-Sim's addrdec `init` (see module comment).
 * @param channels memory partitions (`memPartitions.count`, >= 1)
 */
export function resolveAddressMapping(m: AddressMapping, channels: number): ResolvedAddressMapping {
  const copy = (a: readonly number[]): number[] => [...a];
  if (m.dramIdStartBit === null) {
    return { kind: 'bits', channelBits: copy(m.channelBits), bankBits: copy(m.bankBits), rowBits: copy(m.rowBits), columnBits: copy(m.columnBits), burstBits: copy(m.burstBits) };
  }
  const start = m.dramIdStartBit;
  const isPow2 = (channels & (channels - 1)) === 0;
  if (!isPow2) {
    return { kind: 'modulo', startBit: start, channels, bankBits: copy(m.bankBits), rowBits: copy(m.rowBits), columnBits: copy(m.columnBits), burstBits: copy(m.burstBits) };
  }
  const n = Math.log2(channels);
  const shift = (a: readonly number[]): number[] => a.map((b) => (b >= start ? b + n : b));
  const channelBits: number[] = [];
  for (let b = start; b < start + n; b++) channelBits.push(b);
  return { kind: 'bits', channelBits, bankBits: shift(m.bankBits), rowBits: shift(m.rowBits), columnBits: shift(m.columnBits), burstBits: shift(m.burstBits) };
}
