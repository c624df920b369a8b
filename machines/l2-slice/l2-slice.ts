/**
 * l2Slice: one L2 cache slice (`GPU.L2[j]`, one per memory sub-partition): a ROP delay queue in
 * front of a write-back, write-allocate {@link CacheController}, with DRAM behind it.
 *
 * ## One cycle
 * 1. Fills from DRAM (`dramRsp`) install their line and answer every read (and atomic) merged
 *    into its MSHR entry, one per cycle from the cycle after the fill (GPGPU-Sim
 *    `access_ready`/`next_access`); requests that were writes are completed silently.
 * 2. The miss queue drains to `dramReq` while it has room: line reads (`mem.readReq`), and
 *    dirty-victim write-backs (`mem.writeReq`, posted: DRAM sends nothing back).
 * 3. One request is taken from `req` (if the ROP queue has room) and waits `ropLatency` cycles
 *    (GPGPU-Sim `-rop_latency`: the ROP queue between the interconnect and the L2), then
 *    `accessLatency` more (GPGPU-Sim: 1, the icnt->L2 queue stage before `cache_cycle`'s access).
 * 4. The head of the ROP queue, once its delay elapsed, is looked up (one per cycle):
 *    - read hit: answered this cycle (`mem.rsp` to the requesting SM);
 *    - read miss: MSHR entry + line read to DRAM; a pending hit merges; answered by the fill;
 *    - write (posted from above, no answer): hit -> line modified; miss -> write-allocate: the
 *      line is fetched and installed modified when it arrives (`CacheController`, no full-line
 *      write optimisation);
 *    - atomic (`mem.readReq` with `atomic: true`): a read-modify-write: looked up as a write
 *      (the line ends modified) and answered like a read, at once on a hit or by the fill. The
 *      functional model already applied the operation; this is timing only;
 *    - reservation failure: the request stays at the ROP head and is retried every cycle
 *      (each attempt counted, as GPGPU-Sim does).
 * 5. Answers leave on `rsp` while it has room.
 *
 * With `dataPortBytes` (GPGPU-Sim's `<data_port_width>`), a hit of b bytes holds the data port
 * ceil(b / width) cycles (no lookup meanwhile) and a line fill holds the fill port
 * lineBytes / width cycles (one fill at a time; the rest wait in `bottomIn`).
 *
 * ## Partition-local indexing
 * GPGPU-Sim indexes an L2 slice with `partition_address(addr)` (the channel and sub-partition
 * bits removed). With `localAddress` given (the topology passes `AddressMap.partitionAddress`)
 * the tag array sees local addresses; the slice remembers the global address of every resident
 * or pending line so write-backs and fills are translated back exactly. Without it, global
 * addresses index the tag array directly.
 *
 * Sources: GPGPU-Sim `memory_sub_partition` (ROP queue, `L2_dram_queue`, `dram_L2_queue`),
 * `l2_cache` / `data_cache` write-back + write-allocate (`-gpgpu_cache:dl2 ...,L:B:m:W:L`).
 */
import { z } from 'zod';
import { SimulationError } from '../../src/errors.ts';
import { Fifo } from '../../src/messaging/fifo.ts';
import type { Message } from '../../src/messaging/message.ts';
import type { InPort, OutPort } from '../../src/messaging/port.ts';
import { CacheController, CacheOutcome, MissKind, MissRequest, RES_FAIL_REASON_NAME } from '../../src/model/mem/cache.ts';
import { cacheSpec } from '../../src/model/mem/specs.ts';
import type { Counter } from '../../src/stats/registry.ts';
import { registerCacheStats } from '../../src/model/mem/cache-stats.ts';
import { cycleLogic, defineUnit, type UnitIo } from '../../src/sim/unit.ts';
import { GpuKind, type GpuMemRequest, type GpuMemResponse, memPacketBytes } from '../../src/protocol/gpu.ts';

/**
 * Spec of {@link l2Slice}. GTX480 slice: `cache = { sets: 64, ways: 8, lineBytes: 128,
 * setIndex: 'linear', replacement: 'lru', allocate: 'onMiss', writeHit: 'writeBack',
 * writeMiss: 'writeAllocate', mshrEntries: 256, mshrMaxMerge: 4, missQueueSize: 4 }`,
 * `ropLatency` 120.
 */
