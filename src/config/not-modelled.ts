/**
 * Config honesty (issue 8 item 7): every leaf of the GPU config schema is either modelled (read
 * by a unit or the topology, with a test that it changes behaviour) or listed here as not
 * modelled, with the reason. `config show` flags these fields; setting one to a value other than
 * the preset's warns, and is refused under `--strict`; the gpgpusim.config importer reports the
 * options that map onto them. Patterns are dotted paths with `*` for one segment and `**` for
 * any depth (picomatch with `.` as separator).
 */
import picomatch from 'picomatch';
import { z } from 'zod';
import { InputError, type SourceLocation } from '../errors.ts';
import type { GpuConfig } from './schema.ts';
import { gpuConfigSchema } from './schema.ts';

/** A not-modelled field pattern and why. */
export interface NotModelled {
  readonly pattern: string;
  readonly reason: string;
}

const CACHES = '{l1i,l1d,l2,constCache,texCache}';

/** Every not-modelled field of the schema (checked against the schema's leaves by a test). */
export const NOT_MODELLED: readonly NotModelled[] = [
  { pattern: 'sm.clusters', reason: 'SM clusters are not modelled: every SM has its own interconnect port' },
  { pattern: 'sm.decodeWidth', reason: 'DECODE forwards sm.fetchThroughput fetched groups per cycle' },
  { pattern: 'sm.subCoreModel', reason: 'no sub-core partitioning of units and register banks' },
  { pattern: 'sm.units.*.idOcWidth', reason: 'no issue -> operand-collector pipeline registers' },
  { pattern: 'sm.units.*.ocExWidth', reason: 'no operand-collector -> execute pipeline registers' },
  { pattern: 'sm.units.exWbWidth', reason: 'no execute -> write-back pipeline register' },
  { pattern: 'sm.units.tensor.count', reason: 'no tensor-core pipeline (no PTX mma/wmma class)' },
  { pattern: 'sm.units.lsu.count', reason: 'the LSU is one unit per SM' },
  { pattern: 'sm.operandCollector.**', reason: 'the register-read stage is a fixed 6-cycle depth (OPERAND_PIPELINE_CYCLES in src/topology/gpu-sm.ts); collector counts, ports and bank conflicts are not modelled' },
  { pattern: 'sm.opcodeTiming.int.{add,max,mad}.*', reason: 'integer ALU ops take the fp.add class timing; only int.mul, int.div and int.shfl are distinct classes (src/topology/gpu-sm.ts)' },
  { pattern: 'sm.opcodeTiming.fp.{max,mul,mad,div}.*', reason: 'single-precision ops take the fp.add class timing (src/topology/gpu-sm.ts)' },
  { pattern: 'sm.opcodeTiming.dp.{add,max,mul,div}.*', reason: 'double-precision ops take the dp.mad class timing (src/topology/gpu-sm.ts)' },
  { pattern: 'sm.opcodeTiming.tensor.*', reason: 'no tensor-core pipeline' },
  { pattern: 'sm.lanes.**', reason: "paper lane counts for peak rates (peakFlopsPerSec); the timing model uses sm.units" },
  { pattern: 'sm.registerPerThreadGranularity', reason: 'launch occupancy rounds registers per warp (sm.registerAllocUnit) only' },
  { pattern: 'policies.memoryIssue.kind', reason: 'memory-issue policies (RBMI, QBMI, SMIL, DMIL) are not built yet' },
  { pattern: '{l1i,l1d,l2,constCache}.mshrType', reason: 'every MSHR table is associative by line' },
  { pattern: '{l1i,l1d,l2,constCache}.resultFifoEntries', reason: 'only the texture cache has a result FIFO' },
  { pattern: '{l1i,l1d,constCache}.dataPortBytes', reason: 'no data-port width limit outside the L2' },
  { pattern: 'l1i.{sectorBytes,writePolicy,writeAllocate}', reason: 'the L1I is read only and not sectored' },
  {
    pattern: 'l1i.latencyCycles',
    reason: "L1I misses go through the interconnect, L2 and DRAM (GPGPU-Sim shader_core_ctx::fetch) and GPGPU-Sim's L1I has no hit-latency option; read only by FETCH's fixed-latency mode outside a GPU (unit tests)",
  },
  {
    pattern: 'l1i.missQueueEntries',
    reason: 'honoured, but never binding: FETCH makes one access per cycle and its memory port takes one line read per cycle, so the queue never holds more than one entry (as in GPGPU-Sim)',
  },
  { pattern: 'l1d.banks', reason: 'no L1D bank conflicts' },
  { pattern: 'l2.sectorBytes', reason: 'L2 lines are not sectored' },
  { pattern: 'constCache.{sets,ways,lineBytes,sectorBytes,replacement,writePolicy,allocation,writeAllocate,setIndex,mshrEntries,mshrMaxMerge,missQueueEntries}', reason: 'constant loads take constCache.latencyCycles; no constant cache array' },
  {
    pattern: 'texCache.{mshrType,sectorBytes,writePolicy,writeAllocate,dataPortBytes}',
    reason: "the texture cache (GPGPU-Sim tex_cache, in the LSU) is read only, its MSHR is always the texture fragment FIFO / request FIFO / reorder buffer (F and T alike), its lines are not sectored and its data port is not limited",
  },
  { pattern: 'interconnect.{topology,outputBufferEntries,arbitration,subnets,ejectionBufferEntries}', reason: 'one crossbar with request and response networks, round-robin arbitration and input buffers' },
  { pattern: 'memPartitions.queues.**', reason: 'the L2 queues are the ports\' fixed capacities (issue 10)' },
  { pattern: 'dram.{returnQueueEntries,dualBusInterface,bankGroupIndexing}', reason: 'not in the DRAM channel model (bank groups use the higher bank bits)' },
  { pattern: 'dram.writeQueue.**', reason: 'writes share the scheduler queue with reads' },
  { pattern: 'kernel.{ctaLaunchLatencyCycles,maxConcurrentKernels,concurrentKernelsPerSm}', reason: 'CTAs start the cycle they arrive; every launched kernel may run (concurrent kernels are issue 15)' },
  { pattern: 'power.**', reason: 'no energy model yet (issue 14)' },
];

