/**
 * smIssue: the instruction buffers, scoreboard and warp schedulers of one SM, and the place
 * where the functional model executes each warp instruction (execution-driven, as GPGPU-Sim
 * executes functionally at issue).
 *
 * Per cycle:
 * 1. take CTAs from the SM Work Manager (`cta.dispatch`), decoded instructions (`decode.inst`,
 *    dropped when the warp's iBuffer was flushed since the fetch), and write-backs from EXEC and
 *    LSU (scoreboard release);
 * 2. each of the `schedulers` warp schedulers (warp slot w belongs to scheduler w mod N) orders
 *    its warps with its policy (`lrr`, `gto`, `oldest`, `twoLevel`, ... from the registry) and
 *    issues up to `issueWidth` instructions from the first ready warp(s): iBuffer head valid,
 *    warp not at a barrier, no scoreboard hazard, execution pipeline free (initiation
 *    interval), LSU queue has room;
 * 3. an issued instruction executes functionally; ALU/SFU/DP/INT classes go to EXEC, memory
 *    classes to LSU with their per-lane addresses; a taken branch or divergence flushes the
 *    warp's iBuffer; an empty iBuffer asks FETCH for the next instructions;
 * 4. a CTA whose warps have all exited and drained is reported with `cta.done`.
 *
 * Departure from DESIGN.md §3, stated: the warp schedulers and the scoreboard are policy
 * objects inside this unit rather than separate actors, because issue must consult both in the
 * same cycle (GPGPU-Sim's scheduler_unit reads the scoreboard synchronously); splitting them
 * would add a message round trip to every dependent issue.
 *
 * Sources: 000 ch. 2 and §3.2 (schedulers), 002 ch. 3 (fetch/decode/iBuffer/scoreboard),
 * GPGPU-Sim shader_core_ctx::issue / scheduler_unit::cycle.
 */
import { z } from 'zod';
import { SimulationError } from '../../src/errors.ts';
import { WarpStepInfo } from '../../src/functional/index.ts';
import { OpClass, StateSpace, type Instruction } from '../../src/isa/ir.ts';

/** The static properties of an instruction the issue stage uses. */
type TimingInstruction = Pick<Instruction, 'opClass' | 'srcRegs' | 'dstRegs' | 'longLatency' | 'line'>;
import type { Message } from '../../src/messaging/message.ts';
import type { InPort, OutPort } from '../../src/messaging/port.ts';
import { ExecUnits, type ExecUnitsParams } from '../../src/model/sm/exec-units.ts';
import { InstructionBuffer } from '../../src/model/sm/ibuffer.ts';
import { Scoreboard, ScoreboardHazard } from '../../src/model/sm/scoreboard.ts';
import { hazardFlags, SchedStatsCounters, SCHEDULER_STATE_NAME, STALL_KIND_NAME, WARP_STATE_NAME, WarpFlag } from '../../src/model/sm/sched-stats.ts';
import { createWarpSchedulerPolicy, type SchedulerWarps, type WarpProbe, type WarpSchedulerPolicy, type WarpSchedulerPolicyOptions } from '../../src/model/sm/warp-scheduler.ts';
import type { Counter } from '../../src/stats/registry.ts';
import { Lifecycle, unitLifecycleMachine } from '../../src/sim/lifecycle.ts';
import { defineUnit, wakeLogic, type UnitIo } from '../../src/sim/unit.ts';
import type { GpuContext, KernelEntry, TimingCta, TimingWarp } from '../../src/model/gpu-context.ts';
import { GpuKind, type CtaDispatch, type CtaDone, type ExecDispatch, type FetchedInsts, type FetchReq, type LsuDispatch, type Writeback } from '../../src/protocol/gpu.ts';

/** Parameters of {@link smIssue} (built by the GPU topology from the config). */
export interface SmIssueParams {
  /** SM index (`%smid`). */
  readonly smId: number;
  /** The run's kernels. */
  readonly context: GpuContext;
  /** Warp slots in the SM. */
  readonly maxWarps: number;
  /** CTA slots in the SM. */
  readonly maxCtas: number;
  /** Warp schedulers (`-gpgpu_num_sched_per_core`). */
  readonly schedulers: number;
  /** Instructions a scheduler may issue per issue cycle (`-gpgpu_max_insn_issue_per_warp`). */
  readonly issueWidth: number;
  /** A scheduler issues every `issueIntervalCycles` cycles (Fermi M2090: 2). */
  readonly issueIntervalCycles: number;
  /** iBuffer entries per warp (`-gpgpu_ibuffer_size`). */
  readonly iBufferEntries: number;
  /** Warp scheduler policy name and options. */
  readonly policy: string;
  readonly policyOptions: Omit<WarpSchedulerPolicyOptions, 'numSlots'>;
  /** Execution pipelines (the issue-side view of their initiation intervals). */
  readonly exec: ExecUnitsParams;
  /** Wake every cycle instead of sleeping when nothing can change (verification only). */
  readonly pollEveryCycle?: boolean;
}


