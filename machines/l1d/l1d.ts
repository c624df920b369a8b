/**
 * l1d: the L1 data cache of one SM (`GPU.SM[i].L1D`), a {@link CacheController} (tag array,
 * MSHRs, miss queue) behind the LSU, in front of the interconnect.
 *
 * ## One cycle
 * 1. Fills (`up`, `mem.rsp` for a line read) install the line (`CacheController.fill`) and
 *    answer every LSU request merged into its MSHR entry; responses to bypassed atomics are
 *    passed back to the LSU.
 * 2. Answers whose time has come leave on `rsp` (fills first, then hits), while it has room.
 * 3. The miss queue drains to `down` while it has room: line reads (`mem.readReq`), writes
 *    (`mem.writeReq`, posted: nothing comes back) and write-backs. The LSU's store is answered
 *    when its write goes down (GPGPU-Sim answers a posted write at L1 acceptance).
 * 4. Up to `requestsPerCycle` requests are taken from `req` (tag lookup in the cycle of
 *    acceptance):
 *    - hit: answered `l1dLatency` cycles later (`GPGPU-Sim -gpgpu_l1_latency`);
 *    - miss: an MSHR entry opens and the line read is queued (sent down this cycle when the port
 *      has room); a later request to the same line merges (`hitReserved`) and is answered by the
 *      same fill;
 *    - reservation failure (`mshrFull`, `mshrMergeFull`, `missQueueFull`, `noLineToAllocate`;
 *      GPGPU-Sim `MSHR_ENRTY_FAIL`, `MSHR_MERGE_ENRTY_FAIL`, `MISS_QUEUE_FULL`,
 *      `LINE_ALLOC_FAIL`): the request stays at the head of `req` (back-pressure to the LSU)
 *      and is retried every cycle; each failed attempt is counted, as GPGPU-Sim counts them;
 *    - writes follow the configured policies; Fermi (`writeHit: 'localWbGlobalWe'` or
 *      `'writeEvict'`, `writeMiss: 'noWriteAllocate'`): a global write invalidates the line if
 *      present and goes down as a posted write;
 *    - atomics (`atomic: true`) bypass the cache (performed at L2): forwarded down as they are
 *      and answered with the response from below;
 *    - with `skipGlobal` (GPGPU-Sim `-gpgpu_gmem_skip_L1D 1`), global loads and stores bypass
 *      too (no lookup, counted in `l1d_bypassed`, not in `l1d_accesses`): loads are answered by
 *      the response from below, stores when they go down; local accesses still use the cache;
 *    - texture-cache line reads from the LSU's L1T (`tex: true`) are forwarded the same way
 *      (not L1D accesses, not counted in `l1d_bypassed`).
 *    With the NewCAR re-execution queue (`newcarEntries`, paper 004 §3.4; see below), a failed
 *    request leaves `req` for the queue instead of blocking it.
 * 5. Sleep unless work remains (every cycle while the re-execution queue holds a request).
 *
 * ## NewCAR (paper 004 §3.4, Figs. 5-6; spec `warp-level.md` §2.5 E, C10)
 * Where: at this unit's input stage, the one place that knows synchronously that a lookup failed
 * (004 Fig. 5 draws the queue "attached to the LSU", between the LSU and the caches; the LSU's
 * transactions reach the caches only through this stage, so the two placements see the same
 * requests in the same order). Per lookup slot (`requestsPerCycle`, default 1; R-E7):
 * 1. if the queue is not full and `req` has a request R (of warp `R.warp`): when R may bypass the
 *    warp's queued requests (Fig. 6, {@link NewCarQueue.mayBypass}) it is looked up, and when not
 *    accepted (reservation failure; for an atomic, texture read or skipped global access the port
 *    below full or, atomics, misses queued) it moves into the queue (condition 1,
 *    `newcar_enq_resfail`); when it may not bypass it moves into the queue without a lookup
 *    (condition 2, `newcar_enq_order`) and the slot's lookup is left to step 2;
 * 2. otherwise (queue full, `req` empty, or the lookup still free) one queued request allowed to
 *    leave is looked up ({@link NewCarQueue.select}: rotating cursor in age order); accepted: it
 *    leaves the queue (`newcar_processed`); not accepted: it stays (`newcar_retry_fail`, and its
 *    reservation failure counts in `l1d_res_fail` as any attempt does);
 * 3. while the queue is full, `req` is not taken: back-pressure on the LSU ("when the queue is
 *    full, the LSU is prohibited from issuing a new memory request", 004 §3.4).
 * A pause (`ctrl.pause`) stops taking from `req` and keeps re-executing queued requests until the
 * queue is empty (they were accepted by the unit). Off (`newcarEntries` absent): the unit does
 * exactly what it did before (GPGPU-Sim's head-of-line block, the baseline's memory conflict).
 *
 * Fill-to-answer takes no extra cycle: a fill arriving at cycle f answers its requests at f.
 *
 * Instruction fetch: the SM's L1I misses (FETCH `memOut`, optional ports `instIn`/`instOut`)
 * share this unit's way to the interconnect, as GPGPU-Sim's L1I, L1D and constant caches share
 * the core's memory port (`shader_memory_interface`): each line read is forwarded down at once
 * (ahead of the cycle's data misses) and its response is routed back on `instOut`
 * (`simt_core_cluster::icnt_cycle` -> `accept_fetch_response`). They are not L1D accesses.
 *
 * Sources: paper 001 §2.1/§3.3 (reservation failures), paper 004 §2.2; GPGPU-Sim `l1_cache`,
 * `data_cache::access`, `ldst_unit::memory_cycle`.
 */