export const l2SliceSpec = z.strictObject({
  cache: cacheSpec.describe('geometry, MSHRs, miss queue and policies (normally writeBack + writeAllocate) [-gpgpu_cache:dl2]'),
  ropLatency: z.int().min(0).describe('cycles (L2 clock) a request waits in the ROP queue before its tag lookup (cycles) [-gpgpu_l2_rop_latency]'),
  accessLatency: z.int().min(0).optional().describe('cycles (L2 clock) from leaving the ROP queue to the tag lookup; default 0. GPGPU-Sim: 1 (the ROP delay moves a request into the icnt->L2 queue at the end of a cycle, cache_cycle looks it up in the next) [l2.latencyCycles]'),
  dataPortBytes: z.int().min(1).optional().describe('data array port width: a hit of b bytes keeps the port busy ceil(b / width) cycles and a fill of a line lineBytes / width cycles (separate fill port); default unlimited (bytes per cycle) [-gpgpu_cache:dl2 <data_port_width>]'),
  ropQueueSize: z.int().min(1).optional().describe('ROP queue capacity (requests); default max(8, ropLatency + 1), so full rate never blocks'),
});

/** Spec of {@link l2Slice}: cache, ROP latency and queue. */
export type L2SliceParams = z.infer<typeof l2SliceSpec>;

/** Injected resources of {@link l2Slice}. */
export interface L2SliceResources {
  /**
   * Address used to index the tag array (GPGPU-Sim `partition_address`); must be injective on
   * the addresses this slice receives and keep the byte offset within a line. Default identity.
   */
  readonly localAddress?: (addr: number) => number;
}

/** Mutable datapath state (mutated in place; DESIGN.md §3). */
export interface L2SliceState {
  readonly io: UnitIo;
  readonly p: L2SliceParams;
  readonly localAddress: ((addr: number) => number) | undefined;
  readonly req: InPort;
  readonly rsp: OutPort;
  readonly dramReq: OutPort;
  readonly dramRsp: InPort;
  readonly ctrl: CacheController;
  readonly miss: MissRequest;
  readonly ropQueueSize: number;
  /** ROP queue: requests and the cycle each may be looked up. */
  readonly ropMsgs: Fifo<Message<GpuMemRequest>>;
  readonly ropReady: Fifo<number>;
  /** Answers ready to leave. */
  readonly answers: Fifo<Message<GpuMemRequest>>;
  /** Reads answered by a fill, and the first cycle each may leave (one per cycle). */
  readonly fillAnswers: Fifo<Message<GpuMemRequest>>;
  readonly fillReady: Fifo<number>;
  /** Requests waiting in an MSHR entry or in the miss queue, by message id. */
  readonly waiting: Map<number, Message<GpuMemRequest>>;
  /** Requests both written down (completed then) and in an MSHR entry: their fill answers nothing. */
  readonly fillOnly: Set<number>;
  /** Local line address -> global line address (only with `localAddress`). */
  readonly globalOf: Map<number, number> | null;
  /** Global addresses of queued write-backs, in miss-queue order (only with `localAddress`). */
  readonly wbGlobal: Fifo<number>;
  /** Line read sent -> start time, ps (tracing only). */
  readonly missStart: Map<number, number>;
  stallStart: number;
  stallReason: number;
  lastCycle: number;
  /** First cycle the data port / fill port is free (GPGPU-Sim cache_bw_management). */
  dataPortFree: number;
  fillPortFree: number;
  /** Cycles a line fill holds the fill port (0: no limit). */
  readonly fillCycles: number;
  readonly atomics: Counter;
}

function lineOf(s: L2SliceState, addr: number): number {
  const lb = s.ctrl.lineBytes;
  return addr - (addr % lb);
}

/** After an access or fill that may have allocated a line: forget victims, remember write-backs. */
function trackVictim(s: L2SliceState, wbBefore: number, allocated: boolean): void {
  const g = s.globalOf;
  if (g === null) return;
  const tags = s.ctrl.tags;
  if (s.ctrl.sent[MissKind.writeBack]! > wbBefore) {
    const v = tags.victimAddr;
    const global = g.get(v);
    if (global === undefined) throw new SimulationError(`${s.io.name}: write-back of local line ${v} with no known global address`);
    s.wbGlobal.push(global);
    g.delete(v);
  } else if (allocated && tags.victimValid) {
    g.delete(tags.victimAddr);
  }
}

