/**
 * onacMachine: ONAC, the Optimal Number of Active Cores detector (000 §4.4.2;
 * `../specs/cta-kernel-level.md` §4), for one kernel. A child statechart of the SM Work Manager
 * (`GPU.SMWM`, region `coreCount`, active-core policy `onac`). Its output is the core status
 * table's active and paused bits (`context.cores`): CTAs go only to cores with the active bit
 * set and the paused bit clear (000 §4.4.2.3); and the decided count `nOpt`.
 *
 * The paper's three states (Init, Est, Opt Det; Fig. 4.13) with Init split into its steps:
 * - `init.sampleAll`: every core samples its IPC; the sum is ER.all (IPC_all, observation 1).
 * - `init.pausing`: cores 1..nMax−1 are paused (highest index first, R13); wait for every
 *   acknowledgement (000 §4.4.2.5: "Once all the required cores have paused, the SWM notifies
 *   the active cores to begin the next sample").
 * - `init.sampleOne`: core 0 alone samples: ER.curEst = (1, IPC_1).
 * - `optDet`: the sample meets IPC_threshold → `detected` (its core count); else `est`.
 * - `est`: the next estimate (`onacEstimate`: the origin line first, then the line through
 *   pre-est and cur-est); pre-est := cur-est; an estimate at nMax is taken without a sample
 *   (IPC_all is known) → `detected(nMax)`; else `unpausing` (cores up to the estimate resume,
 *   ascending) → `sampling` → `optDet`.
 * - `detected`: surplus cores lose the active bit and resume to drain; each is gated when the
 *   SM Work Manager reports it drained (`core.drained`) → `done` once all are gated.
 * - `aborted`: the kernel ran out of CTAs to dispatch before detection: every core resumes.
 *
 * Events (inputs from the SM Work Manager): `kernel.start {ctasPerSm}`, `sm.sample {sm,
 * threadInsts, cycles}` (spec §1.3), `core.paused {sm}` (the SM acknowledged `ctrl.pause`:
 * `ctrl.ack` state `paused`), `core.drained {sm}` (a core without its active bit holds no CTA),
 * `kernel.issueComplete`. Emitted requests: `ctrl.sampleStart` (end after `sampleWaves ×
 * ctasPerSm` CTA completions on the core: spec R12), `ctrl.pause`, `ctrl.resume`, `ctrl.gate`.
 *
 * Resolution beyond the spec: the 1-core sample goes through `optDet` like every other sample,
 * so a kernel whose single core already reaches IPC_threshold gets Nopt = 1 (the spec's
 * `sampleOne → est` would clamp the first estimate to 2); whenever IPC_1 < IPC_threshold the
 * order Init → Est → Opt Det is the paper's.
 */
import { assign, enqueueActions, setup } from 'xstate';
import {
  ackPause,
  adoptCoreCount,
  awaitsSample,
  freshCst,
  gateCore,
  ipcThreshold,
  isSurplus,
  meetsThreshold,
  onacEstimate,
  pauseCores,
  pausesAcked,
  recordSample,
  releaseAll,
  requestSampleRound,
  roundComplete,
  roundRecord,
  surplusGated,
  unpauseBelow,
  windowIpc,
  type CstRow,
  type EstimationRecord,
  type OnacParams,
} from '../../src/model/smwm/active-cores.ts';
import type { ActiveCoreEvent, ControllerRequest } from './controller-events.ts';

/** Input of {@link onacMachine}: the chip's core count and the policy parameters (defaults of `onacParams`). */
export interface OnacInput extends Partial<OnacParams> {
  /** Cores (SMs) on the chip: nMax. */
  readonly numSms: number;
}

/** Statechart context (JSON): the CST columns ONAC adds, the estimation records, the decision. */
export interface OnacContext {
  readonly numSms: number;
  readonly params: OnacParams;
  /** CTA slots of the kernel per core (occupancy): one CTA wave of a core (spec R12). */
  ctasPerSm: number;
  cores: CstRow[];
  /** Estimation records (000 §4.4.2.3): all cores, previous and current estimate. */
  er: { all: EstimationRecord | null; preEst: EstimationRecord | null; curEst: EstimationRecord | null };
  /** IPC_threshold = (1 − thresholdPct/100) × IPC_all. */
  threshold: number;
  /** Last estimate computed by Est (SMs). */
  nEst: number;
  /** Estimates computed (statistics, spec §4.7 `onac.estimates`). */
  estimates: number;
  /** Every sampled record after IPC_all, in order: (1, IPC_1), then one per estimate. */
  history: EstimationRecord[];
  /** Decided active-core count, null until detected. */
  nOpt: number | null;
  /** Sample round (id of the requested windows). */
  round: number;
}

