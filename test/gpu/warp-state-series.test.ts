/**
 * Warp states over time (000 §5.3, Figs. 5.x): ISSUE samples the warp-cycles spent in each warp
 * state per sampling interval (`warp_cycles_<state>`), so the papers' stacked-area figures can
 * be drawn. The series must agree with the run's totals (`warp_state_<state>`), and an ISSUE
 * that sleeps must give the same series as one polled every cycle (it accounts the cycles it
 * slept through before a sample).
 */
import { describe, expect, it } from 'vitest';
import { WARP_STATE_NAME } from '../../src/model/sm/sched-stats.ts';
import { loadScenario } from '../../src/scenario/loader.ts';
import { runKernelScenarioTiming } from '../../src/scenario/timing-run.ts';

type Series = { times: number[]; values: number[]; samplesPerPoint: number; samples: number };

function run(poll: boolean) {
  const r = runKernelScenarioTiming(loadScenario('scenarios/k-matmul-tiled.yaml', ['mode=timing', 'sampleInterval=200ns']), { pollEveryCycle: poll });
  return r.engine.stats.toJSON() as Record<string, unknown>;
}

describe('warp-state time series', () => {
  it('per SM, the sampled warp-cycles add up to the totals up to the last sample; sleeping equals polling', () => {
    const sleeping = run(false);
    const polling = run(true);
    for (let sm = 0; sm < 15; sm++) {
      const p = `GPU.SM[${sm}].ISSUE.`;
      const series = WARP_STATE_NAME.map((n) => sleeping[`${p}warp_cycles_${n}`] as Series);
      expect(series.every((s) => s.samplesPerPoint === 1)).toBe(true);
      const sampled = series.reduce((a, s) => a + s.values.reduce((b, v) => b + v, 0), 0);
      const total = WARP_STATE_NAME.reduce((a, n) => a + (sleeping[`${p}warp_state_${n}`] as number), 0);
      // The samples cover the run up to the last sampling instant; the totals, the whole run:
      // the rest is at most 48 warps (gtx480) times the cycles after that instant.
      const lastPs = series[0]!.times[series[0]!.times.length - 1] ?? 0;
      const endPs = sleeping['engine.sim_time_ps'] as number;
      const cyclesAfter = Math.ceil(((endPs - lastPs) * 700e6) / 1e12) + 1;
      expect(sampled).toBeLessThanOrEqual(total);
      expect(total - sampled).toBeLessThanOrEqual(48 * cyclesAfter);
      for (const n of WARP_STATE_NAME) expect(sleeping[`${p}warp_cycles_${n}`], `${p}warp_cycles_${n}`).toEqual(polling[`${p}warp_cycles_${n}`]);
    }
    // Some SM had warps waiting on memory in some interval: the series is not all zeros.
    expect((sleeping['GPU.SM[0].ISSUE.warp_cycles_memScoreboard'] as Series).values.some((v) => v > 0)).toBe(true);
  });
});