function fills(s: L2SliceState, cycle: number): void {
  const io = s.io;
  const ctrl = s.ctrl;
  const local = s.localAddress;
  let m: Message | undefined;
  // With a data port width, one fill per free fill port (GPGPU-Sim cache_cycle fills the head
  // of dram_L2_queue when fill_port_free(), which a line keeps busy lineBytes / width cycles).
  while ((s.fillCycles === 0 || cycle >= s.fillPortFree) && (m = s.dramRsp.recv()) !== undefined) {
    if (s.fillCycles > 0) s.fillPortFree = cycle + s.fillCycles;
    const gAddr = (m.payload as GpuMemResponse).addr;
    const line = lineOf(s, local ? local(gAddr) : gAddr);
    const wbBefore = ctrl.sent[MissKind.writeBack]!;
    const n = ctrl.fill(line);
    trackVictim(s, wbBefore, ctrl.tags.allocation === 'onFill');
    const ids = ctrl.readyIds;
    for (let i = 0; i < n; i++) {
      if (s.fillOnly.delete(ids[i]!)) continue;
      const r = s.waiting.get(ids[i]!);
      if (r === undefined) throw new SimulationError(`${io.name}: fill of line ${line} answers unknown request ${ids[i]}`);
      s.waiting.delete(ids[i]!);
      if (r.kind === GpuKind.readReq) {
        s.fillAnswers.push(r);
        s.fillReady.push(cycle + 1);
      }
    }
    if (io.tracing) {
      const start = s.missStart.get(line);
      if (start !== undefined) {
        s.missStart.delete(line);
        io.span('miss', start, io.now, m.replyTo, undefined, { line: gAddr, merged: n });
      }
    }
  }
}

function drainMisses(s: L2SliceState): void {
  const ctrl = s.ctrl;
  const mr = s.miss;
  const out = s.dramReq;
  while (ctrl.peekMiss(mr)) {
    if (!out.hasRoom) {
      out.waitingForRoom = true;
      return;
    }
    ctrl.popMiss(mr);
    let addr: number;
    let sm = -1;
    if (mr.kind === MissKind.read) {
      const r = s.waiting.get(mr.reqId);
      if (r === undefined) throw new SimulationError(`${s.io.name}: line read for unknown request ${mr.reqId}`);
      addr = lineOf(s, r.payload.addr);
      sm = r.payload.sm;
      if (s.io.tracing) s.missStart.set(mr.addr, s.io.now);
    } else if (mr.kind === MissKind.write) {
      const r = s.waiting.get(mr.reqId);
      if (r === undefined) throw new SimulationError(`${s.io.name}: write for unknown request ${mr.reqId}`);
      s.waiting.delete(mr.reqId);
      addr = r.payload.addr;
      sm = r.payload.sm;
      if (r.kind === GpuKind.readReq) s.answers.push(r); // an atomic written through
    } else {
      addr = s.globalOf === null ? mr.addr : s.wbGlobal.shift()!;
    }
    const kind = mr.kind === MissKind.read ? GpuKind.readReq : GpuKind.writeReq;
    const req: GpuMemRequest = { addr, size: mr.bytes, sm };
    out.send(kind, req, { bytes: memPacketBytes(kind, mr.bytes) });
  }
}

function endStall(s: L2SliceState): void {
  if (s.stallStart >= 0) {
    if (s.io.tracing) s.io.span('resFail', s.stallStart, s.io.now, -1, RES_FAIL_REASON_NAME[s.stallReason]);
    s.stallStart = -1;
  }
}

