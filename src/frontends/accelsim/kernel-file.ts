/**
 * Lazy reader of one Accel-Sim kernel trace file (`kernel-N.traceg`, or `.traceg.xz`), GitHub
 * issue 5 item 1.
 *
 * Opening a kernel reads its header and makes one streaming pass over the file (1 MiB chunks,
 * bounded memory) that records, for each CTA (`#BEGIN_TB` ... `#END_TB`), its byte range, first
 * line, CTA id and instruction count, and checks the structure: `thread block`, `warp = n` and
 * `insts = k` lines where they belong, exactly k instruction lines per warp, every CTA closed,
 * as many CTAs as the grid has. Instruction lines are only counted in that pass (unless
 * `validate: 'full'`); {@link TraceKernel.cta} later reads one CTA's byte range alone and
 * decodes it, so a trace larger than memory can run CTA by CTA.
 *
 * Compressed files: node_modules has no pure-JS xz decoder and warpstate adds no dependency for
 * one, so a `.xz` file is decompressed by the system `xz -dc` into a private temporary file
 * (streamed, never held in memory) that is indexed and read like a plain file and deleted by
 * {@link TraceKernel.close}. Without an `xz` program the file is refused with an InputError.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InputError } from '../../errors.ts';
import { parseInstructionLine, scanInstructionLine, WARP_SIZE, type LineContext } from './instruction-line.ts';
import { archForBinaryVersion, SASS_ARCH_NAME, type SassArch, type SassOpcodeMapper } from './opcodes.ts';
import type { Dim3, TraceInstruction, TraceKernelHeader } from './types.ts';

/** Tracer versions this reader understands. */
export const SUPPORTED_TRACER_VERSIONS: readonly number[] = Object.freeze([3, 4]);

/** How much of a kernel file to check when it is opened. */
export type ValidateMode = 'structure' | 'full';

/** Options for opening a kernel trace. */
export interface KernelOpenOptions {
  /** Opcode lookup, shared across the kernels of a trace. */
  readonly mapper: SassOpcodeMapper;
  /** Opcode table to use instead of the one the header's `binary version` selects. */
  readonly arch?: SassArch;
  /**
   * `structure` (default): the open pass checks the CTA/warp structure and counts; instruction
   * lines are decoded when their CTA is read. `full`: every CTA is also decoded once at open, so
   * a malformed instruction line or an unknown opcode stops loading before any simulation.
   */
  readonly validate?: ValidateMode;
  /** Name to show for the file in errors (default: its path). */
  readonly displayName?: string;
  /** Chunk size of the streaming pass in bytes (default 1 MiB; tests use small values). */
  readonly chunkBytes?: number;
}

/**
 * One warp's dynamic instructions in a CTA, with a cursor for the issue stage:
 * {@link next} returns the instruction at the cursor and advances, {@link peek} looks at it.
 */
export class TraceWarp {
  private cursor = 0;

  constructor(
    /** Warp index within its CTA (`warp = n`). */
    readonly warpId: number,
    /** The instructions in program order. */
    readonly instructions: readonly TraceInstruction[],
  ) {}

  /** Number of instructions of the warp. */
  get length(): number {
    return this.instructions.length;
  }

  /** Index of the next instruction {@link next} returns. */
  get position(): number {
    return this.cursor;
  }

  /** True when every instruction has been taken. */
  get done(): boolean {
    return this.cursor >= this.instructions.length;
  }

  /** The instruction at the cursor without advancing, or `undefined` at the end. */
  peek(): TraceInstruction | undefined {
    return this.instructions[this.cursor];
  }

  /** The instruction at the cursor, advancing the cursor; `undefined` at the end. */
  next(): TraceInstruction | undefined {
    return this.cursor < this.instructions.length ? this.instructions[this.cursor++] : undefined;
  }

  /** Moves the cursor back to the first instruction. */
  reset(): void {
    this.cursor = 0;
  }
}

/** One CTA of a kernel, decoded. */
export interface TraceCta {
  /** Position of the CTA in the file (0-based), the argument of {@link TraceKernel.cta}. */
  readonly index: number;
  /** CTA id (`thread block = x,y,z`). */
  readonly id: Dim3;
  /** Warps indexed by warp id; `ceil(threads per CTA / 32)` of them (a warp the file omits is empty). */
  readonly warps: readonly TraceWarp[];
  /** Dynamic warp instructions of the CTA. */
  readonly instructionCount: number;
}

/**
 * One CTA decoded for the timing model ({@link TraceKernel.packedCta}): the dynamic instructions
 * of every warp in flat typed arrays, no object per instruction (a CTA stays resident for its
 * whole run, so per-instruction objects were the trace run's main garbage-collection load).
 * Warp `w`'s instructions are `first[w] .. first[w] + count[w] - 1`, in program order.
 */