interface WarpSlot {
  warp: TimingWarp | null;
  ctaSlot: number;
  /** Fetch outstanding for the current iBuffer generation. */
  fetchPending: boolean;
  /** Instructions issued and not yet written back. */
  outstanding: number;
  exited: boolean;
}

interface CtaSlot {
  cta: TimingCta | null;
  kernel: KernelEntry | null;
  ctaIndex: number;
  warpSlots: number[];
  warpInsts: number;
  threadInsts: number;
}

/** Mutable datapath state. */
export interface SmIssueState {
  readonly io: UnitIo;
  readonly p: SmIssueParams;
  readonly ports: {
    cta: InPort;
    ctaDone: OutPort;
    fetchReq: OutPort;
    decoded: InPort;
    exec: OutPort;
    execWb: InPort;
    lsu: OutPort;
    lsuWb: InPort;
    ctrl: InPort;
  };
  /** Lifecycle (pause, gate) driven by the SM Work Manager through `ctrl`; `src/sim/lifecycle.ts`. */
  readonly lifecycle: Lifecycle;
  readonly slots: WarpSlot[];
  readonly ctas: CtaSlot[];
  readonly ibuf: InstructionBuffer<TimingInstruction>;
  scoreboard: Scoreboard | null;
  readonly exec: ExecUnits;
  readonly policies: WarpSchedulerPolicy[];
  readonly schedWarps: SchedulerWarps[];
  readonly scratch: Int32Array;
  /** This scheduler pass: flags of live warps (compact), their local slots, and flags by local slot. */
  readonly flags: Int32Array;
  readonly liveLocal: Int32Array;
  readonly flagsByLocal: Int32Array;
  /** Scheduler idle-time states, warp states and stall kinds of the whole SM. */
  readonly sched: SchedStatsCounters;
  /** Each scheduler's warp flags in the last issue cycle (replayed for cycles slept through). */
  readonly lastFlags: Int32Array[];
  readonly lastCount: Int32Array;
  /** Some warp was ready or blocked only by a busy unit in this cycle: poll next cycle. */
  mustPoll: boolean;
  /** Cycle after which the unit slept with nothing able to change without a message, or -1. */
  sleptAt: number;
  readonly drainTags: Int32Array;
  /** Memory instructions in flight, and the issue cycle of each by sequence number (AMAT). */
  memInFlight: number;
  readonly memIssueCycle: Map<number, number>;
  readonly amatTotal: Counter;
  readonly amatOverlapped: Counter;
  readonly memCompleted: Counter;
  readonly aluIssued: Counter;
  readonly memIssued: Counter;
  readonly info: WarpStepInfo;
  /** Combined-register offset of the kernel running in each warp slot. */
  readonly regOffset: (Int32Array | null)[];
  readonly srcScratch: Int32Array;
  readonly dstScratch: Int32Array;
  nextAge: number;
  seq: number;
  lastCycle: number;
  liveWarps: number;
  residentCtas: number;
  readonly stats: {
    warpInsts: Counter;
    threadInsts: Counter;
    cycles: Counter;
    activeCycles: Counter;
    ctasDone: Counter;
    maxResidentCtas: Counter;
  };
}


function combined(s: SmIssueState, slot: number, regs: Int32Array, out: Int32Array, fn: number): Int32Array {
  const off = s.regOffset[slot]![fn] ?? 0;
  const n = regs.length;
  const view = out.subarray(0, n);
  for (let i = 0; i < n; i++) view[i] = regs[i]! + off;
  return view;
}

/** Flags that keep a warp from issuing this cycle (`MemInst` alone does not). */
const NOT_READY = WarpFlag.Completed | WarpFlag.Waiting | WarpFlag.IBufferEmpty | WarpFlag.DepAlu | WarpFlag.DepMem | WarpFlag.UnitBusy;

/**
 * The {@link WarpFlag}s of a slot's warp this cycle (ready when no {@link NOT_READY} bit is set):
 * completed, at a barrier, iBuffer empty, memory instruction, ALU / memory dependence (scoreboard),
 * unit busy (pipeline initiation interval, or a full LSU queue).
 */
