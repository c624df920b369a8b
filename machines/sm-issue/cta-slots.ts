/**
 * CTA slots: a dispatched CTA takes a CTA slot and one warp slot per warp; a CTA whose warps
 * all exited and drained is reported to the SM Work Manager (`cta.done`) and its slots freed.
 */
import { SimulationError } from '../../src/errors.ts';
import type { Message } from '../../src/messaging/message.ts';
import { GpuKind, type CtaDispatch, type CtaDone } from '../../src/protocol/gpu.ts';
import { requestFetch } from './ibuffer-fill.ts';
import type { SmIssueState } from './state.ts';

/** Starts a dispatched CTA: creates it from the kernel table and fills free warp slots. */
export function startCta(s: SmIssueState, msg: Message<CtaDispatch>): void {
  const { kernel: kid, cta: ctaIndex } = msg.payload;
  const entry = s.context.kernel(kid);
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
    if (ws.exited) s.ctaFinishRetry = true; // a warp with no instruction: the step finishes the CTA
    s.regOffset[slot] = entry.regOffset;
    s.ibuf.flush(slot);
    s.scoreboard!.clearWarp(slot);
    s.flagsDirty[slot] = 1;
    const sched = slot % s.p.schedulers;
    const sw = s.schedWarps[sched]!;
    const local = Math.floor(slot / s.p.schedulers);
    sw.active[local] = ws.exited ? 0 : 1;
    sw.age[local] = s.nextAge++;
    sw.pc![local] = ws.exited ? -1 : w.pc;
    sw.fn![local] = ws.exited ? -1 : w.functionIndex;
    if (s.policies[sched]!.usesStaticTables === true) sw.tables![local] = s.context.staticTables(kid);
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

/** Reports CTA slot `c` done (and frees it) when all its warps exited and wrote back. */
export function maybeFinishCta(s: SmIssueState, c: number): void {
  const slot = s.ctas[c]!;
  if (slot.cta === null) return;
  for (const w of slot.warpSlots) {
    const ws = s.slots[w]!;
    if (!ws.exited || ws.outstanding > 0) return;
  }
  if (!s.ports.ctaDone.hasRoom) {
    s.ctaFinishRetry = true; // retried when woken for room
    return;
  }
  const done: CtaDone = { kernel: slot.kernel!.id, cta: slot.ctaIndex, sm: s.p.smId, warpInsts: slot.warpInsts, threadInsts: slot.threadInsts };
  s.ports.ctaDone.send(GpuKind.ctaDone, done);
  for (const w of slot.warpSlots) {
    const ws = s.slots[w]!;
    ws.warp = null;
    ws.exited = false;
    s.regOffset[w] = null;
    s.ibuf.flush(w);
    s.flagsDirty[w] = 1;
  }
  slot.kernel!.kernel.releaseCta(slot.cta);
  slot.cta = null;
  slot.kernel = null;
  slot.warpSlots = [];
  s.residentCtas--;
  s.stats.ctasDone.value++;
}

/** A warp executed its last instruction. */
export function markExited(s: SmIssueState, slot: number): void {
  const ws = s.slots[slot]!;
  if (ws.exited) return;
  ws.exited = true;
  s.liveWarps--;
  s.ibuf.flush(slot);
  s.flagsDirty[slot] = 1;
  const sw = s.schedWarps[slot % s.p.schedulers]!;
  sw.active[Math.floor(slot / s.p.schedulers)] = 0;
  if (ws.outstanding === 0) maybeFinishCta(s, ws.ctaSlot);
}
