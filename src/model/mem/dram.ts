/**
 * DRAM channel timing: banks (in bank groups) with their row buffers, GDDR5 timing constraints,
 * a request queue and an FR-FCFS or FIFO scheduler, after GPGPU-Sim's `dram_t` (`dram.cc`:
 * `cycle`, `issue_row_command`, `issue_col_command`, `scheduler_fifo`) and `frfcfs_scheduler`
 * (`dram_sched.cc`), with the derived timings of `memory_config::init` (`gpu-sim.h`).
 * Every number of cycles here is a DRAM command-clock cycle (GTX480: 924 MHz).
 *
 * ## Requests
 * {@link DramChannel.push} takes an already decoded request (bank, row, column; see
 * `address-map.ts`), so the channel is independent of the address mapping. A request of `bytes`
 * needs `ceil(bytes / atomBytes)` column commands, `atomBytes = burstLength x busWidthBytes x
 * chipsPerChannel` (GPGPU-Sim `dram_atom_size`; GTX480: 8 x 4 x 2 = 64 B, so a 128-byte L2 line
 * takes 2 reads). The queue holds at most `queueSize` requests waiting for a bank
 * (`-gpgpu_frfcfs_dram_sched_queue_size`); `push` refuses more.
 *
 * ## One DRAM cycle ({@link DramChannel.cycle})
 * 1. Requests whose data transfer has finished by this cycle are reported (ids and completion
 *    cycles in {@link DramChannel.doneIds} / {@link DramChannel.doneCycles}).
 * 2. Scheduling: at most one waiting request is handed to a bank with no request in service.
 *    `frFcfs`: banks are visited round-robin from a rotating priority; the first free bank with
 *    waiting requests takes the oldest request to its open row (a row hit) if any, else its
 *    oldest request (GPGPU-Sim's FR-FCFS: row hits first, then oldest). `fifo`: the oldest
 *    waiting request of the whole queue goes to its bank if that bank is free, else nothing
 *    moves (head-of-line blocking, GPGPU-Sim `scheduler_fifo`).
 * 3. Command issue: at most one command per cycle (a single command bus). Column commands come
 *    first: the first bank (round-robin) whose request is a row hit and whose constraints allow
 *    it issues RD or WR. Otherwise the first bank whose request needs a row command issues ACT
 *    (bank precharged) or PRE (another row open). A row command moves the priority past its
 *    bank. (GPGPU-Sim's single-bus loop may issue a row and a column command in one cycle; this
 *    model issues exactly one.)
 *
 * ## Constraints (earliest cycle a command may issue)
 * - ACT to bank b: tRRD after any ACT; tRC after ACT to b; tRP after PRE to b.
 * - RD to b: tRCD after ACT to b; tCCD after any column command; tCCDL after a column command to
 *   the same bank group; tWTR = tWL + BL/r + tCDLR after any WR.
 * - WR to b: tRCDWR = tRCD - (tWL + 1) after ACT to b; tCCD; tCCDL; tRTW = tCL + BL/r + 2 - tWL
 *   after any RD.
 * - PRE to b: tRAS after ACT to b; BL/r (read to precharge) after RD to b; tRTPL after RD to the
 *   same bank group; tWTP = tWL + BL/r + tWR after WR to b.
 * Here `BL/r = burstLength / dataCommandFreqRatio` is the data-bus time of one column command
 * (GDDR5: 8 / 4 = 2 command cycles). Bank groups: GPGPU-Sim `nbkgrp`; the group of bank b is
 * `b >> log2(banks / bankGroups)` (`higherBits`) or `b mod bankGroups` (`lowerBits`,
 * `-dram_bnkgrp_indexing_policy 1`, GTX480).
 *
 * ## Completion
 * A read request completes `tCL + BL/r` cycles after its last RD (data fully on the bus); a
 * write `tWL + BL/r` after its last WR. (GPGPU-Sim pipes column commands through a queue of
 * length CL and frees the request when the last atom pops.) There is no refresh and no tFAW,
 * as in GPGPU-Sim.
 *
 * ## Statistics
 * Row hits / misses (counted when a request is handed to its bank: hit = its row is open),
 * activates, precharges, read and write column commands, completed requests, per-bank busy
 * cycles (a request in service), data-bus busy cycles (BL/r per column command: GPGPU-Sim
 * `bwutil`), cycles and idle-command (NOP) cycles. Achieved bandwidth = `dataBusBusyCycles /
 * cycles` of the peak `atomBytes / (BL/r)` bytes per command cycle.
 *
 * ## Observing
 * After each {@link DramChannel.cycle}, `lastCommand` / `lastCommandBank` / `lastCommandRow` /
 * `lastCommandReqId` describe the command issued in that cycle (`none` for a NOP), so the
 * wrapping actor can trace commands without the model allocating anything.
 *
 * Hot path: preallocated typed arrays and intrusive lists; no allocation per cycle.
 */

