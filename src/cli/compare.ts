/**
 * `warpstate compare` (issue 10 item 3): runs an Accel-Sim trace directory on warpstate's timing
 * model (the code path of `warpstate run --accelsim-trace`), or reads a statistics file written
 * by `warpstate run --stats`, and prints warpstate's statistics beside those of an Accel-Sim
 * output log of the same trace, with the relative difference per statistic
 * (`ACCELSIM_STAT_MAP` in src/report/accelsim-compare.ts says which statistics are paired and how they differ).
 */
import { Command } from 'commander';
import { InputError } from '../errors.ts';

/*
 * Only commander and the error types are imported here: main.ts loads this module for every
 * command, so the log parser, the comparison and the timing model are imported on first use
 * (as main.ts does for its own commands).
 */
const load = {
  log: () => import('../report/accelsim-log.ts'),
  compare: () => import('../report/accelsim-compare.ts'),
  config: () => import('../config/index.ts'),
  traceRun: () => import('../scenario/trace-run.ts'),
  interrupt: () => import('../scenario/interrupt.ts'),
};

/** Options of `warpstate compare`, as commander parses them. */
interface CompareOpts {
  accelsimLog: string;
  gpu?: string;
  stats?: string;
  kernel?: number;
  json?: boolean;
  configSet: string[];
  unknownOpcode: string;
}

function positiveInt(flag: string): (value: string) => number {
  return (value: string) => {
    const n = Number(value);
    if (!(Number.isInteger(n) && n >= 1 && n <= 1e9)) throw new InputError({ file: flag }, `must be a positive integer, got '${value}'`);
    return n;
  };
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/**
 * Runs the trace on the timing model and returns its statistics (`engine.stats.toJSON()`).
 * @throws InputError for a bad trace or config; SimulationError for a deadlock or runaway run;
 *   RunInterrupted on SIGINT/SIGTERM
 */
async function runTraceStats(dir: string, gpu: string, opts: CompareOpts, err: (s: string) => void): Promise<Record<string, unknown>> {
  if (opts.unknownOpcode !== 'error' && opts.unknownOpcode !== 'alu') throw new InputError({ file: '--unknown-opcode' }, `must be error or alu, got '${opts.unknownOpcode}'`);
  const [{ presetNames }, { runAccelSimTraceAsync }, { withInterrupts }] = await Promise.all([load.config(), load.traceRun(), load.interrupt()]);
  const isPreset = presetNames().includes(gpu);
  const started = Date.now();
  let lastReport = started;
  const result = await withInterrupts(err, (interrupt) =>
    runAccelSimTraceAsync(
      dir,
      {
        gpu: isPreset ? { preset: gpu } : { gpgpusimConfig: gpu },
        baseDir: '.',
        configOverrides: opts.configSet,
        unknownOpcode: opts.unknownOpcode as 'error' | 'alu',
        onProgress: (engine) => {
          const now = Date.now();
          if (now - lastReport >= 2000) {
            lastReport = now;
            err(`[warpstate] cycle ${engine.clock('core').cycleAt(engine.now)}, ${engine.stats.value('gpu_tot_warp_insts') ?? 0} warp instructions, ${((now - started) / 1000).toFixed(1)} s\n`);
          }
        },
      },
      interrupt,
    ),
  );
  for (const w of result.warnings) err(`${w}\n`);
  return result.engine.stats.toJSON() as Record<string, unknown>;
}

/**
 * The `compare` command. `warpstate compare <trace-dir> --gpu <preset|gpgpusim.config>
 * --accelsim-log <file>` runs the trace; `--stats <file.json>` compares a statistics file
 * instead. Exit 0 once the table is printed, 2 on bad input (file, line and field named), 3 when
 * the simulated machine fails, 130/143 when SIGINT/SIGTERM stops the run.
 * @param out standard output; `err` standard error (progress, warnings); `setExit` the exit code
 */
export function compareCommand(out: (s: string) => void, err: (s: string) => void, setExit: (code: number) => void): Command {
  return new Command('compare')
    .description("print warpstate's statistics of an Accel-Sim trace beside those of an Accel-Sim output log of the same trace, with the relative difference per statistic")
    .argument('[trace-dir]', 'Accel-Sim trace directory (kernelslist.g + kernel-N.traceg) to run on the timing model')
    .requiredOption('--accelsim-log <file>', "Accel-Sim's standard output for the trace (the options, then one statistics block per kernel)")
    .option('--gpu <preset|gpgpusim.config>', 'the GPU to run the trace on (its trace.config beside it is read too)')
    .option('--stats <file.json>', 'compare this statistics file (warpstate run --stats) instead of running the trace')
    .option('--kernel <n>', "compare the log's n-th kernel block (1-based; default the last, whose cumulative statistics cover the whole run)", positiveInt('--kernel'))
    .option('--json', 'print the comparison as JSON')
    .option('--config-set <key=value>', 'override a GPU config field (repeatable), e.g. sm.count=4', collect, [])
    .option('--unknown-opcode <policy>', 'unknown SASS opcodes: error or alu', 'error')
    .configureOutput({ writeOut: out, writeErr: err })
    .exitOverride()
    .action(async (dir: string | undefined, opts: CompareOpts) => {
      const [{ readAccelSimLog }, { compareWithAccelSim, comparisonToJson, formatComparison, readWarpstateStats }] = await Promise.all([load.log(), load.compare()]);
      // Read the log first: a bad log is reported before a long run.
      const log = readAccelSimLog(opts.accelsimLog);
      let stats: Record<string, unknown>;
      let source: Record<string, unknown>;
      if (opts.stats !== undefined) {
        if (dir !== undefined) throw new InputError({ file: 'compare' }, `give either a trace directory to run or --stats ${opts.stats}, not both`, 'trace-dir');
        const read = readWarpstateStats(opts.stats);
        if (read.partial) err(`[warpstate] ${opts.stats} holds partial statistics (the run stopped early): the comparison covers part of the work\n`);
        stats = read.stats;
        source = { statsFile: opts.stats };
      } else {
        if (dir === undefined) throw new InputError({ file: 'compare' }, 'give the Accel-Sim trace directory to run (with --gpu), or --stats <file.json>', 'trace-dir');
        if (opts.gpu === undefined) throw new InputError({ file: '--gpu' }, 'give the GPU the Accel-Sim log was made on: a preset or its gpgpusim.config');
        const { RunInterrupted, signalExitCode } = await load.interrupt();
        try {
          stats = await runTraceStats(dir, opts.gpu, opts, err);
        } catch (e) {
          // A signal stops the run: nothing to compare, exit 130/143 as `run` does.
          if (!(e instanceof RunInterrupted)) throw e;
          err(`[warpstate] ${e.message}; no comparison printed\n`);
          setExit(signalExitCode(e.signal));
          return;
        }
        source = { trace: dir, gpu: opts.gpu };
      }
      const c = compareWithAccelSim(log, stats, opts.kernel);
      for (const w of c.warnings) err(`[warpstate] ${w}\n`);
      if (opts.json) out(comparisonToJson(c, { accelsimLog: opts.accelsimLog, ...source }));
      else out(formatComparison(c, `${opts.accelsimLog} (Accel-Sim) vs ${opts.stats ?? `${dir} on ${opts.gpu}`} (warpstate)`));
      setExit(0);
    });
}
