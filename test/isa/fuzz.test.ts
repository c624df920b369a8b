import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { InputError } from '../../src/errors.ts';
import { parsePtx } from '../../src/isa/parser.ts';
import type { PtxModule } from '../../src/isa/ir.ts';
import { buildCfg, immediatePostDominators, reconvergencePcs } from '../../src/isa/cfg.ts';
import { analyzePhases } from '../../src/isa/phase.ts';
import { analyzeElf } from '../../src/isa/elf.ts';
import { fixture } from './helpers.ts';

/** Either a module or an InputError: anything else (TypeError, RangeError, a hang) fails. */
function parseOrInputError(text: string): PtxModule | undefined {
  try {
    return parsePtx(text, 'fuzz.ptx');
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    expect(e.file).toBe('fuzz.ptx');
    expect(e.reason.length).toBeGreaterThan(0);
    return undefined;
  }
}

/** Every analysis must accept whatever the parser accepted. */
function analyzeAll(m: PtxModule): void {
  for (const f of m.functions) {
    const cfg = buildCfg(f);
    immediatePostDominators(cfg);
    reconvergencePcs(f, cfg);
    analyzePhases(f, { cfg });
    analyzeElf(f, { maxProgramPoints: 4 });
  }
}

type Mutation =
  | { op: 'deleteLine' | 'duplicateLine'; a: number }
  | { op: 'swapLines' | 'swapTokens'; a: number; b: number }
  | { op: 'deleteToken' | 'duplicateToken'; a: number }
  | { op: 'insert'; a: number; s: string }
  | { op: 'replaceChar'; a: number; s: string }
  | { op: 'truncate'; a: number }
  | { op: 'number'; a: number; s: string };

const TOKEN = /[^\s,;[\]{}()]+|[,;[\]{}()]/g;

function applyMutation(text: string, m: Mutation): string {
  const lines = text.split('\n');
  const pick = (n: number, k: number) => (n === 0 ? 0 : k % n);
  switch (m.op) {
    case 'deleteLine':
      lines.splice(pick(lines.length, m.a), 1);
      return lines.join('\n');
    case 'duplicateLine': {
      const i = pick(lines.length, m.a);
      lines.splice(i, 0, lines[i]!);
      return lines.join('\n');
    }
    case 'swapLines': {
      const i = pick(lines.length, m.a);
      const j = pick(lines.length, m.b);
      [lines[i], lines[j]] = [lines[j]!, lines[i]!];
      return lines.join('\n');
    }
    case 'deleteToken':
    case 'duplicateToken':
    case 'swapTokens':
    case 'number': {
      const toks = [...text.matchAll(TOKEN)];
      if (toks.length === 0) return text;
      const t = toks[pick(toks.length, m.a)]!;
      const at = t.index!;
      const end = at + t[0].length;
      if (m.op === 'deleteToken') return text.slice(0, at) + text.slice(end);
      if (m.op === 'duplicateToken') return text.slice(0, end) + ' ' + t[0] + text.slice(end);
      if (m.op === 'number') return text.slice(0, at) + m.s + text.slice(end);
      const u = toks[pick(toks.length, m.op === 'swapTokens' ? m.b : 0)]!;
      if (u.index === at) return text;
      const [x, y] = u.index! < at ? [u, t] : [t, u];
      const xa = x.index!;
      const ya = y.index!;
      return text.slice(0, xa) + y[0] + text.slice(xa + x[0].length, ya) + x[0] + text.slice(ya + y[0].length);
    }
    case 'insert': {
      const i = pick(text.length + 1, m.a);
      return text.slice(0, i) + m.s + text.slice(i);
    }
    case 'replaceChar': {
      const i = pick(text.length, m.a);
      return text.slice(0, i) + m.s + text.slice(i + 1);
    }
    case 'truncate':
      return text.slice(0, pick(text.length + 1, m.a));
  }
}

const ptxChar = fc.constantFrom(
  ...'{}[]()<>,;:.%$@!|+-=_/*"\\ \n\t0123456789abcdefxyzABCDEFpru'.split(''),
  '\u00e9',
  '\u0000',
  '.reg',
  '.b32',
  '%r1',
  '%p1',
  '@',
  '0f3F800000',
  '0d4008000000000000',
  '0x',
  '-',
  '/*',
  '//',
);
const numberText = fc.oneof(
  fc.integer().map(String),
  fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(String),
  fc.constantFrom('0x', '0f', '0d1', '0xFFFFFFFFFFFFFFFFF', '1e999', '1.5', '017', '09', '0b2', '4294967296U', '99999999999999999999'),
);
const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ op: fc.constantFrom('deleteLine' as const, 'duplicateLine' as const), a: fc.nat() }),
  fc.record({ op: fc.constantFrom('swapLines' as const, 'swapTokens' as const), a: fc.nat(), b: fc.nat() }),
  fc.record({ op: fc.constantFrom('deleteToken' as const, 'duplicateToken' as const), a: fc.nat() }),
  fc.record({ op: fc.constant('insert' as const), a: fc.nat(), s: fc.array(ptxChar, { minLength: 1, maxLength: 4 }).map((a) => a.join('')) }),
  fc.record({ op: fc.constant('replaceChar' as const), a: fc.nat(), s: ptxChar }),
  fc.record({ op: fc.constant('truncate' as const), a: fc.nat() }),
  fc.record({ op: fc.constant('number' as const), a: fc.nat(), s: numberText }),
);

describe('fuzzing the parser with mutated real PTX', () => {
  const base = fixture('kernels.ptx');

  it('the unmutated file parses', () => {
    expect(parseOrInputError(base)).toBeDefined();
  });

  it('mutated PTX gives a module or an InputError, never another exception', () => {
    let parsed = 0;
    let refused = 0;
    fc.assert(
      fc.property(fc.array(mutation, { minLength: 1, maxLength: 5 }), (muts) => {
        const text = muts.reduce(applyMutation, base);
        const m = parseOrInputError(text);
        if (m) {
          parsed++;
          analyzeAll(m);
        } else {
          refused++;
        }
      }),
      { numRuns: 400 },
    );
    // both outcomes actually happen (the mutations are neither all harmless nor all fatal)
    expect(parsed).toBeGreaterThan(0);
    expect(refused).toBeGreaterThan(0);
  });

  it('mutated debug-info PTX (sections, .loc, .file) behaves the same', () => {
    const dbg = fixture('vecadd-debug.ptx');
    fc.assert(
      fc.property(fc.array(mutation, { minLength: 1, maxLength: 3 }), (muts) => {
        const m = parseOrInputError(muts.reduce(applyMutation, dbg));
        if (m) analyzeAll(m);
      }),
      { numRuns: 200 },
    );
  });

  it('arbitrary text gives a module or an InputError', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (s) => {
        parseOrInputError(s);
        parseOrInputError('.version 9.0\n.target sm_75\n.address_size 64\n' + s);
      }),
      { numRuns: 300 },
    );
  });
});
