/**
 * Stopping a run from outside (issue 9 item 4): a signal handler sets an {@link InterruptFlag};
 * the run loop yields to the event loop every 2^16 events, sees the flag, stops at the current
 * event and throws {@link RunInterrupted}, after which the caller writes partial results.
 */
import type { Engine, RunResult } from '../sim/engine.ts';

/** A request to stop a run, set from a signal handler (`SIGINT`, `SIGTERM`). */
export interface InterruptFlag {
  /** The signal that asked the run to stop, or null. */
  signal: string | null;
}

/** A run stopped by a signal: statistics are partial, the simulated time is `timePs`. */
export class RunInterrupted extends Error {
  /**
   * @param signal the signal name (`SIGINT`, `SIGTERM`)
   * @param timePs simulated time the run stopped at, ps
   */
  constructor(
    readonly signal: string,
    readonly timePs: number,
  ) {
    super(`interrupted by ${signal} at ${timePs} ps`);
    this.name = 'RunInterrupted';
  }
}

/** Events between two looks at the interrupt flag (and progress callbacks). */
export const INTERRUPT_CHECK_EVENTS = 1 << 16;

/** The process exit code of a run stopped by `signal`: 128 + the signal number (130, 143). */
export function signalExitCode(signal: string): number {
  return signal === 'SIGINT' ? 130 : 143;
}

/**
 * `engine.run(limit)` in slices of {@link INTERRUPT_CHECK_EVENTS} events, yielding to the event
 * loop between slices so a signal handler can run; calls `onProgress` once per slice.
 * @param limit stop time, ps (Infinity: until the queue drains)
 * @throws RunInterrupted when `interrupt` is set (after `engine.finalize()`); whatever a unit or
 *   `onProgress` throws
 */
export async function runInterruptible(engine: Engine, limit: number, interrupt: InterruptFlag | undefined, onProgress?: (engine: Engine) => void): Promise<RunResult> {
  for (;;) {
    const r = engine.run(limit, (e) => (e.events.value & (INTERRUPT_CHECK_EVENTS - 1)) === 0);
    if (r.reason !== 'predicate') return r;
    onProgress?.(engine);
    if (interrupt !== undefined) {
      await new Promise((resolve) => setImmediate(resolve));
      if (interrupt.signal !== null) {
        engine.finalize();
        throw new RunInterrupted(interrupt.signal, engine.now);
      }
    }
  }
}

/**
 * Runs `body` with `SIGINT`/`SIGTERM` handlers that set the flag it is given: the first signal
 * asks the run to stop and write partial results, a second exits at once (128 + signal).
 * The handlers are removed when `body` settles.
 * @param say where the "stopping" notice goes (stderr)
 */
export async function withInterrupts<T>(say: (s: string) => void, body: (interrupt: InterruptFlag) => Promise<T>): Promise<T> {
  const interrupt: InterruptFlag = { signal: null };
  const onSignal = (signal: NodeJS.Signals) => {
    if (interrupt.signal !== null) process.exit(signalExitCode(signal));
    interrupt.signal = signal;
    say(`[warpstate] ${signal}: stopping at the current event and writing partial results (again to exit at once)\n`);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    return await body(interrupt);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
