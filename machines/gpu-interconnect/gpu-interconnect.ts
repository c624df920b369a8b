/**
 * gpuInterconnect: the GPU's SM <-> memory-partition crossbar (`GPU.ICNT`), with separate
 * request and response networks, as GPGPU-Sim's local crossbar (`-network_mode 2`, two
 * subnetworks) and MGPUSim's switches model it.
 *
 * - Request network: a request arriving on `topIn[i]` goes to `bottomOut[j]` with
 *   `j = partitionOf(addr)` (the topology passes a routing function built on the GPU's
 *   `AddressMap`: the L2 slice, i.e. memory sub-partition, owning the address).
 * - Response network: a response arriving on `bottomIn[j]` goes to `topOut[payload.sm]`.
 *
 * Each output forwards at most one packet per cycle. Among inputs whose head packet wants the
 * same output, a round-robin arbiter per output grants the one after the last winner. A head
 * that loses, or whose output port is full, blocks its input this cycle (head-of-line blocking)
 * and counts one conflict. Latency and bandwidth (flit serialisation: `bytesPerCycle` = flit
 * size) are properties of the links around the unit; the unit itself adds no cycle beyond the
 * cycle of arbitration (a packet arriving at cycle c leaves at c when it wins).
 *
 * A forwarded request is a new message; the id of the message it came from is remembered for
 * reads so the response can carry the original id in `replyTo` (traces join request and
 * response end to end, and the L1D matches atomic responses by it). Posted writes get no
 * response and are not remembered.
 */
import { z } from 'zod';
import { SimulationError } from '../../src/errors.ts';
import type { InPort, OutPort } from '../../src/messaging/port.ts';
import type { Counter } from '../../src/stats/registry.ts';
import { cycleLogic, defineUnit, type UnitIo } from '../../src/sim/unit.ts';
import { GpuKind, type GpuMemRequest, type GpuMemResponse } from '../../src/protocol/gpu.ts';

/** Spec of {@link gpuInterconnect}. */
export const gpuInterconnectSpec = z.strictObject({
  sms: z.int().min(1).describe('SMs: port arrays topIn / topOut (SMs)'),
  partitions: z.int().min(1).describe('memory sub-partitions = L2 slices: port arrays bottomOut / bottomIn (slices)'),
  bufferDepth: z.int().min(1).describe('capacity of every port buffer (packets) [-gpgpu_icnt input/output buffer size]'),
});

/** Spec of {@link gpuInterconnect}: SMs, L2 slices, buffer depth. */
export type GpuInterconnectParams = z.infer<typeof gpuInterconnectSpec>;

/** Injected resources of {@link gpuInterconnect}. */
export interface GpuInterconnectResources {
  /** L2 slice owning byte address `addr`: an integer in [0, partitions) (the GPU's address map). */
  readonly partitionOf: (addr: number) => number;
}

/** One network (request or response). */
interface Network {
  readonly ins: InPort[];
  readonly outs: OutPort[];
  /** Round-robin pointer per output: the input considered first. */
  readonly rrNext: Int32Array;
  /** Output wanted by each input's head this cycle (-1 none). */
  readonly want: Int32Array;
  readonly packets: Counter;
  readonly conflicts: Counter;
  readonly isRequest: boolean;
}

/** Mutable datapath state. */
export interface GpuInterconnectState {
  readonly io: UnitIo;
  readonly p: GpuInterconnectParams;
  readonly partitionOf: (addr: number) => number;
  readonly request: Network;
  readonly response: Network;
  /** Forwarded read id -> id of the message it came from. */
  readonly origin: Map<number, number>;
  lastCycle: number;
}

function makeNetwork(io: UnitIo, inName: string, outName: string, nIn: number, nOut: number, label: string, isRequest: boolean): Network {
  return {
    ins: Array.from({ length: nIn }, (_, i) => io.in(`${inName}[${i}]`)),
    outs: Array.from({ length: nOut }, (_, j) => io.out(`${outName}[${j}]`)),
    rrNext: new Int32Array(nOut),
    want: new Int32Array(nIn),
    packets: io.counter(`${label}_packets`, `${label} packets forwarded`),
    conflicts: io.counter(`${label}_conflicts`, `${label} input-cycles whose head lost arbitration or found its output full`, 'cycles'),
    isRequest,
  };
}