/** Looks up the ROP head when its delay has elapsed. */
function lookup(s: L2SliceState, cycle: number): void {
  const msg = s.ropMsgs.peek();
  if (msg === undefined || s.ropReady.peek()! > cycle || cycle < s.dataPortFree) return;
  const ctrl = s.ctrl;
  const pl = msg.payload;
  const atomic = pl.atomic === true;
  const isWrite = msg.kind === GpuKind.writeReq || atomic;
  const local = s.localAddress;
  const addr = local ? local(pl.addr) : pl.addr;
  const readsBefore = ctrl.sent[MissKind.read]!;
  const writesBefore = ctrl.sent[MissKind.write]!;
  const wbBefore = ctrl.sent[MissKind.writeBack]!;
  const outcome = ctrl.access(addr, isWrite, msg.id, pl.size);
  if (outcome === CacheOutcome.resFail) {
    if (s.stallStart < 0 || s.stallReason !== ctrl.lastReason) {
      endStall(s);
      s.stallStart = s.io.now;
      s.stallReason = ctrl.lastReason;
    }
    return;
  }
  endStall(s);
  s.ropMsgs.shift();
  s.ropReady.shift();
  if (atomic) s.atomics.value++;
  // A hit reads (or writes) its bytes through the data port (GPGPU-Sim use_data_port; a miss
  // uses it only for a dirty victim's write-back, not modelled).
  const w = s.p.dataPortBytes;
  if (w !== undefined && outcome === CacheOutcome.hit) s.dataPortFree = cycle + Math.ceil(pl.size / w);
  const newLine = ctrl.sent[MissKind.read]! > readsBefore;
  if (newLine && s.globalOf !== null) {
    trackVictim(s, wbBefore, ctrl.tags.allocation === 'onMiss');
    s.globalOf.set(lineOf(s, addr), lineOf(s, pl.addr));
  }
  const wrote = ctrl.sent[MissKind.write]! > writesBefore;
  if (wrote || outcome !== CacheOutcome.hit) {
    s.waiting.set(msg.id, msg); // answered by the fill, or when its write goes down
    if (wrote && (outcome === CacheOutcome.hitReserved || (outcome === CacheOutcome.miss && newLine))) s.fillOnly.add(msg.id);
  } else if (msg.kind === GpuKind.readReq) {
    s.answers.push(msg);
  }
}

function sendAnswers(s: L2SliceState): void {
  const rsp = s.rsp;
  let r: Message<GpuMemRequest> | undefined;
  while ((r = s.answers.peek()) !== undefined) {
    if (!rsp.hasRoom) {
      rsp.waitingForRoom = true;
      return;
    }
    s.answers.shift();
    const pl = r.payload;
    const payload: GpuMemResponse = { addr: pl.addr, size: pl.size, sm: pl.sm, write: false };
    rsp.send(GpuKind.rsp, payload, { replyTo: r, bytes: memPacketBytes(GpuKind.rsp, pl.size) });
  }
}

function step(s: L2SliceState, cycle: number): void {
  const io = s.io;
  // GPGPU-Sim cache_cycle: a filled MSHR entry releases one request per cycle (access_ready /
  // next_access), from the cycle after the fill; then the next fill is taken.
  if (s.fillAnswers.length > 0 && s.fillReady.peek()! <= cycle) {
    s.fillReady.shift();
    s.answers.push(s.fillAnswers.shift()!);
  }
  fills(s, cycle);
  drainMisses(s);
  if (s.ropMsgs.length < s.ropQueueSize) {
    const m = s.req.recv() as Message<GpuMemRequest> | undefined;
    if (m !== undefined) {
      s.ropMsgs.push(m);
      s.ropReady.push(cycle + s.p.ropLatency + (s.p.accessLatency ?? 0));
    }
  }
  lookup(s, cycle);
  drainMisses(s);
  sendAnswers(s);
  let next = Infinity;
  if (s.req.length > 0 && s.ropMsgs.length < s.ropQueueSize) next = cycle + 1;
  if (s.ropMsgs.length > 0) next = Math.min(next, Math.max(cycle + 1, s.ropReady.peek()!, s.dataPortFree));
  if (s.dramRsp.length > 0) next = Math.min(next, Math.max(cycle + 1, s.fillPortFree));
  if (s.fillAnswers.length > 0) next = Math.min(next, Math.max(cycle + 1, s.fillReady.peek()!));
  if (s.answers.length > 0 && s.rsp.hasRoom) next = cycle + 1;
  if (s.ctrl.missQueueLength > 0 && s.dramReq.hasRoom) next = cycle + 1;
  if (next !== Infinity) io.wakeAt(io.clock.timeOfCycle(next));
}

