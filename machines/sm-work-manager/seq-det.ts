/**
 * seqDetMachine: Seq-Det, sequential detection of the active-core count (000 §4.4, the paper's
 * implementation of Song et al. [67]; `../specs/cta-kernel-level.md` §5), for one kernel. A child
 * statechart of the SM Work Manager (`GPU.SMWM`, region `coreCount`, active-core policy
 * `seqDet`), the baseline ONAC (`onac.ts`) is compared with. Output: the core status table's
 * active and paused bits (`context.cores`) and the decided count `nOpt`.
 *
 * 000 §4.4: "The number of active cores are reduced sequentially (one per sample) ... We
 * implement the technique in [67] by directly using IPC as an indicator of performance";
 * §4.4.3.4: "it takes one sample at 31 active cores, and switches back to 32". The comparison is
 * ONAC's: the sampled chip IPC against (1 − thresholdPct/100) × IPC_all (spec R15; option
 * `compareTo: 'previous'` compares with the previous sample instead).
 *
 * States: `idle` -kernel.start-> `sampleAll` (ER.all) -> `pausing` (pause core n = nMax−1, the
 * highest index: R13; wait for its acknowledgement) -> `sampling` (the n cores left) -> `judge`:
 * `[meetsThreshold]` one core fewer -> `pausing` (`[lastCore]`: `detected(1)`); else switch back:
 * `detected(n + 1)`. `detected`/`done`/`aborted` as ONAC: surplus cores drain and are gated.
 *
 * Events and emitted requests: as `onac.ts` (`kernel.start`, `sm.sample`, `core.paused`,
 * `core.drained`, `kernel.issueComplete`; `ctrl.sampleStart`, `ctrl.pause`, `ctrl.resume`,
 * `ctrl.gate`).
 */
import { and, assign, enqueueActions, setup } from 'xstate';
import {
  ackPause,
  adoptCoreCount,
  awaitsSample,
  freshCst,
  gateCore,
  ipcThreshold,
  isSurplus,
  meetsThreshold,
  pauseCores,
  pausesAcked,
  recordSample,
  releaseAll,
  requestSampleRound,
  roundComplete,
  roundRecord,
  surplusGated,
  windowIpc,
  type CstRow,
  type EstimationRecord,
  type SeqDetParams,
} from '../../src/model/smwm/active-cores.ts';
import type { ActiveCoreEvent, ControllerRequest } from './controller-events.ts';

/** Input of {@link seqDetMachine}: the chip's core count and the policy parameters (defaults of `seqDetParams`). */
export interface SeqDetInput extends Partial<SeqDetParams> {
  /** Cores (SMs) on the chip: nMax. */
  readonly numSms: number;
}

/** Statechart context (JSON). */
export interface SeqDetContext {
  readonly numSms: number;
  readonly params: SeqDetParams;
  /** CTA slots of the kernel per core (one CTA wave of a core, spec R12). */
  ctasPerSm: number;
  cores: CstRow[];
  /** ER.all: every core sampled (000 §4.4.2.3). */
  all: EstimationRecord | null;
  /** The sample the threshold is computed from (IPC_all, or the previous sample with `compareTo: 'previous'`). */
  reference: EstimationRecord | null;
  /** The last sample (the n active cores). */
  current: EstimationRecord | null;
  /** Active cores being tried (SMs). */
  n: number;
  /** Samples after IPC_all (statistics, spec §5.3 `seqdet.samples`). */
  samples: number;
  /** Decided active-core count, null until detected. */
  nOpt: number | null;
  round: number;
}

/** Events of {@link seqDetMachine} (as ONAC's). */
export type SeqDetEvent = ActiveCoreEvent;

