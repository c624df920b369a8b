/**
 * The built-in unit kinds. Add a new hardware block by writing its folder under machines/ and
 * registering its definition here (see machines/README.md).
 */
import { UnitRegistry, type UnitDefinition } from '../src/sim/unit.ts';
import { crossbar } from './crossbar/crossbar.ts';
import { dutyCycleController } from './duty-cycle-controller/duty-cycle-controller.ts';
import { fixedLatencyMemory } from './fixed-latency-memory/fixed-latency-memory.ts';
import { trafficGenerator } from './traffic-generator/traffic-generator.ts';

/** Every built-in unit definition. */
export const builtinUnits: readonly UnitDefinition[] = [trafficGenerator, crossbar, fixedLatencyMemory, dutyCycleController];

/** A fresh registry holding the built-in kinds (callers may register more). */
export function createUnitRegistry(): UnitRegistry {
  const registry = new UnitRegistry();
  for (const def of builtinUnits) registry.register(def);
  return registry;
}
