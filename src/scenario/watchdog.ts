/**
 * The run watchdog of GPU timing runs (kernel scenarios and Accel-Sim traces): runs the engine
 * in windows of `deadlockCycles` core cycles and stops a run that cannot end by itself, with a
 * report naming every waiting unit (issue 9 items 5 and 6):
 * - **deadlock**: a window with no progress (no message delivered, no instruction issued) while
 *   units report pending work, or an event queue that drains with work pending;
 * - **livelock**: `livelockCycles` core cycles in which warps keep issuing but the machine's
 *   architectural state does not move: no memory write (store or atomic, any state space), no
 *   CTA dispatched or completed. A spin loop on a flag no other CTA will set looks like this;
 *   a long loads-only phase (a pointer chase) can too, which is why the window is long
 *   (default 2,000,000 cycles) and can be set to 0 (off). The counters it reads are kept anyway,
 *   so the check costs nothing per cycle;
 * - **runaway**: the cycle cap `maxCycles` (`--max-cycles`) reached.
 * All three throw a {@link SimulationError} whose `details` is the report (written to the
 * statistics file as `stop.report`); `finalize` hooks run first, so the statistics are complete
 * up to the stop.
 */
import type { GpuConfig } from '../config/schema.ts';
import { SimulationError } from '../errors.ts';
import type { Engine, RunResult } from '../sim/engine.ts';
import { RunInterrupted, type InterruptFlag } from './interrupt.ts';

/** How a watched run ended without an error: the workload finished, or the stop time came. */
export type WatchdogStop = 'done' | 'until';

/** The limits a watched run is held to. */
export interface WatchdogLimits {
  /** Core cycles without any progress before a deadlock is declared (scenario `deadlockCycles`). */
  readonly deadlockCycles: number;
  /** Core cycles of issue without architectural progress before a livelock is declared; 0: off. */
  readonly livelockCycles: number;
  /** Core cycle cap (scenario `maxCycles`, `--max-cycles`); Infinity: none. */
  readonly maxCycles: number;
  /** Stop time, ps (`until`, `--until`); Infinity: none. */
  readonly untilPs: number;
  /** Called about every 2^16 events (progress reporting; may throw to stop the run). */
  readonly onProgress?: ((engine: Engine) => void) | undefined;
}

const EVERY = 1 << 16;

/** Anything that changes while the machine does useful work (messages, issued instructions). */
function progress(engine: Engine): number {
  return engine.messagesDelivered.value + (engine.stats.value('gpu_tot_warp_insts') ?? 0);
}

/** Architectural progress: memory written, CTAs dispatched or completed. */
function architecturalProgress(engine: Engine): number {
  const s = engine.stats;
  return (s.value('gpu_tot_mem_writes') ?? 0) + (s.value('gpu_tot_ctas_done') ?? 0) + (s.value('GPU.SMWM.ctas_dispatched') ?? 0);
}

/** The per-window decisions shared by the synchronous and the interruptible loop. */
class Watchdog {
  private readonly windowPs: number;
  private readonly capPs: number;
  private last: number;
  private lastArch: number;
  private lastArchIssued: number;
  private archSincePs: number;
  private readonly livelockPs: number;

  constructor(
    private readonly engine: Engine,
    config: GpuConfig,
    private readonly limits: WatchdogLimits,
  ) {
    const psPerCycle = 1e12 / (config.clocks.core * 1e6);
    this.windowPs = Math.ceil(limits.deadlockCycles * psPerCycle);
    this.livelockPs = limits.livelockCycles > 0 ? Math.ceil(limits.livelockCycles * psPerCycle) : Infinity;
    const runawayPs = Number.isFinite(limits.maxCycles) ? engine.clock('core').timeOfCycle(limits.maxCycles) : Infinity;
    this.capPs = Math.min(runawayPs, limits.untilPs);
    this.last = progress(engine);
    this.lastArch = architecturalProgress(engine);
    this.lastArchIssued = engine.stats.value('gpu_tot_warp_insts') ?? 0;
    this.archSincePs = engine.now;
  }

  /** The end of the next window, ps. */
  nextWindowEnd(): number {
    return Math.min(this.engine.now + this.windowPs, this.capPs);
  }

