/**
 * Global address to DRAM location: memory partition (channel), L2 sub-partition, bank, row,
 * column and burst, parsed from a GPGPU-Sim `-gpgpu_mem_addr_mapping` string, after
 * `linear_to_raw_address_translation` (`addrdec.cc`: `addrdec_parseoption`, `init`,
 * `addrdec_tlx`, `partition_address`).
 *
 * ## The mapping string
 * `[dramid@S;]` followed by 64 bit characters, most significant bit (63) first; `.`, `|` and
 * spaces are ignored. Each character gives the role of one address bit:
 * `R` row, `B` bank, `C` column, `S` burst offset (counts as both burst and column), `D` channel
 * (chip) id, `0` unused. The bits of a field are packed in order: the lowest address bit of the
 * field becomes bit 0 of the value. GTX480 (`SM2_GTX480/gpgpusim.config`):
 * `dramid@8;00000000.00000000.00000000.00000000.0000RRRR.RRRRRRRR.BBBCCCCB.CCSSSSSS` — row =
 * bits 16..27, bank = bits 8, 13, 14, 15, column = bits 0..7 and 9..12, burst = bits 0..5.
 *
 * ## `dramid@S`
 * The channel id is not taken from `D` bits but inserted at bit `S` of the address: the string
 * describes the address with the channel bits removed. With `q = floor(addr / 2^S)`:
 * `channel = q mod channels`, and the rest of the address (what the string's R/B/C/S bits are
 * read from) is `floor(q / channels) * 2^S + (addr mod 2^S)`. For a power-of-two number of
 * channels this is exactly GPGPU-Sim's shifting of every mask bit at or above S up by
 * log2(channels) and taking the channel from bits [S, S + log2(channels)); for other counts
 * (GTX480: 6 channels) it is GPGPU-Sim's "gap" path, a modulo on the bits above S. So
 * consecutive 2^S-byte chunks (256 B on GTX480) rotate over the channels. A string with neither
 * `dramid@` nor `D` bits maps everything to channel 0.
 *
 * ## Sub-partition
 * Each channel has `subPartitionsPerChannel` L2 slices; `subPartition = channel x
 * subPartitionsPerChannel + (bank mod subPartitionsPerChannel)` (the low bank bits).
 *
 * ## Options
 * - `partitionIndexing` (`-memory_partition_indexing`): `consecutive` (0) or `xor` (1: the
 *   channel id XOR the address bits above the channel and sub-partition bits; power-of-two
 *   channel counts only). IPOLY / PAE / random hashing are not modelled.
 * - `bankIndexing` (`-dram_bnk_indexing_policy`): `linear` (0) or `xor` (1: bank XOR the low row
 *   bits, `(bank ^ row) mod banks`); the sub-partition uses the mapped bank before this hash,
 *   as in GPGPU-Sim where the hash is applied when the DRAM request is built.
 *
 * {@link AddressMap.partitionAddress} is the address inside one memory partition with the
 * channel and sub-partition bits removed, which GPGPU-Sim's L2 uses for its set index.
 *
 * Addresses are non-negative integers below 2^53; bits are read from two 32-bit halves.
 */

import { InputError, type SourceLocation } from '../../errors.ts';
import { choiceParam, intParam, isPow2, TWO_POW_32 } from './params.ts';
import { parseAddressMapping as parseConfigAddressMapping } from '../../config/address-mapping.ts';

/** Parsed `-gpgpu_mem_addr_mapping` string. Bit positions are listed from the field's lowest bit up. */
export interface AddressMapping {
  /** `S` of `dramid@S`, or -1 when absent. */
  readonly channelStart: number;
  /** Address bits of an explicit channel id (`D`), lowest first. */
  readonly channelBits: readonly number[];
  /** Bank bits, lowest first. */
  readonly bankBits: readonly number[];
  /** Row bits, lowest first. */
  readonly rowBits: readonly number[];
  /** Column bits (C and S), lowest first. */
  readonly columnBits: readonly number[];
  /** Burst bits (S), lowest first. */
  readonly burstBits: readonly number[];
}

