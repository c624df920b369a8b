/**
 * Per-function static annotations for the warp-level scheduling policies (spec `warp-level.md`
 * §6 item 1): everything PATS (paper 000 ch. 3), ELF (paper 004) and SOCGPU (paper 002) read
 * about a static instruction, computed once at kernel load and stored as typed arrays indexed by
 * the instruction's static index (its PC in warpstate's PTX IR), so that a policy reads
 * `annotation.phaseDistance[pc]` with no allocation and no lookup.
 *
 * One {@link FunctionAnnotation} per function (R-P5: a warp inside a `.func` uses that function's
 * tables; spec §2.12: one program-point table per kernel). {@link annotateFunction} is pure: it
 * reads the IR and returns fresh arrays; {@link annotateModule} annotates every function of a
 * module.
 *
 * Sources of each table:
 * - `phaseOf`, `phaseDistance`, `phaseLength`, `phaseStart`, `phaseReason`: {@link analyzePhases}
 *   (000 §3.4.2.1, spec §1.3 with R-P1 barriers, R-P2 latency model, R-P3 saturation).
 * - `points*`, `calcPriority`, `recalc`, `priority`, `isElfLoad`: {@link analyzeElf} (004
 *   Algorithms 1 and 2, §3.2; R-E2, R-E3 recalculation rule).
 * - `ctrlClass`: {@link CtrlClass} of each instruction (SOCGPU's control hazards, ELF's R-E10
 *   recalculation on call/ret, PATS's R-P7 barrier demotion).
 *
 * Trace-driven kernels (`src/frontends/accelsim/timing-kernel.ts`): their static table keeps, per
 * PC, only `opClass`, `srcRegs`, `dstRegs`, `longLatency` and `line`. That is enough for the
 * long-op set, R-P1 and the latency model, but not for basic blocks, ELF loads or program points:
 * the analyses also need the opcode (`op`: `bra`/`ret`/`exit`/`ld`), the load's state space
 * (`space`, which the trace decoder knows as `OpcodeInfo.space`), whether a branch is guarded
 * (`guard`) and its target (`src[0].target`). A SASS trace line carries no branch target; it can
 * be recovered in the trace's open pass from the PCs that follow each instance of a `BRA` (a
 * successor other than `pc + instructionBytes` is the target; both seen = guarded). Once the
 * trace's static table holds instructions with those fields (IR-shaped, `op`/`space`/`guard`/`src`
 * filled), `annotateFunction(kernel.module.functions[0], ...)` works unchanged, with the trace's
 * own latencies through a function {@link PhaseLatencyModel} (`(ins) => ins.execLatency ...`).
 */
import { analyzeElf, isElfLoad } from './elf.ts';
import type { ElfOptions, ElfRecalcRule } from './elf.ts';
import { analyzePhases } from './phase.ts';
import type { PhaseLatencyModel } from './phase.ts';
import type { Cfg } from './cfg.ts';
import { OpClass } from './ir.ts';
import type { Instruction, PtxFunction, PtxModule } from './ir.ts';

/**
 * Control class of an instruction (one byte, {@link FunctionAnnotation.ctrlClass}): what a
 * scheduler, fetch or SIMT model must treat specially when a warp issues it.
 */
export const CtrlClass = {
  /** Anything else. */
  None: 0,
  /** `bra` (guarded or not, `.uni` or not). */
  Branch: 1,
  /** `bar.sync`/`barrier.sync`/`bar.arrive`/`bar.red` (class `Barrier`). */
  Barrier: 2,
  /** `call` (direct, indirect, or to `vprintf`/`__assertfail`). */
  Call: 3,
  /** `ret`. */
  Ret: 4,
  /** `exit` and `trap` (class `Exit`). */
  Exit: 5,
  /** `membar`/`fence` (class `Membar`): synchronization without a CTA-wide wait (R-P1, R-P7, R-E8). */
  Membar: 6,
} as const;
/** A {@link CtrlClass} code. */
export type CtrlClass = (typeof CtrlClass)[keyof typeof CtrlClass];

