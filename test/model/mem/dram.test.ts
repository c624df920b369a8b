import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../../src/errors.ts';
import { DRAM_COMMAND_NAME, DramChannel, DramCommand, deriveDramTimings, type DramParams } from '../../../src/model/mem/dram.ts';

/** GTX480 GDDR5 (SM2_GTX480/gpgpusim.config). */
const GTX480: DramParams = {
  banks: 16,
  bankGroups: 4,
  bankGroupIndexing: 'lowerBits',
  tCCD: 2,
  tCCDL: 3,
  tRRD: 6,
  tRCD: 12,
  tRAS: 28,
  tRP: 12,
  tRC: 40,
  tCL: 12,
  tWL: 4,
  tCDLR: 5,
  tWR: 12,
  tRTPL: 2,
  burstLength: 8,
  busWidthBytes: 4,
  chipsPerChannel: 2,
  dataCommandFreqRatio: 4,
  scheduler: 'frFcfs',
  queueSize: 64,
};

interface Log {
  done: Map<number, number>; // id -> completion cycle
  cmds: [number, string, number, number][]; // [cycle, command, bank, reqId]
}

/** Runs the channel until cycle `until` (exclusive), recording completions and commands. */
function run(ch: DramChannel, until: number, log: Log = { done: new Map(), cmds: [] }): Log {
  while (ch.now < until) {
    const t = ch.now;
    const n = ch.cycle();
    for (let i = 0; i < n; i++) {
      expect(ch.doneCycles[i]).toBeLessThanOrEqual(t);
      expect(log.done.has(ch.doneIds[i]!)).toBe(false);
      log.done.set(ch.doneIds[i]!, ch.doneCycles[i]!);
    }
    if (ch.lastCommand !== DramCommand.none) log.cmds.push([t, DRAM_COMMAND_NAME[ch.lastCommand]!, ch.lastCommandBank, ch.lastCommandReqId]);
  }
  return log;
}

describe('derived GDDR5 timings (GPGPU-Sim memory_config::init)', () => {
  it('GTX480: 2-cycle bursts of 64 B, tRCDWR 7, tRTW 12, tWTR 11, tWTP 18', () => {
    expect(deriveDramTimings(GTX480)).toEqual({ burstCycles: 2, atomBytes: 64, tRCDWR: 7, tRTW: 12, tWTR: 11, tWTP: 18 });
  });
});

