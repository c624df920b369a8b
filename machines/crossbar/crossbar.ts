/**
 * crossbar: an input-queued crossbar with separate request and response networks and a
 * round-robin arbiter per output, as GPGPU-Sim's simple interconnect (`-network_mode 2`) and
 * MGPUSim's switches model it.
 *
 * Requests arriving on `in[i]` go to `out[j]` with j = floor(addr / interleaveBytes) mod outputs
 * (address interleaving across memory partitions). Responses arriving on `rspIn[j]` return to
 * the input the request came from, `rspOut[i]`. Each output forwards at most one message per
 * cycle; among inputs whose head wants the same output, the arbiter grants the one after the
 * last winner (round robin). A head that loses, or whose output port is full, blocks its input
 * (head-of-line blocking), counted as a conflict cycle.
 */
import { z } from 'zod';
import type { InPort, OutPort } from '../../src/messaging/port.ts';
import type { Counter } from '../../src/stats/registry.ts';
import { cycleLogic, defineUnit, type UnitIo } from '../../src/sim/unit.ts';
import { MemKind, type MemRequest } from '../../src/protocol/mem.ts';

/** Parameters of {@link crossbar}. */
export const crossbarParams = z
  .object({
    inputs: z.number().int().min(1).describe('requester ports (in[i] / rspOut[i])'),
    outputs: z.number().int().min(1).describe('memory-side ports (out[j] / rspIn[j])'),
    interleaveBytes: z.number().int().min(1).default(256).describe('address interleaving granularity across outputs, bytes'),
    bufferDepth: z.number().int().min(1).default(4).describe('capacity of every port buffer, messages'),
  })
  .strict();

/** Validated parameters. */
export type CrossbarParams = z.infer<typeof crossbarParams>;

/** Routing record for a forwarded request. */
interface Route {
  readonly input: number;
  readonly originalId: number;
}

/** One direction of the crossbar (request or response network). */
interface Network {
  readonly ins: InPort[];
  readonly outs: OutPort[];
  /** Round-robin pointer per output: the input to consider first. */
  readonly rrNext: Int32Array;
  /** Output chosen by each input's head this cycle (-1 none), reused scratch. */
  readonly want: Int32Array;
  readonly forwarded: Counter;
  readonly conflicts: Counter;
}

/** Mutable datapath state. */
export interface CrossbarState {
  readonly io: UnitIo;
  readonly params: CrossbarParams;
  readonly request: Network;
  readonly response: Network;
  /** Forwarded request id -> where its response goes. */
  readonly routes: Map<number, Route>;
  lastCycle: number;
}

function makeNetwork(io: UnitIo, ins: string, outs: string, nIn: number, nOut: number, label: string): Network {
  return {
    ins: Array.from({ length: nIn }, (_, i) => io.in(`${ins}[${i}]`)),
    outs: Array.from({ length: nOut }, (_, j) => io.out(`${outs}[${j}]`)),
    rrNext: new Int32Array(nOut),
    want: new Int32Array(nIn),
    forwarded: io.counter(`${label}_forwarded`, `${label} messages forwarded`),
    conflicts: io.counter(`${label}_conflicts`, `${label} input-cycles a head lost arbitration or found its output full`, 'cycles'),
  };
}

/** One arbitration round; returns true when messages remain queued. */
function arbitrate(s: CrossbarState, net: Network, isRequest: boolean): boolean {
  const { ins, outs, rrNext, want } = net;
  const nIn = ins.length;
  const nOut = outs.length;
  let pending = false;
  for (let i = 0; i < nIn; i++) {
    const head = ins[i]!.peek();
    if (head === undefined) {
      want[i] = -1;
      continue;
    }
    if (isRequest) {
      want[i] = Math.floor((head.payload as MemRequest).addr / s.params.interleaveBytes) % nOut;
    } else {
      const route = s.routes.get(head.replyTo);
      want[i] = route === undefined ? -2 : route.input;
    }
  }
  for (let j = 0; j < nOut; j++) {
    const out = outs[j]!;
    const start = rrNext[j]!;
    for (let k = 0; k < nIn; k++) {
      const i = (start + k) % nIn;
      if (want[i] !== j) continue;
      if (!out.hasRoom) break; // woken when room frees
      const msg = ins[i]!.recv()!;
      want[i] = -1;
      if (isRequest) {
        const fwd = out.send(msg.kind, msg.payload, { bytes: msg.bytes });
        s.routes.set(fwd!.id, { input: i, originalId: msg.id });
      } else {
        const route = s.routes.get(msg.replyTo)!;
        s.routes.delete(msg.replyTo);
        out.send(msg.kind, msg.payload, { bytes: msg.bytes, replyTo: route.originalId });
      }
      net.forwarded.value++;
      rrNext[j] = (i + 1) % nIn;
      break;
    }
  }
  for (let i = 0; i < nIn; i++) {
    const w = want[i]!;
    if (w === -2) {
      throw new Error(`response ${ins[i]!.peek()!.id} on ${ins[i]!.fullName} answers unknown request ${ins[i]!.peek()!.replyTo}`);
    }
    if (w >= 0) net.conflicts.value++;
    if (ins[i]!.length > 0) pending = true;
  }
  return pending;
}

function step(s: CrossbarState, cycle: number): void {
  const io = s.io;
  const moreReq = arbitrate(s, s.request, true);
  const moreRsp = arbitrate(s, s.response, false);
  if (moreReq || moreRsp) io.wakeInCycles(1);
}

/** The unit kind `crossbar`. */
export const crossbar = defineUnit<CrossbarParams>({
  kind: 'crossbar',
  description: 'Input-queued crossbar with request and response networks, address-interleaved routing and round-robin arbitration per output.',
  source: 'GPGPU-Sim simple crossbar interconnect (-network_mode 2); round-robin arbiter',
  spec: crossbarParams,
  delivery: 'batch',
  ports: [
    { name: 'in', direction: 'in', description: 'requests from requester i', messageKinds: [MemKind.readReq, MemKind.writeReq], countParam: 'inputs', capacity: 'bufferDepth' },
    { name: 'out', direction: 'out', description: 'requests to memory j', messageKinds: [MemKind.readReq, MemKind.writeReq], countParam: 'outputs', capacity: 'bufferDepth' },
    { name: 'rspIn', direction: 'in', description: 'responses from memory j', messageKinds: [MemKind.rsp], countParam: 'outputs', capacity: 'bufferDepth' },
    { name: 'rspOut', direction: 'out', description: 'responses to requester i', messageKinds: [MemKind.rsp], countParam: 'inputs', capacity: 'bufferDepth' },
  ],
  stats: [
    { name: 'request_forwarded', unit: 'count', description: 'requests forwarded' },
    { name: 'request_conflicts', unit: 'cycles', description: 'input-cycles a request head lost arbitration or found its output full' },
    { name: 'response_forwarded', unit: 'count', description: 'responses forwarded' },
    { name: 'response_conflicts', unit: 'cycles', description: 'input-cycles a response head lost arbitration or found its output full' },
  ],
  logic: (params) =>
    cycleLogic(
      step,
      ({ input }: { input: UnitIo }): CrossbarState => ({
        io: input,
        params,
        request: makeNetwork(input, 'in', 'out', params.inputs, params.outputs, 'request'),
        response: makeNetwork(input, 'rspIn', 'rspOut', params.outputs, params.inputs, 'response'),
        routes: new Map(),
        lastCycle: -1,
      }),
    ),
  pendingWork: (snapshot: { context: CrossbarState }) => {
    const n = snapshot.context.routes.size;
    return n > 0 ? `${n} requests awaiting responses` : null;
  },
});

