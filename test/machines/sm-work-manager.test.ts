/**
 * smWorkManager (machines/sm-work-manager) alone on the port harness: scripted SMs report
 * finished CTAs; expected dispatch cycles are derived by hand from the launch latency, the
 * round-robin order (one CTA per SM per pass) and the four resource checks of 000 §2.2.2.
 */
import { describe, expect, it } from 'vitest';
import { smWorkManager, type SmWorkManagerParams } from '../../machines/sm-work-manager/sm-work-manager.ts';
import { getPreset, applyConfigOverrides } from '../../src/config/index.ts';
import { GpuContext } from '../../src/model/gpu-context.ts';
import { Lifecycle } from '../../src/sim/lifecycle.ts';
import { defineUnit, type UnitIo } from '../../src/sim/unit.ts';
import { smWorkManagerInstance } from '../../src/topology/gpu-smwm.ts';
import { fromTransition } from 'xstate';
import { z } from 'zod';
import type { Message } from '../../src/messaging/message.ts';
import type { InPort } from '../../src/messaging/port.ts';
import { engine1GHz, probe, probeOf, type ScriptItem } from './gpu-memory/harness.ts';

const plan = (kernel: number, ctaCount: number, extra: Partial<SmWorkManagerParams['launches'][number]> = {}) => ({ kernel, ctaCount, atCycle: 0, warpsPerCta: 2, registersPerCta: 100, sharedBytesPerCta: 0, stream: 0, ...extra });
const done = (cycle: number, kernel: number, cta: number, sm: number): ScriptItem => ({ cycle, kind: 'cta.done', payload: { kernel, cta, sm, warpInsts: 10, threadInsts: 320 } });

/** A unit with only the shared lifecycle (stands for an SM's issue stage on the ctrl path). */
const lifecycleSm = defineUnit<Record<string, never>>({
  kind: 'testLifecycleSm',
  description: 'lifecycle only',
  spec: z.strictObject({}),
  delivery: 'batch',
  ports: [
    { name: 'ctrl', direction: 'in', description: 'commands', messageKinds: ['*'], capacity: 4 },
    { name: 'status', direction: 'out', description: 'acks', messageKinds: ['ctrl.ack'], capacity: 4 },
  ],
  stats: [],
  logic: () =>
    fromTransition(
      (s: { ctrl: InPort; lc: Lifecycle }, e: { type: string }) => {
        let m: Message | undefined;
        if (e.type === 'wake') while ((m = s.ctrl.recv()) !== undefined) s.lc.handle(m, true);
        return s;
      },
      ({ input }: { input: UnitIo }) => ({ ctrl: input.in('ctrl'), lc: new Lifecycle(input, input.out('status')) }),
    ),
});

function run(spec: Partial<SmWorkManagerParams>, scripts: ScriptItem[][], withCtrl = false) {
  const e = engine1GHz();
  const full: SmWorkManagerParams = {
    numSms: 2,
    capacity: { maxWarps: 8, maxCtas: 2, registers: 1000, sharedMemBytes: 1000 },
    launchLatencyCycles: 5,
    launches: [plan(0, 5)],
    policies: { kernelScheduler: { kind: 'inOrder' }, ctaScheduler: { kind: 'roundRobin' }, activeCores: { kind: 'all' } },
    ...spec,
  };
  e.addUnit('SMWM', smWorkManager, 'core', smWorkManager.spec.parse(full));
  for (let i = 0; i < full.numSms; i++) {
    e.addUnit(`SM${i}`, probe, 'core', { script: scripts[i] ?? [] });
    e.connect('SMWM', `dispatch[${i}]`, `SM${i}`, 'in', { latencyCycles: 1 });
    e.connect(`SM${i}`, 'out', 'SMWM', `done[${i}]`, { latencyCycles: 1 });
    if (withCtrl) {
      e.addUnit(`LC${i}`, lifecycleSm, 'core', {});
      e.connect('SMWM', `ctrl[${i}]`, `LC${i}`, 'ctrl', { latencyCycles: 1 });
      e.connect(`LC${i}`, 'status', 'SMWM', `status[${i}]`, { latencyCycles: 1 });
    }
  }
  e.run();
  const got = (i: number) => probeOf(e, `SM${i}`).received.map((r) => `${(r.msg.payload as { kernel: number; cta: number }).kernel}:${(r.msg.payload as { cta: number }).cta}@${r.cycle}`);
  return { e, got };
}

