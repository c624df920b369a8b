/**
 * Writer of Accel-Sim traces (GitHub issue 5 item 4): `kernelslist.g` plus one
 * `kernel-N.traceg` per kernel in the tracer-version-4 layout the reader (`kernel-file.ts`)
 * and Accel-Sim read: the `-key = value` header, the `#traces format` comment, then per CTA
 * `#BEGIN_TB`, `thread block = x,y,z`, per warp `warp = n`, `insts = k` and k instruction lines,
 * `#END_TB`. Instruction lines are
 * `[line_num] PC mask dest_num [dests] opcode src_num [srcs] mem_width [mode addresses]` with
 * `%04x` PC and `%08x` mask as the tracer prints them.
 *
 * Addresses use the most compact mode that represents them exactly (see {@link chooseAddressMode}),
 * the choice Accel-Sim's tracer makes: base + stride when the active lanes are one contiguous run
 * of two or more lanes with a constant stride, else base + deltas; `compress: false` lists every
 * active lane's address. Opcode names are written as given: SASS for Accel-Sim (`ptx-trace.ts`
 * writes PTX runs with the names of `sass-names.ts`); the reader also takes lower-case PTX names
 * such as `ld.global.f32` (traces written before issue 10), which Accel-Sim refuses.
 *
 * Predicate registers are written as `P<n>` (`PT` for 7) after the general registers and count
 * in `dest_num`/`src_num`; the reader reads them back apart. Accel-Sim's own parser reads only
 * `R<n>` registers, at most one destination and four sources (its MAX_DST/MAX_SRC, asserted), so
 * a trace meant for Accel-Sim itself must keep to that (`ptx-trace.ts` does).
 *
 * Files are written through a buffer flushed every 1 MiB; `kernelslist.g` gets each command as
 * it is issued, so a run that stops early leaves a readable prefix.
 */
