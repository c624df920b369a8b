/**
 * Memory coalescer: turns one warp memory instruction (per-lane byte addresses, active mask,
 * access size, state space) into the memory transactions the LSU sends to the L1D / L2, the way
 * GPGPU-Sim does it (`warp_inst_t::generate_mem_accesses`, `memory_coalescing_arch` and
 * `memory_coalescing_arch_reduce_and_send`, `-gpgpu_coalesce_arch 20` for Fermi, >= 40 for
 * Maxwell..Volta). Background: paper 004 §2.2 (Fermi memory pipeline), paper 001 §2.1 ("requests
 * from threads in a warp are coalesced into as few transactions as possible").
 *
 * ## Rules (global, local and generic accesses)
 * 1. The warp is split into `warpParts` parts of 32/warpParts consecutive lanes (GPGPU-Sim's
 *    `mem_warp_parts`, 1 on Fermi); each part is coalesced on its own.
 * 2. Segment size: in `line` mode (Fermi/Kepler through L1) 32 bytes for 1-byte accesses, 64 for
 *    2-byte and 128 for 4/8/16/32-byte accesses; in `sectored` mode (Maxwell..Volta, and Fermi
 *    when L1 is bypassed) always 32 bytes.
 * 3. Every active lane touches bytes [addr, addr + size). Lanes whose bytes fall in the same
 *    aligned segment share one transaction; an access that crosses a segment boundary adds its
 *    bytes to both segments (GPGPU-Sim only does this for trace-driven runs; here it is exact).
 *    Each transaction records its lanes, the 32-byte sectors ("chunks") of the enclosing 128-byte
 *    line it touches, and the byte mask of those touched bytes.
 * 4. Reduction (`line` mode only): a 128-byte segment whose touched sectors all lie in one
 *    64-byte half shrinks to that half, and a 64-byte segment (or half) whose touched sectors are
 *    one 32-byte sector shrinks to that sector. Sectors {1, 2} stay a 128-byte transaction:
 *    like GPGPU-Sim, only aligned halves are considered.
 * 5. Transactions of a part come out in increasing segment address (GPGPU-Sim iterates a
 *    `std::map` keyed by address); parts come out in lane order.
 * 6. Atomics (`atomic = true`): lanes of one segment whose bytes overlap cannot share a
 *    transaction; a lane joins the first transaction of its segment it does not overlap, else
 *    opens a new one (`memory_coalescing_arch_atomic`).
 *
 * Local memory: GPGPU-Sim splits per-lane accesses wider than 4 bytes into 4-byte chunks with
 * their own (interleaved) addresses. This model receives one address per lane, i.e. the chunks
 * of a lane are contiguous, which touches exactly the same bytes, so local is coalesced like
 * global.
 *
 * Const and param (kernel) accesses are grouped per `constLineBytes` block with no reduction and
 * no warp parts, as GPGPU-Sim does for `cache_block_size` spaces.
 *
 * Shared memory is not coalesced: see `shared-mem-banks.ts`.
 *
 * Hot path: no allocation per call; the result goes into a caller-owned
 * {@link CoalescedAccesses}, reused across calls.
 */

import { InputError } from '../../errors.ts';
import { StateSpace } from '../../isa/ir.ts';
import { choiceParam, paramError, pow2Param } from './params.ts';

/** Most transactions one warp access can produce (32 lanes x 2 segments when misaligned). */
export const MAX_TRANSACTIONS = 64;

/** Widest per-lane access accepted, in bytes (PTX `v4.b64` / `v8.b32`). */
export const MAX_ACCESS_BYTES = 32;

/** Coalescing mode: `line` = Fermi/Kepler through L1, `sectored` = 32-byte transactions. */
export type CoalescerMode = 'line' | 'sectored';

/** Parameters of a {@link Coalescer}. */
export interface CoalescerParams {
  /**
   * `line` (default): GPGPU-Sim `-gpgpu_coalesce_arch` 20..39 with L1 caching, segments of
   * 32/64/128 bytes by access size, then reduction. `sectored`: arch >= 40 (Maxwell..Volta) or
   * Fermi with `-gpgpu_gmem_skip_L1D 1`: every transaction is one 32-byte sector.
   */
  readonly mode?: CoalescerMode;
  /** Warp parts coalesced independently (GPGPU-Sim `mem_warp_parts`); power of two <= 32, default 1. */
  readonly warpParts?: number;
  /** Line size in bytes used to group const/param accesses (GTX480 const L1: 64); power of two 32..128, default 64. */
  readonly constLineBytes?: number;
}

