/**
 * dramChannel: one GDDR memory channel (`GPU.DRAM[j]`) on the DRAM command clock (the unit's
 * clock domain), wrapping the {@link DramChannel} timing model: banks in bank groups with row
 * buffers, JEDEC/GDDR5 timing constraints, one command per cycle, FR-FCFS or FIFO scheduling.
 *
 * ## One DRAM cycle
 * 1. At most one request is taken from the `topIn[k]` ports (round robin over the L2
 *    sub-partitions sharing the channel) when the scheduler queue (`dram.queueSize`,
 *    GPGPU-Sim `-gpgpu_frfcfs_dram_sched_queue_size`) has room; its address is decoded with the
 *    GPU's {@link AddressMap} (bank, row, column) and pushed. When the queue is full the request
 *    stays in `topIn` and back-pressure reaches the L2 slice.
 * 2. `DramChannel.cycle()` simulates the cycle (scheduling, one command, completions).
 * 3. Completed reads are answered with `mem.rsp` (addr, size, sm of the request) on the `topOut[k]`
 *    of the sub-partition that sent them, while it has room; writes are posted and answered by
 *    nobody.
 *
 * So a read of one atom to a precharged bank, accepted at cycle a, issues ACT at a, RD at
 * a + tRCD and leaves at a + tRCD + tCL + BL/r; a row hit issues RD at a and leaves at
 * a + tCL + BL/r (one more tCCD/tCCDL per extra atom).
 *
 * With `latencyCycles` > 0 (GPGPU-Sim `-dram_latency`, its `dram_latency_queue` between the L2's
 * DRAM queue and the scheduler), an accepted request first waits `latencyCycles` cycles in a
 * delay queue (capacity `latencyCycles + 1`, so it never limits a request per cycle) and then
 * enters the scheduler queue when that has room (one per cycle); reads then complete
 * `latencyCycles` later than above. With 0 (the default) requests enter the scheduler queue as
 * they are accepted.
 *
 * The unit sleeps while the channel is idle. On waking it replays the skipped cycles (at most
 * enough for every timing constraint to expire, so timing is exactly what running every cycle
 * would give) and keeps an offset between the model's cycle count and the clock's.
 *
 * Sources: GPGPU-Sim `dram_t::cycle`, `frfcfs_scheduler`; `src/model/mem/dram.ts`.
 */
import { z } from 'zod';
import { SimulationError } from '../../src/errors.ts';
import { Fifo } from '../../src/messaging/fifo.ts';
import type { Message } from '../../src/messaging/message.ts';
import type { InPort, OutPort } from '../../src/messaging/port.ts';
import type { AddressMap } from '../../src/model/mem/address-map.ts';
import { DramChannel, deriveDramTimings } from '../../src/model/mem/dram.ts';
import { dramSpec } from '../../src/model/mem/specs.ts';
import type { Counter } from '../../src/stats/registry.ts';
import { cycleLogic, defineUnit, type UnitIo } from '../../src/sim/unit.ts';
import { GpuKind, type GpuMemRequest, type GpuMemResponse, memPacketBytes } from '../../src/protocol/gpu.ts';

/** Spec of {@link dramChannel}. */
export const dramChannelSpec = z.strictObject({
  dram: dramSpec.describe('channel timing, banks and scheduler; times in DRAM command cycles (this unit clock)'),
  subPartitions: z.int().min(1).describe('L2 sub-partitions sharing this channel: port arrays topIn[k] / topOut[k] (sub-partitions) [-gpgpu_n_sub_partition_per_mchannel]'),
  latencyCycles: z.int().min(0).optional().describe('fixed delay between accepting a request and handing it to the scheduler queue (DRAM command cycles; the topology converts -dram_latency from core cycles); default 0 [-dram_latency]'),
});

/** Spec of {@link dramChannel}: timing, sub-partitions, fixed latency. */
export type DramChannelParams = z.infer<typeof dramChannelSpec>;

