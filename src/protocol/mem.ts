/**
 * Message kinds and payloads shared by the generic memory-request units (traffic generator,
 * crossbar, fixed-latency memory). GPU memory units define their own richer kinds later.
 */

/** `mem.readReq` / `mem.writeReq` payload. */
export interface MemRequest {
  /** Byte address. */
  readonly addr: number;
  /** Access size in bytes. */
  readonly size: number;
  /** Value to store (writes only). */
  readonly data?: number;
}

/** `mem.rsp` payload. */
export interface MemResponse {
  /** Byte address of the request. */
  readonly addr: number;
  /** Value read (reads) or written (writes). */
  readonly data: number;
  /** True for a write acknowledgement. */
  readonly write: boolean;
}

/** Message kinds, dot-namespaced (DESIGN.md §8). */
export const MemKind = {
  readReq: 'mem.readReq',
  writeReq: 'mem.writeReq',
  rsp: 'mem.rsp',
} as const;

/** Control message kinds. */
export const CtrlKind = {
  pause: 'ctrl.pause',
  resume: 'ctrl.resume',
} as const;
