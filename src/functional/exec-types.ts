/**
 * Shared runtime types of the functional executor: the warp state that compiled instruction
 * closures read and write, and the compiled-instruction record.
 *
 * Register file layout (per warp, one `ArrayBuffer` viewed as u32/i32/f32/f64/u64/s64):
 * - a register of 8/16/32 bits owns 32 consecutive u32 words, lane `l` at `slot + l` (8/16-bit
 *   values are stored zero-extended);
 * - a 64-bit register owns 64 words (`slot` even), lane `l` at words `slot + 2l` (low) and
 *   `slot + 2l + 1` (high), i.e. at index `slot/2 + l` of the 64-bit views;
 * - immediates and special registers get read-only blocks of the same shapes, so every source
 *   operand is a slot;
 * - predicates are bit masks (bit `l` = lane `l`) in a separate `Int32Array`, which makes guard
 *   evaluation and branch decisions one AND per warp instruction.
 */

import type { BarRedOp, Instruction, StateSpace, Syscall } from '../isa/ir.ts';
import type { ByteStore, GlobalMemory } from './memory.ts';
import type { TextureTable } from './texture.ts';

/** The per-warp state an instruction closure works on (implemented by `FunctionalWarp`). */
export interface ExecWarp {
  readonly u32: Uint32Array;
  readonly i32: Int32Array;
  readonly f32: Float32Array;
  readonly f64: Float64Array;
  readonly u64: BigUint64Array;
  readonly s64: BigInt64Array;
  /** Predicate registers as lane bit masks. */
  readonly preds: Int32Array;
  /** Device global memory. */
  readonly gmem: GlobalMemory;
  /** The CTA's shared memory and its size in bytes. */
  readonly shared: ByteStore;
  readonly sharedBytes: number;
  /** Local memory of the warp's 32 threads: lane `l` at byte `l * localStride`; `localBytes` usable per thread. */
  readonly local: ByteStore;
  readonly localStride: number;
  readonly localBytes: number;
  /** Kernel const bank and parameter buffer. */
  readonly cnst: ByteStore;
  readonly constBytes: number;
  readonly param: ByteStore;
  readonly paramBytes: number;
  /** Address of every variable by id, in its own space (see `FunctionalKernel`). */
  readonly symAddr: Float64Array;
  /** Per-lane effective addresses of the current memory instruction (the step info's array). */
  addresses: Float64Array;
  /** Space the current generic access resolved to over all lanes (set by memory closures; -1 before the first lane). */
  resolvedSpace: number;
  /** Space and store of the lane being accessed (set by the address resolver). */
  laneSpace: number;
  memStore: ByteStore;
  /** 32-word scratch for cross-lane operations. */
  readonly scratch: Uint32Array;
  /** Texture and surface objects of the launch (handles of `tex`/`suld`/`sust`/`txq`/`suq`). */
  readonly textures: TextureTable;
  /** Texel byte addresses the current `tex`/`tld4` read, in lane order (the step info's array, 256 entries). */
  texels: Float64Array;
  /** Entries of {@link texels} written by the current fetch. */
  texelCount: number;
  /** Bytes per texel of the current fetch (the element size of its texture). */
  texelBytes: number;
}

/** Executes one instruction for the lanes set in `mask` (never 0). */
export type Exec = (w: ExecWarp, mask: number) => void;

/** How the warp must treat a compiled instruction. */
export const InstrKind = {
  /** Data instruction: run `exec`, go to pc+1. */
  Normal: 0,
  /** Memory instruction (ld/st/atom/red): like Normal, plus addresses. */
  Memory: 1,
  Branch: 2,
  Exit: 3,
  Ret: 4,
  Call: 5,
  Barrier: 6,
  /** No functional effect (membar/fence, bar.warp.sync): go to pc+1. */
  Nop: 7,
  /** `call` of a runtime service (`vprintf`, `__assertfail`): executed by the warp, go to pc+1. */
  Syscall: 8,
  /** `nanosleep`: no functional effect; the duration is reported to the timing model. */
  Sleep: 9,
  /** `trap`: aborts the kernel with a fault report. */
  Trap: 10,
  /** `tex`/`tld4`: like Memory, plus the texel addresses ({@link ExecWarp.texels}) for the timing model. */
  Texture: 11,
  /**
   * `call` through a function pointer: each lane's pointer names its callee; lanes calling
   * different functions run one callee after the other (see `warp.ts`).
   */
  CallIndirect: 12,
} as const;
/** An {@link InstrKind} code. */
export type InstrKind = (typeof InstrKind)[keyof typeof InstrKind];