function warpFlags(s: SmIssueState, slot: number, cycle: number): number {
  const ws = s.slots[slot]!;
  const w = ws.warp;
  if (w === null || ws.exited) return WarpFlag.Completed;
  if (w.atBarrier >= 0) return WarpFlag.Waiting;
  const ins = s.ibuf.head(slot);
  if (ins === undefined) return WarpFlag.IBufferEmpty;
  const cls = ins.opClass;
  const mem = cls === OpClass.Load || cls === OpClass.Store || cls === OpClass.Atomic;
  let flags = mem ? WarpFlag.MemInst : 0;
  const fn = w.functionIndex;
  const hazard = s.scoreboard!.check(slot, combined(s, slot, ins.srcRegs, s.srcScratch, fn), combined(s, slot, ins.dstRegs, s.dstScratch, fn));
  flags |= hazardFlags(hazard);
  if (flags & (WarpFlag.DepAlu | WarpFlag.DepMem)) return flags;
  if (mem) {
    if (!s.ports.lsu.hasRoom) flags |= WarpFlag.UnitBusy;
  } else if (s.exec.unitOfClass(cls) >= 0) {
    if (!s.exec.canAcceptClass(cls, cycle) || !s.ports.exec.hasRoom) flags |= WarpFlag.UnitBusy;
  }
  return flags;
}

function requestFetch(s: SmIssueState, slot: number): void {
  const ws = s.slots[slot]!;
  const w = ws.warp;
  if (w === null || ws.exited || w.done || ws.fetchPending) return;
  const free = s.ibuf.freeEntries(slot);
  if (free === 0) return;
  // The next PC to fetch: after the last buffered instruction, or the warp's PC when empty.
  const count = s.ibuf.size(slot);
  const pc = count === 0 ? w.pc : s.ibuf.entryPc(slot, count - 1) + 1;
  const req: FetchReq = { warp: slot, pc, fn: w.functionIndex, count: free, gen: s.ibuf.generation(slot) };
  if (s.ports.fetchReq.send(GpuKind.fetchReq, req) !== null) ws.fetchPending = true;
}

function startCta(s: SmIssueState, msg: Message<CtaDispatch>): void {
  const { kernel: kid, cta: ctaIndex } = msg.payload;
  const entry = s.p.context.kernel(kid);
  const c = s.ctas.findIndex((x) => x.cta === null);
  if (c < 0) throw new SimulationError(`SM ${s.p.smId}: cta.dispatch with no free CTA slot (kernel ${entry.name}, CTA ${ctaIndex})`);
  const cta = entry.kernel.createCta(ctaIndex, s.p.smId);
  const slotIds: number[] = [];
  for (const w of cta.warps) {
    const slot = s.slots.findIndex((x) => x.warp === null);
    if (slot < 0) throw new SimulationError(`SM ${s.p.smId}: no free warp slot for CTA ${ctaIndex} of ${entry.name}`);
    const ws = s.slots[slot]!;
    ws.warp = w;
    ws.ctaSlot = c;
    ws.fetchPending = false;
    ws.outstanding = 0;
    ws.exited = w.done;
    s.regOffset[slot] = entry.regOffset;
    s.ibuf.flush(slot);
    s.scoreboard!.clearWarp(slot);
    const sched = slot % s.p.schedulers;
    const sw = s.schedWarps[sched]!;
    const local = Math.floor(slot / s.p.schedulers);
    sw.active[local] = ws.exited ? 0 : 1;
    sw.age[local] = s.nextAge++;
    slotIds.push(slot);
    if (!ws.exited) s.liveWarps++;
  }
  const slot = s.ctas[c]!;
  slot.cta = cta;
  slot.kernel = entry;
  slot.ctaIndex = ctaIndex;
  slot.warpSlots = slotIds;
  slot.warpInsts = 0;
  slot.threadInsts = 0;
  s.residentCtas++;
  if (s.residentCtas > s.stats.maxResidentCtas.value) s.stats.maxResidentCtas.value = s.residentCtas;
  for (const w of slotIds) requestFetch(s, w);
  if (s.io.tracing) s.io.span('cta.start', s.io.now, s.io.now, msg.id, undefined, { kernel: entry.name, cta: ctaIndex });
}

function maybeFinishCta(s: SmIssueState, c: number): void {
  const slot = s.ctas[c]!;
  if (slot.cta === null) return;
  for (const w of slot.warpSlots) {
    const ws = s.slots[w]!;
    if (!ws.exited || ws.outstanding > 0) return;
  }
  if (!s.ports.ctaDone.hasRoom) return; // retried when woken for room
  const done: CtaDone = { kernel: slot.kernel!.id, cta: slot.ctaIndex, sm: s.p.smId, warpInsts: slot.warpInsts, threadInsts: slot.threadInsts };
  s.ports.ctaDone.send(GpuKind.ctaDone, done);
  for (const w of slot.warpSlots) {
    const ws = s.slots[w]!;
    ws.warp = null;
    ws.exited = false;
    s.regOffset[w] = null;
    s.ibuf.flush(w);
  }
  slot.kernel!.kernel.releaseCta(slot.cta);
  slot.cta = null;
  slot.kernel = null;
  slot.warpSlots = [];
  s.residentCtas--;
  s.stats.ctasDone.value++;
}

