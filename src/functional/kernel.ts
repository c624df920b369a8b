/**
 * {@link FunctionalKernel}: one kernel launch prepared for functional execution (issue 3 item 4):
 * the compiled entry, the parameter buffer laid out from the arguments, the module's `.global`
 * and `.const` variables placed in memory, and the symbol table. CTAs are created on demand with
 * {@link FunctionalKernel.createCta}, so the timing model decides which CTA runs where and when.
 *
 * Memory placement:
 * - kernel parameters: the `.param` list laid out at the offsets the parser computed (PTX ABI,
 *   each parameter at its alignment), filled from the arguments; read-only;
 * - module `.global` variables: allocated in the launch's {@link GlobalMemory} the first time a
 *   kernel of the module runs on that memory (one instance per module and memory, shared by
 *   later launches, like CUDA module globals), initialised from the module, relocations applied;
 * - module `.const` variables: one const bank per module and memory, laid out in declaration
 *   order at their alignment;
 * - `.shared` variables: the kernel's shared layout (static part, then dynamic shared memory);
 * - function-scope `.local`/`.param` variables and `.func` parameters: per-thread frames in local
 *   memory (one frame per function the kernel may call, directly or through a pointer; a
 *   function is never active twice in one thread);
 * - functions named in initialisers (call tables): their address, `ir.ts` `functionAddress`.
 *
 * Device `printf` output is collected per launch and written, when the last CTA of the grid has
 * finished, to {@link KernelLaunch.deviceOutput} (default: standard output), ordered by CTA
 * (linear index, x fastest), then thread (linear index in the CTA), then call order: the same
 * text for functional and timing runs, whatever order the CTAs ran in. As CUDA's printf FIFO
 * (`cudaLimitPrintfFifoSize`, 1 MiB by default), a launch keeps at most 1 MiB of text; later
 * calls are dropped and counted in a last line.
 */

import { InputError } from '../errors.ts';
import { functionAddress, OpaqueType, SCALAR_TYPE_BITS, SCALAR_TYPE_KIND, ScalarType, StateSpace, TypeKind, VarKind } from '../isa/ir.ts';
import type { PtxFunction, PtxModule, PtxVariable } from '../isa/ir.ts';
import { compileKernel, type CompiledKernel } from './compile.ts';
import { FunctionalCta } from './cta.ts';
import { ByteStore, CONST_WINDOW_BASE, type GlobalMemory } from './memory.ts';
import { f16ToBits } from './ops/fp-bits.ts';
import { NO_TEXTURES, type TextureTable } from './texture.ts';
import { roundToFormat, FMT_F16 } from './ops/fp-round.ts';

/** Three-component extent or index (x, y, z). */
export type Dim3 = readonly [number, number, number];

/** A kernel argument: a number (integers, floats, device pointers), a bigint (64-bit integers), or raw bytes (aggregates). */
export type KernelArg = number | bigint | ArrayBufferView;

/** Everything a launch needs. */
export interface KernelLaunch {
  /** Parsed module. */
  readonly module: PtxModule;
  /** Name of the `.entry` to run. */
  readonly entry: string;
  /** Grid size in CTAs; a number means (n, 1, 1). */
  readonly grid: Dim3 | number;
  /** CTA size in threads; a number means (n, 1, 1). */
  readonly block: Dim3 | number;
  /** One argument per kernel parameter, in order. */
  readonly args: readonly KernelArg[];
  /** Device global memory (allocations, and where module `.global` variables are placed). */
  readonly memory: GlobalMemory;
  /** Dynamic shared memory per CTA in bytes (default 0). */
  readonly dynamicSharedBytes?: number;
  /** Largest shared memory per CTA (static + dynamic) accepted, bytes (default 48 KiB, CUDA's default limit). */
  readonly maxSharedBytes?: number;
  /** Largest CTA size in threads (default 1024). */
  readonly maxThreadsPerCta?: number;
  /** Value of `%gridid` (default 1). */
  readonly gridId?: number;
  /** Value of `%nsmid` (default 1). */
  readonly nsmid?: number;
  /** Value of `%nwarpid`, the warp slots per SM (default: the CTA's warp count). */
  readonly nwarpid?: number;
  /** Name used in messages (defaults to the module's file name). */
  readonly file?: string;
  /**
   * Texture and surface objects of the device (the handles `.u64` arguments carry); default: none.
   * Source: CUDA texture / surface object API (`cudaCreateTextureObject`).
   */
  readonly textures?: TextureTable;
  /**
   * The module's `.texref`/`.surfref` variables bound for this launch: name -> handle in
   * {@link textures} (CUDA's `cudaBindTexture*` of texture references). A reference the kernel
   * reads while unbound is a `trap` fault.
   * @throws InputError (at construction) for a name that is not a `.texref`/`.surfref` of the module
   */
  readonly texRefs?: ReadonlyMap<string, number>;
  /**
   * Receives the launch's device `printf` output once its last CTA finished (or when a `trap` /
   * failed `assert` stops it); default: written to standard output.
   */
  readonly deviceOutput?: (text: string) => void;
  /**
   * Values of `%envreg0..31` (PTX ISA §10.x: read-only registers the driver initialises before
   * the launch; what the CUDA driver puts there is not documented), u32 each, missing ones 0;
   * default: all 0.
   */
  readonly envRegs?: readonly number[];
}

