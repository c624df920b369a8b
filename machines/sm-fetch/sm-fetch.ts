/**
 * smFetch: the instruction fetch stage of one SM with its L1 instruction cache.
 *
 * Each cycle it serves one warp's fetch request, chosen by the fetch policy (`fetchPolicy`,
 * registry `src/model/sm/fetch-policy.ts`: round robin over the warps with a request by default,
 * as GPGPU-Sim's fetch stage serves one warp per cycle), reading up to `fetchWidth`
 * instructions at consecutive PCs through the L1I tag array. Instruction addresses are
 * `instBaseAddr + (fn x 0x100000 + pc) x instructionBytes` (GPGPU-Sim `PROGRAM_MEM_START` +
 * PC). A hit sends the instructions to DECODE at once. A miss is served one of two ways:
 *
 * - memory mode (the `memOut`/`memIn` ports bound, as in the GPU topology): GPGPU-Sim's
 *   `read_only_cache` behind `shader_core_ctx::fetch`. A miss opens an MSHR entry for the line
 *   (`mshrEntries`, a later miss to the line merges up to `mshrMaxMerge` requests) and queues a
 *   line read (`missQueueEntries`); no free entry or full queue is a reservation failure (the
 *   request stays and is retried, the round robin moves on). The miss queue sends one read per
 *   cycle (`mem.readReq`, 8-byte packet) through the SM's memory port, so it crosses the
 *   interconnect, the L2 and, cold, DRAM. A fill (`mem.rsp`) installs the line and releases the
 *   fetches waiting on it, one per cycle; a cycle that releases one accesses nothing
 *   (`access_ready()` before a new access in GPGPU-Sim's fetch()).
 * - fixed latency (ports unbound, unit tests): the line fills `l1iMissLatencyCycles` after the
 *   miss; later fetches of that line wait for the same fill.
 *
 * Source: 002 §3 (fetch brings 2 instructions), 004 §2.2; GPGPU-Sim shader_core_ctx::fetch,
 * read_only_cache::access / cycle / fill (gpu-cache.cc), accept_fetch_response.
 */
import { z } from 'zod';
import type { Message } from '../../src/messaging/message.ts';
import { Fifo } from '../../src/messaging/fifo.ts';
import type { InPort, OutPort } from '../../src/messaging/port.ts';
import { ProbeStatus, TagArray, type TagArrayParams } from '../../src/model/mem/tag-array.ts';
import type { Counter } from '../../src/stats/registry.ts';
import { controlPorts, Lifecycle, serviceLifecycle, unitLifecycleMachine } from '../../src/sim/lifecycle.ts';
import { cycleLogic, defineUnit, type UnitIo } from '../../src/sim/unit.ts';
import { tagArraySpec } from '../../src/model/mem/specs.ts';
import { createFetchPolicy, type FetchPolicy } from '../../src/model/sm/fetch-policy.ts';
import { GpuKind, memPacketBytes, type FetchedInsts, type FetchReq, type GpuMemRequest, type GpuMemResponse, type L1dMshrOccupancy } from '../../src/protocol/gpu.ts';

/** Default bytes per instruction in the L1I address space (GPGPU-Sim's PTX model). */
export const INSTRUCTION_BYTES = 8;

/** GPGPU-Sim `PROGRAM_MEM_START` (shader.cc): instruction addresses start here in memory. */
export const PROGRAM_MEM_START = 0xf0000000;

/** Parameters of {@link smFetch}. */
export type SmFetchParams = z.infer<typeof smFetchSpec>;

