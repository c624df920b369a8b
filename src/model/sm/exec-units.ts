/**
 * Execution-unit pipelines of an SM (SP, SFU, DP, INT, LSU ...) and their writeback, after the
 * baseline pipeline of paper 002 ch. 3 ("the instruction is dispatched to the proper execution
 * unit (e.g. memory, single-precision, special function) whose latencies differ depending on the
 * type of unit. When the instruction reaches the write-back (WB) stage, it clears its
 * dependencies") and GPGPU-Sim's pipelined SIMD units.
 *
 * Timing model (all times in core cycles):
 * - A unit has `count` identical pipelines (GPGPU-Sim `-gpgpu_num_sp_units`, `..._sfu_units`).
 *   Each accepts one warp instruction and then stays busy for `initiation x ceil(warpSize /
 *   width)` cycles: `initiation` is the opcode's initiation interval (GPGPU-Sim
 *   `-ptx_opcode_initiation_*`), `width` the SIMD lanes of the pipeline (a 32-thread warp on a
 *   16-lane pipeline takes two passes). {@link ExecUnits.canAccept} is true when one pipeline is
 *   free.
 * - An instruction issued at cycle `t` with latency `L` (GPGPU-Sim `-ptx_opcode_latency_*`)
 *   completes, i.e. writes back, at `t + L`.
 * - Optional result bus: at most `resultBusWidth` instructions write back in one cycle. As in
 *   GPGPU-Sim, the writeback slot is reserved at issue, so an instruction whose slot `t + L` is
 *   taken cannot issue at `t` ({@link ExecUnits.canAccept} with its latency returns false).
 * - Completions are drained in (cycle, issue order) by {@link ExecUnits.drain}.
 *
 * Per-opcode-class timing: `opClasses` maps each {@link OpClass} name (`alu`, `sfu`, `load` ...)
 * to a unit, a latency and an initiation interval, so the issue stage can call
 * {@link ExecUnits.issueClass}; {@link ExecUnits.issue} takes latency and interval explicitly
 * for instruction-specific values.
 *
 * All state is in typed arrays; the completion heap grows by doubling when more instructions are
 * in flight than ever before (amortised, never per cycle in steady state).
 */
import { z } from 'zod';
import { InputError, SimulationError } from '../../errors.ts';
import type { SourceLocation } from '../../errors.ts';
import { OP_CLASS_NAME } from '../../isa/ir.ts';
import type { OpClass } from '../../isa/ir.ts';
import { PARAMS_LOCATION, requireInt } from './validate.ts';

/** One kind of functional unit. */
export interface ExecUnitSpec {
  /** Unit name (`sp`, `sfu`, `dp`, `int`, `lsu`, ...); unique, non-empty. */
  readonly name: string;
  /** Identical pipelines of this kind. Integer >= 1. */
  readonly count: number;
  /** SIMD lanes per pipeline; default the warp size (one pass per warp). Integer >= 1. */
  readonly width?: number;
}

/** Timing of one opcode class. */
export interface OpClassTiming {
  /** Name of the unit that executes it. */
  readonly unit: string;
  /** Cycles from issue to writeback. Integer >= 1. */
  readonly latency: number;
  /** Cycles before the same pipeline accepts the next instruction (per pass). Integer >= 1. */
  readonly initiation: number;
}

/**
 * Execution timing that one static instruction carries itself, as a trace-driven kernel's
 * instructions do (Accel-Sim `trace_warp_inst_t`: latency and initiation interval set per
 * instruction from `trace.config`'s `-trace_opcode_latency_initiation_<unit>` for the opcode's
 * category). An instruction without these fields (a PTX instruction) is timed by its opcode class.
 */
export interface InstExecTiming {
  /** Unit class code (index into {@link ExecUnitsParams.execClasses}); -1 = no pipeline (barrier, memory). */
  readonly execClass: number;
  /** Cycles from issue to writeback (core cycles, >= 1). */
  readonly execLatency: number;
  /** Cycles before the same pipeline accepts the next instruction (core cycles, >= 1). */
  readonly execInitiation: number;
}