/**
 * Output of {@link Coalescer.coalesce}: `count` transactions in the first `count` entries of
 * each array. One instance is reused across calls (never allocate per access).
 *
 * For transaction `i`:
 * - `addr[i]`, `size[i]`: byte address and size (32, 64 or 128; const: `constLineBytes`) of the
 *   request sent to the cache, after reduction.
 * - `lineAddr[i]`: the enclosing 128-byte line (const: the `constLineBytes` block).
 * - `sectorMask[i]`: bit s set when 32-byte sector s of that line is touched (bits 0..3).
 * - `laneMask[i]`: lanes served by the transaction (unsigned 32-bit).
 * - `byteMask[4*i + w]`: bit b set when byte `32*w + b` of the line is touched.
 */
export class CoalescedAccesses {
  /** Number of valid transactions. */
  count = 0;
  /** Request address in bytes, after reduction. */
  readonly addr = new Float64Array(MAX_TRANSACTIONS);
  /** Request size in bytes (32, 64, 128, or the const line size). */
  readonly size = new Uint16Array(MAX_TRANSACTIONS);
  /** Enclosing 128-byte line address (const: the const line address). */
  readonly lineAddr = new Float64Array(MAX_TRANSACTIONS);
  /** Touched 32-byte sectors of the line, bits 0..3. */
  readonly sectorMask = new Uint8Array(MAX_TRANSACTIONS);
  /** Lanes served, bit per lane. */
  readonly laneMask = new Uint32Array(MAX_TRANSACTIONS);
  /** Touched bytes of the line, 4 words of 32 bits per transaction. */
  readonly byteMask = new Uint32Array(MAX_TRANSACTIONS * 4);
}

const MODEL = 'CoalescerParams';
const MAX_ADDR = Number.MAX_SAFE_INTEGER - 256;

/**
 * GPGPU-Sim-style memory coalescer (see the file comment for the rules). One instance per LSU;
 * holds only scratch state, so calls are independent.
 */
export class Coalescer {
  /** Mode in use. */
  readonly mode: CoalescerMode;
  /** Warp parts coalesced independently. */
  readonly warpParts: number;
  /** Const/param grouping line size in bytes. */
  readonly constLineBytes: number;

  // scratch, one entry per transaction under construction
  private readonly segAddr = new Float64Array(MAX_TRANSACTIONS);
  private readonly lineBase = new Float64Array(MAX_TRANSACTIONS);
  private readonly chunks = new Uint8Array(MAX_TRANSACTIONS);
  private readonly lanes = new Uint32Array(MAX_TRANSACTIONS);
  private readonly bytes = new Uint32Array(MAX_TRANSACTIONS * 4);
  private readonly order = new Int32Array(MAX_TRANSACTIONS);

  /** @throws InputError for a bad parameter (field named). */
  constructor(params: CoalescerParams = {}) {
    this.mode = choiceParam(MODEL, 'mode', params.mode, ['line', 'sectored'] as const, 'line');
    this.warpParts = pow2Param(MODEL, 'warpParts', params.warpParts ?? 1, 1, 32);
    this.constLineBytes = pow2Param(MODEL, 'constLineBytes', params.constLineBytes ?? 64, 32, 128);
  }

  /**
   * Segment size in bytes used for a global/local access of `accessBytes` per lane: 32 in
   * `sectored` mode; else 32 (1 byte), 64 (2 bytes) or 128 (wider).
   */
  segmentBytes(accessBytes: number): number {
    if (this.mode === 'sectored' || accessBytes === 1) return 32;
    return accessBytes === 2 ? 64 : 128;
  }