/** The Seq-Det statechart (module-level; each kernel's instance is parametrised by `input`). */
export const seqDetMachine = setup({
  types: {
    context: {} as SeqDetContext,
    input: {} as SeqDetInput,
    events: {} as SeqDetEvent,
    emitted: {} as ControllerRequest,
    output: {} as { nOpt: number | null; samples: number },
  },
  guards: {
    singleCore: ({ context }) => context.numSms <= 1,
    expectedSample: ({ context, event }) => event.type === 'sm.sample' && awaitsSample(context.cores, event.sm) && (event.id === undefined || event.id === context.round),
    allSampled: ({ context }) => roundComplete(context.cores),
    allPausesAcked: ({ context }) => pausesAcked(context.cores),
    /** The n-core sample is within thresholdPct of the reference (R15). */
    meetsThreshold: ({ context }) => context.current !== null && context.reference !== null && meetsThreshold(context.current.ipc, ipcThreshold(context.reference.ipc, context.params.thresholdPct)),
    lastCore: ({ context }) => context.n <= 1,
    surplusCore: ({ context, event }) => event.type === 'core.drained' && isSurplus(context.cores, event.sm),
    allSurplusGated: ({ context }) => surplusGated(context.cores),
  },
  actions: {
    setKernel: assign(({ event }) => (event.type === 'kernel.start' ? { ctasPerSm: event.ctasPerSm } : {})),
    /** `ctrl.sampleStart` to every active, unpaused core (a new round). */
    requestSamples: enqueueActions(({ context, enqueue }) => {
      const { cores, sms } = requestSampleRound(context.cores);
      const round = context.round + 1;
      enqueue.assign({ cores, round });
      const end = { ctas: context.params.sampleWaves * Math.max(1, context.ctasPerSm) };
      for (const sm of sms) enqueue.emit({ type: 'ctrl.sampleStart', sm, id: round, end, start: context.params.sampleStart, periodic: false });
    }),
    recordCoreIpc: assign(({ context, event }) => (event.type === 'sm.sample' ? { cores: recordSample(context.cores, event.sm, windowIpc(event.threadInsts, event.cycles)) } : {})),
    /** ER.all := (nMax, Σ IPC); the first try is nMax − 1 cores. */
    storeAll: assign(({ context }) => {
      const all = roundRecord(context.cores);
      return { all, reference: all, n: context.numSms - 1 };
    }),
    storeCurrent: assign(({ context }) => ({ current: roundRecord(context.cores), samples: context.samples + 1 })),
    /** Pauses core n (the highest active index: R13). */
    pauseNextCore: enqueueActions(({ context, enqueue }) => {
      enqueue.assign({ cores: pauseCores(context.cores, [context.n]) });
      enqueue.emit({ type: 'ctrl.pause', sm: context.n });
    }),
    recordPauseAck: assign(({ context, event }) => (event.type === 'core.paused' ? { cores: ackPause(context.cores, event.sm) } : {})),
    /** One core fewer; with `compareTo: 'previous'` the sample just taken becomes the reference. */
    dropOneCore: assign(({ context }) => ({ n: context.n - 1, reference: context.params.compareTo === 'previous' ? context.current : context.reference })),
    detectOne: assign({ nOpt: 1 }),
    /** The n-core sample missed the threshold: switch back to n + 1 cores. */
    detectSwitchBack: assign(({ context }) => ({ nOpt: context.n + 1 })),
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
  id: 'seqDet',
  context: ({ input }) => ({
    numSms: input.numSms,
    params: { thresholdPct: input.thresholdPct ?? 2, sampleWaves: input.sampleWaves ?? 4, sampleStart: input.sampleStart ?? 'afterInFlight', compareTo: input.compareTo ?? 'all' },
    ctasPerSm: 1,
    cores: freshCst(input.numSms),
    all: null,
    reference: null,
    current: null,
    n: input.numSms,
    samples: 0,
    nOpt: null,
    round: 0,
  }),
  initial: 'idle',
  output: ({ context }) => ({ nOpt: context.nOpt, samples: context.samples }),
  states: {
    idle: {
      on: {
        'kernel.start': [
          { guard: 'singleCore', target: 'detected', actions: ['setKernel', 'detectOne'] },
          { target: 'sampleAll', actions: 'setKernel' },
        ],
      },
    },
    sampleAll: {
      entry: 'requestSamples',
      on: { 'sm.sample': { guard: 'expectedSample', actions: 'recordCoreIpc' }, 'kernel.issueComplete': { target: 'aborted' } },
      always: { guard: 'allSampled', target: 'pausing', actions: 'storeAll' },
    },
    pausing: {
      entry: 'pauseNextCore',
      on: { 'core.paused': { actions: 'recordPauseAck' }, 'kernel.issueComplete': { target: 'aborted' } },
      always: { guard: 'allPausesAcked', target: 'sampling' },
    },
    sampling: {
      entry: 'requestSamples',
      on: { 'sm.sample': { guard: 'expectedSample', actions: 'recordCoreIpc' }, 'kernel.issueComplete': { target: 'aborted' } },
      always: { guard: 'allSampled', target: 'judge', actions: 'storeCurrent' },
    },
    judge: {
      always: [
        { guard: and(['meetsThreshold', 'lastCore']), target: 'detected', actions: 'detectOne' },
        { guard: 'meetsThreshold', target: 'pausing', actions: 'dropOneCore' },
        { target: 'detected', actions: 'detectSwitchBack' },
      ],
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