/**
 * An already parsed mapping from elsewhere (e.g. the GPU config's address mapping, which spells
 * the channel start `dramIdStartBit`, null when absent). Bit lists may be in any order.
 */
export interface ParsedMappingLike {
  /** `S` of `dramid@S` (-1 or absent when none). */
  readonly channelStart?: number;
  /** Same as `channelStart`, null when none (GPU config spelling). */
  readonly dramIdStartBit?: number | null;
  readonly channelBits: readonly number[];
  readonly bankBits: readonly number[];
  readonly rowBits: readonly number[];
  readonly columnBits: readonly number[];
  readonly burstBits: readonly number[];
}

/** Parameters of an {@link AddressMap}. */
export interface AddressMapParams {
  /** The `-gpgpu_mem_addr_mapping` string, or the same mapping already parsed. */
  readonly mapping: string | ParsedMappingLike;
  /** Memory channels (partitions), `-gpgpu_n_mem`. */
  readonly channels: number;
  /** L2 sub-partitions per channel, `-gpgpu_n_sub_partition_per_mchannel` (power of two); default 1. */
  readonly subPartitionsPerChannel?: number;
  /** Channel interleaving, `-memory_partition_indexing`; default `consecutive`. */
  readonly partitionIndexing?: 'consecutive' | 'xor';
  /** Bank hash, `-dram_bnk_indexing_policy`; default `linear`. */
  readonly bankIndexing?: 'linear' | 'xor';
  /** Banks per channel (needed by `bankIndexing: 'xor'`; power of two). */
  readonly banks?: number;
  /** Where the mapping string came from, for errors; default `<gpgpu_mem_addr_mapping>`. */
  readonly source?: SourceLocation;
}

/** A decoded address. {@link AddressMap.decode} fills and returns one reused instance. */
export class DecodedAddress {
  /** Memory partition (channel, GPGPU-Sim `chip`). */
  partition = 0;
  /** L2 sub-partition, global index. */
  subPartition = 0;
  /** DRAM bank (after `bankIndexing`). */
  bank = 0;
  /** DRAM row. */
  row = 0;
  /** DRAM column (includes the burst bits). */
  column = 0;
  /** Burst offset. */
  burst = 0;
}

const FIELD = '-gpgpu_mem_addr_mapping';

/**
 * Parses a `-gpgpu_mem_addr_mapping` string (see the file comment) with the config's parser
 * (`src/config/address-mapping.ts`, the one parser of the format) into this module's form.
 * @throws InputError on an unknown character, a mask other than 64 bits, `D` bits together
 *   with `dramid@`, or a bad `dramid@` value; the error names `source` and the option.
 */
export function parseAddressMapping(text: string, source: SourceLocation = { file: '<gpgpu_mem_addr_mapping>' }): AddressMapping {
  return normalizeMapping(parseConfigAddressMapping(text, source, FIELD), source);
}

/**
 * Checks and normalizes a parsed mapping (bit lists sorted, lowest first).
 * @throws InputError for a bit outside 0..63, a bad channel start, or `D` bits with a channel start.
 */
function normalizeMapping(m: ParsedMappingLike, source: SourceLocation): AddressMapping {
  const start = m.channelStart ?? m.dramIdStartBit ?? -1;
  if (!Number.isInteger(start) || start < -1 || start > 63) throw new InputError(source, `channel start bit must be 0..63, got ${start}`, FIELD);
  const bits = (name: string, a: readonly number[]): number[] => {
    for (const b of a) if (!Number.isInteger(b) || b < 0 || b > 63) throw new InputError(source, `${name} has bit ${b} outside 0..63`, FIELD);
    return a.slice().sort((x, y) => x - y);
  };
  if (start >= 0 && m.channelBits.length > 0) throw new InputError(source, `'D' bits cannot be combined with dramid@`, FIELD);
  return {
    channelStart: start,
    channelBits: bits('channelBits', m.channelBits),
    bankBits: bits('bankBits', m.bankBits),
    rowBits: bits('rowBits', m.rowBits),
    columnBits: bits('columnBits', m.columnBits),
    burstBits: bits('burstBits', m.burstBits),
  };
}