/** Injected resources of {@link dramChannel}. */
export interface DramChannelResources {
  /** The GPU's address decoder (bank, row, column of a global address). */
  readonly addressMap: AddressMap;
}

/** Mutable datapath state (mutated in place; DESIGN.md §3). */
export interface DramChannelState {
  readonly io: UnitIo;
  /** `topIn[k]` / `topOut[k]` per sub-partition. */
  readonly req: InPort[];
  readonly rsp: OutPort[];
  /** Sub-partition whose `req` port is looked at first (round robin). */
  rrNext: number;
  readonly dram: DramChannel;
  readonly map: AddressMap;
  /** Banks of the channel (decoded bank ids wrap modulo this). */
  readonly banks: number;
  /** Unit clock cycle = model cycle + offset. */
  offset: number;
  /** Cycles after which an idle channel has no pending constraint (replay bound). */
  readonly horizon: number;
  /** Reads in the channel by request message id. */
  readonly reads: Map<number, Message<GpuMemRequest>>;
  /** Completed reads waiting for `rsp` room, per sub-partition. */
  readonly answers: Fifo<Message<GpuMemRequest>>[];
  /** Accept time (ps) per request id (tracing only). */
  readonly started: Map<number, number>;
  /** Fixed latency, cycles (0: no delay queue). */
  readonly latency: number;
  /** Delay queue (only with `latency` > 0): accepted requests and the cycle each may enter the scheduler. */
  readonly delayMsgs: Fifo<Message<GpuMemRequest>>;
  readonly delayReady: Fifo<number>;
  readonly delayCap: number;
  lastCycle: number;
  readonly bytes: Counter;
  readonly busyCycles: Counter;
}

/** Sub-partition (port index) a request came in on. */
function subOf(s: DramChannelState, m: Message): number {
  if (s.req.length === 1) return 0;
  const name = m.dstPort; // `topIn[k]`
  return Number(name.slice(6, -1));
}

/** Simulates one model cycle and collects completions. */
function runOne(s: DramChannelState): void {
  const dram = s.dram;
  if (!dram.idle) s.busyCycles.value++;
  const n = dram.cycle();
  const io = s.io;
  for (let i = 0; i < n; i++) {
    const id = dram.doneIds[i]!;
    if (io.tracing) {
      const t0 = s.started.get(id);
      if (t0 !== undefined) {
        s.started.delete(id);
        io.span(dram.doneWrites[i] === 1 ? 'write' : 'read', t0, io.now, id);
      }
    }
    if (dram.doneWrites[i] === 1) continue;
    const r = s.reads.get(id);
    if (r === undefined) throw new SimulationError(`${io.name}: DRAM completed unknown read ${id}`);
    s.reads.delete(id);
    s.answers[subOf(s, r)]!.push(r);
  }
}

