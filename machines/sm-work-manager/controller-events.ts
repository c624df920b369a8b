/**
 * Requests the SM Work Manager's controllers (Perf-Sat, DYNCTA, ONAC, Seq-Det: `perf-sat.ts`,
 * `dyncta.ts`, `onac.ts`, `seq-det.ts` beside this file) emit for the SM Work Manager to carry
 * out (`../specs/cta-kernel-level.md` §1.2). Each is an XState emitted event (`emit`) whose
 * `type` is the message kind the SM Work Manager sends on `ctrl[sm]`; the controllers never
 * hold a port, so they run alone in tests on synthetic samples.
 */

/** End of a sample window (spec §1.3): after a number of core cycles, or of CTA completions on the SM. */
export type SampleEnd = { readonly cycles: number } | { readonly ctas: number };

/**
 * `ctrl.sampleStart` (spec §1.2): open a sample window on SM `sm`. `id` comes back in the
 * `sm.sample` that closes it; `periodic` samplers restart at the end cycle (back-to-back
 * windows, spec R3) until a `ctrl.sampleStop`. `start: 'afterInFlight'`: the window opens when
 * every instruction issued before the request has written back (000 §4.4.2.4; spec R2).
 */
export interface SampleStartRequest {
  readonly type: 'ctrl.sampleStart';
  readonly sm: number;
  readonly id: number;
  readonly end: SampleEnd;
  readonly start: 'now' | 'afterInFlight';
  readonly periodic: boolean;
}

/** `ctrl.sampleStop` (spec §1.2): cancel the periodic sampler `id` of SM `sm`. */
export interface SampleStopRequest {
  readonly type: 'ctrl.sampleStop';
  readonly sm: number;
  readonly id: number;
}

/**
 * A lifecycle command for SM `sm` (spec §1.2, `src/protocol/gpu.ts` `CTRL_KINDS`):
 * `ctrl.pause` (stop issuing; the SM acknowledges `paused` once its in-flight instructions have
 * written back), `ctrl.resume` (issue again; also "drain": the SM Work Manager stops
 * dispatching to a core whose active bit is cleared), `ctrl.gate` (power-gate an SM that holds
 * no CTA).
 */
export interface CoreCommand {
  readonly type: 'ctrl.pause' | 'ctrl.resume' | 'ctrl.gate';
  readonly sm: number;
}

/** Every request a controller emits. */
export type ControllerRequest = SampleStartRequest | SampleStopRequest | CoreCommand;

/**
 * Input events of the active-core controllers (ONAC and Seq-Det, 000 §4.4): the kernel's start
 * with its CTAs per SM, a core's sample window (thread instructions over cycles; `id` names the
 * round it answers), a core's pause acknowledgement, a paused core drained of CTAs, and the end of
 * the kernel's CTA issue.
 */
export type ActiveCoreEvent =
  | { type: 'kernel.start'; ctasPerSm: number }
  | { type: 'sm.sample'; sm: number; threadInsts: number; cycles: number; id?: number }
  | { type: 'core.paused'; sm: number }
  | { type: 'core.drained'; sm: number }
  | { type: 'kernel.issueComplete' };
