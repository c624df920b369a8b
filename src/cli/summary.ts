/**
 * The short summary of a timing run (issue 12 item 6), printed by `run --summary` (`npm start`):
 * what ran on which GPU, then the headline numbers of src/report/summary-rows.ts in under 25
 * lines, then where the outputs are.
 */
import type { GpuConfig } from '../config/schema.ts';
import { summaryRows, type StatsObject, type SummaryInput } from '../report/summary-rows.ts';

export type { StatsObject, SummaryInput } from '../report/summary-rows.ts';

/**
 * The console summary: a heading, the {@link summaryRows} aligned, and where the outputs are.
 * @param peakDramBytesPerSec the config's peak DRAM bandwidth (bytes/s), if known
 */
export function formatSummary(input: SummaryInput, peakDramBytesPerSec?: number): string {
  const cfg = input.config;
  const lines: string[] = [];
  lines.push(`warpstate: scenario ${input.scenario} (seed ${input.seed}), timing mode`);
  if (cfg !== undefined) lines.push(`GPU:       ${cfg.name}${cfg.description ? ` - ${cfg.description}` : ''}; ${cfg.sm.count} SMs at ${cfg.clocks.core} MHz, ${cfg.policies.warpScheduler.kind} warp scheduler`);
  for (const k of input.kernels) lines.push(`kernel:    ${k}`);
  lines.push('');
  for (const r of summaryRows(input, peakDramBytesPerSec)) lines.push(`${r.label.padEnd(13)}${r.value}`);
  if (input.outputs !== undefined && input.outputs.length > 0) {
    lines.push('');
    for (const o of input.outputs) lines.push(`${o.label.padEnd(13)}${o.path}`);
    lines.push('(all statistics: --stats-all, or the stats file above)');
  }
  return lines.join('\n') + '\n';
}

/** The `run` options the summary hook reads. */
export interface SummaryOptions {
  summary?: boolean;
  report?: string;
  stats?: string;
  trace?: string;
  perfetto?: string;
  series?: string;
}

/**
 * After a timing run of a kernel scenario (`run --summary`, `run --report`): prints the summary
 * and writes the HTML report. The report is written first so the summary can say where it is.
 * @param run the stats file's content (`{ scenario, seed, mode, stop, checks, stats }`)
 * @param launches the scenario's launches (entry, grid, block)
 * @throws InputError when the report file cannot be written
 */
export async function summaryHook(
  opts: SummaryOptions,
  run: { scenario: string; seed: number; mode: string; stop: Record<string, unknown>; checks: readonly { passed: boolean; description: string }[]; stats: StatsObject },
  launches: readonly { entry: string; grid: readonly number[]; block: readonly number[] }[],
  config: GpuConfig,
  wallSeconds: number,
  out: (s: string) => void,
): Promise<void> {
  const { peakDramBandwidthBytesPerSec } = await import('../config/schema.ts');
  const peak = peakDramBandwidthBytesPerSec(config);
  const kernels = launches.map((l) => `${l.entry} (grid ${l.grid.join('x')}, block ${l.block.join('x')})`);
  if (opts.report !== undefined) {
    const [{ runReportHtml }, { writeOutputFile }] = await Promise.all([import('../report/report-html.ts'), import('../trace/sinks.ts')]);
    const html = await runReportHtml({ ...run, checks: [...run.checks] }, { config, peakDramBytesPerSec: peak, kernels, wallSeconds, ...(opts.stats !== undefined ? { source: opts.stats } : {}) });
    writeOutputFile(opts.report, html);
  }
  if (!opts.summary) return;
  const outputs: { label: string; path: string }[] = [];
  if (opts.stats !== undefined) outputs.push({ label: 'statistics', path: `${opts.stats} (all ${Object.keys(run.stats).length} statistics, JSON)` });
  if (opts.trace !== undefined) outputs.push({ label: 'trace', path: `${opts.trace} (message trace, JSON Lines)` });
  if (opts.perfetto !== undefined) outputs.push({ label: 'perfetto', path: `${opts.perfetto} (open in https://ui.perfetto.dev)` });
  if (opts.series !== undefined) outputs.push({ label: 'series', path: `${opts.series} (time series, CSV)` });
  if (opts.report !== undefined) outputs.push({ label: 'report', path: `${opts.report} (HTML, open in a browser)` });
  out(formatSummary({ scenario: run.scenario, seed: run.seed, kernels, config, stats: run.stats, checks: run.checks, wallSeconds, outputs }, peak));
}