  /**
   * Coalesces one warp access into `out` and returns the number of transactions.
   *
   * @param addrs byte address per lane (index = lane, 0..31); read only for active lanes; must
   *   be non-negative integers below 2^53.
   * @param activeMask bit l set when lane l takes part (unsigned 32-bit).
   * @param accessBytes bytes accessed per lane (element size x vector width), 1..32.
   * @param space a `StateSpace` code (`src/isa/ir.ts`; any number is accepted so callers holding
   *   a plain code need no cast): Global, Local or Generic (coalesced by segments), Const or
   *   Param (grouped by `constLineBytes` lines).
   * @param out reused result object; overwritten.
   * @param atomic true for `atom`/`red`: overlapping lanes get separate transactions.
   * @returns `out.count`; 0 when no lane is active.
   * @throws InputError for a bad size, an unsupported space (Shared, Reg, None) or a bad address.
   */
  coalesce(
    addrs: ArrayLike<number>,
    activeMask: number,
    accessBytes: number,
    space: StateSpace | number,
    out: CoalescedAccesses,
    atomic = false,
  ): number {
    if (!Number.isInteger(accessBytes) || accessBytes < 1 || accessBytes > MAX_ACCESS_BYTES) {
      throw paramError('coalesce', 'accessBytes', `must be an integer in [1, ${MAX_ACCESS_BYTES}], got ${accessBytes}`);
    }
    let segSize: number;
    let lineBytes: number;
    let reduce: boolean;
    let parts: number;
    switch (space) {
      case StateSpace.Global:
      case StateSpace.Local:
      case StateSpace.Generic:
        segSize = this.segmentBytes(accessBytes);
        lineBytes = 128;
        reduce = this.mode === 'line';
        parts = this.warpParts;
        break;
      case StateSpace.Const:
      case StateSpace.Param:
        segSize = this.constLineBytes;
        lineBytes = this.constLineBytes;
        reduce = false;
        parts = 1;
        break;
      default:
        throw paramError('coalesce', 'space', `state space ${space} is not coalesced (shared memory goes through SharedMemBanks)`);
    }

    out.count = 0;
    const mask = activeMask >>> 0;
    if (mask === 0) return 0;
    const partLanes = 32 / parts;
    for (let p = 0; p < parts; p++) {
      const laneLo = p * partLanes;
      const partMask = partLanes === 32 ? mask : (mask >>> laneLo) & ((1 << partLanes) - 1);
      if (partMask === 0) continue;
      let n = 0;
      let last = -1;
      let minSeg = Infinity;
      let maxSeg = -1;
      const segAddr = this.segAddr;
      const lanes = this.lanes;
      const chunks = this.chunks;
      const bytes = this.bytes;
      for (let lane = laneLo; lane < laneLo + partLanes; lane++) {
        if (((mask >>> lane) & 1) === 0) continue;
        const a = addrs[lane]!;
        if (!(a >= 0 && a <= MAX_ADDR) || a !== Math.floor(a)) {
          throw new InputError({ file: '<coalesce>' }, `lane ${lane} address must be a non-negative integer below 2^53, got ${a}`, `addrs[${lane}]`);
        }
        const end = a + accessBytes;
        let seg = a - (a % segSize);
        while (seg < end) {
          const base = lineBytes === segSize ? seg : seg - (seg % lineBytes);
          const lo = (a > seg ? a : seg) - base;
          const hiAbs = seg + segSize;
          const hi = (end < hiAbs ? end : hiAbs) - base;
          // find the transaction of this segment (atomics: one that does not overlap); a segment
          // beyond every one seen so far is new without a search (strided warps)
          let t = -1;
          if (!atomic && last >= 0 && segAddr[last] === seg) t = last;
          else if (seg < minSeg || seg > maxSeg) t = -1;
          else {
            for (let i = 0; i < n; i++) {
              if (segAddr[i] !== seg) continue;
              if (atomic && this.overlaps(i, lo, hi)) continue;
              t = i;
              break;
            }
          }
          if (t < 0) {
            t = n++;
            segAddr[t] = seg;
            this.lineBase[t] = base;
            chunks[t] = 0;
            lanes[t] = 0;
            const b = t * 4;
            bytes[b] = 0;
            bytes[b + 1] = 0;
            bytes[b + 2] = 0;
            bytes[b + 3] = 0;
            if (seg < minSeg) minSeg = seg;
            if (seg > maxSeg) maxSeg = seg;
          }
          last = t;
          lanes[t] = (lanes[t]! | (1 << lane)) >>> 0;
          chunks[t] = chunks[t]! | sectorBits(lo, hi);
          const w = lo >>> 5;
          if (w === (hi - 1) >>> 5) {
            const i = t * 4 + w;
            bytes[i] = (bytes[i]! | wordRange(w, lo, hi)) >>> 0;
          } else this.markBytes(t, lo, hi);
          seg = hiAbs;
        }
      }
      // order by segment address (stable: creation order among equal addresses, for atomics)
      const order = this.order;
      for (let i = 0; i < n; i++) {
        let j = i;
        const s = this.segAddr[i]!;
        while (j > 0 && this.segAddr[order[j - 1]!]! > s) {
          order[j] = order[j - 1]!;
          j--;
        }
        order[j] = i;
      }
      for (let k = 0; k < n; k++) this.emit(order[k]!, segSize, reduce, out);
    }
    return out.count;
  }