describe('smWorkManager', () => {
  it('launch latency, round robin one CTA per SM per pass, CTA-slot check; a finished CTA frees room for the next', () => {
    const { got, e } = run({}, [[done(20, 0, 0, 0)]]);
    // launch at 0 + 5: pass 1 -> SM0 cta 0, SM1 cta 1; pass 2 (from SM1) -> SM1 cta 2, SM0 cta 3;
    // both SMs full (2 CTA slots). Each dispatch link carries one message per cycle: the first
    // CTA of each SM arrives at 6, the second at 7. SM0's cta.done sent at 20 arrives at 21: cta 4
    // goes to SM0 (SM1, first in round robin, is still full), arriving at 22.
    expect(got(0)).toEqual(['0:0@6', '0:3@7', '0:4@22']);
    expect(got(1)).toEqual(['0:1@6', '0:2@7']);
    expect(e.stats.value('SMWM.ctas_dispatched')).toBe(5);
  });

  it('the warp, register and shared-memory checks each limit residency', () => {
    expect(run({ capacity: { maxWarps: 2, maxCtas: 8, registers: 1000, sharedMemBytes: 1000 } }, []).got(0)).toEqual(['0:0@6']);
    expect(run({ capacity: { maxWarps: 8, maxCtas: 8, registers: 250, sharedMemBytes: 1000 } }, []).got(0)).toEqual(['0:0@6', '0:3@7']);
    expect(run({ capacity: { maxWarps: 8, maxCtas: 8, registers: 1000, sharedMemBytes: 1000 }, launches: [plan(0, 5, { sharedBytesPerCta: 600 })] }, []).got(1)).toEqual(['0:1@6']);
  });

  it('CUDA stream order: a kernel starts after the earlier kernel of its stream finished; another stream does not wait', () => {
    const scripts = [[done(20, 0, 0, 0)], []];
    const same = run({ launches: [plan(0, 1), plan(1, 1)] }, scripts);
    expect([...same.got(0), ...same.got(1)]).toEqual(['0:0@6', '1:0@22']);
    const other = run({ launches: [plan(0, 1), plan(1, 1, { stream: 1 })] }, scripts);
    expect([...other.got(0), ...other.got(1)].sort()).toEqual(['0:0@6', '1:0@6']);
  });

  it('policies by name: fixedLimit caps CTAs per SM; fixed keeps SMs >= count out of dispatch', () => {
    const limited = run({ policies: { kernelScheduler: { kind: 'inOrder' }, ctaScheduler: { kind: 'fixedLimit', ctasPerSm: 1 }, activeCores: { kind: 'all' } } }, []);
    expect([limited.got(0), limited.got(1)]).toEqual([['0:0@6'], ['0:1@6']]);
    const oneSm = run({ policies: { kernelScheduler: { kind: 'inOrder' }, ctaScheduler: { kind: 'roundRobin' }, activeCores: { kind: 'fixed', count: 1 } } }, []);
    expect([oneSm.got(0), oneSm.got(1)]).toEqual([['0:0@6', '0:1@7'], []]);
    expect((oneSm.e.snapshot('SMWM') as { value: Record<string, string> }).value).toMatchObject({ mapping: 'inOrder', coreCount: 'fixed', ctaLimit: 'roundRobin' });
  });

  it('a paused SM (ctrl.ack paused) takes no CTA; its ctrl.ack active resumes dispatch to it', () => {
    const e = engine1GHz();
    const full: SmWorkManagerParams = {
      numSms: 2,
      capacity: { maxWarps: 8, maxCtas: 2, registers: 1000, sharedMemBytes: 1000 },
      launchLatencyCycles: 5,
      launches: [plan(0, 5)],
      policies: { kernelScheduler: { kind: 'inOrder' }, ctaScheduler: { kind: 'roundRobin' }, activeCores: { kind: 'all' } },
    };
    e.addUnit('SMWM', smWorkManager, 'core', smWorkManager.spec.parse(full));
    for (let i = 0; i < 2; i++) {
      e.addUnit(`SM${i}`, probe, 'core', { script: [] });
      e.connect('SMWM', `dispatch[${i}]`, `SM${i}`, 'in', { latencyCycles: 1 });
      e.connect(`SM${i}`, 'out', 'SMWM', `done[${i}]`, { latencyCycles: 1 });
    }
    // SM1's lifecycle, scripted: paused (sent 2, seen 3, before the launch at 5), active again at 10 (seen 11).
    const ack = (cycle: number, state: string): ScriptItem => ({ cycle, kind: 'ctrl.ack', payload: { unit: 'SM1', state } });
    e.addUnit('ACK1', probe, 'core', { script: [ack(2, 'paused'), ack(10, 'active')] });
    e.connect('ACK1', 'out', 'SMWM', 'status[1]', { latencyCycles: 1 });
    e.run();
    const got = (i: number) => probeOf(e, `SM${i}`).received.map((r) => `${(r.msg.payload as { cta: number }).cta}@${r.cycle}`);
    // At 5 only SM0 qualifies: ctas 0 and 1 fill its 2 slots (arriving 6 and 7; one message per
    // link per cycle). At 11 SM1 is active again: ctas 2 and 3 (arriving 12, 13); cta 4 finds both full.
    expect(got(0)).toEqual(['0@6', '1@7']);
    expect(got(1)).toEqual(['2@12', '3@13']);
    expect((e.snapshot('SMWM') as { context: { cores: { paused: boolean }[] } }).context.cores.map((c) => c.paused)).toEqual([false, false]);
  });

  it('gateIdle: an SM left without work is gated through its ctrl port and marked gated when it acknowledges', () => {
    const { e, got } = run({ launches: [plan(0, 1)], policies: { kernelScheduler: { kind: 'inOrder' }, ctaScheduler: { kind: 'roundRobin' }, activeCores: { kind: 'gateIdle' } } }, [[done(30, 0, 0, 0)]], true);
    expect(got(0)).toEqual(['0:0@6']);
    // At cycle 5 the only CTA went to SM0; SM1 holds none and no CTA is left: ctrl.gate at 5 ->
    // LC1 6 gated -> ack at SMWM 7. After the kernel is done nothing more is gated (the run is over).
    const ctx = (e.snapshot('SMWM') as { context: { cores: { power: string }[] } }).context;
    expect(ctx.cores.map((c) => c.power)).toEqual(['on', 'gated']);
    e.finalize();
    expect(e.stats.value('LC1.lifecycle_gated_cycles')).toBe(e.clock('core').cycleAt(e.now) - 6);
  });

  it('an unknown policy name or bad parameters are input errors naming the config field and the known policies', () => {
    const cfg = applyConfigOverrides(getPreset('gtx480'), ['policies.ctaScheduler.kind=nope']);
    expect(() => smWorkManagerInstance(cfg, new GpuContext(), [])).toThrow(/policies.ctaScheduler.*unknown ctaScheduler policy 'nope' \(known: roundRobin, fixedLimit\)/);
    const bad = applyConfigOverrides(getPreset('gtx480'), ['policies.ctaScheduler.kind=fixedLimit']);
    expect(() => smWorkManagerInstance(bad, new GpuContext(), [])).toThrow(/fixedLimit.*ctasPerSm/);
  });
});
