/**
 * Every statistic of every golden run equals its golden file (issue 11: speed work must not change
 * results). The library kernels and the Accel-Sim traces are compared where they already run
 * (test/topology/timing-mode.test.ts, test/machines/gpu-memory/accelsim-cycles.test.ts); this file
 * checks the rest, and that the golden set covers every run.
 */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { goldenDiff, goldenPath, goldenRuns } from './golden.ts';

const runs = goldenRuns();

describe('golden statistics', () => {
  it('every golden run has a golden file with hardware statistics in it', () => {
    for (const r of runs) {
      expect(existsSync(goldenPath(r.name)), r.name).toBe(true);
      const json = JSON.parse(readFileSync(goldenPath(r.name), 'utf8')) as Record<string, unknown>;
      expect(json['engine.events'], r.name).toBeUndefined();
      expect(Object.keys(json).length, r.name).toBeGreaterThan(10);
    }
  });

  it.each(runs.filter((r) => !/^(timing|trace)-/.test(r.name)).map((r) => [r.name, r] as const))('%s', async (_name, r) => {
    expect(goldenDiff(r.name, await r.run())).toEqual([]);
  });

  it('a changed statistic is reported by name', async () => {
    const r = runs.find((x) => x.name === 'memory-network')!;
    const stats = await r.run();
    const name = Object.keys(stats).find((k) => typeof stats[k] === 'number' && !k.startsWith('engine.'))!;
    stats[name] = (stats[name] as number) + 1;
    expect(goldenDiff(r.name, stats)).toEqual([expect.stringMatching(new RegExp(`^${name.replace(/[[\]().*]/g, '\\$&')}: `))]);
  });
});
