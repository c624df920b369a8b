/**
 * Ports: the only way units talk (DESIGN.md §3).
 *
 * An {@link OutPort} has a bounded buffer of messages the unit has sent but its link has not yet
 * put on the wire. A full buffer refuses the send; the sender keeps the item and is woken when
 * the link drains a slot. The link attached to it is called directly on every send; the RxJS
 * stream `sent$` carries the same sends to observers, and costs nothing while nobody observes it
 * (issue 11: no RxJS machinery on a message nobody observes). An {@link InPort} has a bounded buffer of delivered messages the unit has not consumed;
 * its link only injects a message when the in-port has a free credit, so back-pressure
 * propagates from a slow consumer to its producers.
 */
import { Subject } from 'rxjs';
import { Fifo } from './fifo.ts';
import type { Message, SendOptions } from './message.ts';
import type { Picoseconds } from '../sim/time.ts';
import { SimulationError } from '../errors.ts';

/** What ports need from the engine; implemented by the engine. */
export interface PortHost {
  /** Current simulated time, ps. */
  readonly now: Picoseconds;
  /** Next deterministic message id. */
  nextMessageId(): number;
  /** Wakes the owning unit at `now` (deduplicated per time); `explicit` for room, false for arrivals. */
  wakeOwner(owner: PortOwner, explicit: boolean): void;
  /** Whether occupancy counters are being observed (cheap check on the hot path). */
  readonly occupancyObserved: boolean;
  /** Reports a port's new occupancy (only called when observed). */
  reportOccupancy(port: OutPort | InPort, occupancy: number): void;
}

/** The unit a port belongs to, as ports see it. */
export interface PortOwner {
  /** Instance name, e.g. `GPU.SM[0].L1D`. */
  readonly name: string;
}

/** Something that reacts to an out-port's sends and an in-port's consumption (a link). */
export interface PortListener {
  /** Called when the in-port at the far end frees a slot. */
  creditReturned(): void;
}

/** The link draining an out-port: told of every accepted send, synchronously, before observers. */
export interface SendListener {
  /** Called after a message entered the out-port's buffer. */
  messageSent(): void;
}

/** Sending side of a unit: bounded buffer drained by one link. */
export class OutPort {
  /** Port name within its unit, e.g. `req` or `out[3]`. */
  readonly name: string;
  /** Owning unit. */
  readonly owner: PortOwner;
  /** Buffer capacity in messages (>= 1). */
  readonly capacity: number;
  /** Messages sent and not yet injected by the link. Owned by the link once bound. */
  readonly buffer: Fifo<Message>;
  /** Every accepted send, in order, for observers (the link is called directly, see {@link attach}). */
  readonly sent$ = new Subject<Message>();
  private sender: SendListener | null = null;
  /** Destination unit and port names, set when a link binds this port. */
  dst = '';
  dstPort = '';
  /** Set when a send was refused; cleared when the owner is woken for room. */
  waitingForRoom = false;
  /** Sends refused because the buffer was full (a resFail-like counter). */
  refused = 0;
  private readonly host: PortHost;
  private bound = false;

  constructor(host: PortHost, owner: PortOwner, name: string, capacity: number) {
    if (!(capacity >= 1)) throw new RangeError(`port ${owner.name}.${name}: capacity must be >= 1`);
    this.host = host;
    this.owner = owner;
    this.name = name;
    this.capacity = capacity;
    this.buffer = new Fifo<Message>(Math.min(capacity, 64));
    this.fullName = `${owner.name}.${name}`;
  }

  /** Full name `unit.port` (built once: traces and occupancy reports read it per change). */
  readonly fullName: string;

  /** Whether a link is attached. */
  get isBound(): boolean {
    return this.bound;
  }

  /** Marks the port bound to a link (by the link). */
  bind(dst: string, dstPort: string): void {
    if (this.bound) throw new SimulationError(`port ${this.fullName} is already connected to ${this.dst}.${this.dstPort}`);
    this.bound = true;
    this.dst = dst;
    this.dstPort = dstPort;
  }

  /** Attaches the link that drains this port (called on every accepted send); null detaches it. */
  attach(sender: SendListener | null): void {
    this.sender = sender;
  }

