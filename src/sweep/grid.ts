/**
 * Grid expansion (issue 12 item 2): the axes of a sweep crossed as a cartesian product, zip
 * groups advancing together, plus explicit points. Pure: no files, no processes.
 */

/** What an axis sets on a point. */
export type AxisTarget = { kind: 'base' } | { kind: 'seed' } | { kind: 'config'; key: string } | { kind: 'scenario'; key: string };

/** One swept dimension with its labels (column values) and the values they stand for. */
export interface Axis {
  readonly name: string;
  readonly target: AxisTarget;
  /** Labels, in file order; unique. */
  readonly labels: readonly string[];
  /** `values[i]` is what `labels[i]` sets (a scalar or a YAML object). */
  readonly values: readonly unknown[];
}

/** A point of the grid: axis name -> label, for every axis. */
export type GridPoint = Readonly<Record<string, string>>;

/** A problem in the grid, with the sweep-file path it concerns (the loader locates it). */
export class GridError extends Error {
  constructor(readonly path: readonly (string | number)[], message: string) {
    super(message);
  }
}

/**
 * Expands the grid: each axis outside a zip group is one factor, each zip group one factor whose
 * i-th element takes the i-th label of each of its axes; factors are crossed in axis order (a
 * zip group sits where its first axis is; the first factor varies slowest). `include` points are
 * appended unless the grid already has them.
 * @param axes every axis, in order (base first, seed last where present)
 * @param zip groups of axis names
 * @param include explicit points: every axis given, by label (a scalar label of an axis given as
 *   a list may be new: it then stands for itself)
 * @returns the points, in order, without duplicates
 * @throws GridError: an unknown or repeated axis in a zip group, zip groups of unequal lengths,
 *   an include point missing an axis, naming an unknown one or an unknown label
 */
export function expandGrid(axes: readonly Axis[], zip: readonly (readonly string[])[] = [], include: readonly Readonly<Record<string, string>>[] = []): GridPoint[] {
  const byName = new Map(axes.map((a) => [a.name, a]));
  const zipOf = new Map<string, number>();
  zip.forEach((group, g) => {
    group.forEach((name, i) => {
      if (!byName.has(name)) throw new GridError(['zip', g, i], `unknown axis '${name}' (axes: ${[...byName.keys()].join(', ')})`);
      if (zipOf.has(name)) throw new GridError(['zip', g, i], `axis '${name}' is in more than one zip group`);
      zipOf.set(name, g);
    });
    const lengths = group.map((n) => byName.get(n)!.labels.length);
    if (new Set(lengths).size > 1) throw new GridError(['zip', g], `zipped axes need the same number of values, got ${group.map((n, i) => `${n}: ${lengths[i]}`).join(', ')}`);
  });
  // Factors: each a list of partial points.
  const factors: GridPoint[][] = [];
  const placed = new Set<number>();
  for (const a of axes) {
    const g = zipOf.get(a.name);
    if (g === undefined) {
      factors.push(a.labels.map((l) => ({ [a.name]: l })));
    } else if (!placed.has(g)) {
      placed.add(g);
      const group = zip[g]!.map((n) => byName.get(n)!);
      factors.push(group[0]!.labels.map((_, i) => Object.fromEntries(group.map((ax) => [ax.name, ax.labels[i]!]))));
    }
  }
  let points: GridPoint[] = [{}];
  for (const f of factors) points = points.flatMap((p) => f.map((q) => ({ ...p, ...q })));
  const seen = new Set(points.map((p) => pointKey(axes, p)));
  include.forEach((inc, i) => {
    for (const name of Object.keys(inc)) if (!byName.has(name)) throw new GridError(['include', i, name], `unknown axis '${name}' (axes: ${[...byName.keys()].join(', ')})`);
    const p: Record<string, string> = {};
    for (const a of axes) {
      const label = inc[a.name];
      if (label === undefined) throw new GridError(['include', i], `missing axis '${a.name}' (an explicit point gives every axis)`);
      if (!a.labels.includes(String(label)) && !isScalarAxis(a)) throw new GridError(['include', i, a.name], `unknown label '${label}' of axis '${a.name}' (labels: ${a.labels.join(', ')})`);
      p[a.name] = String(label);
    }
    const k = pointKey(axes, p);
    if (!seen.has(k)) {
      seen.add(k);
      points.push(p);
    }
  });
  return points;
}

/** Whether an axis's labels are its values (a list of scalars, not the base or a map). */
function isScalarAxis(a: Axis): boolean {
  return a.target.kind !== 'base' && a.labels.every((l, i) => typeof a.values[i] !== 'object' && String(a.values[i]) === l);
}

/**
 * The value a label stands for on an axis: its own value, or (for a new label of a scalar axis,
 * from an include point) the label read as a number when it is one.
 */
export function axisValue(a: Axis, label: string): unknown {
  const i = a.labels.indexOf(label);
  if (i >= 0) return a.values[i];
  return label.trim() !== '' && Number.isFinite(Number(label)) ? Number(label) : label;
}

/** A stable text key of a point: its labels in axis order. */
export function pointKey(axes: readonly Axis[], p: GridPoint): string {
  return JSON.stringify(axes.map((a) => p[a.name] ?? null));
}

/** A readable point id: `base` then `axis=label` for each other axis, joined by `/`. */
export function pointId(axes: readonly Axis[], p: GridPoint): string {
  return axes.map((a) => (a.target.kind === 'base' ? p[a.name] : `${a.name}=${p[a.name]}`)).join('/');
}