import { InputError } from '../../errors.ts';
import { choiceParam, intParam, log2, paramError, pow2Param } from './params.ts';

/** DRAM scheduler name. */
export type DramScheduler = 'frFcfs' | 'fifo';

/** DRAM command codes reported in {@link DramChannel.lastCommand}. */
export const DramCommand = { none: -1, act: 0, pre: 1, rd: 2, wr: 3 } as const;
/** A {@link DramCommand} code. */
export type DramCommand = (typeof DramCommand)[keyof typeof DramCommand];
/** JEDEC name of each command, indexed by code (ACT, PRE, RD, WR). */
export const DRAM_COMMAND_NAME: readonly string[] = Object.freeze(['ACT', 'PRE', 'RD', 'WR']);

/**
 * Parameters of a {@link DramChannel}; times in DRAM command cycles. GTX480 (hynix H5GQ1H24AFR,
 * `-gpgpu_dram_timing_opt "nbk=16:CCD=2:RRD=6:RCD=12:RAS=28:RP=12:RC=40:CL=12:WL=4:CDLR=5:WR=12:
 * nbkgrp=4:CCDL=3:RTPL=2"`, BL 8, bus width 4 B, 2 chips per channel, data:command 4, frFcfs,
 * queue 64).
 */
export interface DramParams {
  /** Banks per channel (`nbk`). */
  readonly banks: number;
  /** Bank groups (`nbkgrp`), dividing `banks`; default 1 (no bank groups). */
  readonly bankGroups?: number;
  /** Which bank bits select the group; default `higherBits`. */
  readonly bankGroupIndexing?: 'higherBits' | 'lowerBits';
  /** Column to column, any bank (`CCD`). */
  readonly tCCD: number;
  /** Column to column, same bank group (`CCDL`); default 0. */
  readonly tCCDL?: number;
  /** Activate to activate, any bank (`RRD`). */
  readonly tRRD: number;
  /** Activate to read (`RCD`). */
  readonly tRCD: number;
  /** Activate to precharge (`RAS`). */
  readonly tRAS: number;
  /** Precharge to activate (`RP`). */
  readonly tRP: number;
  /** Activate to activate, same bank (`RC`). */
  readonly tRC: number;
  /** Read latency, CAS (`CL`). */
  readonly tCL: number;
  /** Write latency (`WL`). */
  readonly tWL: number;
  /** Last write data to read command (`CDLR`). */
  readonly tCDLR: number;
  /** Write recovery (`WR`). */
  readonly tWR: number;
  /** Read to precharge, same bank group (`RTPL`); default 0. */
  readonly tRTPL?: number;
  /** Burst length in data beats (`-gpgpu_dram_burst_length`). */
  readonly burstLength: number;
  /** Bytes per beat per chip (`-gpgpu_dram_buswidth`). */
  readonly busWidthBytes: number;
  /** Chips per channel (`-gpgpu_n_mem_per_ctrlr`); default 1. */
  readonly chipsPerChannel?: number;
  /** Data beats per command cycle (`-dram_data_command_freq_ratio`, GDDR5 4); default 2. */
  readonly dataCommandFreqRatio?: number;
  /** Scheduler; default `frFcfs`. */
  readonly scheduler?: DramScheduler;
  /** Requests waiting for a bank, at most (`-gpgpu_frfcfs_dram_sched_queue_size`). */
  readonly queueSize: number;
}

/** Timings derived from {@link DramParams} (GPGPU-Sim `memory_config::init`). */
export interface DramDerivedTimings {
  /** Command cycles of data transfer per column command: burstLength / dataCommandFreqRatio. */
  readonly burstCycles: number;
  /** Bytes per column command: burstLength x busWidthBytes x chipsPerChannel. */
  readonly atomBytes: number;
  /** Activate to write: max(0, tRCD - (tWL + 1)). */
  readonly tRCDWR: number;
  /** Read to write: tCL + burstCycles + 2 - tWL. */
  readonly tRTW: number;
  /** Write to read: tWL + burstCycles + tCDLR. */
  readonly tWTR: number;
  /** Write to precharge: tWL + burstCycles + tWR. */
  readonly tWTP: number;
}

