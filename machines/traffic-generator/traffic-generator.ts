/**
 * trafficGenerator: issues memory requests at a configured rate and pattern, with a bound on
 * outstanding requests, and measures their round-trip latency. It obeys `ctrl.pause` /
 * `ctrl.resume` on its `ctrl` port (sent, for example, by a duty-cycle controller statechart).
 *
 * A synthetic requester in the style of gem5's traffic generators: patterns `sequential`
 * (addr = base + k * strideBytes, wrapping at footprintBytes) and `random` (uniform over the
 * footprint, aligned to strideBytes, from the instance's seeded PRNG).
 */
import { z } from 'zod';
import type { Message } from '../../src/messaging/message.ts';
import type { InPort, OutPort } from '../../src/messaging/port.ts';
import type { Counter, Histogram } from '../../src/stats/registry.ts';
import { observe } from '../../src/stats/registry.ts';
import { defineUnit, wakeLogic, type UnitIo } from '../../src/sim/unit.ts';
import { CtrlKind, MemKind, type MemRequest } from '../../src/protocol/mem.ts';

/** Parameters of {@link trafficGenerator}. */
export const trafficGeneratorParams = z
  .object({
    requests: z.number().int().min(0).default(1000).describe('requests to issue in total'),
    issueIntervalCycles: z.number().int().min(1).default(1).describe('cycles between issues'),
    maxOutstanding: z.number().int().min(1).default(16).describe('requests in flight at most'),
    pattern: z.enum(['sequential', 'random']).default('sequential').describe('address pattern'),
    baseAddr: z.number().int().min(0).default(0).describe('first address, bytes'),
    strideBytes: z.number().int().min(1).default(64).describe('address step / alignment, bytes'),
    footprintBytes: z.number().int().min(1).default(1 << 20).describe('addresses wrap within this range, bytes'),
    sizeBytes: z.number().int().min(1).default(32).describe('bytes per request'),
    writeFraction: z.number().min(0).max(1).default(0).describe('probability a request is a write'),
    requestQueueDepth: z.number().int().min(1).default(2).describe('req port buffer capacity, messages'),
  })
  .strict();

/** Validated parameters. */
export type TrafficGeneratorParams = z.infer<typeof trafficGeneratorParams>;

/** Mutable datapath state. */
export interface TrafficGeneratorState {
  readonly io: UnitIo;
  readonly params: TrafficGeneratorParams;
  readonly req: OutPort;
  readonly rsp: InPort;
  readonly ctrl: InPort;
  /** Request id -> send time, ps. */
  readonly outstanding: Map<number, number>;
  issued: number;
  nextIssueCycle: number;
  paused: boolean;
  /** Cycle the current pause began. */
  pausedAtCycle: number;
  lastCycle: number;
  readonly issuedCount: Counter;
  readonly completed: Counter;
  readonly pausedCycles: Counter;
  readonly latency: Histogram;
}

function nextAddress(s: TrafficGeneratorState): number {
  const p = s.params;
  const slots = Math.max(1, Math.floor(p.footprintBytes / p.strideBytes));
  const slot = p.pattern === 'sequential' ? s.issued % slots : s.io.prng.int(0, slots - 1);
  return p.baseAddr + slot * p.strideBytes;
}