function applyWriteback(s: SmIssueState, msg: Message<Writeback | { items: Writeback[] }>, fromLsu: boolean): void {
  const pl = msg.payload;
  const items = 'items' in pl ? pl.items : [pl];
  for (const wb of items) {
    if (fromLsu) {
      const issued = s.memIssueCycle.get(wb.seq);
      if (issued !== undefined) {
        s.memIssueCycle.delete(wb.seq);
        s.amatTotal.value += s.lastCycle - issued;
        s.memCompleted.value++;
      }
      s.memInFlight--;
    }
    const ws = s.slots[wb.warp]!;
    if (wb.dst.length > 0) s.scoreboard!.release(wb.warp, wb.dst);
    ws.outstanding--;
    if (ws.exited && ws.outstanding === 0) maybeFinishCta(s, ws.ctaSlot);
  }
}

function markExited(s: SmIssueState, slot: number): void {
  const ws = s.slots[slot]!;
  if (ws.exited) return;
  ws.exited = true;
  s.liveWarps--;
  s.ibuf.flush(slot);
  const sw = s.schedWarps[slot % s.p.schedulers]!;
  sw.active[Math.floor(slot / s.p.schedulers)] = 0;
  if (ws.outstanding === 0) maybeFinishCta(s, ws.ctaSlot);
}

function issueOne(s: SmIssueState, slot: number, cycle: number): void {
  const ws = s.slots[slot]!;
  const w = ws.warp!;
  const ins = s.ibuf.consume(slot);
  const fn = w.functionIndex;
  if (w.nextInstruction !== ins) {
    throw new SimulationError(`SM ${s.p.smId} warp ${slot}: iBuffer head (line ${ins.line}) is not the warp's next instruction`);
  }
  const info = s.info;
  w.clock = cycle;
  w.step(info);
  const ctaSlot = s.ctas[ws.ctaSlot]!;
  ctaSlot.warpInsts++;
  ctaSlot.threadInsts += info.activeCount;
  s.stats.warpInsts.value++;
  s.stats.threadInsts.value += info.activeCount;
  const seq = s.seq++;
  const cls = ins.opClass;
  if (s.io.tracing) s.io.span('issue', s.io.now, s.io.now, -1, undefined, { warp: slot, sched: slot % s.p.schedulers, pc: info.pc, line: ins.line, seq, cta: ctaSlot.ctaIndex });
  const dst = ins.dstRegs.length > 0 ? Array.from(combined(s, slot, ins.dstRegs, s.dstScratch, fn)) : [];
  if (cls === OpClass.Load || cls === OpClass.Store || cls === OpClass.Atomic) {
    const addresses: number[] = [];
    const mask = info.activeMask;
    for (let l = 0; l < 32; l++) addresses.push((mask >>> l) & 1 ? info.addresses[l]! : 0);
    const space = info.space === StateSpace.Generic ? StateSpace.Global : info.space;
    const d: LsuDispatch = { warp: slot, space, isLoad: info.isLoad || cls === OpClass.Atomic, bytes: info.accessBytes, mask, addresses, dst, seq, atomic: cls === OpClass.Atomic };
    if (dst.length > 0) s.scoreboard!.reserve(slot, dst, ins.longLatency);
    ws.outstanding++;
    s.memInFlight++;
    s.memIssued.value++;
    s.memIssueCycle.set(seq, cycle);
    s.ports.lsu.send(GpuKind.lsuDispatch, d);
  } else {
    s.aluIssued.value++;
    const unit = s.exec.unitOfClass(cls);
    if (unit >= 0) {
      s.exec.issueClass(cls, cycle, seq);
      if (dst.length > 0) {
        s.scoreboard!.reserve(slot, dst, false);
        ws.outstanding++;
      }
      const d: ExecDispatch = { warp: slot, unit, latency: s.exec.latencyOfClass(cls), initiation: s.exec.initiationOfClass(cls), dst, seq };
      s.ports.exec.send(GpuKind.execDispatch, d);
    }
  }
  const sched = slot % s.p.schedulers;
  s.policies[sched]!.issued(s.schedWarps[sched]!, Math.floor(slot / s.p.schedulers), ins.longLatency);
  if (w.done) {
    markExited(s, slot);
    return;
  }
  // Control flow: drop buffered instructions that are not on the warp's new path.
  const headPc = s.ibuf.size(slot) > 0 ? s.ibuf.headPc(slot) : -1;
  if (headPc >= 0 && (headPc !== w.pc || w.functionIndex !== fn)) {
    s.ibuf.flush(slot);
    ws.fetchPending = false;
  }
  if (s.ibuf.isEmpty(slot)) requestFetch(s, slot);
}