/** Spec of {@link smFetch}. */
export const smFetchSpec = z.strictObject({
  fetchWidth: z.int().min(1).describe('instructions fetched per request at most (instructions) [-gpgpu_shader_fetch width]'),
  maxWarps: z.int().min(1).describe('warp slots: capacity of the req port (warps)'),
  l1i: tagArraySpec.describe('L1I geometry and policies [-gpgpu_cache:il1]'),
  l1iMissLatencyCycles: z.int().min(1).describe('cycles to fill an L1I miss when the memory ports are unbound (core cycles)'),
  instructionBytes: z.int().min(1).optional().describe('bytes per instruction in the instruction address space (bytes); default 8 (GPGPU-Sim PTX)'),
  instBaseAddr: z.int().min(0).optional().describe('address of instruction index 0 (bytes); default 0 [GPGPU-Sim PROGRAM_MEM_START]'),
  smId: z.int().min(0).optional().describe('SM index put in line reads so responses route back (index); default 0'),
  mshrEntries: z.int().min(1).optional().describe('L1I MSHR entries, memory mode (entries); default 2 [-gpgpu_cache:il1 <mshr_entries>]'),
  mshrMaxMerge: z.int().min(1).optional().describe('fetches merged into one L1I MSHR entry, memory mode (requests); default 48 [<mshr_max_merge>]'),
  missQueueEntries: z.int().min(1).optional().describe('L1I miss queue entries, memory mode (entries); default 4 [<mq>]'),
  prefetchMshrThreshold: z
    .int()
    .min(0)
    .optional()
    .describe('memory mode: next-line L1I prefetch, issued on a demand access to line X when X+1 is neither present nor pending and the occupied MSHRs of the L1I and the L1D (its l1d.mshr reports) are fewer than this (entries; paper 004 §3.5: 16); absent or 0 = no prefetch'),
  schedulers: z.int().min(1).optional().describe('warp schedulers of the SM: warp slot w belongs to scheduler w mod N (the warpPriority fetch policy interleaves their orders); default 1 [-gpgpu_num_sched_per_core]'),
  fetchPolicy: z.string().min(1).optional().describe('fetch scheduling policy: which warp request is served first (registry of src/model/sm/fetch-policy.ts: rr, warpPriority); default rr'),
});

interface Pending {
  readyCycle: number;
  line: FetchedInsts;
  /** Address whose line this fetch's miss fills when it completes, or -1 (a merged fetch). */
  fillAddr: number;
}

/** Mutable datapath state. */
export interface SmFetchState {
  readonly io: UnitIo;
  readonly p: SmFetchParams;
  readonly req: InPort;
  readonly out: OutPort;
  readonly l1i: TagArray;
  /** Latest request per warp slot (a newer one replaces an older). */
  readonly requests: (FetchReq | null)[];
  rr: number;
  /** Picks the request to serve ({@link SmFetchParams.fetchPolicy}). */
  readonly pick: FetchPolicy;
  /** Lines with a miss in flight -> the cycle their fill arrives (tags are filled at miss time). */
  readonly pendingLines: Map<number, number>;
  /** Fetches waiting for a fill, sorted by ready cycle (stable). */
  readonly inFlight: Pending[];
  lastCycle: number;
  readonly ctrl: InPort;
  readonly lifecycle: Lifecycle;
  readonly mergedMisses: Counter;
  readonly accesses: Counter;
  readonly misses: Counter;
  /** Memory mode: line reads go to `memOut` (null: fixed-latency mode). */
  readonly memOut: OutPort | null;
  readonly memIn: InPort;
  /** Memory mode: line address -> fetches waiting for its fill (the MSHR). */
  readonly mshr: Map<number, FetchedInsts[]>;
  /** Memory mode: line addresses of misses not yet sent. */
  readonly missQueue: Fifo<number>;
  /** Memory mode: fetches whose line has been filled, released one per cycle. */
  readonly ready: Fifo<FetchedInsts>;
  readonly resFails: Counter;
  /** Next-line prefetch state (null: no prefetcher). */
  readonly prefetch: PrefetchState | null;
}

/** The L1I next-line prefetcher (004 §3.5; spec R-E9). */
interface PrefetchState {
  readonly threshold: number;
  /** The L1D's `l1d.mshr` reports. */
  readonly l1dIn: InPort;
  /** Last reported L1D MSHR occupancy (entries). */
  l1dOccupancy: number;
  /** Lines prefetched and not yet touched by a demand access. */
  readonly lines: Set<number>;
  readonly issued: Counter;
  readonly gated: Counter;
  readonly useful: Counter;
  readonly late: Counter;
}

/** Instruction byte address of a fetch (see the module comment). */
function instAddr(p: SmFetchParams, fn: number, pc: number): number {
  return (p.instBaseAddr ?? 0) + (fn * 0x100000 + pc) * (p.instructionBytes ?? INSTRUCTION_BYTES);
}

/** True while a miss or fill is in flight (fixed-latency or memory mode). */
function holdsFills(s: SmFetchState): boolean {
  return s.inFlight.length > 0 || s.mshr.size > 0 || s.ready.length > 0 || s.missQueue.length > 0;
}

