/**
 * smExec: the SP / SFU / DP / INT execution pipelines of one SM (the operand collector's
 * read cycle is the dispatch hop). An instruction dispatched at issue cycle c with latency L
 * writes back at the end of its pipeline: the write-back leaves at cycle c + L - 1 and reaches
 * ISSUE one cycle later, so a dependent instruction issues L cycles after its producer, plus the
 * dispatch hop (GPGPU-Sim: `-ptx_opcode_latency_*` counts from issue to write-back).
 * Initiation intervals are enforced at issue (ISSUE keeps the pipelines' acceptance view); this
 * unit times completions and returns all write-backs of a cycle in one message.
 */
import { z } from 'zod';
import type { Message } from '../../src/messaging/message.ts';
import type { InPort, OutPort } from '../../src/messaging/port.ts';
import type { Counter } from '../../src/stats/registry.ts';
import { controlPorts, Lifecycle, serviceLifecycle, unitLifecycleMachine } from '../../src/sim/lifecycle.ts';
import { defineUnit, wakeLogic, type UnitIo } from '../../src/sim/unit.ts';
import { GpuKind, type ExecDispatch, type Writeback } from '../../src/protocol/gpu.ts';

/** Spec of {@link smExec}. */
export const smExecSpec = z.strictObject({
  unitNames: z.array(z.string().min(1)).min(1).describe("pipeline names, indexed as ISSUE's dispatch unit field (for statistics)"),
});

/** Spec of {@link smExec}. */
export type SmExecParams = z.infer<typeof smExecSpec>;

interface InFlight {
  readonly done: number;
  readonly order: number;
  readonly wb: Writeback;
}

/** Mutable datapath state. */
export interface SmExecState {
  readonly io: UnitIo;
  readonly inp: InPort;
  readonly out: OutPort;
  /** Completion-ordered queue (small: kept sorted by insertion). */
  readonly pending: InFlight[];
  order: number;
  lastCycle: number;
  /** First cycle of the current accepting (not paused) stretch; Infinity while paused. */
  acceptFrom: number;
  readonly perUnit: Counter[];
  readonly ctrl: InPort;
  readonly lifecycle: Lifecycle;
}

function step(s: SmExecState): void {
  const io = s.io;
  const cycle = io.cycle;
  let m: Message | undefined;
  // Paused: in-flight instructions finish; new dispatches wait in the in-port.
  const accept = s.ctrl.length === 0 && s.lifecycle.running ? true : serviceLifecycle(s.lifecycle, s.ctrl, s.pending.length === 0, s.inp.length, io.name);
  if (!accept) s.acceptFrom = Infinity;
  else if (s.acceptFrom === Infinity) s.acceptFrom = cycle;
  while (accept && (m = s.inp.recv()) !== undefined) {
    const d = m.payload as ExecDispatch;
    s.perUnit[d.unit]!.value++;
    // Timed from the issue (send) cycle, not from when this step sees the message, so the
    // result does not depend on the event order within a cycle: leaves at issue + latency - 1.
    // A dispatch that waited in the port while paused enters the pipeline at the resume.
    const start = Math.max(io.clock.cycleAt(m.sendTime) + 1, s.acceptFrom);
    const done = Math.max(cycle, start + d.latency - 2);
    const entry: InFlight = { done, order: s.order++, wb: { warp: d.warp, dst: d.dst, seq: d.seq, longLatency: false } };
    let i = s.pending.length;
    while (i > 0 && (s.pending[i - 1]!.done > done)) i--;
    s.pending.splice(i, 0, entry);
  }
  if (s.pending.length > 0 && s.pending[0]!.done <= cycle && s.out.hasRoom) {
    const items: Writeback[] = [];
    while (s.pending.length > 0 && s.pending[0]!.done <= cycle) items.push(s.pending.shift()!.wb);
    s.out.send(GpuKind.execWriteback, { items });
  }
  s.lastCycle = cycle;
  if (!accept && s.lifecycle.state === 'draining' && s.pending.length === 0) s.lifecycle.drained();
  if (s.pending.length > 0) {
    const next = Math.max(cycle + 1, s.pending[0]!.done);
    io.wakeAt(io.clock.timeOfCycle(next));
  }
}

/** The unit kind `smExec`. */
export const smExec = defineUnit<SmExecParams>({
  kind: 'smExec',
  description: 'SM execution pipelines (SP, SFU, DP, INT): times each dispatched instruction and returns write-backs.',
  source: 'GPGPU-Sim pipelined SIMD units; -ptx_opcode_latency_*',
  spec: smExecSpec,
  delivery: 'batch',
  machine: unitLifecycleMachine,
  ports: [
    { name: 'in', direction: 'in', description: 'dispatched instructions', messageKinds: [GpuKind.execDispatch], capacity: 8 },
    { name: 'wb', direction: 'out', description: 'write-backs (batched per cycle)', messageKinds: [GpuKind.execWriteback], capacity: 8 },
    ...controlPorts('finish what is in the pipelines, accept no dispatch'),
  ],
  finalize: (snap: { context: SmExecState }) => snap.context.lifecycle.finalize(),
  stats: [{ name: '<unit>_insts', unit: 'count', description: 'instructions executed per unit' }],
  logic: (p) =>
    wakeLogic(
      step,
      ({ input: io }: { input: UnitIo }): SmExecState => ({
        io,
        inp: io.in('in'),
        out: io.out('wb'),
        pending: [],
        order: 0,
        lastCycle: -1,
        acceptFrom: 0,
        perUnit: p.unitNames.map((n) => io.counter(`${n}_insts`, `instructions executed on ${n}`)),
        ctrl: io.in('ctrl'),
        lifecycle: new Lifecycle(io, io.out('status')),
      }),
    ),
  pendingWork: (snap: { context: SmExecState }) => (snap.context.pending.length > 0 ? `${snap.context.pending.length} instructions in flight` : null),
});