  /** True when transaction `t` already has a byte in [lo, hi) (line-relative). */
  private overlaps(t: number, lo: number, hi: number): boolean {
    for (let w = lo >>> 5; w <= (hi - 1) >>> 5; w++) {
      if ((this.bytes[t * 4 + w]! & wordRange(w, lo, hi)) !== 0) return true;
    }
    return false;
  }

  /** Sets bytes [lo, hi) (line-relative) in transaction `t`'s byte mask. */
  private markBytes(t: number, lo: number, hi: number): void {
    for (let w = lo >>> 5; w <= (hi - 1) >>> 5; w++) {
      const i = t * 4 + w;
      this.bytes[i] = (this.bytes[i]! | wordRange(w, lo, hi)) >>> 0;
    }
  }

  /** Writes scratch transaction `t` to `out`, applying the reduction rule when `reduce`. */
  private emit(t: number, segSize: number, reduce: boolean, out: CoalescedAccesses): void {
    const seg = this.segAddr[t]!;
    const q = this.chunks[t]!;
    let addr = seg;
    let size = segSize;
    if (reduce && segSize >= 64) {
      let halves: number; // bit 0 = lower 32 bytes of the 64-byte piece, bit 1 = upper
      if (segSize === 128) {
        const lower = q & 3;
        const upper = q & 12;
        if (lower !== 0 && upper === 0) {
          size = 64;
          halves = lower;
        } else if (lower === 0 && upper !== 0) {
          size = 64;
          addr = seg + 64;
          halves = upper >>> 2;
        } else halves = 0;
      } else {
        halves = (q >>> ((seg % 128) / 32)) & 3;
      }
      if (size === 64) {
        if (halves === 1) size = 32;
        else if (halves === 2) {
          size = 32;
          addr += 32;
        }
      }
    }
    const i = out.count++;
    out.addr[i] = addr;
    out.size[i] = size;
    out.lineAddr[i] = this.lineBase[t]!;
    out.sectorMask[i] = q;
    out.laneMask[i] = this.lanes[t]!;
    const b = t * 4;
    const o = i * 4;
    out.byteMask[o] = this.bytes[b]!;
    out.byteMask[o + 1] = this.bytes[b + 1]!;
    out.byteMask[o + 2] = this.bytes[b + 2]!;
    out.byteMask[o + 3] = this.bytes[b + 3]!;
  }
}

/** Bits of the 32-byte sectors covering line-relative bytes [lo, hi). */
function sectorBits(lo: number, hi: number): number {
  const s0 = lo >>> 5;
  const s1 = (hi - 1) >>> 5;
  return ((1 << (s1 + 1)) - 1) & ~((1 << s0) - 1);
}

/** Mask of the bytes of 32-bit word `w` (bytes 32w..32w+31) inside [lo, hi). */
function wordRange(w: number, lo: number, hi: number): number {
  const base = w << 5;
  const a = lo > base ? lo - base : 0;
  const b = hi < base + 32 ? hi - base : 32;
  const width = b - a;
  if (width >= 32) return 0xffffffff;
  return (((1 << width) - 1) << a) >>> 0;
}