/** Computes {@link DramDerivedTimings}. @throws InputError when BL/ratio is below 1. */
export function deriveDramTimings(p: DramParams): DramDerivedTimings {
  const ratio = p.dataCommandFreqRatio ?? 2;
  const burstCycles = Math.floor(p.burstLength / ratio);
  if (burstCycles < 1) throw paramError('DramParams', 'burstLength', `burstLength / dataCommandFreqRatio must be >= 1, got ${p.burstLength} / ${ratio}`);
  return {
    burstCycles,
    atomBytes: p.burstLength * p.busWidthBytes * (p.chipsPerChannel ?? 1),
    tRCDWR: Math.max(0, p.tRCD - (p.tWL + 1)),
    tRTW: Math.max(0, p.tCL + burstCycles + 2 - p.tWL),
    tWTR: p.tWL + burstCycles + p.tCDLR,
    tWTP: p.tWL + burstCycles + p.tWR,
  };
}

const MODEL = 'DramParams';

/** One DRAM channel (see the file comment). */
export class DramChannel {
  /** Banks. */
  readonly banks: number;
  /** Bank groups. */
  readonly bankGroups: number;
  /** Scheduler in use. */
  readonly scheduler: DramScheduler;
  /** Queue capacity (requests waiting for a bank). */
  readonly queueSize: number;
  /** Derived timings. */
  readonly derived: DramDerivedTimings;
  /** Bank group of each bank. */
  readonly groupOf: Int32Array;

  /** Ids of the requests completed by the last {@link cycle} (first {@link doneCount}). */
  doneIds: Float64Array;
  /** Their completion cycles (when their last data beat left the bus). */
  doneCycles: Float64Array;
  /** Whether each of them was a write. */
  doneWrites: Uint8Array;
  /** Number of requests completed by the last {@link cycle}. */
  doneCount = 0;
  /** Command issued by the last {@link cycle} ({@link DramCommand}; `none` for a NOP). */
  lastCommand: DramCommand = DramCommand.none;
  /** Bank of that command (-1 for a NOP). */
  lastCommandBank = -1;
  /** Row of that command: the row opened (ACT), closed (PRE) or accessed (RD/WR); -1 for a NOP. */
  lastCommandRow = -1;
  /** Request id served by that command (-1 for a NOP). */
  lastCommandReqId = -1;

  /** Requests handed to a bank whose row was open. */
  rowHits = 0;
  /** Requests handed to a bank whose row was not open. */
  rowMisses = 0;
  /** ACT commands. */
  activates = 0;
  /** PRE commands. */
  precharges = 0;
  /** RD commands. */
  reads = 0;
  /** WR commands. */
  writes = 0;
  /** Read requests completed. */
  completedReads = 0;
  /** Write requests completed. */
  completedWrites = 0;
  /** Requests accepted by {@link push}. */
  accepted = 0;
  /** Requests refused by {@link push} (queue full). */
  refused = 0;
  /** Cycles simulated. */
  cycles = 0;
  /** Cycles with no command issued. */
  nopCycles = 0;
  /** Command cycles the data bus was busy (burstCycles per column command). */
  dataBusBusyCycles = 0;
  /** Cycles each bank had a request in service. */
  readonly bankBusyCycles: Float64Array;
  /** Sum over finished transfers of (completion cycle - cycle pushed); divide by completed requests for the mean latency. */
  latencySum = 0;

  // timing parameters
  private readonly tCCD: number;
  private readonly tCCDL: number;
  private readonly tRRD: number;
  private readonly tRCD: number;
  private readonly tRAS: number;
  private readonly tRP: number;
  private readonly tRC: number;
  private readonly tCL: number;
  private readonly tWL: number;
  private readonly tRTPL: number;

  private nowCycle = 0;
  private prio = 0;

