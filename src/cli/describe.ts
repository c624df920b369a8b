/**
 * Human-readable description of a unit kind: ports, parameters (with units, defaults) and
 * statistics, from its descriptor (`warpstate units <kind>`).
 */
import { z } from 'zod';
import type { UnitDefinition } from '../sim/unit.ts';

/** One spec field of a unit kind, flattened: `cache.sets`. */
export interface SpecField {
  readonly path: string;
  readonly type: string;
  readonly description: string;
  readonly default?: unknown;
  readonly required: boolean;
}

interface JsonSchemaNode {
  type?: string | string[];
  properties?: Record<string, JsonSchemaNode>;
  required?: string[];
  default?: unknown;
  description?: string;
  enum?: unknown[];
  items?: JsonSchemaNode;
  anyOf?: JsonSchemaNode[];
}

/** The spec fields of a kind, nested objects flattened to dotted paths, in declaration order. */
export function specFields(d: UnitDefinition): SpecField[] {
  const out: SpecField[] = [];
  const walk = (node: JsonSchemaNode, prefix: string) => {
    for (const [name, prop0] of Object.entries(node.properties ?? {})) {
      const prop = prop0.anyOf?.find((x) => x.type !== 'null') ?? prop0;
      const path = prefix ? `${prefix}.${name}` : name;
      const required = node.required?.includes(name) ?? false;
      const type = prop.enum ? prop.enum.join('|') : Array.isArray(prop.type) ? prop.type.join('|') : prop.type === 'array' ? `${prop.items?.type ?? 'any'}[]` : prop.type ?? 'any';
      out.push({ path, type, description: prop0.description ?? prop.description ?? '', default: prop0.default ?? prop.default, required });
      if (prop.properties !== undefined) walk(prop, path);
    }
  };
  walk(z.toJSONSchema(d.spec, { io: 'input', unrepresentable: 'any' }) as JsonSchemaNode, '');
  return out;
}

/** Formats a unit definition as text. */
export function describeUnitKind(d: UnitDefinition): string {
  const lines: string[] = [`${d.kind}: ${d.description}`];
  if (d.source) lines.push(`source: ${d.source}`);
  lines.push(`delivery: ${d.delivery}`, '', 'ports:');
  for (const p of d.ports) {
    const arr = p.countParam ? `[${p.countParam}]` : '';
    const cap = p.capacity === undefined ? 2 : p.capacity;
    lines.push(`  ${p.direction.padEnd(3)} ${(p.name + arr).padEnd(20)} capacity ${String(cap).padEnd(18)} ${p.messageKinds.join(', ')}  ${p.description}`);
  }
  lines.push('', 'spec (nested fields as dotted paths; units in brackets of each description):');
  for (const f of specFields(d)) {
    const dflt = f.default !== undefined ? ` (default ${JSON.stringify(f.default)})` : f.required ? ' (required)' : '';
    lines.push(`  ${f.path.padEnd(28)} ${f.type.padEnd(10)} ${f.description}${dflt}`);
  }
  if ((d.resources ?? []).length > 0) {
    lines.push('', 'resources (injected by the topology, not JSON):');
    for (const r of d.resources!) lines.push(`  ${r.name.padEnd(28)} ${r.optional ? '(optional) ' : ''}${r.description}`);
  }
  lines.push('', 'statistics (per instance, <instance>.<name>; "sum" = GPU-wide total):');
  for (const s of d.stats) lines.push(`  ${s.name.padEnd(28)} ${s.unit.padEnd(12)} ${s.description}${s.gpuTotal ? `  [sum: ${s.gpuTotal}]` : ''}`);
  if (d.machine !== undefined) lines.push('', `statechart: ${d.machine.id} (warpstate units ${d.kind} --diagram mermaid)`);
  return lines.join('\n') + '\n';
}

/** The data sheet as JSON (for tools): kind, description, source, ports, spec fields, resources, statistics. */
export function describeUnitKindJson(d: UnitDefinition): object {
  return {
    kind: d.kind,
    description: d.description,
    source: d.source,
    delivery: d.delivery,
    ports: d.ports,
    spec: specFields(d),
    resources: d.resources ?? [],
    stats: d.stats,
    statechart: d.machine?.id ?? null,
  };
}