function step(s: TrafficGeneratorState): void {
  const io = s.io;
  const cycle = io.cycle;
  // Control first: a pause that arrives this cycle stops this cycle's issue.
  let ctrl: Message | undefined;
  while ((ctrl = s.ctrl.recv()) !== undefined) {
    if (ctrl.kind === CtrlKind.pause && !s.paused) {
      s.paused = true;
      s.pausedAtCycle = cycle;
    } else if (ctrl.kind === CtrlKind.resume && s.paused) {
      s.paused = false;
      s.pausedCycles.value += cycle - s.pausedAtCycle;
    }
  }
  let rsp: Message | undefined;
  while ((rsp = s.rsp.recv()) !== undefined) {
    const sent = s.outstanding.get(rsp.replyTo);
    if (sent === undefined) throw new Error(`response ${rsp.id} answers unknown request ${rsp.replyTo}`);
    s.outstanding.delete(rsp.replyTo);
    s.completed.value++;
    const cycles = io.clock.cycleAt(io.now) - io.clock.cycleAt(sent);
    observe(s.latency, cycles);
    if (io.tracing) io.span('request', sent, io.now, rsp.replyTo);
  }
  if (cycle === s.lastCycle) {
    if (s.issued < s.params.requests && !s.paused) io.wakeInCycles(1);
    return;
  }
  s.lastCycle = cycle;
  const p = s.params;
  if (s.paused) return; // resumed by a ctrl message
  if (s.issued < p.requests && cycle >= s.nextIssueCycle && s.outstanding.size < p.maxOutstanding) {
    const write = p.writeFraction > 0 && io.prng.float() < p.writeFraction;
    const addr = nextAddress(s);
    const payload: MemRequest = write ? { addr, size: p.sizeBytes, data: s.issued } : { addr, size: p.sizeBytes };
    const msg = s.req.send(write ? MemKind.writeReq : MemKind.readReq, payload, { bytes: write ? p.sizeBytes : 8 });
    if (msg !== null) {
      s.outstanding.set(msg.id, io.now);
      s.issued++;
      s.issuedCount.value++;
      s.nextIssueCycle = cycle + p.issueIntervalCycles;
    } else {
      // With the random pattern the PRNG already advanced: deterministic, since retries replay the same way.
      return; // woken when req has room
    }
  }
  if (s.issued < p.requests && s.outstanding.size < p.maxOutstanding) {
    io.wakeAt(io.clock.timeOfCycle(Math.max(s.nextIssueCycle, cycle + 1)));
  }
}

/** The unit kind `trafficGenerator`. */
export const trafficGenerator = defineUnit<TrafficGeneratorParams>({
  kind: 'trafficGenerator',
  description: 'Synthetic requester: issues mem.readReq/mem.writeReq at a rate and pattern, bounds outstanding requests, measures latency; obeys ctrl.pause/ctrl.resume.',
  source: 'gem5-style traffic generator (linear / random)',
  spec: trafficGeneratorParams,
  delivery: 'batch',
  ports: [
    { name: 'req', direction: 'out', description: 'requests', messageKinds: [MemKind.readReq, MemKind.writeReq], capacity: 'requestQueueDepth' },
    { name: 'rsp', direction: 'in', description: 'responses', messageKinds: [MemKind.rsp], capacity: 'maxOutstanding' },
    { name: 'ctrl', direction: 'in', description: 'pause/resume commands (may stay unconnected)', messageKinds: [CtrlKind.pause, CtrlKind.resume], capacity: 4, optional: true },
  ],
  stats: [
    { name: 'issued', unit: 'count', description: 'requests issued' },
    { name: 'completed', unit: 'count', description: 'responses received' },
    { name: 'paused_cycles', unit: 'cycles', description: 'cycles between a pause and the following resume' },
    { name: 'latency', unit: 'cycles', description: 'round-trip latency histogram' },
  ],
  logic: (params) =>
    wakeLogic(
      step,
      ({ input }: { input: UnitIo }): TrafficGeneratorState => ({
        io: input,
        params,
        req: input.out('req'),
        rsp: input.in('rsp'),
        ctrl: input.in('ctrl'),
        outstanding: new Map(),
        issued: 0,
        nextIssueCycle: 0,
        paused: false,
        pausedAtCycle: 0,
        lastCycle: -1,
        issuedCount: input.counter('issued', 'requests issued'),
        completed: input.counter('completed', 'responses received'),
        pausedCycles: input.counter('paused_cycles', 'cycles between a pause and the following resume', 'cycles'),
        latency: input.histogram('latency', [10, 20, 40, 80, 160, 320, 640], 'round-trip latency', 'cycles'),
      }),
    ),
  pendingWork: (snapshot: { context: TrafficGeneratorState }) => {
    const s = snapshot.context;
    const parts: string[] = [];
    if (s.outstanding.size > 0) parts.push(`${s.outstanding.size} requests outstanding`);
    if (s.issued < s.params.requests) parts.push(`${s.params.requests - s.issued} requests not yet issued${s.paused ? ' (paused)' : ''}`);
    return parts.length > 0 ? parts.join(', ') : null;
  },
});
