/**
 * Running kernel scenarios (`buffers` + `launches` + reference checks) in functional mode:
 * every kernel executes on the PTX functional model without timing, and its output buffers are
 * compared with the TypeScript host references (issue 3 items 5-6; DESIGN.md §5).
 *
 * Flow: generate every buffer from its seeded generator, upload it to device global memory,
 * parse each PTX file once, run the launches in order (each launch sees the previous ones'
 * results), then read the compared buffers back and check them against the reference computed
 * from the initial contents.
 */
import { relative, resolve } from 'node:path';
import { InputError } from '../errors.ts';
import { FunctionalKernel, GlobalMemory, runFunctional, type KernelArg } from '../functional/index.ts';
import { CHANNEL_BYTES, TextureTable, type TextureDesc } from '../functional/texture.ts';
import { parsePtx, type PtxModule } from '../isa/index.ts';
import { Prng } from '../sim/prng.ts';
import { StatsRegistry } from '../stats/registry.ts';
import type { LoadedScenario } from './loader.ts';
import {
  ELEMENT_BYTES,
  cloneBuffer,
  compareBuffers,
  createBuffer,
  generateBuffer,
  kernelReferences,
  type BufferType,
  type ReferenceArg,
  type ReferenceLaunch,
  type ReferenceTexture,
  type TypedArray,
} from './references/index.ts';
import type { LaunchSpec, SurfaceSpec, TextureSpec } from './schema.ts';
import { compareOp } from './run.ts';
import { readInputText } from './yaml-source.ts';

/** Largest PTX file read (bytes): far above any real module (nvcc's largest are a few MB). */
const MAX_PTX_BYTES = 64 << 20;

/** Outcome of one check of a kernel scenario. */
export interface KernelCheckResult {
  readonly description: string;
  readonly passed: boolean;
  readonly actual: number | string;
}

/** Outcome of a functional kernel-scenario run. */
export interface KernelScenarioResult {
  readonly stats: StatsRegistry;
  readonly checks: readonly KernelCheckResult[];
  readonly passed: boolean;
  /** Final device contents of every buffer. */
  readonly buffers: Readonly<Record<string, TypedArray>>;
  /** Host wall time of kernel execution, ms (not part of the deterministic statistics). */
  readonly elapsedMs: number;
  /** Thread instructions per wall second over all launches. */
  readonly threadInstructionsPerSecond: number;
}

/** Parses PTX files once per run, keyed by absolute path. */
class PtxCache {
  private readonly modules = new Map<string, PtxModule>();

  load(path: string, where: { file: string; line?: number }, field: string): PtxModule {
    const abs = resolve(path);
    const rel = relative(process.cwd(), abs);
    const shown = rel === '' || rel.startsWith('..') ? abs : rel;
    let mod = this.modules.get(abs);
    if (mod === undefined) {
      let text: string;
      try {
        // Bounded: /dev/zero or a multi-GB file named as PTX is refused, not read into memory.
        text = readInputText(abs, MAX_PTX_BYTES, 'a PTX');
      } catch (e) {
        if (!(e instanceof InputError)) throw e;
        const why = e.reason === 'file not found' ? `PTX file not found: ${shown}` : `PTX file ${shown}: ${e.reason}`;
        throw new InputError(where, why, field);
      }
      mod = parsePtx(text, shown);
      this.modules.set(abs, mod);
    }
    return mod;
  }
}

/**
 * Binds a texture or surface entry over its buffer: fills the defaults, checks CUDA's rules and
 * the bytes it spans (see `textureProblem`), adds it to the run's table.
 * @returns its handle and the descriptor as references see it
 * @throws InputError naming the entry's file, line and field
 */