  /**
   * Judges a window that ended with `r` at `windowEnd`.
   * @returns how the run ended, or null to go on
   * @throws SimulationError for a deadlock, livelock or runaway (with its report)
   */
  afterWindow(r: RunResult, windowEnd: number): WatchdogStop | null {
    const engine = this.engine;
    const pending = engine.pendingWork();
    if (r.reason === 'idle' || r.reason === 'finished') {
      if (pending.length === 0) {
        engine.finalize();
        return 'done';
      }
      throw report(engine, 'deadlock', 'the event queue drained with work pending', pending);
    }
    if (r.reason === 'timeLimit' && windowEnd === this.capPs) {
      engine.finalize();
      if (this.capPs === this.limits.untilPs) return 'until';
      throw report(engine, 'runaway run', `cycle cap of ${this.limits.maxCycles} core cycles reached (maxCycles / --max-cycles)`, pending);
    }
    const now = progress(engine);
    if (now === this.last && pending.length > 0) throw report(engine, 'deadlock', `no progress for ${this.limits.deadlockCycles} core cycles`, pending);
    this.last = now;
    const arch = architecturalProgress(engine);
    const issued = engine.stats.value('gpu_tot_warp_insts') ?? 0;
    if (arch !== this.lastArch) {
      this.lastArch = arch;
      this.lastArchIssued = issued;
      this.archSincePs = engine.now;
    } else if (engine.now - this.archSincePs >= this.livelockPs && issued > this.lastArchIssued && pending.length > 0) {
      engine.finalize();
      const why = `livelock: ${issued - this.lastArchIssued} warp instructions issued in ${this.limits.livelockCycles}+ core cycles with no memory write and no CTA dispatched or completed (a spin on a flag nothing will set?); scenario livelockCycles: 0 turns this check off`;
      throw report(engine, 'livelock', why, pending);
    }
    return null;
  }
}

/**
 * Runs `engine` to the end of its workload under the watchdog.
 * @throws SimulationError for a deadlock, livelock or runaway, with the report in `details`
 */
export function runWithWatchdog(engine: Engine, config: GpuConfig, limits: WatchdogLimits): WatchdogStop {
  const dog = new Watchdog(engine, config, limits);
  const onProgress = limits.onProgress;
  const predicate = onProgress ? (e: Engine) => ((e.events.value & (EVERY - 1)) === 0 && onProgress(e), false) : null;
  for (;;) {
    const end = dog.nextWindowEnd();
    const stop = dog.afterWindow(engine.run(end, predicate), end);
    if (stop !== null) return stop;
  }
}

/**
 * {@link runWithWatchdog}, yielding to the event loop every 2^16 events so a signal handler can
 * set `interrupt`.
 * @throws RunInterrupted when interrupted (after `engine.finalize()`); as {@link runWithWatchdog}
 */
export async function runWithWatchdogAsync(engine: Engine, config: GpuConfig, limits: WatchdogLimits, interrupt: InterruptFlag): Promise<WatchdogStop> {
  const dog = new Watchdog(engine, config, limits);
  const onProgress = limits.onProgress;
  const predicate = (e: Engine) => {
    if ((e.events.value & (EVERY - 1)) !== 0) return false;
    onProgress?.(e);
    return true;
  };
  let end = dog.nextWindowEnd();
  for (;;) {
    const r = engine.run(end, predicate);
    if (r.reason === 'predicate') {
      await new Promise((resolve) => setImmediate(resolve));
      if (interrupt.signal !== null) {
        engine.finalize();
        throw new RunInterrupted(interrupt.signal, engine.now);
      }
      continue;
    }
    const stop = dog.afterWindow(r, end);
    if (stop !== null) return stop;
    end = dog.nextWindowEnd();
  }
}

/**
 * A stop report: every waiting unit (in `details.units`, all of them; on the terminal the first
 * 20 and a count of the rest) and, for a deadlock, the oldest messages still waiting.
 */
function report(engine: Engine, what: 'deadlock' | 'livelock' | 'runaway run', why: string, pending: { unit: string; work: string }[]): SimulationError {
  const oldestWaiting = what === 'deadlock' ? engine.oldestWaitingMessages(8) : [];
  const details = { time_ps: engine.now, reason: why, units: pending, ...(what === 'deadlock' ? { oldestWaiting } : {}) };
  const lines = [
    `${what === 'livelock' ? 'livelock' : what === 'deadlock' ? 'deadlock' : 'runaway run stopped'} at ${engine.now} ps: ${why}`,
    ...pending.slice(0, 20).map((p) => `  ${p.unit}: ${p.work}`),
    ...(pending.length > 20 ? [`  ... and ${pending.length - 20} more units with pending work (every one is in the statistics file, stop.report.units)`] : []),
    ...oldestWaiting.map((m) => `  waiting since ${m.since} ps at ${m.port}: ${m.kind} #${m.id} from ${m.from} (${m.why})`),
  ];
  return new SimulationError(lines.join('\n'), details);
}