/** {@link CtrlClass} of an instruction, from its opcode class. */
export function ctrlClassOf(ins: Pick<Instruction, 'opClass'>): CtrlClass {
  switch (ins.opClass) {
    case OpClass.Branch:
      return CtrlClass.Branch;
    case OpClass.Barrier:
      return CtrlClass.Barrier;
    case OpClass.Call:
      return CtrlClass.Call;
    case OpClass.Ret:
      return CtrlClass.Ret;
    case OpClass.Exit:
      return CtrlClass.Exit;
    case OpClass.Membar:
      return CtrlClass.Membar;
    default:
      return CtrlClass.None;
  }
}

/** Options of {@link annotateFunction}. */
export interface AnnotationOptions {
  /**
   * Latency model of phase distances and lengths (R-P2). Required, so that a caller chooses: the
   * timing model passes `{ kind: 'pipeline', issueIntervalCycles, opClasses }` from its config
   * (the spec's default), tests and reports may pass `'unit'`.
   */
  readonly phaseLatency: PhaseLatencyModel;
  /** Saturation of phase distances and lengths in cycles (R-P3); default none. */
  readonly maxPhaseDistance?: number;
  /** Whether an instruction's destinations become long-op registers (default `ins.longLatency`). */
  readonly isLongOp?: (ins: Instruction) => boolean;
  /** Whether the instruction after `ins` starts a phase (R-P1; default `Barrier` and `Membar` classes). */
  readonly isSync?: (ins: Instruction) => boolean;
  /**
   * ELF parameters (spec §2.7): program-point slots (default 32), score bits (8), branches
   * (`'backward'`), recalculation rule (`'consistent'`).
   */
  readonly elf?: ElfOptions;
  /** A prebuilt CFG of the function (reused by the phase analysis). */
  readonly cfg?: Cfg;
}

/**
 * Static tables of one function. Arrays of length `instructionCount` are indexed by static
 * instruction index (PC); `phase*` arrays of length `phaseCount` by phase; `point*` arrays of
 * length `pointCount` by program-point slot (PC order, as the hardware loads them, 004 §3.2).
 * Read-only by contract: the arrays are shared by every warp of the kernel.
 */
export interface FunctionAnnotation {
  /** Instructions in the function. */
  readonly instructionCount: number;

  // -- PATS (000 ch. 3) --
  /** Phases in the function. */
  readonly phaseCount: number;
  /** Phase of every instruction, 0..phaseCount-1 (length instructionCount). */
  readonly phaseOf: Int32Array;
  /**
   * Phase distance of every instruction in cycles (length instructionCount): latency sum from it,
   * included, to the end of its phase; single-level PATS orders warps by `phaseDistance[pc]`
   * then age (000 §3.4.2.2).
   */
  readonly phaseDistance: Float64Array;
  /**
   * Length of every phase in cycles (length phaseCount) = the distance of its first instruction;
   * two-level PATS sorts its active queue by `phaseLength[phaseOf[pc]]` (R-P6).
   */
  readonly phaseLength: Float64Array;
  /** First instruction of every phase (length phaseCount). */
  readonly phaseStart: Int32Array;
  /** Why every phase starts ({@link PhaseStart} code: block, dependence, barrier; length phaseCount). */
  readonly phaseReason: Uint8Array;

  // -- ELF (004) --
  /** Saturation value of scores and priorities (`2^scoreBits - 1`; 255 by default). */
  readonly maxScore: number;
  /** Program points found by Algorithm 1 lines 1-9 (stat `elf_pp_initial`). */
  readonly elfInitialPoints: number;
  /** Points before merging (004 Table 2 "PP"; stat `elf_pp_before_merge`). */
  readonly elfPointsBeforeMerge: number;
  /** Program points loaded into the calculator (<= slots; stat `elf_pp_loaded`). */
  readonly pointCount: number;
  /** PC of every program point, ascending (length pointCount). */
  readonly pointPc: Int32Array;
  /** 1 for a branch point, 0 for a load point (length pointCount). */
  readonly pointIsBranch: Uint8Array;
  /** Score of every program point in instructions (length pointCount; Alg. 1 l.10-24, Alg. 2 l.16). */
  readonly pointScore: Int32Array;
  /**
   * The priority calculator's output for a warp whose next instruction is `pc` (004 §3.2, over
   * the loaded points), 0..maxScore instructions (length instructionCount): the WPT value after
   * a recalculation, and the initial WPT of a warp starting at `pc`.
   */
  readonly calcPriority: Int32Array;
  /**
   * {@link ElfRecalc} code of every instruction (length instructionCount): when issuing it
   * triggers the calculator; otherwise the WPT is decremented with {@link elfDecrement}.
   */
  readonly recalc: Uint8Array;
  /** The rule `recalc` was computed with. */
  readonly recalcRule: ElfRecalcRule;
  /** Exact priority: fewest instructions to a counted load on any path, saturated at maxScore (length instructionCount). */
  readonly priority: Int32Array;
  /** 1 where the instruction is a load ELF counts ({@link isElfLoad}; stat `elf_recalc_load`; length instructionCount). */
  readonly isElfLoad: Uint8Array;

