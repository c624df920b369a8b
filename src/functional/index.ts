/**
 * warpstate's functional model (GitHub issue 3, items 4 and 6): executes PTX kernels warp
 * instruction by warp instruction, for the timing model (`FunctionalKernel` -> `createCta` ->
 * `FunctionalWarp.step`) or on its own (`runFunctional`).
 */

export { FunctionalKernel, DEVICE_OUTPUT_LIMIT, type Dim3, type KernelArg, type KernelLaunch } from './kernel.ts';
export { FunctionalCta } from './cta.ts';
export { FunctionalWarp } from './warp.ts';
export { WarpStepInfo } from './step-info.ts';
export { runFunctional, type RunOptions, type RunResult } from './run.ts';
export {
  GlobalMemory,
  ByteStore,
  FunctionalFault,
  MemoryAccessFault,
  SHARED_WINDOW_BASE,
  LOCAL_WINDOW_BASE,
  PARAM_WINDOW_BASE,
  CONST_WINDOW_BASE,
  WINDOW_SIZE,
  GLOBAL_HEAP_BASE,
  PAGE_BYTES,
  type Allocation,
  type FunctionalFaultDetails,
} from './memory.ts';
export { compileKernel, type CompiledKernel, type CompiledFunction } from './compile.ts';
export { InstrKind, type CompiledInstr, type CallPlan, type IndirectCall } from './exec-types.ts';
export { formatDevicePrintf, MAX_PRINTF_STRING, type PrintfSource } from './printf.ts';
export {
  TextureTable,
  BoundTexture,
  TextureFault,
  NO_TEXTURES,
  CHANNEL_BYTES,
  textureProblem,
  footprintBytes,
  type TextureDesc,
  type ChannelType,
  type AddressMode,
  type FilterMode,
  type ReadMode,
} from './texture.ts';
