/**
 * Tiny unit kinds for engine tests: a source that sends a list of messages as fast as its port
 * allows, and a sink that records arrivals and consumes at a set rate.
 */
import { fromTransition } from 'xstate';
import { z } from 'zod';
import { defineUnit, type UnitIo } from '../../src/sim/unit.ts';
import type { Message } from '../../src/messaging/message.ts';

export interface SourceState {
  io: UnitIo;
  toSend: { kind: string; bytes: number }[];
  sentAt: number[];
  refusals: number;
  wakes: number;
}

export const testSource = defineUnit<{ messages: number; bytes: number; capacity: number }>({
  kind: 'testSource',
  description: 'sends `messages` messages as fast as the out port accepts them',
  spec: z.object({ messages: z.number().int(), bytes: z.number().int().default(0), capacity: z.number().int().default(2) }),
  delivery: 'batch',
  ports: [{ name: 'out', direction: 'out', description: 'messages', messageKinds: ['test.msg'], capacity: 'capacity' }],
  stats: [],
  logic: (p) =>
    fromTransition(
      (s: SourceState, e: { type: string }) => {
        if (e.type !== 'wake') return s;
        s.wakes++;
        const out = s.io.out('out');
        while (s.toSend.length > 0) {
          const m = s.toSend[0]!;
          if (out.send(m.kind, { n: s.sentAt.length }, { bytes: m.bytes }) === null) {
            s.refusals++;
            break;
          }
          s.sentAt.push(s.io.now);
          s.toSend.shift();
        }
        return s;
      },
      ({ input }: { input: UnitIo }) => ({
        io: input,
        toSend: Array.from({ length: p.messages }, () => ({ kind: 'test.msg', bytes: p.bytes })),
        sentAt: [],
        refusals: 0,
        wakes: 0,
      }),
    ),
});

export interface SinkState {
  io: UnitIo;
  arrivals: { id: number; time: number; cycle: number; msg: Message }[];
  consumeEveryCycles: number;
  lastConsume: number;
}

export const testSink = defineUnit<{ capacity: number; consumeEveryCycles: number }>({
  kind: 'testSink',
  description: 'consumes one message every `consumeEveryCycles` cycles (0 = all at once) and records it',
  spec: z.object({ capacity: z.number().int().default(4), consumeEveryCycles: z.number().int().default(0) }),
  delivery: 'batch',
  ports: [{ name: 'in', direction: 'in', description: 'messages', messageKinds: ['*'], capacity: 'capacity' }],
  stats: [],
  logic: (p) =>
    fromTransition(
      (s: SinkState, e: { type: string }) => {
        if (e.type !== 'wake') return s;
        const port = s.io.in('in');
        const record = (m: Message) => s.arrivals.push({ id: m.id, time: s.io.now, cycle: s.io.cycle, msg: m });
        if (s.consumeEveryCycles === 0) {
          let m;
          while ((m = port.recv()) !== undefined) record(m);
        } else if (port.length > 0) {
          if (s.lastConsume < 0 || s.io.cycle - s.lastConsume >= s.consumeEveryCycles) {
            record(port.recv()!);
            s.lastConsume = s.io.cycle;
          }
          if (port.length > 0) s.io.wakeAt(s.io.clock.timeOfCycle(s.lastConsume + s.consumeEveryCycles));
        }
        return s;
      },
      ({ input }: { input: UnitIo }) => ({ io: input, arrivals: [], consumeEveryCycles: p.consumeEveryCycles, lastConsume: -1 }),
    ),
});
