/**
 * dynctaMachine: the DYNCTA CTA-count controller of one SM for one kernel (Kayiran et al., PACT
 * 2013, as 000 §4.3.4.2, §4.4.5.1 and 004 §4.3, §5 describe it; `../specs/cta-kernel-level.md`
 * §3): the baseline Perf-Sat is compared with. A child statechart of the SM Work Manager
 * (`GPU.SMWM`, region `ctaLimit`, CTA scheduler `dyncta`); its output is the CTA limit `n`
 * dispatch applies to this SM (decreases never preempt: spec R1).
 *
 * States: `modulating` (a periodic sampler of `samplingCycles` runs; every `sm.sample` applies
 * the rule table of `src/model/smwm/dyncta.ts`, first match wins: `[idleHigh]` grow, `[memLow]`
 * grow, `[memHigh]` shrink, else keep) and the final `frozen` (the kernel has no CTA left to
 * dispatch: keep `n`, stop sampling; spec R6).
 *
 * Events: `sm.sample {cIdle, cMem}` (spec §1.3, R9), `kernel.issueComplete`. Emitted:
 * `ctrl.sampleStart` on start, `ctrl.sampleStop` when frozen. Draw it:
 * `toMermaid(dynctaMachine)` (`src/report/diagram.ts`).
 */
import { assign, emit, setup } from 'xstate';
import { dynctaInitial, dynctaNext, dynctaRule, type DynctaParams, type DynctaRule, type DynctaSample } from '../../src/model/smwm/dyncta.ts';
import type { SampleStartRequest, SampleStopRequest } from './controller-events.ts';

/** Input of {@link dynctaMachine}: the SM, the kernel's nMax on it, the policy parameters (defaults of `dynctaParams`). */
export interface DynctaInput extends Partial<DynctaParams> {
  readonly sm: number;
  /** Most CTAs of the kernel the SM can hold (occupancy, `ctasPerSm`). */
  readonly nMax: number;
  /** Id of the periodic sampler (allocated by the SM Work Manager; default 0). */
  readonly samplerId?: number;
}

/** Statechart context (JSON). */
export interface DynctaContext {
  readonly sm: number;
  readonly samplerId: number;
  readonly nMax: number;
  readonly params: Pick<DynctaParams, 'samplingCycles' | 'tIdle' | 'tMemLow' | 'tMemHigh'>;
  /** Current CTA limit handed to dispatch (CTAs). */
  n: number;
  /** Statistics (spec §3.7): samples, limit changes up and down, the last rule applied. */
  samples: number;
  increments: number;
  decrements: number;
  lastRule: DynctaRule | null;
}

/** Events of {@link dynctaMachine}. */
export type DynctaEvent = ({ type: 'sm.sample' } & DynctaSample) | { type: 'kernel.issueComplete' };

const ruleIs = (rule: DynctaRule) => ({ context, event }: { context: DynctaContext; event: DynctaEvent }) => event.type === 'sm.sample' && dynctaRule(event, context.params) === rule;

/** Applies the rule of the sample to the context (limit and statistics). */
function apply(context: DynctaContext, event: DynctaEvent): Partial<DynctaContext> {
  if (event.type !== 'sm.sample') return {};
  const rule = dynctaRule(event, context.params);
  const n = dynctaNext(context.n, context.nMax, rule);
  return {
    n,
    samples: context.samples + 1,
    increments: context.increments + (n > context.n ? 1 : 0),
    decrements: context.decrements + (n < context.n ? 1 : 0),
    lastRule: rule,
  };
}

/** The DYNCTA statechart (module-level; each SM's instance is parametrised by `input`). */
export const dynctaMachine = setup({
  types: {
    context: {} as DynctaContext,
    input: {} as DynctaInput,
    events: {} as DynctaEvent,
    emitted: {} as SampleStartRequest | SampleStopRequest,
  },
  guards: {
    /** C_idle ≥ t_idle: cores idle, more CTAs (000 §4.3.4.2). */
    idleHigh: ruleIs('idleHigh'),
    /** C_mem < t_mem_l: little memory waiting, more CTAs. */
    memLow: ruleIs('memLow'),
    /** C_mem > t_mem_h: memory contention, fewer CTAs. */
    memHigh: ruleIs('memHigh'),
  },
  actions: {
    startSampler: emit(({ context }): SampleStartRequest => ({ type: 'ctrl.sampleStart', sm: context.sm, id: context.samplerId, end: { cycles: context.params.samplingCycles }, start: 'now', periodic: true })),
    stopSampler: emit(({ context }): SampleStopRequest => ({ type: 'ctrl.sampleStop', sm: context.sm, id: context.samplerId })),
    increaseLimit: assign(({ context, event }) => apply(context, event)),
    decreaseLimit: assign(({ context, event }) => apply(context, event)),
    keepLimit: assign(({ context, event }) => apply(context, event)),
  },
}).createMachine({
  id: 'dyncta',
  context: ({ input }) => ({
    sm: input.sm,
    samplerId: input.samplerId ?? 0,
    nMax: input.nMax,
    params: { samplingCycles: input.samplingCycles ?? 2048, tIdle: input.tIdle ?? 16, tMemLow: input.tMemLow ?? 128, tMemHigh: input.tMemHigh ?? 384 },
    n: dynctaInitial(input.nMax, input.initial ?? 'half'),
    samples: 0,
    increments: 0,
    decrements: 0,
    lastRule: null,
  }),
  initial: 'modulating',
  states: {
    modulating: {
      entry: 'startSampler',
      on: {
        'sm.sample': [
          { guard: 'idleHigh', actions: 'increaseLimit' },
          { guard: 'memLow', actions: 'increaseLimit' },
          { guard: 'memHigh', actions: 'decreaseLimit' },
          { actions: 'keepLimit' },
        ],
        'kernel.issueComplete': { target: 'frozen' },
      },
    },
    frozen: { type: 'final', entry: 'stopSampler' },
  },
});