function step(s: SmIssueState): void {
  const io = s.io;
  const cycle = io.cycle;
  if (cycle === s.lastCycle) {
    io.wakeInCycles(1);
    return;
  }
  const elapsed = s.lastCycle < 0 ? 1 : cycle - s.lastCycle;
  if (s.sleptAt >= 0) replaySleep(s, cycle);
  s.lastCycle = cycle;
  const ports = s.ports;
  let msg: Message | undefined;
  while ((msg = ports.ctrl.recv()) !== undefined) s.lifecycle.handle(msg, s.residentCtas === 0 && ports.cta.length === 0);
  const lifecycle = s.lifecycle;
  if (lifecycle.state === 'gated' && ports.cta.length > 0) {
    throw new SimulationError(`${io.name}: cta.dispatch arrived while the SM is power-gated (the SM Work Manager must wake it first)`);
  }
  while ((msg = ports.execWb.recv()) !== undefined) applyWriteback(s, msg as Message<Writeback>, false);
  while ((msg = ports.lsuWb.recv()) !== undefined) applyWriteback(s, msg as Message<Writeback>, true);
  while ((msg = ports.decoded.recv()) !== undefined) {
    const f = msg.payload as FetchedInsts;
    const ws = s.slots[f.warp]!;
    if (f.gen !== s.ibuf.generation(f.warp) || ws.warp === null) continue; // flushed meanwhile
    ws.fetchPending = false;
    const code = s.ctas[ws.ctaSlot]!.kernel!.kernel.module.functions[f.fn]!.instructions;
    for (let i = 0; i < f.count && f.pc + i < code.length; i++) {
      if (!s.ibuf.fillIfCurrent(f.warp, f.gen, f.pc + i, code[f.pc + i]!)) break;
    }
  }
  while (ports.cta.peek() !== undefined && s.ctas.some((c) => c.cta === null)) startCta(s, ports.cta.recv() as Message<CtaDispatch>);
  for (let c = 0; c < s.ctas.length; c++) maybeFinishCta(s, c);

  s.stats.cycles.value += elapsed;
  // Retire pipeline completions from the issue-side view (keeps its queue short).
  s.exec.drain(cycle, s.drainTags);
  s.mustPoll = false;
  const issueCycle = cycle % s.p.issueIntervalCycles === 0;
  const issuedBefore = s.stats.warpInsts.value;
  if (!lifecycle.running) {
    // Paused, draining or gated: nothing issues and the cycles are not classified into
    // scheduler or warp states; in-flight work still writes back (messages wake the unit).
    if (lifecycle.state === 'draining' && inFlight(s) === 0) lifecycle.drained();
    for (let slot = 0; slot < s.slots.length; slot++) {
      const ws = s.slots[slot]!;
      if (ws.warp !== null && !ws.exited && !ws.fetchPending && s.ibuf.isEmpty(slot)) requestFetch(s, slot);
    }
    return;
  }
  if (s.liveWarps > 0) {
    s.stats.activeCycles.value++;
    if (s.exec.inFlight() > 0) s.amatOverlapped.value += s.memInFlight;
    if (issueCycle) {
      for (let k = 0; k < s.p.schedulers; k++) {
        // Each scheduler sees only its own warps' flags (flagsByLocal is per scheduler pass).
        scheduleCycle(s, k, cycle);
      }
    }
  }
  // Barriers: the functional CTA releases warps; retry fetches for warps that wait on nothing.
  for (let slot = 0; slot < s.slots.length; slot++) {
    const ws = s.slots[slot]!;
    if (ws.warp !== null && !ws.exited && !ws.fetchPending && s.ibuf.isEmpty(slot)) requestFetch(s, slot);
  }
  if (s.liveWarps > 0 || ports.cta.length > 0) {
    // Sleep when nothing can change without a message: no warp ready or blocked by a busy
    // unit, nothing issued, no CTA waiting. Write-backs, decoded instructions, CTAs and port
    // room wake the unit; the cycles slept through are accounted when it wakes (replaySleep).
    if (issueCycle && s.liveWarps > 0 && ports.cta.length === 0 && !s.mustPoll && s.stats.warpInsts.value === issuedBefore && !s.p.pollEveryCycle) s.sleptAt = cycle;
    else io.wakeInCycles(1);
  }
}