import { z } from 'zod';
import { SimulationError } from '../../src/errors.ts';
import { Fifo } from '../../src/messaging/fifo.ts';
import type { Message } from '../../src/messaging/message.ts';
import type { InPort, OutPort } from '../../src/messaging/port.ts';
import { CacheController, CacheOutcome, MissKind, MissRequest, RES_FAIL_REASON_NAME } from '../../src/model/mem/cache.ts';
import { registerCacheStats } from '../../src/model/mem/cache-stats.ts';
import { cacheSpec } from '../../src/model/mem/specs.ts';
import { NEWCAR_ENQ_REASON_NAME, NewCarEnqReason, NewCarQueue } from '../../src/model/mem/newcar.ts';
import type { Counter } from '../../src/stats/registry.ts';
import { Lifecycle, unitLifecycleMachine } from '../../src/sim/lifecycle.ts';
import { cycleLogic, defineUnit, type UnitIo } from '../../src/sim/unit.ts';
import { GpuKind, type GpuMemRequest, type GpuMemResponse, type L1dEviction, memPacketBytes } from '../../src/protocol/gpu.ts';

/**
 * Spec of {@link l1d}. GTX480: `cache = { sets: 32, ways: 4, lineBytes: 128, setIndex:
 * 'fermiHash', replacement: 'lru', allocate: 'onMiss', writeHit: 'localWbGlobalWe', writeMiss:
 * 'noWriteAllocate', mshrEntries: 64, mshrMaxMerge: 8, missQueueSize: 8 }`, `l1dLatency` 1
 * (GPGPU-Sim 3.x) or 20+ (Accel-Sim).
 */
export const l1dSpec = z.strictObject({
  smId: z.int().min(0).describe('SM index, put in requests sent down so responses route back (index)'),
  cache: cacheSpec.describe('geometry, MSHRs, miss queue and write policies [-gpgpu_cache:dl1]'),
  l1dLatency: z.int().min(1).describe('cycles from acceptance of a hit to its answer leaving on topOut (core cycles) [-gpgpu_l1_latency]'),
  requestsPerCycle: z.int().min(1).optional().describe('requests looked up per cycle (requests); default 1 (one tag/data port)'),
  skipGlobal: z.boolean().optional().describe('global (not local) loads and stores bypass the cache: no tag lookup, forwarded down as they are and answered from below; default false [-gpgpu_gmem_skip_L1D]'),
  newcarChoice: z.enum(['rotate', 'oldest', 'rewind']).optional().describe("which queued request NewCAR re-executes: the next allowed to leave after a rotating cursor (rotate; default) or the oldest allowed to leave (oldest, spec R-E7; in effect FIFO)"),
  newcarEntries: z.int().min(1).optional().describe('entries of the NewCAR re-execution queue for requests that were not accepted (entries; paper 004 §3.4: 32); absent = none, a failed request blocks the input (GPGPU-Sim baseline)'),
});

/** Spec of {@link l1d}: SM index, cache, hit latency, lookups per cycle. */
export type L1dParams = z.infer<typeof l1dSpec>;

