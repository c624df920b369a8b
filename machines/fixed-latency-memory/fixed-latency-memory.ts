/**
 * fixedLatencyMemory: a pipelined memory with a fixed access latency and a bounded request
 * queue. The worked example of machines/README.md.
 *
 * Each cycle it accepts up to `requestsPerCycle` requests from its `req` port (whose capacity,
 * `queueDepth`, is the request queue: when full, the link stops injecting and back-pressure
 * reaches the requesters). A request accepted at cycle c is answered at cycle c + latencyCycles.
 * Answers leave on `rsp` in order; when `rsp` is full the pipeline holds them and counts stall
 * cycles. Data is kept in a sparse word store so reads return what was written.
 */
import { z } from 'zod';
import { Fifo } from '../../src/messaging/fifo.ts';
import type { Message } from '../../src/messaging/message.ts';
import type { InPort, OutPort } from '../../src/messaging/port.ts';
import type { Counter, Histogram } from '../../src/stats/registry.ts';
import { observe } from '../../src/stats/registry.ts';
import { cycleLogic, defineUnit, type UnitIo } from '../../src/sim/unit.ts';
import { MemKind, type MemRequest, type MemResponse } from '../../src/protocol/mem.ts';

/** Parameters of {@link fixedLatencyMemory}. */
export const fixedLatencyMemoryParams = z
  .object({
    latencyCycles: z.number().int().min(1).default(20).describe('access latency, cycles of the unit clock'),
    queueDepth: z.number().int().min(1).default(8).describe('request queue capacity, messages'),
    requestsPerCycle: z.number().int().min(1).default(1).describe('requests accepted per cycle (pipeline width)'),
    responseQueueDepth: z.number().int().min(1).default(4).describe('rsp port buffer capacity, messages'),
  })
  .strict();

/** Validated parameters. */
export type FixedLatencyMemoryParams = z.infer<typeof fixedLatencyMemoryParams>;

interface InFlight {
  readonly readyCycle: number;
  readonly request: Message<MemRequest>;
  readonly acceptTime: number;
}

/** Mutable datapath state (mutated in place on the hot path; DESIGN.md §3). */
export interface FixedLatencyMemoryState {
  readonly io: UnitIo;
  readonly params: FixedLatencyMemoryParams;
  readonly req: InPort;
  readonly rsp: OutPort;
  readonly pipeline: Fifo<InFlight>;
  readonly store: Map<number, number>;
  lastCycle: number;
  readonly reads: Counter;
  readonly writes: Counter;
  readonly stallCycles: Counter;
  readonly queueOccupancy: Histogram;
}

function step(s: FixedLatencyMemoryState, cycle: number): void {
  const io = s.io;
  // 1. Retire: answers whose latency has elapsed, in order, while the rsp port has room.
  const pipeline = s.pipeline;
  let head = pipeline.peek();
  while (head !== undefined && head.readyCycle <= cycle) {
    if (!s.rsp.hasRoom) {
      s.stallCycles.value++;
      break; // woken when rsp frees room
    }
    const req = head.request;
    const write = req.kind === MemKind.writeReq;
    const data = write ? req.payload.data ?? 0 : s.store.get(req.payload.addr) ?? 0;
    if (write) s.store.set(req.payload.addr, data);
    const rsp: MemResponse = { addr: req.payload.addr, data, write };
    s.rsp.send(MemKind.rsp, rsp, { replyTo: req, bytes: write ? 0 : req.payload.size });
    if (io.tracing) io.span(write ? 'write' : 'read', head.acceptTime, io.now, req.id);
    pipeline.shift();
    head = pipeline.peek();
  }
  // 2. Accept up to requestsPerCycle new requests.
  observe(s.queueOccupancy, s.req.length);
  for (let i = 0; i < s.params.requestsPerCycle; i++) {
    const msg = s.req.recv() as Message<MemRequest> | undefined;
    if (msg === undefined) break;
    if (msg.kind === MemKind.writeReq) s.writes.value++;
    else s.reads.value++;
    pipeline.push({ readyCycle: cycle + s.params.latencyCycles, request: msg, acceptTime: io.now });
  }
  // 3. Sleep until the next thing to do.
  if (s.req.length > 0) io.wakeInCycles(1);
  else if (pipeline.length > 0) {
    const ready = pipeline.peek()!.readyCycle;
    if (ready > cycle) io.wakeAt(io.clock.timeOfCycle(ready));
    else if (s.rsp.hasRoom) io.wakeInCycles(1);
  }
}

/** The unit kind `fixedLatencyMemory`. */
export const fixedLatencyMemory = defineUnit<FixedLatencyMemoryParams>({
  kind: 'fixedLatencyMemory',
  description: 'Pipelined memory with a fixed latency and a bounded request queue; answers mem.readReq/mem.writeReq with mem.rsp.',
  source: 'generic model (the machines/README.md walkthrough)',
  spec: fixedLatencyMemoryParams,
  delivery: 'batch',
  ports: [
    { name: 'req', direction: 'in', description: 'requests; capacity = queueDepth', messageKinds: [MemKind.readReq, MemKind.writeReq], capacity: 'queueDepth' },
    { name: 'rsp', direction: 'out', description: 'responses, in request order', messageKinds: [MemKind.rsp], capacity: 'responseQueueDepth' },
  ],
  stats: [
    { name: 'reads', unit: 'count', description: 'read requests accepted' },
    { name: 'writes', unit: 'count', description: 'write requests accepted' },
    { name: 'stall_cycles', unit: 'cycles', description: 'cycles a ready response waited for rsp room' },
    { name: 'queue_occupancy', unit: 'messages', description: 'request queue occupancy per active cycle (histogram)' },
    { name: 'occupancy', unit: 'requests', description: 'requests queued or in the pipeline (time series, sampled)' },
  ],
  logic: (params) =>
    cycleLogic(
      step,
      ({ input }: { input: UnitIo }): FixedLatencyMemoryState => {
        const req = input.in('req');
        const pipeline = new Fifo<InFlight>(16);
        input.timeSeries('occupancy', () => req.length + pipeline.length, 'requests queued or in the pipeline (sampled)', 'requests');
        return {
        io: input,
        params,
        req,
        rsp: input.out('rsp'),
        pipeline,
        store: new Map(),
        lastCycle: -1,
        reads: input.counter('reads', 'read requests accepted'),
        writes: input.counter('writes', 'write requests accepted'),
        stallCycles: input.counter('stall_cycles', 'cycles a ready response waited for rsp room', 'cycles'),
        queueOccupancy: input.histogram('queue_occupancy', [0, 1, 2, 4, 8, 16, 32], 'request queue occupancy per active cycle', 'messages'),
        };
      },
    ),
  pendingWork: (snapshot: { context: FixedLatencyMemoryState }) => {
    const n = snapshot.context.pipeline.length;
    return n > 0 ? `${n} requests in the pipeline` : null;
  },
});