/**
 * Accounts the cycles between falling asleep and this wake exactly as if the unit had run each
 * of them: pipeline drains, active cycles, AMAT overlap, and each issue cycle's scheduler and
 * warp states (unchanged while asleep, since only messages could change them).
 */
function replaySleep(s: SmIssueState, cycle: number): void {
  const interval = s.p.issueIntervalCycles;
  for (let c = s.sleptAt + 1; c < cycle; c++) {
    s.exec.drain(c, s.drainTags);
    s.stats.activeCycles.value++;
    if (s.exec.inFlight() > 0) s.amatOverlapped.value += s.memInFlight;
    if (c % interval !== 0) continue;
    for (let k = 0; k < s.p.schedulers; k++) {
      const n = s.lastCount[k]!;
      if (n > 0) s.sched.recordCycle(s.lastFlags[k]!, n);
    }
  }
  s.sleptAt = -1;
}

/**
 * One issue slot of scheduler `k`: computes every live warp's flags once, records the cycle's
 * scheduler state, stall kind and warp states (000 §3.5.3, §5.3; 004 Fig. 3), then issues up to
 * `issueWidth` instructions from the first ready warp(s) in the policy's order.
 */
function scheduleCycle(s: SmIssueState, k: number, cycle: number): void {
  const sw = s.schedWarps[k]!;
  const nSched = s.p.schedulers;
  const flags = s.flags;
  const live = s.liveLocal;
  let count = 0;
  for (let i = 0; i < sw.size; i++) {
    const slot = i * nSched + k;
    if (s.slots[slot]!.warp === null) {
      s.flagsByLocal[i] = WarpFlag.Completed;
      continue;
    }
    const f = warpFlags(s, slot, cycle);
    s.flagsByLocal[i] = f;
    flags[count] = f;
    live[count++] = i;
  }
  s.lastCount[k] = count;
  if (count === 0) return;
  s.lastFlags[k]!.set(flags.subarray(0, count));
  s.sched.recordCycle(flags, count);
  for (let i = 0; i < count; i++) {
    const f = flags[i]!;
    if ((f & NOT_READY) === 0 || (f & WarpFlag.UnitBusy) !== 0) s.mustPoll = true;
  }
  const n = s.policies[k]!.order(sw, s.scratch);
  let issued = 0;
  for (let i = 0; i < n && issued < s.p.issueWidth; i++) {
    const local = s.scratch[i]!;
    if ((s.flagsByLocal[local]! & NOT_READY) !== 0) continue;
    const slot = local * nSched + k;
    issueOne(s, slot, cycle);
    issued++;
    // Dual issue: the same warp's next instruction, if it is ready now.
    while (issued < s.p.issueWidth) {
      const f = warpFlags(s, slot, cycle);
      s.flagsByLocal[local] = f;
      if ((f & NOT_READY) !== 0) break;
      issueOne(s, slot, cycle);
      issued++;
    }
    break;
  }
}

/** Instructions issued and not yet written back, over every warp slot. */
function inFlight(s: SmIssueState): number {
  let n = 0;
  for (const ws of s.slots) n += ws.outstanding;
  return n;
}

function makeProbe(s: () => SmIssueState, k: number): WarpProbe {
  return {
    ready: (local) => (s().flagsByLocal[local]! & NOT_READY) === 0,
    stalledOnLongLatency: (local) => (s().flagsByLocal[local]! & WarpFlag.DepMem) !== 0,
    longLatencyPending: (local) => s().scoreboard!.hasLongLatencyPending(local * s().p.schedulers + k),
  };
}

