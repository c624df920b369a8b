/**
 * Instruction-buffer fill: fetch requests for warps whose iBuffer emptied, and decoded
 * instructions written into the iBuffers (dropped when the buffer was flushed since the fetch:
 * the generation differs).
 */
import type { Message } from '../../src/messaging/message.ts';
import { GpuKind, type FetchedInsts, type FetchReq } from '../../src/protocol/gpu.ts';
import type { SmIssueState } from './state.ts';

/** Asks FETCH for the instructions after the last buffered one (or from the warp's PC). */
export function requestFetch(s: SmIssueState, slot: number): void {
  const ws = s.slots[slot]!;
  const w = ws.warp;
  if (w === null || ws.exited || w.done || ws.fetchPending) return;
  const free = s.ibuf.freeEntries(slot);
  if (free === 0) return;
  // The next PC to fetch: after the last buffered instruction, or the warp's PC when empty.
  const count = s.ibuf.size(slot);
  const pc = count === 0 ? w.pc : s.ibuf.entryPc(slot, count - 1) + 1;
  const sched = slot % s.p.schedulers;
  const policy = s.policies[sched]!;
  const req: FetchReq =
    policy.fetchPriority === undefined
      ? { warp: slot, pc, fn: w.functionIndex, count: free, gen: s.ibuf.generation(slot) }
      : { warp: slot, pc, fn: w.functionIndex, count: free, gen: s.ibuf.generation(slot), priority: policy.fetchPriority(s.schedWarps[sched]!, Math.floor(slot / s.p.schedulers)) };
  if (s.ports.fetchReq.send(GpuKind.fetchReq, req) !== null) ws.fetchPending = true;
}

/** Writes the decoded instructions of `decode.inst` messages into the iBuffers. */
export function fillFromDecode(s: SmIssueState): void {
  let msg: Message | undefined;
  while ((msg = s.ports.decoded.recv()) !== undefined) {
    const f = msg.payload as FetchedInsts;
    const ws = s.slots[f.warp]!;
    s.flagsDirty[f.warp] = 1;
    if (f.gen !== s.ibuf.generation(f.warp) || ws.warp === null) continue; // flushed meanwhile
    ws.fetchPending = false;
    const code = s.ctas[ws.ctaSlot]!.kernel!.kernel.module.functions[f.fn]!.instructions;
    for (let i = 0; i < f.count && f.pc + i < code.length; i++) {
      if (!s.ibuf.fillIfCurrent(f.warp, f.gen, f.pc + i, code[f.pc + i]!)) break;
    }
  }
}

/** Retries fetches for warps that wait on nothing with an empty iBuffer (e.g. after a barrier). */
export function refetchIdle(s: SmIssueState): void {
  for (let slot = 0; slot < s.slots.length; slot++) {
    const ws = s.slots[slot]!;
    if (ws.warp !== null && !ws.exited && !ws.fetchPending && s.ibuf.isEmpty(slot)) requestFetch(s, slot);
  }
}
