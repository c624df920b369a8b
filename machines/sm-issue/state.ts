/**
 * ISSUE's state: its spec (zod), resources, warp and CTA slots, and the datapath state object
 * every other file of the unit works on (mutated in place; nothing here allocates per cycle).
 */
import { z } from 'zod';
import type { WarpStepInfo } from '../../src/functional/index.ts';
import type { Instruction } from '../../src/isa/ir.ts';
import type { InPort, OutPort } from '../../src/messaging/port.ts';
import { execUnitsSpec, type ExecUnits } from '../../src/model/sm/exec-units.ts';
import type { InstructionBuffer } from '../../src/model/sm/ibuffer.ts';
import type { Scoreboard } from '../../src/model/sm/scoreboard.ts';
import { WarpFlag, type SchedStatsCounters } from '../../src/model/sm/sched-stats.ts';
import type { SchedulerWarps, WarpSchedulerPolicy } from '../../src/model/sm/warp-scheduler.ts';
import type { Counter } from '../../src/stats/registry.ts';
import type { Lifecycle } from '../../src/sim/lifecycle.ts';
import type { UnitIo } from '../../src/sim/unit.ts';
import type { GpuContext, KernelEntry, TimingCta, TimingWarp } from '../../src/model/gpu-context.ts';

/** The static properties of an instruction the issue stage uses. */
export type TimingInstruction = Pick<Instruction, 'opClass' | 'srcRegs' | 'dstRegs' | 'longLatency' | 'line'>;

/** Spec of {@link smIssue} (built by the GPU topology from the config). */
export const smIssueSpec = z.strictObject({
  smId: z.int().min(0).describe('SM index, %smid (index)'),
  maxWarps: z.int().min(1).describe('warp slots in the SM (warps)'),
  maxCtas: z.int().min(1).describe('CTA slots in the SM (CTAs) [-gpgpu_shader_cta]'),
  schedulers: z.int().min(1).describe('warp schedulers; warp slot w belongs to scheduler w mod N (schedulers) [-gpgpu_num_sched_per_core]'),
  issueWidth: z.int().min(1).describe('instructions one scheduler issues per issue slot, from one warp (instructions) [-gpgpu_max_insn_issue_per_warp]'),
  issueIntervalCycles: z.int().min(1).describe('cycles between issue slots of a scheduler (core cycles; Fermi M2090: 2)'),
  iBufferEntries: z.int().min(1).describe('instruction buffer entries per warp (entries) [-gpgpu_ibuffer_size]'),
  policy: z.string().min(1).describe('warp scheduler policy name (registry of src/model/sm/warp-scheduler.ts) [-gpgpu_scheduler]'),
  policyOptions: z
    .looseObject({
      readyQueueSize: z.int().min(1).optional().describe('twoLevel, twoLevelGpgpusim: ready-queue (active-list) size (warps)'),
      inner: z.enum(['rr', 'gto']).optional().describe('twoLevel: order inside the ready queue'),
      outer: z.enum(['rr', 'gto']).optional().describe('twoLevel: order refilling the ready queue'),
      idleStates: z
        .enum(['supervised', 'considered'])
        .optional()
        .describe('twoLevel, twoLevelGpgpusim: scheduler idle-time states and stall kinds over every live warp (supervised, default) or over the warps the policy offered (considered: the ready queue, as GPGPU-Sim and 000 Fig. 3.8)'),
      key: z.enum(['length', 'distance']).optional().describe('patsTwoLevel: active-queue sort key (phase length, default, or distance)'),
      phaseLatency: z.enum(['pipeline', 'unit']).optional().describe('pats, patsTwoLevel: latency model of the phase tables (read by the GPU builder)'),
      maxPhaseDistance: z.int().min(1).optional().describe('pats, patsTwoLevel: saturation of phase distances and lengths (cycles; read by the GPU builder)'),
    })
    .describe('options of the warp scheduler policy (a policy registered later validates its own; unknown fields pass to it)'),
  exec: execUnitsSpec.describe("execution pipelines: ISSUE's view of their initiation intervals"),
  dualIssueDiffUnits: z
    .boolean()
    .optional()
    .describe('the second instruction a warp issues in one slot must go to a different pipeline than the first [-gpgpu_dual_issue_diff_exec_units]; default false'),
  operandPipelineCycles: z
    .int()
    .min(0)
    .max(64)
    .optional()
    .describe('cycles an ALU/SFU/DP instruction with register sources spends outside its unit between issue and the scoreboard release (core cycles; GPGPU-Sim: ID_OC register, collector allocation, bank read, OC_EX register, result port, EX_WB = 6; one less without register sources); default 0'),
  pollEveryCycle: z.boolean().optional().describe('wake every cycle instead of sleeping when nothing can change (verification only)'),
});