function bindResource(
  kind: 'texture' | 'surface',
  spec: TextureSpec | SurfaceSpec,
  run: { addresses: ReadonlyMap<string, number>; memory: GlobalMemory; textures: TextureTable },
  where: { file: string; line?: number },
  field: string,
): { handle: number; reference: ReferenceTexture } {
  const base = run.addresses.get(spec.buffer);
  if (base === undefined) throw new InputError(where, `unknown buffer '${spec.buffer}'`, `${field}.buffer`);
  const eb = CHANNEL_BYTES[spec.format] * spec.channels;
  const pitch = spec.pitch ?? spec.width * eb;
  const t = 'filterMode' in spec ? spec : undefined;
  const modes: readonly ReferenceTexture['addressMode'][number][] = t === undefined ? ['clamp'] : typeof t.addressMode === 'string' ? [t.addressMode] : t.addressMode;
  const mode = (d: number) => modes[Math.min(d, modes.length - 1)]!;
  const reference: ReferenceTexture = {
    buffer: spec.buffer,
    offset: spec.offset,
    width: spec.width,
    height: spec.height,
    depth: spec.depth,
    layers: spec.layers,
    pitch,
    slicePitch: spec.slicePitch ?? pitch * spec.height,
    format: spec.format,
    channels: spec.channels,
    readMode: t?.readMode ?? 'elementType',
    addressMode: [mode(0), mode(1), mode(2)],
    filterMode: t?.filterMode ?? 'point',
    normalizedCoords: t?.normalizedCoords ?? false,
  };
  const desc: TextureDesc = { ...reference, kind, address: base + spec.offset };
  try {
    return { handle: run.textures.add(desc, run.memory), reference };
  } catch (e) {
    if (e instanceof InputError) throw new InputError(where, `${kind}: ${e.reason}`, field);
    throw e;
  }
}

function toKernelArg(arg: LaunchSpec['args'][number], addresses: Map<string, number>, where: { file: string; line?: number }, field: string, run: { memory: GlobalMemory; textures: TextureTable }): { kernel: KernelArg; reference: ReferenceArg } {
  if ('texture' in arg || 'surface' in arg) {
    const kind = 'texture' in arg ? 'texture' : 'surface';
    const b = bindResource(kind, 'texture' in arg ? arg.texture : arg.surface, { addresses, ...run }, where, `${field}.${kind}`);
    return { kernel: BigInt(b.handle), reference: kind === 'texture' ? { texture: b.reference } : { surface: b.reference } };
  }
  if ('buffer' in arg) {
    const addr = addresses.get(arg.buffer);
    if (addr === undefined) throw new InputError(where, `unknown buffer '${arg.buffer}'`, field);
    return { kernel: addr, reference: { buffer: arg.buffer } };
  }
  const [type, raw] = Object.entries(arg)[0]! as ['u32' | 's32' | 'u64' | 's64' | 'f32' | 'f64', number | string];
  if (type === 'u64' || type === 's64') {
    let v: bigint;
    try {
      v = BigInt(raw);
    } catch {
      throw new InputError(where, `not an integer: ${JSON.stringify(raw)}`, field);
    }
    v = type === 'u64' ? BigInt.asUintN(64, v) : BigInt.asIntN(64, v);
    return { kernel: v, reference: { type, value: v } };
  }
  const n = Number(raw);
  return { kernel: n, reference: { type, value: n } };
}

/** A kernel scenario made ready to run: buffers in device memory, kernels prepared. */
export interface PreparedKernelScenario {
  readonly memory: GlobalMemory;
  /** Device address of each buffer. */
  readonly addresses: ReadonlyMap<string, number>;
  /** Initial contents of every buffer (host copies). */
  readonly initial: Readonly<Record<string, TypedArray>>;
  /** One per launch, in order. */
  readonly launches: readonly { spec: LaunchSpec; kernel: FunctionalKernel; reference: ReferenceLaunch }[];
  /** Texture and surface objects of the run (arguments and reference bindings of every launch). */
  readonly textures: TextureTable;
}

/** Options of {@link prepareKernelScenario} and the kernel-scenario runners. */
export interface KernelScenarioOptions {
  /**
   * Receives each launch's device `printf` output, once per launch when its last CTA finished
   * (or when a `trap` / failed `assert` stops it), ordered by CTA, then thread, then call (see
   * `FunctionalKernel`); default: written to the process's standard output. The CLI passes its
   * output stream, so the text appears after each kernel, before the statistics.
   */
  readonly deviceOutput?: (text: string) => void;
}