/** A register or constant operand mapped to its storage. */
export interface Slot {
  /** Word index (data) or predicate index (predicates). */
  readonly slot: number;
  /** Storage width: 8, 16, 32, 64, or 1 for a predicate. */
  readonly bits: number;
  /** Logical negation of a predicate source. */
  readonly neg: boolean;
}

/** One instruction, ready to execute. */
export interface CompiledInstr {
  readonly ins: Instruction;
  readonly kind: InstrKind;
  /** Work of Normal/Memory instructions (a no-op for others). */
  readonly exec: Exec;
  /** Guard predicate index, or -1. */
  readonly guard: number;
  readonly guardNeg: boolean;
  /** Branch target PC (Branch). */
  readonly target: number;
  /** Reconvergence PC (Branch): the immediate post-dominator, `code.length` for the function exit. */
  readonly rpc: number;
  /** The instruction reads a clock special register: refresh those slots before `exec`. */
  readonly readsClock: boolean;
  /** Memory instructions: space, bytes per lane, load/store flags. */
  readonly space: StateSpace;
  readonly accessBytes: number;
  readonly isLoad: boolean;
  readonly isStore: boolean;
  /** Barrier: id operand and optional thread-count operand (slot or -1 when absent). */
  readonly barId: Slot | undefined;
  readonly barCount: Slot | undefined;
  /** `bar.arrive` (do not wait). */
  readonly barArrive: boolean;
  /** `bar.red`: reduction ({@link BarRedOp} code, 0 for a plain barrier), predicate source and destination. */
  readonly barRed: BarRedOp;
  readonly barPred: Slot | undefined;
  readonly barDst: Slot | undefined;
  /** `nanosleep`: the duration operand (ns). */
  readonly sleepNs: Slot | undefined;
  /** Call of a runtime service: its {@link Syscall} code (0 otherwise). */
  readonly syscall: Syscall;
  /** Call: callee function index. */
  readonly callee: number;
  /** Call: how arguments and return values move between the frames. */
  readonly call: CallPlan | undefined;
  /** Indirect call ({@link InstrKind.CallIndirect}): the pointer and a plan per possible callee. */
  readonly indirect: IndirectCall | undefined;
}

/**
 * An indirect `call` (PTX ISA §9.7.12.2): where each lane's function pointer is, and the frame
 * transfers for each function it may name.
 */
export interface IndirectCall {
  /** The pointer register (32 or 64 bits; the value is a function address, `ir.ts` `functionAddress`). */
  readonly fptr: Slot;
  /**
   * Frame transfers by module function index; undefined for a function the call cannot reach (not
   * in its `.calltargets`, another prototype, or no body): a pointer to it is a fault.
   */
  readonly plans: readonly (CallPlan | undefined)[];
}

/**
 * Argument and return-value transfers of a `call` (PTX ISA §9.7.12.2): each moves `size` bytes
 * per lane between a register (or immediate) or a caller `.param` variable and a callee
 * parameter, all `.param` storage living in the per-thread frames in local memory.
 */
export interface CallPlan {
  /** Copies into the callee's parameters at the call. */
  readonly args: readonly FrameCopy[];
  /** Copies out of the callee's return parameters at its `ret`. */
  readonly rets: readonly FrameCopy[];
}

/** One transfer: from a register (`reg`) or a frame offset (`fromOff`) to a register or a frame offset (`toOff`). */
export interface FrameCopy {
  /** Register side (source for args, destination for rets), or undefined for a `.param` variable. */
  readonly reg: Slot | undefined;
  /** Frame byte offset of the `.param` variable side (when `reg` is undefined). */
  readonly varOff: number;
  /** Frame byte offset of the callee parameter. */
  readonly paramOff: number;
  /** Bytes moved. */
  readonly size: number;
}