describe('DramChannel timing', () => {
  it('first read to a precharged bank: ACT, then RD after tRCD, data after tCL + burst', () => {
    const ch = new DramChannel(GTX480);
    expect(ch.push(1, 0, 5, 0, false)).toBe(true);
    const log = run(ch, 30);
    expect(log.cmds).toEqual([
      [0, 'ACT', 0, 1],
      [12, 'RD', 0, 1],
    ]);
    expect(log.done.get(1)).toBe(26);
    expect([ch.activates, ch.reads, ch.rowMisses, ch.rowHits, ch.completedReads]).toEqual([1, 1, 1, 0, 1]);
    expect(ch.latencySum).toBe(26);
    expect(ch.bankBusyCycles[0]).toBe(12); // cycles 0..11 with the request in service
    expect(ch.dataBusBusyCycles).toBe(2);
    expect(ch.bandwidthUtilization()).toBeCloseTo(2 / 30, 12);
    expect(ch.nopCycles).toBe(28);
    expect(ch.idle).toBe(true);
  });

  /** Bank 0 with row 5 open and the channel quiet at cycle 40. */
  function warm(p: Partial<DramParams> = {}): DramChannel {
    const ch = new DramChannel({ ...GTX480, ...p });
    ch.push(100, 0, 5, 0, false);
    run(ch, 40);
    expect(ch.openRow(0)).toBe(5);
    return ch;
  }

  it('row hit: RD at once, data after tCL + burst (14 cycles)', () => {
    const ch = warm();
    ch.push(1, 0, 5, 8, false);
    const log = run(ch, 60);
    expect(log.cmds).toEqual([[40, 'RD', 0, 1]]);
    expect(log.done.get(1)).toBe(54);
    expect(ch.rowHits).toBe(1);
  });

  it('row miss: PRE, ACT after tRP, RD after tRCD, data after tCL + burst (tRP + tRCD + tCL + 2 = 38)', () => {
    const ch = warm();
    ch.push(1, 0, 9, 0, false);
    const log = run(ch, 90);
    expect(log.cmds).toEqual([
      [40, 'PRE', 0, 1],
      [52, 'ACT', 0, 1],
      [64, 'RD', 0, 1],
    ]);
    expect(log.done.get(1)! - 40).toBe(12 + 12 + 12 + 2);
    expect([ch.rowMisses, ch.precharges, ch.activates]).toEqual([2, 1, 2]);
    expect(ch.openRow(0)).toBe(9);
  });

  it('back-to-back row hits in one bank are tCCDL apart (same bank group), tCCD apart without bank groups', () => {
    const grouped = new DramChannel(GTX480);
    for (let i = 1; i <= 4; i++) grouped.push(i, 0, 5, 8 * i, false);
    const g = run(grouped, 40);
    expect(g.cmds.filter((c) => c[1] === 'RD').map((c) => c[0])).toEqual([12, 15, 18, 21]);
    expect([1, 2, 3, 4].map((i) => g.done.get(i))).toEqual([26, 29, 32, 35]);
    expect(grouped.rowHits).toBe(3);

    const flat = new DramChannel({ ...GTX480, bankGroups: 1, tCCDL: 0 });
    for (let i = 1; i <= 4; i++) flat.push(i, 0, 5, 8 * i, false);
    const f = run(flat, 40);
    expect(f.cmds.filter((c) => c[1] === 'RD').map((c) => c[0])).toEqual([12, 14, 16, 18]);
    expect([1, 2, 3, 4].map((i) => f.done.get(i))).toEqual([26, 28, 30, 32]);
  });

  it('row hits to two banks: tCCD apart in different bank groups, tCCDL apart in the same group', () => {
    for (const [b1, gap] of [
      [1, 2],
      [4, 3],
    ] as const) {
      const ch = new DramChannel(GTX480); // lowerBits: bank 1 is group 1, bank 4 is group 0 like bank 0
      ch.push(100, 0, 5, 0, false);
      ch.push(101, b1, 5, 0, false);
      const log = run(ch, 40);
      ch.push(1, 0, 5, 0, false);
      ch.push(2, b1, 5, 0, false);
      run(ch, 70, log);
      expect(log.done.get(1)).toBe(54);
      expect(log.done.get(2)).toBe(54 + gap);
    }
  });

  it('a 128-byte request takes two column commands (64-byte atoms)', () => {
    const ch = new DramChannel(GTX480);
    ch.push(1, 3, 7, 0, false, 128);
    const log = run(ch, 40);
    expect(log.cmds).toEqual([
      [0, 'ACT', 3, 1],
      [12, 'RD', 3, 1],
      [15, 'RD', 3, 1],
    ]);
    expect(log.done.get(1)).toBe(29);
    expect([ch.reads, ch.dataBusBusyCycles, ch.completedReads]).toEqual([2, 4, 1]);
  });
});

describe('DramChannel activate spacing', () => {
  it('tRRD between activates to different banks; column commands take the bus first', () => {
    const ch = new DramChannel(GTX480);
    for (let b = 0; b < 4; b++) ch.push(b, b, 1, 0, false);
    const log = run(ch, 50);
    expect(log.cmds).toEqual([
      [0, 'ACT', 0, 0],
      [6, 'ACT', 1, 1],
      [12, 'RD', 0, 0],
      [13, 'ACT', 2, 2],
      [18, 'RD', 1, 1],
      [19, 'ACT', 3, 3],
      [25, 'RD', 2, 2],
      [31, 'RD', 3, 3],
    ]);
    const slow = new DramChannel({ ...GTX480, tRRD: 10 });
    slow.push(0, 0, 1, 0, false);
    slow.push(1, 1, 1, 0, false);
    expect(run(slow, 12).cmds.filter((c) => c[1] === 'ACT').map((c) => c[0])).toEqual([0, 10]);
  });

  it('tRC between activates to the same bank (when longer than tRAS + tRP)', () => {
    for (const [tRC, act2] of [
      [40, 40],
      [50, 50],
    ] as const) {
      const ch = new DramChannel({ ...GTX480, tRC });
      ch.push(1, 0, 1, 0, false);
      ch.push(2, 0, 2, 0, false);
      const log = run(ch, 80);
      expect(log.cmds).toEqual([
        [0, 'ACT', 0, 1],
        [12, 'RD', 0, 1],
        [28, 'PRE', 0, 2], // tRAS after the ACT
        [act2, 'ACT', 0, 2],
        [act2 + 12, 'RD', 0, 2],
      ]);
    }
  });
});