/**
 * Generates the buffers, uploads them, parses the PTX files (once each) and prepares every
 * launch (arguments, parameter buffers, shared-memory layout), without running anything.
 * @throws InputError for bad buffers, PTX or launches (file, line and field named)
 */
export function prepareKernelScenario(loaded: LoadedScenario, options: KernelScenarioOptions = {}): PreparedKernelScenario {
  const { scenario, source, baseDir } = loaded;
  const prng = new Prng(scenario.seed);
  const memory = new GlobalMemory();
  const initial: Record<string, TypedArray> = {};
  const addresses = new Map<string, number>();
  scenario.buffers.forEach((spec, i) => {
    if (addresses.has(spec.name)) throw new InputError(source.locate(['buffers', i, 'name']), `duplicate buffer '${spec.name}'`, `buffers[${i}].name`);
    const data = generateBuffer(spec, prng, { location: source.locate(['buffers', i, 'init']), field: `buffers[${i}].init` });
    initial[spec.name] = cloneBuffer(data);
    addresses.set(spec.name, memory.upload(data, 256, spec.name));
  });
  const cache = new PtxCache();
  const textures = new TextureTable();
  const launches = scenario.launches.map((launch, i) => {
    const where = source.locate(['launches', i]);
    const mod = cache.load(resolve(baseDir, launch.ptx), source.locate(['launches', i, 'ptx']), `launches[${i}].ptx`);
    const args = launch.args.map((a, j) => toKernelArg(a, addresses, source.locate(['launches', i, 'args', j]), `launches[${i}].args[${j}]`, { memory, textures }));
    // module .texref / .surfref bindings of this launch
    const texRefs = new Map<string, number>();
    for (const [key, kind] of [['textures', 'texture'], ['surfaces', 'surface']] as const) {
      for (const [name, spec] of Object.entries(launch[key] ?? {})) {
        const at = source.locate(['launches', i, key, name]);
        const b = bindResource(kind, spec, { addresses, memory, textures }, at, `launches[${i}].${key}.${name}`);
        texRefs.set(name, b.handle);
      }
    }
    let kernel: FunctionalKernel;
    try {
      kernel = new FunctionalKernel({
        module: mod,
        entry: launch.entry,
        grid: launch.grid,
        block: launch.block,
        args: args.map((a) => a.kernel),
        memory,
        dynamicSharedBytes: launch.dynamicSharedBytes,
        file: launch.ptx,
        textures,
        texRefs,
        ...(options.deviceOutput !== undefined ? { deviceOutput: options.deviceOutput } : {}),
      });
    } catch (e) {
      if (e instanceof InputError) throw new InputError(e.field === 'textures' ? source.locate(['launches', i, 'textures']) : where, e.reason, `launches[${i}].${e.field ?? 'entry'}`);
      throw e;
    }
    const reference: ReferenceLaunch = { grid: [...launch.grid], block: [...launch.block], args: args.map((a) => a.reference) };
    return { spec: launch, kernel, reference };
  });
  return { memory, addresses, initial, launches, textures };
}

/** Reads every buffer back from device memory. */
export function readBackBuffers(loaded: LoadedScenario, prepared: PreparedKernelScenario): Record<string, TypedArray> {
  const final: Record<string, TypedArray> = {};
  for (const spec of loaded.scenario.buffers) {
    const bytes = prepared.memory.read(prepared.addresses.get(spec.name)!, spec.count * ELEMENT_BYTES[spec.type]);
    const out = createBuffer(spec.type, spec.count);
    new Uint8Array(out.buffer, out.byteOffset, out.byteLength).set(bytes);
    final[spec.name] = out;
  }
  return final;
}

/**
 * Evaluates a kernel scenario's checks: statistic checks against `stats`, reference checks
 * against the host reference computed from the initial buffers.
 * @throws InputError for an unknown reference or compared buffer
 */