/** The unit kind `smIssue`. */
export const smIssue = defineUnit<SmIssueParams>({
  kind: 'smIssue',
  description: 'SM instruction buffers, scoreboard and warp schedulers; executes warp instructions functionally at issue and dispatches them to EXEC or LSU.',
  source: '000 ch. 2, §3.2; 002 ch. 3; GPGPU-Sim shader_core_ctx issue stage',
  spec: z.custom<SmIssueParams>((v) => typeof v === 'object' && v !== null && 'context' in v, 'built by the GPU topology'),
  delivery: 'batch',
  ports: [
    { name: 'cta', direction: 'in', description: 'CTAs to start', messageKinds: [GpuKind.ctaDispatch], capacity: 'maxCtas' },
    { name: 'ctaDone', direction: 'out', description: 'finished CTAs', messageKinds: [GpuKind.ctaDone], capacity: 4 },
    { name: 'fetchReq', direction: 'out', description: 'fetch requests per warp', messageKinds: [GpuKind.fetchReq], capacity: 'maxWarps' },
    { name: 'decoded', direction: 'in', description: 'decoded instructions', messageKinds: [GpuKind.decodeInst], capacity: 'maxWarps' },
    { name: 'exec', direction: 'out', description: 'ALU/SFU/DP/INT dispatch', messageKinds: [GpuKind.execDispatch], capacity: 8 },
    { name: 'execWb', direction: 'in', description: 'EXEC write-backs', messageKinds: [GpuKind.execWriteback], capacity: 64 },
    { name: 'lsu', direction: 'out', description: 'memory instructions', messageKinds: [GpuKind.lsuDispatch], capacity: 2 },
    { name: 'lsuWb', direction: 'in', description: 'LSU write-backs', messageKinds: [GpuKind.lsuWriteback], capacity: 64 },
    { name: 'ctrl', direction: 'in', description: 'lifecycle commands from the SM Work Manager: pause (stop issuing; acked when in-flight work wrote back), gate (only with no resident CTA), resume, wake', messageKinds: [GpuKind.ctrlPause, GpuKind.ctrlResume, GpuKind.ctrlGate, GpuKind.ctrlWake], capacity: 4, optional: true },
    { name: 'status', direction: 'out', description: 'lifecycle acknowledgements (ctrl.ack)', messageKinds: [GpuKind.ctrlAck], capacity: 4, optional: true },
  ],
  stats: [
    { name: 'thread_insts', unit: 'count', description: 'thread instructions issued (active lanes)', gpuTotal: 'gpu_sim_insn' },
    { name: 'warp_insts', unit: 'count', description: 'warp instructions issued', gpuTotal: 'gpu_tot_warp_insts' },
    { name: 'sched_<state>', unit: 'cycles', description: 'scheduler-cycles per idle-time state (000 §3.5.3): noInstruction, notReady, pipelineStall, canIssue' },
    { name: 'warp_state_<state>', unit: 'warp-cycles', description: 'warp-cycles per warp state (000 §5.3; plus waiting at a barrier)' },
    { name: 'stall_<kind>', unit: 'cycles', description: 'stall breakdown (004 Fig. 3): memoryConflict, memoryDependency, fetch, other, none' },
    { name: 'amat / amat_overlapped', unit: 'cycles', description: 'average memory access time and its part overlapped by arithmetic (000 §4.4.1)' },
    { name: 'lifecycle_<state>_cycles', unit: 'cycles', description: 'cycles per lifecycle state (active, draining, paused, gated); registered on the first control message' },
    { name: 'alu_load / mem_load', unit: 'instructions', description: 'time series: ALU and MEM instructions issued per sampling interval (000 §3.5.4)' },
  ],
  logic: (p) =>
    wakeLogic(
      step,
      ({ input: io }: { input: UnitIo }): SmIssueState => {
        let stateRef: SmIssueState | null = null;
        const perSched = Math.ceil(p.maxWarps / p.schedulers);
        const schedWarps: SchedulerWarps[] = [];
        const policies: WarpSchedulerPolicy[] = [];
        for (let k = 0; k < p.schedulers; k++) {
          const warpIds = new Int32Array(perSched);
          for (let i = 0; i < perSched; i++) warpIds[i] = i * p.schedulers + k;
          schedWarps.push({ size: perSched, warpIds, active: new Uint8Array(perSched), age: new Float64Array(perSched), probe: makeProbe(() => stateRef!, k) });
          policies.push(createWarpSchedulerPolicy(p.policy, { ...p.policyOptions, numSlots: perSched }));
        }
        const maxRegs = Math.max(1, ...p.context.kernels.map((k) => k.regCount));
        const c = (name: string, d: string, u = 'count') => io.counter(name, d, u);
        const s: SmIssueState = {
          io,
          p,
          ports: {
            cta: io.in('cta'),
            ctaDone: io.out('ctaDone'),
            fetchReq: io.out('fetchReq'),
            decoded: io.in('decoded'),
            exec: io.out('exec'),
            execWb: io.in('execWb'),
            lsu: io.out('lsu'),
            lsuWb: io.in('lsuWb'),
            ctrl: io.in('ctrl'),
          },
          lifecycle: new Lifecycle(io, io.out('status')),
          slots: Array.from({ length: perSched * p.schedulers }, () => ({ warp: null, ctaSlot: -1, fetchPending: false, outstanding: 0, exited: false })),
          ctas: Array.from({ length: p.maxCtas }, () => ({ cta: null, kernel: null, ctaIndex: -1, warpSlots: [], warpInsts: 0, threadInsts: 0 })),
          ibuf: new InstructionBuffer<TimingInstruction>({ numWarps: perSched * p.schedulers, entries: p.iBufferEntries }),
          scoreboard: new Scoreboard({ numWarps: perSched * p.schedulers, numRegs: maxRegs }),
          exec: new ExecUnits(p.exec),
          policies,
          schedWarps,
          scratch: new Int32Array(perSched),
          flags: new Int32Array(perSched),
          liveLocal: new Int32Array(perSched),
          flagsByLocal: new Int32Array(perSched),
          sched: new SchedStatsCounters(),
          lastFlags: Array.from({ length: p.schedulers }, () => new Int32Array(perSched)),
          lastCount: new Int32Array(p.schedulers),
          mustPoll: false,
          sleptAt: -1,
          drainTags: new Int32Array(256),
          memInFlight: 0,
          memIssueCycle: new Map(),
          amatTotal: c('amat_total_cycles', 'sum over memory instructions of issue-to-write-back cycles', 'cycles'),
          amatOverlapped: c('amat_overlapped_cycles', 'sum over memory instructions of in-flight cycles with an arithmetic instruction in flight (000 §4.4.1)', 'cycles'),
          memCompleted: c('mem_insts_completed', 'memory instructions written back'),
          aluIssued: c('alu_issued', 'non-memory warp instructions issued'),
          memIssued: c('mem_issued', 'memory warp instructions issued'),
          info: new WarpStepInfo(),
          regOffset: new Array(perSched * p.schedulers).fill(null),
          srcScratch: new Int32Array(64),
          dstScratch: new Int32Array(64),
          nextAge: 0,
          seq: 0,
          lastCycle: -1,
          liveWarps: 0,
          residentCtas: 0,
          stats: {
            warpInsts: c('warp_insts', 'warp instructions issued'),
            threadInsts: c('thread_insts', 'thread instructions issued'),
            cycles: c('cycles', 'SM cycles simulated', 'cycles'),
            activeCycles: c('active_cycles', 'cycles with at least one live warp', 'cycles'),
            ctasDone: c('ctas_done', 'CTAs completed'),
            maxResidentCtas: c('max_resident_ctas', 'most CTAs resident at once (occupancy)'),
          },
        };
        stateRef = s;
        const d = (name: string, f: () => number, desc: string, unit: string) => io.stats.derived(`${io.name}.${name}`, f, desc, unit);
        SCHEDULER_STATE_NAME.forEach((n, i) => d(`sched_${n}`, () => s.sched.schedulerStates[i]!, `scheduler-cycles in idle-time state ${n} (000 §3.5.3)`, 'cycles'));
        WARP_STATE_NAME.forEach((n, i) => d(`warp_state_${n}`, () => s.sched.warpStates[i]!, `warp-cycles in state ${n} (000 §5.3)`, 'warp-cycles'));
        STALL_KIND_NAME.forEach((n, i) => d(`stall_${n}`, () => s.sched.stalls[i]!, `scheduler-cycles by stall kind ${n} (004 Fig. 3)`, 'cycles'));
        d('amat', () => (s.memCompleted.value > 0 ? s.amatTotal.value / s.memCompleted.value : 0), 'average memory access time per memory instruction (000 §4.4.1)', 'cycles');
        d('amat_overlapped', () => (s.memCompleted.value > 0 ? s.amatOverlapped.value / s.memCompleted.value : 0), 'AMAT cycles overlapped by arithmetic in flight (000 §4.4.1)', 'cycles');
        // ALU and MEM load over time (000 §3.5.4): instructions issued per sampling interval.
        let lastAlu = 0;
        let lastMem = 0;
        io.timeSeries('alu_load', () => {
          const v = s.aluIssued.value - lastAlu;
          lastAlu = s.aluIssued.value;
          return v;
        }, 'ALU warp instructions issued in the sampling interval (000 §3.5.4)', 'instructions');
        io.timeSeries('mem_load', () => {
          const v = s.memIssued.value - lastMem;
          lastMem = s.memIssued.value;
          return v;
        }, 'memory warp instructions issued in the sampling interval (000 §3.5.4)', 'instructions');
        return s;
      },
    ),
  machine: unitLifecycleMachine,
  finalize: (snap: { context: SmIssueState }) => snap.context.lifecycle.finalize(),
  pendingWork: (snap: { context: SmIssueState }) => {
    const s = snap.context;
    const live = s.ctas.filter((c) => c.cta !== null);
    if (live.length === 0) return null;
    const stuck = s.slots
      .map((ws, i) => (ws.warp !== null ? `w${i}${ws.exited ? ' exited' : ''}${ws.outstanding ? ` ${ws.outstanding} outstanding` : ''}${ws.warp.atBarrier >= 0 ? ' at barrier' : ''}` : null))
      .filter((x) => x !== null)
      .slice(0, 8);
    return `${live.length} CTAs resident; warps: ${stuck.join(', ')}`;
  },
});
