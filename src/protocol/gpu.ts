/**
 * Message kinds and payloads of the GPU timing model (issue 4). Every unit of the GPU talks
 * through these, port to port; payloads are small JSON-serialisable objects so traces can show
 * them. Kinds are dot-namespaced (DESIGN.md §8).
 *
 * Topology (one SM shown; `GPU.SM[i].*` units exist per SM):
 *
 * ```
 *  GPU.SMWM ──cta.dispatch──► SM.ISSUE ──cta.done──► GPU.SMWM
 *  SM.ISSUE ──fetch.req──► SM.FETCH ──fetch.line──► SM.DECODE ──decode.inst──► SM.ISSUE
 *  SM.ISSUE ──exec.dispatch──► SM.EXEC ──exec.writeback──► SM.ISSUE
 *  SM.ISSUE ──lsu.dispatch──► SM.LSU ──lsu.writeback──► SM.ISSUE
 *  SM.LSU ──mem.readReq/mem.writeReq──► SM.L1D ──► GPU.ICNT ──► GPU.L2[j] ──► GPU.DRAM[j]
 *  (responses, mem.rsp, return the same way)
 * ```
 */

/** All GPU message kinds. */
export const GpuKind = {
  /** SMWM -> ISSUE: start a CTA. */
  ctaDispatch: 'cta.dispatch',
  /** ISSUE -> SMWM: a CTA finished (all its warps exited). */
  ctaDone: 'cta.done',
  /** ISSUE -> FETCH: fetch for a warp from `pc` (after its iBuffer drained or was flushed). */
  fetchReq: 'fetch.req',
  /** FETCH -> DECODE: instructions fetched for a warp. */
  fetchLine: 'fetch.line',
  /** DECODE -> ISSUE: decoded instructions for a warp's iBuffer. */
  decodeInst: 'decode.inst',
  /** ISSUE -> EXEC: an ALU/SFU/DP instruction entering its pipeline. */
  execDispatch: 'exec.dispatch',
  /** EXEC -> ISSUE: results written back (scoreboard release). */
  execWriteback: 'exec.writeback',
  /** ISSUE -> LSU: a memory instruction with its per-lane addresses. */
  lsuDispatch: 'lsu.dispatch',
  /** LSU -> ISSUE: a memory instruction completed (loads: data ready; stores: accepted). */
  lsuWriteback: 'lsu.writeback',
  /** Memory requests and responses (L1D, interconnect, L2, DRAM). */
  readReq: 'mem.readReq',
  writeReq: 'mem.writeReq',
  rsp: 'mem.rsp',
  /** L1D -> (a spliced unit such as a victim cache): a valid line left the L1D. */
  evict: 'mem.evict',
  /** L1D -> FETCH: the L1D's MSHR occupancy changed (the L1I prefetch gate, 004 §3.5). */
  l1dMshr: 'l1d.mshr',
  /** Lifecycle control (SMWM or a controller -> a unit's `ctrl` port): see `src/sim/lifecycle.ts`. */
  ctrlPause: 'ctrl.pause',
  ctrlResume: 'ctrl.resume',
  ctrlGate: 'ctrl.gate',
  ctrlWake: 'ctrl.wake',
  /** Unit -> controller on its `status` port: a lifecycle state was reached (paused, gated, active). */
  ctrlAck: 'ctrl.ack',
} as const;

/** `l1d.mshr` payload: MSHR entries in use at the end of the L1D's cycle (entries). */
export interface L1dMshrOccupancy {
  readonly occupancy: number;
}

/** Every GPU message kind name. */
export type GpuKindName = (typeof GpuKind)[keyof typeof GpuKind];

/** The lifecycle control kinds a unit's `ctrl` port accepts. */
export const CTRL_KINDS = [GpuKind.ctrlPause, GpuKind.ctrlResume, GpuKind.ctrlGate, GpuKind.ctrlWake] as const;