/** Parameters of {@link ExecUnits}. */
export interface ExecUnitsParams {
  /** The unit kinds, at least one. */
  readonly units: readonly ExecUnitSpec[];
  /** Threads per warp; default 32. */
  readonly warpSize?: number;
  /** Timing per opcode class name ({@link OP_CLASS_NAME}); classes left out cannot use {@link ExecUnits.issueClass}. */
  readonly opClasses?: Readonly<Partial<Record<string, OpClassTiming>>>;
  /**
   * Pipeline name per unit class code of {@link InstExecTiming.execClass} (for traces: `none`,
   * `int`, `sp`, `dp`, `sfu`, `tensor`, `mem`, `branch`, `tex`, `udp`); null = no pipeline.
   */
  readonly execClasses?: readonly (string | null)[];
  /** Writebacks per cycle; 0 or absent = unlimited. */
  readonly resultBusWidth?: number;
  /** Largest latency accepted when the result bus is limited (its reservation horizon); default 4096. */
  readonly maxLatency?: number;
}

/** The execution units of one SM (or one sub-core). */
export class ExecUnits {
  /** Unit names, indexed by unit index. */
  readonly unitNames: readonly string[];
  /** Threads per warp. */
  readonly warpSize: number;
  /** Writebacks per cycle (0 = unlimited). */
  readonly resultBusWidth: number;
  /** Largest latency accepted with a limited result bus. */
  readonly maxLatency: number;

  /** Per unit: index of its first pipeline in {@link pipeFree}. */
  private readonly pipeBase: Int32Array;
  /** Per unit: number of pipelines. */
  private readonly pipeCount: Int32Array;
  /** Per unit: passes per warp, `ceil(warpSize / width)`. */
  private readonly passes: Int32Array;
  /** Per pipeline: first cycle at which it accepts an instruction. */
  private readonly pipeFree: Float64Array;
  /** Per unit: instructions issued and not yet drained. */
  private readonly inFlightCount: Int32Array;
  /** Per opcode class: unit index or -1, latency, initiation. */
  private readonly classUnit: Int32Array;
  private readonly classLatency: Int32Array;
  private readonly classInitiation: Int32Array;
  /** Per unit class code of {@link InstExecTiming}: unit index or -1. */
  private readonly execClassUnit: Int32Array;
  /** Result bus ring: the cycle each slot describes and its writebacks. */
  private readonly busCycle: Float64Array;
  private readonly busCount: Int32Array;
  /** Completion min-heap on (done, seq). */
  private heapDone: Float64Array;
  private heapSeq: Float64Array;
  private heapTag: Int32Array;
  private heapUnit: Int32Array;
  private heapLength = 0;
  private seq = 0;
  private lastIssueCycle = -Infinity;
  /** Unit name -> index. */
  private readonly unitIndexByName = new Map<string, number>();

  /**
   * @throws InputError for a bad parameter (duplicate or unknown unit name, unknown opcode class,
   *   non-positive count/width/latency/interval).
   */
  constructor(params: ExecUnitsParams, where: SourceLocation = PARAMS_LOCATION) {
    if (!Array.isArray(params.units) || params.units.length === 0) {
      throw new InputError(where, 'at least one execution unit is required', 'execUnits.units');
    }
    this.warpSize = requireInt(params.warpSize ?? 32, 'execUnits.warpSize', 1, 1024, where);
    this.resultBusWidth = requireInt(params.resultBusWidth ?? 0, 'execUnits.resultBusWidth', 0, 1 << 16, where);
    this.maxLatency = requireInt(params.maxLatency ?? 4096, 'execUnits.maxLatency', 1, 1 << 20, where);
    const units = params.units;
    const n = units.length;
    this.pipeBase = new Int32Array(n);
    this.pipeCount = new Int32Array(n);
    this.passes = new Int32Array(n);
    this.inFlightCount = new Int32Array(n);
    const names: string[] = [];
    let pipes = 0;
    for (let u = 0; u < n; u++) {
      const spec = units[u]!;
      const field = `execUnits.units[${u}]`;
      if (typeof spec.name !== 'string' || spec.name === '') throw new InputError(where, 'unit name must be a non-empty string', `${field}.name`);
      if (this.unitIndexByName.has(spec.name)) throw new InputError(where, `duplicate unit name '${spec.name}'`, `${field}.name`);
      this.unitIndexByName.set(spec.name, u);
      names.push(spec.name);
      const count = requireInt(spec.count, `${field}.count`, 1, 1 << 12, where);
      const width = requireInt(spec.width ?? this.warpSize, `${field}.width`, 1, 1 << 12, where);
      this.pipeBase[u] = pipes;
      this.pipeCount[u] = count;
      this.passes[u] = Math.ceil(this.warpSize / width);
      pipes += count;
    }
    this.unitNames = Object.freeze(names);
    this.pipeFree = new Float64Array(pipes);

    const classes = OP_CLASS_NAME.length;
    this.classUnit = new Int32Array(classes).fill(-1);
    this.classLatency = new Int32Array(classes);
    this.classInitiation = new Int32Array(classes);
    const table = params.opClasses ?? {};
    for (const key of Object.keys(table).sort()) {
      const field = `execUnits.opClasses.${key}`;
      const c = OP_CLASS_NAME.indexOf(key);
      if (c < 0) throw new InputError(where, `unknown opcode class '${key}' (known: ${OP_CLASS_NAME.join(', ')})`, field);
      const t = table[key]!;
      const u = this.unitIndexByName.get(t.unit);
      if (u === undefined) throw new InputError(where, `unknown unit '${t.unit}' (units: ${names.join(', ')})`, `${field}.unit`);
      this.classUnit[c] = u;
      this.classLatency[c] = requireInt(t.latency, `${field}.latency`, 1, this.maxLatency, where);
      this.classInitiation[c] = requireInt(t.initiation, `${field}.initiation`, 1, 1 << 20, where);
    }

    const ec = params.execClasses ?? [];
    this.execClassUnit = new Int32Array(ec.length).fill(-1);
    for (let i = 0; i < ec.length; i++) {
      const name = ec[i];
      if (name === null || name === undefined) continue;
      const u = this.unitIndexByName.get(name);
      if (u === undefined) throw new InputError(where, `unknown unit '${name}' (units: ${names.join(', ')})`, `execUnits.execClasses[${i}]`);
      this.execClassUnit[i] = u;
    }

    const horizon = this.resultBusWidth > 0 ? this.maxLatency + 1 : 1;
    this.busCycle = new Float64Array(horizon).fill(-1);
    this.busCount = new Int32Array(horizon);
    const cap = Math.max(16, pipes * 4);
    this.heapDone = new Float64Array(cap);
    this.heapSeq = new Float64Array(cap);
    this.heapTag = new Int32Array(cap);
    this.heapUnit = new Int32Array(cap);
  }

