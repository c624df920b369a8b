/**
 * victimCache: a small fully associative buffer of lines the L1D evicted, spliced between the L1D
 * and the interconnect (Jouppi, "Improving direct-mapped cache performance by the addition of a
 * small fully-associative cache and prefetch buffers", ISCA 1990, §3 victim caching). The
 * worked example of `machines/README.md`: enabled by config alone, at two splice points of each
 * SM, `sm.l1d-icnt` (inline: its `topIn/topOut` face the L1D, `bottomOut/bottomIn` the
 * interconnect) and `sm.l1d-evict` (tap: its `evict` in-port receives the L1D's evictions).
 *
 * ## One cycle
 * 1. Evictions (`mem.evict`) insert their line, LRU replacement among `entries` lines (a line
 *    already held is only touched). Dirty victims are not held: their data goes down as the
 *    L1D's write-back, and the victim cache holds clean lines only.
 * 2. Responses from below (`mem.rsp`) go up unchanged except `replyTo`, rewritten to the id of
 *    the L1D's own request (the protocol rule for units that forward requests: the L1D matches
 *    atomic answers by `replyTo`).
 * 3. Hits whose `hitLatencyCycles` elapsed are answered to the L1D as fills (`mem.rsp`).
 * 4. Up to one request from the L1D:
 *    - a line read (`mem.readReq`) of a held line is a hit: the line leaves the victim cache (it
 *      moves back into the L1D, which evicts another line into it) and is answered
 *      `hitLatencyCycles` later;
 *    - any other request goes down unchanged (posted writes stay posted); a write or an atomic
 *      also invalidates a held copy of its line, so the victim cache never returns stale data.
 *    A request that finds `bottomOut` full waits in `topIn` (back-pressure to the L1D).
 * 5. Sleep unless work remains.
 */
import { z } from 'zod';
import { SimulationError } from '../../src/errors.ts';
import { Fifo } from '../../src/messaging/fifo.ts';
import type { Message } from '../../src/messaging/message.ts';
import type { InPort, OutPort } from '../../src/messaging/port.ts';
import type { Counter } from '../../src/stats/registry.ts';
import { cycleLogic, defineUnit, type UnitIo } from '../../src/sim/unit.ts';
import { GpuKind, memPacketBytes, type GpuMemRequest, type GpuMemResponse, type L1dEviction } from '../../src/protocol/gpu.ts';

/** Spec of {@link victimCache}. */
export const victimCacheSpec = z.strictObject({
  entries: z.int().min(1).max(1024).default(16).describe('lines held, fully associative with LRU replacement (lines) [Jouppi 1990 §3: 1-15 lines]'),
  lineBytes: z.int().min(1).default(128).describe('line size; must equal the L1D line size (bytes)'),
  hitLatencyCycles: z.int().min(1).default(2).describe('cycles from a hit to its fill leaving toward the L1D (core cycles)'),
});

/** Spec of {@link victimCache}: lines, line size, hit latency. */
export type VictimCacheSpec = z.infer<typeof victimCacheSpec>;

/** Mutable datapath state. */
export interface VictimCacheState {
  readonly io: UnitIo;
  readonly spec: VictimCacheSpec;
  readonly topIn: InPort;
  readonly topOut: OutPort;
  readonly bottomOut: OutPort;
  readonly bottomIn: InPort;
  readonly evictIn: InPort;
  /** Held line addresses and their last-use stamp (LRU); -1 = empty way. */
  readonly lines: Float64Array;
  readonly lastUse: Float64Array;
  useClock: number;
  /** Hits waiting for their latency: the L1D request and the cycle its fill may leave. */
  readonly hitMsgs: Fifo<Message<GpuMemRequest>>;
  readonly hitReady: Fifo<number>;
  /** Id of a request forwarded down -> id of the L1D's request it came from (reads, atomics). */
  readonly origin: Map<number, number>;
  lastCycle: number;
  readonly hits: Counter;
  readonly misses: Counter;
  readonly inserts: Counter;
  readonly invalidations: Counter;
}

function lineOf(s: VictimCacheState, addr: number): number {
  return addr - (addr % s.spec.lineBytes);
}

function find(s: VictimCacheState, line: number): number {
  const lines = s.lines;
  for (let w = 0; w < lines.length; w++) if (lines[w] === line) return w;
  return -1;
}

function insert(s: VictimCacheState, ev: L1dEviction): void {
  // A dirty victim's data goes down as the L1D's write-back: only clean lines are held.
  if (ev.dirty) return;
  const line = lineOf(s, ev.addr);
  let w = find(s, line);
  if (w < 0) {
    // LRU victim (an empty way has stamp -1 and is taken first).
    w = 0;
    for (let i = 1; i < s.lines.length; i++) if (s.lastUse[i]! < s.lastUse[w]!) w = i;
    s.lines[w] = line;
    s.inserts.value++;
  }
  s.lastUse[w] = s.useClock++;
}

function invalidate(s: VictimCacheState, w: number): void {
  s.lines[w] = -1;
  s.lastUse[w] = -1;
}

function answerHits(s: VictimCacheState, cycle: number): void {
  while (s.hitMsgs.length > 0 && s.hitReady.peek()! <= cycle && s.topOut.hasRoom) {
    s.hitReady.shift();
    const req = s.hitMsgs.shift()!;
    const pl = req.payload;
    const rsp: GpuMemResponse = { addr: pl.addr, size: pl.size, sm: pl.sm, write: false };
    s.topOut.send(GpuKind.rsp, rsp, { replyTo: req, bytes: memPacketBytes(GpuKind.rsp, pl.size) });
  }
}