/** Address decoder for one GPU's memory system (see the file comment). */
export class AddressMap {
  /** The parsed mapping. */
  readonly mapping: AddressMapping;
  /** Channels. */
  readonly channels: number;
  /** Sub-partitions per channel. */
  readonly subPartitionsPerChannel: number;
  /** Channel interleaving. */
  readonly partitionIndexing: 'consecutive' | 'xor';
  /** Bank hash. */
  readonly bankIndexing: 'linear' | 'xor';
  /** Banks per channel for the bank hash (0 when unused). */
  readonly banks: number;

  private readonly out = new DecodedAddress();
  private readonly bankPos: Uint8Array;
  private readonly rowPos: Uint8Array;
  private readonly colPos: Uint8Array;
  private readonly burstPos: Uint8Array;
  private readonly chanPos: Uint8Array;
  private readonly chipScale: number; // 2^S
  private readonly xorScale: number; // 2^(S + log2 channels + log2 sub)
  private readonly subIdBits: Uint8Array; // bank-mask bits that select the sub-partition (rest-address positions)
  private readonly chanAndSubPos: Uint8Array; // explicit D bits and sub-partition bits, ascending

  /** @throws InputError for a bad mapping or parameter. */
  constructor(params: AddressMapParams) {
    const src = params.source ?? { file: '<gpgpu_mem_addr_mapping>' };
    this.mapping = typeof params.mapping === 'string' ? parseAddressMapping(params.mapping, src) : normalizeMapping(params.mapping, src);
    const model = 'AddressMapParams';
    this.channels = intParam(model, 'channels', params.channels, 1, 1 << 16);
    this.subPartitionsPerChannel = intParam(model, 'subPartitionsPerChannel', params.subPartitionsPerChannel ?? 1, 1, 1 << 10);
    if (!isPow2(this.subPartitionsPerChannel)) {
      throw new InputError(src, `subPartitionsPerChannel must be a power of two, got ${this.subPartitionsPerChannel}`, 'subPartitionsPerChannel');
    }
    this.partitionIndexing = choiceParam(model, 'partitionIndexing', params.partitionIndexing, ['consecutive', 'xor'] as const, 'consecutive');
    this.bankIndexing = choiceParam(model, 'bankIndexing', params.bankIndexing, ['linear', 'xor'] as const, 'linear');
    this.banks = params.banks ?? 0;
    if (this.bankIndexing === 'xor' && !isPow2(this.banks)) {
      throw new InputError(src, `bankIndexing 'xor' needs banks, a power of two, got ${String(params.banks)}`, 'banks');
    }
    const m = this.mapping;
    if (m.channelStart < 0 && m.channelBits.length > 0 && 1 << m.channelBits.length < this.channels) {
      throw new InputError(src, `${m.channelBits.length} D bits cannot address ${this.channels} channels`, FIELD);
    }
    if (m.channelStart < 0 && m.channelBits.length > 0 && !isPow2(this.channels)) {
      throw new InputError(src, `explicit D bits need a power-of-two channel count, got ${this.channels}`, FIELD);
    }
    const pow2Channels = isPow2(this.channels);
    if (this.partitionIndexing === 'xor' && (!pow2Channels || m.channelStart < 0)) {
      throw new InputError(src, `partitionIndexing 'xor' needs dramid@ and a power-of-two channel count`, 'partitionIndexing');
    }
    if (m.bankBits.length < Math.log2(this.subPartitionsPerChannel)) {
      throw new InputError(src, `${m.bankBits.length} bank bits cannot select ${this.subPartitionsPerChannel} sub-partitions`, FIELD);
    }
    this.bankPos = Uint8Array.from(m.bankBits);
    this.rowPos = Uint8Array.from(m.rowBits);
    this.colPos = Uint8Array.from(m.columnBits);
    this.burstPos = Uint8Array.from(m.burstBits);
    this.chanPos = Uint8Array.from(m.channelBits);
    this.chipScale = m.channelStart >= 0 ? 2 ** m.channelStart : 1;
    const log2ch = Math.floor(Math.log2(this.channels));
    this.xorScale = 2 ** (Math.max(m.channelStart, 0) + log2ch + Math.log2(this.subPartitionsPerChannel));
    this.subIdBits = Uint8Array.from(m.bankBits.slice(0, Math.log2(this.subPartitionsPerChannel)));
    this.chanAndSubPos = Uint8Array.from([...m.channelBits, ...this.subIdBits].sort((a, b) => a - b));
  }

