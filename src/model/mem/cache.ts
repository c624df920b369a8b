/**
 * Cache controller step logic: a {@link TagArray}, an {@link MshrTable} and a miss queue
 * combined into the outcome of one access, after GPGPU-Sim's `data_cache::access` /
 * `process_tag_probe` with its read-hit, read-miss, write-hit and write-miss handlers
 * (`rd_hit_base`, `rd_miss_base` + `send_read_request`, `wr_hit_wb` / `wr_hit_wt` / `wr_hit_we` /
 * `wr_hit_global_we_local_wb`, `wr_miss_wa` / `wr_miss_no_wa`). Used for the L1D (per SM) and the
 * L2 slices (per memory sub-partition). Paper 001 §2.1 / §3.3: a miss needs a line, an MSHR and
 * a miss-queue entry; if any is missing the access is a reservation failure (`resFail`) and the
 * memory pipeline stalls.
 *
 * ## Outcomes of {@link CacheController.access}
 * - `hit`: the line is present (reads: made most recently used; writes: per write-hit policy).
 * - `hitReserved`: the request merged into the MSHR entry of a miss already in flight (a
 *   "pending hit"); it is answered by that line's fill.
 * - `miss`: for a read (or a write-allocate write), an MSHR entry was opened and a line read
 *   queued downstream; for a write with no write-allocate, the write was queued downstream.
 * - `resFail`: nothing changed; the caller retries later. {@link CacheController.lastReason}:
 *   `noLineToAllocate` (every way of the set is reserved; GPGPU-Sim `LINE_ALLOC_FAIL`),
 *   `missQueueFull` (`MISS_QUEUE_FULL`), `mshrFull` (`MSHR_ENRTY_FAIL`), `mshrMergeFull`
 *   (`MSHR_MERGE_ENRTY_FAIL`).
 *
 * Checks happen in GPGPU-Sim's order: tag probe (no line), then the miss queue (a read miss
 * needs room for 2 entries, the read and a possible write-back: `miss_queue_full(1)` is
 * `length + 1 >= size`), then the MSHR. As in GPGPU-Sim, a read that would merge into an MSHR
 * entry still fails with `missQueueFull` when the miss queue lacks those 2 entries.
 *
 * ## Write policies (GPGPU-Sim `<wr>` and `<wr_alloc>` config letters)
 * Write hit:
 * - `writeBack` (`B`): line becomes modified; nothing sent.
 * - `writeThrough` (`T`): the write is queued downstream (needs 1 miss-queue entry); the line
 *   stays clean (GPGPU-Sim marks it modified but never writes a write-through line back).
 * - `writeEvict` (`E`): the write is queued downstream and the line invalidated.
 * - `localWbGlobalWe` (`L`, GTX480 L1D): local-memory writes write back, global writes evict.
 * Write miss:
 * - `noWriteAllocate` (`N`): the write is queued downstream (1 entry); outcome `miss`.
 * - `writeAllocate` (`W`/`L`, L2): the line is fetched like a read miss (same resources) and the
 *   write is recorded in the MSHR entry, so the fill installs the line modified. Unlike
 *   GPGPU-Sim 3.x's `wr_miss_wa`, the write itself is not also forwarded downstream: this is a
 *   plain write-back, write-allocate cache whose only downstream writes are write-backs of
 *   dirty victims. (Combined with a write-through or write-evict hit policy, the line is fetched
 *   clean and the write is sent down as well.)
 * - `writeAllocateNaive` (`W` in GPGPU-Sim 4.x, `data_cache::wr_miss_wa_naive`): the write is
 *   sent downstream AND the line is fetched (clean; the write already went through), whatever
 *   the hit policy: a write miss costs the next level one line read and one write.
 *
 * Downstream traffic goes into the miss queue (bounded by `missQueueSize`) as
 * {@link MissKind} `read` (a whole line), `write` (the request's bytes) or `writeBack` (a whole
 * dirty victim line). The wrapping actor drains it with {@link CacheController.popMiss} when its
 * port has room. A dirty victim found at fill time (allocation on fill) is queued even beyond
 * `missQueueSize` (the queue grows; this is the only way it can).
 *
 * Hot path: numeric codes, typed arrays, no allocation per access.
 */

import { SimulationError } from '../../errors.ts';
import { MshrAddResult, MshrTable } from './mshr.ts';
import { choiceParam, intParam } from './params.ts';
import { LineState, ProbeStatus, TagArray, type TagArrayParams } from './tag-array.ts';

