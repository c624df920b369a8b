import { describe, expect, it } from 'vitest';
import { Engine } from '../../src/sim/engine.ts';
import { testSink, testSource, type SinkState, type SourceState } from '../helpers/units.ts';

function pair(opts: { messages: number; bytes?: number; srcCap?: number; dstCap?: number; consumeEvery?: number; latency: number; mpc?: number; bpc?: number; srcHz?: number; dstHz?: number }) {
  const e = new Engine({ seed: 7 });
  e.addClock('a', opts.srcHz ?? 1_000_000_000);
  e.addClock('b', opts.dstHz ?? 1_000_000_000);
  e.addUnit('SRC', testSource, 'a', testSource.spec.parse({ messages: opts.messages, bytes: opts.bytes ?? 0, capacity: opts.srcCap ?? 2 }));
  e.addUnit('DST', testSink, 'b', testSink.spec.parse({ capacity: opts.dstCap ?? 4, consumeEveryCycles: opts.consumeEvery ?? 0 }));
  e.connect('SRC', 'out', 'DST', 'in', {
    latencyCycles: opts.latency,
    ...(opts.mpc ? { messagesPerCycle: opts.mpc } : {}),
    ...(opts.bpc ? { bytesPerCycle: opts.bpc } : {}),
  });
  const result = e.run();
  const src = (e.snapshot('SRC') as { context: SourceState }).context;
  const dst = (e.snapshot('DST') as { context: SinkState }).context;
  return { e, src, dst, result };
}

describe('links', () => {
  it('delivers after the latency in receiver cycles, one message per cycle by default', () => {
    const { dst } = pair({ messages: 3, latency: 5, srcCap: 8 });
    // 1 GHz: 1000 ps per cycle. Injected at cycles 0,1,2; latency 5.
    expect(dst.arrivals.map((a) => a.time)).toEqual([5000, 6000, 7000]);
  });

  it('counts latency in the receiving clock domain', () => {
    const { dst } = pair({ messages: 1, latency: 1, srcHz: 1_000_000_000, dstHz: 500_000_000 });
    // Receiver period 2000 ps: edge after time 0 is at 2000.
    expect(dst.arrivals[0]!.time).toBe(2000);
  });

  it('injects messagesPerCycle messages per link cycle', () => {
    const { dst } = pair({ messages: 4, latency: 2, mpc: 2, srcCap: 8 });
    expect(dst.arrivals.map((a) => a.time)).toEqual([2000, 2000, 3000, 3000]);
  });

  it('serialises large messages over bytesPerCycle (flits)', () => {
    const { dst } = pair({ messages: 2, bytes: 128, bpc: 32, latency: 1, srcCap: 8 });
    // 4 flits each: first occupies cycles 0-3 (tail arrives at cycle 3+1), second cycles 4-7.
    expect(dst.arrivals.map((a) => a.time)).toEqual([4000, 8000]);
  });

  it('keeps order and ids, and the message carries both ends and times', () => {
    const { dst } = pair({ messages: 5, latency: 3, srcCap: 8 });
    const ids = dst.arrivals.map((a) => a.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    const m = dst.arrivals[0]!.msg;
    expect(m).toMatchObject({ src: 'SRC', srcPort: 'out', dst: 'DST', dstPort: 'in', kind: 'test.msg', sendTime: 0, deliverTime: 3000 });
  });

  it('applies back-pressure: a slow consumer bounds what is in flight, the sender retries when woken', () => {
    const { dst, src, e } = pair({ messages: 10, latency: 1, srcCap: 1, dstCap: 2, consumeEvery: 4 });
    expect(dst.arrivals).toHaveLength(10);
    expect(src.refusals).toBeGreaterThan(0);
    // Consumption is the bottleneck: one message every 4 cycles.
    const gaps = dst.arrivals.slice(1).map((a, i) => a.cycle - dst.arrivals[i]!.cycle);
    expect(gaps.every((g) => g >= 4)).toBe(true);
    const link = e.allLinks()[0]!;
    expect(link.creditStallCycles).toBeGreaterThan(0);
  });

  it('refuses a send when the out-port buffer is full', () => {
    const { src } = pair({ messages: 3, latency: 1, srcCap: 1, dstCap: 1, consumeEvery: 10 });
    expect(src.refusals).toBeGreaterThan(0);
    expect(src.sentAt).toHaveLength(3);
  });
});