/** Spec of {@link smIssue}. */
export type SmIssueParams = z.infer<typeof smIssueSpec>;

/** Injected resources of {@link smIssue}. */
export interface SmIssueResources {
  /** The run's kernel table: CTAs are created from it on `cta.dispatch`. */
  readonly context: GpuContext;
}

export interface WarpSlot {
  warp: TimingWarp | null;
  ctaSlot: number;
  /** Fetch outstanding for the current iBuffer generation. */
  fetchPending: boolean;
  /** Instructions issued and not yet written back. */
  outstanding: number;
  exited: boolean;
  /** `nanosleep`: the warp does not issue before this time (ps; 0 when it never slept). */
  sleepUntilPs: number;
}

export interface CtaSlot {
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
  /** The run's kernel table (resource). */
  readonly context: GpuContext;
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
  /** Per warp slot: its flags other than UnitBusy, as last computed (see `warpFlags`). */
  readonly baseFlags: Int32Array;
  /** Per warp slot: 1 when `baseFlags` must be recomputed (iBuffer, scoreboard, barrier or CTA changed). */
  readonly flagsDirty: Uint8Array;
  /** Scheduler idle-time states, warp states and stall kinds of the whole SM. */
  readonly sched: SchedStatsCounters;
  /** Each scheduler's warp flags in the last issue cycle (replayed for cycles slept through). */
  readonly lastFlags: Int32Array[];
  readonly lastCount: Int32Array;
  /**
   * Per scheduler: classify idle-time states and stall kinds over the warps its policy offered
   * (`idleStates: considered`, C11) rather than over every live warp.
   */
  readonly considered: boolean[];
  /** Per scheduler (considered only): the offered warps' flags in the last issue cycle, and how many. */
  readonly lastConsidered: Int32Array[];
  readonly lastConsideredCount: Int32Array;
  /** Per warp slot: atomic instructions issued and not yet written back (GPGPU-Sim `m_n_atomic`). */
  readonly atomicsOut: Int32Array;
  /** Sequence numbers of the atomics in flight (to tell their write-backs apart). */
  readonly atomicSeqs: Set<number>;
  /** 000 §3.5.4 / Fig. 3.9-3.10 (C12): sums over active cycles of the ALU and memory instructions in flight, and the cycle classes. */
  readonly load: {
    aluInflightSum: Counter;
    memInflightSum: Counter;
    cyclesIdle: Counter;
    cyclesAluOnly: Counter;
    cyclesMemOnly: Counter;
    cyclesAluMem: Counter;
  };
  /** Some warp was ready or blocked only by a busy unit in this cycle: poll next cycle. */
  mustPoll: boolean;
  /**
   * A CTA may be finished but could not report it (no room in `ctaDone`, or it started with
   * finished warps): the next step scans the CTA slots.
   */
  ctaFinishRetry: boolean;
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

export const NOT_READY = WarpFlag.Completed | WarpFlag.Waiting | WarpFlag.IBufferEmpty | WarpFlag.DepAlu | WarpFlag.DepMem | WarpFlag.UnitBusy;

/** Instructions issued and not yet written back, over every warp slot. */
export function inFlight(s: SmIssueState): number {
  let n = 0;
  for (const ws of s.slots) n += ws.outstanding;
  return n;
}