/** Write-hit policy (see the file comment). */
export type WriteHitPolicy = 'writeBack' | 'writeThrough' | 'writeEvict' | 'localWbGlobalWe';
/** Write-miss policy (see the file comment). */
export type WriteMissPolicy = 'writeAllocate' | 'writeAllocateNaive' | 'noWriteAllocate';

/**
 * Parameters of a {@link CacheController}: the tag array's, plus MSHR, miss queue and write
 * policies. GTX480 L1D (`N:32:128:4,L:L:m:N:H,S:64:8,8`): sets 32, ways 4, lineBytes 128,
 * lru, localWbGlobalWe, onMiss, noWriteAllocate, fermiHash, 64 MSHRs x 8, miss queue 8.
 * GTX480 L2 slice (`S:64:128:8,L:B:m:L:L,A:256:4,4`): 64 sets, 8 ways, 128 B, lru, writeBack,
 * onMiss, writeAllocate, linear, 256 MSHRs x 4, miss queue 4.
 */
export interface CacheParams extends TagArrayParams {
  /** MSHR entries. */
  readonly mshrEntries: number;
  /** Requests per MSHR entry. */
  readonly mshrMaxMerge: number;
  /** Miss queue entries (GPGPU-Sim `<mq>`), >= 1. */
  readonly missQueueSize: number;
  /** Write-hit policy; default `writeBack`. */
  readonly writeHit?: WriteHitPolicy;
  /** Write-miss policy; default `writeAllocate`. */
  readonly writeMiss?: WriteMissPolicy;
}

/** Outcome codes of {@link CacheController.access}. */
export const CacheOutcome = { hit: 0, hitReserved: 1, miss: 2, resFail: 3 } as const;
/** A {@link CacheOutcome} code. */
export type CacheOutcome = (typeof CacheOutcome)[keyof typeof CacheOutcome];
/** Name of each {@link CacheOutcome}, indexed by code. */
export const CACHE_OUTCOME_NAME: readonly string[] = Object.freeze(['hit', 'hitReserved', 'miss', 'resFail']);

/** Reservation-failure reason codes. */
export const ResFailReason = { mshrFull: 0, mshrMergeFull: 1, missQueueFull: 2, noLineToAllocate: 3 } as const;
/** A {@link ResFailReason} code. */
export type ResFailReason = (typeof ResFailReason)[keyof typeof ResFailReason];
/** Name of each {@link ResFailReason}, indexed by code. */
export const RES_FAIL_REASON_NAME: readonly string[] = Object.freeze(['mshrFull', 'mshrMergeFull', 'missQueueFull', 'noLineToAllocate']);

/** Kinds of downstream requests in the miss queue. */
export const MissKind = { read: 0, write: 1, writeBack: 2 } as const;
/** A {@link MissKind} code. */
export type MissKind = (typeof MissKind)[keyof typeof MissKind];
/** Name of each {@link MissKind}, indexed by code. */
export const MISS_KIND_NAME: readonly string[] = Object.freeze(['read', 'write', 'writeBack']);

/** One downstream request, filled in by {@link CacheController.peekMiss} / {@link CacheController.popMiss}. Reuse one instance. */
export class MissRequest {
  /** {@link MissKind} code. */
  kind: MissKind = MissKind.read;
  /** Byte address: the line address for `read` and `writeBack`, the request address for `write`. */
  addr = 0;
  /** Request id: the missing request for `read`, the write's id for `write`, -1 for `writeBack`. */
  reqId = -1;
  /** Bytes to transfer: the line size for `read`/`writeBack`, the write's size for `write`. */
  bytes = 0;
}

/** Named counters of a {@link CacheController} (see {@link CacheController.stats}). */
export interface CacheStats {
  readonly accesses: number;
  readonly reads: number;
  readonly writes: number;
  readonly hits: number;
  readonly hitReserved: number;
  readonly misses: number;
  readonly resFails: number;
  readonly resFailMshrFull: number;
  readonly resFailMshrMergeFull: number;
  readonly resFailMissQueueFull: number;
  readonly resFailNoLineToAllocate: number;
  readonly readsSent: number;
  readonly writesSent: number;
  readonly writeBacksSent: number;
  readonly fills: number;
}

const MODEL = 'CacheParams';