/** Memory mode: installs arrived fills and queues the fetches waiting on them. */
function acceptFills(s: SmFetchState): void {
  let m: Message | undefined;
  while ((m = s.memIn.recv()) !== undefined) {
    const addr = (m.payload as GpuMemResponse).addr;
    const line = s.l1i.blockAddr(addr);
    s.l1i.fill(addr);
    const waiting = s.mshr.get(line);
    if (waiting === undefined) continue;
    s.mshr.delete(line);
    for (const f of waiting) s.ready.push(f);
  }
}

/** Memory mode: sends the head of the miss queue (one line read per cycle). */
function sendMiss(s: SmFetchState): void {
  const out = s.memOut!;
  if (s.missQueue.length === 0) return;
  if (!out.hasRoom) {
    out.waitingForRoom = true;
    return;
  }
  const line = s.missQueue.shift()!;
  const req: GpuMemRequest = { addr: line, size: s.l1i.lineBytes, sm: s.p.smId ?? 0 };
  out.send(GpuKind.readReq, req, { bytes: memPacketBytes(GpuKind.readReq, s.l1i.lineBytes) });
}

/**
 * Memory mode, one request: hit -> DECODE; miss -> MSHR merge or new entry + miss queue;
 * reservation failure -> false (the request stays).
 */
function accessMem(s: SmFetchState, line: FetchedInsts, addr: number): boolean {
  s.accesses.value++;
  const st = s.l1i.access(addr);
  const block = s.l1i.blockAddr(addr);
  const pf = s.prefetch;
  if (st === ProbeStatus.hit) {
    if (pf !== null && pf.lines.delete(block)) pf.useful.value++;
    s.out.send(GpuKind.fetchLine, line);
    if (pf !== null) prefetchNext(s, pf, block);
    return true;
  }
  const pending = s.mshr.get(block);
  if (pending !== undefined) {
    if (pending.length >= (s.p.mshrMaxMerge ?? 48)) return false;
    if (pf !== null && pf.lines.delete(block)) pf.late.value++;
    pending.push(line);
    s.mergedMisses.value++;
    if (pf !== null) prefetchNext(s, pf, block);
    return true;
  }
  if (st === ProbeStatus.missNoLine || s.mshr.size >= (s.p.mshrEntries ?? 2) || s.missQueue.length >= (s.p.missQueueEntries ?? 4)) return false;
  s.misses.value++;
  s.mshr.set(block, [line]);
  s.missQueue.push(block);
  if (pf !== null) prefetchNext(s, pf, block);
  return true;
}

/**
 * After a demand access to line `block`: prefetch the next line when it is neither present nor
 * pending, an L1I MSHR and miss-queue entry are free, and the L1I and L1D together hold fewer
 * occupied MSHRs than the threshold (004 §3.5; spec R-E9: the L1D's count is its last report).
 * The fill is installed like a demand miss's, with no fetch waiting.
 */
function prefetchNext(s: SmFetchState, pf: PrefetchState, block: number): void {
  const next = block + s.l1i.lineBytes;
  if (s.mshr.has(next)) return;
  const st = s.l1i.probe(next);
  if (st === ProbeStatus.hit || st === ProbeStatus.hitReserved || st === ProbeStatus.missNoLine) return;
  if (s.mshr.size >= (s.p.mshrEntries ?? 2) || s.missQueue.length >= (s.p.missQueueEntries ?? 4)) return;
  if (s.mshr.size + pf.l1dOccupancy >= pf.threshold) {
    pf.gated.value++;
    return;
  }
  s.mshr.set(next, []);
  s.missQueue.push(next);
  pf.lines.add(next);
  pf.issued.value++;
}

function waitForFill(s: SmFetchState, p: Pending): void {
  let i = s.inFlight.length;
  while (i > 0 && s.inFlight[i - 1]!.readyCycle > p.readyCycle) i--;
  s.inFlight.splice(i, 0, p);
}

/** Delivers lines whose miss has been filled, in order, while DECODE has room. */
function deliverFills(s: SmFetchState, cycle: number): void {
  while (s.inFlight.length > 0 && s.inFlight[0]!.readyCycle <= cycle && s.out.hasRoom) {
    const done = s.inFlight.shift()!;
    if (done.fillAddr >= 0) {
      s.l1i.fill(done.fillAddr);
      s.pendingLines.delete(s.l1i.blockAddr(done.fillAddr));
    }
    s.out.send(GpuKind.fetchLine, done.line);
  }
}

