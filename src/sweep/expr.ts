/**
 * Derived columns and checks of a sweep (issue 12 item 2): expressions over a point's columns
 * and over other points, compiled by filtrex (arithmetic, comparisons, `and`/`or`/`not`,
 * `min`, `max`, `abs`, `log`, `sqrt`, `if ... then ... else`).
 *
 * A name is a column of the current point (a collected statistic, an earlier derived column, an
 * axis label) or, written `column[axis=label, ...]`, the column of another point: the one whose
 * labels equal the current point's except the axes named. `cycles[policy=lrr] / cycles` is the
 * speed-up of the current point against the `lrr` point of the same kernel, seed and so on.
 */
import { compileExpression } from 'filtrex';
import { pointKey, type Axis, type GridPoint } from './grid.ts';

/** One row of the results table as the expressions see it. */
export interface ExprRow {
  readonly id: string;
  readonly point: GridPoint;
  /** Collected and derived columns; null where unknown (the point failed). */
  readonly values: Record<string, number | null>;
}

/** A table the expressions read: its axes and rows, indexed by point labels. */
export class ExprTable {
  private readonly byKey: Map<string, ExprRow>;
  constructor(
    readonly axes: readonly Axis[],
    readonly rows: readonly ExprRow[],
  ) {
    this.byKey = new Map(rows.map((r) => [pointKey(axes, r.point), r]));
  }
  /** The row with these labels, if the sweep has it. */
  find(point: GridPoint): ExprRow | undefined {
    return this.byKey.get(pointKey(this.axes, point));
  }
}

/** A name an expression read, with what it resolved to. */
interface Ref {
  readonly name: string;
  /** Id of the point it read (the current one for a plain name). */
  readonly point: string | null;
  readonly value: number | string | null;
}

/** A reference `column[axis=label, ...]` split into its parts. */
interface Selector {
  readonly column: string;
  readonly select: Readonly<Record<string, string>>;
}

const SELECTOR = /([A-Za-z_][A-Za-z0-9_]*)\[([^\]]*)\]/g;

/** Parses the inside of `[...]`: `axis=label` pairs separated by commas. */
function parseSelector(column: string, inner: string): Selector {
  const select: Record<string, string> = {};
  for (const part of inner.split(',')) {
    const eq = part.indexOf('=');
    if (eq <= 0) throw new Error(`'${column}[${inner}]': expected axis=label inside [ ]`);
    select[part.slice(0, eq).trim()] = part.slice(eq + 1).trim();
  }
  return { column, select };
}

/** Result of evaluating an expression on one point. */
export interface Evaluation {
  /** The value (booleans as 1/0); null when a name it read had no value or the result is not finite. */
  readonly value: number | null;
  readonly refs: readonly Ref[];
  /** Names whose value was missing (a failed point, a point the grid lacks). */
  readonly missing: readonly string[];
}

/**
 * A compiled sweep expression.
 * @throws Error (message for the user) on a syntax error or a malformed `[...]` selector
 */
export class SweepExpr {
  private readonly fn: (ctx: object) => unknown;
  private readonly selectors = new Map<string, Selector>();
  private ctx: { table: ExprTable; row: ExprRow; refs: Ref[]; missing: string[] } | null = null;

  constructor(readonly text: string) {
    // A selector is not filtrex syntax: it becomes a quoted name ('cycles[policy=lrr]'), which
    // filtrex hands to customProp whole.
    const rewritten = text.replace(SELECTOR, (whole: string, column: string, inner: string) => {
      this.selectors.set(whole, parseSelector(column, inner));
      return `'${whole.replace(/'/g, '')}'`;
    });
    this.fn = compileExpression(rewritten, {
      customProp: (name: string) => this.resolve(name),
    }) as (ctx: object) => unknown;
  }

  /** The axes named in `[...]` selectors. */
  get selectedAxes(): Set<string> {
    return new Set([...this.selectors.values()].flatMap((s) => Object.keys(s.select)));
  }

  /** The `[...]` references, for validation. */
  get references(): readonly Selector[] {
    return [...this.selectors.values()];
  }