/** L1D / L2 controller step logic (see the file comment). */
export class CacheController {
  /** Tag array. */
  readonly tags: TagArray;
  /** MSHR table. */
  readonly mshr: MshrTable;
  /** Miss queue capacity. */
  readonly missQueueSize: number;
  /** Write-hit policy. */
  readonly writeHit: WriteHitPolicy;
  /** Write-miss policy. */
  readonly writeMiss: WriteMissPolicy;
  /** Reason of the last `resFail` ({@link ResFailReason}), -1 after any other outcome. */
  lastReason = -1;
  /** Line index touched by the last access (-1 when none). */
  lastLine = -1;

  /** Outcome counts of reads, indexed by {@link CacheOutcome}. */
  readonly readOutcomes = new Float64Array(4);
  /** Outcome counts of writes, indexed by {@link CacheOutcome}. */
  readonly writeOutcomes = new Float64Array(4);
  /** Reservation failures of reads, indexed by {@link ResFailReason}. */
  readonly readResFails = new Float64Array(4);
  /** Reservation failures of writes, indexed by {@link ResFailReason}. */
  readonly writeResFails = new Float64Array(4);
  /** Downstream requests queued, indexed by {@link MissKind}. */
  readonly sent = new Float64Array(3);
  /** Fills processed. */
  fills = 0;

  private mqKind: Uint8Array;
  private mqAddr: Float64Array;
  private mqId: Float64Array;
  private mqBytes: Int32Array;
  private mqHead = 0;
  private mqLen = 0;

  /** @throws InputError for a bad parameter (field named). */
  constructor(params: CacheParams) {
    this.tags = new TagArray(params);
    this.mshr = new MshrTable({ entries: params.mshrEntries, maxMerge: params.mshrMaxMerge });
    this.missQueueSize = intParam(MODEL, 'missQueueSize', params.missQueueSize, 1, 1 << 20);
    this.writeHit = choiceParam(MODEL, 'writeHit', params.writeHit, ['writeBack', 'writeThrough', 'writeEvict', 'localWbGlobalWe'] as const, 'writeBack');
    this.writeMiss = choiceParam(MODEL, 'writeMiss', params.writeMiss, ['writeAllocate', 'writeAllocateNaive', 'noWriteAllocate'] as const, 'writeAllocate');
    const cap = this.missQueueSize + 2;
    this.mqKind = new Uint8Array(cap);
    this.mqAddr = new Float64Array(cap);
    this.mqId = new Float64Array(cap);
    this.mqBytes = new Int32Array(cap);
  }

  /** Line size in bytes. */
  get lineBytes(): number {
    return this.tags.lineBytes;
  }

  /** Requests waiting in the miss queue. */
  get missQueueLength(): number {
    return this.mqLen;
  }

  /** GPGPU-Sim `miss_queue_full(n)`: true when `length + n >= missQueueSize`. */
  missQueueFull(n: number): boolean {
    return this.mqLen + n >= this.missQueueSize;
  }

  /** Request ids answered by the last {@link fill} (first {@link readyCount} entries; reused). */
  get readyIds(): Float64Array {
    return this.mshr.readyIds;
  }

  /** Number of ids answered by the last {@link fill}. */
  get readyCount(): number {
    return this.mshr.readyCount;
  }