/** Mutable datapath state (mutated in place; DESIGN.md §3). */
export interface L1dState {
  readonly io: UnitIo;
  readonly p: L1dParams;
  readonly req: InPort;
  readonly rsp: OutPort;
  readonly down: OutPort;
  readonly up: InPort;
  /** Eviction announcements (`mem.evict`), or null when no unit listens (the port is unbound). */
  readonly evict: OutPort | null;
  /** MSHR occupancy reports to FETCH (`l1d.mshr`), or null when unbound (no L1I prefetcher). */
  readonly mshrOut: OutPort | null;
  /** Occupancy last reported on {@link mshrOut} (entries). */
  mshrReported: number;
  readonly ctrlIn: InPort;
  readonly lifecycle: Lifecycle;
  readonly ctrl: CacheController;
  readonly miss: MissRequest;
  /** Hit answers: requests and the cycle they may leave, in acceptance order. */
  readonly hitMsgs: Fifo<Message<GpuMemRequest>>;
  readonly hitReady: Fifo<number>;
  /** Answers ready now (fills, write acknowledgements, atomics). */
  readonly answers: Fifo<Message<GpuMemRequest>>;
  /** LSU requests waiting in an MSHR or in the miss queue (write), by request id. */
  readonly waiting: Map<number, Message<GpuMemRequest>>;
  /**
   * Writes that are both sent down (answered then) and in an MSHR entry (write-allocate under a
   * write-through/evict hit policy): their fill answers nothing.
   */
  readonly fillOnly: Set<number>;
  /** Atomics sent down, by the id of the message sent down. */
  readonly bypass: Map<number, Message<GpuMemRequest>>;
  /** Instruction line reads from FETCH (`instIn`), and their responses to FETCH (`instOut`). */
  readonly instIn: InPort;
  readonly instOut: OutPort;
  /** Instruction reads sent down, by the id of the message sent down. */
  readonly instPending: Set<number>;
  /** Instruction fills waiting for room on `instOut`. */
  readonly instAnswers: Fifo<Message>;
  /** Line read sent down -> time (ps) the miss started (tracing only). */
  readonly missStart: Map<number, number>;
  /** Start time (ps) of the current reservation-failure stall, -1 when none; its reason. */
  stallStart: number;
  stallReason: number;
  lastCycle: number;
  readonly atomics: { value: number };
  /** Global loads and stores forwarded down without a lookup (`skipGlobal`). */
  readonly bypassed: { value: number };
  readonly evictions: { value: number };
  readonly evictionsDropped: { value: number };
  /** The NewCAR re-execution queue (paper 004 §3.4), or null when off. */
  readonly car: NewCarQueue<Message<GpuMemRequest>> | null;
  /** NewCAR statistics (registered only when the queue is on), or null. */
  readonly carStats: NewCarStats | null;
  /** Why the last {@link lookupOne} did not accept: a `ResFailReason` code, or {@link PORT_FULL}. */
  lastFail: number;
}

/** NewCAR statistics of one L1D (spec `warp-level.md` §2.10). */
interface NewCarStats {
  readonly enqResFail: Counter;
  readonly enqOrder: Counter;
  readonly processed: Counter;
  readonly retryFail: Counter;
  readonly fullCycles: Counter;
  readonly occupancySum: Counter;
  readonly bypass: Counter;
}

/** {@link L1dState.lastFail} when the port below (or, atomics, the miss queue) refused, not the cache. */
const PORT_FULL = 4;
const FAIL_NAME: readonly string[] = [...RES_FAIL_REASON_NAME, 'portFull'];

/**
 * Announces the line the last allocation evicted, if any (`mem.evict` on the `evict` port), for
 * a unit spliced beside the L1D such as a victim cache. A full port drops the announcement and
 * counts it (`l1d_evictions_dropped`): the L1D never stalls for a listener.
 */
function announceEviction(s: L1dState): void {
  const tags = s.ctrl.tags;
  if (s.evict === null || !tags.victimValid) return;
  s.evictions.value++;
  if (!s.evict.hasRoom) {
    s.evictionsDropped.value++;
    return;
  }
  const ev: L1dEviction = { addr: tags.victimAddr, size: tags.lineBytes, sm: s.p.smId, dirty: tags.victimDirty };
  s.evict.send(GpuKind.evict, ev);
}

/** True when the L1D holds no request, miss, answer or atomic. */
function holdsNoWork(s: L1dState): boolean {
  return s.req.length === 0 && (s.car === null || s.car.length === 0) && s.ctrl.mshr.occupancy === 0 && s.ctrl.missQueueLength === 0 && s.bypass.size === 0 && s.hitMsgs.length === 0 && s.answers.length === 0 && s.waiting.size === 0 && s.instIn.length === 0 && s.instPending.size === 0 && s.instAnswers.length === 0;
}

/** Forwards FETCH's instruction line reads down while the port has room. */
function forwardInst(s: L1dState): void {
  let m: Message | undefined;
  while ((m = s.instIn.peek()) !== undefined) {
    if (!s.down.hasRoom) {
      s.down.waitingForRoom = true;
      return;
    }
    s.instIn.recv();
    const fwd = s.down.send(m.kind, m.payload as GpuMemRequest, { bytes: m.bytes })!;
    s.instPending.add(fwd.id);
  }
}

/** Passes instruction fills to FETCH while `instOut` has room. */
function sendInstAnswers(s: L1dState): void {
  let m: Message | undefined;
  while ((m = s.instAnswers.peek()) !== undefined) {
    if (!s.instOut.hasRoom) {
      s.instOut.waitingForRoom = true;
      return;
    }
    s.instAnswers.shift();
    const pl = m.payload as GpuMemResponse;
    s.instOut.send(GpuKind.rsp, pl, { bytes: m.bytes });
  }
}

