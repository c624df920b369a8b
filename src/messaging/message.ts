/**
 * The message envelope every unit exchange uses (DESIGN.md §3).
 */
import type { Picoseconds } from '../sim/time.ts';

/**
 * A timestamped message between two units.
 *
 * `id` is deterministic (a per-run counter). A response carries the request's id in `replyTo`
 * so a trace can join the pair. `bytes` is the size used for byte-bandwidth links (0 = control).
 */
export interface Message<P = unknown> {
  /** Deterministic id, unique within a run. */
  readonly id: number;
  /** Dot-namespaced kind, e.g. `mem.readReq`, `mem.rsp`, `ctrl.pause`. */
  readonly kind: string;
  /** Sending unit instance name, e.g. `GPU.SM[3].L1D`. */
  readonly src: string;
  /** Sending port name, e.g. `req` or `out[2]`. */
  readonly srcPort: string;
  /** Destination unit instance name (set when the link is bound). */
  readonly dst: string;
  /** Destination port name. */
  readonly dstPort: string;
  /** Time the sender sent it, ps. */
  readonly sendTime: Picoseconds;
  /** Time it reaches the destination port, ps (-1 until the link injects it). */
  deliverTime: Picoseconds;
  /** Size in bytes for bandwidth accounting; 0 for control messages. */
  readonly bytes: number;
  /** Id of the request this message answers, or -1. */
  readonly replyTo: number;
  /** Kind-specific content; must be JSON-serialisable (bigints are written as strings). */
  readonly payload: P;
}

/** Options for a send. */
export interface SendOptions {
  /** Size in bytes for byte-bandwidth links. Default 0. */
  bytes?: number;
  /** The request this answers (its message or id). */
  replyTo?: Message | number;
}