  /** Number of unit kinds. */
  get numUnits(): number {
    return this.unitNames.length;
  }

  /** Index of the unit named `name`, or -1. */
  unitIndex(name: string): number {
    return this.unitIndexByName.get(name) ?? -1;
  }

  /**
   * True when a pipeline of `unit` accepts an instruction at `cycle` and, when the result bus is
   * limited and `latency` is given (> 0), its writeback slot `cycle + latency` has room.
   */
  canAccept(unit: number, cycle: number, latency = 0): boolean {
    const base = this.pipeBase[unit]!;
    const end = base + this.pipeCount[unit]!;
    let free = false;
    for (let p = base; p < end; p++) {
      if (this.pipeFree[p]! <= cycle) {
        free = true;
        break;
      }
    }
    if (!free) return false;
    if (this.resultBusWidth > 0 && latency > 0) return latency <= this.maxLatency && this.busFree(cycle + latency);
    return true;
  }

  /**
   * Issues one warp instruction to `unit` at `cycle`.
   *
   * @param unit unit index ({@link unitIndex}).
   * @param cycle issue cycle; must not be lower than the previous issue's.
   * @param latency cycles to writeback, integer >= 1 (<= `maxLatency` with a limited result bus).
   * @param initiation initiation interval per pass, integer >= 1.
   * @param tag caller's id for the instruction, returned by {@link drain} (int32).
   * @returns the completion (writeback) cycle, `cycle + latency`.
   * @throws SimulationError when no pipeline is free, the writeback slot is full, the cycle went
   *   back in time or latency/initiation is invalid (the issue stage must check
   *   {@link canAccept} first).
   */
  issue(unit: number, cycle: number, latency: number, initiation: number, tag = 0): number {
    if (!(unit >= 0 && unit < this.unitNames.length)) throw new SimulationError(`execUnits: unit ${unit} out of range`, { unit });
    if (!(Number.isInteger(latency) && latency >= 1) || !(Number.isInteger(initiation) && initiation >= 1)) {
      throw new SimulationError(`execUnits: latency ${latency} and initiation ${initiation} must be integers >= 1`, { unit, latency, initiation });
    }
    if (cycle < this.lastIssueCycle) {
      throw new SimulationError(`execUnits: issue at cycle ${cycle} after an issue at cycle ${this.lastIssueCycle}`, { unit, cycle });
    }
    const base = this.pipeBase[unit]!;
    const end = base + this.pipeCount[unit]!;
    let pipe = -1;
    for (let p = base; p < end; p++) {
      if (this.pipeFree[p]! <= cycle) {
        pipe = p;
        break;
      }
    }
    if (pipe < 0) throw new SimulationError(`execUnits: ${this.unitNames[unit]} has no free pipeline at cycle ${cycle}`, { unit: this.unitNames[unit], cycle });
    const done = cycle + latency;
    if (this.resultBusWidth > 0) {
      if (latency > this.maxLatency) throw new SimulationError(`execUnits: latency ${latency} exceeds maxLatency ${this.maxLatency}`, { latency });
      if (!this.busFree(done)) throw new SimulationError(`execUnits: result bus full at cycle ${done}`, { unit: this.unitNames[unit], cycle, done });
      const slot = done % this.busCycle.length;
      if (this.busCycle[slot] !== done) {
        this.busCycle[slot] = done;
        this.busCount[slot] = 0;
      }
      this.busCount[slot]!++;
    }
    this.lastIssueCycle = cycle;
    this.pipeFree[pipe] = cycle + initiation * this.passes[unit]!;
    this.inFlightCount[unit]!++;
    this.push(done, tag, unit);
    return done;
  }