/** Applies control messages (rare; one statechart event each). */
function control(s: L1dState): void {
  let m: Message | undefined;
  while ((m = s.ctrlIn.recv()) !== undefined) s.lifecycle.handle(m, holdsNoWork(s));
}

function answer(s: L1dState, req: Message<GpuMemRequest>, write: boolean): void {
  const pl = req.payload;
  const rsp: GpuMemResponse = { addr: pl.addr, size: pl.size, sm: pl.sm, write };
  s.rsp.send(GpuKind.rsp, rsp, { replyTo: req, bytes: memPacketBytes(GpuKind.rsp, pl.size, write) });
}

/** Sends ready answers (fills first, then hits) while `rsp` has room. */
function sendAnswers(s: L1dState, cycle: number): void {
  const rsp = s.rsp;
  let m: Message<GpuMemRequest> | undefined;
  while ((m = s.answers.peek()) !== undefined) {
    if (!rsp.hasRoom) {
      rsp.waitingForRoom = true;
      return;
    }
    s.answers.shift();
    answer(s, m, m.kind === GpuKind.writeReq);
  }
  while (s.hitMsgs.length > 0 && s.hitReady.peek()! <= cycle) {
    if (!rsp.hasRoom) {
      rsp.waitingForRoom = true;
      return;
    }
    s.hitReady.shift();
    const h = s.hitMsgs.shift()!;
    answer(s, h, h.kind === GpuKind.writeReq);
  }
}

/** Drains the miss queue to `down` while it has room. */
function drainMisses(s: L1dState): void {
  const ctrl = s.ctrl;
  const mr = s.miss;
  const down = s.down;
  while (ctrl.peekMiss(mr)) {
    if (!down.hasRoom) {
      down.waitingForRoom = true;
      return;
    }
    ctrl.popMiss(mr);
    if (s.car !== null) s.car.rewind(); // a miss-queue slot freed
    const isRead = mr.kind === MissKind.read;
    const kind = isRead ? GpuKind.readReq : GpuKind.writeReq;
    const req: GpuMemRequest = { addr: mr.addr, size: mr.bytes, sm: s.p.smId };
    down.send(kind, req, { bytes: memPacketBytes(kind, mr.bytes) });
    if (isRead) {
      if (s.io.tracing) s.missStart.set(mr.addr, s.io.now);
    } else if (mr.kind === MissKind.write) {
      // posted write: the LSU's store is accepted now
      const lsuReq = s.waiting.get(mr.reqId);
      if (lsuReq === undefined) throw new SimulationError(`${s.io.name}: write ${mr.reqId} went down with no LSU request`);
      s.waiting.delete(mr.reqId);
      s.answers.push(lsuReq);
    }
  }
}

function endStall(s: L1dState): void {
  if (s.stallStart >= 0) {
    const io = s.io;
    if (io.tracing) io.span('resFail', s.stallStart, io.now, -1, RES_FAIL_REASON_NAME[s.stallReason]);
    s.stallStart = -1;
  }
}

/**
 * Looks up up to `requestsPerCycle` requests from `req`; a blocked head stays in the port. With
 * NewCAR on, {@link acceptNewCar} instead.
 */
function acceptRequests(s: L1dState, cycle: number): void {
  if (s.car !== null) {
    acceptNewCar(s, s.car, s.carStats!, cycle, true);
    return;
  }
  const width = s.p.requestsPerCycle ?? 1;
  for (let n = 0; n < width; n++) {
    const msg = s.req.peek() as Message<GpuMemRequest> | undefined;
    if (msg === undefined) {
      endStall(s);
      return;
    }
    if (!lookupOne(s, msg, cycle, true)) return; // stays in the in-port; retried next cycle
  }
}

/**
 * One lookup of `msg` (the head of `req` when `fromPort`, taken from it on acceptance; else a
 * NewCAR queue entry). Atomics, texture reads and skipped global accesses are forwarded down;
 * everything else goes through the tag array and MSHRs.
 * @returns true when accepted; false when not (reservation failure, or the port below full),
 *   with the reason in `s.lastFail`. With NewCAR off, a failure at the head opens (or continues)
 *   the `resFail` stall span, as before.
 */