  // request slots
  private readonly sId: Float64Array;
  private readonly sBank: Int32Array;
  private readonly sRow: Float64Array;
  private readonly sCol: Float64Array;
  private readonly sWrite: Uint8Array;
  private readonly sCols: Int32Array;
  private readonly sArrive: Float64Array;
  private readonly freeSlots: Int32Array;
  private freeTop: number;
  // waiting queue: global arrival-order list and per-bank lists
  private readonly gNext: Int32Array;
  private readonly gPrev: Int32Array;
  private gHead = -1;
  private gTail = -1;
  private readonly bNext: Int32Array;
  private readonly bPrev: Int32Array;
  private readonly bHead: Int32Array;
  private readonly bTail: Int32Array;
  private waiting = 0;
  // banks
  private readonly bCur: Int32Array;
  private readonly bActive: Uint8Array;
  private readonly bRow: Float64Array;
  private readonly bNextAct: Float64Array;
  private readonly bNextRd: Float64Array;
  private readonly bNextWr: Float64Array;
  private readonly bNextPre: Float64Array;
  private readonly grpNextCol: Float64Array;
  private readonly grpNextPre: Float64Array;
  private inService = 0;
  // channel-wide
  private nextAct = 0;
  private nextCol = 0;
  private nextRd = 0;
  private nextWr = 0;
  // transfers in flight, sorted by completion cycle
  private fId: Float64Array;
  private fDone: Float64Array;
  private fWrite: Uint8Array;
  private fCount = 0;

  /** @throws InputError for a bad parameter (field named). */
  constructor(params: DramParams) {
    this.banks = intParam(MODEL, 'banks', params.banks, 1, 1024);
    this.bankGroups = intParam(MODEL, 'bankGroups', params.bankGroups ?? 1, 1, this.banks);
    if (this.banks % this.bankGroups !== 0) throw paramError(MODEL, 'bankGroups', `must divide banks (${this.banks}), got ${this.bankGroups}`);
    const indexing = choiceParam(MODEL, 'bankGroupIndexing', params.bankGroupIndexing, ['higherBits', 'lowerBits'] as const, 'higherBits');
    this.groupOf = new Int32Array(this.banks);
    if (this.bankGroups > 1) {
      pow2Param(MODEL, 'bankGroups', this.bankGroups);
      pow2Param(MODEL, 'banks', this.banks);
      const shift = log2(this.banks / this.bankGroups);
      for (let b = 0; b < this.banks; b++) this.groupOf[b] = indexing === 'higherBits' ? b >> shift : b & (this.bankGroups - 1);
    }
    this.tCCD = intParam(MODEL, 'tCCD', params.tCCD, 0);
    this.tCCDL = intParam(MODEL, 'tCCDL', params.tCCDL ?? 0, 0);
    this.tRRD = intParam(MODEL, 'tRRD', params.tRRD, 0);
    this.tRCD = intParam(MODEL, 'tRCD', params.tRCD, 0);
    this.tRAS = intParam(MODEL, 'tRAS', params.tRAS, 0);
    this.tRP = intParam(MODEL, 'tRP', params.tRP, 0);
    this.tRC = intParam(MODEL, 'tRC', params.tRC, 0);
    this.tCL = intParam(MODEL, 'tCL', params.tCL, 0);
    this.tWL = intParam(MODEL, 'tWL', params.tWL, 0);
    intParam(MODEL, 'tCDLR', params.tCDLR, 0);
    intParam(MODEL, 'tWR', params.tWR, 0);
    this.tRTPL = intParam(MODEL, 'tRTPL', params.tRTPL ?? 0, 0);
    intParam(MODEL, 'burstLength', params.burstLength, 1);
    intParam(MODEL, 'busWidthBytes', params.busWidthBytes, 1);
    intParam(MODEL, 'chipsPerChannel', params.chipsPerChannel ?? 1, 1);
    intParam(MODEL, 'dataCommandFreqRatio', params.dataCommandFreqRatio ?? 2, 1);
    this.derived = deriveDramTimings(params);
    this.scheduler = choiceParam(MODEL, 'scheduler', params.scheduler, ['frFcfs', 'fifo'] as const, 'frFcfs');
    this.queueSize = intParam(MODEL, 'queueSize', params.queueSize, 1, 1 << 20);

    const slots = this.queueSize + this.banks;
    this.sId = new Float64Array(slots);
    this.sBank = new Int32Array(slots);
    this.sRow = new Float64Array(slots);
    this.sCol = new Float64Array(slots);
    this.sWrite = new Uint8Array(slots);
    this.sCols = new Int32Array(slots);
    this.sArrive = new Float64Array(slots);
    this.freeSlots = new Int32Array(slots);
    for (let i = 0; i < slots; i++) this.freeSlots[i] = slots - 1 - i;
    this.freeTop = slots;
    this.gNext = new Int32Array(slots);
    this.gPrev = new Int32Array(slots);
    this.bNext = new Int32Array(slots);
    this.bPrev = new Int32Array(slots);
    this.bHead = new Int32Array(this.banks).fill(-1);
    this.bTail = new Int32Array(this.banks).fill(-1);
    this.bCur = new Int32Array(this.banks).fill(-1);
    this.bActive = new Uint8Array(this.banks);
    this.bRow = new Float64Array(this.banks).fill(-1);
    this.bNextAct = new Float64Array(this.banks);
    this.bNextRd = new Float64Array(this.banks);
    this.bNextWr = new Float64Array(this.banks);
    this.bNextPre = new Float64Array(this.banks);
    this.grpNextCol = new Float64Array(this.bankGroups);
    this.grpNextPre = new Float64Array(this.bankGroups);
    this.bankBusyCycles = new Float64Array(this.banks);
    const inflight = slots + 8;
    this.fId = new Float64Array(inflight);
    this.fDone = new Float64Array(inflight);
    this.fWrite = new Uint8Array(inflight);
    this.doneIds = new Float64Array(inflight);
    this.doneCycles = new Float64Array(inflight);
    this.doneWrites = new Uint8Array(inflight);
  }

