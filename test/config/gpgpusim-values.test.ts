import { describe, expect, it } from 'vitest';
import {
  parseClockDomains,
  parseDramTimingOpt,
  parseOpcodeList,
  parsePipelineWidths,
  parseWarpScheduler,
} from '../../src/config/gpgpusim-values.ts';
import { InputError } from '../../src/errors.ts';

const src = { where: { file: 'x.config', line: 12 }, option: '-opt' };

describe('parseDramTimingOpt', () => {
  it('reads the named GDDR5 form, including a line break inside the quoted value', () => {
    const t = parseDramTimingOpt('nbk=16:CCD=2:RRD=6:RCD=12:RAS=28:RP=12:RC=40:\n                        CL=12:WL=4:CDLR=5:WR=12:nbkgrp=4:CCDL=3:RTPL=2', src);
    expect(t).toEqual({
      banks: 16,
      bankGroups: 4,
      timing: { tCCD: 2, tRRD: 6, tRCD: 12, tRAS: 28, tRP: 12, tRC: 40, tCL: 12, tWL: 4, tCDLR: 5, tWR: 12, tCCDL: 3, tRTPL: 2 },
    });
  });

  it('reads the positional form; 11 values mean no bank groups', () => {
    // GPGPU-Sim's built-in default "4:2:8:12:21:13:34:9:4:5:13:1:0:0"
    expect(parseDramTimingOpt('4:2:8:12:21:13:34:9:4:5:13:1:0:0', src)).toEqual({
      banks: 4,
      bankGroups: 1,
      timing: { tCCD: 2, tRRD: 8, tRCD: 12, tRAS: 21, tRP: 13, tRC: 34, tCL: 9, tWL: 4, tCDLR: 5, tWR: 13, tCCDL: 0, tRTPL: 0 },
    });
    expect(parseDramTimingOpt('8:2:8:12:21:13:34:9:4:5:13', src)).toMatchObject({ banks: 8, bankGroups: 1, timing: { tCCDL: 0, tRTPL: 0, tWR: 13 } });
  });

  it('returns only the keys given in the named form', () => {
    expect(parseDramTimingOpt('CL=20;WL=8', src)).toEqual({ timing: { tCL: 20, tWL: 8 } });
  });

  it('rejects unknown keys, non-integers and wrong positional counts', () => {
    expect(() => parseDramTimingOpt('nbk=16:tXYZ=3', src)).toThrow(/unknown DRAM timing key 'tXYZ'/);
    expect(() => parseDramTimingOpt('nbk=16:CL=x', src)).toThrow(/expected <key>=<cycles>/);
    expect(() => parseDramTimingOpt('4:2:8', src)).toThrow(/expected 11 or 12 or 13 or 14 values/);
    expect(() => parseDramTimingOpt('nbk=0', src)).toThrow(/nbk must be at least 1/);
    expect(() => parseDramTimingOpt('nbk=16:foo=1', src)).toThrow(InputError);
    expect(() => parseDramTimingOpt('nbk=16:foo=1', src)).toThrow(/^x\.config:12: -opt: /);
  });
});

describe('parseOpcodeList', () => {
  it('maps ADD,MAX,MUL,MAD,DIV,SHFL to named classes', () => {
    expect(parseOpcodeList('4,13,4,5,145,32', 6, src)).toEqual({ add: 4, max: 13, mul: 4, mad: 5, div: 145, shfl: 32 });
    expect(parseOpcodeList('4,13,4,5,39', 5, src)).toEqual({ add: 4, max: 13, mul: 4, mad: 5, div: 39 });
    expect(parseOpcodeList('6,12,13,13,210', 6, src)).toEqual({ add: 6, max: 12, mul: 13, mad: 13, div: 210 });
  });

  it('rejects wrong counts, zero and non-numbers', () => {
    expect(() => parseOpcodeList('4,13,4,5,39,1', 5, src)).toThrow(/expected 5 values/);
    expect(() => parseOpcodeList('4,13,4', 6, src)).toThrow(/expected 5 or 6 values/);
    expect(() => parseOpcodeList('4,13,0,5,39', 5, src)).toThrow(/MUL must be at least 1/);
    expect(() => parseOpcodeList('4,13,a,5,39', 5, src)).toThrow(/'a' is not a non-negative integer/);
  });
});

