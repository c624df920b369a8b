import { describe, it, expect } from 'vitest';
import { Scoreboard, ScoreboardHazard } from '../../../src/model/sm/scoreboard.ts';
import { ExecUnits } from '../../../src/model/sm/exec-units.ts';
import { InstructionBuffer } from '../../../src/model/sm/ibuffer.ts';
import {
  SCHEDULER_STATE_NAME,
  STALL_KIND_NAME,
  SchedStatsCounters,
  SchedulerState,
  StallKind,
  WARP_STATE_NAME,
  WarpFlag,
  WarpState,
  classifySchedulerCycle,
  classifyStall,
  classifyWarp,
  hazardFlags,
} from '../../../src/model/sm/sched-stats.ts';

const F = WarpFlag;

describe('warp states (000 §5.3)', () => {
  it('classifies each of the 8 states and the barrier extension', () => {
    expect(classifyWarp(F.IBufferEmpty)).toBe(WarpState.IBufferEmpty);
    expect(classifyWarp(F.DepAlu)).toBe(WarpState.AluScoreboard);
    expect(classifyWarp(F.DepMem | F.MemInst)).toBe(WarpState.MemScoreboard);
    expect(classifyWarp(F.UnitBusy)).toBe(WarpState.AluStall);
    expect(classifyWarp(F.UnitBusy | F.MemInst)).toBe(WarpState.MemStall);
    expect(classifyWarp(0)).toBe(WarpState.CanIssueAlu);
    expect(classifyWarp(F.MemInst)).toBe(WarpState.CanIssueMem);
    expect(classifyWarp(F.Completed)).toBe(WarpState.Completed);
    expect(classifyWarp(F.Waiting)).toBe(WarpState.Waiting);
    expect(WARP_STATE_NAME.slice(0, 8)).toEqual([
      'iBufferEmpty', 'aluScoreboard', 'memScoreboard', 'aluStall', 'memStall', 'canIssueAlu', 'canIssueMem', 'completed',
    ]);
  });

  it('applies the precedence rules', () => {
    // A MEM-instruction stall needs a ready instruction: a hazard wins over a busy unit.
    expect(classifyWarp(F.DepAlu | F.UnitBusy | F.MemInst)).toBe(WarpState.AluScoreboard);
    // Waiting on both a load and an ALU result is a MEM scoreboard wait.
    expect(classifyWarp(F.DepAlu | F.DepMem)).toBe(WarpState.MemScoreboard);
    // Completed beats stale iBuffer/dependency bits.
    expect(classifyWarp(F.Completed | F.IBufferEmpty | F.DepMem)).toBe(WarpState.Completed);
    expect(classifyWarp(F.Waiting | F.IBufferEmpty)).toBe(WarpState.Waiting);
    expect(classifyWarp(F.IBufferEmpty | F.DepMem)).toBe(WarpState.IBufferEmpty);
  });

  it('maps scoreboard hazards to dependence flags', () => {
    expect(hazardFlags(ScoreboardHazard.None)).toBe(0);
    expect(hazardFlags(ScoreboardHazard.Raw)).toBe(F.DepAlu);
    expect(hazardFlags(ScoreboardHazard.Waw)).toBe(F.DepAlu);
    expect(hazardFlags(ScoreboardHazard.RawLongLatency)).toBe(F.DepMem);
    expect(hazardFlags(ScoreboardHazard.WawLongLatency)).toBe(F.DepMem);
  });
});

describe('scheduler idle-time states (000 §3.5.3)', () => {
  it('state 1: no warp has a new instruction', () => {
    expect(classifySchedulerCycle([F.IBufferEmpty, F.Completed, F.Waiting], 3)).toBe(SchedulerState.NoInstruction);
    expect(classifySchedulerCycle([], 0)).toBe(SchedulerState.NoInstruction);
  });

  it('state 2: every warp with an instruction is waiting for an operand', () => {
    expect(classifySchedulerCycle([F.IBufferEmpty, F.DepAlu, F.DepMem | F.MemInst], 3)).toBe(SchedulerState.NotReady);
  });

  it('state 3: every warp with a ready instruction is blocked by a pipeline stall', () => {
    expect(classifySchedulerCycle([F.DepMem, F.UnitBusy | F.MemInst, F.IBufferEmpty, F.DepAlu], 4)).toBe(SchedulerState.PipelineStall);
  });

  it('state 4: at least one warp can issue', () => {
    expect(classifySchedulerCycle([F.UnitBusy, F.DepAlu, F.IBufferEmpty, F.MemInst], 4)).toBe(SchedulerState.CanIssue);
    // Only the first `count` entries are considered.
    expect(classifySchedulerCycle([F.DepAlu, 0], 1)).toBe(SchedulerState.NotReady);
    expect(SCHEDULER_STATE_NAME).toEqual(['noInstruction', 'notReady', 'pipelineStall', 'canIssue']);
  });
});