function step(s: VictimCacheState, cycle: number): void {
  const io = s.io;
  let m: Message | undefined;
  while ((m = s.evictIn.recv()) !== undefined) insert(s, m.payload as L1dEviction);
  while (s.bottomIn.length > 0 && s.topOut.hasRoom) {
    const rsp = s.bottomIn.recv()!;
    const orig = s.origin.get(rsp.replyTo);
    if (orig !== undefined) s.origin.delete(rsp.replyTo);
    s.topOut.send(rsp.kind, rsp.payload, { bytes: rsp.bytes, replyTo: orig ?? rsp.replyTo });
  }
  answerHits(s, cycle);
  const head = s.topIn.peek() as Message<GpuMemRequest> | undefined;
  if (head !== undefined) {
    const pl = head.payload;
    const w = find(s, lineOf(s, pl.addr));
    if (head.kind === GpuKind.readReq && pl.atomic !== true && w >= 0) {
      s.topIn.recv();
      invalidate(s, w); // the line moves back into the L1D
      s.hits.value++;
      s.hitMsgs.push(head);
      s.hitReady.push(cycle + s.spec.hitLatencyCycles);
    } else if (s.bottomOut.hasRoom) {
      s.topIn.recv();
      if (w >= 0) {
        invalidate(s, w);
        s.invalidations.value++;
      }
      if (head.kind === GpuKind.readReq) s.misses.value++;
      const fwd = s.bottomOut.send(head.kind, pl, { bytes: head.bytes })!;
      if (head.kind === GpuKind.readReq || pl.atomic === true) s.origin.set(fwd.id, head.id);
    } else {
      s.bottomOut.waitingForRoom = true;
    }
  }
  // Sleep until the next thing to do; arrivals and freed ports wake the unit.
  let next = Infinity;
  if (s.topIn.length > 0 && s.bottomOut.hasRoom) next = cycle + 1;
  if (s.bottomIn.length > 0 && s.topOut.hasRoom) next = cycle + 1;
  if (s.hitMsgs.length > 0) next = Math.min(next, Math.max(cycle + 1, s.hitReady.peek()!));
  if (next !== Infinity) io.wakeAt(io.clock.timeOfCycle(next));
}

/** The unit kind `victimCache`. */
export const victimCache = defineUnit<VictimCacheSpec>({
  kind: 'victimCache',
  description: 'Fully associative victim cache beside the L1D: holds lines the L1D evicted and answers L1D line reads that hit them; everything else passes through to the interconnect.',
  source: 'Jouppi, ISCA 1990, §3 (victim caching); example block of machines/README.md',
  spec: victimCacheSpec,
  delivery: 'batch',
  ports: [
    { name: 'topIn', direction: 'in', description: 'requests from the L1D (line reads, posted writes, atomics)', messageKinds: [GpuKind.readReq, GpuKind.writeReq], capacity: 4 },
    { name: 'topOut', direction: 'out', description: 'fills and atomic answers to the L1D', messageKinds: [GpuKind.rsp], capacity: 8 },
    { name: 'bottomOut', direction: 'out', description: 'requests to the interconnect', messageKinds: [GpuKind.readReq, GpuKind.writeReq], capacity: 4 },
    { name: 'bottomIn', direction: 'in', description: 'responses from the interconnect', messageKinds: [GpuKind.rsp], capacity: 8 },
    { name: 'evict', direction: 'in', description: "the L1D's evictions (lines to hold)", messageKinds: [GpuKind.evict], capacity: 8 },
  ],
  stats: [
    { name: 'vc_hits', unit: 'count', description: 'L1D line reads answered from the victim cache', gpuTotal: 'gpu_vc_hits' },
    { name: 'vc_misses', unit: 'count', description: 'L1D line reads passed down', gpuTotal: 'gpu_vc_misses' },
    { name: 'vc_inserts', unit: 'count', description: 'evicted lines inserted' },
    { name: 'vc_invalidations', unit: 'count', description: 'held lines invalidated by a write or an atomic' },
  ],
  logic: (spec) =>
    cycleLogic(step, ({ input: io }: { input: UnitIo }): VictimCacheState => {
      if (spec.lineBytes <= 0) throw new SimulationError(`${io.name}: lineBytes must be positive`);
      return {
        io,
        spec,
        topIn: io.in('topIn'),
        topOut: io.out('topOut'),
        bottomOut: io.out('bottomOut'),
        bottomIn: io.in('bottomIn'),
        evictIn: io.in('evict'),
        lines: new Float64Array(spec.entries).fill(-1),
        lastUse: new Float64Array(spec.entries).fill(-1),
        useClock: 0,
        hitMsgs: new Fifo(8),
        hitReady: new Fifo(8),
        origin: new Map(),
        lastCycle: -1,
        hits: io.counter('vc_hits', 'L1D line reads answered from the victim cache'),
        misses: io.counter('vc_misses', 'L1D line reads passed down'),
        inserts: io.counter('vc_inserts', 'evicted lines inserted'),
        invalidations: io.counter('vc_invalidations', 'held lines invalidated by a write or an atomic'),
      };
    }),
  pendingWork: (snap: { context: VictimCacheState }) => {
    const s = snap.context;
    const parts: string[] = [];
    if (s.origin.size > 0) parts.push(`${s.origin.size} reads forwarded awaiting responses`);
    if (s.hitMsgs.length > 0) parts.push(`${s.hitMsgs.length} hits unanswered`);
    return parts.length > 0 ? parts.join('; ') : null;
  },
});