describe('DramChannel reads and writes', () => {
  it('write: WR tRCDWR after ACT, done after tWL + burst; a read then waits tWTR', () => {
    const ch = new DramChannel(GTX480);
    ch.push(1, 0, 5, 0, true);
    ch.push(2, 0, 5, 0, false);
    const log = run(ch, 40);
    expect(log.cmds).toEqual([
      [0, 'ACT', 0, 1],
      [7, 'WR', 0, 1],
      [18, 'RD', 0, 2],
    ]);
    expect(log.done.get(1)).toBe(13);
    expect(log.done.get(2)).toBe(32);
    expect([ch.completedWrites, ch.completedReads, ch.writes]).toEqual([1, 1, 1]);
  });

  it('read then write: WR waits tRTW after RD', () => {
    const ch = new DramChannel(GTX480);
    ch.push(1, 0, 5, 0, false);
    ch.push(2, 0, 5, 0, true);
    const log = run(ch, 40);
    expect(log.cmds.map((c) => [c[0], c[1]])).toEqual([
      [0, 'ACT'],
      [12, 'RD'],
      [24, 'WR'],
    ]);
    expect(log.done.get(2)).toBe(30);
  });

  it('precharge after a write waits for write recovery (tWTP = tWL + burst + tWR)', () => {
    const ch = new DramChannel({ ...GTX480, tRAS: 10, tRC: 20 });
    ch.push(1, 0, 5, 0, true);
    ch.push(2, 0, 9, 0, false);
    const log = run(ch, 70);
    expect(log.cmds).toEqual([
      [0, 'ACT', 0, 1],
      [7, 'WR', 0, 1],
      [25, 'PRE', 0, 2],
      [37, 'ACT', 0, 2],
      [49, 'RD', 0, 2],
    ]);
    expect(log.done.get(2)).toBe(63);
  });
});

describe('DramChannel schedulers', () => {
  /** Bank 0 holds row 5 open; at cycle 40 an older row miss and a younger row hit arrive. */
  function race(scheduler: 'frFcfs' | 'fifo'): { ch: DramChannel; log: Log } {
    const ch = new DramChannel({ ...GTX480, scheduler });
    ch.push(100, 0, 5, 0, false);
    const log = run(ch, 40);
    ch.push(1, 0, 9, 0, false); // older, row miss
    ch.push(2, 0, 5, 0, false); // younger, row hit
    run(ch, 130, log);
    return { ch, log };
  }

  it('FR-FCFS serves the younger row hit before the older row miss', () => {
    const { ch, log } = race('frFcfs');
    expect(log.cmds.filter((c) => c[0] >= 40)).toEqual([
      [40, 'RD', 0, 2],
      [42, 'PRE', 0, 1],
      [54, 'ACT', 0, 1],
      [66, 'RD', 0, 1],
    ]);
    expect(log.done.get(2)).toBe(54);
    expect(log.done.get(1)).toBe(80);
    expect([ch.rowHits, ch.rowMisses, ch.activates, ch.precharges]).toEqual([1, 2, 2, 1]);
  });

  it('FIFO serves the older row miss first and reopens the old row for the younger request', () => {
    const { ch, log } = race('fifo');
    expect(log.cmds.filter((c) => c[0] >= 40)).toEqual([
      [40, 'PRE', 0, 1],
      [52, 'ACT', 0, 1],
      [64, 'RD', 0, 1],
      [80, 'PRE', 0, 2],
      [92, 'ACT', 0, 2],
      [104, 'RD', 0, 2],
    ]);
    expect(log.done.get(1)).toBe(78);
    expect(log.done.get(2)).toBe(118);
    expect([ch.rowHits, ch.rowMisses, ch.activates, ch.precharges]).toEqual([0, 3, 3, 2]);
  });

  it('FIFO blocks behind a busy bank (head of line); FR-FCFS lets another bank go', () => {
    for (const [scheduler, bank1Act] of [
      ['fifo', 14],
      ['frFcfs', 6],
    ] as const) {
      const ch = new DramChannel({ ...GTX480, scheduler });
      ch.push(1, 0, 1, 0, false);
      ch.push(2, 0, 2, 0, false); // same bank, waits until request 1's RD at 12
      ch.push(3, 1, 1, 0, false); // other bank, behind request 2 in FIFO order
      const log = run(ch, 20);
      // FIFO: request 2 takes bank 0 at 13, request 3 bank 1 at 14, ACT at once
      expect(log.cmds.find((c) => c[1] === 'ACT' && c[2] === 1)?.[0]).toBe(bank1Act);
    }
  });

  it('the queue holds queueSize waiting requests; push refuses more', () => {
    const ch = new DramChannel({ ...GTX480, queueSize: 2 });
    expect(ch.push(1, 0, 1, 0, false)).toBe(true);
    expect(ch.push(2, 1, 1, 0, false)).toBe(true);
    expect(ch.full).toBe(true);
    expect(ch.push(3, 2, 1, 0, false)).toBe(false);
    expect(ch.refused).toBe(1);
    ch.cycle(); // request 1 goes to bank 0
    expect(ch.queued).toBe(1);
    expect(ch.push(3, 2, 1, 0, false)).toBe(true);
    expect(ch.accepted).toBe(3);
  });

  it('rejects bad requests and parameters', () => {
    const ch = new DramChannel(GTX480);
    expect(() => ch.push(1, 16, 0, 0, false)).toThrow(InputError);
    expect(() => ch.push(1, 0, 0, 0, false, 0)).toThrow(/bytes/);
    expect(() => ch.push(1, 0, -1, 0, false)).toThrow(/row/);
    expect(() => new DramChannel({ ...GTX480, bankGroups: 3 })).toThrow(/bankGroups/);
    expect(() => new DramChannel({ ...GTX480, tRCD: -1 })).toThrow(/tRCD/);
    expect(() => new DramChannel({ ...GTX480, dataCommandFreqRatio: 16 })).toThrow(/burstLength/);
    expect(() => new DramChannel({ ...GTX480, scheduler: 'lifo' as never })).toThrow(/scheduler/);
  });
});

