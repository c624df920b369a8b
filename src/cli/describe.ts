/**
 * Data sheets of unit kinds (`warpstate units [<kind>]`, issue 8 item 2): ports with message
 * kinds, spec fields with units and defaults, injected resources and statistics, read from
 * the kind's {@link UnitDefinition}; and the statechart a kind's diagram is drawn from.
 */
import { StateMachine, type AnyStateMachine } from 'xstate';
import { z } from 'zod';
import { unitLifecycleMachine } from '../sim/lifecycle.ts';
import type { UnitDefinition } from '../sim/unit.ts';

/**
 * The statechart of a kind, for `--diagram`: its declared `machine`, or else its logic when
 * that logic is a statechart (a control unit such as `dutyCycleController`). The logic is then
 * built from the spec's defaults (or no spec when required fields have none) and no
 * resources: a statechart's structure does not depend on them, they are read only when an
 * actor runs. A logic that needs them to be built is datapath code.
 * @returns the machine, or undefined when the kind has no statechart
 */
export function statechartOf(d: UnitDefinition): AnyStateMachine | undefined {
  if (d.machine !== undefined) return d.machine;
  const defaults = d.spec.safeParse({});
  try {
    const logic: unknown = d.logic(defaults.success ? defaults.data : undefined, undefined);
    return logic instanceof StateMachine ? (logic as AnyStateMachine) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * How a kind is modelled: `statechart` (its logic is an XState machine, or it declares a
 * machine other than the lifecycle: control units),
 * `datapath+lifecycle` (plain per-cycle code embedding the unit lifecycle statechart of
 * src/sim/lifecycle.ts for `ctrl.*`), or `datapath` (plain per-cycle code only).
 */
export function modelKind(d: UnitDefinition): 'statechart' | 'datapath+lifecycle' | 'datapath' {
  if (d.machine === unitLifecycleMachine) return 'datapath+lifecycle';
  return statechartOf(d) !== undefined ? 'statechart' : 'datapath';
}

/** The unit list of `warpstate units`: one line per kind, `kind  model  description`. */
export function listUnitKinds(defs: readonly UnitDefinition[]): string {
  const width = Math.max(...defs.map((d) => d.kind.length)) + 2;
  return defs.map((d) => `${d.kind.padEnd(width)}${modelKind(d).padEnd(20)}${d.description}\n`).join('');
}

/** One spec field of a unit kind, flattened: `cache.sets`. */
export interface SpecField {
  /** Dotted path from the spec's root (`cache.sets`); an object field is listed before its fields. */
  readonly path: string;
  /** JSON Schema type (`integer`, `object`, `string[]`), or the enum values joined by `|`. */
  readonly type: string;
  /** The zod `.describe()` text: meaning, unit in parentheses, GPGPU-Sim option in brackets. */
  readonly description: string;
  /** Value taken when the field is absent (zod `.default()`). */
  readonly default?: unknown;
  /** True when the field must be given (no default, not optional). */
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

/**
 * The text data sheet of a kind: description, source, delivery; ports (direction, name with
 * `[countParam]` for arrays, capacity in messages or the spec field giving it, message kinds,
 * description, `(optional)`); spec fields (dotted path, type, description with its unit,
 * default or `(required)`); resources; statistics (name, unit, description, `[sum: gpuTotal]`);
 * the statechart's id when the kind has one.
 */
export function describeUnitKind(d: UnitDefinition): string {
  const lines: string[] = [`${d.kind}: ${d.description}`];
  if (d.source) lines.push(`source: ${d.source}`);
  lines.push(`delivery: ${d.delivery}`, '', 'ports:');
  for (const p of d.ports) {
    const arr = p.countParam ? `[${p.countParam}]` : '';
    const cap = p.capacity === undefined ? 2 : p.capacity;
    const opt = p.optional === true ? ' (optional)' : '';
    lines.push(`  ${p.direction.padEnd(3)} ${(p.name + arr).padEnd(20)} capacity ${String(cap).padEnd(18)} ${p.messageKinds.join(', ')}  ${p.description}${opt}`);
  }
  lines.push('', 'spec (nested fields as dotted paths; unit in parentheses, GPGPU-Sim option in brackets):');
  for (const f of specFields(d)) {
    const dflt = f.default !== undefined ? ` (default ${JSON.stringify(f.default)})` : f.required ? ' (required)' : '';
    lines.push(`  ${f.path.padEnd(28)} ${f.type.padEnd(10)} ${f.description}${dflt}`);
  }
  if ((d.resources ?? []).length > 0) {
    lines.push('', 'resources (injected by the topology, not JSON):');
    for (const r of d.resources!) lines.push(`  ${r.name.padEnd(28)} ${r.optional ? '(optional) ' : ''}${r.description}`);
  }
  lines.push('', 'statistics (per instance, <instance>.<name>; "sum" = GPU-wide total):');
  if (d.stats.length === 0) lines.push('  (none)');
  for (const s of d.stats) lines.push(`  ${s.name.padEnd(28)} ${s.unit.padEnd(12)} ${s.description}${s.gpuTotal ? `  [sum: ${s.gpuTotal}]` : ''}`);
  const chart = statechartOf(d);
  if (chart !== undefined) lines.push('', `statechart: ${chart.id} (warpstate units ${d.kind} --diagram mermaid)`);
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
    model: modelKind(d),
    statechart: statechartOf(d)?.id ?? null,
  };
}