  /**
   * Decodes byte address `addr` into the reused {@link DecodedAddress} (overwritten by the next
   * call) and returns it, or into `out` when given.
   */
  decode(addr: number, out: DecodedAddress = this.out): DecodedAddress {
    const m = this.mapping;
    let rest = addr;
    let chip = 0;
    if (m.channelStart >= 0) {
      const q = Math.floor(addr / this.chipScale);
      chip = q % this.channels;
      rest = Math.floor(q / this.channels) * this.chipScale + (addr % this.chipScale);
    } else if (this.chanPos.length > 0) {
      chip = packBits(addr, this.chanPos);
    }
    const lo = rest % TWO_POW_32;
    const hi = Math.floor(rest / TWO_POW_32);
    const bank = packSplit(lo, hi, this.bankPos);
    if (this.partitionIndexing === 'xor') {
      chip = (chip ^ (Math.floor(addr / this.xorScale) % this.channels)) % this.channels;
    }
    out.partition = chip;
    out.subPartition = chip * this.subPartitionsPerChannel + (bank % this.subPartitionsPerChannel);
    const row = packSplit(lo, hi, this.rowPos);
    out.row = row;
    out.bank = this.bankIndexing === 'xor' ? (bank ^ (row % this.banks)) % this.banks : bank;
    out.column = packSplit(lo, hi, this.colPos);
    out.burst = packSplit(lo, hi, this.burstPos);
    return out;
  }

  /**
   * The address within its memory partition: the channel bits removed (the rest address of
   * {@link decode}), then the sub-partition id bits (the lowest log2(subPartitionsPerChannel)
   * bank bits) removed, higher bits shifted down to close each gap (GPGPU-Sim
   * `partition_address`).
   */
  partitionAddress(addr: number): number {
    const m = this.mapping;
    let rest = addr;
    if (m.channelStart >= 0) {
      const q = Math.floor(addr / this.chipScale);
      rest = Math.floor(q / this.channels) * this.chipScale + (addr % this.chipScale);
    } else if (this.chanPos.length > 0) {
      return removeBits(addr, this.chanAndSubPos); // both sets of positions are in `addr` itself
    }
    return this.subIdBits.length > 0 ? removeBits(rest, this.subIdBits) : rest;
  }
}

/** Packs the bits of `addr` at `pos` (ascending) into a value, lowest first. */
function packBits(addr: number, pos: Uint8Array): number {
  return packSplit(addr % TWO_POW_32, Math.floor(addr / TWO_POW_32), pos);
}

/** {@link packBits} on an address given as its low and high 32-bit words. */
function packSplit(lo: number, hi: number, pos: Uint8Array): number {
  let v = 0;
  let scale = 1;
  for (let i = 0; i < pos.length; i++) {
    const p = pos[i]!;
    const bit = p < 32 ? (lo >>> p) & 1 : (hi >>> (p - 32)) & 1;
    v += bit * scale;
    scale *= 2;
  }
  return v;
}

/** Removes the bits at `pos` (ascending) from `addr`, shifting the higher bits down. */
function removeBits(addr: number, pos: Uint8Array): number {
  let v = addr;
  for (let i = pos.length - 1; i >= 0; i--) {
    const scale = 2 ** pos[i]!;
    const low = v % scale;
    v = Math.floor(v / (scale * 2)) * scale + low;
  }
  return v;
}