describe('DramChannel properties (random traffic)', () => {
  const req = fc.record({
    at: fc.integer({ min: 0, max: 200 }),
    bank: fc.integer({ min: 0, max: 7 }),
    row: fc.integer({ min: 0, max: 3 }),
    write: fc.boolean(),
    atoms: fc.integer({ min: 1, max: 2 }),
  });

  it('every command obeys every timing constraint; every request completes once; ACTs = row misses', () => {
    fc.assert(
      fc.property(fc.array(req, { minLength: 1, maxLength: 40 }), fc.constantFrom('frFcfs' as const, 'fifo' as const), fc.constantFrom(1, 2, 4), (reqs, scheduler, bankGroups) => {
        const p: DramParams = { ...GTX480, banks: 8, bankGroups, bankGroupIndexing: 'higherBits', scheduler, queueSize: 8 };
        const d = deriveDramTimings(p);
        const ch = new DramChannel(p);
        const sorted = reqs.map((r, id) => ({ ...r, id })).sort((a, b) => a.at - b.at || a.id - b.id);
        const pending = [...sorted];
        const groupOf = (b: number): number => Math.floor(b / (8 / bankGroups));
        const NEG = -1e9;
        const lastAct = new Array(8).fill(NEG);
        const lastPre = new Array(8).fill(NEG);
        const lastRdBank = new Array(8).fill(NEG);
        const lastWrBank = new Array(8).fill(NEG);
        const lastColGrp = new Array(bankGroups).fill(NEG);
        const lastRdGrp = new Array(bankGroups).fill(NEG);
        const open = new Array(8).fill(-1);
        let lastActAny = NEG;
        let lastColAny = NEG;
        let lastRdAny = NEG;
        let lastWrAny = NEG;
        const done = new Set<number>();
        const byId = new Map(sorted.map((r) => [r.id, r]));
        const cols = new Map<number, number>();
        let t = 0;
        while ((pending.length > 0 || !ch.idle) && t < 20000) {
          while (pending.length > 0 && pending[0]!.at <= t && !ch.full) {
            const r = pending.shift()!;
            expect(ch.push(r.id, r.bank, r.row, 0, r.write, 64 * r.atoms)).toBe(true);
          }
          const n = ch.cycle();
          for (let i = 0; i < n; i++) {
            const id = ch.doneIds[i]!;
            expect(done.has(id)).toBe(false);
            done.add(id);
            const r = byId.get(id)!;
            expect(cols.get(id)).toBe(r.atoms);
            expect(ch.doneWrites[i]).toBe(r.write ? 1 : 0);
          }
          const b = ch.lastCommandBank;
          const g = b >= 0 ? groupOf(b) : -1;
          switch (ch.lastCommand) {
            case DramCommand.act:
              expect(open[b]).toBe(-1);
              expect(t - lastActAny).toBeGreaterThanOrEqual(p.tRRD);
              expect(t - lastAct[b]).toBeGreaterThanOrEqual(p.tRC);
              expect(t - lastPre[b]).toBeGreaterThanOrEqual(p.tRP);
              open[b] = ch.lastCommandRow;
              lastAct[b] = lastActAny = t;
              break;
            case DramCommand.pre:
              expect(open[b]).not.toBe(-1);
              expect(t - lastAct[b]).toBeGreaterThanOrEqual(p.tRAS);
              expect(t - lastRdBank[b]).toBeGreaterThanOrEqual(d.burstCycles);
              expect(t - lastWrBank[b]).toBeGreaterThanOrEqual(d.tWTP);
              expect(t - lastRdGrp[g]).toBeGreaterThanOrEqual(p.tRTPL!);
              open[b] = -1;
              lastPre[b] = t;
              break;
            case DramCommand.rd:
            case DramCommand.wr: {
              const write = ch.lastCommand === DramCommand.wr;
              const r = byId.get(ch.lastCommandReqId)!;
              expect(r.write).toBe(write);
              expect(open[b]).toBe(r.row);
              expect(ch.lastCommandRow).toBe(r.row);
              expect(t - lastAct[b]).toBeGreaterThanOrEqual(write ? d.tRCDWR : p.tRCD);
              expect(t - lastColAny).toBeGreaterThanOrEqual(p.tCCD);
              expect(t - lastColGrp[g]).toBeGreaterThanOrEqual(p.tCCDL!);
              if (write) expect(t - lastRdAny).toBeGreaterThanOrEqual(d.tRTW);
              else expect(t - lastWrAny).toBeGreaterThanOrEqual(d.tWTR);
              cols.set(r.id, (cols.get(r.id) ?? 0) + 1);
              lastColAny = lastColGrp[g] = t;
              if (write) lastWrAny = lastWrBank[b] = t;
              else lastRdAny = lastRdBank[b] = lastRdGrp[g] = t;
              break;
            }
          }
          t++;
        }
        expect(done.size).toBe(reqs.length);
        expect(ch.activates).toBe(ch.rowMisses);
        expect(ch.rowHits + ch.rowMisses).toBe(reqs.length);
        expect(ch.reads + ch.writes).toBe(reqs.reduce((s, r) => s + r.atoms, 0));
        expect(ch.dataBusBusyCycles).toBe(2 * (ch.reads + ch.writes));
      }),
      { numRuns: 150 },
    );
  });

  it('FIFO hands requests to banks in arrival order', () => {
    fc.assert(
      fc.property(fc.array(req, { minLength: 1, maxLength: 30 }), (reqs) => {
        const ch = new DramChannel({ ...GTX480, banks: 8, bankGroups: 1, scheduler: 'fifo', queueSize: 64 });
        reqs.forEach((r, id) => ch.push(id, r.bank, r.row, 0, r.write));
        const firstCmd: number[] = [];
        for (let t = 0; t < 20000 && !ch.idle; t++) {
          ch.cycle();
          const id = ch.lastCommandReqId;
          if (id >= 0 && !firstCmd.includes(id)) firstCmd.push(id);
        }
        // the first command of each request comes in arrival order, since requests enter service in order
        // and a request's bank only serves it after the previous ones of that bank
        const perBank = new Map<number, number[]>();
        for (const id of firstCmd) {
          const b = reqs[id]!.bank;
          if (!perBank.has(b)) perBank.set(b, []);
          perBank.get(b)!.push(id);
        }
        for (const ids of perBank.values()) expect(ids).toEqual([...ids].sort((a, b) => a - b));
        expect(firstCmd.length).toBe(reqs.length);
      }),
      { numRuns: 100 },
    );
  });
});