/** `cta.dispatch` payload. */
export interface CtaDispatch {
  /** Kernel id in the run's kernel table. */
  readonly kernel: number;
  /** Linear CTA index in the grid. */
  readonly cta: number;
}

/** `cta.done` payload. */
export interface CtaDone {
  readonly kernel: number;
  readonly cta: number;
  readonly sm: number;
  /** Warp instructions the CTA executed. */
  readonly warpInsts: number;
  /** Thread instructions the CTA executed. */
  readonly threadInsts: number;
}

/** `fetch.req` payload. */
export interface FetchReq {
  /** Warp slot in the SM. */
  readonly warp: number;
  /** Instruction index (the PC in IR units) to fetch from. */
  readonly pc: number;
  /** Function index in the module (for `call`). */
  readonly fn: number;
  /** Instructions wanted (free iBuffer entries). */
  readonly count: number;
  /** iBuffer generation: fetches for an older generation are dropped at ISSUE (flushed). */
  readonly gen: number;
  /**
   * Fetch priority from the warp scheduler policy (lower first; ELF's coordinated fetch), read by
   * the `warpPriority` fetch policy; absent when the policy gives none.
   */
  readonly priority?: number;
}

/** `fetch.line` and `decode.inst` payload. */
export interface FetchedInsts {
  readonly warp: number;
  readonly pc: number;
  readonly fn: number;
  readonly count: number;
  readonly gen: number;
}

/** `exec.dispatch` payload. */
export interface ExecDispatch {
  readonly warp: number;
  /** Execution-unit index in the SM's unit table (sp, sfu, dp, int ...). */
  readonly unit: number;
  /** Cycles until write-back. */
  readonly latency: number;
  /** Cycles before the unit accepts the next instruction. */
  readonly initiation: number;
  /** Destination register indices to release at write-back (empty for none). */
  readonly dst: readonly number[];
  /** Issue sequence number (joins dispatch and write-back in traces). */
  readonly seq: number;
}

/** `exec.writeback` / `lsu.writeback` payload. */
export interface Writeback {
  readonly warp: number;
  readonly dst: readonly number[];
  readonly seq: number;
  /** Long-latency producer (a load from global/local memory). */
  readonly longLatency: boolean;
}

/** `lsu.dispatch` payload. */
export interface LsuDispatch {
  readonly warp: number;
  /** State space code of the access (IR `StateSpace`): global, shared, local, const, param. */
  readonly space: number;
  readonly isLoad: boolean;
  /** Bytes per lane. */
  readonly bytes: number;
  /** Active-lane mask (32 bits). */
  readonly mask: number;
  /** Per-lane effective addresses (absolute, for the active lanes; 0 elsewhere). */
  readonly addresses: readonly number[];
  /** Destination registers to release when the load completes. */
  readonly dst: readonly number[];
  readonly seq: number;
  /** Atomic (read-modify-write at L2). */
  readonly atomic: boolean;
  /**
   * Texture fetch (`space` is `StateSpace.Tex`): the byte address of every texel the warp's
   * active lanes read (1 per lane for point sampling, 2-8 for linear filtering, 4 for `tld4`);
   * `bytes` is the texel size. Absent for every other instruction.
   */
  readonly texels?: readonly number[];
}

/** `mem.readReq` / `mem.writeReq` payload between L1D, interconnect, L2 and DRAM. */
export interface GpuMemRequest {
  /** Line- or sector-aligned byte address. */
  readonly addr: number;
  /** Bytes requested. */
  readonly size: number;
  /** Requesting SM (responses route back to it). */
  readonly sm: number;
  /** Atomic operation (performed at L2). */
  readonly atomic?: boolean;
  /**
   * Local-memory access (LSU -> L1D only): selects the local write-back policy of a
   * `localWbGlobalWe` L1D (GTX480 `L`). Absent = global.
   */
  readonly local?: boolean;
  /**
   * A texture-cache line read (LSU -> L1D -> below): the L1D forwards it down without a lookup,
   * as GPGPU-Sim's texture and data caches share the core's memory port. Absent = not texture.
   */
  readonly tex?: boolean;
  /**
   * Warp slot in the SM that issued the access (LSU -> L1D; the LSU fills it for every global,
   * local and atomic transaction). The L1D's NewCAR re-execution queue orders a warp's requests
   * by it (paper 004 §3.4 Fig. 6; spec `warp-level.md` §4 C10). Absent for requests of no warp
   * (texture-cache line reads, lines and writes the L1D sends down).
   */
  readonly warp?: number;
}

