/**
 * smFetch: the instruction fetch stage of one SM with its L1 instruction cache.
 *
 * Each cycle it serves one warp's fetch request (round robin over the warps with a request,
 * as GPGPU-Sim's fetch stage serves one warp per cycle), reading up to `fetchWidth`
 * instructions at consecutive PCs (8 bytes each, GPGPU-Sim's PTX instruction size) through the
 * L1I tag array. A hit sends the instructions to DECODE at once; a miss allocates the line and
 * sends them after `l1iMissLatencyCycles` (instruction misses are served at a fixed latency
 * rather than through the memory system: a stated simplification, instruction footprints of the
 * library kernels fit in the L1I after the first miss per line).
 *
 * Source: 002 §3 (fetch brings 2 instructions), 004 §2.2; GPGPU-Sim shader_core_ctx::fetch.
 */
import { z } from 'zod';
import type { Message } from '../../src/messaging/message.ts';
import type { InPort, OutPort } from '../../src/messaging/port.ts';
import { ProbeStatus, TagArray, type TagArrayParams } from '../../src/model/mem/tag-array.ts';
import type { Counter } from '../../src/stats/registry.ts';
import { controlPorts, Lifecycle, serviceLifecycle, unitLifecycleMachine } from '../../src/sim/lifecycle.ts';
import { cycleLogic, defineUnit, type UnitIo } from '../../src/sim/unit.ts';
import { tagArraySpec } from '../../src/model/mem/specs.ts';
import { GpuKind, type FetchedInsts, type FetchReq } from '../../src/protocol/gpu.ts';

/** Bytes per instruction in the L1I address space (GPGPU-Sim's PTX model). */
export const INSTRUCTION_BYTES = 8;

/** Parameters of {@link smFetch}. */
export type SmFetchParams = z.infer<typeof smFetchSpec>;

/** Spec of {@link smFetch}. */
export const smFetchSpec = z.strictObject({
  fetchWidth: z.int().min(1).describe('instructions fetched per request at most (instructions) [-gpgpu_shader_fetch width]'),
  maxWarps: z.int().min(1).describe('warp slots: capacity of the req port (warps)'),
  l1i: tagArraySpec.describe('L1I geometry and policies [-gpgpu_cache:il1]'),
  l1iMissLatencyCycles: z.int().min(1).describe('cycles to fill an L1I miss (core cycles): L1I + ROP + L2 hit latency, a stated simplification'),
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
  if ((s.ctrl.length > 0 || !s.lifecycle.running) && !serviceLifecycle(s.lifecycle, s.ctrl, s.inFlight.length === 0 && !s.requests.some((r) => r !== null), s.req.length, io.name)) {
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
  deliverFills(s, cycle);
  // Serve one warp, round robin.
  const n = s.requests.length;
  if (s.out.hasRoom) {
    for (let k = 0; k < n; k++) {
      const w = (s.rr + k) % n;
      const r = s.requests[w];
      if (r === null || r === undefined) continue;
      s.requests[w] = null;
      s.rr = (w + 1) % n;
      const count = Math.min(r.count, s.p.fetchWidth);
      const line: FetchedInsts = { warp: r.warp, pc: r.pc, fn: r.fn, count, gen: r.gen };
      // One access per cache line touched by the fetched instructions.
      const addr = (r.fn * 0x100000 + r.pc) * INSTRUCTION_BYTES;
      s.accesses.value++;
      const lineAddr = s.l1i.blockAddr(addr);
      const pendingUntil = s.pendingLines.get(lineAddr);
      if (pendingUntil !== undefined) {
        // The line is being filled by an earlier miss: wait for that fill (an MSHR merge).
        s.mergedMisses.value++;
        waitForFill(s, { readyCycle: pendingUntil, line, fillAddr: -1 });
        break;
      }
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
      break;
    }
  }
  if (s.requests.some((r) => r !== null) || s.inFlight.length > 0) {
    const next = s.inFlight.length > 0 && !s.requests.some((r) => r !== null) ? Math.max(cycle + 1, s.inFlight[0]!.readyCycle) : cycle + 1;
    io.wakeAt(io.clock.timeOfCycle(next));
  }
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
    ...controlPorts('deliver fills in flight, serve no request'),
  ],
  finalize: (snap: { context: SmFetchState }) => snap.context.lifecycle.finalize(),
  stats: [
    { name: 'l1i_accesses', unit: 'count', description: 'L1I accesses' },
    { name: 'l1i_misses', unit: 'count', description: 'L1I misses' },
    { name: 'l1i_pending_hits', unit: 'count', description: 'fetches that waited for a line already being filled' },
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
        pendingLines: new Map(),
        inFlight: [],
        lastCycle: -1,
        ctrl: io.in('ctrl'),
        lifecycle: new Lifecycle(io, io.out('status')),
        mergedMisses: io.counter('l1i_pending_hits', 'fetches that waited for a line already being filled'),
        accesses: io.counter('l1i_accesses', 'L1I accesses'),
        misses: io.counter('l1i_misses', 'L1I misses'),
      }),
    ),
});