  // -- control --
  /** {@link CtrlClass} of every instruction (length instructionCount). */
  readonly ctrlClass: Uint8Array;
}

/**
 * Computes the static annotation of one function (spec §6 item 1).
 *
 * @param fn a parsed function (`instructions`, `registers`), e.g. `module.functions[i]`.
 * @param options latency model (required), phase and ELF options.
 * @returns fresh typed arrays (see {@link FunctionAnnotation}); an empty function gives empty arrays.
 * @throws RangeError for a latency model giving a negative or non-finite value, a negative
 *   `maxPhaseDistance`, or bad ELF options (see {@link analyzeElf}).
 */
export function annotateFunction(fn: Pick<PtxFunction, 'instructions' | 'registers'>, options: AnnotationOptions): FunctionAnnotation {
  const ins = fn.instructions;
  const n = ins.length;
  const pa = analyzePhases(fn, {
    latency: options.phaseLatency,
    ...(options.maxPhaseDistance !== undefined ? { maxPhaseDistance: options.maxPhaseDistance } : {}),
    ...(options.isLongOp ? { isLongOp: options.isLongOp } : {}),
    ...(options.isSync ? { isSync: options.isSync } : {}),
    ...(options.cfg ? { cfg: options.cfg } : {}),
  });
  const phaseCount = pa.phases.length;
  const phaseLength = new Float64Array(phaseCount);
  const phaseStart = new Int32Array(phaseCount);
  const phaseReason = new Uint8Array(phaseCount);
  for (let p = 0; p < phaseCount; p++) {
    const ph = pa.phases[p]!;
    phaseLength[p] = ph.length;
    phaseStart[p] = ph.start;
    phaseReason[p] = ph.reason;
  }

  const elf = analyzeElf(fn, options.elf ?? {});
  const pointCount = elf.points.length;
  const pointPc = new Int32Array(pointCount);
  const pointIsBranch = new Uint8Array(pointCount);
  const pointScore = new Int32Array(pointCount);
  for (let k = 0; k < pointCount; k++) {
    const p = elf.points[k]!;
    pointPc[k] = p.pc;
    pointIsBranch[k] = p.isBranch ? 1 : 0;
    pointScore[k] = p.score;
  }

  const loads = new Uint8Array(n);
  const ctrlClass = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const x = ins[i]!;
    loads[i] = isElfLoad(x) ? 1 : 0;
    ctrlClass[i] = ctrlClassOf(x);
  }

  return {
    instructionCount: n,
    phaseCount,
    phaseOf: pa.phaseOf,
    phaseDistance: pa.distance,
    phaseLength,
    phaseStart,
    phaseReason,
    maxScore: elf.maxScore,
    elfInitialPoints: elf.initialPointCount,
    elfPointsBeforeMerge: elf.pointsBeforeMerge,
    pointCount,
    pointPc,
    pointIsBranch,
    pointScore,
    calcPriority: elf.calcPriority,
    recalc: elf.recalc,
    recalcRule: elf.recalcRule,
    priority: elf.priority,
    isElfLoad: loads,
    ctrlClass,
  };
}

/**
 * Annotates every function of a module (R-P5: per-function tables), indexed like
 * `module.functions`. A function without a body (`.extern`, `vprintf`) gets an empty annotation.
 *
 * @param module a parsed module.
 * @param options as {@link annotateFunction} (`cfg` is ignored: each function builds its own).
 * @returns one annotation per function.
 * @throws RangeError as {@link annotateFunction}.
 */
export function annotateModule(module: Pick<PtxModule, 'functions'>, options: AnnotationOptions): readonly FunctionAnnotation[] {
  const { cfg: _ignored, ...perFunction } = options;
  return module.functions.map((f) => annotateFunction(f.hasBody ? f : { instructions: [], registers: f.registers }, perFunction));
}
