import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/errors.ts';
import { openAccelSimTrace, type AccelSimOpenOptions } from '../../src/frontends/accelsim/index.ts';

const SHARED = resolve(process.cwd(), 'data', 'accelsim-traces');
const FIX = resolve(process.cwd(), 'test', 'frontends', 'fixtures');
const VECTORADD = readFileSync(join(SHARED, 'vectoradd-100-32', 'kernel-1.traceg'), 'latin1');
const MULTI = readFileSync(join(FIX, 'multi-cta', 'kernel-1.traceg'), 'latin1');

/** Writes a one-kernel trace folder with the given kernel text. */
function traceDir(kernelText: string, list = 'kernel-1.traceg\n'): string {
  const dir = mkdtempSync(join(tmpdir(), 'ws-bad-'));
  writeFileSync(join(dir, 'kernel-1.traceg'), kernelText);
  writeFileSync(join(dir, 'kernelslist.g'), list);
  return dir;
}

/** Opens the trace (and reads every CTA) expecting an InputError; returns it. */
function inputError(dir: string, options: AccelSimOpenOptions = {}): InputError {
  try {
    const t = openAccelSimTrace(dir, options);
    for (const k of t.kernels) for (let i = 0; i < k.ctaCount; i++) k.cta(i);
    t.close();
  } catch (e) {
    expect(e).toBeInstanceOf(InputError);
    return e as InputError;
  }
  throw new Error('no InputError');
}

/** 1-based number of the first line of `text` equal to `line`. */
const lineOf = (text: string, line: string, nth = 1): number => {
  const lines = text.split('\n');
  let seen = 0;
  for (let i = 0; i < lines.length; i++) if (lines[i] === line && ++seen === nth) return i + 1;
  throw new Error(`no line ${line}`);
};

