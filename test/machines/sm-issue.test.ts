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
import { smLsu } from '../../machines/sm-lsu/sm-lsu.ts';
import type { WarpStepInfo } from '../../src/functional/index.ts';
import { OpClass, StateSpace } from '../../src/isa/ir.ts';
import { GpuContext, type TimingCta, type TimingKernel, type TimingWarp } from '../../src/model/gpu-context.ts';
import { loadScenario } from '../../src/scenario/loader.ts';
import { runKernelScenarioTiming } from '../../src/scenario/timing-run.ts';
import type { SpanRecord } from '../../src/sim/unit.ts';
import { engine1GHz, fakeMem, probe, probeOf, type ScriptItem } from './gpu-memory/harness.ts';

/** One instruction of the test kernel: its class and registers. */
interface Ins {
  readonly opClass: OpClass;
  readonly srcRegs: Int32Array;
  readonly dstRegs: Int32Array;
  readonly longLatency: boolean;
  readonly line: number;
  /** State space of a load (global unless given). */
  readonly space: StateSpace;
}
const ins = (opClass: OpClass, dst: number[], src: number[], line: number, longLatency = false, space: StateSpace = StateSpace.Global): Ins => ({ opClass, srcRegs: Int32Array.from(src), dstRegs: Int32Array.from(dst), longLatency, line, space });

/** A warp that executes the code in order (32 lanes active; loads read consecutive 4-byte words, one per bank). */
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
    info.space = mem ? i.space : StateSpace.None;
    info.isLoad = mem;
    info.accessBytes = mem ? 4 : 0;
    for (let l = 0; l < 32; l++) info.addresses[l] = 4096 + 4 * l;
    this.pc++;
  }
}

