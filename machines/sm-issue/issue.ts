/**
 * Issue: each warp's readiness flags (iBuffer, barrier, scoreboard, unit busy), one scheduler's
 * issue slot in its policy's order (000 §3.2, GPGPU-Sim scheduler_unit::cycle), the issue of one
 * instruction (functional execution at issue, scoreboard reservation, dispatch to EXEC or LSU,
 * iBuffer flush on control flow), and write-backs releasing the scoreboard.
 *
 * A warp-level policy (PATS, ELF, CCWS ...) plugs in as an entry of the warp-scheduler registry
 * (`src/model/sm/warp-scheduler.ts`): `order()` gives the scheduler's warps in priority order and
 * `issued()` is told what issued; the probe below lets it read readiness without allocation.
 */
import { SimulationError } from '../../src/errors.ts';
import { OpClass, StateSpace } from '../../src/isa/ir.ts';
import type { Message } from '../../src/messaging/message.ts';
import { hazardFlags, WarpFlag } from '../../src/model/sm/sched-stats.ts';
import { ScoreboardHazard } from '../../src/model/sm/scoreboard.ts';
import type { WarpProbe } from '../../src/model/sm/warp-scheduler.ts';
import type { InstExecTiming } from '../../src/model/sm/exec-units.ts';
import { GpuKind, type ExecDispatch, type LsuDispatch, type Writeback } from '../../src/protocol/gpu.ts';
import { markExited, maybeFinishCta } from './cta-slots.ts';
import { requestFetch } from './ibuffer-fill.ts';
import { NOT_READY, type SmIssueState, type TimingInstruction } from './state.ts';

/** The destination registers of an instruction in the warp's combined register space (kernel + called functions), for the dispatch message. */
const NO_REGS: readonly number[] = Object.freeze([]);
function combined(s: SmIssueState, slot: number, regs: Int32Array, fn: number): readonly number[] {
  const n = regs.length;
  if (n === 0) return NO_REGS;
  const off = s.regOffset[slot]![fn] ?? 0;
  const out = new Array<number>(n);
  for (let i = 0; i < n; i++) out[i] = regs[i]! + off;
  return out;
}

/** Flags that keep a warp from issuing this cycle (`MemInst` alone does not). */
/**
 * The {@link WarpFlag}s of a slot's warp this cycle (ready when no {@link NOT_READY} bit is set):
 * completed, at a barrier, iBuffer empty, memory instruction, ALU / memory dependence (scoreboard),
 * unit busy (pipeline initiation interval, or a full LSU queue).
 */
export function warpFlags(s: SmIssueState, slot: number, cycle: number): number {
  const ws = s.slots[slot]!;
  const w = ws.warp;
  if (w === null || ws.exited) return WarpFlag.Completed;
  let flags: number;
  // The flags other than UnitBusy change only when the warp's iBuffer, scoreboard, barrier or
  // CTA changes (each of those marks it dirty), or with time while it sleeps (nanosleep).
  if (s.flagsDirty[slot] !== 0 || ws.sleepUntilPs > 0) {
    flags = stallFlags(s, slot, ws, w);
    s.baseFlags[slot] = flags;
    s.flagsDirty[slot] = 0;
  } else flags = s.baseFlags[slot]!;
  if ((flags & BLOCKED) !== 0) return flags;
  // Ready but for the unit: its pipeline or queue may be busy this cycle.
  const ins = s.ibuf.head(slot)!;
  if ((flags & WarpFlag.MemInst) !== 0) {
    if (!s.ports.lsu.hasRoom) flags |= WarpFlag.UnitBusy;
  } else {
    const unit = execUnitOf(s, ins);
    if (unit >= 0 && (!s.exec.canAccept(unit, cycle, execLatencyOf(s, ins)) || !s.ports.exec.hasRoom)) flags |= WarpFlag.UnitBusy;
  }
  return flags;
}

/** Flags that stop a warp whatever the units' state: {@link warpFlags} returns them as they are. */
const BLOCKED = WarpFlag.Completed | WarpFlag.Waiting | WarpFlag.IBufferEmpty | WarpFlag.DepAlu | WarpFlag.DepMem;

