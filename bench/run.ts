/**
 * `npm run bench`: the CPU-time benchmark of issue 11 item 3 (sections in bench/bench.ts).
 * Prints the JSON report on stdout (or writes it to `--out`) and a short table on stderr,
 * with progress lines while it runs. Numbers are never asserted in tests.
 *
 * Usage: `npm run bench -- [options]`
 * - `--repeat N`   measured runs per figure, medians reported (default 3; 1 with --quick)
 * - `--quick`      smallest size of each kernel, one repeat: under a minute (CI, tests)
 * - `--full`       also matmul 512 (issue 11's target size; minutes per run), stream 8192 CTAs,
 *                  and every library kernel as committed (`library`)
 * - `--only <s>`   sections, comma-separated: kernels, tracing, smScaling, startup, accelSim,
 *                  engine, library
 * - `--out <file>` write the JSON there instead of stdout
 * - `--csv <file>` also write the measured rows as CSV
 * - `--no-warmup`  skip the warm-up runs
 * - `--rusage time|hook`  how CLI runs are measured: /usr/bin/time (default when installed) or
 *                  process.resourceUsage() in the CLI process (bench/rusage-hook.mjs)
 * - `--no-gpu`     (kept from the old benchmark) the engine section only
 */
import { writeFileSync } from 'node:fs';
import { formatTable, runBenchmark, SECTION_NAMES, toCsv, type SectionName } from './bench.ts';

const args = process.argv.slice(2);

/** The value after `flag`, or undefined. */
function value(flag: string): string | undefined {
  const i = args.indexOf(flag);
  if (i < 0) return undefined;
  const v = args[i + 1];
  if (v === undefined || v.startsWith('--')) fail(`${flag} needs a value`);
  return v;
}

function fail(message: string): never {
  process.stderr.write(`bench: ${message}\n`);
  process.exit(2);
}

const known = new Set(['--repeat', '--quick', '--full', '--only', '--out', '--csv', '--no-warmup', '--rusage', '--no-gpu']);
for (const a of args) if (a.startsWith('--') && !known.has(a)) fail(`unknown option ${a}`);

const repeatText = value('--repeat');
const repeat = repeatText === undefined ? undefined : Number(repeatText);
if (repeat !== undefined && !(Number.isInteger(repeat) && repeat >= 1)) fail(`--repeat must be a positive integer, got '${repeatText}'`);
const onlyText = value('--only') ?? (args.includes('--no-gpu') ? 'engine' : undefined);
const only = onlyText?.split(',').map((s) => s.trim());
for (const s of only ?? []) if (!(SECTION_NAMES as readonly string[]).includes(s)) fail(`unknown section '${s}' (sections: ${SECTION_NAMES.join(', ')})`);
const rusageText = value('--rusage');
if (rusageText !== undefined && rusageText !== 'time' && rusageText !== 'hook') fail(`--rusage must be time or hook, got '${rusageText}'`);
const outFile = value('--out');
const csvFile = value('--csv');

const report = await runBenchmark({
  ...(repeat !== undefined ? { repeat } : {}),
  quick: args.includes('--quick'),
  full: args.includes('--full'),
  ...(only !== undefined ? { only: only as SectionName[] } : {}),
  warmup: !args.includes('--no-warmup'),
  ...(rusageText !== undefined ? { rusage: rusageText === 'time' ? '/usr/bin/time' : 'process.resourceUsage' } : {}),
  log: (line) => void process.stderr.write(`[bench] ${line}\n`),
});
const json = JSON.stringify(report, null, 2) + '\n';
if (outFile !== undefined) writeFileSync(outFile, json);
else process.stdout.write(json);
if (csvFile !== undefined) writeFileSync(csvFile, toCsv(report));
process.stderr.write('\n' + formatTable(report));
