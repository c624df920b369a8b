/**
 * The unit contract (issue 8 item 2): a link whose message kinds do not match is refused, an
 * instance without its declared resources is refused, optional ports may stay unconnected.
 */
import { fromTransition } from 'xstate';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { Engine } from '../../src/sim/engine.ts';
import { defineUnit, type PortDescriptor } from '../../src/sim/unit.ts';

const unit = (kind: string, ports: PortDescriptor[], resources: { name: string; description: string; optional?: boolean }[] = []) =>
  defineUnit<Record<string, never>, Record<string, unknown>>({
    kind,
    description: kind,
    spec: z.strictObject({}),
    resources,
    delivery: 'batch',
    ports,
    stats: [],
    logic: () => fromTransition((s: null) => s, null),
  });

const sender = unit('testSender', [{ name: 'out', direction: 'out', description: 'o', messageKinds: ['mem.readReq', 'mem.writeReq'] }]);
const reader = unit('testReader', [{ name: 'in', direction: 'in', description: 'i', messageKinds: ['mem.readReq'] }]);
const any = unit('testAny', [{ name: 'in', direction: 'in', description: 'i', messageKinds: ['*'] }]);
const both = unit('testBoth', [{ name: 'in', direction: 'in', description: 'i', messageKinds: ['mem.writeReq', 'mem.readReq'] }, { name: 'ctrl', direction: 'in', description: 'c', messageKinds: ['ctrl.pause'], optional: true }]);

function engine(): Engine {
  const e = new Engine();
  e.addClock('core', 1e9);
  return e;
}

describe('unit contract', () => {
  it('connect refuses a link whose sender may send a kind the receiver does not accept, naming the kinds', () => {
    const e = engine();
    e.addUnit('S', sender, 'core', {});
    e.addUnit('R', reader, 'core', {});
    expect(() => e.connect('S', 'out', 'R', 'in', { latencyCycles: 1 })).toThrow('link S.out -> R.in: R.in does not accept mem.writeReq (it accepts: mem.readReq)');
  });

  it('accepts a receiver that lists every kind, or any kind; an optional port may stay unconnected', () => {
    const e = engine();
    e.addUnit('S', sender, 'core', {});
    e.addUnit('B', both, 'core', {});
    e.connect('S', 'out', 'B', 'in', { latencyCycles: 1 });
    expect(e.unconnectedPorts()).toEqual([]);
    const f = engine();
    f.addUnit('S', sender, 'core', {});
    f.addUnit('A', any, 'core', {});
    expect(() => f.connect('S', 'out', 'A', 'in', { latencyCycles: 1 })).not.toThrow();
  });

  it('an instance without a required resource is refused, naming it; an optional one may be left out', () => {
    const needs = unit('testNeeds', [], [{ name: 'context', description: 'the kernel table' }, { name: 'map', description: 'an address map', optional: true }]);
    expect(() => engine().addUnit('N', needs, 'core', {}, {})).toThrow("unit N (testNeeds) needs resource 'context': the kernel table");
    expect(() => engine().addUnit('N', needs, 'core', {}, { context: {} })).not.toThrow();
  });
});