/** Largest device `printf` output kept per launch, characters (CUDA's default printf FIFO, 1 MiB). */
export const DEVICE_OUTPUT_LIMIT = 1 << 20;

/** One device `printf` call's text and where it came from (for the output order). */
interface OutputRecord {
  readonly cta: number;
  readonly thread: number;
  readonly seq: number;
  readonly text: string;
}

/** Per (memory, module): where the module's `.global`/`.const` variables live. */
interface ModuleState {
  readonly globalAddr: Map<number, number>;
  readonly constOffset: Map<number, number>;
  readonly cnst: ByteStore;
  readonly constBytes: number;
}

const moduleStates = new WeakMap<GlobalMemory, Map<PtxModule, ModuleState>>();

function dim3(v: Dim3 | number, file: string, field: string): Dim3 {
  const d = (typeof v === 'number' ? [v, 1, 1] : v) as unknown;
  if (!Array.isArray(d) || d.length !== 3 || !d.every((x) => Number.isInteger(x) && x >= 1 && x <= 2147483647)) {
    throw new InputError({ file }, `must be positive integers (x, y, z), got ${JSON.stringify(v)}`, field);
  }
  return d as unknown as Dim3;
}

/** A prepared kernel launch. */
export class FunctionalKernel {
  readonly module: PtxModule;
  readonly entry: PtxFunction;
  readonly compiled: CompiledKernel;
  readonly grid: Dim3;
  readonly block: Dim3;
  /** Threads per CTA. */
  readonly threadsPerCta: number;
  /** Warps per CTA. */
  readonly warpsPerCta: number;
  /** Number of CTAs in the grid. */
  readonly ctaCount: number;
  readonly memory: GlobalMemory;
  /** Shared memory bytes per CTA (static + dynamic). */
  readonly sharedBytes: number;
  readonly dynamicSharedBytes: number;
  /** Kernel parameter buffer (read-only). */
  readonly param: ByteStore;
  readonly paramBytes: number;
  /** Const bank of the module. */
  readonly cnst: ByteStore;
  readonly constBytes: number;
  /** Address of each variable (by id) in its own space: global address, const/shared/param offset, or local frame offset. */
  readonly symAddr: Float64Array;
  /** Local memory per thread (bytes, all frames) and the per-lane stride of a warp's local store. */
  readonly localBytes: number;
  readonly localStride: number;
  readonly gridId: number;
  readonly nsmid: number;
  readonly nwarpid: number;
  /** File name for messages. */
  readonly file: string;
  /** Shared scratch of warps (cross-lane operations; used within one instruction only). */
  readonly scratch = new Uint32Array(32);
  readonly scratchAddresses = new Float64Array(32);
  /** Texel addresses of warps outside a step (replaced by the step info's array during `tex`). */
  readonly scratchTexels = new Float64Array(256);
  /** Texture and surface objects ({@link KernelLaunch.textures}). */
  readonly textures: TextureTable;
  /** `%envreg0..31` (see {@link KernelLaunch.envRegs}). */
  readonly envRegs: Uint32Array;
  /** Local store of warps of kernels without local memory. */
  readonly emptyStore = new ByteStore(8);
  /** CTAs finished since the launch (or the last full grid). */
  private completedCtas = 0;
  private output: OutputRecord[] = [];
  private outputChars = 0;
  private outputDropped = 0;
  private readonly deviceOutput: (text: string) => void;