function lookupOne(s: L1dState, msg: Message<GpuMemRequest>, cycle: number, fromPort: boolean): boolean {
  const ctrl = s.ctrl;
  const pl = msg.payload;
  const isWrite = msg.kind === GpuKind.writeReq;
  if (pl.atomic === true) {
    if (!s.down.hasRoom || ctrl.missQueueLength > 0) {
      if (!s.down.hasRoom) s.down.waitingForRoom = true;
      s.lastFail = PORT_FULL;
      return false; // keep order behind queued misses; retried next cycle
    }
    if (fromPort) s.req.recv();
    endStall(s);
    const fwd = s.down.send(msg.kind, pl, { bytes: msg.bytes })!;
    s.bypass.set(fwd.id, msg);
    s.atomics.value++;
    return true;
  }
  if (pl.tex === true || (s.p.skipGlobal === true && pl.local !== true)) {
    // GPGPU-Sim ldst_unit::memory_cycle with gmem_skip_L1D: a global access goes straight to
    // the interconnect (no tag lookup, not an L1D access); loads are answered by the response
    // from below, stores when they leave (a posted write, as through the cache). A texture
    // cache's line read (`tex`) takes the same way: the L1T shares the SM's memory port.
    if (!s.down.hasRoom) {
      s.down.waitingForRoom = true;
      s.lastFail = PORT_FULL;
      return false;
    }
    if (fromPort) s.req.recv();
    endStall(s);
    const fwd = s.down.send(msg.kind, pl, { bytes: msg.bytes })!;
    if (pl.tex !== true) s.bypassed.value++;
    if (isWrite) s.answers.push(msg);
    else s.bypass.set(fwd.id, msg);
    return true;
  }
  const writesBefore = ctrl.sent[MissKind.write]!;
  const readsBefore = ctrl.sent[MissKind.read]!;
  const outcome = ctrl.access(pl.addr, isWrite, msg.id, pl.size, pl.local === true);
  if (outcome === CacheOutcome.miss && ctrl.tags.allocation === 'onMiss') announceEviction(s);
  if (outcome === CacheOutcome.resFail) {
    s.lastFail = ctrl.lastReason;
    if (s.car === null && (s.stallStart < 0 || s.stallReason !== ctrl.lastReason)) {
      endStall(s);
      s.stallStart = s.io.now;
      s.stallReason = ctrl.lastReason;
    }
    return false;
  }
  endStall(s);
  if (fromPort) s.req.recv();
  if (isWrite && ctrl.sent[MissKind.write]! > writesBefore) {
    s.waiting.set(msg.id, msg); // answered when the write goes down
    if (outcome !== CacheOutcome.hit && (outcome === CacheOutcome.hitReserved || ctrl.sent[MissKind.read]! > readsBefore)) s.fillOnly.add(msg.id);
  } else if (outcome === CacheOutcome.hit) {
    s.hitMsgs.push(msg);
    s.hitReady.push(cycle + s.p.l1dLatency);
  } else {
    s.waiting.set(msg.id, msg); // miss or hitReserved: answered by the fill
  }
  return true;
}

/**
 * The input stage with the NewCAR re-execution queue (paper 004 §3.4, Figs. 5-6; spec §2.5 E;
 * the steps are in the file header). `takeLsu` false (pausing): only queued requests are served.
 */
function acceptNewCar(s: L1dState, car: NewCarQueue<Message<GpuMemRequest>>, st: NewCarStats, cycle: number, takeLsu: boolean): void {
  const io = s.io;
  const width = s.p.requestsPerCycle ?? 1;
  for (let n = 0; n < width; n++) {
    // 1. the LSU's request has priority while the queue has room
    const msg = takeLsu && !car.full ? (s.req.peek() as Message<GpuMemRequest> | undefined) : undefined;
    if (msg !== undefined) {
      const warp = msg.payload.warp ?? -1;
      const isStore = msg.kind === GpuKind.writeReq || msg.payload.atomic === true; // R-E5
      if (car.mayBypass(warp, isStore)) {
        if (car.length > 0) st.bypass.value++;
        if (!lookupOne(s, msg, cycle, true)) {
          s.req.recv();
          car.push(msg, warp, isStore, io.now, NewCarEnqReason.notAccepted);
          st.enqResFail.value++;
        }
        continue; // the slot's lookup is used
      }
      s.req.recv();
      car.push(msg, warp, isStore, io.now, NewCarEnqReason.order);
      st.enqOrder.value++;
      // no lookup made: the slot serves the queue (below)
    }
    // 2. a queued request: queue full, LSU idle, or the lookup still free
    const pos = car.select();
    if (pos < 0) return;
    const q = car.at(pos);
    if (lookupOne(s, q, cycle, false)) {
      if (io.tracing) io.span('newcar', car.timeAt(pos), io.now, q.id, NEWCAR_ENQ_REASON_NAME[car.reasonAt(pos)], { warp: car.warpAt(pos), lastFail: FAIL_NAME[s.lastFail] ?? '' });
      car.remove(pos);
      st.processed.value++;
    } else {
      car.failed(pos);
      st.retryFail.value++;
    }
  }
}

