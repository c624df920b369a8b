/**
 * `npm run bench:perfetto`: speed and memory of the JSONL -> Perfetto (Chrome Trace Event JSON)
 * export on a long trace (issue 9 item 8). Prints JSON: input MB, seconds, MB/s of JSONL input,
 * peak RSS and heap. Not in `npm run bench` (a 300 MB trace takes ~10 s to make and ~4 s to export).
 *
 * The trace is the default network scenario (scenarios/memory-network.yaml) with more requests
 * per generator, sized to `--mb` (default 300; ~2 KB of trace per request), written to a
 * temporary directory that is removed afterwards; `--trace <file.jsonl>` measures a given trace
 * instead. Each export runs in a child process (same Node flags), so its peak RSS (the kernel's
 * `maxRSS`) is the export's alone: Node and the loaded modules included, the simulation not.
 * `--repeat N` (default 1) exports N times and reports each run and the fastest.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { createUnitRegistry } from '../machines/index.ts';
import { loadScenario } from '../src/scenario/loader.ts';
import { runScenario } from '../src/scenario/run.ts';
import { exportPerfettoFile } from '../src/trace/perfetto.ts';

const args = process.argv.slice(2);
const opt = (name: string): string | undefined => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);

/** One export, in this process: wall seconds and sampled/kernel memory peaks (MB). */
async function child(input: string, output: string): Promise<void> {
  const rssBeforeMB = process.memoryUsage().rss / 1e6;
  let heapPeak = 0;
  let rssPeak = 0;
  const sample = () => {
    const m = process.memoryUsage();
    heapPeak = Math.max(heapPeak, m.heapUsed);
    rssPeak = Math.max(rssPeak, m.rss);
  };
  // Reads are awaited, so the timer runs between chunks.
  const timer = setInterval(sample, 20);
  const t0 = performance.now();
  const events = await exportPerfettoFile(input, output);
  const seconds = (performance.now() - t0) / 1000;
  clearInterval(timer);
  sample();
  const inputMB = statSync(input).size / 1e6;
  console.log(
    JSON.stringify({
      events,
      inputMB: round(inputMB, 1),
      outputMB: round(statSync(output).size / 1e6, 1),
      seconds: round(seconds, 2),
      mbPerSec: round(inputMB / seconds, 1),
      rssBeforeExportMB: round(rssBeforeMB, 0),
      peakRssMB: round((process.resourceUsage().maxRSS * 1024) / 1e6, 0),
      sampledPeakRssMB: round(rssPeak / 1e6, 0),
      sampledPeakHeapMB: round(heapPeak / 1e6, 0),
    }),
  );
}

function round(x: number, digits: number): number {
  return Number(x.toFixed(digits));
}

async function main(): Promise<void> {
  if (args[0] === '--child') return child(args[1]!, args[2]!);
  const repeat = Number(opt('--repeat') ?? 1) || 1;
  const dir = mkdtempSync(join(tmpdir(), 'warpstate-bench-perfetto-'));
  try {
    let trace = opt('--trace');
    let makeSeconds: number | undefined;
    if (trace === undefined) {
      const mb = Number(opt('--mb') ?? 300);
      // 16 generators; ~2 KB of JSONL per request (4 messages, spans, occupancy counters).
      const requests = Math.max(100, Math.round((mb * 1e6) / 2048 / 16));
      trace = join(dir, 'trace.jsonl');
      const t0 = performance.now();
      const loaded = loadScenario('scenarios/memory-network.yaml', [`units.GEN.params.requests=${requests}`]);
      await runScenario(loaded, { registry: createUnitRegistry(), tracePath: trace });
      makeSeconds = round((performance.now() - t0) / 1000, 1);
    }
    const runs: unknown[] = [];
    for (let i = 0; i < repeat; i++) {
      const r = spawnSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), '--child', trace, join(dir, 'out.json')], { encoding: 'utf8', maxBuffer: 1 << 20 });
      if (r.status !== 0) throw new Error(`export failed: ${r.stderr}`);
      runs.push(JSON.parse(r.stdout.trim().split('\n').at(-1)!));
    }
    const best = [...runs].sort((a, b) => (a as { seconds: number }).seconds - (b as { seconds: number }).seconds)[0];
    console.log(JSON.stringify({ benchmark: 'warpstate Perfetto export', node: process.version, trace: opt('--trace') ?? `memory-network (made in ${makeSeconds} s)`, best, runs }, null, 2));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
