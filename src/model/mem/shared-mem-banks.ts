/**
 * Shared-memory bank conflicts: how many cycles one warp access to shared memory occupies the
 * banks, as GPGPU-Sim computes it for `shared_space` in `warp_inst_t::generate_mem_accesses`
 * (the result becomes the instruction's initiation interval: "shared memory conflicts modeled as
 * larger initiation interval").
 *
 * ## Rule
 * Shared memory has `banks` banks of `bankWidthBytes`-byte words; word `w = floor(addr / width)`
 * lives in bank `w mod banks` (GPGPU-Sim `shmem_bank_func` with `WORD_SIZE` = 4). A lane
 * accessing `size` bytes touches every word that overlaps [addr, addr + size), so an 8-byte
 * access touches 2 words and a 16-byte access 4 (GPGPU-Sim looks only at the first word of a
 * lane; counting every word is what makes 32 lanes x 8 bytes take 2 cycles, as on hardware).
 *
 * - Default (`limitedBroadcast` false, GPGPU-Sim `-gpgpu_shmem_limited_broadcast 0`): any number
 *   of lanes reading the same word are served by one broadcast, so the cycles of a warp part are
 *   the largest number of DISTINCT words mapped to one bank.
 * - `limitedBroadcast` true: only one word (the first bank in bank order holding a word read by
 *   several lanes, its lowest such word) is broadcast; every other word access to a bank counts
 *   once per lane.
 *
 * The warp is processed in `warpParts` parts (GPGPU-Sim `-gpgpu_shmem_warp_parts`, 1 on Fermi,
 * 2 for half-warp hardware); the cycles of the parts add up.
 *
 * Examples (32 banks x 4 bytes, 4-byte accesses): stride 1 word -> 1 cycle, stride 2 words -> 2,
 * stride 32 words -> 32, every lane the same word -> 1 (broadcast).
 *
 * Hot path: preallocated tables, no allocation per call.
 */

import { InputError } from '../../errors.ts';
import { intParam, pow2Param } from './params.ts';

/** Parameters of {@link SharedMemBanks}. */
export interface SharedMemBankParams {
  /** Number of banks (GPGPU-Sim `-gpgpu_shmem_num_banks`, 32). */
  readonly banks: number;
  /** Bank width in bytes (4 on Fermi..Volta; 8 in Kepler's 8-byte mode). Power of two. */
  readonly bankWidthBytes: number;
  /** Warp parts processed one after another (`-gpgpu_shmem_warp_parts`); power of two <= 32, default 1. */
  readonly warpParts?: number;
  /** GPGPU-Sim `-gpgpu_shmem_limited_broadcast`: only one broadcast word per part. Default false. */
  readonly limitedBroadcast?: boolean;
}

/** Widest per-lane shared access accepted, in bytes. */
const MAX_ACCESS_BYTES = 32;
const MODEL = 'SharedMemBankParams';

/** Shared-memory bank-conflict calculator (see the file comment for the rule). */
export class SharedMemBanks {
  /** Number of banks. */
  readonly banks: number;
  /** Bank width in bytes. */
  readonly bankWidthBytes: number;
  /** Warp parts. */
  readonly warpParts: number;
  /** Limited broadcast mode. */
  readonly limitedBroadcast: boolean;
  /** Bank that set the cycle count of the last call (-1 when no lane was active). */
  lastWorstBank = -1;

  private readonly perBankCap: number;
  private readonly wordCount: Int32Array; // distinct words per bank
  private readonly words: Float64Array; // bank * perBankCap + k -> word index
  private readonly hits: Int32Array; // lanes that touched that word
  private readonly usedBanks: Int32Array; // banks touched in this part, for reset
  private usedCount = 0;

  /** @throws InputError for a bad parameter (field named). */
  constructor(params: SharedMemBankParams) {
    this.banks = intParam(MODEL, 'banks', params.banks, 1, 1024);
    this.bankWidthBytes = pow2Param(MODEL, 'bankWidthBytes', params.bankWidthBytes, 1, 64);
    this.warpParts = pow2Param(MODEL, 'warpParts', params.warpParts ?? 1, 1, 32);
    this.limitedBroadcast = params.limitedBroadcast ?? false;
    // worst case: every lane of a part puts all the words it maps to one bank there
    const wordsPerLane = Math.ceil(MAX_ACCESS_BYTES / this.bankWidthBytes) + 1;
    this.perBankCap = 32 * Math.ceil(wordsPerLane / this.banks);
    this.wordCount = new Int32Array(this.banks);
    this.words = new Float64Array(this.banks * this.perBankCap);
    this.hits = new Int32Array(this.banks * this.perBankCap);
    this.usedBanks = new Int32Array(this.banks);
  }