function step(s: L1dState, cycle: number): void {
  const io = s.io;
  if (s.ctrlIn.length > 0) control(s);
  const lifecycle = s.lifecycle;
  if ((s.req.length > 0 || s.up.length > 0) && lifecycle.state === 'gated') {
    throw new SimulationError(`${io.name}: a memory request or response arrived while the L1D is power-gated`);
  }
  const ctrl = s.ctrl;
  // 1. fills and atomic responses
  let m: Message | undefined;
  while ((m = s.up.recv()) !== undefined) {
    if (s.instPending.delete(m.replyTo)) {
      s.instAnswers.push(m);
      continue;
    }
    const atom = s.bypass.get(m.replyTo);
    if (atom !== undefined) {
      s.bypass.delete(m.replyTo);
      s.answers.push(atom);
      continue;
    }
    const line = ctrl.tags.blockAddr((m.payload as GpuMemResponse).addr);
    const n = ctrl.fill(line);
    if (s.car !== null) s.car.rewind(); // an MSHR entry (and its line) freed
    if (ctrl.tags.allocation === 'onFill') announceEviction(s);
    const ids = ctrl.readyIds;
    for (let i = 0; i < n; i++) {
      const id = ids[i]!;
      if (s.fillOnly.delete(id)) continue;
      const r = s.waiting.get(id);
      if (r === undefined) throw new SimulationError(`${io.name}: fill of line ${line} answers unknown request ${id}`);
      s.waiting.delete(id);
      s.answers.push(r);
    }
    if (io.tracing) {
      const start = s.missStart.get(line);
      if (start !== undefined) {
        s.missStart.delete(line);
        io.span('miss', start, io.now, m.replyTo, undefined, { line, merged: n });
      }
    }
  }
  // 2-4.
  sendInstAnswers(s);
  forwardInst(s);
  sendAnswers(s, cycle);
  drainMisses(s);
  if (lifecycle.running) acceptRequests(s, cycle); // paused: requests wait in topIn (back-pressure)
  else if (s.car !== null && s.car.length > 0 && lifecycle.state === 'draining') acceptNewCar(s, s.car, s.carStats!, cycle, false);
  drainMisses(s);
  sendAnswers(s, cycle);
  const car = s.car;
  if (car !== null && car.length > 0) {
    // per cycle at its end; the unit steps every cycle while the queue holds a request, so the
    // sums are exact whether the other units sleep or not
    s.carStats!.occupancySum.value += car.length;
    if (car.full) s.carStats!.fullCycles.value++;
  }
  if (!lifecycle.running && lifecycle.state === 'draining' && (car === null || car.length === 0) && s.ctrl.mshr.occupancy === 0 && s.ctrl.missQueueLength === 0 && s.bypass.size === 0 && s.hitMsgs.length === 0 && s.answers.length === 0 && s.waiting.size === 0 && s.instPending.size === 0 && s.instAnswers.length === 0) lifecycle.drained();
  // the L1I prefetch gate's view of the MSHRs (004 §3.5): sent when it changed
  if (s.mshrOut !== null && ctrl.mshr.occupancy !== s.mshrReported && s.mshrOut.hasRoom) {
    s.mshrReported = ctrl.mshr.occupancy;
    s.mshrOut.send(GpuKind.l1dMshr, { occupancy: s.mshrReported });
  }
  // 5. sleep until the next thing to do
  let next = Infinity;
  if (s.req.length > 0 && lifecycle.running) next = cycle + 1;
  if (car !== null && car.length > 0 && (lifecycle.running || lifecycle.state === 'draining')) next = cycle + 1;
  if (s.answers.length > 0 && s.rsp.hasRoom) next = cycle + 1;
  if (s.hitMsgs.length > 0) {
    const r = s.hitReady.peek()!;
    if (r > cycle) next = Math.min(next, r);
    else if (s.rsp.hasRoom) next = cycle + 1;
  }
  if (ctrl.missQueueLength > 0 && s.down.hasRoom) next = cycle + 1;
  if ((s.instIn.length > 0 && s.down.hasRoom) || (s.instAnswers.length > 0 && s.instOut.hasRoom)) next = cycle + 1;
  if (next !== Infinity) io.wakeAt(io.clock.timeOfCycle(next));
}

/** Registers the NewCAR statistics of one L1D (only when the queue is on: runs without it keep their statistics). */
function newCarStats(io: UnitIo): NewCarStats {
  return {
    enqResFail: io.counter('newcar_enq_resfail', 'requests queued after a lookup that was not accepted (004 §3.4 condition 1)'),
    enqOrder: io.counter('newcar_enq_order', 'requests queued without a lookup: may not bypass a queued request of their warp (004 Fig. 6)'),
    processed: io.counter('newcar_processed', 'queued requests re-executed and accepted'),
    retryFail: io.counter('newcar_retry_fail', 're-executions not accepted (the request stays queued)'),
    fullCycles: io.counter('newcar_full_cycles', 'cycles at whose end the NewCAR queue was full', 'cycles'),
    occupancySum: io.counter('newcar_occupancy_sum', 'NewCAR queue occupancy summed over cycles', 'entry-cycles'),
    bypass: io.counter('newcar_bypass', 'LSU requests looked up while older requests waited in the NewCAR queue'),
  };
}