function step(s: SmFetchState, cycle: number): void {
  const io = s.io;
  // Paused: fills in flight are delivered, no new request is served (requests wait in `req`).
  if ((s.ctrl.length > 0 || !s.lifecycle.running) && !serviceLifecycle(s.lifecycle, s.ctrl, !holdsFills(s) && !s.requests.some((r) => r !== null), s.req.length, io.name)) {
    if (s.memOut !== null) {
      // Paused: misses in flight complete and their fetches are delivered; nothing new.
      acceptFills(s);
      if (s.ready.length > 0 && s.out.hasRoom) s.out.send(GpuKind.fetchLine, s.ready.shift()!);
      sendMiss(s);
      if (s.ready.length > 0 || s.missQueue.length > 0) io.wakeInCycles(1);
      else if (s.mshr.size === 0 && s.lifecycle.state === 'draining') s.lifecycle.drained();
      return;
    }
    deliverFills(s, cycle);
    if (s.inFlight.length > 0) io.wakeAt(io.clock.timeOfCycle(Math.max(cycle + 1, s.inFlight[0]!.readyCycle)));
    else if (s.lifecycle.state === 'draining') s.lifecycle.drained();
    return;
  }
  let m: Message | undefined;
  while ((m = s.req.recv()) !== undefined) {
    const r = m.payload as FetchReq;
    s.requests[r.warp] = r;
  }
  if (s.memOut !== null) {
    stepMem(s);
    return;
  }
  deliverFills(s, cycle);
  // Serve one warp, chosen by the fetch policy (round robin by default).
  const n = s.requests.length;
  if (s.out.hasRoom) {
    const w = s.pick(s.requests, s.rr, cycle, s.p.schedulers ?? 1);
    const r = w >= 0 ? s.requests[w] : null;
    if (r !== null && r !== undefined) {
      s.requests[w] = null;
      s.rr = (w + 1) % n;
      const count = Math.min(r.count, s.p.fetchWidth);
      const line: FetchedInsts = { warp: r.warp, pc: r.pc, fn: r.fn, count, gen: r.gen };
      // One access per cache line touched by the fetched instructions.
      const addr = instAddr(s.p, r.fn, r.pc);
      s.accesses.value++;
      const lineAddr = s.l1i.blockAddr(addr);
      const pendingUntil = s.pendingLines.get(lineAddr);
      if (pendingUntil !== undefined) {
        // The line is being filled by an earlier miss: wait for that fill (an MSHR merge).
        s.mergedMisses.value++;
        waitForFill(s, { readyCycle: pendingUntil, line, fillAddr: -1 });
      } else {
        const st = s.l1i.access(addr);
        if (st === ProbeStatus.hit) s.out.send(GpuKind.fetchLine, line);
        else if (st === ProbeStatus.missNoLine) {
          s.requests[w] = r; // every way of the set awaits a fill: retry next cycle
        } else {
          s.misses.value++;
          const ready = cycle + s.p.l1iMissLatencyCycles;
          s.pendingLines.set(lineAddr, ready);
          waitForFill(s, { readyCycle: ready, line, fillAddr: addr });
        }
      }
    }
  }
  if (s.requests.some((r) => r !== null) || s.inFlight.length > 0) {
    const next = s.inFlight.length > 0 && !s.requests.some((r) => r !== null) ? Math.max(cycle + 1, s.inFlight[0]!.readyCycle) : cycle + 1;
    io.wakeAt(io.clock.timeOfCycle(next));
  }
}

/**
 * Memory mode, one cycle (requests already taken in): fills, then either the release of one
 * filled fetch or one warp's access (round robin), then one line read down.
 */
function stepMem(s: SmFetchState): void {
  acceptFills(s);
  const pf = s.prefetch;
  if (pf !== null) {
    let m: Message | undefined;
    while ((m = pf.l1dIn.recv()) !== undefined) pf.l1dOccupancy = (m.payload as L1dMshrOccupancy).occupancy;
  }
  let pendingReq = false;
  if (s.out.hasRoom) {
    if (s.ready.length > 0) {
      s.out.send(GpuKind.fetchLine, s.ready.shift()!);
    } else {
      const n = s.requests.length;
      const w = s.pick(s.requests, s.rr, s.io.cycle, s.p.schedulers ?? 1);
      const r = w >= 0 ? s.requests[w] : null;
      if (r !== null && r !== undefined) {
        s.rr = (w + 1) % n;
        const count = Math.min(r.count, s.p.fetchWidth);
        if (accessMem(s, { warp: r.warp, pc: r.pc, fn: r.fn, count, gen: r.gen }, instAddr(s.p, r.fn, r.pc))) s.requests[w] = null;
        else s.resFails.value++;
      }
    }
  }
  sendMiss(s);
  for (let w = 0; w < s.requests.length && !pendingReq; w++) pendingReq = s.requests[w] !== null;
  // Sleep while only fills are awaited: their arrival wakes the unit.
  if (pendingReq || s.ready.length > 0 || (s.missQueue.length > 0 && s.memOut!.hasRoom)) s.io.wakeInCycles(1);
}