function step(s: DramChannelState, cycle: number): void {
  const io = s.io;
  const dram = s.dram;
  // Replay skipped cycles (idle: only constraint expiry matters, bounded by the horizon).
  let target = cycle - s.offset;
  if (dram.now < target && dram.idle && target - dram.now > s.horizon) {
    s.offset += target - dram.now - s.horizon;
    target = cycle - s.offset;
  }
  while (dram.now < target) runOne(s);
  // 1. accept one request (round robin over the sub-partitions' ports), into the scheduler
  //    queue or, with a fixed latency, into the delay queue; then move one ready delayed request
  const nSub = s.req.length;
  const delayed = s.latency > 0;
  let m: Message<GpuMemRequest> | undefined;
  if (delayed ? s.delayMsgs.length < s.delayCap : !dram.full) {
    for (let k = 0; k < nSub && m === undefined; k++) {
      const port = s.req[(s.rrNext + k) % nSub]!;
      m = port.recv() as Message<GpuMemRequest> | undefined;
      if (m !== undefined) s.rrNext = (s.rrNext + k + 1) % nSub;
    }
  }
  if (m !== undefined) {
    if (io.tracing) s.started.set(m.id, io.now);
    if (delayed) {
      s.delayMsgs.push(m);
      s.delayReady.push(cycle + s.latency);
      m = undefined;
    }
  }
  if (delayed && s.delayMsgs.length > 0 && s.delayReady.peek()! <= cycle && !dram.full) {
    s.delayReady.shift();
    m = s.delayMsgs.shift()!;
  }
  if (m !== undefined) {
    const pl = m.payload;
    const d = s.map.decode(pl.addr);
    const write = m.kind === GpuKind.writeReq;
    // A mapping may decode more bank bits than the chip has banks (onac32: 6 banks, 4 bank
    // bits, paper 000 Table 4.3): the bank is the decoded id modulo the bank count.
    dram.push(m.id, d.bank % s.banks, d.row, d.column, write, pl.size);
    s.bytes.value += pl.size;
    if (!write) s.reads.set(m.id, m);
  }
  // 2. this cycle
  runOne(s);
  // 3. answers
  let again = !dram.idle;
  for (let k = 0; k < nSub; k++) {
    const answers = s.answers[k]!;
    const rsp = s.rsp[k]!;
    let r: Message<GpuMemRequest> | undefined;
    while ((r = answers.peek()) !== undefined) {
      if (!rsp.hasRoom) {
        rsp.waitingForRoom = true;
        break;
      }
      answers.shift();
      const pl = r.payload;
      const payload: GpuMemResponse = { addr: pl.addr, size: pl.size, sm: pl.sm, write: false };
      rsp.send(GpuKind.rsp, payload, { replyTo: r, bytes: memPacketBytes(GpuKind.rsp, pl.size) });
    }
    if (s.req[k]!.length > 0 && (delayed ? s.delayMsgs.length < s.delayCap : !dram.full)) again = true;
  }
  if (again) io.wakeInCycles(1);
  else if (s.delayMsgs.length > 0) io.wakeAt(io.clock.timeOfCycle(Math.max(cycle + 1, s.delayReady.peek()!)));
}

