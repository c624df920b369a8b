/**
 * smLsu: the load/store unit of one SM (`GPU.SM[i].LSU`): takes memory instructions from ISSUE,
 * times shared, const and param accesses itself, coalesces global and local accesses into
 * transactions for the L1D, and writes every instruction back to ISSUE exactly once.
 *
 * ## One cycle
 * 1. Responses from the L1D (`mem.rsp`, joined to their transaction by `replyTo`) count down the
 *    outstanding transactions of their instruction.
 * 2. Shared/const/param instructions whose latency elapsed, and global instructions whose every
 *    transaction was sent and answered, become write-backs.
 * 3. The memory stage (one instruction at a time, GPGPU-Sim `ldst_unit::memory_cycle`): a global
 *    instruction sends up to `l1dPortWidth` transactions per cycle to the L1D while `l1dReq` has
 *    room (back-pressure: the rest wait); it leaves the stage when all are sent.
 * 4. A new instruction is accepted from `dispatch` (at most one per cycle) when the stage is free:
 *    - shared: the banks are busy `k = SharedMemBanks.conflictCycles(...)` cycles (the stage
 *      accepts the next instruction k cycles later: GPGPU-Sim's "bank conflicts as a larger
 *      initiation interval"); write-back `sharedMemLatency + k - 1` cycles after acceptance;
 *    - const and param: write-back `constLatency` cycles after acceptance (stage busy 1 cycle);
 *    - global, local (and generic, resolved to global by ISSUE): `Coalescer.coalesce` gives the
 *      transactions (`mem.readReq` for loads and atomics, `mem.writeReq` for stores), whose first
 *      ones leave in the same cycle. Each carries the issuing warp slot (`GpuMemRequest.warp`),
 *      which the L1D's NewCAR queue needs for paper 004 Fig. 6 (spec `warp-level.md` C10).
 * 5. All write-backs ready this cycle leave in one `lsu.writeback` message (a `Writeback`, or
 *    `{ items }` for several) when `wb` has room.
 *
 * Loads and atomics complete when every transaction's response arrived; stores when every
 * transaction was accepted by the L1D, which answers a store when it sends it down (posted
 * writes) — so the LSU waits for one `mem.rsp` per transaction in every case.
 *
 * Texture fetches (`tex`/`tld4`, space `tex`; GPGPU-Sim `ldst_unit::texture_cycle`): the
 * texels every lane read (`LsuDispatch.texels`, 1-8 per lane) are grouped into distinct texture
 * cache lines in ascending address order (`texelLines`); with a texture cache (`texCache`, the
 * SM's L1T, a {@link TexCache} inside the LSU as GPGPU-Sim's `m_L1T`) the stage makes one access
 * per cycle (a reservation failure retries the next cycle), line reads leave on `bottomOut`
 * (marked `tex`, forwarded by the L1D without a lookup: the caches share the SM's memory port),
 * and one result per cycle leaves the L1T's result FIFO; the instruction writes back when all
 * its lines returned. Without `texCache` the lines go to the L1D as global line reads. Texture
 * statistics (`insts_tex`, `tex_*`) are registered at the first texture fetch.
 *
 * Sources: paper 004 §2.2 (Fermi memory pipeline), GPGPU-Sim `ldst_unit` (`shared_cycle`,
 * `constant_cycle`, `memory_cycle`) and `warp_inst_t::generate_mem_accesses`.
 */
import { z } from 'zod';
import { SimulationError } from '../../src/errors.ts';
import { StateSpace, STATE_SPACE_NAME } from '../../src/isa/ir.ts';
import type { Message } from '../../src/messaging/message.ts';
import type { InPort, OutPort } from '../../src/messaging/port.ts';
import { CoalescedAccesses, Coalescer, type CoalescerParams } from '../../src/model/mem/coalescer.ts';
import { SharedMemBanks, type SharedMemBankParams } from '../../src/model/mem/shared-mem-banks.ts';
import type { Counter } from '../../src/stats/registry.ts';
import { controlPorts, Lifecycle, serviceLifecycle, unitLifecycleMachine } from '../../src/sim/lifecycle.ts';
import { cycleLogic, defineUnit, type UnitIo } from '../../src/sim/unit.ts';
import { coalescerSpec, sharedMemBankSpec, texCacheSpec } from '../../src/model/mem/specs.ts';
import { TEX_RES_FAIL_NAME, TexCache, TexOutcome, texelLines } from '../../src/model/mem/tex-cache.ts';
import { GpuKind, type GpuMemRequest, type LsuDispatch, type Writeback, memPacketBytes } from '../../src/protocol/gpu.ts';

