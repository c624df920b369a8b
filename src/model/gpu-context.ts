/**
 * Run-wide state the GPU units share that is not hardware: the table of launched kernels (the
 * functional model of each: PTX module, grid, global memory). Hardware state is never shared:
 * units exchange messages. The functional model is global by nature (device memory is one
 * memory, as in GPGPU-Sim, whose timing model drives its functional simulator).
 */
import type { WarpStepInfo } from '../../src/functional/index.ts';
import { annotateModule, type AnnotationOptions, type FunctionAnnotation } from '../../src/isa/annotations.ts';
import type { Instruction, PtxModule } from '../../src/isa/ir.ts';

/**
 * What the SM issue stage needs of a warp: the execution-driven PTX warp
 * (`FunctionalWarp`) implements it, and so can a trace-driven warp (Accel-Sim SASS traces).
 */
export interface TimingWarp {
  /** Next instruction's PC (index in its function's code), or -1 when done. */
  readonly pc: number;
  /** Function index of the next instruction. */
  readonly functionIndex: number;
  /** The next instruction (static properties: opClass, registers, latency class). */
  readonly nextInstruction: Pick<Instruction, 'opClass' | 'srcRegs' | 'dstRegs' | 'longLatency' | 'line'> | undefined;
  /** Finished. */
  readonly done: boolean;
  /** Barrier id the warp waits at, or -1. */
  readonly atBarrier: number;
  /** `%clock` value the issue stage sets before each step. */
  clock: number;
  /** Executes (or replays) the next instruction and describes it in `info`. */
  step(info: WarpStepInfo): void;
}

/** What the issue stage needs of a CTA. */
export interface TimingCta {
  readonly warps: readonly TimingWarp[];
}

/** What the GPU needs of a kernel: its code, its grid, and CTAs on demand. */
export interface TimingKernel {
  /** Static code per function (`instructions[pc]`); registers per function for the scoreboard. */
  readonly module: { readonly functions: readonly { readonly instructions: readonly Pick<Instruction, 'opClass' | 'srcRegs' | 'dstRegs' | 'longLatency' | 'line'>[]; readonly registers: readonly unknown[] }[] };
  readonly ctaCount: number;
  readonly threadsPerCta: number;
  /** Creates CTA `index` (linear) on SM `smId`. */
  createCta(index: number, smId: number): TimingCta;
  /** Returns a finished CTA for reuse. */
  releaseCta(cta: TimingCta): void;
  /**
   * Bytes per instruction in the instruction address space: the L1I fetches instruction index i
   * at `0xF0000000 + i x instructionBytes` (GPGPU-Sim PROGRAM_MEM_START + PC). A SASS trace
   * states its PC step (Accel-Sim fetches at the trace PCs); absent: 16 (src/topology/gpu-sm.ts).
   */
  readonly instructionBytes?: number;
}

/** One launched kernel. */
export interface KernelEntry {
  /** Kernel id (launch order, from 0). */
  readonly id: number;
  /** Display name (entry name). */
  readonly name: string;
  readonly kernel: TimingKernel;
  /**
   * Offset of each function's registers in a warp's combined register space, so the scoreboard
   * can track registers of called `.func`s without collisions (index = offset[fn] + reg).
   */
  readonly regOffset: Int32Array;
  /** Size of the combined register space. */
  readonly regCount: number;
  /** Registers per thread as the occupancy calculation sees them. */
  readonly regsPerThread: number;
}

/** Shared, run-wide context given to GPU units as a parameter. */
export class GpuContext {
  readonly kernels: KernelEntry[] = [];
  /**
   * How {@link staticTables} analyses a kernel (latency model of the phase lengths, ELF program
   * point limit ...): set by the GPU builder from the config (`src/topology/gpu-sm.ts`); the
   * default prices every instruction 1 cycle.
   */
  annotationOptions: AnnotationOptions = { phaseLatency: 'unit' };
  private readonly tables = new Map<number, readonly FunctionAnnotation[] | null>();

  /** Adds a kernel and returns its entry. */
  addKernel(name: string, kernel: TimingKernel, regsPerThread: number): KernelEntry {
    const fns = kernel.module.functions;
    const regOffset = new Int32Array(fns.length);
    let total = 0;
    for (let f = 0; f < fns.length; f++) {
      regOffset[f] = total;
      total += fns[f]!.registers.length;
    }
    const entry: KernelEntry = { id: this.kernels.length, name, kernel, regOffset, regCount: Math.max(1, total), regsPerThread };
    this.kernels.push(entry);
    return entry;
  }

  /**
   * The static per-function tables of kernel `id` (phases, phase distances and lengths, ELF
   * priorities, control classes: `src/isa/annotations.ts`), indexed by function; computed on
   * first use (policies that need them ask at CTA start) with {@link annotationOptions}. Null
   * when the kernel's code is not PTX IR: an Accel-Sim SASS trace carries no opcodes, branch
   * targets or guards to analyse.
   */
  staticTables(id: number): readonly FunctionAnnotation[] | null {
    let t = this.tables.get(id);
    if (t === undefined) {
      const module = this.kernel(id).kernel.module;
      const first = module.functions.find((f) => f.instructions.length > 0)?.instructions[0];
      t = first !== undefined && 'op' in first ? annotateModule(module as unknown as PtxModule, this.annotationOptions) : null;
      this.tables.set(id, t);
    }
    return t;
  }

  /** The kernel with id `id`. @throws Error when unknown (a wiring bug) */
  kernel(id: number): KernelEntry {
    const k = this.kernels[id];
    if (k === undefined) throw new Error(`unknown kernel id ${id}`);
    return k;
  }
}
