/**
 * Run-wide state the GPU units share that is not hardware: the table of launched kernels (the
 * functional model of each: PTX module, grid, global memory). Hardware state is never shared:
 * units exchange messages. The functional model is global by nature (device memory is one
 * memory, as in GPGPU-Sim, whose timing model drives its functional simulator).
 */
import type { FunctionalKernel } from '../../src/functional/index.ts';

/** One launched kernel. */
export interface KernelEntry {
  /** Kernel id (launch order, from 0). */
  readonly id: number;
  /** Display name (entry name). */
  readonly name: string;
  readonly kernel: FunctionalKernel;
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

  /** Adds a kernel and returns its entry. */
  addKernel(name: string, kernel: FunctionalKernel, regsPerThread: number): KernelEntry {
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

  /** The kernel with id `id`. @throws Error when unknown (a wiring bug) */
  kernel(id: number): KernelEntry {
    const k = this.kernels[id];
    if (k === undefined) throw new Error(`unknown kernel id ${id}`);
    return k;
  }
}