import { closeSync, existsSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { popcount32, WARP_SIZE } from './instruction-line.ts';
import { AddressMode, type Dim3 } from './types.ts';

/** One dynamic warp instruction to write. Optional fields default to empty / 0. */
export interface WriterInstruction {
  /** Byte offset of the instruction in the kernel code (PC). */
  readonly pc: number;
  /** Lanes that executed it (bit i = lane i). */
  readonly activeMask: number;
  /** Opcode with modifiers, one token without spaces (`LDG.E.CG`, `ld.global.f32`). */
  readonly opcode: string;
  /** General registers written (0..255). */
  readonly dstRegs?: ArrayLike<number>;
  /** Predicate registers written (0..7). */
  readonly dstPreds?: ArrayLike<number>;
  /** General registers read (0..255). */
  readonly srcRegs?: ArrayLike<number>;
  /** Predicate registers read (0..7). */
  readonly srcPreds?: ArrayLike<number>;
  /** Bytes per lane for a memory instruction; 0 or absent otherwise. */
  readonly memWidth?: number;
  /** Per-lane byte addresses indexed by lane (at least 32 entries when `memWidth > 0`); inactive lanes are ignored. */
  readonly addresses?: ArrayLike<number>;
  /** Source line, written when the kernel has lineinfo enabled. */
  readonly sourceLine?: number;
}

/** One CTA to write: its id and its warps, indexed by warp id (an empty warp may be given as `[]`). */
export interface WriterCta {
  readonly id: Dim3;
  readonly warps: ReadonlyArray<Iterable<WriterInstruction>>;
}

/** Header fields of a kernel to write; optional ones default to 0 / '' / false. */
export interface WriterKernelHeader {
  readonly name: string;
  /** Kernel id; default: launch number (1, 2, ...). */
  readonly id?: number;
  readonly gridDim: Dim3;
  readonly blockDim: Dim3;
  /** Shared memory per CTA, bytes. */
  readonly shmem?: number;
  /** Registers per thread. */
  readonly nregs?: number;
  /** SM binary version (61 = sm_61); default 0. Accel-Sim picks its opcode table by it and accepts only 60, 61, 70, 75, 80, 86 (`sass-names.ts`). */
  readonly binaryVersion?: number;
  readonly cudaStreamId?: number;
  /** Shared window base (bytes). */
  readonly shmemBaseAddr?: number;
  /** Local window base (bytes). */
  readonly localMemBaseAddr?: number;
  /** Written as `-nvbit version`; default `warpstate`. */
  readonly nvbitVersion?: string;
  /** Prefix every instruction line with its source line. */
  readonly enableLineinfo?: boolean;
}

/** Options of {@link AccelSimTraceWriter}. */
export interface WriterOptions {
  /** Compress addresses (base + stride / base + deltas); `false` lists them all. Default true. */
  readonly compress?: boolean;
}

/** An address mode and its operands for one instruction. */
export interface AddressEncoding {
  readonly mode: AddressMode;
  /** Text after `mem_width`, e.g. `1 0x7f00 4`. */
  readonly text: string;
}

const hex = (v: number): string => v.toString(16);

/**
 * Chooses the address mode for the active lanes of `mask` and returns its text.
 * - no active lane: base + stride `1 0x0 0` (what Accel-Sim's tracer writes);
 * - one contiguous run of >= 2 active lanes with a constant stride (a 32-bit signed integer):
 *   base + stride;
 * - otherwise base + deltas (popcount - 1 signed decimal deltas), or every address if
 *   `compress` is false.
 *
 * @throws RangeError for an active lane address that is not an integer in 0..2^53.
 */
export function chooseAddressMode(mask: number, addresses: ArrayLike<number>, compress = true): AddressEncoding {
  const m = mask >>> 0;
  for (let lane = 0; lane < WARP_SIZE; lane++) {
    if ((m >>> lane) & 1) {
      const a = addresses[lane];
      if (a === undefined || !Number.isSafeInteger(a) || a < 0) throw new RangeError(`lane ${lane} address ${a} is not an integer in 0..2^53`);
    }
  }
  if (!compress) {
    let text = `${AddressMode.ListAll}`;
    for (let lane = 0; lane < WARP_SIZE; lane++) if ((m >>> lane) & 1) text += ` 0x${hex(addresses[lane]!).padStart(16, '0')}`;
    return { mode: AddressMode.ListAll, text };
  }
  if (m === 0) return { mode: AddressMode.BaseStride, text: `${AddressMode.BaseStride} 0x0 0` };
  let first = 0;
  while (((m >>> first) & 1) === 0) first++;
  let last = 31;
  while (((m >>> last) & 1) === 0) last--;
  const active = popcount32(m);
  if (active >= 2 && last - first + 1 === active) {
    const stride = addresses[first + 1]! - addresses[first]!;
    let ok = stride >= -0x80000000 && stride <= 0x7fffffff;
    for (let lane = first + 2; ok && lane <= last; lane++) if (addresses[lane]! - addresses[lane - 1]! !== stride) ok = false;
    if (ok) return { mode: AddressMode.BaseStride, text: `${AddressMode.BaseStride} 0x${hex(addresses[first]!)} ${stride}` };
  }
  let text = `${AddressMode.BaseDelta} 0x${hex(addresses[first]!)}`;
  let prev = addresses[first]!;
  for (let lane = first + 1; lane <= last; lane++) {
    if (((m >>> lane) & 1) === 0) continue;
    const a = addresses[lane]!;
    text += ` ${a - prev}`;
    prev = a;
  }
  return { mode: AddressMode.BaseDelta, text };
}

const OPCODE_TOKEN = /^[A-Za-z][A-Za-z0-9_.]*$/;

function regList(regs: ArrayLike<number> | undefined, preds: ArrayLike<number> | undefined, what: string): string {
  const g = regs?.length ?? 0;
  const p = preds?.length ?? 0;
  let s = `${g + p}`;
  for (let i = 0; i < g; i++) {
    const r = regs![i]!;
    if (!Number.isInteger(r) || r < 0 || r > 255) throw new RangeError(`${what} register ${r} is outside 0..255`);
    s += ` R${r}`;
  }
  for (let i = 0; i < p; i++) {
    const r = preds![i]!;
    if (!Number.isInteger(r) || r < 0 || r > 7) throw new RangeError(`${what} predicate ${r} is outside 0..7`);
    s += r === 7 ? ' PT' : ` P${r}`;
  }
  return s;
}

/**
 * Formats one instruction line (without the line break) in the tracer-4 layout.
 *
 * @throws RangeError for an opcode that is not one token, a register outside its range, a
 *   negative or non-integer PC/width, or a bad address.
 */
export function formatInstructionLine(ins: WriterInstruction, lineinfo: boolean, compress = true): string {
  if (!OPCODE_TOKEN.test(ins.opcode)) throw new RangeError(`opcode '${ins.opcode}' is not one token [A-Za-z][A-Za-z0-9_.]*`);
  if (!Number.isSafeInteger(ins.pc) || ins.pc < 0) throw new RangeError(`pc ${ins.pc} is not a non-negative integer`);
  const width = ins.memWidth ?? 0;
  if (!Number.isInteger(width) || width < 0 || width > 1024) throw new RangeError(`memWidth ${width} is outside 0..1024`);
  let s = lineinfo ? `${ins.sourceLine ?? 0} ` : '';
  s += `${hex(ins.pc).padStart(4, '0')} ${hex(ins.activeMask >>> 0).padStart(8, '0')} `;
  s += regList(ins.dstRegs, ins.dstPreds, 'destination');
  s += ` ${ins.opcode} `;
  s += regList(ins.srcRegs, ins.srcPreds, 'source');
  s += ` ${width}`;
  if (width > 0) {
    if (!ins.addresses) throw new RangeError(`memory instruction ${ins.opcode} at pc ${ins.pc} has no addresses`);
    s += ' ' + chooseAddressMode(ins.activeMask, ins.addresses, compress).text;
  }
  return s + ' ';
}

/** Writes one kernel trace file; get one from {@link AccelSimTraceWriter.beginKernel}. */
export class KernelTraceWriter {
  private fd: number;
  private chunks: string[] = [];
  private pending = 0;
  private ctas = 0;
  private readonly gridCount: number;
  private readonly warpsPerCta: number;

  constructor(
    /** Path of the file written. */
    readonly path: string,
    private readonly header: WriterKernelHeader,
    private readonly compress: boolean,
  ) {
    const g = header.gridDim;
    const b = header.blockDim;
    this.gridCount = g.x * g.y * g.z;
    this.warpsPerCta = Math.ceil((b.x * b.y * b.z) / WARP_SIZE);
    if (/[\r\n]/.test(header.name) || header.name.trim() === '') throw new RangeError(`kernel name '${header.name}' is empty or has a line break`);
    this.fd = openSync(path, 'w');
    const addr = (v: number | undefined): string => `0x${hex(v ?? 0).padStart(16, '0')}`;
    this.put([
      `-kernel name = ${header.name}`,
      `-kernel id = ${header.id}`,
      `-grid dim = (${g.x},${g.y},${g.z})`,
      `-block dim = (${b.x},${b.y},${b.z})`,
      `-shmem = ${header.shmem ?? 0}`,
      `-nregs = ${header.nregs ?? 0}`,
      `-binary version = ${header.binaryVersion ?? 0}`,
      `-cuda stream id = ${header.cudaStreamId ?? 0}`,
      `-shmem base_addr = ${addr(header.shmemBaseAddr)}`,
      `-local mem base_addr = ${addr(header.localMemBaseAddr)}`,
      `-nvbit version = ${header.nvbitVersion ?? 'warpstate'}`,
      '-accelsim tracer version = 4',
      `-enable lineinfo = ${header.enableLineinfo ? 1 : 0}`,
      '',
      '#traces format = [line_num] PC mask dest_num [reg_dests] opcode src_num [reg_srcs] mem_width [adrrescompress?] [mem_addresses]',
      '',
      '',
      '',
    ].join('\n') + '\n');
  }

  private put(s: string): void {
    this.chunks.push(s);
    this.pending += s.length;
    if (this.pending >= 1 << 20) this.flush();
  }

  private flush(): void {
    if (this.chunks.length === 0) return;
    writeSync(this.fd, this.chunks.join(''), null, 'latin1');
    this.chunks = [];
    this.pending = 0;
  }

  /**
   * Writes one CTA: `warps[w]` holds warp w's instructions in program order.
   *
   * @throws RangeError for a CTA id outside the grid, more warps than the block has, more CTAs
   *   than the grid has, or a bad instruction (see {@link formatInstructionLine}).
   */
  writeCta(cta: WriterCta): void {
    if (this.fd < 0) throw new Error(`${this.path}: kernel already ended`);
    const g = this.header.gridDim;
    const id = cta.id;
    if (id.x >= g.x || id.y >= g.y || id.z >= g.z || id.x < 0 || id.y < 0 || id.z < 0) throw new RangeError(`CTA (${id.x},${id.y},${id.z}) is outside the grid`);
    if (cta.warps.length > this.warpsPerCta) throw new RangeError(`${cta.warps.length} warps but the block has ${this.warpsPerCta}`);
    if (this.ctas >= this.gridCount) throw new RangeError(`more CTAs than the grid's ${this.gridCount}`);
    this.ctas++;
    const lineinfo = this.header.enableLineinfo ?? false;
    let out = `${this.ctas > 1 ? '\n' : ''}#BEGIN_TB\n\nthread block = ${id.x},${id.y},${id.z}\n\n`;
    for (let w = 0; w < cta.warps.length; w++) {
      const lines: string[] = [];
      for (const ins of cta.warps[w]!) lines.push(formatInstructionLine(ins, lineinfo, this.compress));
      out += `warp = ${w}\ninsts = ${lines.length}\n`;
      if (lines.length > 0) out += lines.join('\n') + '\n';
      out += '\n';
    }
    out += '#END_TB\n';
    this.put(out);
  }

  /** Number of CTAs written so far. */
  get ctaCount(): number {
    return this.ctas;
  }

  /**
   * Flushes and closes the file.
   *
   * @throws RangeError if fewer CTAs than the grid has were written (the reader would refuse
   *   the file as truncated); the file is closed either way.
   */
  end(): void {
    if (this.fd < 0) return;
    this.flush();
    closeSync(this.fd);
    this.fd = -1;
    if (this.ctas !== this.gridCount) throw new RangeError(`${this.path}: ${this.ctas} CTAs written but the grid has ${this.gridCount}`);
  }
}

/**
 * Creates `dir` and its missing parents one level at a time. Node 20's
 * `mkdirSync(dir, { recursive: true })` never returns for a path under `/proc` (found by the fuzz
 * suite, test/fuzz); one `mkdirSync` per level fails at once with the OS error (ENOENT, ENOTDIR,
 * EACCES), which the caller reports with the path.
 * @throws the OS error of the first level that cannot be created
 */
function makeDirs(dir: string): void {
  if (existsSync(dir)) return;
  const parent = dirname(dir);
  if (parent !== dir) makeDirs(parent);
  mkdirSync(dir);
}

/**
 * Writes an Accel-Sim trace folder: `kernelslist.g` and `kernel-N.traceg` files. Commands are
 * appended to `kernelslist.g` as they are issued; call {@link close} at the end.
 */
export class AccelSimTraceWriter {
  private listFd: number;
  private kernels = 0;
  private current: KernelTraceWriter | undefined;

  /** @param dir output folder (created if missing). */
  constructor(readonly dir: string, private readonly options: WriterOptions = {}) {
    makeDirs(dir);
    this.listFd = openSync(join(dir, 'kernelslist.g'), 'w');
  }

  /** Appends `MemcpyHtoD,0x<16 hex digits>,<bytes>` to `kernelslist.g`. */
  memcpyHtoD(address: number, bytes: number): void {
    if (!Number.isSafeInteger(address) || address < 0 || !Number.isSafeInteger(bytes) || bytes < 0) {
      throw new RangeError(`memcpy ${address}, ${bytes} bytes: not non-negative integers`);
    }
    writeSync(this.listFd, `MemcpyHtoD,0x${hex(address).padStart(16, '0')},${bytes}\n`);
  }

  /**
   * Starts kernel N (N = 1, 2, ... in call order): lists `kernel-N.traceg` in `kernelslist.g`
   * and writes its header. The previous kernel, if still open, is ended first.
   */
  beginKernel(header: WriterKernelHeader): KernelTraceWriter {
    this.current?.end();
    const n = ++this.kernels;
    const name = `kernel-${n}.traceg`;
    const k = new KernelTraceWriter(join(this.dir, name), { ...header, id: header.id ?? n }, this.options.compress ?? true);
    writeSync(this.listFd, `${name}\n`);
    this.current = k;
    return k;
  }

  /** Ends the open kernel and closes `kernelslist.g`. */
  close(): void {
    if (this.listFd < 0) return;
    try {
      this.current?.end();
    } finally {
      closeSync(this.listFd);
      this.listFd = -1;
    }
  }
}

/** A whole kernel for {@link writeAccelSimTrace}. */
export interface WriterKernel {
  readonly header: WriterKernelHeader;
  readonly ctas: Iterable<WriterCta>;
}

/** A command list for {@link writeAccelSimTrace}, in order. */
export type WriterCommand = { readonly kind: 'memcpyHtoD'; readonly address: number; readonly bytes: number } | { readonly kind: 'kernel'; readonly kernel: WriterKernel };

/** Writes a whole trace folder from a command list (memcpys and kernels in launch order). */
export function writeAccelSimTrace(dir: string, commands: Iterable<WriterCommand>, options: WriterOptions = {}): void {
  const w = new AccelSimTraceWriter(dir, options);
  try {
    for (const c of commands) {
      if (c.kind === 'memcpyHtoD') w.memcpyHtoD(c.address, c.bytes);
      else {
        const k = w.beginKernel(c.kernel.header);
        for (const cta of c.kernel.ctas) k.writeCta(cta);
        k.end();
      }
    }
  } finally {
    w.close();
  }
}
