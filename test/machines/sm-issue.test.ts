/**
 * smIssue (machines/sm-issue) on the port harness: a scripted SM Work Manager, the real FETCH,
 * DECODE and EXEC units, a scripted LSU and a scripted controller; a hand-written kernel whose
 * warps step through a fixed instruction list. Every expected cycle is derived by hand from the
 * unit rules: 1-cycle links, an L1I miss of 10 cycles, fp.add latency 4 (EXEC answers at
 * issue + latency), one instruction per scheduler per cycle.
 */
import { describe, expect, it } from 'vitest';
import { smDecode } from '../../machines/sm-decode/sm-decode.ts';
import { smExec } from '../../machines/sm-exec/sm-exec.ts';
import { smFetch } from '../../machines/sm-fetch/sm-fetch.ts';
import { smIssue, type SmIssueParams } from '../../machines/sm-issue/sm-issue.ts';
import type { WarpStepInfo } from '../../src/functional/index.ts';
import { OpClass, StateSpace } from '../../src/isa/ir.ts';
import { GpuContext, type TimingCta, type TimingKernel, type TimingWarp } from '../../src/model/gpu-context.ts';
import type { SpanRecord } from '../../src/sim/unit.ts';
import { engine1GHz, probe, probeOf, type ScriptItem } from './gpu-memory/harness.ts';

/** One instruction of the test kernel: its class and registers. */
interface Ins {
  readonly opClass: OpClass;
  readonly srcRegs: Int32Array;
  readonly dstRegs: Int32Array;
  readonly longLatency: boolean;
  readonly line: number;
}
const ins = (opClass: OpClass, dst: number[], src: number[], line: number, longLatency = false): Ins => ({ opClass, srcRegs: Int32Array.from(src), dstRegs: Int32Array.from(dst), longLatency, line });

/** A warp that executes the code in order (32 lanes active; loads read 4 bytes per lane). */
class ListWarp implements TimingWarp {
  pc = 0;
  readonly functionIndex = 0;
  atBarrier = -1;
  clock = 0;
  constructor(private readonly code: readonly Ins[]) {}
  get done(): boolean {
    return this.pc >= this.code.length;
  }
  get nextInstruction(): Ins | undefined {
    return this.code[this.pc];
  }
  step(info: WarpStepInfo): void {
    const i = this.code[this.pc]!;
    info.pc = this.pc;
    info.activeCount = 32;
    info.activeMask = 0xffffffff;
    const mem = i.opClass === OpClass.Load;
    info.space = mem ? StateSpace.Global : StateSpace.None;
    info.isLoad = mem;
    info.accessBytes = mem ? 4 : 0;
    for (let l = 0; l < 32; l++) info.addresses[l] = 4096 + 4 * l;
    this.pc++;
  }
}

function kernel(code: Ins[]): TimingKernel {
  return {
    module: { functions: [{ instructions: code, registers: new Array(16).fill(0) }] },
    ctaCount: 1,
    threadsPerCta: 32,
    createCta: (): TimingCta => ({ warps: [new ListWarp(code)] }),
    releaseCta: () => {},
  };
}

const SPEC: SmIssueParams = {
  smId: 0,
  maxWarps: 4,
  maxCtas: 1,
  schedulers: 1,
  issueWidth: 1,
  issueIntervalCycles: 1,
  iBufferEntries: 8,
  policy: 'gto',
  policyOptions: {},
  exec: { units: [{ name: 'sp', count: 1, width: 32 }], warpSize: 32, opClasses: { alu: { unit: 'sp', latency: 4, initiation: 1 } } },
};

