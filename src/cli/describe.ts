/**
 * Human-readable description of a unit kind: ports, parameters (with units, defaults) and
 * statistics, from its descriptor (`warpstate units <kind>`).
 */
import { z } from 'zod';
import type { UnitDefinition } from '../sim/unit.ts';

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
  lines.push('', 'parameters:');
  const json = z.toJSONSchema(d.spec, { io: 'input', unrepresentable: 'any' }) as { properties?: Record<string, { type?: string; default?: unknown; description?: string; enum?: unknown[] }>; required?: string[] };
  for (const [name, prop] of Object.entries(json.properties ?? {})) {
    const type = prop.enum ? prop.enum.join('|') : prop.type ?? 'any';
    const dflt = prop.default !== undefined ? ` (default ${JSON.stringify(prop.default)})` : json.required?.includes(name) ? ' (required)' : '';
    lines.push(`  ${name.padEnd(22)} ${type.padEnd(10)} ${prop.description ?? ''}${dflt}`);
  }
  lines.push('', 'statistics (per instance, <instance>.<name>):');
  for (const s of d.stats) lines.push(`  ${s.name.padEnd(22)} ${s.unit.padEnd(10)} ${s.description}`);
  return lines.join('\n') + '\n';
}