export interface PackedTraceCta {
  /** Position of the CTA in the file (0-based). */
  readonly index: number;
  /** CTA id (`thread block = x,y,z`). */
  readonly id: Dim3;
  /** First instruction of each warp (indexed by warp id; `warpsPerCta` entries). */
  readonly first: Int32Array;
  /** Instructions of each warp (0 for a warp the file omits). */
  readonly count: Int32Array;
  /** PC (bytes) of each instruction. */
  readonly pc: Float64Array;
  /** Active mask of each instruction (bit l = lane l; read with `>>> 0` for the unsigned value). */
  readonly activeMask: Int32Array;
  /** Bytes per lane of each instruction, 0 for a non-memory instruction. */
  readonly memWidth: Uint16Array;
  /** Offset in {@link addresses} of a memory instruction's 32 lane addresses, -1 otherwise. */
  readonly addressAt: Int32Array;
  /** Lane addresses (bytes), 32 per memory instruction; inactive lanes are 0. */
  readonly addresses: Float64Array;
}

// ---------------------------------------------------------------------------------------------
// Line scanning
// ---------------------------------------------------------------------------------------------

/**
 * Calls `onLine(buf, start, end, lineNo, offset)` for every line of the file open on `fd`,
 * reading `chunkBytes` at a time. `[start, end)` is the line in `buf` without `\n` or a final
 * `\r`; `offset` is the byte offset of the line start in the file; `lineNo` is 1-based.
 * A line longer than the chunk grows the buffer. Returns the file size in bytes.
 */
function scanLines(fd: number, chunkBytes: number, onLine: (buf: Buffer, start: number, end: number, lineNo: number, offset: number) => void): number {
  let buf = Buffer.allocUnsafe(chunkBytes);
  let filled = 0; // bytes valid in buf
  let bufOffset = 0; // file offset of buf[0]
  let filePos = 0;
  let lineNo = 0;
  for (;;) {
    if (filled === buf.length) {
      const bigger = Buffer.allocUnsafe(buf.length * 2);
      buf.copy(bigger, 0, 0, filled);
      buf = bigger;
    }
    const got = readSync(fd, buf, filled, buf.length - filled, filePos);
    filePos += got;
    const end = filled + got;
    let pos = 0;
    for (;;) {
      const nl = buf.indexOf(10, pos);
      if (nl < 0 || nl >= end) break;
      let e = nl;
      if (e > pos && buf[e - 1] === 13) e--;
      onLine(buf, pos, e, ++lineNo, bufOffset + pos);
      pos = nl + 1;
    }
    if (got === 0) {
      if (pos < end) {
        let e = end;
        if (buf[e - 1] === 13) e--;
        onLine(buf, pos, e, ++lineNo, bufOffset + pos);
      }
      return filePos;
    }
    // keep the partial last line
    buf.copy(buf, 0, pos, end);
    bufOffset += pos;
    filled = end - pos;
  }
}