describe('parsePipelineWidths', () => {
  it('reads the 11-value Fermi form', () => {
    expect(parsePipelineWidths('2,0,0,1,1,2,0,0,1,1,2', src)).toEqual({ sp: [2, 2], dp: [0, 0], int: [0, 0], sfu: [1, 1], mem: [1, 1], exWb: 2 });
  });

  it('reads the 13-value form with tensor cores', () => {
    expect(parsePipelineWidths('4,4,4,4,4,4,4,4,4,4,8,4,4', src)).toMatchObject({ tensor: [4, 4], exWb: 8, sp: [4, 4] });
    expect(parsePipelineWidths('6,4,0,2,1,6,4,0,2,1,12', src)).toMatchObject({ sp: [6, 6], dp: [4, 4], int: [0, 0], sfu: [2, 2], mem: [1, 1], exWb: 12 });
  });

  it('reads the 7-value GPGPU-Sim 3.x form (SP, SFU, MEM)', () => {
    expect(parsePipelineWidths('2,1,1,2,1,1,2', src)).toEqual({ sp: [2, 2], sfu: [1, 1], mem: [1, 1], exWb: 2 });
  });

  it('rejects other lengths', () => {
    expect(() => parsePipelineWidths('1,1,1', src)).toThrow(/expected 7 or 11 or 13 values/);
  });
});

describe('parseWarpScheduler', () => {
  it('maps the GPGPU-Sim scheduler names', () => {
    expect(parseWarpScheduler('gto', src)).toEqual({ kind: 'gto' });
    expect(parseWarpScheduler('lrr', src)).toEqual({ kind: 'lrr' });
    expect(parseWarpScheduler('old', src)).toEqual({ kind: 'oldest' });
  });

  it("maps two_level_active:<n>:0:1 to GPGPU-Sim's own two-list scheduler (C3)", () => {
    expect(parseWarpScheduler('two_level_active:6:0:1', src)).toEqual({ kind: 'twoLevelGpgpusim', readyQueueSize: 6 });
    expect(parseWarpScheduler(' two_level_active:8:0:1 ', src)).toEqual({ kind: 'twoLevelGpgpusim', readyQueueSize: 8 });
  });

  it('refuses schedulers and codes warpstate does not model', () => {
    expect(() => parseWarpScheduler('warp_limiting:2:4', src)).toThrow(/not modelled/);
    // GPGPU-Sim's two_level_active aborts on any inner code but 0 (LRR) and outer code but 1 (SRR).
    expect(() => parseWarpScheduler('two_level_active:6:5:1', src)).toThrow(/inner prioritisation 5 is not implemented by GPGPU-Sim/);
    expect(() => parseWarpScheduler('two_level_active:8:2:0', src)).toThrow(/inner prioritisation 2 is not implemented/);
    expect(() => parseWarpScheduler('two_level_active:6:0:0', src)).toThrow(/outer prioritisation 0 is not implemented/);
    expect(() => parseWarpScheduler('two_level_active:6:0:2', src)).toThrow(/outer prioritisation 2 is not implemented/);
    expect(() => parseWarpScheduler('two_level_active:0:0:1', src)).toThrow(/at least 1 warp/);
    expect(() => parseWarpScheduler('two_level_active:6', src)).toThrow(/two_level_active:<active warps>/);
  });
});

describe('parseClockDomains', () => {
  it('reads four MHz values', () => {
    expect(parseClockDomains('700.0:700.0:700.0:924.0', src)).toEqual({ core: 700, icnt: 700, l2: 700, dram: 924 });
    expect(parseClockDomains('1481.0:2962.0:1481.0:2750.0', src)).toEqual({ core: 1481, icnt: 2962, l2: 1481, dram: 2750 });
  });

  it('rejects missing domains and non-positive clocks', () => {
    expect(() => parseClockDomains('700:700:700', src)).toThrow(/<core>:<icnt>:<l2>:<dram>/);
    expect(() => parseClockDomains('700:0:700:924', src)).toThrow(/clock '0' is not a positive number/);
    expect(() => parseClockDomains('700:fast:700:924', src)).toThrow(/clock 'fast'/);
  });
});