/** The flags of a live warp other than UnitBusy: barrier or sleep, iBuffer, memory instruction, dependences. */
function stallFlags(s: SmIssueState, slot: number, ws: { sleepUntilPs: number }, w: NonNullable<SmIssueState['slots'][number]['warp']>): number {
  if (w.atBarrier >= 0) return WarpFlag.Waiting;
  if (ws.sleepUntilPs > s.io.now) return WarpFlag.Waiting; // nanosleep
  const ins = s.ibuf.head(slot);
  if (ins === undefined) return WarpFlag.IBufferEmpty;
  const cls = ins.opClass;
  const mem = cls === OpClass.Load || cls === OpClass.Store || cls === OpClass.Atomic;
  const hazard = s.scoreboard!.checkOffset(slot, ins.srcRegs, ins.dstRegs, s.regOffset[slot]![w.functionIndex] ?? 0);
  return (mem ? WarpFlag.MemInst : 0) | hazardFlags(hazard);
}

/** Marks every warp slot of CTA slot `c` for a fresh look (a barrier may have released them). */
function markCtaDirty(s: SmIssueState, c: number): void {
  const slots = s.ctas[c]!.warpSlots;
  for (let i = 0; i < slots.length; i++) s.flagsDirty[slots[i]!] = 1;
}

/** Releases the scoreboard for write-backs from EXEC or the LSU (AMAT for LSU ones). */
export function applyWriteback(s: SmIssueState, msg: Message<Writeback | { items: Writeback[] }>, fromLsu: boolean): void {
  const pl = msg.payload;
  if ('items' in pl) {
    const items = pl.items;
    for (let i = 0; i < items.length; i++) writeback(s, items[i]!, fromLsu);
  } else {
    writeback(s, pl, fromLsu);
  }
}

/** One instruction's write-back. */
function writeback(s: SmIssueState, wb: Writeback, fromLsu: boolean): void {
  if (fromLsu) {
    const issued = s.memIssueCycle.get(wb.seq);
    if (issued !== undefined) {
      s.memIssueCycle.delete(wb.seq);
      s.amatTotal.value += s.lastCycle - issued;
      s.memCompleted.value++;
    }
    s.memInFlight--;
    if (s.atomicSeqs.size > 0 && s.atomicSeqs.delete(wb.seq)) s.atomicsOut[wb.warp]!--;
  }
  const ws = s.slots[wb.warp]!;
  if (wb.dst.length > 0) s.scoreboard!.release(wb.warp, wb.dst);
  s.flagsDirty[wb.warp] = 1;
  ws.outstanding--;
  if (ws.exited && ws.outstanding === 0) maybeFinishCta(s, ws.ctaSlot);
}

/**
 * Cycles between issue and scoreboard release that an ALU instruction spends outside its unit
 * (GPGPU-Sim shader.cc: issue -> ID_OC register -> operand collector allocation -> bank read ->
 * OC_EX register -> unit ... result port -> EX_WB write-back); an instruction without register
 * sources is ready in its collector unit at allocation, one cycle sooner. The unit's own
 * occupancy (initiation interval) is the same cycles shifted, so only latency grows.
 */
function operandDelay(s: SmIssueState, ins: { readonly srcRegs: Int32Array }): number {
  const d = s.p.operandPipelineCycles ?? 0;
  return d > 0 && ins.srcRegs.length === 0 ? d - 1 : d;
}

