/**
 * `npm run fuzz`: the seeded mutation fuzzer of issue 9 item 7 (test/fuzz/), thousands of cases.
 *
 *   tsx scripts/fuzz.ts [--cases 5000] [--seed 1] [--timeout 20] [--memory 1024] [--workers 2]
 *                       [--out /tmp/warpstate-fuzz] [--spawn] [--from 0] [--family ptx]
 *
 * Prints the count per outcome class, writes `<out>/report.json` (seed, cases, counts, and each
 * failure with its mutated files kept under `<out>/case-<id>/` and the exact command), and exits
 * 1 when any case is a stack trace, a hang, a memory blow-up or a bad exit code.
 */
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { generateCase, type FuzzCase } from '../test/fuzz/generate.ts';
import { FAILURES, countOutcomes, runCases, type CaseResult } from '../test/fuzz/runner.ts';

const { values } = parseArgs({
  options: {
    cases: { type: 'string', default: '5000' },
    seed: { type: 'string', default: '1' },
    timeout: { type: 'string', default: '20' },
    memory: { type: 'string', default: '1024' },
    workers: { type: 'string', default: '2' },
    out: { type: 'string', default: '/tmp/warpstate-fuzz' },
    from: { type: 'string', default: '0' },
    family: { type: 'string' },
    spawn: { type: 'boolean', default: false },
  },
});

/** A non-negative integer option, or exit 2 naming it. */
function intOption(name: string, text: string, min: number, max: number): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < min || n > max) {
    process.stderr.write(`error: --${name} must be an integer from ${min} to ${max}, got '${text}'\n`);
    process.exit(2);
  }
  return n;
}

const count = intOption('cases', values.cases, 1, 10_000_000);
const seed = intOption('seed', values.seed, 0, 0xffffffff);
const from = intOption('from', values.from, 0, 10_000_000);
const timeoutS = intOption('timeout', values.timeout, 1, 3600);
const memoryMb = intOption('memory', values.memory, 128, 65536);
const workers = intOption('workers', values.workers, 1, 64);
const out = resolve(values.out);

// Generated one by one as the pool asks (a case can carry megabytes of mutated YAML).
const cases = {
  length: count,
  get: (k: number): FuzzCase | null => {
    const c = generateCase(seed, from + k);
    return values.family === undefined || c.family === values.family ? c : null;
  },
};

const started = Date.now();
let done = 0;
let lastPrint = 0;
const results: CaseResult[] = await runCases(cases, {
  root: out,
  timeoutMs: timeoutS * 1000,
  memoryMb,
  workers,
  mode: values.spawn ? 'spawn' : 'worker',
  onResult: (r) => {
    done++;
    if (FAILURES.includes(r.outcome)) process.stderr.write(`[fuzz] case ${r.id} (${r.family}): ${r.outcome}: ${r.detail}\n  ${r.command}\n`);
    const now = Date.now();
    if (now - lastPrint > 10_000) {
      lastPrint = now;
      process.stderr.write(`[fuzz] ${done}/${count} cases, ${((now - started) / 1000).toFixed(0)} s\n`);
    }
  },
});
const wallS = (Date.now() - started) / 1000;
const counts = countOutcomes(results);
const byFamily: Record<string, Record<string, number>> = {};
for (const r of results) (byFamily[r.family] ??= {})[r.outcome] = (byFamily[r.family]![r.outcome] ?? 0) + 1;
const failures = results.filter((r) => FAILURES.includes(r.outcome));
// The most frequent messages of each class (numbers masked), to read what the cases ran into.
const messages: Record<string, Record<string, number>> = {};
for (const r of results) {
  const key = r.detail.replace(/\/tmp\/\S*/g, '<path>').replace(/\d+/g, 'N').slice(0, 160);
  const m = (messages[r.outcome] ??= {});
  m[key] = (m[key] ?? 0) + 1;
}
const topMessages = Object.fromEntries(
  Object.entries(messages).map(([k, m]) => [k, Object.entries(m).sort((a, b) => b[1] - a[1]).slice(0, 40).map(([msg, n]) => `${n} x ${msg}`)]),
);
const overruled = results.filter((r) => r.workerOutcome !== undefined && !FAILURES.includes(r.outcome));
const report = {
  seed,
  from,
  cases: results.length,
  timeoutS,
  memoryMb,
  workers,
  mode: values.spawn ? 'spawn' : 'worker',
  wallS,
  counts,
  byFamily,
  peakRssMb: Math.max(0, ...results.map((r) => r.peakRssMb)),
  slowest: [...results].sort((a, b) => b.ms - a.ms).slice(0, 10).map((r) => ({ id: r.id, family: r.family, ms: r.ms, outcome: r.outcome, command: r.command })),
  topMessages,
  failures,
  // Every case in one line each: which class, and the first line of its message.
  results: results.map((r) => ({ id: r.id, family: r.family, outcome: r.outcome, code: r.code, ms: r.ms, detail: r.detail.slice(0, 200) })),
  workerOnly: overruled.map((r) => ({ id: r.id, workerOutcome: r.workerOutcome, outcome: r.outcome, command: r.command })),
};
writeFileSync(join(out, 'report.json'), JSON.stringify(report, null, 2) + '\n');
process.stdout.write(`fuzz: ${results.length} cases, seed ${seed}, ${wallS.toFixed(0)} s\n`);
for (const [k, v] of Object.entries(counts)) process.stdout.write(`  ${k.padEnd(14)} ${v}${FAILURES.includes(k as never) ? '  (failure class)' : ''}\n`);
process.stdout.write(`report: ${join(out, 'report.json')}\n`);
process.exitCode = failures.length > 0 ? 1 : 0;
