/**
 * Splicing config-declared blocks (`extensions`, `src/config/extensions.ts`) into a declarative
 * {@link Topology}: a researcher's block is added by its folder plus one config entry; neither
 * the topology builders nor the config schema change (issue 8 item 1).
 */
import { InputError, type SourceLocation } from '../errors.ts';
import type { ExtensionEntry } from '../config/extensions.ts';
import type { UnitDefinition } from '../sim/unit.ts';
import type { LinkRow, SplicePoint, Topology } from './template.ts';

/** Where extension entries come from, to locate errors (file, line) and name fields. */
export interface ExtensionSource {
  /** Location of `extensions[k]` (or a field below it) in the user's file. */
  locate(path: readonly (string | number)[]): SourceLocation;
  /** Field prefix for messages, e.g. `gpu.extensions`. */
  readonly field: string;
}

const ONE_CYCLE = { latencyCycles: 1 } as const;
const INLINE_PORTS = ['topIn', 'topOut', 'bottomOut', 'bottomIn'] as const;

/**
 * Inserts every extension block into `topology` (mutated): one instance per scope that offers
 * all of the entry's splice points (`GPU.SM[i].<name>` for SM points), its spec validated by its
 * unit kind's schema, and the links of each point rewired through it.
 * @param lookup the unit kind registry
 * @throws InputError naming `extensions[k]` and the field: unknown kind or splice point, a spec
 *   field the kind's schema refuses, a block without the ports a point needs, two blocks at one
 *   point, points of different scopes
 */
export function applyExtensions(topology: Topology, extensions: readonly ExtensionEntry[], lookup: (kind: string) => UnitDefinition | undefined, source: ExtensionSource): void {
  const used = new Set<string>();
  extensions.forEach((entry, k) => {
    const field = `${source.field}[${k}]`;
    const fail = (path: (string | number)[], reason: string, sub: string) => new InputError(source.locate([k, ...path]), reason, `${field}${sub}`);
    const def = lookup(entry.kind);
    if (def === undefined) throw fail(['kind'], `unknown unit kind '${entry.kind}' (see \`warpstate units\`)`, '.kind');
    const parsed = def.spec.safeParse(entry.spec);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const p = issue.path.map((x) => (typeof x === 'number' ? x : String(x)));
      throw fail(['spec', ...p], `${entry.kind}: ${issue.message}`, `.spec${p.length ? '.' + p.join('.') : ''}`);
    }
    const byScope = new Map<string, SplicePoint[]>();
    entry.splice.forEach((pointName, s) => {
      const points = topology.splices.filter((p) => p.name === pointName);
      if (points.length === 0) {
        const known = [...new Set(topology.splices.map((p) => p.name))].join(', ');
        throw fail(['splice', s], `unknown splice point '${pointName}' (this GPU has: ${known})`, `.splice[${s}]`);
      }
      for (const p of points) {
        const list = byScope.get(p.scope) ?? [];
        list.push(p);
        byScope.set(p.scope, list);
      }
    });
    const scopes = [...byScope.entries()].filter(([, ps]) => ps.length === entry.splice.length);
    if (scopes.length === 0) throw fail(['splice'], `splice points ${entry.splice.join(', ')} are never in one scope`, '.splice');
    for (const [, points] of scopes) {
      for (const p of points) {
        const needed = p.style === 'inline' ? INLINE_PORTS : [p.blockPort];
        for (const port of needed) {
          if (!def.ports.some((d) => d.name === port)) throw fail(['kind'], `${entry.kind} has no port '${port}', which splice point ${p.name} (${p.style}) connects`, '.kind');
        }
      }
    }
    for (const [scope, points] of scopes) {
      const name = `${scope}.${entry.name}`;
      if (topology.units.some((u) => u.name === name)) throw fail(['name'], `a unit named ${name} already exists`, '.name');
      const first = points[0]!;
      const beside = first.style === 'tap' ? first.port.unit : nearUnit(topology, first);
      const clock = entry.clock ?? topology.units.find((u) => u.name === beside)!.clock;
      topology.units.push({ name, definition: def, clock, spec: parsed.data });
      for (const p of points) {
        const key = `${p.scope}/${p.name}`;
        if (used.has(key)) throw fail(['splice'], `splice point ${p.name} of ${p.scope} already holds a block`, '.splice');
        used.add(key);
        rewire(topology, p, name);
      }
    }
  });
}

/** The unit a splice point's block sits beside (takes its clock by default). */
function nearUnit(topology: Topology, p: Extract<SplicePoint, { style: 'inline' }>): string {
  const down = topology.links[p.down]!;
  return p.near === 'upper' ? down.from.unit : down.to.unit;
}

function rewire(topology: Topology, p: SplicePoint, block: string): void {
  const links = topology.links;
  if (p.style === 'tap') {
    const blockEnd = { unit: block, port: p.blockPort };
    links.push(p.direction === 'out' ? { from: p.port, to: blockEnd, spec: ONE_CYCLE } : { from: blockEnd, to: p.port, spec: ONE_CYCLE });
    return;
  }
  const down = links[p.down]!;
  const up = links[p.up]!;
  const upperNear = p.near === 'upper';
  // upper -> block -> lower
  links[p.down] = segment(topology, down, { from: down.from, to: { unit: block, port: 'topIn' } }, upperNear);
  links.push(segment(topology, down, { from: { unit: block, port: 'bottomOut' }, to: down.to }, !upperNear));
  // lower -> block -> upper
  links[p.up] = segment(topology, up, { from: up.from, to: { unit: block, port: 'bottomIn' } }, !upperNear);
  links.push(segment(topology, up, { from: { unit: block, port: 'topOut' }, to: up.to }, upperNear));
}

/**
 * A segment of a spliced link: 1 cycle of the receiver's clock on the near side; on the far side
 * the original wire (latency, bandwidth, and the clock it was serviced on: the original
 * receiver's unless it named one).
 */
function segment(topology: Topology, original: LinkRow, ends: Pick<LinkRow, 'from' | 'to'>, near: boolean): LinkRow {
  if (near) return { ...ends, spec: ONE_CYCLE };
  const clock = original.clock ?? topology.units.find((u) => u.name === original.to.unit)!.clock;
  return { ...ends, spec: original.spec, clock };
}
