/**
 * Links: the wire between an out-port and an in-port, with latency and bandwidth.
 *
 * A link is attached to its out-port and told of every send. At each edge of its clock it injects up to
 * its bandwidth (messages per cycle, or bytes per cycle with serialisation of larger messages)
 * while the in-port has credits, stamps `deliverTime = now + latency` (latency counted in
 * cycles of the receiving domain, at least 1) and schedules the delivery on the global queue.
 * Deliveries keep injection order.
 */
import type { EventHandler, EventQueue } from '../sim/event-queue.ts';
import { Priority } from '../sim/event-queue.ts';
import type { ClockDomain, Picoseconds } from '../sim/time.ts';
import type { Message } from './message.ts';
import type { InPort, OutPort, PortListener, SendListener } from './port.ts';

/** Link parameters. */
export interface LinkSpec {
  /** Latency in cycles of the receiver's clock domain; >= 1. */
  latencyCycles: number;
  /** Messages injected per link cycle (default 1). Ignored when `bytesPerCycle` is set. */
  messagesPerCycle?: number;
  /**
   * Bytes per link cycle; a message of `b` bytes occupies `ceil(max(b,1) / bytesPerCycle)`
   * cycles of the wire (flit serialisation, as GPGPU-Sim's interconnect flit size).
   */
  bytesPerCycle?: number;
}

/** What a link needs from the engine. */
export interface LinkHost {
  readonly queue: EventQueue;
  readonly now: Picoseconds;
  /** Called at delivery, before the message enters the in-port (observation). */
  delivered(msg: Message): void;
}

/** A point-to-point link from one out-port to one in-port. */
export class Link implements PortListener, SendListener {
  /** `src.port->dst.port`. */
  readonly name: string;
  readonly from: OutPort;
  readonly to: InPort;
  /** Clock the wire is serviced on (the receiver's unless given). */
  readonly clock: ClockDomain;
  /** Clock latency is counted in (the receiver's). */
  readonly dstClock: ClockDomain;
  readonly latencyCycles: number;
  readonly messagesPerCycle: number;
  readonly bytesPerCycle: number;
  /** Messages injected so far. */
  injected = 0;
  /** Bytes injected so far. */
  injectedBytes = 0;
  /** Link cycles in which a message waited for a credit. */
  creditStallCycles = 0;

  private readonly host: LinkHost;
  private serviceScheduled = false;
  /** First link cycle the wire is free again (byte serialisation). */
  private wireFreeCycle = 0;
  private lastServiceCycle = -1;
  /** Messages still injectable in `lastServiceCycle` (message-bandwidth links). */
  private budgetLeft = 0;
  private waitingForCredit = false;
  private readonly serviceHandler: EventHandler;
  private readonly deliverHandler: EventHandler;

  constructor(host: LinkHost, from: OutPort, to: InPort, clock: ClockDomain, dstClock: ClockDomain, spec: LinkSpec) {
    if (!(Number.isInteger(spec.latencyCycles) && spec.latencyCycles >= 1)) {
      throw new RangeError(`link ${from.fullName}->${to.fullName}: latencyCycles must be an integer >= 1`);
    }
    this.host = host;
    this.from = from;
    this.to = to;
    this.clock = clock;
    this.dstClock = dstClock;
    this.latencyCycles = spec.latencyCycles;
    this.messagesPerCycle = spec.messagesPerCycle ?? 1;
    this.bytesPerCycle = spec.bytesPerCycle ?? 0;
    this.name = `${from.fullName}->${to.fullName}`;
    from.bind(to.owner.name, to.name);
    to.bind(this, from.owner.name);
    this.serviceHandler = { fire: () => this.service() };
    this.deliverHandler = {
      fire: (data) => {
        const msg = data as Message;
        this.host.delivered(msg);
        this.to.arrive(msg);
      },
    };
    from.attach(this);
  }