const matchers = NOT_MODELLED.map((n) => ({ n, match: picomatch(n.pattern.replace(/\./g, '/')) }));

const reasonCache = new Map<string, string | undefined>();

/** The not-modelled entry of a dotted leaf path, or undefined when the field is modelled. */
export function notModelledReason(path: string): string | undefined {
  if (reasonCache.has(path)) return reasonCache.get(path);
  const p = path.replace(/\./g, '/');
  const reason = matchers.find((m) => m.match(p))?.n.reason;
  reasonCache.set(path, reason);
  return reason;
}

/** Every leaf path of the GPU config schema (`sm.units.sp.count`, ...), each once. */
export function configLeafPaths(): string[] {
  const out = new Set<string>();
  const walk = (n: any, p: string) => {
    for (const alt of [...(n.anyOf ?? []), ...(n.oneOf ?? [])]) walk(alt, p);
    if (n.properties) {
      for (const [k, v] of Object.entries(n.properties)) walk(v, p ? `${p}.${k}` : k);
      return;
    }
    if (!n.anyOf && !n.oneOf && p) out.add(p);
  };
  walk(z.toJSONSchema(gpuConfigSchema as z.ZodType, { io: 'input', unrepresentable: 'any' }), '');
  return [...out];
}

/** One leaf field of the GPU config schema and whether the timing model reads it. */
export interface ConfigField {
  /** Dotted path, e.g. `l1d.skipGlobal`. */
  readonly path: string;
  /** False when a `NOT_MODELLED` pattern matches the path. */
  readonly modelled: boolean;
  /** Why the simulation ignores the field (only when not modelled). */
  readonly reason?: string;
}

/**
 * Every leaf of the GPU config schema with its modelled flag and reason, in schema order.
 * Metadata fields (`name`, `description`, `sources`, `extensions`) count as modelled: they are
 * not hardware parameters.
 */
export function configFields(): ConfigField[] {
  return configLeafPaths().map((path) => {
    const reason = notModelledReason(path);
    return reason === undefined ? { path, modelled: true } : { path, modelled: false, reason };
  });
}

/** Leaf values of a config object, by dotted path (arrays are leaves). */
export function leafValues(value: unknown, prefix = '', out = new Map<string, unknown>()): Map<string, unknown> {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value)) leafValues(v, prefix ? `${prefix}.${k}` : k, out);
  } else if (prefix) out.set(prefix, value);
  return out;
}

/** A not-modelled field set to a value other than the base config's. */
export interface NotModelledChange {
  readonly field: string;
  readonly from: unknown;
  readonly to: unknown;
  readonly reason: string;
}

/**
 * The not-modelled fields whose value differs between `base` (the preset or imported config)
 * and `changed` (after overrides): each is a setting the simulation silently ignores.
 */
export function notModelledChanges(base: GpuConfig, changed: GpuConfig): NotModelledChange[] {
  if (base === changed) return [];
  const a = leafValues(base);
  const b = leafValues(changed);
  const out: NotModelledChange[] = [];
  for (const field of new Set([...a.keys(), ...b.keys()])) {
    const reason = notModelledReason(field);
    if (reason === undefined) continue;
    if (JSON.stringify(a.get(field)) !== JSON.stringify(b.get(field))) out.push({ field, from: a.get(field), to: b.get(field), reason });
  }
  return out.sort((x, y) => x.field.localeCompare(y.field));
}

/** One warning line for a not-modelled change. */
export function formatNotModelledChange(c: NotModelledChange): string {
  return `warning: config field ${c.field} set to ${JSON.stringify(c.to)} (preset ${JSON.stringify(c.from)}) is not modelled: ${c.reason}`;
}

/**
 * The warnings for not-modelled config fields that overrides changed from `base` to `config`
 * (`--config-set`, `gpu.set`, `config show --set`), one line each.
 * @param where the location to name, or a function giving it per field
 * @throws InputError under `strict` (`--strict`), naming the first such field
 */
export function checkNotModelled(base: GpuConfig, config: GpuConfig, strict: boolean, where: SourceLocation | ((field: string) => SourceLocation)): string[] {
  const changes = notModelledChanges(base, config);
  if (strict && changes.length > 0) {
    const c = changes[0]!;
    throw new InputError(typeof where === 'function' ? where(c.field) : where, `config field ${c.field} is not modelled (${c.reason}); --strict refuses setting it to ${JSON.stringify(c.to)}`, c.field);
  }
  return changes.map(formatNotModelledChange);
}