  /**
   * Prepares a launch.
   * @throws InputError for an unknown entry, bad grid/block dimensions, too much shared memory,
   *   or arguments that do not match the parameters (count, type, size).
   */
  constructor(launch: KernelLaunch) {
    const m = launch.module;
    const file = launch.file ?? m.file;
    this.file = file;
    this.module = m;
    const fi = m.functionByName.get(launch.entry);
    const fn = fi === undefined ? undefined : m.functions[fi];
    if (fi === undefined || fn === undefined || !fn.isEntry) {
      const kernels = m.functions.filter((f) => f.isEntry).map((f) => f.name);
      throw new InputError({ file }, `no kernel '${launch.entry}' in the module (kernels: ${kernels.join(', ') || 'none'})`, 'entry');
    }
    this.entry = fn;
    this.deviceOutput = launch.deviceOutput ?? ((text) => void process.stdout.write(text));
    this.envRegs = Uint32Array.from({ length: 32 }, (_, i) => launch.envRegs?.[i] ?? 0);
    this.grid = dim3(launch.grid, file, 'grid');
    this.block = dim3(launch.block, file, 'block');
    this.threadsPerCta = this.block[0] * this.block[1] * this.block[2];
    const maxThreads = launch.maxThreadsPerCta ?? 1024;
    if (this.threadsPerCta > maxThreads) {
      throw new InputError({ file }, `${this.threadsPerCta} threads per CTA exceed the limit of ${maxThreads}`, 'block');
    }
    this.warpsPerCta = Math.ceil(this.threadsPerCta / 32);
    this.ctaCount = this.grid[0] * this.grid[1] * this.grid[2];
    this.memory = launch.memory;
    this.gridId = launch.gridId ?? 1;
    this.nsmid = launch.nsmid ?? 1;
    this.nwarpid = launch.nwarpid ?? this.warpsPerCta;
    this.textures = launch.textures ?? NO_TEXTURES;

    // shared memory
    const dyn = launch.dynamicSharedBytes ?? 0;
    if (!Number.isInteger(dyn) || dyn < 0) throw new InputError({ file }, `must be a non-negative integer, got ${dyn}`, 'dynamicSharedBytes');
    const layout = fn.sharedLayout!;
    this.dynamicSharedBytes = dyn;
    this.sharedBytes = dyn > 0 ? layout.dynamicOffset + dyn : layout.staticBytes;
    const maxShared = launch.maxSharedBytes ?? 49152;
    if (this.sharedBytes > maxShared) {
      throw new InputError({ file }, `the kernel needs ${this.sharedBytes} bytes of shared memory per CTA (${layout.staticBytes} static + ${dyn} dynamic), more than the limit of ${maxShared}`, 'dynamicSharedBytes');
    }

    this.compiled = compileKernel(m, fi);
    this.localBytes = this.compiled.localBytes;
    this.localStride = Math.max(8, this.localBytes);

    // module globals and const bank
    const ms = moduleState(m, launch.memory);
    this.cnst = ms.cnst;
    this.constBytes = ms.constBytes;

    // symbol table
    const sym = new Float64Array(m.variables.length);
    for (const v of m.variables) sym[v.id] = NaN;
    const refs = launch.texRefs ?? new Map<string, number>();
    for (const [name, handle] of refs) {
      const v = m.globals.find((g) => g.name === name);
      if (v === undefined || (v.opaque !== OpaqueType.Texref && v.opaque !== OpaqueType.Surfref)) {
        const known = m.globals.filter((g) => g.opaque === OpaqueType.Texref || g.opaque === OpaqueType.Surfref).map((g) => g.name);
        throw new InputError({ file }, `'${name}' is not a .texref or .surfref of the module (it has: ${known.join(', ') || 'none'})`, 'textures');
      }
    }
    for (const v of m.variables) {
      if (v.opaque !== OpaqueType.None) sym[v.id] = refs.get(v.name) ?? NaN;
      else if (v.space === StateSpace.Global) sym[v.id] = ms.globalAddr.get(v.id) ?? NaN;
      else if (v.space === StateSpace.Const) sym[v.id] = ms.constOffset.get(v.id) ?? NaN;
      else if (v.space === StateSpace.Shared) {
        const o = layout.offsets[v.id] ?? -1;
        sym[v.id] = o >= 0 ? o : v.isDynamicShared ? layout.dynamicOffset : NaN;
      } else if (v.kind === VarKind.KernelParam) sym[v.id] = v.functionIndex === fi ? v.offset : NaN;
      else if (v.functionIndex >= 0) {
        const cf = this.compiled.functions[v.functionIndex];
        if (cf) sym[v.id] = cf.frameBase + v.offset;
      }
    }
    this.symAddr = sym;

    // parameters
    this.paramBytes = fn.paramBytes;
    this.param = new ByteStore(Math.max(8, fn.paramBytes));
    if (launch.args.length !== fn.params.length) {
      throw new InputError({ file }, `kernel '${fn.name}' takes ${fn.params.length} argument(s), got ${launch.args.length}`, 'args');
    }
    fn.params.forEach((p, i) => writeArg(this.param, p, launch.args[i]!, file, i));
  }