  /** Bank holding byte address `addr`. */
  bankOf(addr: number): number {
    return Math.floor(addr / this.bankWidthBytes) % this.banks;
  }

  /**
   * Cycles the banks are busy for one warp access (1 = conflict-free; 0 when no lane is active).
   *
   * @param addrs shared-memory byte address per lane (index = lane); read only for active lanes;
   *   non-negative integers.
   * @param activeMask bit l set when lane l takes part.
   * @param accessBytes bytes per lane (1..32: 1/2/4/8/16 scalar or vector accesses).
   * @throws InputError for a bad size or address.
   */
  conflictCycles(addrs: ArrayLike<number>, activeMask: number, accessBytes: number): number {
    if (!Number.isInteger(accessBytes) || accessBytes < 1 || accessBytes > MAX_ACCESS_BYTES) {
      throw new InputError({ file: '<sharedMem>' }, `must be an integer in [1, ${MAX_ACCESS_BYTES}], got ${accessBytes}`, 'accessBytes');
    }
    const mask = activeMask >>> 0;
    const partLanes = 32 / this.warpParts;
    const width = this.bankWidthBytes;
    let total = 0;
    this.lastWorstBank = -1;
    let worstOverall = 0;
    for (let p = 0; p < this.warpParts; p++) {
      this.usedCount = 0;
      const laneLo = p * partLanes;
      let any = false;
      for (let lane = laneLo; lane < laneLo + partLanes; lane++) {
        if (((mask >>> lane) & 1) === 0) continue;
        const a = addrs[lane]!;
        if (!(a >= 0) || !Number.isInteger(a)) {
          throw new InputError({ file: '<sharedMem>' }, `lane ${lane} address must be a non-negative integer, got ${a}`, `addrs[${lane}]`);
        }
        any = true;
        const w0 = Math.floor(a / width);
        const w1 = Math.floor((a + accessBytes - 1) / width);
        for (let w = w0; w <= w1; w++) this.record(w);
      }
      if (!any) continue;
      let worst = 0;
      let worstBank = -1;
      if (this.limitedBroadcast) {
        // pick the broadcast word: lowest bank, then lowest word, touched by > 1 lane
        let bcBank = -1;
        let bcSlot = -1;
        for (let i = 0; i < this.usedCount; i++) {
          const b = this.usedBanks[i]!;
          if (bcBank >= 0 && b > bcBank) continue;
          const base = b * this.perBankCap;
          let best = -1;
          for (let k = 0; k < this.wordCount[b]!; k++) {
            if (this.hits[base + k]! > 1 && (best < 0 || this.words[base + k]! < this.words[base + best]!)) best = k;
          }
          if (best >= 0 && (bcBank < 0 || b < bcBank)) {
            bcBank = b;
            bcSlot = best;
          }
        }
        for (let i = 0; i < this.usedCount; i++) {
          const b = this.usedBanks[i]!;
          const base = b * this.perBankCap;
          let n = 0;
          for (let k = 0; k < this.wordCount[b]!; k++) n += this.hits[base + k]!;
          if (b === bcBank) n -= this.hits[base + bcSlot]! - 1;
          if (n > worst || (n === worst && b < worstBank)) {
            worst = n;
            worstBank = b;
          }
        }
      } else {
        for (let i = 0; i < this.usedCount; i++) {
          const b = this.usedBanks[i]!;
          const n = this.wordCount[b]!;
          if (n > worst || (n === worst && b < worstBank)) {
            worst = n;
            worstBank = b;
          }
        }
      }
      if (worst > worstOverall) {
        worstOverall = worst;
        this.lastWorstBank = worstBank;
      }
      total += worst;
      for (let i = 0; i < this.usedCount; i++) this.wordCount[this.usedBanks[i]!] = 0;
    }
    return total;
  }

  /** Adds one lane access to word `w` to the current part's tables. */
  private record(w: number): void {
    const b = w % this.banks;
    const base = b * this.perBankCap;
    const n = this.wordCount[b]!;
    if (n === 0) this.usedBanks[this.usedCount++] = b;
    for (let k = 0; k < n; k++) {
      if (this.words[base + k] === w) {
        this.hits[base + k]!++;
        return;
      }
    }
    this.words[base + n] = w;
    this.hits[base + n] = 1;
    this.wordCount[b] = n + 1;
  }
}