describe('bad input stops loading with file, line and reason', () => {
  it('a file truncated inside a CTA', () => {
    const cut = VECTORADD.slice(0, 6000);
    // the cut ends with a line break: the last line is the one before the final empty piece
    expect(cut.endsWith('\n')).toBe(true);
    const lastLine = cut.split('\n').length - 1;
    const e = inputError(traceDir(cut));
    expect(e.file).toMatch(/kernel-1\.traceg$/);
    expect(e.line).toBe(lastLine);
    expect(e.reason).toMatch(/truncated file: the CTA opened at line 19 has no #END_TB \(warp 11 has 0 of its insts = 9 lines\)/);
  });

  it('a file truncated at a CTA boundary (fewer CTAs than the grid)', () => {
    const cut = MULTI.slice(0, MULTI.lastIndexOf('#BEGIN_TB'));
    const e = inputError(traceDir(cut));
    expect(e.reason).toMatch(/has 4 CTAs but the file holds 3/);
    expect(e.field).toBe('grid dim');
  });

  it('insts = k with fewer instruction lines', () => {
    const bad = VECTORADD.replace('insts = 23', 'insts = 24');
    const e = inputError(traceDir(bad));
    expect(e.line).toBe(lineOf(VECTORADD, 'insts = 23'));
    expect(e.reason).toBe('warp 0 declares insts = 24 but has 23 instruction lines');
  });

  it('insts = k with more instruction lines', () => {
    const bad = VECTORADD.replace('insts = 23', 'insts = 22');
    const e = inputError(traceDir(bad));
    // the 23rd instruction line of warp 0 is 23 lines after its insts line
    expect(e.line).toBe(lineOf(VECTORADD, 'insts = 23') + 23);
    expect(e.reason).toMatch(/more instruction lines than its insts = 22/);
  });

  it('a malformed instruction line (unknown address mode), at read time and with validate: full', () => {
    const good = '0098 ffffffff 1 R4 LDG.E.CG 1 R4 4 1 0x7f2b2d500000 4 ';
    const bad = VECTORADD.replace(good, good.replace(' 4 1 0x', ' 4 7 0x'));
    const dir = traceDir(bad);
    const t = openAccelSimTrace(dir); // structure is fine
    expect(t.kernels[0]!.instructionCount).toBe(344);
    let err: unknown;
    try { t.kernels[0]!.cta(0); } catch (e) { err = e; }
    t.close();
    const e = err as InputError;
    expect(e).toBeInstanceOf(InputError);
    expect(e.line).toBe(lineOf(VECTORADD, good));
    expect(e.column).toBe(good.indexOf(' 1 0x') + 2);
    expect(e.field).toBe('address_mode');
    expect(inputError(dir, { validate: 'full' }).line).toBe(lineOf(VECTORADD, good));
  });

  it('malformed lines of several kinds', () => {
    const cases: [string, string, RegExp][] = [
      ['0010 ffffffff 1 R0 S2R 0 0 ', '0010 ffffffff 1 R0 S2R 0 ', /line ends before mem_width/],
      ['0010 ffffffff 1 R0 S2R 0 0 ', '0010 fffffffff 1 R0 S2R 0 0 ', /mask: .*more than 8 hex digits/],
      ['0010 ffffffff 1 R0 S2R 0 0 ', '0010 ffffffff 1 R0 S2R 0 0 junk', /unexpected token 'junk'/],
      ['0010 ffffffff 1 R0 S2R 0 0 ', '0010 ffffffff x R0 S2R 0 0 ', /dest_num: expected a decimal number/],
      ['0098 ffffffff 1 R4 LDG.E.CG 1 R4 4 1 0x7f2b2d500000 4 ', '0098 ffffffff 1 R4 LDG.E.CG 1 R4 4 0 0x7f2b2d500000 ', /line ends before mem_address/],
    ];
    for (const [good, badLine, reason] of cases) {
      const e = inputError(traceDir(VECTORADD.replace(good, badLine)));
      expect(e.line).toBe(lineOf(VECTORADD, good));
      expect(e.message).toMatch(reason);
    }
  });

  it('a malformed header line', () => {
    const e = inputError(traceDir(VECTORADD.replace('-grid dim = (1,1,1)', '-grid dim = (1,1)')));
    expect(e.line).toBe(3);
    expect(e.field).toBe('grid dim');
    const e2 = inputError(traceDir(VECTORADD.replace('-block dim = (1024,1,1)\n', '')));
    expect(e2.reason).toMatch(/no '-block dim = \.\.\.' line/);
  });

  it('a missing kernel file, named at its kernelslist.g line', () => {
    const dir = traceDir(VECTORADD, 'MemcpyHtoD,0x00007f2b2d500000,400\nkernel-1.traceg\nkernel-2.traceg\n');
    const e = inputError(dir);
    expect(e.file).toBe(join(dir, 'kernelslist.g'));
    expect(e.line).toBe(3);
    expect(e.reason).toMatch(/'kernel-2\.traceg' does not exist/);
  });

  it('a missing kernelslist.g and a malformed command', () => {
    const empty = mkdtempSync(join(tmpdir(), 'ws-bad-'));
    expect(inputError(empty).reason).toMatch(/cannot read the kernel list/);
    const e = inputError(traceDir(VECTORADD, 'MemcpyHtoD,0x10\nkernel-1.traceg\n'));
    expect(e.line).toBe(1);
    const e2 = inputError(traceDir(VECTORADD, 'kernel-1.traceg\nlaunch it\n'));
    expect(e2.line).toBe(2);
    expect(e2.reason).toMatch(/unrecognised command/);
  });

  it('an unsupported tracer version', () => {
    for (const v of ['2', '5']) {
      const e = inputError(traceDir(VECTORADD.replace('-accelsim tracer version = 4', `-accelsim tracer version = ${v}`)));
      expect(e.line).toBe(12);
      expect(e.reason).toBe(`unsupported Accel-Sim tracer version ${v} (supported: 3, 4)`);
    }
  });

  it('a binary version without an opcode table, unless an arch is named', () => {
    const dir = traceDir(VECTORADD.replace('-binary version = 61', '-binary version = 20'));
    const e = inputError(dir);
    expect(e.line).toBe(7);
    expect(e.field).toBe('binary version');
    const t = openAccelSimTrace(dir, { arch: 1 });
    expect(t.kernels[0]!.instructionCount).toBe(344);
    t.close();
  });

  it('a corrupt .xz file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ws-bad-'));
    writeFileSync(join(dir, 'kernel-1.traceg.xz'), 'not xz data');
    writeFileSync(join(dir, 'kernelslist.g'), 'kernel-1.traceg.xz\n');
    expect(inputError(dir).reason).toMatch(/xz could not decompress/);
  });

  it('an unknown opcode: refused with its line and column, or counted as ALU', () => {
    const good = '0050 ffffffff 0 NOP 0 0 ';
    const bad = VECTORADD.replaceAll(good, '0050 ffffffff 0 FROB.X 0 0 ');
    const dir = traceDir(bad);
    const e = inputError(dir);
    expect(e.line).toBe(lineOf(VECTORADD, good));
    expect(e.column).toBe(17);
    expect(e.field).toBe('FROB.X');
    expect(e.reason).toMatch(/unknown SASS opcode for pascal/);
    const t = openAccelSimTrace(dir, { unknownOpcode: 'alu', validate: 'full' });
    const rec = t.mapper.unknown.get('pascal:FROB')!;
    // NOP at pc 0x50 appears once in each of the 32 warps
    expect(rec.count).toBe(32);
    expect(rec.first.line).toBe(lineOf(VECTORADD, good));
    expect(t.mapper.unknownCount).toBe(32);
    const ins = t.kernels[0]!.cta(0).warps[0]!.instructions.find((i) => i.pc === 0x50)!;
    expect(ins.opClass).toBe(0);
    expect(ins.info.known).toBe(false);
    t.close();
  });
});

