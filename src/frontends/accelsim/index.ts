/**
 * Accel-Sim SASS trace front end (GitHub issue 5): lazy reader of `kernelslist.g` +
 * `kernel-N.traceg[.xz]`, SASS opcode mapping, and the trace writer. See `reader.ts`,
 * `kernel-file.ts`, `opcodes.ts` and `writer.ts`.
 */
export * from './types.ts';
export * from './opcodes.ts';
export { parseInstructionLine, popcount32, WARP_SIZE, type LineContext } from './instruction-line.ts';
export { openKernelTrace, TraceKernel, TraceWarp, SUPPORTED_TRACER_VERSIONS, kernelArchName, type TraceCta, type KernelOpenOptions, type ValidateMode } from './kernel-file.ts';
export { openAccelSimTrace, parseKernelsList, kernelFileName, type AccelSimTrace, type AccelSimOpenOptions } from './reader.ts';
export * from './writer.ts';
export * from './sass-names.ts';
