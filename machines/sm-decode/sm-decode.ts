/**
 * smDecode: the decode stage of one SM. It passes up to `decodeWidth` fetched groups per cycle
 * to ISSUE, one cycle after they arrive (the link latency), so fetch -> decode -> iBuffer is a
 * two-stage front end as in GPGPU-Sim (fetch, then decode into the iBuffer).
 */
import { z } from 'zod';
import type { InPort, OutPort } from '../../src/messaging/port.ts';
import type { Counter } from '../../src/stats/registry.ts';
import { controlPorts, Lifecycle, serviceLifecycle, unitLifecycleMachine } from '../../src/sim/lifecycle.ts';
import { defineUnit, wakeLogic, type UnitIo } from '../../src/sim/unit.ts';
import { GpuKind, type FetchedInsts } from '../../src/protocol/gpu.ts';

/** Spec of {@link smDecode}. */
export const smDecodeSpec = z.strictObject({
  decodeWidth: z.int().min(1).default(1).describe('fetched groups forwarded per cycle (groups); the topology gives sm.fetchThroughput [-gpgpu_inst_fetch_throughput]'),
});

/** Spec of {@link smDecode}. */
export type SmDecodeParams = z.infer<typeof smDecodeSpec>;

/** Mutable datapath state. */
export interface SmDecodeState {
  readonly io: UnitIo;
  readonly width: number;
  readonly inp: InPort;
  readonly out: OutPort;
  readonly ctrl: InPort;
  readonly lifecycle: Lifecycle;
  lastCycle: number;
  readonly decoded: Counter;
}

function step(s: SmDecodeState): void {
  const io = s.io;
  const cycle = io.cycle;
  // Decode holds nothing of its own: fetched groups wait in its in-port.
  if ((s.ctrl.length > 0 || !s.lifecycle.running) && !serviceLifecycle(s.lifecycle, s.ctrl, true, s.inp.length, io.name)) return;
  if (cycle !== s.lastCycle) {
    s.lastCycle = cycle;
    for (let i = 0; i < s.width && s.inp.length > 0 && s.out.hasRoom; i++) {
      const f = s.inp.recv()!.payload as FetchedInsts;
      s.decoded.value += f.count;
      s.out.send(GpuKind.decodeInst, f);
    }
  }
  if (s.inp.length > 0) io.wakeInCycles(1);
}

/** The unit kind `smDecode`. */
export const smDecode = defineUnit<SmDecodeParams>({
  kind: 'smDecode',
  description: 'SM decode stage: forwards up to decodeWidth fetched groups per cycle into the iBuffers.',
  source: 'GPGPU-Sim shader_core_ctx::decode',
  spec: smDecodeSpec,
  delivery: 'batch',
  machine: unitLifecycleMachine,
  ports: [
    { name: 'in', direction: 'in', description: 'from FETCH', messageKinds: [GpuKind.fetchLine], capacity: 4 },
    { name: 'out', direction: 'out', description: 'to ISSUE', messageKinds: [GpuKind.decodeInst], capacity: 4 },
    ...controlPorts('forward nothing; groups wait in the in-port'),
  ],
  finalize: (snap: { context: SmDecodeState }) => snap.context.lifecycle.finalize(),
  stats: [{ name: 'decoded', unit: 'count', description: 'instructions decoded' }],
  logic: (p) =>
    wakeLogic(
      step,
      ({ input: io }: { input: UnitIo }): SmDecodeState => ({
        io,
        width: p.decodeWidth,
        inp: io.in('in'),
        out: io.out('out'),
        ctrl: io.in('ctrl'),
        lifecycle: new Lifecycle(io, io.out('status')),
        lastCycle: -1,
        decoded: io.counter('decoded', 'instructions decoded'),
      }),
    ),
});