/** A one-CTA kernel of `warps` warps, each running `code`. */
function kernel(code: Ins[], warps = 1): TimingKernel {
  return {
    module: { functions: [{ instructions: code, registers: new Array(16).fill(0) }] },
    ctaCount: 1,
    threadsPerCta: 32 * warps,
    createCta: (): TimingCta => ({ warps: Array.from({ length: warps }, () => new ListWarp(code)) }),
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

/** Options of {@link run}: scripts of the stand-ins, and spec changes. */
interface RunOptions {
  readonly lsu?: ScriptItem[];
  readonly ctrl?: ScriptItem[];
  /** Cycle SMWM sends the CTA (default 0). */
  readonly dispatchAt?: number;
  readonly spec?: Partial<SmIssueParams>;
  /** Warps in the CTA (default 1). */
  readonly warps?: number;
  /** The real LSU (shared-memory latency in cycles) in place of the scripted one. */
  readonly realLsu?: { sharedMemLatency: number };
}

function run(code: Ins[], opts: RunOptions = {}) {
  const e = engine1GHz();
  const context = new GpuContext();
  context.addKernel('list', kernel(code, opts.warps), 8);
  e.addUnit('SMWM', probe, 'core', { script: [{ cycle: opts.dispatchAt ?? 0, kind: 'cta.dispatch', payload: { kernel: 0, cta: 0 } }] });
  e.addUnit('ISSUE', smIssue, 'core', { ...SPEC, ...opts.spec }, { context });
  e.addUnit('FETCH', smFetch, 'core', { fetchWidth: 8, maxWarps: 4, l1i: { sets: 4, ways: 4, lineBytes: 128 }, l1iMissLatencyCycles: 10 });
  e.addUnit('DECODE', smDecode, 'core', { decodeWidth: 1 });
  e.addUnit('EXEC', smExec, 'core', { unitNames: (opts.spec?.exec ?? SPEC.exec).units.map((u) => u.name) });
  if (opts.realLsu === undefined) e.addUnit('LSU', probe, 'core', { script: opts.lsu ?? [] });
  else {
    const banks = { banks: 32, bankWidthBytes: 4 };
    e.addUnit('LSU', smLsu, 'core', { smId: 0, sharedMemLatency: opts.realLsu.sharedMemLatency, constLatency: 10, l1dPortWidth: 1, sharedMem: banks });
    e.addUnit('MEM', fakeMem, 'core', { latency: 100 });
    e.connect('LSU', 'bottomOut', 'MEM', 'req', { latencyCycles: 1 });
    e.connect('MEM', 'rsp', 'LSU', 'bottomIn', { latencyCycles: 1 });
  }
  e.addUnit('CTRL', probe, 'core', { script: opts.ctrl ?? [] });
  const one = { latencyCycles: 1 };
  e.connect('SMWM', 'out', 'ISSUE', 'cta', one);
  e.connect('ISSUE', 'ctaDone', 'SMWM', 'in', one);
  e.connect('ISSUE', 'fetchReq', 'FETCH', 'req', one);
  e.connect('FETCH', 'out', 'DECODE', 'in', one);
  e.connect('DECODE', 'out', 'ISSUE', 'decoded', one);
  e.connect('ISSUE', 'exec', 'EXEC', 'in', { latencyCycles: 1, messagesPerCycle: 8 });
  e.connect('EXEC', 'wb', 'ISSUE', 'execWb', { latencyCycles: 1, messagesPerCycle: 8 });
  e.connect('ISSUE', 'lsu', 'LSU', opts.realLsu ? 'topIn' : 'in', one);
  e.connect('LSU', opts.realLsu ? 'topOut' : 'out', 'ISSUE', 'lsuWb', one);
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
  const lsu = opts.realLsu ? [] : probeOf(e, 'LSU').received.map((r) => r.cycle);
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
    const { issued, lsu } = run([ins(OpClass.Load, [5], [], 0, true), ins(OpClass.Alu, [6], [5], 1), ins(OpClass.Exit, [], [], 2)], { lsu: [wb] });
    // load issued at 14 reaches the LSU at 15; its write-back arrives at 41: the add issues at 41.
    expect(lsu).toEqual([15]);
    expect(issued).toEqual([14, 41, 42]);
  });

  it('pause: issue stops, the ack comes once in-flight work wrote back; resume continues the chain', () => {
    const { issued, acks, ctaDone, e } = run(chain(), {
      ctrl: [
        { cycle: 15, kind: 'ctrl.pause', payload: {} },
        { cycle: 30, kind: 'ctrl.resume', payload: {} },
      ],
    });
    // pause reaches ISSUE at 16 (draining, acked at 17); the first add (issued 14) writes back at 18:
    // drained, paused at 18 (acked at 19). resume at 31: the chain goes on at 31, 35; exit 36.
    expect(acks).toEqual(['draining@17', 'paused@19', 'active@32']);
    expect(issued).toEqual([14, 31, 35, 36]);
    expect(ctaDone).toEqual([35 + 4 + 1]);
    expect(e.stats.value('ISSUE.lifecycle_paused_cycles')).toBe(31 - 18);
    expect(e.stats.value('ISSUE.lifecycle_draining_cycles')).toBe(18 - 16);
  });

  it('gate is refused while a CTA is resident', () => {
    const { acks, issued } = run(chain(), { ctrl: [{ cycle: 15, kind: 'ctrl.gate', payload: {} }] });
    expect(acks).toEqual([]);
    expect(issued).toEqual([14, 18, 22, 23]);
  });

  it('initiation interval: an SFU pipeline of 8 lanes takes a warp every initiation x 4 cycles', () => {
    // sfu: 1 pipeline, 8 lanes wide -> a 32-thread warp needs 4 passes; initiation 2 -> busy 8
    // cycles per warp instruction. Latency 20.
    const exec = { units: [{ name: 'sp', count: 1, width: 32 }, { name: 'sfu', count: 1, width: 8 }], warpSize: 32, opClasses: { alu: { unit: 'sp', latency: 4, initiation: 1 }, sfu: { unit: 'sfu', latency: 20, initiation: 2 } } };
    const { issued, ctaDone } = run([ins(OpClass.Sfu, [1], [], 0), ins(OpClass.Sfu, [2], [], 1), ins(OpClass.Alu, [3], [], 2), ins(OpClass.Exit, [], [], 3)], { spec: { exec } });
    // first sfu at 14; the second waits for the pipeline: 14 + 8 = 22; in-order behind it the
    // add at 23 and the exit at 24.
    expect(issued).toEqual([14, 22, 23, 24]);
    // last write-back: the second sfu at 22 + 20 = 42 -> cta.done received at 43.
    expect(ctaDone).toEqual([43]);
  });

  it('gate: accepted with no CTA resident; wake; the CTA then runs as from a cold start', () => {
    // gate at 0 -> ISSUE 1 (nothing resident, nothing waiting): gated, ack at 2. wake at 3 -> 4
    // (ack 5). The CTA sent at 5 reaches ISSUE at 6: the chain runs 5 cycles later than from 1.
    const { issued, acks, e } = run(chain(), {
      dispatchAt: 5,
      ctrl: [
        { cycle: 0, kind: 'ctrl.gate', payload: {} },
        { cycle: 3, kind: 'ctrl.wake', payload: {} },
      ],
    });
    expect(acks).toEqual(['gated@2', 'active@5']);
    expect(issued).toEqual([19, 23, 27, 28]);
    expect(e.stats.value('ISSUE.lifecycle_gated_cycles')).toBe(4 - 1);
  });

  it('a CTA reaching a gated SM is a simulation error', () => {
    expect(() => run(chain(), { dispatchAt: 5, ctrl: [{ cycle: 0, kind: 'ctrl.gate', payload: {} }] })).toThrow(/ISSUE: cta.dispatch arrived while the SM is power-gated/);
  });

  it('an SM still gated at the end of the run has its open gated interval counted', () => {
    // chain done: cta.done sent at 26. gate at 30 -> ISSUE 31 gated (ack 32). A pause at 60
    // (ignored while gated: no ack) wakes ISSUE at 61, the last event: gated from 31 to 61.
    const { acks, e } = run(chain(), {
      ctrl: [
        { cycle: 30, kind: 'ctrl.gate', payload: {} },
        { cycle: 60, kind: 'ctrl.pause', payload: {} },
      ],
    });
    expect(acks).toEqual(['gated@32']);
    expect(e.stats.value('ISSUE.lifecycle_gated_cycles')).toBe(61 - 31);
    // Lifecycle cycles are counted from the first control message (31), gated at once.
    expect(e.stats.value('ISSUE.lifecycle_active_cycles')).toBe(0);
  });
});