describe('fuzz: mutated real trace text gives a result or an InputError, never a crash', () => {
  const lines = VECTORADD.split('\n');
  const mutation = fc.oneof(
    fc.record({ kind: fc.constant('truncate' as const), at: fc.nat({ max: VECTORADD.length }) }),
    fc.record({ kind: fc.constant('deleteLine' as const), line: fc.nat({ max: lines.length - 1 }) }),
    fc.record({ kind: fc.constant('dupLine' as const), line: fc.nat({ max: lines.length - 1 }) }),
    fc.record({ kind: fc.constant('insert' as const), at: fc.nat({ max: VECTORADD.length }), text: fc.string({ maxLength: 12 }) }),
    fc.record({ kind: fc.constant('replaceToken' as const), line: fc.nat({ max: lines.length - 1 }), tok: fc.nat({ max: 12 }),
      text: fc.constantFrom('', '0', '-1', 'R300', 'P9', 'ffffffffffffffffff', '0x', 'zz', '99999999999999999999', '=', '(1,1,1)', '#END_TB', '3', 'EXIT') }),
  );
  const apply = (text: string, muts: { kind: string; at?: number; line?: number; tok?: number; text?: string }[]): string => {
    let t = text;
    for (const m of muts) {
      const ls = t.split('\n');
      switch (m.kind) {
        case 'truncate': t = t.slice(0, m.at); break;
        case 'deleteLine': ls.splice(m.line! % ls.length, 1); t = ls.join('\n'); break;
        case 'dupLine': { const i = m.line! % ls.length; ls.splice(i, 0, ls[i]!); t = ls.join('\n'); break; }
        case 'insert': t = t.slice(0, m.at) + m.text + t.slice(m.at); break;
        case 'replaceToken': {
          const i = m.line! % ls.length;
          const toks = ls[i]!.split(' ');
          toks[m.tok! % toks.length] = m.text!;
          ls[i] = toks.join(' ');
          t = ls.join('\n');
          break;
        }
      }
    }
    return t;
  };

  it('never throws anything but InputError', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ws-fuzz-'));
    writeFileSync(join(dir, 'kernelslist.g'), 'kernel-1.traceg\n');
    fc.assert(fc.property(fc.array(mutation, { minLength: 1, maxLength: 3 }), fc.constantFrom<'error' | 'alu'>('error', 'alu'), (muts, policy) => {
      writeFileSync(join(dir, 'kernel-1.traceg'), apply(VECTORADD, muts));
      try {
        const t = openAccelSimTrace(dir, { unknownOpcode: policy, validate: 'full', chunkBytes: 256 });
        const k = t.kernels[0]!;
        // a successful load is self-consistent
        let n = 0;
        for (const cta of k.ctas()) for (const w of cta.warps) n += w.length;
        expect(n).toBe(k.instructionCount);
        t.close();
      } catch (e) {
        if (!(e instanceof InputError)) throw e;
        expect(e.file).toMatch(/kernel-1\.traceg/);
      }
    }), { numRuns: 200, seed: 5 });
  });
});
