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
 *    its warps with its policy (`lrr`, `gto`, `oldest`, `twoLevel`, `twoLevelGpgpusim`, ... from
 *    the registry) and
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
 * Files: `state.ts` (spec, resources, state), `cta-slots.ts`, `ibuffer-fill.ts`, `issue.ts`
 * (readiness, scheduling, issue, write-backs, the policy probe), `accounting.ts` (sleep replay,
 * statistics), `step.ts` (the per-cycle orchestration), this file (the unit definition). See
 * README.md for the dataflow and where a warp-level policy plugs in.
 *
 * Sources: 000 ch. 2 and §3.2 (schedulers), 002 ch. 3 (fetch/decode/iBuffer/scoreboard),
 * GPGPU-Sim shader_core_ctx::issue / scheduler_unit::cycle.
 */

import { WarpStepInfo } from '../../src/functional/index.ts';
import { ExecUnits } from '../../src/model/sm/exec-units.ts';
import { InstructionBuffer } from '../../src/model/sm/ibuffer.ts';
import { Scoreboard } from '../../src/model/sm/scoreboard.ts';
import { SchedStatsCounters } from '../../src/model/sm/sched-stats.ts';
import type { SchedulerWarps, WarpSchedulerPolicy } from '../../src/model/sm/warp-scheduler.ts';
import { createWarpSchedulerPolicy } from '../../src/model/sm/warp-policies.ts';
import { Lifecycle, unitLifecycleMachine } from '../../src/sim/lifecycle.ts';
import { defineUnit, wakeLogic, type UnitIo } from '../../src/sim/unit.ts';
import { GpuKind } from '../../src/protocol/gpu.ts';
import { registerIssueStats } from './accounting.ts';
import { makeProbe } from './issue.ts';
import { smIssueSpec, type SmIssueParams, type SmIssueResources, type SmIssueState, type TimingInstruction } from './state.ts';
import { step } from './step.ts';

export { smIssueSpec, type SmIssueParams, type SmIssueResources, type SmIssueState } from './state.ts';

