import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { buildCfg, immediatePostDominators, reconvergencePcs } from '../../src/isa/cfg.ts';
import { fixture, parse, parseKernel } from './helpers.ts';

const DECLS = '.reg .pred %p<3>; .reg .b32 %r<3>; .reg .b64 %rd<2>;';

function analyze(lines: string[]) {
  const fn = parseKernel([DECLS, ...lines].join('\n'));
  const cfg = buildCfg(fn);
  return { fn, cfg, ipdom: immediatePostDominators(cfg), reconv: reconvergencePcs(fn, cfg) };
}

const blockShape = (cfg: ReturnType<typeof buildCfg>) => cfg.blocks.map((b) => [b.start, b.end, [...b.succs]]);

describe('control-flow graph and immediate post-dominators', () => {
  it('if/else diamond reconverges at the join block', () => {
    const { cfg, ipdom, reconv } = analyze([
      'setp.eq.s32 %p0, %r0, 0;', // 0
      '@%p0 bra ELSE;', // 1
      'add.s32 %r1, %r0, 1;', // 2
      'bra.uni END;', // 3
      'ELSE:',
      'add.s32 %r1, %r0, 2;', // 4
      'END:',
      'st.global.u32 [%rd0], %r1;', // 5
      'ret;', // 6
    ]);
    expect(blockShape(cfg)).toEqual([
      [0, 2, [2, 1]],
      [2, 4, [3]],
      [4, 5, [3]],
      [5, 7, [4]],
    ]);
    expect(cfg.exit).toBe(4);
    expect(cfg.blocks[3]!.preds).toEqual([1, 2]);
    expect([...cfg.blockOf]).toEqual([0, 0, 1, 1, 2, 3, 3]);
    expect([...ipdom]).toEqual([3, 3, 3, 4, -1]);
    expect([...reconv]).toEqual([-1, 5, -1, 5, -1, -1, -1]);
  });

  it('a loop branch reconverges after the loop', () => {
    const { cfg, ipdom, reconv } = analyze([
      'mov.u32 %r0, 0;', // 0
      'LOOP:',
      'add.s32 %r0, %r0, 1;', // 1
      'setp.lt.s32 %p0, %r0, 10;', // 2
      '@%p0 bra LOOP;', // 3
      'ret;', // 4
    ]);
    expect(blockShape(cfg)).toEqual([
      [0, 1, [1]],
      [1, 4, [1, 2]],
      [4, 5, [3]],
    ]);
    expect([...ipdom]).toEqual([1, 2, 3, -1]);
    expect(reconv[3]).toBe(4);
  });

  it('nested divergence: the inner branch reconverges at the inner join, the outer at the outer join', () => {
    const { cfg, ipdom, reconv } = analyze([
      '@%p0 bra OUTER_ELSE;', // 0
      '@%p1 bra INNER_ELSE;', // 1
      'add.s32 %r0, %r0, 1;', // 2
      'bra.uni INNER_END;', // 3
      'INNER_ELSE:',
      'add.s32 %r0, %r0, 2;', // 4
      'INNER_END:',
      'add.s32 %r0, %r0, 3;', // 5
      'bra.uni OUTER_END;', // 6
      'OUTER_ELSE:',
      'add.s32 %r0, %r0, 4;', // 7
      'OUTER_END:',
      'ret;', // 8
    ]);
    expect(blockShape(cfg)).toEqual([
      [0, 1, [5, 1]],
      [1, 2, [3, 2]],
      [2, 4, [4]],
      [4, 5, [4]],
      [5, 7, [6]],
      [7, 8, [6]],
      [8, 9, [7]],
    ]);
    expect([...ipdom]).toEqual([6, 4, 4, 4, 6, 6, 7, -1]);
    expect(reconv[0]).toBe(8);
    expect(reconv[1]).toBe(5);
    expect(reconv[3]).toBe(5);
    expect(reconv[6]).toBe(8);
  });

  it('an early guarded ret reconverges only at the virtual exit', () => {
    const { cfg, ipdom, reconv } = analyze(['setp.eq.s32 %p0, %r0, 0;', '@%p0 ret;', 'add.s32 %r0, %r0, 1;', 'ret;']);
    expect(blockShape(cfg)).toEqual([
      [0, 2, [2, 1]],
      [2, 4, [2]],
    ]);
    expect([...ipdom]).toEqual([2, 2, -1]);
    expect(reconv[1]).toBe(4);
    expect(reconv[3]).toBe(-1);
  });

  it('a loop with a break reconverges at the break target', () => {
    const { cfg, ipdom, reconv } = analyze([
      'LOOP:',
      'add.s32 %r0, %r0, 1;', // 0
      '@%p0 bra BREAK;', // 1
      'setp.lt.s32 %p1, %r0, 10;', // 2
      '@%p1 bra LOOP;', // 3
      'BREAK:',
      'exit;', // 4
    ]);
    expect(blockShape(cfg)).toEqual([
      [0, 2, [2, 1]],
      [2, 4, [0, 2]],
      [4, 5, [3]],
    ]);
    expect([...ipdom]).toEqual([2, 2, 3, -1]);
    expect(reconv[1]).toBe(4);
    expect(reconv[3]).toBe(4);
  });

  it('an infinite loop (no path to the exit) gets the exit as post-dominator', () => {
    const { ipdom, reconv } = analyze(['L:', 'add.s32 %r0, %r0, 1;', 'bra L;']);
    expect([...ipdom]).toEqual([1, -1]);
    expect(reconv[1]).toBe(2);
  });

  it('a branch to a label at the very end goes to the exit', () => {
    const { cfg, reconv } = analyze(['@%p0 bra END;', 'add.s32 %r0, %r0, 1;', 'END:']);
    expect(blockShape(cfg)).toEqual([
      [0, 1, [2, 1]],
      [1, 2, [2]],
    ]);
    expect(reconv[0]).toBe(2);
  });

  it('an empty function has no blocks', () => {
    const cfg = buildCfg({ instructions: [] });
    expect(cfg.blocks).toEqual([]);
    expect(cfg.exit).toBe(0);
    expect([...immediatePostDominators(cfg)]).toEqual([-1]);
  });

  it('real nvcc output: the bounds check of vecadd reconverges at its ret', () => {
    const m = parse(fixture('kernels.ptx'));
    const fn = m.functions[m.functionByName.get('vecadd')!]!;
    const bra = fn.instructions.findIndex((i) => i.opText === 'bra');
    const ret = fn.instructions.findIndex((i) => i.opText === 'ret');
    expect(reconvergencePcs(fn)[bra]).toBe(ret);
  });

  // Random branchy programs; the reconvergence PC of every branch is checked against the
  // definition of post-dominance, evaluated by brute force on the instruction graph.
  it('agrees with brute-force post-dominance on random programs', () => {
    const kind = fc.constantFrom('add', 'cbra', 'bra', 'ret', 'cret', 'exit');
    const prog = fc.array(fc.record({ kind, target: fc.nat() }), { minLength: 1, maxLength: 18 });
    fc.assert(
      fc.property(prog, (spec) => {
        const n = spec.length;
        const lines: string[] = [];
        const succ: number[][] = [];
        spec.forEach((s, i) => {
          const t = s.target % (n + 1);
          lines.push(`L${i}:`);
          switch (s.kind) {
            case 'add':
              lines.push('add.s32 %r0, %r0, 1;');
              succ.push([i + 1]);
              break;
            case 'cbra':
              lines.push(`@%p0 bra L${t};`);
              succ.push([t, i + 1]);
              break;
            case 'bra':
              lines.push(`bra L${t};`);
              succ.push([t]);
              break;
            case 'ret':
              lines.push('ret;');
              succ.push([n]);
              break;
            case 'cret':
              lines.push('@%p0 ret;');
              succ.push([n, i + 1]);
              break;
            default:
              lines.push('exit;');
              succ.push([n]);
          }
        });
        lines.push(`L${n}:`);
        const { reconv } = analyze(lines);
        // reaches(i, avoid): is the exit (node n) reachable from i's successors without passing `avoid`?
        const reaches = (from: number, avoid: number): boolean => {
          const seen = new Set<number>();
          const work = [...succ[from]!];
          while (work.length > 0) {
            const v = work.pop()!;
            if (v === avoid || seen.has(v)) continue;
            if (v === n) return true;
            seen.add(v);
            work.push(...succ[v]!);
          }
          return false;
        };
        const strictPdoms = (i: number): number[] => {
          const out: number[] = [];
          for (let j = 0; j < n; j++) if (j !== i && !reaches(i, j)) out.push(j);
          out.push(n);
          return out;
        };
        for (let i = 0; i < n; i++) {
          const k = spec[i]!.kind;
          const divergent = k === 'cbra' || k === 'bra' || k === 'cret';
          if (!divergent) {
            expect(reconv[i]).toBe(-1);
            continue;
          }
          if (!reaches(i, -1)) {
            expect(reconv[i]).toBe(n);
            continue;
          }
          const cands = strictPdoms(i);
          // the immediate one is post-dominated by every other candidate
          const ip = cands.find((d) => d === n ? cands.length === 1 : cands.every((e) => e === d || e === n || strictPdoms(d).includes(e)));
          expect(reconv[i]).toBe(ip);
        }
      }),
      { numRuns: 300 },
    );
  });
});
