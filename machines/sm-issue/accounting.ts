/**
 * Accounting: ISSUE sleeps when nothing can change without a message, and accounts the cycles
 * it slept through exactly as if it had run each of them (pipeline drains, active cycles, AMAT
 * overlap, each issue cycle's scheduler and warp states); and the derived statistics and time
 * series of the unit (000 §3.5.3, §3.5.4, §4.4.1, §5.3; 004 Fig. 3).
 */
import { SCHEDULER_STATE_NAME, STALL_KIND_NAME, WARP_STATE_NAME } from '../../src/model/sm/sched-stats.ts';
import type { UnitIo } from '../../src/sim/unit.ts';
import type { SmIssueState } from './state.ts';

/**
 * Accounts the cycles between falling asleep and this wake exactly as if the unit had run each
 * of them: pipeline drains, active cycles, AMAT overlap, and each issue cycle's scheduler and
 * warp states (unchanged while asleep, since only messages could change them).
 */
export function replaySleep(s: SmIssueState, cycle: number): void {
  const interval = s.p.issueIntervalCycles;
  const first = s.sleptAt + 1;
  for (let c = first; c < cycle; c++) {
    s.exec.drain(c, s.drainTags);
    if (s.exec.inFlight() > 0) s.amatOverlapped.value += s.memInFlight;
  }
  if (cycle > first) {
    s.stats.activeCycles.value += cycle - first;
    // Issue cycles in [first, cycle): each records the same flags (nothing changed while asleep).
    const issueCycles = Math.floor((cycle - 1) / interval) - Math.floor((first - 1) / interval);
    for (let k = 0; k < s.p.schedulers; k++) {
      const n = s.lastCount[k]!;
      if (n > 0) s.sched.recordCycles(s.lastFlags[k]!, n, issueCycles);
    }
  }
  s.sleptAt = -1;
}

/**
 * Accounts the cycles up to and including `cycle` that ISSUE has slept through so far (a
 * sampling instant while it sleeps; a unit polled every cycle would have run `cycle` before the
 * sample), leaving it asleep from `cycle`: the wake accounts the rest, so every cycle is
 * accounted once, as if the unit had run it.
 */
function flushSleep(s: SmIssueState, cycle: number): void {
  if (s.sleptAt < 0 || cycle <= s.sleptAt) return;
  replaySleep(s, cycle + 1);
  s.sleptAt = cycle;
}

/** Registers the derived statistics and time series of `s` under the unit's name. */
export function registerIssueStats(io: UnitIo, s: SmIssueState): void {
  const d = (name: string, f: () => number, desc: string, unit: string) => io.stats.derived(`${io.name}.${name}`, f, desc, unit);
  SCHEDULER_STATE_NAME.forEach((n, i) => d(`sched_${n}`, () => s.sched.schedulerStates[i]!, `scheduler-cycles in idle-time state ${n} (000 §3.5.3)`, 'cycles'));
  WARP_STATE_NAME.forEach((n, i) => d(`warp_state_${n}`, () => s.sched.warpStates[i]!, `warp-cycles in state ${n} (000 §5.3)`, 'warp-cycles'));
  STALL_KIND_NAME.forEach((n, i) => d(`stall_${n}`, () => s.sched.stalls[i]!, `scheduler-cycles by stall kind ${n} (004 Fig. 3)`, 'cycles'));
  d('amat', () => (s.memCompleted.value > 0 ? s.amatTotal.value / s.memCompleted.value : 0), 'average memory access time per memory instruction (000 §4.4.1)', 'cycles');
  d('amat_overlapped', () => (s.memCompleted.value > 0 ? s.amatOverlapped.value / s.memCompleted.value : 0), 'AMAT cycles overlapped by arithmetic in flight (000 §4.4.1)', 'cycles');
  // Warp states over time (000 Figs. 5.x): warp-cycles per state in each sampling interval.
  // Cycles ISSUE slept through are accounted when it wakes, so a sample taken while it sleeps
  // first accounts the slept cycles before it (the wake then accounts the rest): the series is
  // the same whether ISSUE sleeps or is polled every cycle.
  const lastStates = new Float64Array(WARP_STATE_NAME.length);
  WARP_STATE_NAME.forEach((n, i) => {
    io.timeSeries(`warp_cycles_${n}`, () => {
      if (i === 0) flushSleep(s, io.cycle);
      const v = s.sched.warpStates[i]! - lastStates[i]!;
      lastStates[i] = s.sched.warpStates[i]!;
      return v;
    }, `warp-cycles in state ${n} in the sampling interval (000 §5.3, Figs. 5.x)`, 'warp-cycles');
  });
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
}