  /** Stops listening to the out-port (engine teardown). */
  dispose(): void {
    this.from.attach(null);
  }

  /** The out-port accepted a send: service the wire now or at its next usable edge. */
  messageSent(): void {
    this.kick();
  }

  /**
   * In-port freed a slot. The credit is usable from the next link cycle: injecting at once
   * would make what the sender sees this cycle depend on whether the receiver ran before it
   * in the same cycle (event order), not on the model.
   */
  creditReturned(): void {
    if (this.waitingForCredit) {
      this.waitingForCredit = false;
      if (this.serviceScheduled) return;
      const clock = this.clock;
      let cycle = clock.cycleAt(this.host.now) + 1;
      if (cycle < this.wireFreeCycle) cycle = this.wireFreeCycle;
      this.serviceScheduled = true;
      this.host.queue.push(clock.timeOfCycle(cycle), Priority.link, this.serviceHandler, null);
    }
  }

  /**
   * Services the wire now when `now` is an edge of the link clock not yet serviced (saves a
   * queue event per hop; same result as a service event at this time), else schedules a service
   * at the next usable edge.
   */
  private kick(): void {
    if (this.serviceScheduled) return;
    const clock = this.clock;
    const now = this.host.now;
    let cycle = clock.cycleAtOrAfter(now);
    const fresh = cycle > this.lastServiceCycle || (cycle === this.lastServiceCycle && this.budgetLeft > 0 && this.bytesPerCycle === 0);
    if (fresh && cycle >= this.wireFreeCycle && clock.timeOfCycle(cycle) === now) {
      this.service();
      return;
    }
    if (cycle < this.lastServiceCycle || (cycle === this.lastServiceCycle && !fresh)) cycle = this.lastServiceCycle + 1;
    if (cycle < this.wireFreeCycle) cycle = this.wireFreeCycle;
    this.serviceScheduled = true;
    this.host.queue.push(clock.timeOfCycle(cycle), Priority.link, this.serviceHandler, null);
  }

  private service(): void {
    this.serviceScheduled = false;
    const now = this.host.now;
    const clock = this.clock;
    const cycle = clock.cycleAt(now);
    if (cycle !== this.lastServiceCycle) this.budgetLeft = this.messagesPerCycle;
    this.lastServiceCycle = cycle;
    const from = this.from;
    const to = this.to;
    const queue = this.host.queue;
    const deliverTime = this.dstClock.timeAfterCycles(now, this.latencyCycles);
    if (this.bytesPerCycle > 0) {
      if (cycle < this.wireFreeCycle) {
        this.kick();
        return;
      }
      const head = from.buffer.peek();
      if (head === undefined) return;
      if (to.credits <= 0) {
        this.waitingForCredit = true;
        this.creditStallCycles++;
        return;
      }
      const msg = from.take()!;
      const flits = Math.ceil(Math.max(msg.bytes, 1) / this.bytesPerCycle);
      this.wireFreeCycle = cycle + flits;
      // The tail flit arrives `flits - 1` cycles after the head.
      const tailTime = flits > 1 ? this.dstClock.timeAfterCycles(clock.timeOfCycle(cycle + flits - 1), this.latencyCycles) : deliverTime;
      this.inject(msg, tailTime, queue);
    } else {
      while (this.budgetLeft > 0 && from.buffer.length > 0) {
        if (to.credits <= 0) {
          this.waitingForCredit = true;
          this.creditStallCycles++;
          return;
        }
        this.budgetLeft--;
        this.inject(from.take()!, deliverTime, queue);
      }
    }
    if (from.buffer.length > 0) this.kick();
  }

  private inject(msg: Message, deliverTime: Picoseconds, queue: EventQueue): void {
    msg.deliverTime = deliverTime;
    this.to.inFlight++;
    this.injected++;
    this.injectedBytes += msg.bytes;
    queue.push(deliverTime, Priority.deliver, this.deliverHandler, msg);
  }
}