  /**
   * One access (GPGPU-Sim `data_cache::access`). See the file comment for outcomes and policies.
   *
   * @param addr byte address (any byte of the line).
   * @param isWrite store (true) or load (false).
   * @param reqId caller's request id (answered later via {@link fill} for `miss`/`hitReserved` reads).
   * @param bytes bytes written, for the downstream write of write-through/evict/no-allocate
   *   writes; default the line size.
   * @param isLocal true for local-memory accesses (matters for `localWbGlobalWe`).
   * @returns a {@link CacheOutcome} code; {@link lastReason} tells why a `resFail` failed.
   */
  access(addr: number, isWrite: boolean, reqId: number, bytes = this.tags.lineBytes, isLocal = false): CacheOutcome {
    const tags = this.tags;
    const block = tags.blockAddr(addr);
    const probe = tags.probe(block);
    this.lastReason = -1;
    this.lastLine = tags.index;
    let outcome: CacheOutcome;
    if (!isWrite) {
      if (probe === ProbeStatus.hit) {
        tags.access(block);
        outcome = CacheOutcome.hit;
      } else if (probe === ProbeStatus.missNoLine) {
        outcome = this.fail(ResFailReason.noLineToAllocate);
      } else if (this.missQueueFull(1)) {
        outcome = this.fail(ResFailReason.missQueueFull);
      } else {
        outcome = this.sendRead(block, reqId, false);
      }
      this.readOutcomes[outcome]!++;
      if (outcome === CacheOutcome.resFail) this.readResFails[this.lastReason]!++;
      return outcome;
    }
    if (probe === ProbeStatus.hit) {
      outcome = this.writeHitStep(addr, block, reqId, bytes, isLocal);
    } else if (this.writeMiss === 'noWriteAllocate') {
      // no line needed: a set with every way reserved does not block the write
      if (this.missQueueFull(0)) outcome = this.fail(ResFailReason.missQueueFull);
      else {
        this.push(MissKind.write, addr, reqId, bytes);
        outcome = CacheOutcome.miss;
      }
    } else if (probe === ProbeStatus.missNoLine) {
      outcome = this.fail(ResFailReason.noLineToAllocate);
    } else if (this.missQueueFull(1)) {
      outcome = this.fail(ResFailReason.missQueueFull);
    } else if (this.hitPolicy(isLocal) === 'writeBack' && this.writeMiss === 'writeAllocate') {
      outcome = this.sendRead(block, reqId, true);
    } else {
      // naive write-allocate, or write-allocate under a write-through/evict hit policy: fetch
      // the line clean and send the write itself down too (the 2 queue entries checked above:
      // read + write)
      outcome = this.sendRead(block, reqId, false);
      if (outcome !== CacheOutcome.resFail) this.push(MissKind.write, addr, reqId, bytes);
    }
    this.writeOutcomes[outcome]!++;
    if (outcome === CacheOutcome.resFail) this.writeResFails[this.lastReason]!++;
    return outcome;
  }

  /**
   * The line of `lineAddr` arrived from below: installs it (valid, or modified when a write was
   * merged into its miss), releases its MSHR entry and returns how many requests it answers;
   * their ids are in {@link readyIds}. With allocation on fill, a dirty victim is queued for
   * write-back.
   * @throws SimulationError when no miss to that line is in flight.
   */
  fill(lineAddr: number): number {
    const tags = this.tags;
    const block = tags.blockAddr(lineAddr);
    if (!this.mshr.probe(block)) {
      throw new SimulationError(`cache fill of line ${block} with no miss in flight`, { lineAddr: block });
    }
    const idx = tags.fill(block);
    if (tags.allocation === 'onFill' && tags.victimValid && tags.victimDirty && this.writeHit !== 'writeThrough') {
      this.push(MissKind.writeBack, tags.victimAddr, -1, tags.lineBytes);
    }
    const n = this.mshr.ready(block);
    if (this.mshr.readyDirty && idx >= 0) tags.setModified(idx);
    this.fills++;
    return n;
  }

  /** Copies the oldest downstream request into `out` without removing it; false when empty. */
  peekMiss(out: MissRequest): boolean {
    if (this.mqLen === 0) return false;
    const i = this.mqHead;
    out.kind = this.mqKind[i]! as MissKind;
    out.addr = this.mqAddr[i]!;
    out.reqId = this.mqId[i]!;
    out.bytes = this.mqBytes[i]!;
    return true;
  }

  /** Removes the oldest downstream request into `out`; false when empty. */
  popMiss(out: MissRequest): boolean {
    if (!this.peekMiss(out)) return false;
    this.mqHead = (this.mqHead + 1) % this.mqKind.length;
    this.mqLen--;
    return true;
  }

  /** Invalidates every line (kernel-boundary flush). MSHRs and the miss queue are untouched. */
  invalidateAll(): void {
    this.tags.invalidateAll();
  }

  /** Counters by name (allocates; for reports). Names follow GPGPU-Sim's cache statistics. */
  stats(): CacheStats {
    const r = this.readOutcomes;
    const w = this.writeOutcomes;
    const rf = this.readResFails;
    const wf = this.writeResFails;
    const reads = r[0]! + r[1]! + r[2]! + r[3]!;
    const writes = w[0]! + w[1]! + w[2]! + w[3]!;
    return {
      accesses: reads + writes,
      reads,
      writes,
      hits: r[CacheOutcome.hit]! + w[CacheOutcome.hit]!,
      hitReserved: r[CacheOutcome.hitReserved]! + w[CacheOutcome.hitReserved]!,
      misses: r[CacheOutcome.miss]! + w[CacheOutcome.miss]!,
      resFails: r[CacheOutcome.resFail]! + w[CacheOutcome.resFail]!,
      resFailMshrFull: rf[ResFailReason.mshrFull]! + wf[ResFailReason.mshrFull]!,
      resFailMshrMergeFull: rf[ResFailReason.mshrMergeFull]! + wf[ResFailReason.mshrMergeFull]!,
      resFailMissQueueFull: rf[ResFailReason.missQueueFull]! + wf[ResFailReason.missQueueFull]!,
      resFailNoLineToAllocate: rf[ResFailReason.noLineToAllocate]! + wf[ResFailReason.noLineToAllocate]!,
      readsSent: this.sent[MissKind.read]!,
      writesSent: this.sent[MissKind.write]!,
      writeBacksSent: this.sent[MissKind.writeBack]!,
      fills: this.fills,
    };
  }

