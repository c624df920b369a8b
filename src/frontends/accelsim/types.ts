/**
 * Shapes of the Accel-Sim SASS trace front end (GitHub issue 5): commands of `kernelslist.g`,
 * kernel headers of `kernel-N.traceg`, and the decoded dynamic warp instruction.
 *
 * Trace format (Accel-Sim tracer versions 3 and 4, as written by its NVBit tool and its
 * post-processing step; read from the Accel-Sim sources `util/tracer_nvbit/tracer_tool/` and
 * `gpu-simulator/trace-parser/`, and checked against the shared traces in
 * `data/accelsim-traces/`): one line per dynamic warp instruction,
 *
 * `[line_num] PC mask dest_num [dests] opcode src_num [srcs] mem_width [mode addresses]`
 *
 * with `PC` and `mask` in hex, counts and `mem_width` (bytes per lane, 0 for a non-memory
 * instruction) in decimal. A memory instruction then gives an {@link AddressMode} and its
 * addresses (see there).
 */
import type { OpClass } from '../../isa/ir.ts';
import type { OpcodeInfo } from './opcodes.ts';

/**
 * Address compression modes of a memory instruction (the digit after `mem_width`):
 * - `ListAll` (0): one hex address per active lane, in lane order.
 * - `BaseStride` (1): hex base and decimal stride (bytes, may be negative). The first active
 *   lane has the base, the k-th active lane `base + k * stride`. Accel-Sim's tracer uses it only
 *   when the active lanes form one contiguous run of at least two lanes with a constant stride
 *   (and, with no active lane at all, it writes `1 0x0 0`).
 * - `BaseDelta` (2): hex base, then one decimal delta per further active lane: each active lane
 *   after the first has the previous active lane's address plus its delta (popcount(mask) - 1
 *   deltas; none for a single lane).
 */
export const AddressMode = { None: -1, ListAll: 0, BaseStride: 1, BaseDelta: 2 } as const;
/** An {@link AddressMode} code. */
export type AddressMode = (typeof AddressMode)[keyof typeof AddressMode];

/** One line of `kernelslist.g`. */
export type TraceCommand = MemcpyCommand | KernelCommand;

/** `MemcpyHtoD,<hex device address>,<decimal bytes>`: the host copies `bytes` bytes to `address`. */
export interface MemcpyCommand {
  readonly kind: 'memcpyHtoD';
  /** Device address (bytes). */
  readonly address: number;
  /** Size in bytes. */
  readonly bytes: number;
  /** 1-based line in `kernelslist.g`. */
  readonly line: number;
}

/** A kernel launch: the name of its trace file (`kernel-N.traceg` or `kernel-N.traceg.xz`). */
export interface KernelCommand {
  readonly kind: 'kernel';
  /** File name as written in `kernelslist.g`, relative to its directory. */
  readonly file: string;
  /** Absolute path of the trace file. */
  readonly path: string;
  /** Index of this kernel in {@link AccelSimTrace.kernels}. */
  readonly kernelIndex: number;
  /** 1-based line in `kernelslist.g`. */
  readonly line: number;
}

/** Three-component dimension (grid in CTAs, CTA in threads, or a CTA id). */
export interface Dim3 {
  readonly x: number;
  readonly y: number;
  readonly z: number;
}

/** The `-key = value` header of a kernel trace file. */
export interface TraceKernelHeader {
  /** `-kernel name` (mangled). */
  readonly name: string;
  /** `-kernel id` (1-based launch number). */
  readonly id: number;
  /** `-grid dim` in CTAs. */
  readonly gridDim: Dim3;
  /** `-block dim` in threads per CTA. */
  readonly blockDim: Dim3;
  /** `-shmem`: shared memory per CTA in bytes (static + dynamic). */
  readonly shmem: number;
  /** `-nregs`: registers per thread. */
  readonly nregs: number;
  /** `-binary version`: SM version x 10 + minor (61 = sm_61). */
  readonly binaryVersion: number;
  /** `-cuda stream id` (the stream handle value). */
  readonly cudaStreamId: number;
  /** `-shmem base_addr`: start of the shared window in the generic address space (bytes). */
  readonly shmemBaseAddr: number;
  /** `-local mem base_addr`: start of the local window in the generic address space (bytes). */
  readonly localMemBaseAddr: number;
  /** `-nvbit version` text (e.g. `1.5.5`), '' when absent. */
  readonly nvbitVersion: string;
  /** `-accelsim tracer version` (3 or 4). */
  readonly tracerVersion: number;
  /** `-enable lineinfo` (tracer 4; absent in tracer 3 and then false). */
  readonly enableLineinfo: boolean;
  /** Header keys warpstate does not know, with their text values. */
  readonly extra: Readonly<Record<string, string>>;
}

/**
 * One decoded dynamic warp instruction. Every object has the same shape. Arrays of length 0
 * are shared empty arrays: do not mutate.
 */
export interface TraceInstruction {
  /** Byte offset of the instruction in the kernel's code. */
  readonly pc: number;
  /** Lanes that executed it (bit i = lane i; guard predicate already applied by the tracer). */
  readonly activeMask: number;
  /** Opcode text as in the trace, modifiers included (`LDG.E.CG`). */
  readonly opcode: string;
  /** Numeric opcode id ({@link OpcodeInfo.id}). */
  readonly opcodeId: number;
  /** Execution class, copied from {@link info} for fast reads. */
  readonly opClass: OpClass;
  /** Static properties of the opcode. */
  readonly info: OpcodeInfo;
  /** General registers written (`R12` -> 12, `RZ` -> 255), in trace order. */
  readonly dstRegs: Int32Array;
  /** Predicate registers written (`P3` -> 3, `PT` -> 7). */
  readonly dstPreds: Int32Array;
  /** General registers read. */
  readonly srcRegs: Int32Array;
  /** Predicate registers read. */
  readonly srcPreds: Int32Array;
  /** Bytes accessed per lane; 0 for a non-memory instruction. */
  readonly memWidth: number;
  /** How the addresses were written ({@link AddressMode}); `None` when `memWidth` is 0. */
  readonly addressMode: AddressMode;
  /**
   * Per-lane byte addresses, length 32 for a memory instruction (0 for inactive lanes), length 0
   * otherwise. Addresses are exact up to 2^53.
   */
  readonly addresses: Float64Array;
  /** Source line (`[line_num]` column when lineinfo is enabled), else 0. */
  readonly sourceLine: number;
  /** 1-based line of this instruction in the trace file. */
  readonly traceLine: number;
}
