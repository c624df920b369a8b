/**
 * perfSatMachine: the Perf-Sat CTA-count controller of one SM for one kernel (000 §4.3.2;
 * `../specs/cta-kernel-level.md` §2.2, resolutions §2.9). A child statechart of the SM Work
 * Manager (`GPU.SMWM`, region `ctaLimit`, CTA scheduler `perfSat`); its output is the CTA limit
 * `n` that dispatch applies to this SM (never preempting: spec R1).
 *
 * The paper's state machine (its Fig. 4.4 is missing from the text; reconstructed from the
 * prose as the spec does): four states, weak-increase, strong-increase, weak-decrease and
 * strong-decrease, plus a direction bit (`dir`: phase 2 "direction of throttle" while 0, phase 3
 * "detection of the optimal value" once 1) and a history bit (`hist`: two coherent samples are
 * needed to decide a direction). Around them: `measuringTb` (phase 1, the sample period),
 * `initialSample` (the first sample at ⌈nMax/2⌉), and the final states `done` (optimum found,
 * `n := final`) and `frozen` (the kernel has no CTA left to dispatch: keep `n`, spec R6).
 *
 * Events (inputs; the SM Work Manager sends them):
 * - `cta.firstDone {cycles}`: the first CTA of the kernel on this SM completed, `cycles` after
 *   its dispatch (One_TB_cycles); the sample period becomes `cycles × nMax` and a periodic
 *   sampler is requested (`ctrl.sampleStart`, back-to-back windows: spec R3).
 * - `sm.sample {notReady, pipelineStall}`: one sample window closed (spec §1.3); the stalled
 *   cycle count is their sum (000 §4.3.2.1), compared strictly with the stored one (spec R5).
 * - `kernel.issueComplete`: every CTA of the kernel has been dispatched.
 * Emitted (for the SM Work Manager to send on `ctrl[sm]`): `ctrl.sampleStart`, `ctrl.sampleStop`.
 *
 * Walk-through (000 §4.3.2.2, nMax = 15, Nopt = 12): limits per sample 8, 9, 9, 10, 11, 12, 13,
 * 13, then `done` with 12 (`test/machines/perf-sat.test.ts`). Draw it:
 * `toMermaid(perfSatMachine)` (`src/report/diagram.ts`).
 */
import { and, assign, emit, enqueueActions, not, setup } from 'xstate';
import { conservativeLimit, initialLimit, isBetter, samplePeriod, stalledCycles, type PerfSatParams, type PerfSatSampleCounts } from '../../src/model/smwm/perf-sat.ts';
import type { SampleStartRequest, SampleStopRequest } from './controller-events.ts';

/** Input of {@link perfSatMachine}: the SM, the kernel's nMax on it, the policy parameters. */
export interface PerfSatInput extends Partial<PerfSatParams> {
  /** SM index (for the emitted requests). */
  readonly sm: number;
  /** Most CTAs of the kernel the SM can hold (occupancy, `ctasPerSm`; 000 Table 4.2 "Max"). */
  readonly nMax: number;
  /** Id of the periodic sampler this controller asks for (allocated by the SM Work Manager; default 0). */
  readonly samplerId?: number;
}

/** Statechart context (JSON). Field names follow spec §2.1. */
export interface PerfSatContext {
  readonly sm: number;
  readonly samplerId: number;
  readonly nMax: number;
  readonly toggleLimit: number;
  /** Initial CTA count ⌈nMax/2⌉ (000 §4.3.2.1). */
  readonly n0: number;
  /** Current CTA limit handed to dispatch (CTAs). */
  n: number;
  /** Cycles from the first CTA's dispatch to its completion (core cycles; 0 = not yet). */
  oneCtaCycles: number;
  /** `oneCtaCycles × nMax` (core cycles; 0 = not yet). */
  samplePeriod: number;
  /** Stored stalled-cycle count, the "previous sample" (scheduler-cycles). */
  prev: number;
  /** Direction bit: 0 phase 2 (direction of throttle), 1 phase 3 (detection of the optimum). */
  dir: 0 | 1;
  /** History bit: one coherent sample seen in the current weak state. */
  hist: 0 | 1;
  /** Transitions between the two states of the current phase (reset on entering phase 3). */
  toggles: number;
  /** Detected optimum (CTAs), null until `done`. */
  final: number | null;
  /** Samples received, and the stalled-cycle count of the last one (statistics). */
  samples: number;
  lastStalls: number;
  samplerRunning: boolean;
}

