/**
 * The per-cycle orchestration of ISSUE: control, write-backs, iBuffer fill, CTA start and
 * finish, the issue slot of each scheduler, refetch, then sleep or wake next cycle.
 */
import { SimulationError } from '../../src/errors.ts';
import type { Message } from '../../src/messaging/message.ts';
import type { CtaDispatch, Writeback } from '../../src/protocol/gpu.ts';
import { accountInflight, replaySleep } from './accounting.ts';
import { maybeFinishCta, startCta } from './cta-slots.ts';
import { fillFromDecode, refetchIdle } from './ibuffer-fill.ts';
import { applyWriteback, scheduleCycle } from './issue.ts';
import { inFlight, type SmIssueState } from './state.ts';

/**
 * One wake of ISSUE. Its own same-cycle guard (not `cycleLogic`): the cycles elapsed since the
 * previous wake feed the sleep replay.
 */
export function step(s: SmIssueState): void {
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
  if (ports.ctrl.length > 0) while ((msg = ports.ctrl.recv()) !== undefined) s.lifecycle.handle(msg, s.residentCtas === 0 && ports.cta.length === 0);
  const lifecycle = s.lifecycle;
  if (ports.cta.length > 0 && lifecycle.state === 'gated') {
    throw new SimulationError(`${io.name}: cta.dispatch arrived while the SM is power-gated (the SM Work Manager must wake it first)`);
  }
  while ((msg = ports.execWb.recv()) !== undefined) applyWriteback(s, msg as Message<Writeback>, false);
  while ((msg = ports.lsuWb.recv()) !== undefined) applyWriteback(s, msg as Message<Writeback>, true);
  fillFromDecode(s);
  while (ports.cta.peek() !== undefined && s.ctas.some((c) => c.cta === null)) startCta(s, ports.cta.recv() as Message<CtaDispatch>);
  // A CTA finishes when its last write-back or exit arrives (applyWriteback, markExited); the
  // scan is for one that could not report then (no room in ctaDone) or started finished.
  if (s.ctaFinishRetry) {
    s.ctaFinishRetry = false;
    for (let c = 0; c < s.ctas.length; c++) maybeFinishCta(s, c);
  }

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
    refetchIdle(s);
    return;
  }
  if (s.liveWarps > 0) {
    s.stats.activeCycles.value++;
    accountInflight(s);
    if (issueCycle) {
      for (let k = 0; k < s.p.schedulers; k++) {
        // Each scheduler sees only its own warps' flags (flagsByLocal is per scheduler pass).
        scheduleCycle(s, k, cycle);
      }
    }
  }
  // Barriers: the functional CTA releases warps; retry fetches for warps that wait on nothing.
  refetchIdle(s);
  if (s.liveWarps > 0 || ports.cta.length > 0) {
    // Sleep when nothing can change without a message: no warp ready or blocked by a busy
    // unit, nothing issued, no CTA waiting. Write-backs, decoded instructions, CTAs and port
    // room wake the unit; the cycles slept through are accounted when it wakes (replaySleep).
    if (issueCycle && s.liveWarps > 0 && ports.cta.length === 0 && !s.mustPoll && s.stats.warpInsts.value === issuedBefore && !s.p.pollEveryCycle) s.sleptAt = cycle;
    else io.wakeInCycles(1);
  }
}