/** Parameters of {@link smLsu} (filled by the GPU topology builder from the GPU config). */
export const smLsuSpec = z.strictObject({
  smId: z.int().min(0).describe('SM index, put in every request so responses route back (index)'),
  sharedMemLatency: z.int().min(1).describe('acceptance to write-back of a conflict-free shared access (core cycles) [-gpgpu_smem_latency]'),
  constLatency: z.int().min(1).describe('acceptance to write-back of a const or param access, a const-cache hit (core cycles)'),
  l1dPortWidth: z.int().min(1).describe('transactions sent to the L1D per cycle at most; capacity of bottomOut (transactions)'),
  coalescer: coalescerSpec.optional().describe('coalescing rules: line (Fermi with L1 caching) or sectored (Maxwell+)'),
  sharedMem: sharedMemBankSpec.describe('shared-memory banks (GTX480: 32 banks x 4 bytes)'),
  texCache: texCacheSpec.optional().describe('the SM texture cache (L1T) texture fetches go through; absent: texel lines are read through the L1D [-gpgpu_tex_cache:l1]'),
  texLineBytes: z.int().min(1).optional().describe('line size texels are grouped by without a texture cache (bytes); default 128'),
});

/** Spec of {@link smLsu}. */
export type SmLsuParams = z.infer<typeof smLsuSpec>;

/** One memory instruction after acceptance. */
interface LsuInst {
  readonly wb: Writeback;
  readonly space: number;
  readonly isLoad: boolean;
  readonly atomic: boolean;
  /** Acceptance time, ps (spans). */
  readonly start: number;
  /** Transactions sent and not yet answered. */
  outstanding: number;
  /** All transactions sent (global) or timed (shared/const). */
  allSent: boolean;
  /** Cycle a timed (shared/const/param) instruction writes back. */
  doneCycle: number;
}

/** Mutable datapath state (mutated in place; DESIGN.md §3). */
export interface SmLsuState {
  readonly io: UnitIo;
  readonly p: SmLsuParams;
  readonly dispatch: InPort;
  readonly wbPort: OutPort;
  readonly l1dReq: OutPort;
  readonly l1dRsp: InPort;
  readonly ctrl: InPort;
  readonly lifecycle: Lifecycle;
  readonly coalescer: Coalescer;
  readonly banks: SharedMemBanks;
  /** Transactions of the instruction in the memory stage (reused). */
  readonly txns: CoalescedAccesses;
  /** Global instruction in the memory stage, or null. */
  stage: LsuInst | null;
  /** Next transaction of `stage` to send. */
  nextTxn: number;
  /** First cycle the memory stage accepts an instruction (shared bank conflicts). */
  stageFreeCycle: number;
  /** Transaction request id -> its instruction. */
  readonly byRequest: Map<number, LsuInst>;
  /** Shared/const/param instructions waiting for their latency, sorted by doneCycle. */
  readonly timed: LsuInst[];
  /** Write-backs ready to send (reused array, emptied on send). */
  readonly ready: Writeback[];
  /** Instructions accepted and not yet written back. */
  inFlight: number;
  lastCycle: number;
  /** The texture cache, or null (texture lines then go to the L1D). */
  readonly tex: TexCache | null;
  /** Texture fetches accepted and not yet written back (the texture cache idles at 0). */
  texInFlight: number;
  /** Distinct texture lines of the stage's texture fetch (ascending), and how many. */
  readonly texLines: Float64Array;
  texLineCount: number;
  /** Cycle of the last texture-cache access (one per cycle). */
  texAccessCycle: number;
  /** Texture-cache access id -> its instruction; line read sent down -> its ROB slot. */
  readonly texAccess: Map<number, LsuInst>;
  readonly texReads: Map<number, number>;
  texNextId: number;
  /** Texture statistics, registered at the first texture fetch (null before). */
  texStats: { readonly insts: Counter; readonly texels: Counter; readonly lines: Counter; readonly stallCycles: Counter } | null;
  readonly stats: {
    readonly insts: Counter[];
    readonly transactions: Counter;
    /** Stores and atomics accepted (the watchdog's sign of architectural progress). */
    readonly memWrites: Counter;
    readonly requestedBytes: Counter;
    readonly transferredBytes: Counter;
    readonly bankConflictCycles: Counter;
    readonly stageStallCycles: Counter;
  };
}

