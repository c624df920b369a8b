/**
 * Builds an engine from a scenario's `clocks`, `units` and `links`: a network of hardware
 * blocks wired port to port, without a full GPU (issue 2, "a scenario can instantiate units and
 * wire them"). Every problem is reported as an InputError at the scenario field that caused it.
 */
import { InputError } from '../errors.ts';
import { Engine, type EngineOptions } from '../sim/engine.ts';
import { parseDuration, parseFrequency } from '../sim/time.ts';
import type { UnitRegistry } from '../sim/unit.ts';
import type { LoadedScenario } from '../scenario/loader.ts';
import { SimulationError } from '../errors.ts';

/**
 * Expands an endpoint pattern `UNIT.port` into concrete `[unit, port]` pairs, unit-major.
 * `[*]` matches every index and `[a..b]` a range, in the unit name (any level) and in the port.
 * @returns pairs in ascending index order; empty when nothing matches
 */
export function expandEndpoint(pattern: string, unitNames: readonly string[], portsOf: (unit: string) => readonly string[]): [string, string][] {
  const dot = lastTopLevelDot(pattern);
  if (dot < 0) return [];
  const unitPat = pattern.slice(0, dot);
  const portPat = pattern.slice(dot + 1);
  const out: [string, string][] = [];
  for (const unit of matchIndexed(unitPat, unitNames)) {
    for (const port of matchIndexed(portPat, portsOf(unit))) out.push([unit, port]);
  }
  return out;
}

function lastTopLevelDot(s: string): number {
  let depth = 0;
  for (let i = s.length - 1; i >= 0; i--) {
    const c = s[i];
    if (c === ']') depth++;
    else if (c === '[') depth--;
    else if (c === '.' && depth === 0) return i;
  }
  return -1;
}

/** Names matching a pattern with `[*]` / `[a..b]` selectors, sorted by their indices. */
function matchIndexed(pattern: string, names: readonly string[]): string[] {
  const ranges: [number, number][] = [];
  let re = '^';
  let last = 0;
  const sel = /\[(\*|\d+\.\.\d+)\]/g;
  let m: RegExpExecArray | null;
  while ((m = sel.exec(pattern)) !== null) {
    re += escapeRegex(pattern.slice(last, m.index)) + '\\[(\\d+)\\]';
    if (m[1] === '*') ranges.push([0, Infinity]);
    else {
      const [a, b] = m[1]!.split('..').map(Number) as [number, number];
      ranges.push([a, b]);
    }
    last = m.index + m[0].length;
  }
  re += escapeRegex(pattern.slice(last)) + '$';
  if (ranges.length === 0) return names.includes(pattern) ? [pattern] : [];
  const rx = new RegExp(re);
  const hits: { name: string; idx: number[] }[] = [];
  for (const name of names) {
    const mm = rx.exec(name);
    if (mm === null) continue;
    const idx = mm.slice(1).map(Number);
    if (idx.every((v, k) => v >= ranges[k]![0] && v <= ranges[k]![1])) hits.push({ name, idx });
  }
  hits.sort((a, b) => {
    for (let k = 0; k < a.idx.length; k++) if (a.idx[k] !== b.idx[k]) return a.idx[k]! - b.idx[k]!;
    return 0;
  });
  return hits.map((h) => h.name);
}

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Creates the engine, clocks, units and links of a scenario (not yet started).
 * @throws InputError for an unknown kind or clock, a port no link connects, a kind that needs a resource (an object only a
 *   GPU topology builds, e.g. the kernel context of `smIssue`), bad unit params, or links that
 *   do not resolve
 */