/** Events of {@link perfSatMachine}. */
export type PerfSatEvent =
  | { type: 'cta.firstDone'; cycles: number }
  | ({ type: 'sm.sample' } & PerfSatSampleCounts)
  | { type: 'kernel.issueComplete' };

/** What the machine's final state reports. */
export interface PerfSatOutput {
  /** Detected optimum, or null when frozen before detection. */
  readonly final: number | null;
  /** The limit in force at the end (CTAs). */
  readonly n: number;
  readonly samples: number;
}

const stallsOf = (event: PerfSatEvent): number => (event.type === 'sm.sample' ? stalledCycles(event) : 0);

/** The Perf-Sat statechart (module-level; each SM's instance is parametrised by `input`). */
export const perfSatMachine = setup({
  types: {
    context: {} as PerfSatContext,
    input: {} as PerfSatInput,
    events: {} as PerfSatEvent,
    emitted: {} as SampleStartRequest | SampleStopRequest,
    output: {} as PerfSatOutput,
  },
  guards: {
    /** nMax = 1: nothing to choose. */
    singleCta: ({ context }) => context.nMax <= 1,
    /** The sample's stalled-cycle count is strictly below the stored one (spec R5). */
    better: ({ context, event }) => event.type === 'sm.sample' && isBetter(stallsOf(event), context.prev),
    historySet: ({ context }) => context.hist === 1,
    /** Direction decided: phase 3. */
    directionSet: ({ context }) => context.dir === 1,
    atMax: ({ context }) => context.n >= context.nMax,
    atMin: ({ context }) => context.n <= 1,
    /** The toggle this transition makes would exceed the limit ("more than three times"). */
    toggleLimitReached: ({ context }) => context.toggles + 1 > context.toggleLimit,
  },
  actions: {
    setSamplePeriod: assign(({ context, event }) => {
      if (event.type !== 'cta.firstDone') return {};
      return { oneCtaCycles: event.cycles, samplePeriod: samplePeriod(event.cycles, context.nMax) };
    }),
    startSampler: emit(({ context }): SampleStartRequest => ({ type: 'ctrl.sampleStart', sm: context.sm, id: context.samplerId, end: { cycles: context.samplePeriod }, start: 'now', periodic: true })),
    markSamplerRunning: assign({ samplerRunning: true }),
    /** Cancels the periodic sampler, if one was started. */
    stopSampler: enqueueActions(({ context, enqueue }) => {
      if (context.samplerRunning) enqueue.emit({ type: 'ctrl.sampleStop', sm: context.sm, id: context.samplerId });
    }),
    countSample: assign(({ context, event }) => ({ samples: context.samples + 1, lastStalls: stallsOf(event) })),
    storeSample: assign(({ event }) => ({ prev: stallsOf(event) })),
    increaseLimit: assign(({ context }) => ({ n: context.n + 1 })),
    decreaseLimit: assign(({ context }) => ({ n: context.n - 1 })),
    limitToInitial: assign(({ context }) => ({ n: context.n0 })),
    limitToInitialPlusOne: assign(({ context }) => ({ n: Math.min(context.n0 + 1, context.nMax) })),
    setHistory: assign({ hist: 1 as const }),
    clearHistory: assign({ hist: 0 as const }),
    /** Direction bit set: phase 3 starts, its toggle count from 0. */
    setDirection: assign({ dir: 1 as const, toggles: 0 }),
    countToggle: assign(({ context }) => ({ toggles: context.toggles + 1 })),
    detectSingle: assign({ final: 1 }),
    detectMax: assign(({ context }) => ({ final: context.nMax })),
    detectMin: assign({ final: 1 }),
    detectConservative: assign(({ context }) => ({ final: conservativeLimit(context.n0, context.nMax) })),
    /** Increasing: the optimum is the count of the stored sample, one below the current. */
    detectBelow: assign(({ context }) => ({ final: Math.max(1, context.n - 1) })),
    /** Decreasing: the optimum is the count of the stored sample, one above the current. */
    detectAbove: assign(({ context }) => ({ final: Math.min(context.nMax, context.n + 1) })),
    adoptFinal: assign(({ context }) => ({ n: context.final ?? context.n })),
  },
}).createMachine({
  id: 'perfSat',
  context: ({ input }) => {
    const n0 = initialLimit(input.nMax, input.initial ?? 'half');
    return {
      sm: input.sm,
      samplerId: input.samplerId ?? 0,
      nMax: input.nMax,
      toggleLimit: input.toggleLimit ?? 3,
      n0,
      n: n0,
      oneCtaCycles: 0,
      samplePeriod: 0,
      prev: 0,
      dir: 0,
      hist: 0,
      toggles: 0,
      final: null,
      samples: 0,
      lastStalls: 0,
      samplerRunning: false,
    };
  },
  initial: 'measuringTb',
  on: { 'kernel.issueComplete': { target: '.frozen' } },
  output: ({ context }) => ({ final: context.final, n: context.n, samples: context.samples }),
  states: {
    // Phase 1: sample-rate detection (limit n0 meanwhile).
    measuringTb: {
      always: { guard: 'singleCta', target: 'done', actions: 'detectSingle' },
      on: { 'cta.firstDone': { target: 'initialSample', actions: 'setSamplePeriod' } },
    },
    initialSample: {
      entry: ['startSampler', 'markSamplerRunning'],
      // §4.3.2.2(2): the count at ⌈Nmax/2⌉ is stored, the limit goes to ⌈Nmax/2⌉ + 1.
      on: { 'sm.sample': { target: 'weakIncrease', actions: ['countSample', 'storeSample', 'limitToInitialPlusOne'] } },
    },
    weakIncrease: {
      on: {
        'sm.sample': [
          // Phase 3 (after a strong-increase sample was worse, which was discarded).
          { guard: and(['directionSet', 'better', 'toggleLimitReached']), target: 'done', actions: ['countSample', 'countToggle', 'detectBelow'] },
          { guard: and(['directionSet', 'better']), target: 'strongIncrease', actions: ['countSample', 'countToggle'] },
          { guard: 'directionSet', target: 'done', actions: ['countSample', 'detectBelow'] },
          // Phase 2: two coherent samples decide the direction.
          { guard: and(['better', not('historySet')]), actions: ['countSample', 'setHistory'] },
          { guard: and(['better', 'atMax']), target: 'done', actions: ['countSample', 'detectMax'] },
          { guard: 'better', target: 'strongIncrease', actions: ['countSample', 'setDirection', 'storeSample', 'increaseLimit'] },
          { guard: 'toggleLimitReached', target: 'done', actions: ['countSample', 'countToggle', 'detectConservative'] },
          { target: 'weakDecrease', actions: ['countSample', 'countToggle', 'clearHistory', 'storeSample', 'limitToInitial'] },
        ],
      },
    },
    weakDecrease: {
      on: {
        'sm.sample': [
          { guard: and(['directionSet', 'better', 'toggleLimitReached']), target: 'done', actions: ['countSample', 'countToggle', 'detectAbove'] },
          { guard: and(['directionSet', 'better']), target: 'strongDecrease', actions: ['countSample', 'countToggle'] },
          { guard: 'directionSet', target: 'done', actions: ['countSample', 'detectAbove'] },
          { guard: and(['better', not('historySet')]), actions: ['countSample', 'setHistory'] },
          { guard: and(['better', 'atMin']), target: 'done', actions: ['countSample', 'detectMin'] },
          { guard: 'better', target: 'strongDecrease', actions: ['countSample', 'setDirection', 'storeSample', 'decreaseLimit'] },
          { guard: 'toggleLimitReached', target: 'done', actions: ['countSample', 'countToggle', 'detectConservative'] },
          { target: 'weakIncrease', actions: ['countSample', 'countToggle', 'clearHistory', 'storeSample', 'limitToInitialPlusOne'] },
        ],
      },
    },
    strongIncrease: {
      on: {
        'sm.sample': [
          { guard: and(['better', 'atMax']), target: 'done', actions: ['countSample', 'detectMax'] },
          { guard: 'better', actions: ['countSample', 'storeSample', 'increaseLimit'] },
          // Worse: the sample is discarded, n kept (§4.3.2.2(3)); too many toggles: the stored count.
          { guard: 'toggleLimitReached', target: 'done', actions: ['countSample', 'countToggle', 'detectBelow'] },
          { target: 'weakIncrease', actions: ['countSample', 'countToggle', 'clearHistory'] },
        ],
      },
    },
    strongDecrease: {
      on: {
        'sm.sample': [
          { guard: and(['better', 'atMin']), target: 'done', actions: ['countSample', 'detectMin'] },
          { guard: 'better', actions: ['countSample', 'storeSample', 'decreaseLimit'] },
          { guard: 'toggleLimitReached', target: 'done', actions: ['countSample', 'countToggle', 'detectAbove'] },
          { target: 'weakDecrease', actions: ['countSample', 'countToggle', 'clearHistory'] },
        ],
      },
    },
    done: { type: 'final', entry: ['adoptFinal', 'stopSampler'] },
    frozen: { type: 'final', entry: 'stopSampler' },
  },
});
