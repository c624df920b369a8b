/**
 * Golden statistics (issue 11): every statistic of every library scenario and reference trace,
 * as the model computed them before the hot-path work, so that a speed change can be shown not to
 * change any result. Files: `test/golden/stats/<run>.json`, written by `npx tsx
 * scripts/golden-stats.ts` (only for a stated model change or bug fix, named in its commit).
 *
 * Left out: the engine's own work counters (`engine.events`, `engine.actor_events`,
 * `engine.statechart_events`), which measure how the simulator delivers events, not the hardware.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadScenario } from '../../src/scenario/loader.ts';
import { runKernelScenarioTiming } from '../../src/scenario/timing-run.ts';
import { runAccelSimTrace } from '../../src/scenario/trace-run.ts';
import { runScenario } from '../../src/scenario/run.ts';
import { createUnitRegistry } from '../../machines/index.ts';
import { join } from 'node:path';
import type { StatsJson } from '../../src/stats/registry.ts';

/** Folder of the golden statistics files. */
export const GOLDEN_DIR = 'test/golden/stats';

/** Engine counters that describe delivery work, not hardware behaviour. */
const EXCLUDED = new Set(['engine.events', 'engine.actor_events', 'engine.statechart_events']);

/**
 * The statistics a golden file holds: `stats` without the engine's delivery counters.
 * @param stats a registry's `toJSON()`
 */
export function goldenView(stats: StatsJson): StatsJson {
  const out: StatsJson = {};
  for (const [k, v] of Object.entries(stats)) if (!EXCLUDED.has(k)) out[k] = v;
  return out;
}

/** Path of the golden file of run `name`. */
export function goldenPath(name: string): string {
  return join(GOLDEN_DIR, `${name}.json`);
}

/**
 * Writes the golden file of run `name`: one statistic per line, so that a diff shows which changed.
 * @param name run name (file stem)
 * @param stats a registry's `toJSON()`
 */
export function writeGolden(name: string, stats: StatsJson): void {
  mkdirSync(GOLDEN_DIR, { recursive: true });
  const view = goldenView(stats);
  const lines = Object.entries(view).map(([k, v]) => `  ${JSON.stringify(k)}: ${JSON.stringify(v)}`);
  writeFileSync(goldenPath(name), `{\n${lines.join(',\n')}\n}\n`);
}

/**
 * Reads the golden statistics of run `name`.
 * @throws Error when the file does not exist (run scripts/golden-stats.ts)
 */
export function readGolden(name: string): StatsJson {
  const p = goldenPath(name);
  if (!existsSync(p)) throw new Error(`no golden statistics for '${name}' (${p}); run npx tsx scripts/golden-stats.ts`);
  return JSON.parse(readFileSync(p, 'utf8')) as StatsJson;
}

/**
 * The names of the statistics whose values differ between `actual` and the golden file of
 * `name` (missing or extra names included), at most `limit` of them; empty when all agree.
 */
export function goldenDiff(name: string, actual: StatsJson, limit = 20): string[] {
  const want = readGolden(name);
  const got = goldenView(actual);
  const out: string[] = [];
  for (const k of new Set([...Object.keys(want), ...Object.keys(got)])) {
    const a = JSON.stringify(got[k]);
    const b = JSON.stringify(want[k]);
    if (a !== b) out.push(`${k}: ${a?.slice(0, 80)} (golden ${b?.slice(0, 80)})`);
    if (out.length >= limit) break;
  }
  return out;
}


/** The GTX 1080 config the Accel-Sim reference logs were made with. */
const GTX1080 = 'data/accelsim-traces/gtx1080-config/gpgpusim.config';

/** One golden run: its name and how to compute its statistics. */
export interface GoldenRun {
  readonly name: string;
  readonly run: () => Promise<StatsJson>;
}

/**
 * Every golden run: each library kernel scenario on the timing model (its default GPU), the
 * quickstart, the extension scenarios, the memory network, and each Accel-Sim trace of the
 * reference data on the GTX 1080 config.
 */
export function goldenRuns(): GoldenRun[] {
  const runs: GoldenRun[] = [];
  for (const f of readdirSync('scenarios').filter((x) => /^k-.*\.yaml$/.test(x)).sort()) {
    runs.push({ name: `timing-${f.replace(/\.yaml$/, '')}`, run: async () => runKernelScenarioTiming(loadScenario(`scenarios/${f}`, ['mode=timing'])).engine.stats.toJSON() });
  }
  for (const f of ['quickstart', 'ext-power-gating', 'ext-victim-cache']) {
    runs.push({ name: f, run: async () => runKernelScenarioTiming(loadScenario(`scenarios/${f}.yaml`)).engine.stats.toJSON() });
  }
  runs.push({ name: 'memory-network', run: async () => (await runScenario(loadScenario('scenarios/memory-network.yaml'), { registry: createUnitRegistry() })).engine.stats.toJSON() });
  const traces = [
    ...['vectoradd-100-32', 'matrixmul-32-32'].map((w) => [w, `data/accelsim-traces/${w}`] as const),
    ...readdirSync('data/accelsim-reference/traces').sort().map((w) => [w, `data/accelsim-reference/traces/${w}`] as const),
  ];
  for (const [w, dir] of traces) {
    runs.push({ name: `trace-${w}`, run: async () => runAccelSimTrace(dir, { gpu: { gpgpusimConfig: GTX1080 }, baseDir: '.' }).engine.stats.toJSON() });
  }
  return runs;
}