function run(code: Ins[], lsuScript: ScriptItem[] = [], ctrlScript: ScriptItem[] = []) {
  const e = engine1GHz();
  const context = new GpuContext();
  context.addKernel('list', kernel(code), 8);
  e.addUnit('SMWM', probe, 'core', { script: [{ cycle: 0, kind: 'cta.dispatch', payload: { kernel: 0, cta: 0 } }] });
  e.addUnit('ISSUE', smIssue, 'core', SPEC, { context });
  e.addUnit('FETCH', smFetch, 'core', { fetchWidth: 8, maxWarps: 4, l1i: { sets: 4, ways: 4, lineBytes: 128 }, l1iMissLatencyCycles: 10 });
  e.addUnit('DECODE', smDecode, 'core', { decodeWidth: 1 });
  e.addUnit('EXEC', smExec, 'core', { unitNames: ['sp'] });
  e.addUnit('LSU', probe, 'core', { script: lsuScript });
  e.addUnit('CTRL', probe, 'core', { script: ctrlScript });
  const one = { latencyCycles: 1 };
  e.connect('SMWM', 'out', 'ISSUE', 'cta', one);
  e.connect('ISSUE', 'ctaDone', 'SMWM', 'in', one);
  e.connect('ISSUE', 'fetchReq', 'FETCH', 'req', one);
  e.connect('FETCH', 'out', 'DECODE', 'in', one);
  e.connect('DECODE', 'out', 'ISSUE', 'decoded', one);
  e.connect('ISSUE', 'exec', 'EXEC', 'in', { latencyCycles: 1, messagesPerCycle: 8 });
  e.connect('EXEC', 'wb', 'ISSUE', 'execWb', { latencyCycles: 1, messagesPerCycle: 8 });
  e.connect('ISSUE', 'lsu', 'LSU', 'in', one);
  e.connect('LSU', 'out', 'ISSUE', 'lsuWb', one);
  e.connect('CTRL', 'out', 'ISSUE', 'ctrl', one);
  e.connect('ISSUE', 'status', 'CTRL', 'in', one);
  const issued: number[] = [];
  e.spans$.subscribe((s: SpanRecord) => {
    if (s.unit === 'ISSUE' && s.name === 'issue') issued.push(s.start / 1000);
  });
  e.run();
  e.finalize();
  const ctaDone = probeOf(e, 'SMWM').received.map((r) => r.cycle);
  const acks = probeOf(e, 'CTRL').received.map((r) => `${(r.msg.payload as { state: string }).state}@${r.cycle}`);
  const lsu = probeOf(e, 'LSU').received.map((r) => r.cycle);
  return { e, issued, ctaDone, acks, lsu };
}

// dependent chain r1 <- r2 <- r3, then exit (registers 1..3)
const chain = () => [ins(OpClass.Alu, [1], [], 0), ins(OpClass.Alu, [2], [1], 1), ins(OpClass.Alu, [3], [2], 2), ins(OpClass.Exit, [], [], 3)];

describe('smIssue', () => {
  it('a dependent ALU chain issues one fp.add latency apart; the CTA is done when the last write-back returns', () => {
    const { issued, ctaDone, e } = run(chain());
    // CTA at 1 -> fetch.req -> FETCH 2 (L1I miss, +10) -> 12 -> DECODE 13 -> ISSUE 14: first issue.
    // Each dependent waits for its producer's write-back: 14 + 4 = 18, 22; exit next cycle 23.
    expect(issued).toEqual([14, 18, 22, 23]);
    // The last ALU writes back at 22 + 4 = 26: cta.done sent at 26, received at 27.
    expect(ctaDone).toEqual([27]);
    expect(e.stats.value('ISSUE.warp_insts')).toBe(4);
    expect(e.stats.value('ISSUE.thread_insts')).toBe(128);
  });

  it('independent instructions issue back to back, one per cycle', () => {
    const { issued } = run([ins(OpClass.Alu, [1], [], 0), ins(OpClass.Alu, [2], [], 1), ins(OpClass.Alu, [3], [], 2), ins(OpClass.Exit, [], [], 3)]);
    expect(issued).toEqual([14, 15, 16, 17]);
  });

  it('a load goes to the LSU; its consumer issues the cycle its write-back arrives', () => {
    // The scripted LSU answers the load (warp slot 0, register 5, issue seq 0) at cycle 40.
    const wb: ScriptItem = { cycle: 40, kind: 'lsu.writeback', payload: { warp: 0, dst: [5], seq: 0, longLatency: true } };
    const { issued, lsu } = run([ins(OpClass.Load, [5], [], 0, true), ins(OpClass.Alu, [6], [5], 1), ins(OpClass.Exit, [], [], 2)], [wb]);
    // load issued at 14 reaches the LSU at 15; its write-back arrives at 41: the add issues at 41.
    expect(lsu).toEqual([15]);
    expect(issued).toEqual([14, 41, 42]);
  });

  it('pause: issue stops, the ack comes once in-flight work wrote back; resume continues the chain', () => {
    const { issued, acks, ctaDone, e } = run(chain(), [], [
      { cycle: 15, kind: 'ctrl.pause', payload: {} },
      { cycle: 30, kind: 'ctrl.resume', payload: {} },
    ]);
    // pause reaches ISSUE at 16 (draining, acked at 17); the first add (issued 14) writes back at 18:
    // drained, paused at 18 (acked at 19). resume at 31: the chain goes on at 31, 35; exit 36.
    expect(acks).toEqual(['draining@17', 'paused@19', 'active@32']);
    expect(issued).toEqual([14, 31, 35, 36]);
    expect(ctaDone).toEqual([35 + 4 + 1]);
    expect(e.stats.value('ISSUE.lifecycle_paused_cycles')).toBe(31 - 18);
    expect(e.stats.value('ISSUE.lifecycle_draining_cycles')).toBe(18 - 16);
  });

  it('gate is refused while a CTA is resident', () => {
    const { acks, issued } = run(chain(), [], [{ cycle: 15, kind: 'ctrl.gate', payload: {} }]);
    expect(acks).toEqual([]);
    expect(issued).toEqual([14, 18, 22, 23]);
  });
});