  /** The next cycle {@link cycle} will simulate (cycles start at 0). */
  get now(): number {
    return this.nowCycle;
  }

  /** Requests waiting for a bank. */
  get queued(): number {
    return this.waiting;
  }

  /** True when {@link push} would refuse a request. */
  get full(): boolean {
    return this.waiting >= this.queueSize;
  }

  /** True when nothing is queued, in service or transferring (the channel may sleep). */
  get idle(): boolean {
    return this.waiting === 0 && this.inService === 0 && this.fCount === 0;
  }

  /** Whether bank `b` has a row open, and which (-1 when precharged). */
  openRow(b: number): number {
    return this.bActive[b] === 1 ? this.bRow[b]! : -1;
  }

  /** Fraction of simulated cycles the data bus was busy (0 before any cycle). */
  bandwidthUtilization(): number {
    return this.cycles === 0 ? 0 : this.dataBusBusyCycles / this.cycles;
  }

  /**
   * Queues a decoded request. Returns false (and counts a refusal) when `queueSize` requests
   * are already waiting.
   *
   * @param id caller's request id (number below 2^53).
   * @param bank bank index, 0..banks-1.
   * @param row row index, a non-negative integer.
   * @param col column (kept for traces; does not affect timing).
   * @param isWrite write (true) or read.
   * @param bytes bytes to transfer (>= 1); default one atom.
   * @throws InputError for a bank out of range, a bad row or a bad size.
   */
  push(id: number, bank: number, row: number, col: number, isWrite: boolean, bytes = this.derived.atomBytes): boolean {
    if (!Number.isInteger(bank) || bank < 0 || bank >= this.banks) {
      throw new InputError({ file: '<dram>' }, `bank must be an integer in [0, ${this.banks - 1}], got ${bank}`, 'bank');
    }
    if (!Number.isInteger(row) || row < 0) throw new InputError({ file: '<dram>' }, `must be a non-negative integer, got ${row}`, 'row');
    if (!Number.isInteger(bytes) || bytes < 1) throw new InputError({ file: '<dram>' }, `must be a positive integer, got ${bytes}`, 'bytes');
    if (this.waiting >= this.queueSize) {
      this.refused++;
      return false;
    }
    const s = this.freeSlots[--this.freeTop]!;
    this.sId[s] = id;
    this.sBank[s] = bank;
    this.sRow[s] = row;
    this.sCol[s] = col;
    this.sWrite[s] = isWrite ? 1 : 0;
    this.sCols[s] = Math.ceil(bytes / this.derived.atomBytes);
    this.sArrive[s] = this.nowCycle;
    // append to the global list
    this.gNext[s] = -1;
    this.gPrev[s] = this.gTail;
    if (this.gTail >= 0) this.gNext[this.gTail] = s;
    else this.gHead = s;
    this.gTail = s;
    // append to the bank list
    this.bNext[s] = -1;
    this.bPrev[s] = this.bTail[bank]!;
    if (this.bTail[bank]! >= 0) this.bNext[this.bTail[bank]!] = s;
    else this.bHead[bank] = s;
    this.bTail[bank] = s;
    this.waiting++;
    this.accepted++;
    return true;
  }