/** Spaces with their own instruction counter, by `StateSpace` code. */
const COUNTED_SPACES = [StateSpace.Global, StateSpace.Shared, StateSpace.Const, StateSpace.Local, StateSpace.Param] as const;

function complete(s: SmLsuState, inst: LsuInst): void {
  s.ready.push(inst.wb);
  s.inFlight--;
  if (inst.space === StateSpace.Tex) s.texInFlight--;
  const io = s.io;
  if (io.tracing) {
    io.span(`${STATE_SPACE_NAME[inst.space]}.${inst.atomic ? 'atom' : inst.isLoad ? 'ld' : 'st'}`, inst.start, io.now, -1, undefined, { warp: inst.wb.warp, seq: inst.wb.seq });
  }
}

/** Sends transactions of the stage instruction (up to the port width). */
function sendTransactions(s: SmLsuState): void {
  const inst = s.stage;
  if (inst === null) return;
  if (inst.space === StateSpace.Tex) {
    sendTexLines(s, inst);
    return;
  }
  const t = s.txns;
  const port = s.l1dReq;
  const kind = inst.isLoad ? GpuKind.readReq : GpuKind.writeReq;
  const local = inst.space === StateSpace.Local;
  for (let sent = 0; sent < s.p.l1dPortWidth && s.nextTxn < t.count; sent++) {
    if (!port.hasRoom) {
      port.waitingForRoom = true; // woken when the link drains a slot
      s.stats.stageStallCycles.value++;
      break;
    }
    const i = s.nextTxn;
    const size = t.size[i]!;
    // `warp`: the L1D's NewCAR queue orders a warp's requests by it (004 Fig. 6, spec C10)
    const warp = inst.wb.warp;
    const req: GpuMemRequest = inst.atomic
      ? { addr: t.addr[i]!, size, sm: s.p.smId, atomic: true, warp }
      : local
        ? { addr: t.addr[i]!, size, sm: s.p.smId, local: true, warp }
        : { addr: t.addr[i]!, size, sm: s.p.smId, warp };
    const msg = port.send(kind, req, { bytes: memPacketBytes(kind, size) })!;
    s.byRequest.set(msg.id, inst);
    inst.outstanding++;
    s.nextTxn++;
    s.stats.transactions.value++;
    s.stats.transferredBytes.value += size;
  }
  if (s.nextTxn >= t.count) {
    inst.allSent = true;
    s.stage = null;
    if (inst.outstanding === 0) complete(s, inst);
  }
}

/**
 * The stage's texture fetch: one texture-cache access per cycle (a reservation failure keeps the
 * line for the next cycle), or, without a texture cache, its lines as global reads to the L1D.
 */
function sendTexLines(s: SmLsuState, inst: LsuInst): void {
  const tex = s.tex;
  const cycle = s.lastCycle;
  if (tex === null) {
    const port = s.l1dReq;
    const size = s.p.texLineBytes ?? 128;
    for (let sent = 0; sent < s.p.l1dPortWidth && s.nextTxn < s.texLineCount; sent++) {
      if (!port.hasRoom) {
        port.waitingForRoom = true;
        s.texStats!.stallCycles.value++;
        break;
      }
      const req: GpuMemRequest = { addr: s.texLines[s.nextTxn]!, size, sm: s.p.smId, warp: inst.wb.warp };
      const msg = port.send(GpuKind.readReq, req, { bytes: memPacketBytes(GpuKind.readReq, size) })!;
      s.byRequest.set(msg.id, inst);
      inst.outstanding++;
      s.nextTxn++;
    }
  } else if (s.nextTxn < s.texLineCount && s.texAccessCycle !== cycle) {
    s.texAccessCycle = cycle;
    const id = s.texNextId++;
    if (tex.access(s.texLines[s.nextTxn]!, id, cycle) === TexOutcome.resFail) {
      s.texStats!.stallCycles.value++;
      if (s.io.tracing) s.io.span('texResFail', s.io.now, s.io.now, -1, TEX_RES_FAIL_NAME[tex.lastReason]);
    } else {
      s.texAccess.set(id, inst);
      inst.outstanding++;
      s.nextTxn++;
    }
  }
  if (s.nextTxn >= s.texLineCount) {
    inst.allSent = true;
    s.stage = null;
    if (inst.outstanding === 0) complete(s, inst);
  }
}