/** The unit kind `l2Slice`. */
export const l2Slice = defineUnit<L2SliceParams, L2SliceResources>({
  kind: 'l2Slice',
  description: 'L2 cache slice of one memory sub-partition: ROP delay, write-back write-allocate CacheController, atomics as read-modify-write, read misses and dirty write-backs to DRAM.',
  source: 'GPGPU-Sim memory_sub_partition (rop_latency, L2 queues), l2_cache write-back/write-allocate',
  spec: l2SliceSpec,
  resources: [{ name: 'localAddress', description: 'partition-local address function (GPGPU-Sim partition_address) built by the topology from the address map; default identity', optional: true }],
  delivery: 'batch',
  ports: [
    { name: 'topIn', direction: 'in', description: 'requests from the interconnect', messageKinds: [GpuKind.readReq, GpuKind.writeReq], capacity: 8 },
    { name: 'topOut', direction: 'out', description: 'answers to reads and atomics, to the requesting SM', messageKinds: [GpuKind.rsp], capacity: 8 },
    { name: 'bottomOut', direction: 'out', description: 'line reads and write-backs to the DRAM channel', messageKinds: [GpuKind.readReq, GpuKind.writeReq], capacity: 4 },
    { name: 'bottomIn', direction: 'in', description: 'line fills from the DRAM channel', messageKinds: [GpuKind.rsp], capacity: 8 },
  ],
  stats: [
    { name: 'l2_accesses', unit: 'count', description: 'hits + pending hits + misses', gpuTotal: 'gpu_l2_accesses' },
    { name: 'l2_hits', unit: 'count', description: 'hits', gpuTotal: 'gpu_l2_hits' },
    { name: 'l2_misses', unit: 'count', description: 'misses', gpuTotal: 'gpu_l2_misses' },
    { name: 'l2_hit_reserved', unit: 'count', description: 'pending hits (MSHR merges)' },
    { name: 'l2_res_fail', unit: 'count', description: 'reservation-failure attempts' },
    { name: 'l2_res_fail_<reason>', unit: 'count', description: 'per reason: mshrFull, mshrMergeFull, missQueueFull, noLineToAllocate' },
    { name: 'l2_writebacks', unit: 'count', description: 'dirty lines written back to DRAM' },
    { name: 'l2_atomics', unit: 'count', description: 'atomics performed' },
  ],
  logic: (p, r) =>
    cycleLogic(
      step,
      ({ input: io }: { input: UnitIo }): L2SliceState => {
        if (!(Number.isInteger(p.ropLatency) && p.ropLatency >= 0)) throw new SimulationError(`${io.name}: ropLatency must be an integer >= 0, got ${p.ropLatency}`);
        const ctrl = new CacheController(p.cache);
        registerCacheStats(io, ctrl, 'l2');
        io.stats.derived(`${io.name}.l2_writebacks`, () => ctrl.sent[MissKind.writeBack]!, 'dirty lines written back to DRAM', 'count');
        const ropQueueSize = p.ropQueueSize ?? Math.max(8, p.ropLatency + 1);
        return {
          io,
          p,
          localAddress: r.localAddress,
          req: io.in('topIn'),
          rsp: io.out('topOut'),
          dramReq: io.out('bottomOut'),
          dramRsp: io.in('bottomIn'),
          ctrl,
          miss: new MissRequest(),
          ropQueueSize,
          ropMsgs: new Fifo(ropQueueSize),
          ropReady: new Fifo(ropQueueSize),
          answers: new Fifo(16),
          fillAnswers: new Fifo(16),
          fillReady: new Fifo(16),
          waiting: new Map(),
          fillOnly: new Set(),
          globalOf: r.localAddress ? new Map() : null,
          wbGlobal: new Fifo(8),
          missStart: new Map(),
          stallStart: -1,
          stallReason: -1,
          lastCycle: -1,
          dataPortFree: 0,
          fillPortFree: 0,
          fillCycles: p.dataPortBytes === undefined ? 0 : Math.ceil(p.cache.lineBytes / p.dataPortBytes),
          atomics: io.counter('l2_atomics', 'atomics performed'),
        };
      },
    ),
  pendingWork: (snap: { context: L2SliceState }) => {
    const s = snap.context;
    const parts: string[] = [];
    if (s.ropMsgs.length > 0) parts.push(`${s.ropMsgs.length} in the ROP queue`);
    if (s.ctrl.mshr.occupancy > 0) parts.push(`${s.ctrl.mshr.occupancy} MSHR entries`);
    if (s.ctrl.missQueueLength > 0) parts.push(`${s.ctrl.missQueueLength} in the miss queue`);
    if (s.answers.length + s.fillAnswers.length > 0) parts.push(`${s.answers.length + s.fillAnswers.length} answers unsent`);
    if (s.stallStart >= 0) parts.push(`head blocked: ${RES_FAIL_REASON_NAME[s.stallReason]}`);
    return parts.length > 0 ? parts.join('; ') : null;
  },
});