export const smIssue = defineUnit<SmIssueParams, SmIssueResources>({
  kind: 'smIssue',
  description: 'SM instruction buffers, scoreboard and warp schedulers; executes warp instructions functionally at issue and dispatches them to EXEC or LSU.',
  source: '000 ch. 2, §3.2; 002 ch. 3; GPGPU-Sim shader_core_ctx issue stage',
  spec: smIssueSpec,
  resources: [{ name: 'context', description: "the run's kernel table (GpuContext): CTAs are created from it" }],
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
    { name: 'ctas_done', unit: 'count', description: 'CTAs completed', gpuTotal: 'gpu_tot_ctas_done' },
    { name: 'sched_<state>', unit: 'cycles', description: 'scheduler-cycles per idle-time state (000 §3.5.3): noInstruction, notReady, pipelineStall, canIssue' },
    { name: 'warp_state_<state>', unit: 'warp-cycles', description: 'warp-cycles per warp state (000 §5.3; plus waiting at a barrier)' },
    { name: 'stall_<kind>', unit: 'cycles', description: 'stall breakdown (004 Fig. 3): memoryConflict, memoryDependency, fetch, other, none' },
    { name: 'amat / amat_overlapped', unit: 'cycles', description: 'average memory access time and its part overlapped by arithmetic (000 §4.4.1)' },
    { name: 'lifecycle_<state>_cycles', unit: 'cycles', description: 'cycles per lifecycle state (active, draining, paused, gated); registered on the first control message' },
    { name: 'alu_load / mem_load', unit: 'instructions', description: 'time series: ALU and MEM instructions issued per sampling interval (not 000 §3.5.4 load: see alu_inflight)' },
    { name: 'alu_inflight_sum / mem_inflight_sum', unit: 'instruction-cycles', description: 'sums over active cycles of the ALU / memory instructions in flight (000 §3.5.4 load; average = sum / active_cycles)' },
    { name: 'cycles_idle / cycles_alu_only / cycles_mem_only / cycles_alu_mem', unit: 'cycles', description: 'active cycles by what is in flight (000 §3.5.4, Fig. 3.9)' },
    { name: 'alu_inflight / mem_inflight', unit: 'instructions', description: 'time series: average ALU / memory instructions in flight per active cycle of the sampling interval (000 Fig. 3.10)' },
    { name: 'warp_cycles_<state>', unit: 'warp-cycles', description: 'time series: warp-cycles per warp state in each sampling interval (000 §5.3, Figs. 5.x)' },
    { name: 'elf_<stat>', unit: 'count', description: 'under the elf policy only: WPT recalculations by cause (recalc_load, recalc_branch, recalc_other, recalc_naive), decrements, priority_error, program points pp_initial / pp_before_merge / pp_loaded (004 §3.2, Fig. 8, Table 2; spec §2.10)' },
  ],
  logic: (p, r) =>
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
          schedWarps.push({
            size: perSched,
            warpIds,
            active: new Uint8Array(perSched),
            age: new Float64Array(perSched),
            pc: new Int32Array(perSched).fill(-1),
            fn: new Int32Array(perSched).fill(-1),
            tables: new Array<null>(perSched).fill(null),
            probe: makeProbe(() => stateRef!, k),
          });
          policies.push(createWarpSchedulerPolicy(p.policy, { ...p.policyOptions, numSlots: perSched }));
        }
        const maxRegs = Math.max(1, ...r.context.kernels.map((k) => k.regCount));
        const c = (name: string, d: string, u = 'count') => io.counter(name, d, u);
        const s: SmIssueState = {
          io,
          p,
          context: r.context,
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
          slots: Array.from({ length: perSched * p.schedulers }, () => ({ warp: null, ctaSlot: -1, fetchPending: false, outstanding: 0, exited: false, sleepUntilPs: 0 })),
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
          baseFlags: new Int32Array(perSched * p.schedulers),
          flagsDirty: new Uint8Array(perSched * p.schedulers).fill(1),
          sched: new SchedStatsCounters(),
          lastFlags: Array.from({ length: p.schedulers }, () => new Int32Array(perSched)),
          lastCount: new Int32Array(p.schedulers),
          considered: Array.from({ length: p.schedulers }, () => p.policyOptions.idleStates === 'considered'),
          lastConsidered: Array.from({ length: p.schedulers }, () => new Int32Array(perSched)),
          lastConsideredCount: new Int32Array(p.schedulers),
          atomicsOut: new Int32Array(perSched * p.schedulers),
          atomicSeqs: new Set(),
          load: {
            aluInflightSum: c('alu_inflight_sum', 'sum over active cycles of the ALU (non-memory) warp instructions in flight in the execution pipelines (000 §3.5.4 ALU load; average = sum / active_cycles)', 'instruction-cycles'),
            memInflightSum: c('mem_inflight_sum', 'sum over active cycles of the memory warp instructions issued and not written back (000 §3.5.4 MEM load; average = sum / active_cycles)', 'instruction-cycles'),
            cyclesIdle: c('cycles_idle', 'active cycles with no ALU and no memory instruction in flight (000 §3.5.4, Fig. 3.9 idle)', 'cycles'),
            cyclesAluOnly: c('cycles_alu_only', 'active cycles with an ALU instruction in flight and no memory instruction (000 Fig. 3.9 computation only)', 'cycles'),
            cyclesMemOnly: c('cycles_mem_only', 'active cycles with a memory instruction in flight and no ALU instruction (000 Fig. 3.9 memory access only)', 'cycles'),
            cyclesAluMem: c('cycles_alu_mem', 'active cycles with both in flight (000 Fig. 3.9 overlap of computation and memory access)', 'cycles'),
          },
          mustPoll: false,
          ctaFinishRetry: false,
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
        registerIssueStats(io, s);
        return s;
      },
    ),
  machine: unitLifecycleMachine,
  finalize: (snap: { context: SmIssueState }) => snap.context.lifecycle.finalize(),
  pendingWork: (snap: { context: SmIssueState }) => {
    const s = snap.context;
    const live = s.ctas.filter((c) => c.cta !== null);
    if (live.length === 0) return null;
    const kernels = [...new Set(live.map((c) => c.kernel!.name))].join(', ');
    const warps = s.slots
      .map((ws, i) => (ws.warp !== null ? `w${i}${ws.exited ? ' exited' : ` pc ${ws.warp.functionIndex}:${ws.warp.pc}`}${ws.outstanding ? ` ${ws.outstanding} outstanding` : ''}${ws.warp.atBarrier >= 0 ? ' at barrier' : ''}` : null))
      .filter((x) => x !== null);
    const shown = warps.slice(0, 8);
    return `${live.length} CTAs of ${kernels} resident; warps: ${shown.join(', ')}${warps.length > shown.length ? ` (+${warps.length - shown.length} more)` : ''}`;
  },
});