/** One arbitration round of a network; returns true when packets remain queued. */
function arbitrate(s: GpuInterconnectState, net: Network): boolean {
  const { ins, outs, rrNext, want } = net;
  const nIn = ins.length;
  const nOut = outs.length;
  for (let i = 0; i < nIn; i++) {
    const head = ins[i]!.peek();
    if (head === undefined) {
      want[i] = -1;
      continue;
    }
    const j = net.isRequest ? s.partitionOf((head.payload as GpuMemRequest).addr) : (head.payload as GpuMemResponse).sm;
    if (!(Number.isInteger(j) && j >= 0 && j < nOut)) {
      throw new SimulationError(
        `${s.io.name}: ${net.isRequest ? `partitionOf(${(head.payload as GpuMemRequest).addr})` : `response sm`} = ${j}, outside [0, ${nOut})`,
        { message: head.id, port: ins[i]!.fullName },
      );
    }
    want[i] = j;
  }
  for (let j = 0; j < nOut; j++) {
    const out = outs[j]!;
    const start = rrNext[j]!;
    for (let k = 0; k < nIn; k++) {
      const i = (start + k) % nIn;
      if (want[i] !== j) continue;
      if (!out.hasRoom) {
        out.waitingForRoom = true;
        break;
      }
      const msg = ins[i]!.recv()!;
      want[i] = -1;
      if (net.isRequest) {
        const fwd = out.send(msg.kind, msg.payload, { bytes: msg.bytes })!;
        if (msg.kind === GpuKind.readReq) s.origin.set(fwd.id, msg.id);
      } else {
        const orig = s.origin.get(msg.replyTo);
        if (orig !== undefined) s.origin.delete(msg.replyTo);
        out.send(msg.kind, msg.payload, { bytes: msg.bytes, replyTo: orig ?? msg.replyTo });
      }
      net.packets.value++;
      rrNext[j] = (i + 1) % nIn;
      break;
    }
  }
  let pending = false;
  for (let i = 0; i < nIn; i++) {
    if (want[i]! >= 0) net.conflicts.value++;
    if (ins[i]!.length > 0) pending = true;
  }
  return pending;
}

function step(s: GpuInterconnectState): void {
  const io = s.io;
  const moreReq = arbitrate(s, s.request);
  const moreRsp = arbitrate(s, s.response);
  if (moreReq || moreRsp) io.wakeInCycles(1);
}

/** The unit kind `gpuInterconnect`. */
export const gpuInterconnect = defineUnit<GpuInterconnectParams, GpuInterconnectResources>({
  kind: 'gpuInterconnect',
  description: 'SM <-> L2 crossbar with request and response networks: requests routed by partitionOf(addr), responses by SM; one packet per output per cycle, round-robin arbitration.',
  source: 'GPGPU-Sim local crossbar (-network_mode 2, two subnetworks); MGPUSim switch',
  spec: gpuInterconnectSpec,
  resources: [{ name: 'partitionOf', description: 'routing function: byte address -> L2 slice index (built by the topology from the address map)' }],
  delivery: 'batch',
  ports: [
    { name: 'topIn', direction: 'in', description: 'requests from SM i (its L1D)', messageKinds: [GpuKind.readReq, GpuKind.writeReq], countParam: 'sms', capacity: 'bufferDepth' },
    { name: 'topOut', direction: 'out', description: 'responses to SM i', messageKinds: [GpuKind.rsp], countParam: 'sms', capacity: 'bufferDepth' },
    { name: 'bottomOut', direction: 'out', description: 'requests to L2 slice j', messageKinds: [GpuKind.readReq, GpuKind.writeReq], countParam: 'partitions', capacity: 'bufferDepth' },
    { name: 'bottomIn', direction: 'in', description: 'responses from L2 slice j', messageKinds: [GpuKind.rsp], countParam: 'partitions', capacity: 'bufferDepth' },
  ],
  stats: [
    { name: 'request_packets', unit: 'count', description: 'request packets forwarded' },
    { name: 'request_conflicts', unit: 'cycles', description: 'input-cycles a request head lost arbitration or found its output full' },
    { name: 'response_packets', unit: 'count', description: 'response packets forwarded' },
    { name: 'response_conflicts', unit: 'cycles', description: 'input-cycles a response head lost arbitration or found its output full' },
  ],
  logic: (p, r) =>
    cycleLogic(
      step,
      ({ input: io }: { input: UnitIo }): GpuInterconnectState => ({
        io,
        p,
        partitionOf: r.partitionOf,
        request: makeNetwork(io, 'topIn', 'bottomOut', p.sms, p.partitions, 'request', true),
        response: makeNetwork(io, 'bottomIn', 'topOut', p.partitions, p.sms, 'response', false),
        origin: new Map(),
        lastCycle: -1,
      }),
    ),
  pendingWork: (snap: { context: GpuInterconnectState }) => {
    const n = snap.context.origin.size;
    return n > 0 ? `${n} reads forwarded awaiting responses` : null;
  },
});
