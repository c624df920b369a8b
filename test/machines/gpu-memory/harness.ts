/**
 * Test-only units for the GPU memory-side tests: a scripted requester (`probe`) that sends
 * messages at given cycles and records what comes back, and a fixed-latency memory
 * (`fakeMem`) that records every request and answers reads (optionally writes) after a fixed
 * number of cycles, echoing `addr`, `size` and `sm`.
 */
import { fromTransition } from 'xstate';
import { z } from 'zod';
import type { Message } from '../../../src/messaging/message.ts';
import type { InPort, OutPort } from '../../../src/messaging/port.ts';
import { Engine } from '../../../src/sim/engine.ts';
import { defineUnit, type UnitIo } from '../../../src/sim/unit.ts';
import type { DramParams } from '../../../src/model/mem/dram.ts';
import type { CacheParams } from '../../../src/model/mem/cache.ts';
import type { GpuMemRequest } from '../../../src/protocol/gpu.ts';

/** One scripted send. */
export interface ScriptItem {
  readonly cycle: number;
  readonly kind: string;
  readonly payload: unknown;
}

/** A received message and the cycle it was consumed. */
export interface Seen {
  readonly cycle: number;
  readonly msg: Message;
}

interface ProbeState {
  io: UnitIo;
  out: OutPort;
  inp: InPort;
  script: readonly ScriptItem[];
  next: number;
  sent: Seen[];
  received: Seen[];
}

/** Scripted requester: `out` sends the script, `in` records arrivals. */
export const probe = defineUnit<{ script: readonly ScriptItem[] }>({
  kind: 'testProbe',
  description: 'test requester',
  spec: z.custom<{ script: readonly ScriptItem[] }>(() => true),
  delivery: 'batch',
  ports: [
    { name: 'out', direction: 'out', description: 'scripted sends', messageKinds: ['*'], capacity: 64 },
    { name: 'in', direction: 'in', description: 'recorded arrivals', messageKinds: ['*'], capacity: 64 },
  ],
  stats: [],
  logic: (p) =>
    fromTransition(
      (s: ProbeState, e: { type: string }) => {
        if (e.type !== 'wake') return s;
        const cycle = s.io.cycle;
        let m: Message | undefined;
        while ((m = s.inp.recv()) !== undefined) s.received.push({ cycle, msg: m });
        while (s.next < s.script.length && s.script[s.next]!.cycle <= cycle) {
          const it = s.script[s.next]!;
          const msg = s.out.send(it.kind, it.payload);
          if (msg === null) break;
          s.sent.push({ cycle, msg });
          s.next++;
        }
        if (s.next < s.script.length) s.io.wakeAt(s.io.clock.timeOfCycle(Math.max(cycle + 1, s.script[s.next]!.cycle)));
        return s;
      },
      ({ input }: { input: UnitIo }): ProbeState => ({ io: input, out: input.out('out'), inp: input.in('in'), script: p.script, next: 0, sent: [], received: [] }),
    ),
});

interface FakeMemState {
  io: UnitIo;
  req: InPort;
  rsp: OutPort;
  pending: { ready: number; msg: Message }[];
  seen: Seen[];
}

/** Parameters of {@link fakeMem}. */
export interface FakeMemParams {
  /** Cycles from consumption to answer. */
  readonly latency: number;
  /** Answer writes too (an L1D stand-in for LSU tests). */
  readonly ackWrites?: boolean;
}