  /** CTA id (x, y, z) of linear CTA index `i` (x fastest). */
  ctaIdOf(i: number): Dim3 {
    const [gx, gy] = this.grid;
    return [i % gx, Math.floor(i / gx) % gy, Math.floor(i / (gx * gy))];
  }

  /**
   * Creates CTA `ctaId` (a linear index, x fastest, or (x, y, z)) placed on SM `smId` (the value
   * of `%smid` for its threads): zeroed shared memory, warps at the entry PC.
   * @throws RangeError for an id outside the grid.
   */
  createCta(ctaId: number | Dim3, smId = 0): FunctionalCta {
    const id: Dim3 = typeof ctaId === 'number' ? this.ctaIdOf(ctaId) : ctaId;
    if (!id.every((x, k) => Number.isInteger(x) && x >= 0 && x < this.grid[k]!)) {
      throw new RangeError(`CTA ${JSON.stringify(ctaId)} is outside the grid ${JSON.stringify(this.grid)}`);
    }
    const pooled = this.pool.pop();
    if (pooled) {
      pooled.reinit(id, smId);
      return pooled;
    }
    return new FunctionalCta(this, id, smId);
  }

  /**
   * Hands a CTA that will not be used again back to the kernel, which may return the same object,
   * re-initialised, from a later {@link createCta} (saves allocating register files and shared
   * memory per CTA). The caller must drop its references to the CTA and its warps.
   */
  releaseCta(cta: FunctionalCta): void {
    if (cta.kernel === this && this.pool.length < 64) this.pool.push(cta);
  }

  private readonly pool: FunctionalCta[] = [];

  /** Keeps the text of one device `printf` call of thread `thread` (linear, in the CTA) of CTA `ctaId`. */
  recordDeviceOutput(ctaId: Dim3, thread: number, text: string): void {
    if (this.outputChars + text.length > DEVICE_OUTPUT_LIMIT) {
      this.outputDropped++;
      return;
    }
    this.outputChars += text.length;
    const cta = ctaId[0] + this.grid[0] * (ctaId[1] + this.grid[1] * ctaId[2]);
    this.output.push({ cta, thread, seq: this.output.length, text });
  }

  /** Called by a CTA when its last warp finished: after the grid's last CTA, the device output is written. */
  ctaCompleted(): void {
    this.completedCtas++;
    if (this.completedCtas >= this.ctaCount) {
      this.completedCtas = 0;
      this.flushDeviceOutput();
    }
  }

  /**
   * Writes the device `printf` output collected so far (by CTA, thread, call order) to the
   * launch's {@link KernelLaunch.deviceOutput} and forgets it. Nothing is written when there is none.
   */
  flushDeviceOutput(): void {
    if (this.output.length === 0 && this.outputDropped === 0) return;
    const recs = this.output.sort((a, b) => a.cta - b.cta || a.thread - b.thread || a.seq - b.seq);
    let text = recs.map((r) => r.text).join('');
    if (this.outputDropped > 0) text += `[warpstate] device printf output of ${this.entry.name} over ${DEVICE_OUTPUT_LIMIT} characters: ${this.outputDropped} call(s) dropped\n`;
    this.output = [];
    this.outputChars = 0;
    this.outputDropped = 0;
    this.deviceOutput(text);
  }
}