  /**
   * Simulates one DRAM cycle (the cycle {@link now}) and advances to the next. Returns the
   * number of requests that completed by this cycle; their ids, completion cycles and kinds are
   * in {@link doneIds}, {@link doneCycles}, {@link doneWrites} (in completion order).
   */
  cycle(): number {
    const t = this.nowCycle;
    // 1. completions
    let k = 0;
    while (k < this.fCount && this.fDone[k]! <= t) k++;
    this.doneCount = k;
    for (let i = 0; i < k; i++) {
      this.doneIds[i] = this.fId[i]!;
      this.doneCycles[i] = this.fDone[i]!;
      this.doneWrites[i] = this.fWrite[i]!;
      if (this.fWrite[i] === 1) this.completedWrites++;
      else this.completedReads++;
    }
    if (k > 0) {
      for (let i = k; i < this.fCount; i++) {
        this.fId[i - k] = this.fId[i]!;
        this.fDone[i - k] = this.fDone[i]!;
        this.fWrite[i - k] = this.fWrite[i]!;
      }
      this.fCount -= k;
    }
    // 2. scheduling
    if (this.waiting > 0) {
      if (this.scheduler === 'fifo') {
        const h = this.gHead;
        if (this.bCur[this.sBank[h]!]! < 0) this.assign(h);
      } else {
        for (let i = 0; i < this.banks; i++) {
          const b = (i + this.prio) % this.banks;
          if (this.bCur[b]! >= 0 || this.bHead[b]! < 0) continue;
          this.assign(this.pickFrFcfs(b));
          this.prio = (this.prio + 1) % this.banks;
          break;
        }
      }
    }
    // 3. one command
    this.lastCommand = DramCommand.none;
    this.lastCommandBank = -1;
    this.lastCommandRow = -1;
    this.lastCommandReqId = -1;
    let issued = false;
    if (this.inService > 0) issued = this.issueColumn(t) || this.issueRow(t);
    // 4. statistics
    if (!issued) this.nopCycles++;
    if (this.inService > 0) {
      for (let b = 0; b < this.banks; b++) if (this.bCur[b]! >= 0) this.bankBusyCycles[b]!++;
    }
    this.cycles++;
    this.nowCycle = t + 1;
    return this.doneCount;
  }

  /** Oldest waiting request of bank `b` to its open row, else its oldest. */
  private pickFrFcfs(b: number): number {
    const head = this.bHead[b]!;
    if (this.bActive[b] === 1) {
      const row = this.bRow[b]!;
      for (let s = head; s >= 0; s = this.bNext[s]!) if (this.sRow[s] === row) return s;
    }
    return head;
  }

  /** Moves waiting request `s` into service at its bank. */
  private assign(s: number): void {
    const b = this.sBank[s]!;
    // unlink from the global list
    const gp = this.gPrev[s]!;
    const gn = this.gNext[s]!;
    if (gp >= 0) this.gNext[gp] = gn;
    else this.gHead = gn;
    if (gn >= 0) this.gPrev[gn] = gp;
    else this.gTail = gp;
    // unlink from the bank list
    const bp = this.bPrev[s]!;
    const bn = this.bNext[s]!;
    if (bp >= 0) this.bNext[bp] = bn;
    else this.bHead[b] = bn;
    if (bn >= 0) this.bPrev[bn] = bp;
    else this.bTail[b] = bp;
    this.waiting--;
    this.bCur[b] = s;
    this.inService++;
    if (this.bActive[b] === 1 && this.bRow[b] === this.sRow[s]) this.rowHits++;
    else this.rowMisses++;
  }