/** Fixed-latency memory: answers `mem.readReq` (and optionally writes) `latency` cycles after arrival. */
export const fakeMem = defineUnit<FakeMemParams>({
  kind: 'testFakeMem',
  description: 'test memory',
  spec: z.custom<FakeMemParams>(() => true),
  delivery: 'batch',
  ports: [
    { name: 'req', direction: 'in', description: 'requests', messageKinds: ['*'], capacity: 64 },
    { name: 'rsp', direction: 'out', description: 'answers', messageKinds: ['*'], capacity: 64 },
  ],
  stats: [],
  logic: (p) =>
    fromTransition(
      (s: FakeMemState, e: { type: string }) => {
        if (e.type !== 'wake') return s;
        const cycle = s.io.cycle;
        let m: Message | undefined;
        while ((m = s.req.recv()) !== undefined) {
          s.seen.push({ cycle, msg: m });
          if (m.kind === 'mem.readReq' || p.ackWrites) s.pending.push({ ready: cycle + p.latency, msg: m });
        }
        while (s.pending.length > 0 && s.pending[0]!.ready <= cycle) {
          const r = s.pending.shift()!.msg;
          const pl = r.payload as { addr: number; size: number; sm: number };
          s.rsp.send('mem.rsp', { addr: pl.addr, size: pl.size, sm: pl.sm, write: r.kind === 'mem.writeReq' }, { replyTo: r, bytes: pl.size });
        }
        if (s.pending.length > 0) s.io.wakeAt(s.io.clock.timeOfCycle(Math.max(cycle + 1, s.pending[0]!.ready)));
        return s;
      },
      ({ input }: { input: UnitIo }): FakeMemState => ({ io: input, req: input.in('req'), rsp: input.out('rsp'), pending: [], seen: [] }),
    ),
});

/** A 1 GHz engine (cycle n = n ns = n * 1000 ps). */
export function engine1GHz(): Engine {
  const e = new Engine({ seed: 7 });
  e.addClock('core', 1_000_000_000);
  return e;
}

/** The recorded state of a probe. */
export function probeOf(e: Engine, name: string): ProbeState {
  return (e.snapshot(name) as { context: ProbeState }).context;
}

/** The recorded state of a fake memory. */
export function memOf(e: Engine, name: string): FakeMemState {
  return (e.snapshot(name) as { context: FakeMemState }).context;
}

/** Cycle at which each of the probe's arrivals was seen, in arrival order. */
export function arrivalCycles(e: Engine, name: string): number[] {
  return probeOf(e, name).received.map((r) => r.cycle);
}

/** Test address mapping: 42 unused bits, row bits 10..21, bank bits 8..9, column bits 6..7, burst bits 0..5. */
export const TEST_MAPPING = '0'.repeat(42) + 'R'.repeat(12) + 'BB' + 'CC' + 'SSSSSS';

/** Small DRAM timing set shared by the memory-unit tests (BL/r = 2 cycles, atom = 64 bytes). */
export const TEST_DRAM: DramParams = {
  banks: 4,
  tCCD: 1,
  tRRD: 2,
  tRCD: 5,
  tRAS: 10,
  tRP: 4,
  tRC: 14,
  tCL: 6,
  tWL: 2,
  tCDLR: 2,
  tWR: 4,
  burstLength: 8,
  busWidthBytes: 4,
  chipsPerChannel: 2,
  dataCommandFreqRatio: 4,
  scheduler: 'frFcfs',
  queueSize: 8,
};

/** A small L1D for unit tests: 4 sets x 2 ways x 128 B, LRU, GPGPU-Sim's local write-back / global write-evict, 4 MSHRs merging 4, 4-entry miss queue. */
export const TEST_L1D: CacheParams = {
  sets: 4,
  ways: 2,
  lineBytes: 128,
  setIndex: 'linear',
  replacement: 'lru',
  allocate: 'onMiss',
  writeHit: 'localWbGlobalWe',
  writeMiss: 'noWriteAllocate',
  mshrEntries: 4,
  mshrMaxMerge: 4,
  missQueueSize: 4,
};

/** A scripted 32-byte read of `addr` from SM 2 at `cycle`. */
export const rd = (cycle: number, addr: number, extra: Partial<GpuMemRequest> = {}): ScriptItem => ({ cycle, kind: 'mem.readReq', payload: { addr, size: 32, sm: 2, ...extra } });
/** A scripted 32-byte write of `addr` from SM 2 at `cycle`. */
export const wr = (cycle: number, addr: number, extra: Partial<GpuMemRequest> = {}): ScriptItem => ({ cycle, kind: 'mem.writeReq', payload: { addr, size: 32, sm: 2, ...extra } });
