/** Test helpers for the functional executor: parse PTX text and run a kernel on fresh memory. */
import { parsePtx } from '../../src/isa/parser.ts';
import type { PtxModule } from '../../src/isa/ir.ts';
import { FunctionalKernel, GlobalMemory, runFunctional, type KernelArg, type RunOptions, type RunResult } from '../../src/functional/index.ts';

/** Standard module header for hand-written test kernels. */
export const HEADER = '.version 8.0\n.target sm_75\n.address_size 64\n';

/** Parses a PTX module (with {@link HEADER} prepended unless the text has its own). */
export function ptx(text: string, file = 'test.ptx'): PtxModule {
  return parsePtx(text.includes('.version') ? text : HEADER + text, file);
}

/** Launch description for {@link launch}. */
export interface TestLaunch {
  readonly module: PtxModule;
  readonly entry: string;
  readonly grid?: number | readonly [number, number, number];
  readonly block: number | readonly [number, number, number];
  readonly args: (mem: GlobalMemory) => KernelArg[];
  readonly dynamicSharedBytes?: number;
  readonly memory?: GlobalMemory;
  readonly run?: RunOptions;
}

/** Builds the kernel and runs it; returns the memory and the run result. */
export function launch(t: TestLaunch): { mem: GlobalMemory; result: RunResult; kernel: FunctionalKernel } {
  const mem = t.memory ?? new GlobalMemory();
  const kernel = new FunctionalKernel({
    module: t.module,
    entry: t.entry,
    grid: t.grid ?? 1,
    block: t.block,
    args: t.args(mem),
    memory: mem,
    dynamicSharedBytes: t.dynamicSharedBytes ?? 0,
  });
  const result = runFunctional(kernel, t.run);
  return { mem, result, kernel };
}