/** One cycle of the texture cache: its line read to the L1D, a fragment to the result FIFO, one result written back. */
function texCycle(s: SmLsuState, tex: TexCache, cycle: number): void {
  const line = tex.peekRequest();
  if (line >= 0) {
    if (s.l1dReq.hasRoom) {
      const size = tex.tags.lineBytes;
      const req: GpuMemRequest = { addr: line, size, sm: s.p.smId, tex: true };
      const msg = s.l1dReq.send(GpuKind.readReq, req, { bytes: memPacketBytes(GpuKind.readReq, size) })!;
      s.texReads.set(msg.id, tex.popRequest());
    } else s.l1dReq.waitingForRoom = true;
  }
  if (tex.resultsReady > 0) {
    const id = tex.popResult();
    const inst = s.texAccess.get(id);
    if (inst === undefined) throw new SimulationError(`${s.io.name}: texture cache result ${id} belongs to no instruction`);
    s.texAccess.delete(id);
    inst.outstanding--;
    if (inst.outstanding === 0 && inst.allSent) complete(s, inst);
  }
  tex.cycle(cycle);
}

/** Registers the texture statistics (at the first texture fetch, so runs without textures keep their statistics). */
function texStatsOf(s: SmLsuState): NonNullable<SmLsuState['texStats']> {
  if (s.texStats !== null) return s.texStats;
  const io = s.io;
  const st = {
    insts: io.counter('insts_tex', 'texture fetches (tex, tld4) accepted'),
    texels: io.counter('tex_texels', 'texels the texture fetches read (1 per lane for point sampling, 2-8 for linear filtering)'),
    lines: io.counter('tex_lines', 'distinct texture lines of the fetches (accesses to the texture cache, or line reads to the L1D without one)'),
    stallCycles: io.counter('tex_stall_cycles', 'cycles the stage could not make its texture access (texture-cache reservation failure, or l1dReq full)', 'cycles'),
  };
  const tex = s.tex;
  if (tex !== null) {
    const d = (name: string, f: () => number, desc: string) => io.stats.derived(`${io.name}.${name}`, f, desc, 'count');
    d('tex_accesses', () => tex.accesses, 'texture-cache accesses (hits + misses, GPGPU-Sim L1T accesses)');
    d('tex_hits', () => tex.hits, 'texture-cache hits');
    d('tex_misses', () => tex.misses, 'texture-cache misses (line reads sent down)');
    d('tex_res_fail', () => tex.resFails, 'texture-cache reservation-failure attempts');
    for (let r = 0; r < TEX_RES_FAIL_NAME.length; r++) d(`tex_res_fail_${TEX_RES_FAIL_NAME[r]}`, () => tex.resFailBy[r]!, `texture-cache reservation failures: ${TEX_RES_FAIL_NAME[r]}`);
  }
  s.texStats = st;
  return st;
}

function accept(s: SmLsuState, msg: Message<LsuDispatch>, cycle: number): void {
  const d = msg.payload;
  const io = s.io;
  const space = d.space === StateSpace.Generic ? StateSpace.Global : d.space;
  if (space === StateSpace.Tex) {
    acceptTex(s, d, cycle);
    return;
  }
  const longLatency = d.isLoad && (space === StateSpace.Global || space === StateSpace.Local);
  const wb: Writeback = { warp: d.warp, dst: d.dst, seq: d.seq, longLatency };
  const counted = COUNTED_SPACES.indexOf(space as (typeof COUNTED_SPACES)[number]);
  if (counted < 0) {
    throw new SimulationError(`${io.name}: lsu.dispatch with state space ${STATE_SPACE_NAME[d.space] ?? d.space} (expected global, local, shared, const or param)`, { warp: d.warp, seq: d.seq });
  }
  s.stats.insts[counted]!.value++;
  if (!d.isLoad || d.atomic) s.stats.memWrites.value++;
  s.inFlight++;
  const inst: LsuInst = { wb, space, isLoad: d.isLoad, atomic: d.atomic, start: io.now, outstanding: 0, allSent: false, doneCycle: -1 };
  if (space === StateSpace.Shared) {
    const k = Math.max(1, s.banks.conflictCycles(d.addresses, d.mask, d.bytes));
    s.stats.bankConflictCycles.value += k - 1;
    s.stageFreeCycle = cycle + k;
    inst.doneCycle = cycle + s.p.sharedMemLatency + k - 1;
    insertTimed(s, inst);
    return;
  }
  if (space === StateSpace.Const || space === StateSpace.Param) {
    inst.doneCycle = cycle + s.p.constLatency;
    s.stageFreeCycle = cycle + 1;
    insertTimed(s, inst);
    return;
  }
  // global / local
  const n = s.coalescer.coalesce(d.addresses, d.mask, d.bytes, space, s.txns, d.atomic);
  let active = d.mask >>> 0;
  let lanes = 0;
  while (active !== 0) {
    active &= active - 1;
    lanes++;
  }
  s.stats.requestedBytes.value += lanes * d.bytes;
  s.stageFreeCycle = cycle + 1;
  if (n === 0) {
    inst.allSent = true;
    complete(s, inst);
    return;
  }
  s.stage = inst;
  s.nextTxn = 0;
  sendTransactions(s);
}