/** Module globals/const placement, once per (memory, module). */
function moduleState(m: PtxModule, mem: GlobalMemory): ModuleState {
  let perMem = moduleStates.get(mem);
  if (!perMem) {
    perMem = new Map();
    moduleStates.set(mem, perMem);
  }
  const hit = perMem.get(m);
  if (hit) return hit;
  const globalAddr = new Map<number, number>();
  const constOffset = new Map<number, number>();
  let cOff = 0;
  for (const v of m.globals) {
    if (v.opaque !== OpaqueType.None) continue; // texture / surface / sampler references hold no bytes
    if (v.space === StateSpace.Global) {
      const addr = mem.allocate(Math.max(1, v.sizeBytes), Math.max(256, v.align), v.name);
      globalAddr.set(v.id, addr);
    } else if (v.space === StateSpace.Const) {
      cOff = Math.ceil(cOff / v.align) * v.align;
      constOffset.set(v.id, cOff);
      cOff += v.sizeBytes;
    }
  }
  const constBytes = cOff;
  const cnst = new ByteStore(Math.max(8, constBytes));
  const byName = new Map<string, PtxVariable>();
  for (const v of m.globals) byName.set(v.name, v);
  const addressOf = (name: string, generic: boolean): number => {
    const t = byName.get(name);
    const fi = t === undefined ? m.functionByName.get(name) : undefined;
    if (fi !== undefined) return functionAddress(fi); // a function pointer (a call table)
    if (!t) throw new InputError({ file: m.file }, `initializer refers to unknown symbol '${name}'`, name);
    if (t.opaque !== OpaqueType.None) throw new InputError({ file: m.file, line: t.line }, `not supported: the address of texture, surface or sampler reference '${name}' in an initializer`, name);
    if (t.space === StateSpace.Global) return globalAddr.get(t.id)!;
    if (t.space === StateSpace.Const) return constOffset.get(t.id)! + (generic ? CONST_WINDOW_BASE : 0);
    throw new InputError({ file: m.file, line: t.line }, `cannot take the address of '${name}' in an initializer`, name);
  };
  for (const v of m.globals) {
    const isG = v.space === StateSpace.Global && v.opaque === OpaqueType.None;
    if (!isG && v.space !== StateSpace.Const) continue;
    const bytes = v.init ? v.init.slice() : undefined;
    if (bytes) {
      for (const r of v.relocations) {
        const a = addressOf(r.symbol, r.generic) + r.addend;
        for (let k = 0; k < r.size; k++) bytes[r.byteOffset + k] = Math.floor(a / 2 ** (8 * k)) & 0xff;
      }
      if (isG) mem.write(globalAddr.get(v.id)!, bytes);
      else cnst.u8.set(bytes, constOffset.get(v.id)!);
    }
  }
  const st: ModuleState = { globalAddr, constOffset, cnst, constBytes };
  perMem.set(m, st);
  return st;
}

/** Encodes argument `i` into the parameter buffer at the parameter's offset. */
function writeArg(buf: ByteStore, p: PtxVariable, arg: KernelArg, file: string, i: number): void {
  const field = `args[${i}]`;
  const size = p.sizeBytes;
  const off = p.offset;
  if (ArrayBuffer.isView(arg)) {
    const bytes = new Uint8Array(arg.buffer, arg.byteOffset, arg.byteLength);
    if (bytes.length !== size) throw new InputError({ file }, `parameter '${p.name}' takes ${size} bytes, got ${bytes.length}`, field);
    buf.u8.set(bytes, off);
    return;
  }
  const isScalar = p.dims.length === 0 && p.vec === 1;
  if (!isScalar) throw new InputError({ file }, `parameter '${p.name}' is an aggregate of ${size} bytes: pass a byte array`, field);
  const t = p.elemType;
  const bits = SCALAR_TYPE_BITS[t]!;
  const kind = SCALAR_TYPE_KIND[t]!;
  const dv = new DataView(buf.u8.buffer, buf.u8.byteOffset);
  if (kind === TypeKind.Float) {
    const x = Number(arg);
    if (t === ScalarType.F32) dv.setFloat32(off, x, true);
    else if (t === ScalarType.F64) dv.setFloat64(off, x, true);
    else dv.setUint16(off, f16ToBits(roundToFormat(x, 0, 0, FMT_F16)), true);
    return;
  }
  let v: bigint;
  if (typeof arg === 'bigint') v = arg;
  else {
    if (!Number.isInteger(arg)) throw new InputError({ file }, `parameter '${p.name}' (.${bits}-bit integer) needs an integer, got ${arg}`, field);
    v = BigInt(arg);
  }
  const lo = -(1n << BigInt(bits - 1));
  const hi = (1n << BigInt(bits)) - 1n;
  if (v < lo || v > hi) throw new InputError({ file }, `value ${v} does not fit parameter '${p.name}' (${bits} bits)`, field);
  const u = BigInt.asUintN(bits, v);
  for (let k = 0; k < bits / 8; k++) buf.u8[off + k] = Number((u >> BigInt(8 * k)) & 0xffn);
}