/** The unit kind `l1d`. */
export const l1d = defineUnit<L1dParams>({
  kind: 'l1d',
  description: 'SM L1 data cache: tag array, MSHRs and miss queue (CacheController); hit latency, MSHR merging, reservation failures as back-pressure, Fermi write-evict/no-allocate, atomics bypassed to L2.',
  source: 'paper 001 §2.1/§3.3; GPGPU-Sim l1_cache / data_cache::access',
  spec: l1dSpec,
  machine: unitLifecycleMachine,
  delivery: 'batch',
  ports: [
    { name: 'topIn', direction: 'in', description: 'transactions from the LSU; a reservation failure leaves the head here', messageKinds: [GpuKind.readReq, GpuKind.writeReq], capacity: 8 },
    { name: 'topOut', direction: 'out', description: 'answers to the LSU (loads: data; stores: accepted)', messageKinds: [GpuKind.rsp], capacity: 8 },
    { name: 'bottomOut', direction: 'out', description: 'line reads, posted writes and atomics to the interconnect', messageKinds: [GpuKind.readReq, GpuKind.writeReq], capacity: 4 },
    { name: 'bottomIn', direction: 'in', description: 'fills and atomic responses from the interconnect', messageKinds: [GpuKind.rsp], capacity: 8 },
    { name: 'instIn', direction: 'in', description: "the SM L1I's line reads (FETCH memOut), forwarded down unchanged", messageKinds: [GpuKind.readReq], capacity: 4, optional: true },
    { name: 'instOut', direction: 'out', description: 'instruction fills routed back to FETCH', messageKinds: [GpuKind.rsp], capacity: 4, optional: true },
    { name: 'evict', direction: 'out', description: 'lines evicted by replacement (for a spliced victim cache); unbound = not announced', messageKinds: [GpuKind.evict], capacity: 8, optional: true },
    { name: 'mshrOut', direction: 'out', description: "MSHR occupancy when it changed, at most once per cycle (to FETCH's L1I prefetch gate); unbound = not sent", messageKinds: [GpuKind.l1dMshr], capacity: 2, optional: true },
    { name: 'ctrl', direction: 'in', description: 'lifecycle commands (pause: finish held work, accept none; gate: only when empty)', messageKinds: [GpuKind.ctrlPause, GpuKind.ctrlResume, GpuKind.ctrlGate, GpuKind.ctrlWake], capacity: 4, optional: true },
    { name: 'status', direction: 'out', description: 'lifecycle acknowledgements', messageKinds: [GpuKind.ctrlAck], capacity: 4, optional: true },
  ],
  stats: [
    { name: 'l1d_accesses', unit: 'count', description: 'hits + pending hits + misses (GPGPU-Sim L1D_total_cache_accesses)', gpuTotal: 'gpu_l1d_accesses' },
    { name: 'l1d_hits', unit: 'count', description: 'hits' },
    { name: 'l1d_misses', unit: 'count', description: 'misses', gpuTotal: 'gpu_l1d_misses' },
    { name: 'l1d_hit_reserved', unit: 'count', description: 'pending hits (MSHR merges)' },
    { name: 'l1d_res_fail', unit: 'count', description: 'reservation-failure attempts (one per cycle a blocked request retries)', gpuTotal: 'gpu_l1d_res_fail' },
    { name: 'l1d_res_fail_<reason>', unit: 'count', description: 'per reason: mshrFull, mshrMergeFull, missQueueFull, noLineToAllocate', gpuTotal: 'gpu_l1d_res_fail_<reason>', variants: ['mshrFull', 'mshrMergeFull', 'missQueueFull', 'noLineToAllocate'] },
    { name: 'l1d_atomics', unit: 'count', description: 'atomics forwarded to L2 (bypass)' },
    { name: 'l1d_bypassed', unit: 'count', description: 'global loads and stores forwarded down without a lookup (skipGlobal; not L1D accesses)', gpuTotal: 'gpu_l1d_bypassed' },
    { name: 'l1d_evictions', unit: 'count', description: 'valid lines evicted by replacement (counted only while the evict port is bound)' },
    { name: 'l1d_evictions_dropped', unit: 'count', description: 'eviction announcements dropped because the evict port was full' },
    { name: 'newcar_enq_resfail', unit: 'count', description: 'NewCAR on: requests moved into the re-execution queue because their lookup was not accepted (reservation failure, or the port below full; 004 §3.4 condition 1)' },
    { name: 'newcar_enq_order', unit: 'count', description: 'NewCAR on: requests moved into the queue without a lookup because they may not bypass a queued request of their warp (004 Fig. 6, condition 2)' },
    { name: 'newcar_processed', unit: 'count', description: 'NewCAR on: queued requests re-executed and accepted (they left the queue)' },
    { name: 'newcar_retry_fail', unit: 'count', description: 'NewCAR on: re-executions not accepted (the request stays queued; each also counts in l1d_res_fail when the cache refused)' },
    { name: 'newcar_full_cycles', unit: 'cycles', description: 'NewCAR on: cycles at whose end the queue was full (the LSU is refused the next cycle)' },
    { name: 'newcar_occupancy_sum', unit: 'entry-cycles', description: 'NewCAR on: queued requests summed over cycles (divide by gpu_sim_cycle for the mean occupancy)' },
    { name: 'newcar_bypass', unit: 'count', description: 'NewCAR on: LSU requests looked up while older requests of the SM waited in the queue (the memory-conflict blocks avoided)' },
    { name: 'lifecycle_<state>_cycles', unit: 'cycles', description: 'cycles per lifecycle state (active, draining, paused, gated); registered on the first control message' },
  ],
  logic: (p) =>
    cycleLogic(
      step,
      ({ input: io }: { input: UnitIo }): L1dState => {
        if (!(Number.isInteger(p.l1dLatency) && p.l1dLatency >= 1)) throw new SimulationError(`${io.name}: l1dLatency must be an integer >= 1, got ${p.l1dLatency}`);
        const ctrl = new CacheController(p.cache);
        registerCacheStats(io, ctrl, 'l1d');
        // Evictions are announced (and counted) only when a unit listens on `evict`.
        const evictOut = io.out('evict');
        const evictPort = evictOut.isBound ? evictOut : null;
        return {
          io,
          p,
          req: io.in('topIn'),
          rsp: io.out('topOut'),
          down: io.out('bottomOut'),
          up: io.in('bottomIn'),
          evict: evictPort,
          mshrOut: io.out('mshrOut').isBound ? io.out('mshrOut') : null,
          mshrReported: 0,
          ctrlIn: io.in('ctrl'),
          lifecycle: new Lifecycle(io, io.out('status')),
          ctrl,
          miss: new MissRequest(),
          hitMsgs: new Fifo(16),
          hitReady: new Fifo(16),
          answers: new Fifo(16),
          waiting: new Map(),
          fillOnly: new Set(),
          bypass: new Map(),
          instIn: io.in('instIn'),
          instOut: io.out('instOut'),
          instPending: new Set(),
          instAnswers: new Fifo(8),
          missStart: new Map(),
          stallStart: -1,
          stallReason: -1,
          lastCycle: -1,
          atomics: io.counter('l1d_atomics', 'atomics forwarded to L2'),
          bypassed: io.counter('l1d_bypassed', 'global loads and stores forwarded down without a lookup (skipGlobal)'),
          evictions: evictPort !== null ? io.counter('l1d_evictions', 'valid lines evicted by replacement') : { value: 0 },
          evictionsDropped: evictPort !== null ? io.counter('l1d_evictions_dropped', 'eviction announcements dropped (evict port full)') : { value: 0 },
          car: p.newcarEntries !== undefined ? new NewCarQueue<Message<GpuMemRequest>>(p.newcarEntries, 64, p.newcarChoice ?? 'rewind') : null,
          carStats: p.newcarEntries !== undefined ? newCarStats(io) : null,
          lastFail: -1,
        };
      },
    ),
  finalize: (snap: { context: L1dState }) => snap.context.lifecycle.finalize(),
  pendingWork: (snap: { context: L1dState }) => {
    const s = snap.context;
    const parts: string[] = [];
    if (s.ctrl.mshr.occupancy > 0) parts.push(`${s.ctrl.mshr.occupancy} MSHR entries (lines ${s.ctrl.mshr.lineAddrs().slice(0, 4).join(', ')})`);
    if (s.ctrl.missQueueLength > 0) parts.push(`${s.ctrl.missQueueLength} in the miss queue`);
    if (s.bypass.size > 0) parts.push(`${s.bypass.size} atomics at L2`);
    if (s.instPending.size + s.instAnswers.length > 0) parts.push(`${s.instPending.size + s.instAnswers.length} instruction line reads`);
    if (s.hitMsgs.length + s.answers.length > 0) parts.push(`${s.hitMsgs.length + s.answers.length} answers unsent`);
    if (s.stallStart >= 0) parts.push(`head blocked: ${RES_FAIL_REASON_NAME[s.stallReason]}`);
    if (s.car !== null && s.car.length > 0) parts.push(`${s.car.length} requests in the NewCAR queue (oldest: warp ${s.car.warpAt(0)}, addr ${s.car.at(0).payload.addr})`);
    return parts.length > 0 ? parts.join('; ') : null;
  },
});
