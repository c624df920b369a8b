/**
 * Layering kept by CI (issue 8 item 8): dependency-cruiser checks the rules of
 * `.dependency-cruiser.cjs` (DESIGN.md §1 layers, no cycles, no unit folder importing another)
 * over src/ and machines/. A cycle is dropped only when one of its edges is an `import type`
 * (erased by the compiler, so no cycle exists at run time). A fixture tree with one breach of
 * each rule shows the rules catch what they name.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { cruise, type ICruiseResult, type IViolation } from 'dependency-cruiser';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
const config = require('../../.dependency-cruiser.cjs') as { forbidden: unknown[]; options: Record<string, unknown> };

/** True when every import of `to` in the source of `from` is `import type` (or `export type`); paths relative to `base`. */
function typeOnlyEdge(base: string, from: string, to: string): boolean {
  const text = readFileSync(join(base, from), 'utf8');
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

/** Cruises `dirs` under `base` with the project's rules. */
async function run(dirs: string[], base = process.cwd()): Promise<ICruiseResult> {
  const r = await cruise(dirs, { ...config.options, baseDir: base, validate: true, ruleSet: { forbidden: config.forbidden } } as never);
  return r.output as ICruiseResult;
}

/** Violations as `rule: from -> to`, type-only cycles dropped. */
function violations(result: ICruiseResult, base = process.cwd()): string[] {
  return result.summary.violations
    .filter((v) => !(v.rule.name === 'no-circular' && cycleEdges(v).some(([a, b]) => typeOnlyEdge(base, a, b))))
    .map((v) => `${v.rule.name}: ${v.from} -> ${v.to}${v.cycle ? ` (cycle ${cycleEdges(v).map((e) => e[1]).join(' -> ')})` : ''}`);
}

describe('layering (dependency-cruiser)', () => {
  it('src/ and machines/ follow the layer rules; the only cycles are through type-only imports', async () => {
    const result = await run(['src', 'machines']);
    expect(result.summary.totalCruised).toBeGreaterThan(100);
    expect(violations(result)).toEqual([]);
  });

  it('the checker sees real imports (so an empty violation list means something)', async () => {
    const result = await run(['src', 'machines']);
    const l1d = result.modules.find((m) => m.source === 'machines/l1d/l1d.ts')!;
    expect(l1d.dependencies.map((d) => d.resolved)).toEqual(expect.arrayContaining(['src/protocol/gpu.ts', 'src/sim/unit.ts', 'src/model/mem/cache.ts']));
  });

  it('each rule catches its breach in a fixture tree; a type-only cycle is allowed', async () => {
    const base = mkdtempSync(join(tmpdir(), 'warpstate-layers-'));
    const files: Record<string, string[]> = {
      'machines/a/a.ts': ['../b/b.ts', '../../src/topology/t.ts'],
      'machines/b/b.ts': [],
      'src/errors.ts': [],
      'src/sim/time.ts': ['../errors.ts', '../messaging/port.ts'],
      'src/sim/engine.ts': ['../model/m.ts'],
      'src/messaging/port.ts': ['../sim/engine.ts'],
      'src/protocol/p.ts': ['../messaging/port.ts'],
      'src/model/m.ts': ['../../machines/b/b.ts'],
      'src/model/m2.ts': ['../trace/x.ts'],
      'src/trace/x.ts': [],
      'src/topology/t.ts': ['../cli/c.ts'],
      'src/cli/c.ts': [],
      'src/stats/s.ts': ['../report/r.ts'],
      'src/report/r.ts': [],
      'src/isa/c1.ts': ['./c2.ts'],
      'src/isa/c2.ts': ['./c1.ts'],
      'src/isa/t1.ts': ['./t2.ts'],
      'src/isa/t2.ts': ['type:./t1.ts'],
    };
    for (const [file, imports] of Object.entries(files)) {
      mkdirSync(join(base, dirname(file)), { recursive: true });
      const lines = imports.map((spec, i) => (spec.startsWith('type:') ? `import type { X${i} } from '${spec.slice(5)}';` : `import { X${i} } from '${spec}';`));
      writeFileSync(join(base, file), `${lines.join('\n')}\nexport const X0 = 0, X1 = 1;\nexport type X = number;\n`);
    }
    const result = await run(['src', 'machines'], base);
    // swc does not mark type-only imports: the checker reports t1 <-> t2, the filter drops it.
    expect(result.summary.violations.some((v) => v.rule.name === 'no-circular' && /src\/isa\/t[12]\.ts/.test(v.from))).toBe(true);
    const found = violations(result, base).sort();
    expect(found).toEqual(
      [
        'unit-imports-unit: machines/a/a.ts -> machines/b/b.ts',
        'unit-imports-above: machines/a/a.ts -> src/topology/t.ts',
        'src-imports-units: src/model/m.ts -> machines/b/b.ts',
        'sim-core-is-the-bottom: src/sim/time.ts -> src/messaging/port.ts',
        'engine-below-model: src/sim/engine.ts -> src/model/m.ts',
        'messaging-above-sim-core: src/messaging/port.ts -> src/sim/engine.ts',
        'protocol-is-data: src/protocol/p.ts -> src/messaging/port.ts',
        'model-below-units: src/model/m2.ts -> src/trace/x.ts',
        'topology-below-drivers: src/topology/t.ts -> src/cli/c.ts',
        'libraries-below-drivers: src/stats/s.ts -> src/report/r.ts',
        // The value cycle c1 <-> c2 is reported once; t1 <-> t2 (its back edge an `import type`) is dropped.
        'no-circular: src/isa/c1.ts -> src/isa/c2.ts (cycle src/isa/c2.ts -> src/isa/c1.ts)',
      ].sort(),
    );
  });
});
