/**
 * dutyCycleController: a control statechart that pauses and resumes the units on its `ctrl[i]`
 * ports on a fixed schedule, for a given number of periods, then stops.
 *
 * It is the small example of DESIGN.md §3's rule that control logic is a statechart
 * (`setup(...).createMachine(...)` with named actions and guards): it changes state only a few
 * times per run, so its ~10 us per statechart event does not matter. Its `after` delays are
 * counted in cycles of its clock, through the engine's clock adapter over the global queue.
 *
 * States: `running` --(after runCycles)--> `paused` --(after pauseCycles)--> `running` ...;
 * after `periods` pauses it goes to the final state `done`, leaving the targets running.
 */
import { assign, setup } from 'xstate';
import { z } from 'zod';
import { defineUnit, type UnitIo } from '../../src/sim/unit.ts';
import { CtrlKind } from '../../src/protocol/mem.ts';

/** Parameters of {@link dutyCycleController}. */
export const dutyCycleControllerParams = z
  .object({
    targets: z.number().int().min(1).describe('number of controlled units (ports ctrl[0..targets-1])'),
    runCycles: z.number().int().min(1).default(200).describe('cycles running before each pause'),
    pauseCycles: z.number().int().min(1).default(100).describe('cycles each pause lasts'),
    periods: z.number().int().min(0).default(2).describe('number of pauses before stopping'),
  })
  .strict();

/** Validated parameters. */
export type DutyCycleControllerParams = z.infer<typeof dutyCycleControllerParams>;

/** Statechart context. */
interface ControllerContext {
  readonly io: UnitIo;
  readonly params: DutyCycleControllerParams;
  pausesDone: number;
}

function broadcast(io: UnitIo, targets: number, kind: string): void {
  for (let i = 0; i < targets; i++) {
    const port = io.out(`ctrl[${i}]`);
    if (port.isBound && port.send(kind, null) === null) {
      throw new Error(`${port.fullName} is full; control ports must have room (capacity >= 1 per period)`);
    }
  }
}

/** Builds the controller statechart for given parameters. */
export function dutyCycleMachine(params: DutyCycleControllerParams) {
  return setup({
    types: {
      context: {} as ControllerContext,
      input: {} as UnitIo,
    },
    actions: {
      broadcastPause: ({ context }) => broadcast(context.io, context.params.targets, CtrlKind.pause),
      broadcastResume: ({ context }) => broadcast(context.io, context.params.targets, CtrlKind.resume),
      countPause: assign({ pausesDone: ({ context }) => context.pausesDone + 1 }),
    },
    guards: {
      periodsLeft: ({ context }) => context.pausesDone < context.params.periods,
    },
    delays: {
      runCycles: () => params.runCycles,
      pauseCycles: () => params.pauseCycles,
    },
  }).createMachine({
    id: 'dutyCycleController',
    context: ({ input }) => ({ io: input, params, pausesDone: 0 }),
    initial: 'running',
    states: {
      running: {
        after: {
          runCycles: [{ guard: 'periodsLeft', target: 'paused' }, { target: 'done' }],
        },
      },
      paused: {
        entry: ['broadcastPause', 'countPause'],
        exit: 'broadcastResume',
        after: { pauseCycles: 'running' },
      },
      done: { type: 'final' },
    },
  });
}

/** The unit kind `dutyCycleController`. */
export const dutyCycleController = defineUnit<DutyCycleControllerParams>({
  kind: 'dutyCycleController',
  description: 'Control statechart: sends ctrl.pause / ctrl.resume to its targets on a fixed duty cycle for a number of periods.',
  source: 'example control unit (DESIGN.md §3: control logic is a statechart)',
  spec: dutyCycleControllerParams,
  delivery: 'perMessage',
  ports: [{ name: 'ctrl', direction: 'out', description: 'pause/resume commands to target i', messageKinds: [CtrlKind.pause, CtrlKind.resume], countParam: 'targets', capacity: 2 }],
  stats: [],
  logic: (params) => dutyCycleMachine(params),
});