  /**
   * Whether a send would be accepted now. Asking counts as interest: when the answer is no, the
   * owner is woken once room frees, as after a refused send (so a unit that checks before it
   * commits to an action never sleeps forever on a full port).
   */
  get hasRoom(): boolean {
    if (this.buffer.length < this.capacity) return true;
    this.waitingForRoom = true;
    return false;
  }

  /**
   * Sends a message. Returns the message, or `null` when the buffer is full: the caller keeps
   * the item and will be woken when room frees.
   * @throws SimulationError when the port is not connected
   */
  send<P>(kind: string, payload: P, options?: SendOptions): Message<P> | null {
    if (this.buffer.length >= this.capacity) {
      this.waitingForRoom = true;
      this.refused++;
      return null;
    }
    if (!this.bound) throw new SimulationError(`send on unconnected port ${this.fullName} (kind ${kind})`);
    const host = this.host;
    const replyTo = options?.replyTo;
    const msg: Message<P> = {
      id: host.nextMessageId(),
      kind,
      src: this.owner.name,
      srcPort: this.name,
      dst: this.dst,
      dstPort: this.dstPort,
      sendTime: host.now,
      deliverTime: -1,
      bytes: options?.bytes ?? 0,
      replyTo: replyTo === undefined ? -1 : typeof replyTo === 'number' ? replyTo : replyTo.id,
      payload,
    };
    this.buffer.push(msg);
    if (host.occupancyObserved) host.reportOccupancy(this, this.buffer.length);
    this.sender?.messageSent();
    if (this.sent$.observed) this.sent$.next(msg);
    return msg;
  }

  /** Removes the head for injection (link only); wakes a refused sender. */
  take(): Message | undefined {
    const msg = this.buffer.shift();
    if (msg !== undefined) {
      if (this.host.occupancyObserved) this.host.reportOccupancy(this, this.buffer.length);
      if (this.waitingForRoom) {
        this.waitingForRoom = false;
        this.host.wakeOwner(this.owner, true);
      }
    }
    return msg;
  }
}

/** Receiving side of a unit: bounded buffer of delivered messages, credit-controlled. */
export class InPort {
  /** Port name within its unit. */
  readonly name: string;
  /** Owning unit. */
  readonly owner: PortOwner;
  /** Capacity in messages, counting those in flight towards it (credits). */
  readonly capacity: number;
  /** Delivered, not yet consumed. */
  readonly buffer: Fifo<Message>;
  /** Messages injected by the link and not yet delivered. */
  inFlight = 0;
  private readonly host: PortHost;
  private listener: PortListener | null = null;

  constructor(host: PortHost, owner: PortOwner, name: string, capacity: number) {
    if (!(capacity >= 0)) throw new RangeError(`port ${owner.name}.${name}: capacity must be >= 0`);
    this.host = host;
    this.owner = owner;
    this.name = name;
    this.capacity = capacity;
    this.buffer = new Fifo<Message>(Math.max(2, Math.min(capacity, 64)));
    this.fullName = `${owner.name}.${name}`;
  }

  /** Full name `unit.port` (built once: traces and occupancy reports read it per change). */
  readonly fullName: string;

  /** Whether a link is attached. */
  get isBound(): boolean {
    return this.listener !== null;
  }

  /** Attaches the link feeding this port. */
  bind(listener: PortListener, srcName: string): void {
    if (this.listener !== null) throw new SimulationError(`port ${this.fullName} already has a link (second one from ${srcName})`);
    this.listener = listener;
  }

  /** Free credits: messages that may still be injected towards this port. */
  get credits(): number {
    return this.capacity - this.buffer.length - this.inFlight;
  }

  /** Number of delivered, unconsumed messages. */
  get length(): number {
    return this.buffer.length;
  }

  /** The oldest delivered message without consuming it. */
  peek(): Message | undefined {
    return this.buffer.peek();
  }

  /** Consumes the oldest delivered message and returns a credit to the link. */
  recv(): Message | undefined {
    const msg = this.buffer.shift();
    if (msg !== undefined) {
      if (this.host.occupancyObserved) this.host.reportOccupancy(this, this.buffer.length);
      this.listener?.creditReturned();
    }
    return msg;
  }

  /** Delivery from the link (engine only). */
  arrive(msg: Message): void {
    this.inFlight--;
    this.buffer.push(msg);
    if (this.host.occupancyObserved) this.host.reportOccupancy(this, this.buffer.length);
    this.host.wakeOwner(this.owner, false);
  }
}
