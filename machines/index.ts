/**
 * The unit kinds of warpstate, discovered from this folder: every `machines/<folder>/<folder>.ts`
 * (the folder's main module) is imported and each unit definition it exports is registered. A
 * new hardware block is therefore one folder: nothing here, in `src/topology` or in the config
 * schema changes (machines/README.md). Folders are visited in name order, so the registry is
 * the same on every run.
 */
import { existsSync, readdirSync } from 'node:fs';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { UnitRegistry, type UnitDefinition } from '../src/sim/unit.ts';

/** A value exported by a unit folder that is a unit definition (duck-typed: no class exists). */
function isUnitDefinition(v: unknown): v is UnitDefinition {
  if (typeof v !== 'object' || v === null) return false;
  const d = v as Partial<UnitDefinition>;
  return typeof d.kind === 'string' && typeof d.logic === 'function' && Array.isArray(d.ports) && Array.isArray(d.stats) && d.spec !== undefined;
}

const here = dirname(fileURLToPath(import.meta.url));
// `.ts` under tsx and vitest; `.js` once compiled.
const ext = extname(fileURLToPath(import.meta.url));
const found: UnitDefinition[] = [];
for (const folder of readdirSync(here, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).sort()) {
  const main = join(here, folder, `${folder}${ext}`);
  if (!existsSync(main)) continue;
  const mod = (await import(pathToFileURL(main).href)) as Record<string, unknown>;
  for (const value of Object.values(mod)) if (isUnitDefinition(value) && !found.includes(value)) found.push(value);
}

/** Every unit definition found under `machines/`, in folder order. */
export const builtinUnits: readonly UnitDefinition[] = found;

/**
 * A fresh registry holding every discovered kind (callers may register more).
 * @throws Error when two folders define the same kind name
 */
export function createUnitRegistry(): UnitRegistry {
  const registry = new UnitRegistry();
  for (const def of builtinUnits) registry.register(def);
  return registry;
}