  /** Issues the first ready RD/WR (round-robin from the priority bank). */
  private issueColumn(t: number): boolean {
    if (t < this.nextCol) return false;
    for (let i = 0; i < this.banks; i++) {
      const b = (i + this.prio) % this.banks;
      const s = this.bCur[b]!;
      if (s < 0 || this.bActive[b] !== 1 || this.bRow[b] !== this.sRow[s]) continue;
      const g = this.groupOf[b]!;
      if (t < this.grpNextCol[g]!) continue;
      const write = this.sWrite[s] === 1;
      if (write ? t < this.bNextWr[b]! || t < this.nextWr : t < this.bNextRd[b]! || t < this.nextRd) continue;
      const d = this.derived;
      this.nextCol = t + this.tCCD;
      this.grpNextCol[g] = t + this.tCCDL;
      if (write) {
        this.nextRd = Math.max(this.nextRd, t + d.tWTR);
        this.bNextPre[b] = Math.max(this.bNextPre[b]!, t + d.tWTP);
        this.writes++;
      } else {
        this.nextWr = Math.max(this.nextWr, t + d.tRTW);
        this.bNextPre[b] = Math.max(this.bNextPre[b]!, t + d.burstCycles);
        this.grpNextPre[g] = Math.max(this.grpNextPre[g]!, t + this.tRTPL);
        this.reads++;
      }
      this.dataBusBusyCycles += d.burstCycles;
      this.note(write ? DramCommand.wr : DramCommand.rd, b, s);
      const left = this.sCols[s]! - 1;
      this.sCols[s] = left;
      if (left === 0) {
        const done = t + (write ? this.tWL : this.tCL) + d.burstCycles;
        this.latencySum += done - this.sArrive[s]!;
        this.complete(this.sId[s]!, done, write);
        this.bCur[b] = -1;
        this.inService--;
        this.freeSlots[this.freeTop++] = s;
      }
      return true;
    }
    return false;
  }

  /** Issues the first ready ACT or PRE (round-robin from the priority bank). */
  private issueRow(t: number): boolean {
    for (let i = 0; i < this.banks; i++) {
      const b = (i + this.prio) % this.banks;
      const s = this.bCur[b]!;
      if (s < 0) continue;
      if (this.bActive[b] === 0) {
        if (t < this.nextAct || t < this.bNextAct[b]!) continue;
        this.bActive[b] = 1;
        this.bRow[b] = this.sRow[s]!;
        this.nextAct = t + this.tRRD;
        this.bNextAct[b] = t + this.tRC;
        this.bNextRd[b] = t + this.tRCD;
        this.bNextWr[b] = t + this.derived.tRCDWR;
        this.bNextPre[b] = Math.max(this.bNextPre[b]!, t + this.tRAS);
        this.activates++;
        this.note(DramCommand.act, b, s);
      } else if (this.bRow[b] !== this.sRow[s]) {
        if (t < this.bNextPre[b]! || t < this.grpNextPre[this.groupOf[b]!]!) continue;
        this.note(DramCommand.pre, b, s);
        this.bActive[b] = 0;
        this.bNextAct[b] = Math.max(this.bNextAct[b]!, t + this.tRP);
        this.precharges++;
      } else continue;
      this.prio = (b + 1) % this.banks;
      return true;
    }
    return false;
  }

  /** Records the command of this cycle (row = the bank's open row, i.e. before a PRE closes it). */
  private note(cmd: DramCommand, b: number, s: number): void {
    this.lastCommand = cmd;
    this.lastCommandBank = b;
    this.lastCommandRow = this.bRow[b]!;
    this.lastCommandReqId = this.sId[s]!;
  }

  /** Records a request whose data transfer ends at cycle `done`, keeping completion order. */
  private complete(id: number, done: number, write: boolean): void {
    if (this.fCount === this.fId.length) this.growInFlight();
    let i = this.fCount;
    while (i > 0 && this.fDone[i - 1]! > done) {
      this.fId[i] = this.fId[i - 1]!;
      this.fDone[i] = this.fDone[i - 1]!;
      this.fWrite[i] = this.fWrite[i - 1]!;
      i--;
    }
    this.fId[i] = id;
    this.fDone[i] = done;
    this.fWrite[i] = write ? 1 : 0;
    this.fCount++;
  }

  private growInFlight(): void {
    const n = this.fId.length * 2;
    const id = new Float64Array(n);
    const done = new Float64Array(n);
    const wr = new Uint8Array(n);
    id.set(this.fId);
    done.set(this.fDone);
    wr.set(this.fWrite);
    this.fId = id;
    this.fDone = done;
    this.fWrite = wr;
    this.doneIds = new Float64Array(n);
    this.doneCycles = new Float64Array(n);
    this.doneWrites = new Uint8Array(n);
  }
}