/** The unit kind `smFetch`. */
export const smFetch = defineUnit<SmFetchParams>({
  kind: 'smFetch',
  description: 'SM fetch stage with L1I: serves one warp fetch request per cycle (round robin), up to fetchWidth instructions.',
  source: 'GPGPU-Sim shader_core_ctx::fetch; 002 §3',
  spec: smFetchSpec,
  delivery: 'batch',
  machine: unitLifecycleMachine,
  ports: [
    { name: 'req', direction: 'in', description: 'fetch requests from ISSUE', messageKinds: [GpuKind.fetchReq], capacity: 'maxWarps' },
    { name: 'out', direction: 'out', description: 'fetched instructions to DECODE', messageKinds: [GpuKind.fetchLine], capacity: 4 },
    { name: 'memOut', direction: 'out', description: 'L1I line reads to the SM memory port (bound: memory mode)', messageKinds: [GpuKind.readReq], capacity: 2, optional: true },
    { name: 'memIn', direction: 'in', description: 'L1I fills from the SM memory port', messageKinds: [GpuKind.rsp], capacity: 8, optional: true },
    { name: 'l1dMshr', direction: 'in', description: "the L1D's MSHR occupancy reports, for the prefetch gate (bound with prefetchMshrThreshold)", messageKinds: [GpuKind.l1dMshr], capacity: 2, optional: true },
    ...controlPorts('deliver fills in flight, serve no request'),
  ],
  finalize: (snap: { context: SmFetchState }) => snap.context.lifecycle.finalize(),
  stats: [
    { name: 'l1i_accesses', unit: 'count', description: 'L1I accesses' },
    { name: 'l1i_misses', unit: 'count', description: 'L1I misses' },
    { name: 'l1i_pending_hits', unit: 'count', description: 'fetches that waited for a line already being filled' },
    { name: 'l1i_res_fail', unit: 'count', description: 'memory mode: accesses refused for want of an MSHR entry, merge slot or miss-queue entry (retried)' },
  ],
  logic: (p) =>
    cycleLogic(
      step,
      ({ input: io }: { input: UnitIo }): SmFetchState => ({
        io,
        p,
        req: io.in('req'),
        out: io.out('out'),
        l1i: new TagArray(p.l1i),
        requests: new Array(p.maxWarps).fill(null),
        rr: 0,
        pick: createFetchPolicy(p.fetchPolicy ?? 'rr'),
        pendingLines: new Map(),
        inFlight: [],
        lastCycle: -1,
        ctrl: io.in('ctrl'),
        lifecycle: new Lifecycle(io, io.out('status')),
        mergedMisses: io.counter('l1i_pending_hits', 'fetches that waited for a line already being filled'),
        accesses: io.counter('l1i_accesses', 'L1I accesses'),
        misses: io.counter('l1i_misses', 'L1I misses'),
        memOut: io.out('memOut').isBound ? io.out('memOut') : null,
        memIn: io.in('memIn'),
        mshr: new Map(),
        missQueue: new Fifo(Math.max(1, p.missQueueEntries ?? 4)),
        ready: new Fifo(64),
        resFails: io.counter('l1i_res_fail', 'L1I reservation failures (memory mode)'),
        // registered only with a prefetcher: runs without one keep their statistics
        prefetch:
          (p.prefetchMshrThreshold ?? 0) > 0
            ? {
                threshold: p.prefetchMshrThreshold!,
                l1dIn: io.in('l1dMshr'),
                l1dOccupancy: 0,
                lines: new Set(),
                issued: io.counter('l1i_prefetch_issued', 'next-line L1I prefetches sent (004 §3.5)'),
                gated: io.counter('l1i_prefetch_gated', 'next-line prefetches not sent because L1I + L1D MSHRs in use reached the threshold'),
                useful: io.counter('l1i_prefetch_useful', 'prefetched lines whose first demand access hit'),
                late: io.counter('l1i_prefetch_late', 'prefetched lines a demand access found still pending'),
              }
            : null,
      }),
    ),
});