/** `mem.rsp` payload. */
export interface GpuMemResponse {
  readonly addr: number;
  readonly size: number;
  readonly sm: number;
  readonly write: boolean;
}

/** Control header of every memory packet, bytes (GPGPU-Sim `READ_PACKET_SIZE`). */
export const MEM_HEADER_BYTES = 8;

/**
 * Bytes a memory packet occupies on a link.
 * @param kind `mem.readReq`, `mem.writeReq` or `mem.rsp`.
 * @param dataBytes bytes of data moved by the access.
 * @param isWriteAck for a `mem.rsp` that acknowledges a write (no data): header only.
 * @returns header bytes for read requests and write acks, header + data otherwise.
 */
export function memPacketBytes(kind: string, dataBytes: number, isWriteAck = false): number {
  if (kind === GpuKind.readReq || isWriteAck) return MEM_HEADER_BYTES;
  return MEM_HEADER_BYTES + dataBytes;
}

/** Payload of every lifecycle command (`ctrl.pause`, `ctrl.resume`, `ctrl.gate`, `ctrl.wake`). */
export interface CtrlCommand {
  /** Who asked (unit name), for traces. */
  readonly from?: string;
}

/** `ctrl.ack` payload: the lifecycle state a unit reached, and when. */
export interface CtrlAck {
  /** Instance name of the unit, e.g. `GPU.SM[3].ISSUE`. */
  readonly unit: string;
  readonly state: 'active' | 'draining' | 'paused' | 'gated';
  /** Cycle of the unit's clock at which the state was entered. */
  readonly cycle: number;
}

/** `mem.evict` payload: a line the L1D evicted (replacement or invalidation). */
export interface L1dEviction {
  /** Line-aligned byte address. */
  readonly addr: number;
  /** Line size, bytes. */
  readonly size: number;
  readonly sm: number;
  /** The line was dirty (its data also goes down as a write-back). */
  readonly dirty: boolean;
}

/**
 * Kind -> payload type map of the GPU protocol: what `OutPort.send(kind, payload)` carries for
 * each kind. Units and tests type payloads with `GpuPayload<'mem.rsp'>`.
 */
export interface GpuPayloads {
  'cta.dispatch': CtaDispatch;
  'cta.done': CtaDone;
  'fetch.req': FetchReq;
  'fetch.line': FetchedInsts;
  'decode.inst': FetchedInsts;
  'exec.dispatch': ExecDispatch;
  'exec.writeback': Writeback | { readonly items: readonly Writeback[] };
  'lsu.dispatch': LsuDispatch;
  'lsu.writeback': Writeback | { readonly items: readonly Writeback[] };
  'mem.readReq': GpuMemRequest;
  'mem.writeReq': GpuMemRequest;
  'mem.rsp': GpuMemResponse;
  'mem.evict': L1dEviction;
  'l1d.mshr': L1dMshrOccupancy;
  'ctrl.pause': CtrlCommand;
  'ctrl.resume': CtrlCommand;
  'ctrl.gate': CtrlCommand;
  'ctrl.wake': CtrlCommand;
  'ctrl.ack': CtrlAck;
}

/** The payload type of GPU message kind `K`. */
export type GpuPayload<K extends GpuKindName> = GpuPayloads[K];