const startsWith = (buf: Buffer, start: number, end: number, prefix: string): boolean => {
  if (end - start < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (buf[start + i] !== prefix.charCodeAt(i)) return false;
  return true;
};

/** Where the first instance of each PC sits in the file (parallel arrays, in file order). */
interface FirstPcLines {
  readonly pcs: number[];
  /** Byte offset of the line's first non-blank character. */
  readonly offsets: number[];
  /** Bytes of the line from that offset, without its line break. */
  readonly lengths: number[];
  /** 1-based line numbers. */
  readonly lineNos: number[];
}

const hexDigit = (c: number): number => (c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : c >= 65 && c <= 70 ? c - 55 : -1);

/**
 * The PC of the instruction line `buf[s, end)` (after the decimal line number when `lineinfo`),
 * or -1 when it does not read as one: then the full decode of its CTA reports the field.
 */
function linePc(buf: Buffer, s: number, end: number, lineinfo: boolean): number {
  let i = s;
  if (lineinfo) {
    while (i < end && buf[i]! >= 48 && buf[i]! <= 57) i++;
    while (i < end && (buf[i] === 32 || buf[i] === 9)) i++;
  }
  if (buf[i] === 48 && (buf[i + 1]! | 32) === 120) i += 2;
  const start = i;
  let v = 0;
  for (; i < end; i++) {
    const d = hexDigit(buf[i]!);
    if (d < 0) break;
    v = v * 16 + d;
  }
  if (i === start || (i < end && buf[i] !== 32 && buf[i] !== 9) || v > Number.MAX_SAFE_INTEGER) return -1;
  return v;
}

const THREAD_BLOCK = /^thread block\s*=\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*$/;
const WARP_LINE = /^warp\s*=\s*(\d+)\s*$/;
const INSTS_LINE = /^insts\s*=\s*(\d+)\s*$/;
const DIM3 = /^\(\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*\)$/;

// ---------------------------------------------------------------------------------------------
// Header
// ---------------------------------------------------------------------------------------------

interface HeaderEntry {
  readonly value: string;
  readonly line: number;
}

function parseHeader(entries: Map<string, HeaderEntry>, file: string, endLine: number): TraceKernelHeader {
  const need = (key: string): HeaderEntry => {
    const e = entries.get(key);
    if (!e) throw new InputError({ file, line: endLine }, `the kernel header has no '-${key} = ...' line`, key);
    return e;
  };
  const uint = (key: string, required: boolean, fallback = 0): number => {
    const e = required ? need(key) : entries.get(key);
    if (!e) return fallback;
    if (!/^\d+$/.test(e.value)) throw new InputError({ file, line: e.line }, `expected a decimal integer, got '${e.value}'`, key);
    const v = Number(e.value);
    if (!Number.isSafeInteger(v)) throw new InputError({ file, line: e.line }, `'${e.value}' is above 2^53`, key);
    return v;
  };
  const hexAddr = (key: string): number => {
    const e = entries.get(key);
    if (!e) return 0;
    const m = /^0[xX]([0-9a-fA-F]+)$/.exec(e.value);
    if (!m) throw new InputError({ file, line: e.line }, `expected a hex address 0x..., got '${e.value}'`, key);
    const v = parseInt(m[1]!, 16);
    if (!Number.isSafeInteger(v)) throw new InputError({ file, line: e.line }, `'${e.value}' is above 2^53`, key);
    return v;
  };
  const dim = (key: string): Dim3 => {
    const e = need(key);
    const m = DIM3.exec(e.value);
    if (!m) throw new InputError({ file, line: e.line }, `expected '(x,y,z)', got '${e.value}'`, key);
    const d = { x: Number(m[1]), y: Number(m[2]), z: Number(m[3]) };
    if (d.x < 1 || d.y < 1 || d.z < 1) throw new InputError({ file, line: e.line }, 'every dimension must be at least 1', key);
    if (d.x * d.y * d.z > 2 ** 40) throw new InputError({ file, line: e.line }, 'more than 2^40 elements', key);
    return Object.freeze(d);
  };
  const version = uint('accelsim tracer version', true);
  if (!SUPPORTED_TRACER_VERSIONS.includes(version)) {
    throw new InputError({ file, line: need('accelsim tracer version').line },
      `unsupported Accel-Sim tracer version ${version} (supported: ${SUPPORTED_TRACER_VERSIONS.join(', ')})`, 'accelsim tracer version');
  }
  const lineinfo = uint('enable lineinfo', false);
  if (lineinfo > 1) throw new InputError({ file, line: entries.get('enable lineinfo')!.line }, `expected 0 or 1, got ${lineinfo}`, 'enable lineinfo');
  const blockDim = dim('block dim');
  const threads = blockDim.x * blockDim.y * blockDim.z;
  if (threads > 1024 * 1024) throw new InputError({ file, line: need('block dim').line }, `${threads} threads per CTA is not a CUDA block`, 'block dim');
  const known = new Set(['kernel name', 'kernel id', 'grid dim', 'block dim', 'shmem', 'nregs', 'binary version', 'cuda stream id',
    'shmem base_addr', 'local mem base_addr', 'nvbit version', 'accelsim tracer version', 'enable lineinfo']);
  const extra: Record<string, string> = {};
  for (const [k, e] of entries) if (!known.has(k)) extra[k] = e.value;
  return Object.freeze({
    name: need('kernel name').value,
    id: uint('kernel id', true),
    gridDim: dim('grid dim'),
    blockDim,
    shmem: uint('shmem', false),
    nregs: uint('nregs', false),
    binaryVersion: uint('binary version', true),
    cudaStreamId: uint('cuda stream id', false),
    shmemBaseAddr: hexAddr('shmem base_addr'),
    localMemBaseAddr: hexAddr('local mem base_addr'),
    nvbitVersion: entries.get('nvbit version')?.value ?? '',
    tracerVersion: version,
    enableLineinfo: lineinfo === 1,
    extra: Object.freeze(extra),
  });
}

// ---------------------------------------------------------------------------------------------
// The kernel
// ---------------------------------------------------------------------------------------------

/**
 * A kernel trace, indexed by CTA and read lazily. Create with {@link openKernelTrace}; call
 * {@link close} when done (closes the file and deletes the temporary file of an `.xz` trace).
 */
export class TraceKernel {
  /** Bytes read by {@link cta} calls so far (the open pass is not counted). */
  bytesRead = 0;
  /** Number of {@link cta} calls so far. */
  ctaReads = 0;
  private fd: number;

  constructor(
    /** The header. */
    readonly header: TraceKernelHeader,
    /** File name used in errors. */
    readonly file: string,
    /** Path of the file read (the temporary file for `.xz`). */
    readonly readPath: string,
    /** Size of the (decompressed) file in bytes. */
    readonly fileBytes: number,
    /** Opcode table used. */
    readonly arch: SassArch,
    /** Warps per CTA: `ceil(threads per CTA / 32)`. */
    readonly warpsPerCta: number,
    /** Total dynamic warp instructions of the kernel (sum of every `insts = k`). */
    readonly instructionCount: number,
    private readonly ctaStart: readonly number[],
    private readonly ctaEnd: readonly number[],
    private readonly ctaLine: readonly number[],
    private readonly ctaIds: readonly Dim3[],
    private readonly ctaInsts: readonly number[],
    private readonly firstPcLines: FirstPcLines,
    private readonly ctx: LineContext,
    private readonly tempDir: string | undefined,
    fd: number,
  ) {
    this.fd = fd;
  }

  /** Number of CTAs in the file (equal to the grid size). */
  get ctaCount(): number {
    return this.ctaStart.length;
  }

  /** CTA id of the `index`-th CTA of the file, without reading it. */
  ctaId(index: number): Dim3 {
    this.checkIndex(index);
    return this.ctaIds[index]!;
  }

  /** Dynamic warp instructions of the `index`-th CTA, without reading it. */
  ctaInstructionCount(index: number): number {
    this.checkIndex(index);
    return this.ctaInsts[index]!;
  }

  /** Byte range `[start, end)` of the `index`-th CTA in the (decompressed) file. */
  ctaByteRange(index: number): readonly [number, number] {
    this.checkIndex(index);
    return [this.ctaStart[index]!, this.ctaEnd[index]!];
  }

  private checkIndex(index: number): void {
    if (!Number.isInteger(index) || index < 0 || index >= this.ctaStart.length) {
      throw new RangeError(`CTA index ${index} is outside 0..${this.ctaStart.length - 1}`);
    }
  }

  /**
   * Reads and decodes the `index`-th CTA of the file (only its byte range is read). Each call
   * reads the file again and returns fresh warps with their cursors at the start.
   *
   * @throws InputError for a malformed instruction line or an unknown opcode (`error` policy),
   *   naming the file, line and column; RangeError for an index outside `0..ctaCount-1`;
   *   Error if the kernel was closed.
   */
  cta(index: number): TraceCta {
    return this.decodeCta(index, this.readCtaText(index));
  }

  /**
   * The first dynamic instance (in file order) of every PC of the kernel, decoded, keyed by PC:
   * the static code, found by the open pass without decoding every CTA (only one line per PC is
   * read and decoded here). A line whose PC the open pass could not read is left out; reading its
   * CTA reports the malformed field.
   *
   * @throws InputError for a malformed first line of a PC (file, line, column, field);
   *   Error if the kernel was closed.
   */
  staticInstructions(): Map<number, TraceInstruction> {
    if (this.fd < 0) throw new Error(`${this.file}: kernel trace is closed`);
    const out = new Map<number, TraceInstruction>();
    const t = this.firstPcLines;
    for (let i = 0; i < t.pcs.length; i++) {
      const len = t.lengths[i]!;
      const buf = Buffer.allocUnsafe(len);
      let got = 0;
      while (got < len) {
        const n = readSync(this.fd, buf, got, len - got, t.offsets[i]! + got);
        if (n === 0) throw new InputError({ file: this.file, line: t.lineNos[i]! }, 'the file changed or shrank after it was indexed');
        got += n;
      }
      out.set(t.pcs[i]!, parseInstructionLine(buf.toString('latin1'), t.lineNos[i]!, this.ctx));
    }
    return out;
  }

  /**
   * Reads and decodes the `index`-th CTA into flat arrays ({@link PackedTraceCta}): the timing
   * model's path, with the same checks as {@link cta} except the opcode lookup (the PC's static
   * instruction, from {@link staticInstructions}, has it).
   *
   * @throws InputError for a malformed instruction line (file, line, column, field);
   *   RangeError for an index outside `0..ctaCount-1`; Error if the kernel was closed.
   */
  packedCta(index: number): PackedTraceCta {
    const text = this.readCtaText(index);
    const firstLine = this.ctaLine[index]!;
    const n = this.ctaInsts[index]!;
    const warps = this.warpsPerCta;
    const first = new Int32Array(warps);
    const count = new Int32Array(warps);
    const pc = new Float64Array(n);
    const activeMask = new Int32Array(n);
    const memWidth = new Uint16Array(n);
    const addressAt = new Int32Array(n);
    let addresses = new Float64Array(WARP_SIZE * Math.min(Math.max(n, 1), 64));
    let addrUsed = 0;
    let warp = -1;
    let k = 0;
    let lineNo = firstLine - 1;
    const file = this.file;
    for (let start = 0; start < text.length; ) {
      let end = text.indexOf('\n', start);
      if (end < 0) end = text.length;
      const next = end + 1;
      lineNo++;
      if (end > start && text.charCodeAt(end - 1) === 13) end--;
      let s0 = start;
      while (s0 < end && (text.charCodeAt(s0) === 32 || text.charCodeAt(s0) === 9)) s0++;
      const c0 = s0 < end ? text.charCodeAt(s0) : -1;
      const hexDigit = (c0 >= 48 && c0 <= 57) || (c0 >= 97 && c0 <= 102) || (c0 >= 65 && c0 <= 70);
      if (!hexDigit || text.startsWith('insts', s0)) {
        if (c0 === 119 /* w */ && text.startsWith('warp', s0)) {
          const m = WARP_LINE.exec(text.slice(s0, end).trimEnd());
          if (!m) throw new InputError({ file, line: lineNo }, `malformed warp line '${text.slice(s0, end)}'`, 'warp');
          warp = Number(m[1]);
          if (warp >= warps) throw new InputError({ file, line: lineNo }, `warp ${warp} is outside 0..${warps - 1}`, 'warp');
          first[warp] = k;
        }
        // '#', 'thread block', 'insts' and blank lines: checked by the open pass
        start = next;
        continue;
      }
      if (warp < 0) throw new InputError({ file, line: lineNo }, 'instruction line before any warp line', 'warp');
      if (k >= n) throw new InputError({ file, line: lineNo }, 'the file changed after it was indexed (more instruction lines)', 'insts');
      if (addrUsed + WARP_SIZE > addresses.length) {
        const bigger = new Float64Array(addresses.length * 2);
        bigger.set(addresses);
        addresses = bigger;
      }
      const line = scanInstructionLine(text, s0, end, lineNo, this.ctx, addresses, addrUsed);
      pc[k] = line.pc;
      activeMask[k] = line.activeMask | 0;
      memWidth[k] = line.memWidth;
      if (line.memWidth > 0) {
        addressAt[k] = addrUsed;
        addrUsed += WARP_SIZE;
      } else {
        addressAt[k] = -1;
      }
      count[warp]!++;
      k++;
      start = next;
    }
    if (k !== n) throw new InputError({ file, line: firstLine }, `the file changed after it was indexed (${k} of ${n} instruction lines)`, 'insts');
    return { index, id: this.ctaIds[index]!, first, count, pc, activeMask, memWidth, addressAt, addresses };
  }

  /** The `index`-th CTA's text (its byte range only). */
  private readCtaText(index: number): string {
    this.checkIndex(index);
    if (this.fd < 0) throw new Error(`${this.file}: kernel trace is closed`);
    const start = this.ctaStart[index]!;
    const len = this.ctaEnd[index]! - start;
    const buf = Buffer.allocUnsafe(len);
    let got = 0;
    while (got < len) {
      const n = readSync(this.fd, buf, got, len - got, start + got);
      if (n === 0) throw new InputError({ file: this.file, line: this.ctaLine[index] }, 'the file changed or shrank after it was indexed');
      got += n;
    }
    this.bytesRead += len;
    this.ctaReads++;
    return buf.toString('latin1');
  }

  /** Iterates over every CTA in file order, reading one at a time. */
  *ctas(): IterableIterator<TraceCta> {
    for (let i = 0; i < this.ctaStart.length; i++) yield this.cta(i);
  }

  private decodeCta(index: number, text: string): TraceCta {
    const lines = text.split('\n');
    const firstLine = this.ctaLine[index]!;
    const file = this.file;
    const lists: TraceInstruction[][] = [];
    for (let w = 0; w < this.warpsPerCta; w++) lists.push([]);
    let warp = -1;
    let expected = 0;
    let total = 0;
    for (let i = 0; i < lines.length; i++) {
      let line = lines[i]!;
      if (line.length > 0 && line.charCodeAt(line.length - 1) === 13) line = line.slice(0, -1);
      const lineNo = firstLine + i;
      const c0 = line.charCodeAt(0);
      // instruction lines start with a hex digit (PC) or a decimal digit (line_num): test them first
      const hexDigit = (c0 >= 48 && c0 <= 57) || (c0 >= 97 && c0 <= 102) || (c0 >= 65 && c0 <= 70);
      if (!hexDigit || line.startsWith('insts')) {
        if (line.length === 0 || c0 === 35 /* # */ || line.startsWith('thread block') || line.trim() === '') continue;
        if (line.startsWith('warp')) {
          const m = WARP_LINE.exec(line);
          if (!m) throw new InputError({ file, line: lineNo }, `malformed warp line '${line}'`, 'warp');
          warp = Number(m[1]);
          if (warp >= this.warpsPerCta) throw new InputError({ file, line: lineNo }, `warp ${warp} is outside 0..${this.warpsPerCta - 1}`, 'warp');
          continue;
        }
        if (line.startsWith('insts')) {
          const m = INSTS_LINE.exec(line);
          if (!m) throw new InputError({ file, line: lineNo }, `malformed insts line '${line}'`, 'insts');
          expected = Number(m[1]);
          continue;
        }
      }
      if (warp < 0) throw new InputError({ file, line: lineNo }, 'instruction line before any warp line', 'warp');
      const list = lists[warp]!;
      if (list.length >= expected) throw new InputError({ file, line: lineNo }, `warp ${warp} has more than insts = ${expected} instruction lines`, 'insts');
      list.push(parseInstructionLine(line, lineNo, this.ctx));
      total++;
    }
    return Object.freeze({
      index,
      id: this.ctaIds[index]!,
      warps: Object.freeze(lists.map((l, w) => new TraceWarp(w, l))),
      instructionCount: total,
    });
  }

  /** Closes the file and deletes the temporary file of an `.xz` trace. Safe to call twice. */
  close(): void {
    if (this.fd >= 0) {
      closeSync(this.fd);
      this.fd = -1;
    }
    if (this.tempDir !== undefined) rmSync(this.tempDir, { recursive: true, force: true });
  }
}

/**
 * Decompresses an `.xz` file with the system `xz -dc` into a new temporary directory.
 *
 * @returns the temporary directory and the decompressed file in it.
 * @throws InputError when no `xz` program exists or `xz` fails (corrupt or truncated stream).
 */
function decompressXz(path: string, file: string): { dir: string; out: string } {
  const dir = mkdtempSync(join(tmpdir(), 'warpstate-xz-'));
  const out = join(dir, 'kernel.traceg');
  const fd = openSync(out, 'w');
  let result;
  try {
    result = spawnSync('xz', ['-dc', '--', path], { stdio: ['ignore', fd, 'pipe'] });
  } finally {
    closeSync(fd);
  }
  if (result.error || result.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    const code = (result.error as NodeJS.ErrnoException | undefined)?.code;
    if (code === 'ENOENT') {
      throw new InputError({ file }, 'cannot read an .xz trace: no pure-JS xz decoder is installed and no `xz` program is on PATH (decompress it with `xz -d` first)');
    }
    const msg = result.error ? String(result.error.message) : (result.stderr?.toString('utf8').trim() || `exit status ${result.status}`);
    throw new InputError({ file }, `xz could not decompress the trace: ${msg}`);
  }
  return { dir, out };
}

/**
 * Opens a kernel trace file: reads the header, indexes the CTAs in one streaming pass and checks
 * the structure (see the module comment).
 *
 * @param path path of `kernel-N.traceg` or `kernel-N.traceg.xz`.
 * @throws InputError naming the file and line for: an unreadable file, a malformed or missing
 *   header field, an unsupported tracer version, a binary version without an opcode table (and
 *   no `arch` option), a misplaced `thread block`/`warp`/`insts` line, a warp with a different
 *   number of instruction lines than its `insts = k`, a CTA not closed by `#END_TB` (truncated
 *   file), a CTA count different from the grid size; with `validate: 'full'` also every error
 *   of {@link TraceKernel.cta}.
 */
export function openKernelTrace(path: string, options: KernelOpenOptions): TraceKernel {
  const file = options.displayName ?? path;
  let readPath = path;
  let tempDir: string | undefined;
  if (path.endsWith('.xz')) {
    const x = decompressXz(path, file);
    tempDir = x.dir;
    readPath = x.out;
  }
  let fd: number;
  try {
    fd = openSync(readPath, 'r');
  } catch (e) {
    if (tempDir) rmSync(tempDir, { recursive: true, force: true });
    throw new InputError({ file }, `cannot open the kernel trace: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
  }
  try {
    return indexKernel(fd, path, file, readPath, tempDir, options);
  } catch (e) {
    closeSync(fd);
    if (tempDir) rmSync(tempDir, { recursive: true, force: true });
    throw e;
  }
}

function indexKernel(fd: number, _path: string, file: string, readPath: string, tempDir: string | undefined, options: KernelOpenOptions): TraceKernel {
  const entries = new Map<string, HeaderEntry>();
  let header: TraceKernelHeader | undefined;
  let warpsPerCta = 0;
  let gridCount = 0;
  let lastLine = 0;
  // CTA index
  const ctaStart: number[] = [];
  const ctaEnd: number[] = [];
  const ctaLine: number[] = [];
  const ctaIds: Dim3[] = [];
  const ctaInsts: number[] = [];
  const seenIds = new Set<number>();
  const pcSeen = new Set<number>();
  const firstPcLines: FirstPcLines = { pcs: [], offsets: [], lengths: [], lineNos: [] };
  // state inside a CTA
  let inCta = false;
  let beginLine = 0;
  let beginOffset = 0;
  let ctaId: Dim3 | undefined;
  let warp = -1;
  let warpsSeen: Uint8Array = new Uint8Array(0);
  let expected = -1;
  let instsLine = 0;
  let count = 0;
  let ctaCount = 0;

  const err = (line: number, reason: string, field?: string): never => {
    throw new InputError({ file, line }, reason, field);
  };
  const closeWarp = (): void => {
    if (warp >= 0 && count !== expected) {
      err(instsLine, `warp ${warp} declares insts = ${expected} but has ${count} instruction line${count === 1 ? '' : 's'}`, 'insts');
    }
  };
  const finishHeader = (line: number): void => {
    header = parseHeader(entries, file, line);
    const threads = header.blockDim.x * header.blockDim.y * header.blockDim.z;
    warpsPerCta = Math.ceil(threads / WARP_SIZE);
    gridCount = header.gridDim.x * header.gridDim.y * header.gridDim.z;
  };

  const fileBytes = scanLines(fd, options.chunkBytes ?? 1 << 20, (buf, start, end, lineNo, offset) => {
    lastLine = lineNo;
    // skip blank lines
    let s = start;
    while (s < end && (buf[s] === 32 || buf[s] === 9)) s++;
    if (s === end) return;
    const c0 = buf[s]!;
    if (header === undefined) {
      if (c0 === 45 /* - */) {
        const text = buf.toString('latin1', s + 1, end);
        const eq = text.indexOf('=');
        if (eq < 0) err(lineNo, `malformed header line '-${text}' (expected '-key = value')`, 'header');
        const key = text.slice(0, eq).trim().replace(/\s+/g, ' ');
        entries.set(key, { value: text.slice(eq + 1).trim(), line: lineNo });
        return;
      }
      if (c0 === 35 /* # */) {
        finishHeader(lineNo);
        // fall through: this '#' line may itself be #BEGIN_TB
      } else {
        err(lineNo, `expected a '-key = value' header line or '#', got '${buf.toString('latin1', s, Math.min(end, s + 40))}'`, 'header');
      }
    }
    if (c0 === 35 /* # */) {
      if (startsWith(buf, s, end, '#BEGIN_TB')) {
        if (inCta) err(lineNo, `#BEGIN_TB before the CTA opened at line ${beginLine} ends (no #END_TB)`, '#BEGIN_TB');
        inCta = true;
        beginLine = lineNo;
        beginOffset = offset;
        ctaId = undefined;
        warp = -1;
        expected = -1;
        count = 0;
        ctaCount = 0;
        warpsSeen = new Uint8Array(warpsPerCta);
      } else if (startsWith(buf, s, end, '#END_TB')) {
        if (!inCta) err(lineNo, '#END_TB without #BEGIN_TB', '#END_TB');
        if (ctaId === undefined) err(lineNo, `the CTA opened at line ${beginLine} has no 'thread block = x,y,z' line`, 'thread block');
        closeWarp();
        let nl = offset + (end - start);
        if (buf[end] === 13) nl++;
        ctaStart.push(beginOffset);
        ctaEnd.push(nl + 1);
        ctaLine.push(beginLine);
        ctaIds.push(ctaId!);
        ctaInsts.push(ctaCount);
        inCta = false;
      }
      return; // other '#' lines are comments
    }
    if (c0 === 45 /* - */) err(lineNo, 'header line after the instruction stream started', 'header');
    if (!inCta) err(lineNo, `line outside a #BEGIN_TB ... #END_TB block: '${buf.toString('latin1', s, Math.min(end, s + 40))}'`, 'line');
    if (c0 === 116 /* t */ && startsWith(buf, s, end, 'thread block')) {
      const text = buf.toString('latin1', s, end).trimEnd();
      const m = THREAD_BLOCK.exec(text);
      if (!m) err(lineNo, `malformed '${text}' (expected 'thread block = x,y,z')`, 'thread block');
      if (ctaId !== undefined) err(lineNo, 'second thread block line in one CTA', 'thread block');
      const g = header!.gridDim;
      const id = { x: Number(m![1]), y: Number(m![2]), z: Number(m![3]) };
      if (id.x >= g.x || id.y >= g.y || id.z >= g.z) err(lineNo, `CTA (${id.x},${id.y},${id.z}) is outside the grid (${g.x},${g.y},${g.z})`, 'thread block');
      const linear = id.x + g.x * (id.y + g.y * id.z);
      if (seenIds.has(linear)) err(lineNo, `CTA (${id.x},${id.y},${id.z}) appears twice`, 'thread block');
      seenIds.add(linear);
      ctaId = Object.freeze(id);
      return;
    }
    if (c0 === 119 /* w */ && startsWith(buf, s, end, 'warp')) {
      const text = buf.toString('latin1', s, end).trimEnd();
      const m = WARP_LINE.exec(text);
      if (!m) err(lineNo, `malformed '${text}' (expected 'warp = n')`, 'warp');
      if (ctaId === undefined) err(lineNo, 'warp line before the thread block line', 'warp');
      closeWarp();
      warp = Number(m![1]);
      if (warp >= warpsPerCta) err(lineNo, `warp ${warp} is outside 0..${warpsPerCta - 1} (block dim has ${warpsPerCta} warps)`, 'warp');
      if (warpsSeen[warp]) err(lineNo, `warp ${warp} appears twice in one CTA`, 'warp');
      warpsSeen[warp] = 1;
      expected = -1;
      count = 0;
      return;
    }
    if (c0 === 105 /* i */ && startsWith(buf, s, end, 'insts')) {
      const text = buf.toString('latin1', s, end).trimEnd();
      const m = INSTS_LINE.exec(text);
      if (!m) err(lineNo, `malformed '${text}' (expected 'insts = k')`, 'insts');
      if (warp < 0 || expected >= 0) err(lineNo, "insts line without a preceding 'warp = n' line", 'insts');
      expected = Number(m![1]);
      instsLine = lineNo;
      return;
    }
    // an instruction line
    if (warp < 0 || expected < 0) err(lineNo, "instruction line before the warp's 'warp = n' and 'insts = k' lines", 'insts');
    count++;
    ctaCount++;
    if (count > expected) err(lineNo, `warp ${warp} has more instruction lines than its insts = ${expected} (line ${instsLine})`, 'insts');
    const pc = linePc(buf, s, end, header!.enableLineinfo);
    if (pc >= 0 && !pcSeen.has(pc)) {
      pcSeen.add(pc);
      firstPcLines.pcs.push(pc);
      firstPcLines.offsets.push(offset + (s - start));
      firstPcLines.lengths.push(end - s);
      firstPcLines.lineNos.push(lineNo);
    }
  });

  if (header === undefined) {
    if (entries.size === 0) err(Math.max(lastLine, 1), 'empty kernel trace (no header)', 'header');
    finishHeader(lastLine);
  }
  if (inCta) {
    err(lastLine, `truncated file: the CTA opened at line ${beginLine} has no #END_TB` +
      (warp >= 0 && count !== expected ? ` (warp ${warp} has ${count} of its insts = ${expected} lines)` : ''), '#END_TB');
  }
  const h = header!;
  for (let i = 0; i < ctaEnd.length; i++) if (ctaEnd[i]! > fileBytes) ctaEnd[i] = fileBytes;
  if (ctaStart.length !== gridCount) {
    err(lastLine, `the grid (${h.gridDim.x},${h.gridDim.y},${h.gridDim.z}) has ${gridCount} CTAs but the file holds ${ctaStart.length} (truncated trace?)`, 'grid dim');
  }
  let arch = options.arch;
  if (arch === undefined) {
    arch = archForBinaryVersion(h.binaryVersion);
    if (arch === undefined) {
      err(entries.get('binary version')?.line ?? 1, `no SASS opcode table for binary version ${h.binaryVersion} (tables: Kepler 3x, Maxwell/Pascal 5x-6x, Volta 70-72, Turing 75, Ampere 8x); name the architecture with the 'arch' option`, 'binary version');
    }
  }
  const ctx: LineContext = { file, lineinfo: h.enableLineinfo, arch: arch!, mapper: options.mapper };
  let total = 0;
  for (const n of ctaInsts) total += n;
  const kernel = new TraceKernel(h, file, readPath, fileBytes, arch!, warpsPerCta, total, ctaStart, ctaEnd, ctaLine, ctaIds, ctaInsts, firstPcLines, ctx, tempDir, fd);
  if (options.validate === 'full') {
    for (let i = 0; i < kernel.ctaCount; i++) kernel.cta(i);
    kernel.bytesRead = 0;
    kernel.ctaReads = 0;
  }
  return kernel;
}

/** Name of the opcode table a kernel uses (`pascal`, ...). */
export function kernelArchName(kernel: TraceKernel): string {
  return SASS_ARCH_NAME[kernel.arch]!;
}