describe('stall breakdown (004 Fig. 3)', () => {
  it('memory conflict: a ready memory instruction is refused by the LSU', () => {
    expect(classifyStall([F.UnitBusy | F.MemInst, F.DepMem], 2)).toBe(StallKind.MemoryConflict);
    // ... even when another ready warp waits for a busy ALU.
    expect(classifyStall([F.UnitBusy, F.UnitBusy | F.MemInst], 2)).toBe(StallKind.MemoryConflict);
  });

  it('memory dependency: nothing ready, some operand waits for memory', () => {
    expect(classifyStall([F.DepAlu, F.DepMem, F.IBufferEmpty], 3)).toBe(StallKind.MemoryDependency);
  });

  it('fetch: no instruction, some warp waits for its iBuffer', () => {
    expect(classifyStall([F.Completed, F.IBufferEmpty, F.Waiting], 3)).toBe(StallKind.Fetch);
  });

  it('other: ALU conflict, ALU dependency, barriers only', () => {
    expect(classifyStall([F.UnitBusy, F.DepMem], 2)).toBe(StallKind.Other); // SFU busy beats a memory wait
    expect(classifyStall([F.DepAlu, F.IBufferEmpty], 2)).toBe(StallKind.Other);
    expect(classifyStall([F.Waiting, F.Completed], 2)).toBe(StallKind.Other);
  });

  it('none when some warp can issue', () => {
    expect(classifyStall([F.UnitBusy | F.MemInst, 0], 2)).toBe(StallKind.None);
    expect(STALL_KIND_NAME).toEqual(['memoryConflict', 'memoryDependency', 'fetch', 'other', 'none']);
  });
});

