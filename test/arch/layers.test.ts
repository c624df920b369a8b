/**
 * Layering kept by CI (issue 8 item 8): dependency-cruiser checks the rules of
 * `.dependency-cruiser.cjs` (DESIGN.md §1 layers, no cycles, no unit folder importing another)
 * over src/ and machines/. A cycle is dropped only when one of its edges is an `import type`
 * (erased by the compiler, so no cycle exists at run time).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, relative, resolve } from 'node:path';
import { cruise, type ICruiseResult, type IViolation } from 'dependency-cruiser';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
const config = require('../../.dependency-cruiser.cjs') as { forbidden: unknown[]; options: Record<string, unknown> };

/** True when every import of `to` in the source of `from` is `import type` (or `export type`). */
function typeOnlyEdge(from: string, to: string): boolean {
  const text = readFileSync(from, 'utf8');
  let spec = relative(dirname(from), to);
  if (!spec.startsWith('.')) spec = `./${spec}`;
  const escaped = spec.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const statements = [...text.matchAll(new RegExp(`(import|export)\\s+(type\\s+)?[^;]*?from\\s+'${escaped}'`, 'g'))];
  return statements.length > 0 && statements.every((m) => m[2] !== undefined);
}

/** The modules of a cycle violation, in order, closing the loop at its start. */
function cycleEdges(v: IViolation): [string, string][] {
  const names = (v.cycle ?? []).map((c) => (typeof c === 'string' ? c : c.name));
  const path = [v.from, ...names];
  const edges: [string, string][] = [];
  for (let i = 0; i + 1 < path.length; i++) edges.push([path[i]!, path[i + 1]!]);
  return edges;
}

async function run(): Promise<ICruiseResult> {
  const r = await cruise(['src', 'machines'], { ...config.options, validate: true, ruleSet: { forbidden: config.forbidden } } as never);
  return r.output as ICruiseResult;
}

describe('layering (dependency-cruiser)', () => {
  it('src/ and machines/ follow the layer rules; the only cycles are through type-only imports', async () => {
    const result = await run();
    expect(result.summary.totalCruised).toBeGreaterThan(100);
    const violations = result.summary.violations.filter((v) => !(v.rule.name === 'no-circular' && cycleEdges(v).some(([a, b]) => typeOnlyEdge(resolve(a), resolve(b)))));
    const text = violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}${v.cycle ? ` (cycle ${cycleEdges(v).map((e) => e[1]).join(' -> ')})` : ''}`);
    expect(text).toEqual([]);
  });

  it('the checker sees real imports (so an empty violation list means something)', async () => {
    const result = await run();
    const l1d = result.modules.find((m) => m.source === 'machines/l1d/l1d.ts')!;
    expect(l1d.dependencies.map((d) => d.resolved)).toEqual(expect.arrayContaining(['src/protocol/gpu.ts', 'src/sim/unit.ts', 'src/model/mem/cache.ts']));
  });
});