  /** Records a reservation failure and returns `resFail`. */
  private fail(reason: ResFailReason): CacheOutcome {
    this.lastReason = reason;
    return CacheOutcome.resFail;
  }

  /**
   * GPGPU-Sim `send_read_request` (+ the victim write-back of `rd_miss_base`): merge into an
   * in-flight miss, or open an MSHR entry and queue the line read. The caller has already
   * checked the miss queue has room for 2.
   */
  private sendRead(block: number, reqId: number, dirty: boolean): CacheOutcome {
    const tags = this.tags;
    const mshr = this.mshr;
    const inFlight = mshr.probe(block);
    if (mshr.full(block)) return this.fail(inFlight ? ResFailReason.mshrMergeFull : ResFailReason.mshrFull);
    const status = tags.access(block); // LRU touch, or allocation on miss (victim fields)
    this.lastLine = tags.index;
    const writeBack = status === ProbeStatus.miss && tags.allocation === 'onMiss' && tags.victimValid && tags.victimDirty && this.writeHit !== 'writeThrough';
    const merged = mshr.add(block, reqId, dirty) === MshrAddResult.merged;
    if (!merged) this.push(MissKind.read, block, reqId, tags.lineBytes);
    // the victim's write-back follows the read, as in GPGPU-Sim's rd_miss_base
    if (writeBack) this.push(MissKind.writeBack, tags.victimAddr, -1, tags.lineBytes);
    return merged ? CacheOutcome.hitReserved : CacheOutcome.miss;
  }

  /** Write hit per the write-hit policy. */
  private writeHitStep(addr: number, block: number, reqId: number, bytes: number, isLocal: boolean): CacheOutcome {
    const tags = this.tags;
    const idx = tags.index;
    const policy = this.hitPolicy(isLocal);
    if (policy === 'writeBack') {
      tags.access(block);
      tags.setModified(idx);
      return CacheOutcome.hit;
    }
    if (this.missQueueFull(0)) return this.fail(ResFailReason.missQueueFull);
    this.push(MissKind.write, addr, reqId, bytes);
    if (policy === 'writeThrough') tags.access(block);
    else tags.setState(idx, LineState.invalid);
    return CacheOutcome.hit;
  }

  /** Write-hit policy that applies to an access (`localWbGlobalWe` resolved by `isLocal`). */
  private hitPolicy(isLocal: boolean): 'writeBack' | 'writeThrough' | 'writeEvict' {
    return this.writeHit === 'localWbGlobalWe' ? (isLocal ? 'writeBack' : 'writeEvict') : this.writeHit;
  }

  /** Appends a downstream request, growing the ring when full (fill-time write-backs only). */
  private push(kind: MissKind, addr: number, reqId: number, bytes: number): void {
    const cap = this.mqKind.length;
    if (this.mqLen === cap) this.grow();
    const i = (this.mqHead + this.mqLen) % this.mqKind.length;
    this.mqKind[i] = kind;
    this.mqAddr[i] = addr;
    this.mqId[i] = reqId;
    this.mqBytes[i] = bytes;
    this.mqLen++;
    this.sent[kind]!++;
  }

  private grow(): void {
    const cap = this.mqKind.length;
    const kind = new Uint8Array(cap * 2);
    const addr = new Float64Array(cap * 2);
    const id = new Float64Array(cap * 2);
    const bytes = new Int32Array(cap * 2);
    for (let k = 0; k < this.mqLen; k++) {
      const i = (this.mqHead + k) % cap;
      kind[k] = this.mqKind[i]!;
      addr[k] = this.mqAddr[i]!;
      id[k] = this.mqId[i]!;
      bytes[k] = this.mqBytes[i]!;
    }
    this.mqKind = kind;
    this.mqAddr = addr;
    this.mqId = id;
    this.mqBytes = bytes;
    this.mqHead = 0;
  }
}
