import { describe, expect, it } from 'vitest';
import { computeDerived, evaluateCheck, ExprTable, SweepExpr, type ExprRow } from '../../src/sweep/expr.ts';
import type { Axis } from '../../src/sweep/grid.ts';

const axes: Axis[] = [
  { name: 'base', target: { kind: 'base' }, labels: ['k1', 'k2'], values: ['k1', 'k2'] },
  { name: 'policy', target: { kind: 'config', key: 'policies.warpScheduler.kind' }, labels: ['lrr', 'gto'], values: ['lrr', 'gto'] },
];
/** cycles: k1 lrr 1000, gto 800; k2 lrr 500, gto 600 (k2/gto failed in the second table). */
function table(k2gto: number | null = 600): ExprTable {
  const rows: ExprRow[] = [
    { id: 'k1/policy=lrr', point: { base: 'k1', policy: 'lrr' }, values: { cycles: 1000 } },
    { id: 'k1/policy=gto', point: { base: 'k1', policy: 'gto' }, values: { cycles: 800 } },
    { id: 'k2/policy=lrr', point: { base: 'k2', policy: 'lrr' }, values: { cycles: 500 } },
    { id: 'k2/policy=gto', point: { base: 'k2', policy: 'gto' }, values: { cycles: k2gto } },
  ];
  return new ExprTable(axes, rows);
}

describe('sweep expressions', () => {
  it('derived speed-up against the lrr point of the same kernel: 1000/800 = 1.25, 500/600', () => {
    const t = table();
    computeDerived(t, { speedup: 'cycles[policy=lrr] / cycles', faster: 'speedup > 1' });
    expect(t.rows.map((r) => r.values.speedup)).toEqual([1, 1.25, 1, 500 / 600]);
    expect(t.rows.map((r) => r.values.faster)).toEqual([0, 1, 0, 0]);
  });

  it('a derived value of a failed point, and of points that read it, is null', () => {
    const t = table(null);
    computeDerived(t, { speedup: 'cycles[policy=lrr] / cycles', gtoGain: 'cycles[policy=lrr] / cycles[policy=gto]' });
    expect(t.rows.map((r) => r.values.speedup)).toEqual([1, 1.25, 1, null]);
    expect(t.rows.map((r) => r.values.gtoGain)).toEqual([1.25, 1.25, null, null]);
  });

  it('a check is evaluated once per kernel and names the failing kernel and values', () => {
    const c = evaluateCheck(table(), 'cycles[policy=gto] <= 1.01 * min(cycles[policy=lrr], 10000)');
    expect(c.passed).toBe(false);
    expect(c.detail).toBe('2 evaluation(s), 1 fail: base=k2: cycles[policy=gto] = 600, cycles[policy=lrr] = 500');
    const ok = evaluateCheck(table(), 'cycles > 0 and cycles < 2000', 'positive');
    expect(ok).toEqual({ expr: 'cycles > 0 and cycles < 2000', passed: true, detail: 'positive: 4 evaluation(s), all hold' });
  });

  it('a check with a missing value fails as not evaluated', () => {
    const c = evaluateCheck(table(null), 'cycles[policy=gto] <= cycles[policy=lrr]');
    expect(c.passed).toBe(false);
    expect(c.detail).toContain('1 not evaluated: base=k2: cycles[policy=gto] missing');
  });

  it('axis labels are names too; a syntax error throws', () => {
    const t = table();
    expect(new SweepExpr('if policy == "gto" then 1 else 2').evaluate(t, t.rows[1]!).value).toBe(1);
    expect(() => new SweepExpr('cycles +')).toThrow(/Parse error/);
    expect(() => new SweepExpr('nosuch * 2').evaluate(t, t.rows[0]!)).toThrow(/unknown name 'nosuch'/);
  });
});
