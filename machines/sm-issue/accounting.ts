/**
 * Accounting: ISSUE sleeps when nothing can change without a message, and accounts the cycles
 * it slept through exactly as if it had run each of them (pipeline drains, active cycles, AMAT
 * overlap, each issue cycle's scheduler and warp states); and the derived statistics and time
 * series of the unit (000 §3.5.3, §3.5.4, §4.4.1, §5.3; 004 Fig. 3).
 */
import { SCHEDULER_STATE_NAME, STALL_KIND_NAME, WARP_STATE_NAME } from '../../src/model/sm/sched-stats.ts';
import { combinedStatistic, policyStatistics } from '../../src/model/sm/policy-stats.ts';
import type { UnitIo } from '../../src/sim/unit.ts';
import type { SmIssueState } from './state.ts';

/**
 * Accounts one active cycle's in-flight work, after the pipelines drained to it: AMAT overlap
 * (000 §4.4.1: memory instructions in flight while an arithmetic one is), and the ALU / memory
 * load and cycle class of 000 §3.5.4 (Figs. 3.9, 3.10; C12 of `specs/warp-level.md` §4). ALU in
 * flight: instructions in the execution pipelines (ISSUE's view: issue cycle to completion,
 * `ExecUnits.inFlight`); memory in flight: memory instructions issued and not written back.
 */
export function accountInflight(s: SmIssueState): void {
  const alu = s.exec.inFlight();
  const mem = s.memInFlight;
  const l = s.load;
  l.aluInflightSum.value += alu;
  l.memInflightSum.value += mem;
  if (alu > 0) {
    s.amatOverlapped.value += mem;
    if (mem > 0) l.cyclesAluMem.value++;
    else l.cyclesAluOnly.value++;
  } else if (mem > 0) l.cyclesMemOnly.value++;
  else l.cyclesIdle.value++;
}

/**
 * Accounts the cycles between falling asleep and this wake exactly as if the unit had run each
 * of them: pipeline drains, active cycles, in-flight work ({@link accountInflight}), and each
 * issue cycle's scheduler and warp states (unchanged while asleep, since only messages could
 * change them; a policy whose `order` would still move its lists keeps the unit awake).
 */
export function replaySleep(s: SmIssueState, cycle: number): void {
  const interval = s.p.issueIntervalCycles;
  const first = s.sleptAt + 1;
  for (let c = first; c < cycle; c++) {
    s.exec.drain(c, s.drainTags);
    accountInflight(s);
  }
  if (cycle > first) {
    s.stats.activeCycles.value += cycle - first;
    // Issue cycles in [first, cycle): each records the same flags (nothing changed while asleep).
    const issueCycles = Math.floor((cycle - 1) / interval) - Math.floor((first - 1) / interval);
    for (let k = 0; k < s.p.schedulers; k++) {
      const n = s.lastCount[k]!;
      if (n === 0) continue;
      if (s.considered[k]) {
        s.sched.recordWarpCycles(s.lastFlags[k]!, n, issueCycles);
        s.sched.recordSchedulerCycles(s.lastConsidered[k]!, s.lastConsideredCount[k]!, issueCycles);
      } else s.sched.recordCycles(s.lastFlags[k]!, n, issueCycles);
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
  // Statistics the warp scheduler policy keeps (ELF's recalculations, spec warp-level.md §2.10),
  // combined over the SM's schedulers; they change only when an instruction issues.
  const sources = s.policies.map(policyStatistics).filter((x) => x !== null);
  if (sources.length === s.policies.length && sources.length > 0) {
    sources[0]!.statistics.forEach((st, i) => d(st.name, () => combinedStatistic(sources, i), st.description, st.unit));
  }
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
  // ALU and MEM load over time as 000 §3.5.4 defines it (Fig. 3.10): instructions in flight,
  // averaged over the active cycles of the sampling interval (slept cycles accounted first).
  const inflightSeries = (name: string, sum: { readonly value: number }, description: string): void => {
    let lastSum = 0;
    let lastActive = 0;
    io.timeSeries(name, () => {
      flushSleep(s, io.cycle);
      const cycles = s.stats.activeCycles.value - lastActive;
      const v = cycles > 0 ? (sum.value - lastSum) / cycles : 0;
      lastActive = s.stats.activeCycles.value;
      lastSum = sum.value;
      return v;
    }, description, 'instructions');
  };
  inflightSeries('alu_inflight', s.load.aluInflightSum, 'average ALU warp instructions in flight per active cycle in the sampling interval (000 §3.5.4, Fig. 3.10)');
  inflightSeries('mem_inflight', s.load.memInflightSum, 'average memory warp instructions in flight per active cycle in the sampling interval (000 §3.5.4, Fig. 3.10)');
  // Instructions issued per sampling interval (kept under these names; not 000 §3.5.4's load,
  // which counts instructions in flight: alu_inflight / mem_inflight).
  let lastAlu = 0;
  let lastMem = 0;
  io.timeSeries('alu_load', () => {
    const v = s.aluIssued.value - lastAlu;
    lastAlu = s.aluIssued.value;
    return v;
  }, 'ALU warp instructions issued in the sampling interval', 'instructions');
  io.timeSeries('mem_load', () => {
    const v = s.memIssued.value - lastMem;
    lastMem = s.memIssued.value;
    return v;
  }, 'memory warp instructions issued in the sampling interval', 'instructions');
}