/** Accepts a texture fetch: its distinct lines become the stage's work (see {@link sendTexLines}). */
function acceptTex(s: SmLsuState, d: LsuDispatch, cycle: number): void {
  const st = texStatsOf(s);
  st.insts.value++;
  const texels = d.texels ?? [];
  st.texels.value += texels.length;
  const wb: Writeback = { warp: d.warp, dst: d.dst, seq: d.seq, longLatency: true };
  const inst: LsuInst = { wb, space: StateSpace.Tex, isLoad: true, atomic: false, start: s.io.now, outstanding: 0, allSent: false, doneCycle: -1 };
  s.inFlight++;
  s.texInFlight++;
  const lineBytes = s.tex !== null ? s.tex.tags.lineBytes : (s.p.texLineBytes ?? 128);
  s.texLineCount = texelLines(texels, texels.length, lineBytes, s.texLines);
  st.lines.value += s.texLineCount;
  s.stageFreeCycle = cycle + 1;
  if (s.texLineCount === 0) {
    inst.allSent = true;
    complete(s, inst);
    return;
  }
  s.stage = inst;
  s.nextTxn = 0;
  sendTransactions(s);
}

function insertTimed(s: SmLsuState, inst: LsuInst): void {
  const timed = s.timed;
  let i = timed.length;
  while (i > 0 && timed[i - 1]!.doneCycle > inst.doneCycle) i--;
  timed.splice(i, 0, inst);
}

function step(s: SmLsuState, cycle: number): void {
  const io = s.io;
  // Paused: instructions in flight complete; new ones wait in topIn.
  const accepting = s.ctrl.length === 0 && s.lifecycle.running ? true : serviceLifecycle(s.lifecycle, s.ctrl, s.inFlight === 0 && s.ready.length === 0, s.dispatch.length, io.name);
  // 1. responses from the L1D
  s.lastCycle = cycle;
  let m: Message | undefined;
  while ((m = s.l1dRsp.recv()) !== undefined) {
    if (s.texReads.size > 0) {
      const slot = s.texReads.get(m.replyTo);
      if (slot !== undefined) {
        s.texReads.delete(m.replyTo);
        s.tex!.fill(slot);
        continue;
      }
    }
    const inst = s.byRequest.get(m.replyTo);
    if (inst === undefined) throw new SimulationError(`${io.name}: mem.rsp ${m.id} answers unknown request ${m.replyTo}`);
    s.byRequest.delete(m.replyTo);
    inst.outstanding--;
    if (inst.outstanding === 0 && inst.allSent) complete(s, inst);
  }
  // 2. timed (shared / const / param) completions
  const timed = s.timed;
  let k = 0;
  while (k < timed.length && timed[k]!.doneCycle <= cycle) complete(s, timed[k++]!);
  if (k > 0) timed.splice(0, k);
  // 3. memory stage (and the texture cache's own cycle)
  // texture-cache work exists only while a texture fetch is in flight (its results pending)
  const tex = s.texInFlight > 0 ? s.tex : null;
  if (tex !== null) texCycle(s, tex, cycle);
  sendTransactions(s);
  // 4. accept one instruction
  if (accepting && s.stage === null && cycle >= s.stageFreeCycle) {
    const d = s.dispatch.recv() as Message<LsuDispatch> | undefined;
    if (d !== undefined) accept(s, d, cycle);
  }
  // 5. write-backs
  const ready = s.ready;
  if (ready.length > 0) {
    if (s.wbPort.hasRoom) {
      const payload = ready.length === 1 ? ready[0]! : { items: ready.slice() };
      s.wbPort.send(GpuKind.lsuWriteback, payload);
      ready.length = 0;
    } else s.wbPort.waitingForRoom = true;
  }
  // 6. sleep until the next thing to do
  let next = Infinity;
  if (s.stage !== null && s.l1dReq.hasRoom) next = cycle + 1;
  // Paused or draining: waiting instructions stay in topIn until resumed (no polling).
  if (accepting && s.dispatch.length > 0 && s.stage === null) next = Math.min(next, Math.max(cycle + 1, s.stageFreeCycle));
  if (timed.length > 0) next = Math.min(next, Math.max(cycle + 1, timed[0]!.doneCycle));
  if (ready.length > 0 && s.wbPort.hasRoom) next = cycle + 1;
  if (s.texInFlight > 0 && s.tex !== null) next = cycle + 1;
  if (s.lifecycle.state === 'draining' && s.inFlight === 0 && s.ready.length === 0) s.lifecycle.drained();
  if (next !== Infinity) io.wakeAt(io.clock.timeOfCycle(next));
}