  /** Unit index of opcode class `opClass`, or -1 when the class has no timing. */
  unitOfClass(opClass: OpClass): number {
    return this.classUnit[opClass] ?? -1;
  }

  /** Unit index of unit class code `execClass` ({@link InstExecTiming}), or -1 when it has no pipeline. */
  unitOfExecClass(execClass: number): number {
    return execClass >= 0 && execClass < this.execClassUnit.length ? this.execClassUnit[execClass]! : -1;
  }

  /** Latency of opcode class `opClass` (0 when it has no timing). */
  latencyOfClass(opClass: OpClass): number {
    return this.classLatency[opClass] ?? 0;
  }

  /** Initiation interval of opcode class `opClass` (0 when it has no timing). */
  initiationOfClass(opClass: OpClass): number {
    return this.classInitiation[opClass] ?? 0;
  }

  /** {@link canAccept} for the unit and latency of `opClass`; false when the class has no timing. */
  canAcceptClass(opClass: OpClass, cycle: number): boolean {
    const u = this.classUnit[opClass] ?? -1;
    return u >= 0 && this.canAccept(u, cycle, this.classLatency[opClass]!);
  }

  /**
   * {@link issue} with the unit, latency and interval of `opClass`.
   *
   * @throws SimulationError when the class has no timing, or as {@link issue}.
   */
  issueClass(opClass: OpClass, cycle: number, tag = 0): number {
    const u = this.classUnit[opClass] ?? -1;
    if (u < 0) throw new SimulationError(`execUnits: no timing for opcode class '${OP_CLASS_NAME[opClass] ?? opClass}'`, { opClass });
    return this.issue(u, cycle, this.classLatency[opClass]!, this.classInitiation[opClass]!, tag);
  }

  /** First cycle at which some pipeline of `unit` accepts an instruction (to set a wake-up timer). */
  nextAcceptCycle(unit: number): number {
    const base = this.pipeBase[unit]!;
    const end = base + this.pipeCount[unit]!;
    let best = Infinity;
    for (let p = base; p < end; p++) if (this.pipeFree[p]! < best) best = this.pipeFree[p]!;
    return best;
  }

  /** Earliest pending completion cycle, or `Infinity` when nothing is in flight. */
  nextCompletionCycle(): number {
    return this.heapLength > 0 ? this.heapDone[0]! : Infinity;
  }

  /** Instructions issued to `unit` (or to all units when omitted) and not yet drained. */
  inFlight(unit?: number): number {
    if (unit === undefined) return this.heapLength;
    return this.inFlightCount[unit] ?? 0;
  }

  /**
   * Writeback: removes the instructions completing at or before `cycle`, in (completion cycle,
   * issue order), writing their tags to `outTags` (and units to `outUnits` if given). Stops when
   * `outTags` is full; the rest stay for the next call.
   *
   * @returns how many were written.
   */
  drain(cycle: number, outTags: Int32Array, outUnits?: Int32Array): number {
    let n = 0;
    while (this.heapLength > 0 && this.heapDone[0]! <= cycle && n < outTags.length) {
      const unit = this.heapUnit[0]!;
      outTags[n] = this.heapTag[0]!;
      if (outUnits !== undefined) outUnits[n] = unit;
      n++;
      this.inFlightCount[unit]!--;
      this.pop();
    }
    return n;
  }