  private resolve(name: string): number | string {
    const c = this.ctx!;
    const sel = this.selectors.get(name);
    if (sel !== undefined) {
      const target = c.table.find({ ...c.row.point, ...sel.select });
      const v = target?.values[sel.column] ?? null;
      c.refs.push({ name, point: target?.id ?? null, value: v });
      if (v === null) {
        c.missing.push(name);
        return 0;
      }
      return v;
    }
    if (c.table.axes.some((a) => a.name === name)) {
      const label = c.row.point[name]!;
      const n = Number(label);
      const v = label.trim() !== '' && Number.isFinite(n) ? n : label;
      c.refs.push({ name, point: c.row.id, value: v });
      return v;
    }
    const v = c.row.values[name];
    if (v === undefined) throw new Error(`unknown name '${name}'`);
    c.refs.push({ name, point: c.row.id, value: v });
    if (v === null) {
      c.missing.push(name);
      return 0;
    }
    return v;
  }

  /**
   * Evaluates the expression for `row` of `table`.
   * @throws Error naming an unknown column, or a type error (a label compared as a number)
   */
  evaluate(table: ExprTable, row: ExprRow): Evaluation {
    const ctx = { table, row, refs: [] as Ref[], missing: [] as string[] };
    this.ctx = ctx;
    let r: unknown;
    try {
      r = this.fn({});
    } finally {
      this.ctx = null;
    }
    if (r instanceof Error) {
      if (ctx.missing.length > 0) return { value: null, refs: ctx.refs, missing: ctx.missing };
      throw new Error(`${this.text}: ${r.message}`);
    }
    const value = typeof r === 'boolean' ? (r ? 1 : 0) : typeof r === 'number' && Number.isFinite(r) && ctx.missing.length === 0 ? r : null;
    return { value, refs: ctx.refs, missing: ctx.missing };
  }
}

/**
 * Computes derived columns in order (a column may use the earlier ones), adding them to each
 * row's `values`.
 * @param derived column name -> expression
 * @throws Error from {@link SweepExpr} (a syntax error, an unknown name)
 */
export function computeDerived(table: ExprTable, derived: Readonly<Record<string, string>>): void {
  for (const [name, text] of Object.entries(derived)) {
    const e = new SweepExpr(text);
    const values = table.rows.map((row) => e.evaluate(table, row).value);
    table.rows.forEach((row, i) => (row.values[name] = values[i]!));
  }
}

/** A check over the table, as results.json records it. */
export interface CheckResult {
  readonly expr: string;
  readonly passed: boolean;
  readonly detail: string;
}

/**
 * Evaluates a check on every point; points that resolve to the same referenced points (e.g. the
 * four policies of one kernel in `cycles[policy=gto] <= cycles[policy=lrr]`) are evaluated once.
 * Passes when every evaluation holds; an evaluation with a missing value fails the check.
 * @param description shown instead of the expression when given
 */
export function evaluateCheck(table: ExprTable, text: string, description?: string): CheckResult {
  const e = new SweepExpr(text);
  const selected = e.selectedAxes;
  const seen = new Set<string>();
  let evaluated = 0;
  const failures: string[] = [];
  const missing: string[] = [];
  for (const row of table.rows) {
    const ev = e.evaluate(table, row);
    const binding = JSON.stringify(ev.refs.map((r) => [r.name, r.point]));
    if (seen.has(binding)) continue;
    seen.add(binding);
    evaluated++;
    const where = table.axes.filter((a) => !selected.has(a.name)).map((a) => `${a.name}=${row.point[a.name]}`).join(', ');
    const values = ev.refs.map((r) => `${r.name} = ${r.value ?? 'missing'}`).join(', ');
    if (ev.missing.length > 0) missing.push(`${where}: ${ev.missing.join(', ')} missing`);
    else if (ev.value !== 1) failures.push(`${where}: ${values}`);
  }
  const passed = failures.length === 0 && missing.length === 0;
  const head = description !== undefined ? `${description}: ` : '';
  let detail = `${head}${evaluated} evaluation(s)`;
  if (passed) detail += ', all hold';
  if (failures.length > 0) detail += `, ${failures.length} fail: ${failures.slice(0, 5).join('; ')}${failures.length > 5 ? '; ...' : ''}`;
  if (missing.length > 0) detail += `, ${missing.length} not evaluated: ${missing.slice(0, 5).join('; ')}`;
  return { expr: text, passed, detail };
}
