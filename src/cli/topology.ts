/**
 * `warpstate topology`: the GPU of a config as data (DESIGN.md §3): unit instances, splice
 * points (where a config's `extensions` insert blocks) and, on request, the link table.
 */
import type { GpuConfig } from '../config/index.ts';
import { GpuContext } from '../model/gpu-context.ts';
import { gpuTopology } from '../topology/gpu.ts';
import { applyExtensions } from '../topology/splice.ts';
import { endpointName, type Topology } from '../topology/template.ts';
import type { UnitDefinition } from '../sim/unit.ts';

/** What {@link formatTopology} prints besides the splice points. */
export interface TopologyFormatOptions {
  /** Print the link table (one row per wire: from, to, latency, bandwidth, clock). */
  readonly links?: boolean;
  /** Print every unit instance (default: one line per kind with its instance count). */
  readonly units?: boolean;
}

/**
 * The topology of `config` (no kernels), with its `extensions` spliced in.
 * @throws InputError for a bad extension entry
 */
export function configTopology(config: GpuConfig, lookup: (kind: string) => UnitDefinition | undefined): Topology {
  const t = gpuTopology(config, new GpuContext(), []);
  if ((config.extensions?.length ?? 0) > 0) applyExtensions(t, config.extensions!, lookup, { field: 'extensions', locate: () => ({ file: `<config ${config.name}>` }) });
  return t;
}

/** Formats a topology as text: units by kind (or every instance), splice points, links. */
export function formatTopology(t: Topology, options: TopologyFormatOptions = {}): string {
  const lines: string[] = [];
  lines.push(`units (${t.units.length}):`);
  if (options.units) {
    for (const u of t.units) lines.push(`  ${u.name.padEnd(24)} ${u.definition.kind.padEnd(18)} clock ${u.clock}`);
  } else {
    const byKind = new Map<string, { count: number; clock: string; first: string }>();
    for (const u of t.units) {
      const k = byKind.get(u.definition.kind);
      if (k === undefined) byKind.set(u.definition.kind, { count: 1, clock: u.clock, first: u.name });
      else k.count++;
    }
    for (const [kind, k] of byKind) lines.push(`  ${kind.padEnd(18)} x${String(k.count).padEnd(4)} clock ${k.clock.padEnd(5)} e.g. ${k.first}`);
  }
  lines.push('', 'splice points (extensions: [{ name, kind, splice: [point, ...], spec }]):');
  const points = new Map<string, { scopes: number; text: string }>();
  for (const p of t.splices) {
    const e = points.get(p.name);
    if (e !== undefined) {
      e.scopes++;
      continue;
    }
    const ports = p.style === 'inline' ? 'block ports topIn, topOut (upper side), bottomOut, bottomIn (lower side)' : `block port ${p.blockPort} (${p.direction === 'out' ? 'in-port, fed by' : 'out-port, feeding'} ${p.port.port})`;
    points.set(p.name, { scopes: 1, text: `${p.style.padEnd(6)} ${p.description}; ${ports}; e.g. scope ${p.scope}` });
  }
  for (const [name, e] of points) lines.push(`  ${name.padEnd(14)} x${String(e.scopes).padEnd(4)} ${e.text}`);
  if (options.links) {
    lines.push('', `links (${t.links.length}; latency in cycles of the receiver's clock):`);
    for (const l of t.links) {
      const bw = l.spec.bytesPerCycle !== undefined ? `${l.spec.bytesPerCycle} B/cycle` : `${l.spec.messagesPerCycle ?? 1} msg/cycle`;
      lines.push(`  ${endpointName(l.from).padEnd(30)} -> ${endpointName(l.to).padEnd(30)} ${String(l.spec.latencyCycles).padStart(3)} cycles  ${bw}${l.clock ? `  (clock ${l.clock})` : ''}`);
    }
  }
  return lines.join('\n') + '\n';
}