export function checkKernelScenario(loaded: LoadedScenario, prepared: PreparedKernelScenario, final: Record<string, TypedArray>, stats: StatsRegistry): KernelCheckResult[] {
  const { scenario, source } = loaded;
  return scenario.checks.map((c, i) => {
    if ('stat' in c) {
      const v = stats.value(c.stat);
      const description = `${c.stat} ${c.op} ${c.value}`;
      if (v === undefined) return { description, passed: false, actual: 'no such statistic' };
      return { description, passed: compareOp(c.op, v, c.value), actual: v };
    }
    const ref = kernelReferences[c.reference];
    if (ref === undefined) {
      throw new InputError(source.locate(['checks', i, 'reference']), `unknown reference '${c.reference}' (known: ${Object.keys(kernelReferences).join(', ')})`, `checks[${i}].reference`);
    }
    const buffers: Record<string, TypedArray> = {};
    for (const [k, v] of Object.entries(prepared.initial)) buffers[k] = cloneBuffer(v);
    const expected = ref({ buffers, launches: prepared.launches.map((l) => l.reference), file: source.file });
    const parts: string[] = [];
    let passed = true;
    for (const name of c.compare) {
      const want = expected[name];
      const got = final[name];
      if (want === undefined || got === undefined) {
        throw new InputError(source.locate(['checks', i, 'compare']), `buffer '${name}' is not ${got === undefined ? 'a scenario buffer' : 'produced by the reference'}`, `checks[${i}].compare`);
      }
      const rep = compareBuffers(want, got, c.ulp);
      if (rep.ok) parts.push(`${name}: ${rep.expectedLength} elements match (max distance ${rep.maxDistance})`);
      else {
        passed = false;
        const m = rep.firstMismatch;
        parts.push(
          `${name}: ${rep.problem}${m ? `, ${rep.mismatchCount} mismatches, first at [${m.index}] expected ${m.expected} got ${m.actual} (distance ${m.distance})` : ` (expected ${rep.expectedType}[${rep.expectedLength}], got ${rep.actualType}[${rep.actualLength}])`}`,
        );
      }
    }
    return { description: `reference ${c.reference} on ${c.compare.join(', ')} within ${c.ulp} ulp`, passed, actual: parts.join('; ') };
  });
}

/**
 * Runs a kernel scenario functionally.
 * @throws InputError for bad buffers, PTX or launches (file, line, field named);
 *   FunctionalFault (a SimulationError) for a memory fault or barrier deadlock in a kernel
 * @param stats where the counters go; a caller that passes its own registry still has the
 *   counts of the launches that completed when a later one faults (partial statistics)
 * @param options where device `printf` output goes ({@link KernelScenarioOptions.deviceOutput})
 */
export function runKernelScenarioFunctional(loaded: LoadedScenario, stats: StatsRegistry = new StatsRegistry(), options: KernelScenarioOptions = {}): KernelScenarioResult {
  const kernels = stats.counter('functional.kernels', 'kernel launches executed');
  const ctas = stats.counter('functional.ctas', 'CTAs executed');
  const warpInsts = stats.counter('functional.warp_insts', 'warp instructions executed');
  const threadInsts = stats.counter('gpu_sim_insn', 'thread instructions executed (GPGPU-Sim gpu_sim_insn)');
  const prepared = prepareKernelScenario(loaded, options);
  let elapsedMs = 0;
  for (const l of prepared.launches) {
    const r = runFunctional(l.kernel, { maxWarpInstructions: loaded.scenario.maxWarpInstructions });
    kernels.value++;
    ctas.value += r.ctas;
    warpInsts.value += r.warpInstructions;
    threadInsts.value += r.threadInstructions;
    elapsedMs += r.elapsedMs;
  }
  const final = readBackBuffers(loaded, prepared);
  const checks = checkKernelScenario(loaded, prepared, final, stats);
  return {
    stats,
    checks,
    passed: checks.every((c) => c.passed),
    buffers: final,
    elapsedMs,
    threadInstructionsPerSecond: elapsedMs > 0 ? (threadInsts.value * 1000) / elapsedMs : 0,
  };
}