describe('SchedStatsCounters', () => {
  it('recordCycles(n) counts n identical cycles at once (a sleeping issue stage)', () => {
    const flags = [0, F.DepMem, F.MemInst | F.UnitBusy, F.Completed, F.Waiting, F.IBufferEmpty];
    const once = new SchedStatsCounters();
    expect(once.recordCycles(flags, 6, 7)).toBe(SchedulerState.CanIssue);
    const j = once.toJSON();
    // 7 cycles: one warp each can issue ALU, waits on memory, is MEM-stalled, done, at a barrier, fetch-starved.
    expect(j.schedulerStates).toEqual({ noInstruction: 0, notReady: 0, pipelineStall: 0, canIssue: 7 });
    expect(j.stalls.none).toBe(7);
    expect([j.warpStates.canIssueAlu, j.warpStates.memScoreboard, j.warpStates.memStall, j.warpStates.completed, j.warpStates.waiting, j.warpStates.iBufferEmpty]).toEqual([7, 7, 7, 7, 7, 7]);
    expect(once.recordCycles(flags, 6, 0)).toBe(SchedulerState.CanIssue);
    expect(once.toJSON()).toEqual(j);
  });

  it('counts scheduler states, stall kinds and warp states per cycle', () => {
    const c = new SchedStatsCounters();
    const flags = new Uint8Array(4);
    // Cycle 1: all iBuffers empty.
    flags.set([F.IBufferEmpty, F.IBufferEmpty, F.IBufferEmpty, F.IBufferEmpty]);
    expect(c.recordCycle(flags, 4)).toBe(SchedulerState.NoInstruction);
    // Cycle 2: warp 0 can issue an ALU instruction, warp 1 waits on a load, warp 2 MEM stall.
    flags.set([0, F.DepMem, F.MemInst | F.UnitBusy, F.Completed]);
    expect(c.recordCycle(flags, 4)).toBe(SchedulerState.CanIssue);
    // Cycle 3: warp 0 waits on its ALU result.
    flags.set([F.DepAlu, F.DepMem, F.MemInst | F.UnitBusy, F.Completed]);
    expect(c.recordCycle(flags, 4)).toBe(SchedulerState.PipelineStall);
    expect(c.idleCycles()).toBe(2);
    const j = c.toJSON();
    expect(j.schedulerStates).toEqual({ noInstruction: 1, notReady: 0, pipelineStall: 1, canIssue: 1 });
    expect(j.stalls).toEqual({ memoryConflict: 1, memoryDependency: 0, fetch: 1, other: 0, none: 1 });
    expect(j.warpStates).toEqual({
      iBufferEmpty: 4, aluScoreboard: 1, memScoreboard: 2, aluStall: 0, memStall: 2,
      canIssueAlu: 1, canIssueMem: 0, completed: 2, waiting: 0,
    });
    const total = new SchedStatsCounters();
    total.add(c);
    total.add(c);
    expect(total.schedulerStates[SchedulerState.CanIssue]).toBe(2);
    expect(total.warpStates[WarpState.MemScoreboard]).toBe(4);
    total.reset();
    expect(total.idleCycles()).toBe(0);
  });

  it('classifies the cycles of a small pipeline built from the models', () => {
    // One warp: ld.global r1 (LSU, 1 cycle to accept, result after 20 cycles) then add r2 = r1 + 1.
    const sb = new Scoreboard({ numWarps: 1, numRegs: 4 });
    const ib = new InstructionBuffer<{ mem: boolean; src: number[]; dst: number[] }>({ numWarps: 1 });
    const eu = new ExecUnits({ units: [{ name: 'sp', count: 1 }, { name: 'lsu', count: 1 }] });
    const counters = new SchedStatsCounters();
    const flags = new Uint8Array(1);
    const tags = new Int32Array(4);
    const ld = { mem: true, src: [0], dst: [1] };
    const add = { mem: false, src: [1], dst: [2] };
    const states: number[] = [];
    for (let cycle = 0; cycle < 30; cycle++) {
      // Writeback first.
      const n = eu.drain(cycle, tags);
      for (let i = 0; i < n; i++) sb.release(0, tags[i] === 1 ? ld.dst : add.dst);
      if (cycle === 2) {
        ib.fill(0, 0, ld);
        ib.fill(0, 1, add);
      }
      const head = ib.head(0);
      let f = 0;
      if (head === undefined) f = cycle > 2 ? F.Completed : F.IBufferEmpty;
      else {
        f |= head.mem ? F.MemInst : 0;
        f |= hazardFlags(sb.check(0, head.src, head.dst));
        if (f === (f & F.MemInst) && !eu.canAccept(head.mem ? 1 : 0, cycle)) f |= F.UnitBusy;
      }
      flags[0] = f;
      states.push(classifyWarp(f));
      counters.recordCycle(flags, 1);
      if (head !== undefined && classifySchedulerCycle(flags, 1) === SchedulerState.CanIssue) {
        ib.consume(0);
        sb.reserve(0, head.dst, head.mem);
        eu.issue(head.mem ? 1 : 0, cycle, head.mem ? 20 : 4, 1, head.mem ? 1 : 2);
      }
    }
    // Cycles 0-1 fetch, 2 issue ld, 3-21 wait for the load (writeback at 22), 22 issue add,
    // then completed.
    expect(states.slice(0, 3)).toEqual([WarpState.IBufferEmpty, WarpState.IBufferEmpty, WarpState.CanIssueMem]);
    expect(states.slice(3, 22).every((s) => s === WarpState.MemScoreboard)).toBe(true);
    expect(states[22]).toBe(WarpState.CanIssueAlu);
    expect(states.slice(23).every((s) => s === WarpState.Completed)).toBe(true);
    expect(counters.stalls[StallKind.Fetch]).toBe(2);
    expect(counters.stalls[StallKind.MemoryDependency]).toBe(19);
    expect(counters.stalls[StallKind.None]).toBe(2);
    expect(counters.stalls[StallKind.Other]).toBe(7);
  });
});