export function buildNetwork(loaded: LoadedScenario, registry: UnitRegistry, options: EngineOptions = {}): Engine {
  const { scenario, source } = loaded;
  const sampleIntervalPs = scenario.sampleInterval === undefined ? 0 : parseDuration(scenario.sampleInterval, source.locate(['sampleInterval']), 'sampleInterval');
  const engine = new Engine({ seed: scenario.seed, sampleIntervalPs, ...(scenario.sampleLimit !== undefined ? { sampleLimit: scenario.sampleLimit } : {}), ...options });
  for (const [name, f] of Object.entries(scenario.clocks)) {
    engine.addClock(name, parseFrequency(f, source.locate(['clocks', name]), `clocks.${name}`));
  }
  scenario.units.forEach((spec, i) => {
    const def = registry.get(spec.kind);
    if (def === undefined) {
      const known = registry.list().map((d) => d.kind).join(', ');
      throw new InputError(source.locate(['units', i, 'kind']), `unknown unit kind '${spec.kind}' (known: ${known})`, `units[${i}].kind`);
    }
    // Resources are objects a GPU topology builds (kernel table, address map); a scenario's
    // JSON params cannot carry them, so such a kind cannot stand alone in a network.
    const missing = (def.resources ?? []).filter((r) => r.optional !== true);
    if (missing.length > 0) {
      const what = missing.map((r) => `'${r.name}' (${r.description})`).join(', ');
      throw new InputError(source.locate(['units', i, 'kind']), `unit kind '${spec.kind}' needs resource ${what}, which a network scenario cannot provide; use it inside a GPU (gpu: and launches:)`, `units[${i}].kind`);
    }
    if (!(spec.clock in scenario.clocks)) {
      throw new InputError(source.locate(['units', i, 'clock']), `unknown clock '${spec.clock}' (declared: ${Object.keys(scenario.clocks).join(', ')})`, `units[${i}].clock`);
    }
    const parsed = def.spec.safeParse(spec.params);
    if (!parsed.success) throw source.issueToError(parsed.error.issues[0]!, ['units', i, 'params']);
    const names = spec.count === undefined ? [spec.name] : Array.from({ length: spec.count }, (_, k) => `${spec.name}[${k}]`);
    for (const n of names) {
      try {
        engine.addUnit(n, def, spec.clock, parsed.data);
      } catch (e) {
        if (e instanceof SimulationError) throw new InputError(source.locate(['units', i]), e.message, `units[${i}]`);
        throw e;
      }
    }
  });
  const unitNames = engine.unitNames();
  scenario.links.forEach((spec, i) => {
    const froms = expandEndpoint(spec.from, unitNames, (u) => engine.portNames(u, 'out'));
    const tos = expandEndpoint(spec.to, unitNames, (u) => engine.portNames(u, 'in'));
    if (froms.length === 0) throw new InputError(source.locate(['links', i, 'from']), `'${spec.from}' matches no output port`, `links[${i}].from`);
    if (tos.length === 0) throw new InputError(source.locate(['links', i, 'to']), `'${spec.to}' matches no input port`, `links[${i}].to`);
    if (froms.length !== tos.length) {
      throw new InputError(source.locate(['links', i]), `'${spec.from}' gives ${froms.length} ports but '${spec.to}' gives ${tos.length}; they pair one to one`, `links[${i}]`);
    }
    if (spec.clock !== undefined && !(spec.clock in scenario.clocks)) {
      throw new InputError(source.locate(['links', i, 'clock']), `unknown clock '${spec.clock}'`, `links[${i}].clock`);
    }
    for (let k = 0; k < froms.length; k++) {
      const [fu, fp] = froms[k]!;
      const [tu, tp] = tos[k]!;
      try {
        engine.connect(fu, fp, tu, tp, {
          latencyCycles: spec.latency,
          ...(spec.messagesPerCycle !== undefined ? { messagesPerCycle: spec.messagesPerCycle } : {}),
          ...(spec.bytesPerCycle !== undefined ? { bytesPerCycle: spec.bytesPerCycle } : {}),
        }, spec.clock);
      } catch (e) {
        if (e instanceof SimulationError || e instanceof RangeError) throw new InputError(source.locate(['links', i]), e.message, `links[${i}]`);
        throw e;
      }
    }
  });
  // A port left open would fail only when the first message is sent on it, mid-run, as a
  // machine failure; it is a mistake in the scenario's links, so it is refused here.
  const open = engine.unconnectedPorts();
  if (open.length > 0) {
    const shown = open.slice(0, 8).join(', ') + (open.length > 8 ? `, ... (${open.length} in all)` : '');
    throw new InputError(source.locate(['links']), `no link connects ${open.length === 1 ? 'port' : 'ports'} ${shown}; every port a unit declares (except optional ones) needs a link`, 'links');
  }
  return engine;
}
