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
} as const;

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
}

/** `mem.rsp` payload. */
export interface GpuMemResponse {
  readonly addr: number;
  readonly size: number;
  readonly sm: number;
  readonly write: boolean;
}