/** Issues the iBuffer head of `slot`: executes it functionally and dispatches it. */
export function issueOne(s: SmIssueState, slot: number, cycle: number): void {
  const ws = s.slots[slot]!;
  const w = ws.warp!;
  const ins = s.ibuf.consume(slot);
  const fn = w.functionIndex;
  s.flagsDirty[slot] = 1;
  if (w.nextInstruction !== ins) {
    throw new SimulationError(`SM ${s.p.smId} warp ${slot}: iBuffer head (line ${ins.line}) is not the warp's next instruction`);
  }
  const info = s.info;
  w.clock = cycle;
  w.step(info);
  if (info.sleepNs > 0) {
    // nanosleep.u32 t: no issue for t ns (PTX allows 0..2t; warpstate sleeps t, at most 1 ms)
    ws.sleepUntilPs = s.io.now + info.sleepNs * 1000;
    s.io.wakeAt(ws.sleepUntilPs);
  }
  const ctaSlot = s.ctas[ws.ctaSlot]!;
  ctaSlot.warpInsts++;
  ctaSlot.threadInsts += info.activeCount;
  s.stats.warpInsts.value++;
  s.stats.threadInsts.value += info.activeCount;
  const seq = s.seq++;
  const cls = ins.opClass;
  if (s.io.tracing) s.io.span('issue', s.io.now, s.io.now, -1, undefined, { warp: slot, sched: slot % s.p.schedulers, pc: info.pc, line: ins.line, seq, cta: ctaSlot.ctaIndex });
  const dst = combined(s, slot, ins.dstRegs, fn);
  if (cls === OpClass.Load || cls === OpClass.Store || cls === OpClass.Atomic) {
    const mask = info.activeMask;
    const addresses = new Array<number>(32);
    for (let l = 0; l < 32; l++) addresses[l] = (mask >>> l) & 1 ? info.addresses[l]! : 0;
    const space = info.space === StateSpace.Generic ? StateSpace.Global : info.space;
    const d: LsuDispatch =
      space === StateSpace.Tex
        ? { warp: slot, space, isLoad: true, bytes: info.accessBytes, mask, addresses, dst, seq, atomic: false, texels: Array.from(info.texels.subarray(0, info.texelCount)) }
        : { warp: slot, space, isLoad: info.isLoad || cls === OpClass.Atomic, bytes: info.accessBytes, mask, addresses, dst, seq, atomic: cls === OpClass.Atomic };
    if (dst.length > 0) s.scoreboard!.reserve(slot, dst, ins.longLatency);
    ws.outstanding++;
    s.memInFlight++;
    s.memIssued.value++;
    if (cls === OpClass.Atomic) {
      s.atomicsOut[slot]!++;
      s.atomicSeqs.add(seq);
    }
    s.memIssueCycle.set(seq, cycle);
    s.ports.lsu.send(GpuKind.lsuDispatch, d);
  } else {
    s.aluIssued.value++;
    const unit = execUnitOf(s, ins);
    if (unit >= 0) {
      const latency = execLatencyOf(s, ins);
      const own = (ins as Partial<InstExecTiming>).execInitiation;
      const initiation = own !== undefined ? own : s.exec.initiationOfClass(cls);
      s.exec.issue(unit, cycle, latency, initiation, seq);
      if (dst.length > 0) s.scoreboard!.reserve(slot, dst, false);
      // EXEC writes back every dispatch, a branch or EXIT too (GPGPU-Sim's inst_in_pipeline
      // count): a warp's CTA finishes only when its last instruction has left the pipeline.
      ws.outstanding++;
      const d: ExecDispatch = { warp: slot, unit, latency: latency + operandDelay(s, ins), initiation, dst, seq };
      s.ports.exec.send(GpuKind.execDispatch, d);
    }
  }
  // A barrier arrival, or an exit (barriers count live warps), may release the CTA's other warps.
  if (cls === OpClass.Barrier || w.done) markCtaDirty(s, ws.ctaSlot);
  const sched = slot % s.p.schedulers;
  const sw = s.schedWarps[sched]!;
  const local = Math.floor(slot / s.p.schedulers);
  sw.pc![local] = w.done ? -1 : w.pc;
  sw.fn![local] = w.done ? -1 : w.functionIndex;
  s.policies[sched]!.issued(sw, local, ins.longLatency, info);
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

/**
 * One issue slot of scheduler `k`: computes every live warp's flags once, records the cycle's
 * scheduler state, stall kind and warp states (000 §3.5.3, §5.3; 004 Fig. 3), then issues up to
 * `issueWidth` instructions from the first ready warp(s) in the policy's order.
 */
export function scheduleCycle(s: SmIssueState, k: number, cycle: number): void {
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
  const last = s.lastFlags[k]!;
  for (let i = 0; i < count; i++) last[i] = flags[i]!;
  const considered = s.considered[k]!;
  // Warp states are over every live warp; idle-time states and stall kinds too, unless the
  // policy's `idleStates` is `considered` (C11): then over the warps `order` offers, below.
  if (considered) s.sched.recordWarpCycles(flags, count, 1);
  else s.sched.recordCycle(flags, count);
  let anyReady = false;
  for (let i = 0; i < count; i++) {
    const f = flags[i]!;
    if ((f & NOT_READY) === 0) anyReady = true;
    else if ((f & WarpFlag.UnitBusy) !== 0) s.mustPoll = true;
  }
  if (anyReady) s.mustPoll = true;
  const policy = s.policies[k]!;
  if (!anyReady && policy.pureOrder === true && !considered) return;
  const n = policy.order(sw, s.scratch);
  // A policy whose lists moved may move them again with nothing else changed (GPGPU-Sim's
  // two-level rotation): do not sleep through the next issue cycle.
  if (policy.settled !== undefined && !policy.settled()) s.mustPoll = true;
  if (considered) {
    const offered = s.lastConsidered[k]!;
    for (let i = 0; i < n; i++) offered[i] = s.flagsByLocal[s.scratch[i]!]!;
    s.lastConsideredCount[k] = n;
    s.sched.recordSchedulerCycles(offered, n, 1);
  }
  let issued = 0;
  for (let i = 0; i < n && issued < s.p.issueWidth; i++) {
    const local = s.scratch[i]!;
    if ((s.flagsByLocal[local]! & NOT_READY) !== 0) continue;
    const slot = local * nSched + k;
    let lastPipe = s.p.issueWidth > 1 && s.p.dualIssueDiffUnits === true ? pipeOf(s, s.ibuf.head(slot)!) : NO_PIPE;
    issueOne(s, slot, cycle);
    issued++;
    // Dual issue: the same warp's next instruction, if it is ready now (and, with
    // -gpgpu_dual_issue_diff_exec_units, bound for another pipeline: GPGPU-Sim
    // scheduler_unit::cycle compares it with the previous issue's exec unit type).
    while (issued < s.p.issueWidth) {
      const f = warpFlags(s, slot, cycle);
      s.flagsByLocal[local] = f;
      if ((f & NOT_READY) !== 0) break;
      if (lastPipe !== NO_PIPE) {
        const pipe = pipeOf(s, s.ibuf.head(slot)!);
        if (pipe === lastPipe) break;
        lastPipe = pipe;
      }
      issueOne(s, slot, cycle);
      issued++;
    }
    break;
  }
}

/** No pipeline check (dual issue to any pipeline). */
const NO_PIPE = -3;
/** Pipeline code of the LSU (memory instructions). */
const LSU_PIPE = -2;

/** The pipeline an instruction issues to: an exec unit index, {@link LSU_PIPE}, or -1 (none: barrier, branch without a unit). */
function pipeOf(s: SmIssueState, ins: TimingInstruction): number {
  const cls = ins.opClass;
  if (cls === OpClass.Load || cls === OpClass.Store || cls === OpClass.Atomic) return LSU_PIPE;
  return execUnitOf(s, ins);
}

/**
 * The exec unit of a non-memory instruction, or -1 (none): a trace instruction carries its own
 * unit class (Accel-Sim trace.config), a PTX one is placed by its opcode class.
 */
function execUnitOf(s: SmIssueState, ins: TimingInstruction): number {
  const own = (ins as Partial<InstExecTiming>).execClass;
  return own !== undefined ? s.exec.unitOfExecClass(own) : s.exec.unitOfClass(ins.opClass);
}

/** The latency of a non-memory instruction in core cycles: its own (trace.config) or its opcode class's. */
function execLatencyOf(s: SmIssueState, ins: TimingInstruction): number {
  const own = (ins as Partial<InstExecTiming>).execLatency;
  return own !== undefined ? own : s.exec.latencyOfClass(ins.opClass);
}

/** The probe a policy reads warps through (readiness of the current pass). */
export function makeProbe(s: () => SmIssueState, k: number): WarpProbe {
  return {
    ready: (local) => (s().flagsByLocal[local]! & NOT_READY) === 0,
    // A warp waiting at a barrier counts as stalled too (GPGPU-Sim two_level_active_scheduler
    // demotes warps whose waiting() holds): kept in the ready queue, barrier waiters could fill
    // it while the warps they wait for sit in the active queue, and the CTA would never finish.
    stalledOnLongLatency: (local) => (s().flagsByLocal[local]! & (WarpFlag.DepMem | WarpFlag.Waiting)) !== 0,
    longLatencyPending: (local) => {
      const st = s();
      const slot = local * st.p.schedulers + k;
      return st.scoreboard!.hasLongLatencyPending(slot) || (st.slots[slot]!.warp?.atBarrier ?? -1) >= 0;
    },
    // GPGPU-Sim shd_warp_t::waiting() of a live warp: barrier, nanosleep (the Waiting flag), or
    // atomics outstanding. membar has no timing in warpstate, so it never waits.
    waiting: (local) => {
      const st = s();
      return (st.flagsByLocal[local]! & WarpFlag.Waiting) !== 0 || st.atomicsOut[local * st.p.schedulers + k]! > 0;
    },
    // GPGPU-Sim Scoreboard::islongop over the next instruction's sources (not its destinations).
    readsLongLatency: (local) => {
      const st = s();
      if ((st.flagsByLocal[local]! & WarpFlag.DepMem) === 0) return false;
      const slot = local * st.p.schedulers + k;
      const ins = st.ibuf.head(slot);
      const w = st.slots[slot]!.warp;
      if (ins === undefined || w === null) return false;
      return st.scoreboard!.checkOffset(slot, ins.srcRegs, NO_DST, st.regOffset[slot]![w.functionIndex] ?? 0) === ScoreboardHazard.RawLongLatency;
    },
  };
}

/** No destination registers (a source-only scoreboard check). */
const NO_DST = new Int32Array(0);