/** The unit kind `dramChannel`. */
export const dramChannel = defineUnit<DramChannelParams, DramChannelResources>({
  kind: 'dramChannel',
  description: 'GDDR memory channel: address decode, banks and bank groups with row buffers, GDDR5 timing, FR-FCFS or FIFO scheduling; reads answered with mem.rsp, writes posted.',
  source: 'GPGPU-Sim dram_t / frfcfs_scheduler; src/model/mem/dram.ts',
  spec: dramChannelSpec,
  resources: [{ name: 'addressMap', description: "the GPU's AddressMap (bank, row and column of a global address), built by the topology" }],
  delivery: 'batch',
  ports: [
    { name: 'topIn', direction: 'in', description: 'line reads and write-backs from L2 sub-partition k (held here while the scheduler queue is full)', messageKinds: [GpuKind.readReq, GpuKind.writeReq], countParam: 'subPartitions', capacity: 4 },
    { name: 'topOut', direction: 'out', description: 'read data to L2 sub-partition k', messageKinds: [GpuKind.rsp], countParam: 'subPartitions', capacity: 4 },
  ],
  stats: [
    { name: 'dram_reads', unit: 'count', description: 'read requests completed', gpuTotal: 'gpu_dram_reads' },
    { name: 'dram_writes', unit: 'count', description: 'write requests completed', gpuTotal: 'gpu_dram_writes' },
    { name: 'row_hits', unit: 'count', description: 'requests that found their row open', gpuTotal: 'gpu_dram_row_hits' },
    { name: 'row_misses', unit: 'count', description: 'requests that needed ACT (and PRE)', gpuTotal: 'gpu_dram_row_misses' },
    { name: 'activates', unit: 'count', description: 'ACT commands' },
    { name: 'precharges', unit: 'count', description: 'PRE commands' },
    { name: 'bytes', unit: 'bytes', description: 'bytes of accepted requests', gpuTotal: 'gpu_dram_bytes' },
    { name: 'busy_cycles', unit: 'cycles', description: 'cycles with a request queued, in service or transferring' },
    { name: 'data_bus_busy_cycles', unit: 'cycles', description: 'cycles the data bus carried data (BL/r per column command)' },
    { name: 'achieved_bandwidth', unit: 'GB/s', description: 'bytes / simulated time' },
  ],
  logic: (p, r) =>
    cycleLogic(
      step,
      ({ input: io }: { input: UnitIo }): DramChannelState => {
        const dram = new DramChannel(p.dram);
        const t = p.dram;
        const d = deriveDramTimings(t);
        const horizon = 1 + t.tRC + t.tRAS + t.tRP + t.tRRD + t.tRCD + t.tCCD + (t.tCCDL ?? 0) + (t.tRTPL ?? 0) + t.tCL + t.tWL + d.burstCycles + d.tRTW + d.tWTR + d.tWTP;
        const reg = io.stats;
        const name = io.name;
        reg.derived(`${name}.dram_reads`, () => dram.completedReads, 'read requests completed', 'count');
        reg.derived(`${name}.dram_writes`, () => dram.completedWrites, 'write requests completed', 'count');
        reg.derived(`${name}.row_hits`, () => dram.rowHits, 'requests that found their row open', 'count');
        reg.derived(`${name}.row_misses`, () => dram.rowMisses, 'requests that needed an activate', 'count');
        reg.derived(`${name}.activates`, () => dram.activates, 'ACT commands', 'count');
        reg.derived(`${name}.precharges`, () => dram.precharges, 'PRE commands', 'count');
        reg.derived(`${name}.data_bus_busy_cycles`, () => dram.dataBusBusyCycles, 'data bus busy cycles', 'cycles');
        const bytes = io.counter('bytes', 'bytes of accepted requests', 'bytes');
        // bytes per ps x 1000 = GB/s
        reg.derived(`${name}.achieved_bandwidth`, () => (io.now > 0 ? (bytes.value / io.now) * 1000 : 0), 'bytes / simulated time', 'GB/s');
        const nSub = p.subPartitions;
        if (!(Number.isInteger(nSub) && nSub >= 1)) throw new SimulationError(`${io.name}: subPartitions must be an integer >= 1, got ${nSub}`);
        const latency = p.latencyCycles ?? 0;
        if (!(Number.isInteger(latency) && latency >= 0)) throw new SimulationError(`${io.name}: latencyCycles must be an integer >= 0, got ${latency}`);
        return {
          io,
          req: Array.from({ length: nSub }, (_, k) => io.in(`topIn[${k}]`)),
          rsp: Array.from({ length: nSub }, (_, k) => io.out(`topOut[${k}]`)),
          rrNext: 0,
          dram,
          map: r.addressMap,
          banks: p.dram.banks,
          offset: 0,
          horizon,
          reads: new Map(),
          answers: Array.from({ length: nSub }, () => new Fifo<Message<GpuMemRequest>>(8)),
          started: new Map(),
          latency,
          delayMsgs: new Fifo<Message<GpuMemRequest>>(latency + 1),
          delayReady: new Fifo<number>(latency + 1),
          delayCap: latency + 1,
          lastCycle: -1,
          bytes,
          busyCycles: io.counter('busy_cycles', 'cycles with a request queued, in service or transferring', 'cycles'),
        };
      },
    ),
  pendingWork: (snap: { context: DramChannelState }) => {
    const s = snap.context;
    const unsent = s.answers.reduce((n, a) => n + a.length, 0);
    if (s.dram.idle && unsent === 0 && s.delayMsgs.length === 0) return null;
    return `${s.delayMsgs.length} in the latency queue, ${s.dram.queued} queued, ${s.reads.size} reads outstanding, ${unsent} answers unsent`;
  },
});