describe('smIssue sleeps when nothing can change, and a pause in the middle keeps every statistic exact', () => {
  // Four warps on two schedulers, each: shared load, dependent add, shared load, add of both, exit.
  // The shared loads take 30 cycles in the real LSU, so ISSUE sleeps while the warps wait.
  const code = [
    ins(OpClass.Load, [1], [], 0, true, StateSpace.Shared),
    ins(OpClass.Alu, [2], [1], 1),
    ins(OpClass.Load, [3], [], 2, true, StateSpace.Shared),
    ins(OpClass.Alu, [4], [3, 2], 3),
    ins(OpClass.Exit, [], [], 4),
  ];
  const runWith = (poll: boolean, ctrl: ScriptItem[]) => {
    const { e, acks } = run(code, { warps: 4, realLsu: { sharedMemLatency: 30 }, spec: { schedulers: 2, pollEveryCycle: poll }, ctrl });
    const json = e.stats.toJSON();
    const events = json['engine.actor_events'] as number;
    for (const k of Object.keys(json)) if (k.startsWith('engine.')) delete json[k];
    return { json, events, acks };
  };

  it.each([
    ['no pause', []],
    ['pause while the warps wait for their loads', [{ cycle: 30, kind: 'ctrl.pause', payload: {} }, { cycle: 120, kind: 'ctrl.resume', payload: {} }]],
    ['pause during issue', [{ cycle: 14, kind: 'ctrl.pause', payload: {} }, { cycle: 40, kind: 'ctrl.resume', payload: {} }]],
  ] as [string, ScriptItem[]][])('%s: every statistic equals the every-cycle run', (_name, ctrl) => {
    const sleeping = runWith(false, ctrl);
    const polling = runWith(true, ctrl);
    expect(sleeping.json).toEqual(polling.json);
    expect(sleeping.acks).toEqual(polling.acks);
    expect(sleeping.events).toBeLessThan(polling.events);
    // 4 warps x 5 instructions; a pause delays, never drops or repeats, an instruction.
    expect(sleeping.json['ISSUE.warp_insts']).toBe(20);
    if (ctrl.length > 0) expect(sleeping.acks.slice(-1)).toEqual([`active@${ctrl[1]!.cycle + 2}`]);
  });
});

describe('a GPU whose idle SMs are power-gated and woken mid-run', () => {
  it('ext-power-gating.yaml: every statistic equals the every-cycle run', () => {
    const run = (poll: boolean) => {
      const r = runKernelScenarioTiming(loadScenario('scenarios/ext-power-gating.yaml'), { pollEveryCycle: poll });
      const json = r.engine.stats.toJSON();
      for (const k of Object.keys(json)) if (k.startsWith('engine.')) delete json[k];
      return { json, passed: r.passed };
    };
    const sleeping = run(false);
    const polling = run(true);
    expect(sleeping.passed).toBe(true);
    // SM 14 receives no CTA of kernel 1 (4 CTAs) and is gated, then woken for kernel 2.
    expect(sleeping.json['GPU.SM[14].ISSUE.lifecycle_gated_cycles']).toBeGreaterThan(0);
    expect(sleeping.json).toEqual(polling.json);
  });
});