  /** Idles every pipeline and forgets everything in flight. */
  reset(): void {
    this.pipeFree.fill(0);
    this.inFlightCount.fill(0);
    this.busCycle.fill(-1);
    this.busCount.fill(0);
    this.heapLength = 0;
    this.seq = 0;
    this.lastIssueCycle = -Infinity;
  }

  private busFree(done: number): boolean {
    const slot = done % this.busCycle.length;
    return this.busCycle[slot] !== done || this.busCount[slot]! < this.resultBusWidth;
  }

  private before(i: number, j: number): boolean {
    const a = this.heapDone[i]!;
    const b = this.heapDone[j]!;
    return a < b || (a === b && this.heapSeq[i]! < this.heapSeq[j]!);
  }

  private swap(i: number, j: number): void {
    const d = this.heapDone[i]!;
    this.heapDone[i] = this.heapDone[j]!;
    this.heapDone[j] = d;
    const s = this.heapSeq[i]!;
    this.heapSeq[i] = this.heapSeq[j]!;
    this.heapSeq[j] = s;
    const t = this.heapTag[i]!;
    this.heapTag[i] = this.heapTag[j]!;
    this.heapTag[j] = t;
    const u = this.heapUnit[i]!;
    this.heapUnit[i] = this.heapUnit[j]!;
    this.heapUnit[j] = u;
  }

  private push(done: number, tag: number, unit: number): void {
    if (this.heapLength === this.heapDone.length) this.grow();
    let i = this.heapLength++;
    this.heapDone[i] = done;
    this.heapSeq[i] = this.seq++;
    this.heapTag[i] = tag;
    this.heapUnit[i] = unit;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.before(i, parent)) break;
      this.swap(i, parent);
      i = parent;
    }
  }

  private pop(): void {
    const last = --this.heapLength;
    if (last > 0) {
      this.heapDone[0] = this.heapDone[last]!;
      this.heapSeq[0] = this.heapSeq[last]!;
      this.heapTag[0] = this.heapTag[last]!;
      this.heapUnit[0] = this.heapUnit[last]!;
    }
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= this.heapLength) break;
      const r = l + 1;
      const c = r < this.heapLength && this.before(r, l) ? r : l;
      if (!this.before(c, i)) break;
      this.swap(i, c);
      i = c;
    }
  }

  private grow(): void {
    const cap = this.heapDone.length * 2;
    const done = new Float64Array(cap);
    done.set(this.heapDone);
    this.heapDone = done;
    const seq = new Float64Array(cap);
    seq.set(this.heapSeq);
    this.heapSeq = seq;
    const tag = new Int32Array(cap);
    tag.set(this.heapTag);
    this.heapTag = tag;
    const unit = new Int32Array(cap);
    unit.set(this.heapUnit);
    this.heapUnit = unit;
  }
}

/** zod schema of {@link ExecUnitsParams} (the Spec of the units that embed the pipelines). */
export const execUnitsSpec = z.strictObject({
  units: z
    .array(
      z.strictObject({
        name: z.string().min(1).describe('unit name (sp, sfu, dp, int)'),
        count: z.int().min(1).describe('identical pipelines (pipelines) [-gpgpu_num_<unit>_units]'),
        width: z.int().min(1).optional().describe('SIMD lanes per pipeline (lanes); default the warp size'),
      }),
    )
    .min(1)
    .describe('execution pipeline kinds'),
  warpSize: z.int().min(1).optional().describe('threads per warp (threads); default 32'),
  opClasses: z
    .record(
      z.string(),
      z.strictObject({
        unit: z.string().describe('unit executing the class'),
        latency: z.int().min(1).describe('issue to write-back (core cycles) [-ptx_opcode_latency_*]'),
        initiation: z.int().min(1).describe('cycles before the pipeline accepts the next instruction (core cycles) [-ptx_opcode_initiation_*]'),
      }),
    )
    .optional()
    .describe('timing per opcode class (alu, intMul, intDiv, other, sfu, dp)'),
  execClasses: z
    .array(z.string().nullable())
    .optional()
    .describe('pipeline name per unit class code of instructions that carry their own timing (trace-driven kernels: none, int, sp, dp, sfu, tensor, mem, branch, tex, udp); null = none'),
  resultBusWidth: z.int().min(0).optional().describe('write-backs per cycle (write-backs); 0 or absent = unlimited'),
  maxLatency: z.int().min(1).optional().describe('largest latency with a limited result bus (cycles); default 4096'),
}) satisfies z.ZodType<ExecUnitsParams>;