/** Events of {@link onacMachine}. */
export type OnacEvent = ActiveCoreEvent;


/** The ONAC statechart (module-level; each kernel's instance is parametrised by `input`). */
export const onacMachine = setup({
  types: {
    context: {} as OnacContext,
    input: {} as OnacInput,
    events: {} as OnacEvent,
    emitted: {} as ControllerRequest,
    output: {} as { nOpt: number | null; estimates: number },
  },
  guards: {
    singleCore: ({ context }) => context.numSms <= 1,
    /** The sample comes from a core that was asked for one in this round. */
    expectedSample: ({ context, event }) => event.type === 'sm.sample' && awaitsSample(context.cores, event.sm) && (event.id === undefined || event.id === context.round),
    allSampled: ({ context }) => roundComplete(context.cores),
    allPausesAcked: ({ context }) => pausesAcked(context.cores),
    /** ER.curEst meets IPC_threshold (000 §4.4.2.3 Opt Det). */
    currentMeetsThreshold: ({ context }) => context.er.curEst !== null && meetsThreshold(context.er.curEst.ipc, context.threshold),
    /** The estimate is the whole chip: no sample needed. */
    estimateAtMax: ({ context }) => context.nEst >= context.numSms,
    surplusCore: ({ context, event }) => event.type === 'core.drained' && isSurplus(context.cores, event.sm),
    allSurplusGated: ({ context }) => surplusGated(context.cores),
  },
  actions: {
    setKernel: assign(({ event }) => (event.type === 'kernel.start' ? { ctasPerSm: event.ctasPerSm } : {})),
    /** `ctrl.sampleStart` to every active, unpaused core (a new round): 4 own CTA waves (R12). */
    requestSamples: enqueueActions(({ context, enqueue }) => {
      const { cores, sms } = requestSampleRound(context.cores);
      const round = context.round + 1;
      enqueue.assign({ cores, round });
      const end = { ctas: context.params.sampleWaves * Math.max(1, context.ctasPerSm) };
      for (const sm of sms) enqueue.emit({ type: 'ctrl.sampleStart', sm, id: round, end, start: context.params.sampleStart, periodic: false });
    }),
    recordCoreIpc: assign(({ context, event }) => (event.type === 'sm.sample' ? { cores: recordSample(context.cores, event.sm, windowIpc(event.threadInsts, event.cycles)) } : {})),
    /** ER.all := (nMax, Σ IPC); IPC_threshold follows. */
    storeAll: assign(({ context }) => {
      const all = roundRecord(context.cores);
      return { er: { ...context.er, all }, threshold: ipcThreshold(all.ipc, context.params.thresholdPct) };
    }),
    /** ER.curEst := the round just sampled. */
    storeCurrent: assign(({ context }) => {
      const cur = roundRecord(context.cores);
      return { er: { ...context.er, curEst: cur }, history: [...context.history, cur] };
    }),
    /** Pauses cores 1..nMax−1, highest index first (R13): "the pause flag is set for 31 cores". */
    pauseAllButOne: enqueueActions(({ context, enqueue }) => {
      const sms = Array.from({ length: context.numSms - 1 }, (_, i) => context.numSms - 1 - i);
      enqueue.assign({ cores: pauseCores(context.cores, sms) });
      for (const sm of sms) enqueue.emit({ type: 'ctrl.pause', sm });
    }),
    recordPauseAck: assign(({ context, event }) => (event.type === 'core.paused' ? { cores: ackPause(context.cores, event.sm) } : {})),
    /** Est: the next estimate; pre-est := cur-est. */
    estimate: assign(({ context }) => {
      const cur = context.er.curEst!;
      const nEst = onacEstimate(context.er.preEst, cur, context.threshold, context.numSms);
      return { nEst, estimates: context.estimates + 1, er: { ...context.er, preEst: cur } };
    }),
    /** "N_est − 1 cores are un-paused": cores below the estimate resume, ascending. */
    unpauseToEstimate: enqueueActions(({ context, enqueue }) => {
      const { cores, resumed } = unpauseBelow(context.cores, context.nEst);
      enqueue.assign({ cores });
      for (const sm of resumed) enqueue.emit({ type: 'ctrl.resume', sm });
    }),
    detectCurrent: assign(({ context }) => ({ nOpt: context.er.curEst!.cores })),
    detectAll: assign(({ context }) => ({ nOpt: context.numSms })),
    /** Surplus cores lose the active bit and resume to drain; paused cores below Nopt resume. */
    adoptOptimum: enqueueActions(({ context, enqueue }) => {
      const { cores, resumed } = adoptCoreCount(context.cores, context.nOpt ?? context.numSms);
      enqueue.assign({ cores });
      for (const sm of resumed) enqueue.emit({ type: 'ctrl.resume', sm });
    }),
    gateDrainedCore: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'core.drained') return;
      enqueue.assign({ cores: gateCore(context.cores, event.sm) });
      enqueue.emit({ type: 'ctrl.gate', sm: event.sm });
    }),
    releaseCores: enqueueActions(({ context, enqueue }) => {
      const { cores, resumed } = releaseAll(context.cores);
      enqueue.assign({ cores });
      for (const sm of resumed) enqueue.emit({ type: 'ctrl.resume', sm });
    }),
  },
}).createMachine({
  id: 'onac',
  context: ({ input }) => ({
    numSms: input.numSms,
    params: { thresholdPct: input.thresholdPct ?? 2, sampleWaves: input.sampleWaves ?? 4, sampleStart: input.sampleStart ?? 'afterInFlight' },
    ctasPerSm: 1,
    cores: freshCst(input.numSms),
    er: { all: null, preEst: null, curEst: null },
    threshold: 0,
    nEst: 0,
    estimates: 0,
    history: [],
    nOpt: null,
    round: 0,
  }),
  initial: 'idle',
  output: ({ context }) => ({ nOpt: context.nOpt, estimates: context.estimates }),
  states: {
    idle: {
      on: {
        'kernel.start': [
          { guard: 'singleCore', target: 'detected', actions: ['setKernel', 'detectAll'] },
          { target: 'init', actions: 'setKernel' },
        ],
      },
    },
    init: {
      initial: 'sampleAll',
      on: { 'kernel.issueComplete': { target: 'aborted' } },
      states: {
        sampleAll: {
          entry: 'requestSamples',
          on: { 'sm.sample': { guard: 'expectedSample', actions: 'recordCoreIpc' } },
          always: { guard: 'allSampled', target: 'pausing', actions: 'storeAll' },
        },
        pausing: {
          entry: 'pauseAllButOne',
          on: { 'core.paused': { actions: 'recordPauseAck' } },
          always: { guard: 'allPausesAcked', target: 'sampleOne' },
        },
        sampleOne: {
          entry: 'requestSamples',
          on: { 'sm.sample': { guard: 'expectedSample', actions: 'recordCoreIpc' } },
          always: { guard: 'allSampled', target: '#onac.optDet', actions: 'storeCurrent' },
        },
      },
    },
    est: {
      entry: 'estimate',
      always: [{ guard: 'estimateAtMax', target: 'detected', actions: 'detectAll' }, { target: 'unpausing' }],
    },
    unpausing: {
      entry: 'unpauseToEstimate',
      always: { target: 'sampling' },
    },
    sampling: {
      entry: 'requestSamples',
      on: {
        'sm.sample': { guard: 'expectedSample', actions: 'recordCoreIpc' },
        'kernel.issueComplete': { target: 'aborted' },
      },
      always: { guard: 'allSampled', target: 'optDet', actions: 'storeCurrent' },
    },
    optDet: {
      always: [{ guard: 'currentMeetsThreshold', target: 'detected', actions: 'detectCurrent' }, { target: 'est' }],
    },
    detected: {
      entry: 'adoptOptimum',
      on: { 'core.drained': { guard: 'surplusCore', actions: 'gateDrainedCore' } },
      always: { guard: 'allSurplusGated', target: 'done' },
    },
    done: { type: 'final' },
    aborted: { type: 'final', entry: 'releaseCores' },
  },
});
