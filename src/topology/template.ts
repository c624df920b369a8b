/**
 * Declarative topologies: a machine is described as data (unit instances with their kinds and
 * specs, a link table, and named splice points where a config may insert a block), then
 * instantiated on an engine. The same split as MGPUSim's builders (`buildComponents()` then
 * `connectComponents()`), with the wiring as a table a person can print (`warpstate topology`).
 */
import type { LinkSpec } from '../messaging/link.ts';
import type { Engine } from '../sim/engine.ts';
import type { UnitDefinition } from '../sim/unit.ts';

/** One unit instance of a topology. */
export interface UnitInstance {
  /** Hierarchical instance name, e.g. `GPU.SM[3].L1D`. */
  readonly name: string;
  readonly definition: UnitDefinition;
  /** Clock domain name (`core`, `icnt`, `l2`, `dram`). */
  readonly clock: string;
  /** The instance's spec (validated by `definition.spec` when instantiated). */
  readonly spec: unknown;
  /** Injected resources (see `UnitDefinition.resources`). */
  readonly resources?: object;
}

/** A port of a unit instance. */
export interface Endpoint {
  readonly unit: string;
  readonly port: string;
}

/** One row of the link table: a wire from an out-port to an in-port. */
export interface LinkRow {
  readonly from: Endpoint;
  readonly to: Endpoint;
  /** Latency and bandwidth (cycles of the receiver's clock). */
  readonly spec: LinkSpec;
  /** Clock the wire is serviced on; default the receiver's. */
  readonly clock?: string;
}

/**
 * A named place where a block can be inserted, in one scope (an SM, an L2 slice, the GPU).
 * - `inline`: a pair of links between an upper unit (toward the core or the controller) and a
 *   lower unit. The block is inserted in both directions and must have the ports `topIn`,
 *   `topOut` (facing the upper unit) and `bottomOut`, `bottomIn` (facing the lower one). The
 *   links on the `near` side become 1-cycle links in the near unit's clock; the far side keeps
 *   the original links' latency and bandwidth.
 * - `tap`: an optional port left unbound by the template (e.g. the L1D's `evict`); the block
 *   connects its port `blockPort` to it.
 */
export type SplicePoint =
  | {
      readonly style: 'inline';
      /** Point name, e.g. `sm.l1d-icnt`. */
      readonly name: string;
      /** Scope instance prefix, e.g. `GPU.SM[3]`. */
      readonly scope: string;
      readonly description: string;
      /** Index in the link table of the upper -> lower link and of the lower -> upper link. */
      readonly down: number;
      readonly up: number;
      /** Which side the block sits beside (its links there take 1 cycle). */
      readonly near: 'upper' | 'lower';
    }
  | {
      readonly style: 'tap';
      readonly name: string;
      readonly scope: string;
      readonly description: string;
      /** The unbound port of the template. */
      readonly port: Endpoint;
      readonly direction: 'in' | 'out';
      /** The block's port that connects to it. */
      readonly blockPort: string;
    };

/** A whole machine as data. */
export interface Topology {
  readonly units: UnitInstance[];
  readonly links: LinkRow[];
  readonly splices: SplicePoint[];
}

/** `unit.port` */
export function endpointName(e: Endpoint): string {
  return `${e.unit}.${e.port}`;
}

/**
 * Adds every unit and link of `topology` to `engine` (units first, in table order; then links).
 * Specs are taken as they are: the template's are built by typed builders and the extensions'
 * were validated by their kind's schema when spliced; {@link validateTopology} checks them all
 * (tests do, so a builder that drifts from its unit's schema fails there, not on every run).
 * @throws SimulationError for a missing resource or a bad link
 */
export function instantiate(engine: Engine, topology: Topology): void {
  for (const u of topology.units) engine.addUnit(u.name, u.definition, u.clock, u.spec, u.resources ?? {});
  for (const l of topology.links) engine.connect(l.from.unit, l.from.port, l.to.unit, l.to.port, l.spec, l.clock);
}

/**
 * Validates every unit's spec against its kind's schema.
 * @returns one line per invalid spec (`unit (kind): field: message`); empty when all are valid
 */
export function validateTopology(topology: Topology): string[] {
  const problems: string[] = [];
  for (const u of topology.units) {
    const parsed = u.definition.spec.safeParse(u.spec);
    if (!parsed.success) for (const issue of parsed.error.issues) problems.push(`${u.name} (${u.definition.kind}): ${issue.path.join('.') || '(spec)'}: ${issue.message}`);
  }
  return problems;
}
