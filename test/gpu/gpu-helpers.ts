/**
 * Helpers of the GPU validation tests (test/gpu): run a timing scenario with scenario and config
 * overrides, and read issue spans from a trace ring.
 */
import { loadScenario } from '../../src/scenario/loader.ts';
import { runKernelScenarioTiming, type TimingRunResult } from '../../src/scenario/timing-run.ts';
import { RingSink } from '../../src/trace/sinks.ts';
import { TraceRecorder } from '../../src/trace/recorder.ts';
import type { SpanTraceRecord } from '../../src/trace/records.ts';

/** Result of {@link runTiming}: the run, a stat reader, and the recorded spans (when traced). */
export interface GpuRun {
  readonly r: TimingRunResult;
  /** A statistic's value (throws when it does not exist, so a typo cannot pass silently). */
  stat(name: string): number;
  /** Spans recorded (only with `traceUnits`). */
  readonly spans: SpanTraceRecord[];
}

/**
 * Runs a scenario file in timing mode.
 * @param scenarioOverrides scenario `key=value` overrides (`launches[0].grid=[4,1,1]`)
 * @param configOverrides GPU config overrides (`sm.count=2`)
 * @param traceUnits unit-name globs whose spans are recorded (none when omitted)
 */
export function runTiming(file: string, scenarioOverrides: readonly string[] = [], configOverrides: readonly string[] = [], traceUnits?: readonly string[]): GpuRun {
  const loaded = loadScenario(file, ['mode=timing', ...scenarioOverrides]);
  const ring = new RingSink(1 << 20);
  const r = runKernelScenarioTiming(
    loaded,
    traceUnits === undefined
      ? { configOverrides }
      : { configOverrides, onEngine: (engine) => void new TraceRecorder(engine, [ring], loaded.scenario.name, { units: traceUnits, occupancy: false }) },
  );
  const spans = ring.records().filter((x): x is SpanTraceRecord => x.t === 'span');
  return {
    r,
    spans,
    stat(name: string): number {
      const v = r.engine.stats.value(name);
      if (v === undefined) throw new Error(`no statistic ${name}`);
      return v;
    },
  };
}

/** Core clock period of a run, ps. */
export function corePeriodPs(run: GpuRun): number {
  return 1e12 / (run.r.config.clocks.core * 1e6);
}