/** The unit kind `smLsu`. */
export const smLsu = defineUnit<SmLsuParams>({
  kind: 'smLsu',
  description: 'SM load/store unit: shared-memory bank conflicts, const/param latency, coalescing of global/local accesses into L1D transactions, one write-back per memory instruction.',
  source: 'paper 004 §2.2; GPGPU-Sim ldst_unit (shared_cycle, constant_cycle, memory_cycle), generate_mem_accesses',
  spec: smLsuSpec,
  delivery: 'batch',
  machine: unitLifecycleMachine,
  ports: [
    { name: 'topIn', direction: 'in', description: 'memory instructions from ISSUE', messageKinds: [GpuKind.lsuDispatch], capacity: 2 },
    { name: 'topOut', direction: 'out', description: 'write-backs to ISSUE (all of a cycle in one message)', messageKinds: [GpuKind.lsuWriteback], capacity: 4 },
    { name: 'bottomOut', direction: 'out', description: 'coalesced transactions to the L1D; capacity = l1dPortWidth', messageKinds: [GpuKind.readReq, GpuKind.writeReq], capacity: 'l1dPortWidth' },
    { name: 'bottomIn', direction: 'in', description: 'L1D responses (loads: data; stores: accepted)', messageKinds: [GpuKind.rsp], capacity: 16 },
    ...controlPorts('complete instructions in flight, accept none'),
  ],
  finalize: (snap: { context: SmLsuState }) => snap.context.lifecycle.finalize(),
  stats: [
    { name: 'insts_<space>', unit: 'count', description: 'memory instructions accepted per state space (global, shared, const, local, param)' },
    { name: 'mem_writes', unit: 'count', description: 'memory instructions that write (stores and atomics, any state space); the run watchdog reads it to tell a spin loop from work', gpuTotal: 'gpu_tot_mem_writes' },
    { name: 'transactions', unit: 'count', description: 'transactions sent to the L1D' },
    { name: 'requested_bytes', unit: 'bytes', description: 'bytes the active lanes of global/local instructions access' },
    { name: 'transferred_bytes', unit: 'bytes', description: 'bytes of the transactions sent to the L1D' },
    { name: 'coalescing_efficiency', unit: 'ratio', description: 'requested_bytes / transferred_bytes (nvprof gld/gst_efficiency)' },
    { name: 'transactions_per_inst', unit: 'ratio', description: 'transactions per global/local instruction' },
    { name: 'shared_bank_conflict_cycles', unit: 'cycles', description: 'extra cycles of shared accesses from bank conflicts (sum of k - 1)' },
    { name: 'stage_stall_cycles', unit: 'cycles', description: 'cycles the memory stage could not send a transaction (l1dReq full)' },
    { name: 'insts_tex', unit: 'count', description: 'texture fetches accepted (registered at the first one)' },
    { name: 'tex_texels', unit: 'count', description: 'texels the texture fetches read (registered at the first fetch)' },
    { name: 'tex_lines', unit: 'count', description: 'distinct texture lines of the fetches, one texture-cache access each (registered at the first fetch)' },
    { name: 'tex_stall_cycles', unit: 'cycles', description: 'cycles a texture access waited (texture-cache reservation failure or l1dReq full; registered at the first fetch)' },
    { name: 'tex_<outcome>', unit: 'count', description: 'texture cache (L1T) accesses, hits, misses, res_fail and res_fail_<reason> (fragmentFifoFull, requestFifoFull, robFull); registered at the first fetch', variants: ['accesses', 'hits', 'misses', 'res_fail'] },
  ],
  logic: (p) =>
    cycleLogic(
      step,
      ({ input: io }: { input: UnitIo }): SmLsuState => {
        if (!(Number.isInteger(p.l1dPortWidth) && p.l1dPortWidth >= 1)) throw new SimulationError(`${io.name}: l1dPortWidth must be an integer >= 1, got ${p.l1dPortWidth}`);
        if (!(p.sharedMemLatency >= 1 && p.constLatency >= 1)) throw new SimulationError(`${io.name}: sharedMemLatency and constLatency must be >= 1 cycle`);
        const c = (name: string, d: string, u = 'count') => io.counter(name, d, u);
        const insts = COUNTED_SPACES.map((sp) => c(`insts_${STATE_SPACE_NAME[sp]}`, `${STATE_SPACE_NAME[sp]} memory instructions accepted`));
        const requestedBytes = c('requested_bytes', 'bytes accessed by active lanes of global/local instructions', 'bytes');
        const transferredBytes = c('transferred_bytes', 'bytes of the transactions sent to the L1D', 'bytes');
        const transactions = c('transactions', 'transactions sent to the L1D');
        io.stats.derived(`${io.name}.coalescing_efficiency`, () => (transferredBytes.value === 0 ? 0 : requestedBytes.value / transferredBytes.value), 'requested / transferred bytes', 'ratio');
        io.stats.derived(
          `${io.name}.transactions_per_inst`,
          () => {
            const n = insts[0]!.value + insts[3]!.value;
            return n === 0 ? 0 : transactions.value / n;
          },
          'transactions per global/local instruction',
          'ratio',
        );
        return {
          io,
          p,
          dispatch: io.in('topIn'),
          wbPort: io.out('topOut'),
          l1dReq: io.out('bottomOut'),
          l1dRsp: io.in('bottomIn'),
          ctrl: io.in('ctrl'),
          lifecycle: new Lifecycle(io, io.out('status')),
          coalescer: new Coalescer(p.coalescer ?? {}),
          banks: new SharedMemBanks(p.sharedMem),
          txns: new CoalescedAccesses(),
          stage: null,
          nextTxn: 0,
          stageFreeCycle: 0,
          byRequest: new Map(),
          timed: [],
          ready: [],
          inFlight: 0,
          lastCycle: -1,
          tex: p.texCache !== undefined ? new TexCache(p.texCache) : null,
          texInFlight: 0,
          texLines: new Float64Array(256),
          texLineCount: 0,
          texAccessCycle: -1,
          texAccess: new Map(),
          texReads: new Map(),
          texNextId: 0,
          texStats: null,
          stats: {
            insts,
            transactions,
            memWrites: c('mem_writes', 'memory instructions that write (stores and atomics)'),
            requestedBytes,
            transferredBytes,
            bankConflictCycles: c('shared_bank_conflict_cycles', 'extra shared-memory cycles from bank conflicts', 'cycles'),
            stageStallCycles: c('stage_stall_cycles', 'cycles the memory stage found l1dReq full', 'cycles'),
          },
        };
      },
    ),
  pendingWork: (snap: { context: SmLsuState }) => {
    const s = snap.context;
    if (s.inFlight === 0 && s.ready.length === 0) return null;
    const tex = s.tex !== null && s.tex.busy ? `, texture cache: ${s.tex.describe()}` : '';
    return `${s.inFlight} memory instructions in flight (${s.byRequest.size} transactions awaiting L1D responses, ${s.timed.length} timed, ${s.stage ? `${(s.stage.space === StateSpace.Tex ? s.texLineCount : s.txns.count) - s.nextTxn} transactions unsent` : 'stage free'}, ${s.ready.length} write-backs unsent${tex})`;
  },
});
