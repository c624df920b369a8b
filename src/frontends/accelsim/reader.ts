/**
 * Entry point of the Accel-Sim trace front end (GitHub issue 5 item 1 and the summary API the
 * timing model integrates): {@link openAccelSimTrace} reads `kernelslist.g` and opens every
 * kernel trace it names, lazily (see `kernel-file.ts`).
 *
 * `kernelslist.g` (Accel-Sim tracer post-processing output): one command per line, in launch
 * order; blank lines and `#` comments are skipped:
 * - `MemcpyHtoD,<hex device address>,<decimal bytes>`: a host-to-device copy;
 * - a kernel trace file name ending in `.traceg` or `.traceg.xz`, relative to the list's folder.
 * Anything else is refused (Accel-Sim skips unknown lines silently; warpstate says which line).
 */
import { existsSync, statSync } from 'node:fs';
import { readInputText } from '../../scenario/yaml-source.ts';
import { basename, dirname, join, resolve } from 'node:path';
import { InputError } from '../../errors.ts';
import { openKernelTrace, type TraceKernel, type ValidateMode } from './kernel-file.ts';
import { loadTraceConfig, SassOpcodeMapper, type SassArch, type UnitTimingTable, type UnknownOpcodePolicy } from './opcodes.ts';
import type { KernelCommand, TraceCommand } from './types.ts';

/** Options of {@link openAccelSimTrace}. */
export interface AccelSimOpenOptions {
  /** Unknown opcodes: refuse with an InputError (`error`, default) or run as ALU and count (`alu`). */
  readonly unknownOpcode?: UnknownOpcodePolicy;
  /** Opcode table for every kernel, instead of the one each header's `binary version` selects. */
  readonly arch?: SassArch;
  /** Unit latencies: a `trace.config` path or a parsed table; default per-architecture built-ins. */
  readonly traceConfig?: string | UnitTimingTable;
  /** How much to check at open (see `ValidateMode`); default `structure`. */
  readonly validate?: ValidateMode;
  /** Chunk size of the streaming index pass in bytes (default 1 MiB). */
  readonly chunkBytes?: number;
}

/** An opened trace: its commands and its kernels. */
export interface AccelSimTrace {
  /** Path of the `kernelslist.g` read. */
  readonly kernelslist: string;
  /** Commands in file order (memcpys and kernel launches). */
  readonly commands: readonly TraceCommand[];
  /** Kernels in launch order (`commands` entries of kind `kernel` point here by `kernelIndex`). */
  readonly kernels: readonly TraceKernel[];
  /** Opcode lookup shared by the kernels: unknown opcodes seen so far are in `mapper.unknown`. */
  readonly mapper: SassOpcodeMapper;
  /** Dynamic warp instructions over all kernels. */
  readonly instructionCount: number;
  /** Closes every kernel file (and deletes temporary files of `.xz` traces). */
  close(): void;
}

const HEX_ADDR = /^0[xX][0-9a-fA-F]+$/;

/**
 * Parses `kernelslist.g` text.
 *
 * @param dir folder that kernel file names are relative to.
 * @throws InputError naming the file and line for a malformed memcpy line or an unrecognised
 *   line.
 */
export function parseKernelsList(text: string, file: string, dir: string): TraceCommand[] {
  const out: TraceCommand[] = [];
  const lines = text.split(/\r?\n/);
  let kernels = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    const lineNo = i + 1;
    if (line === '' || line.startsWith('#')) continue;
    if (line.startsWith('MemcpyHtoD')) {
      const parts = line.split(',').map((p) => p.trim());
      if (parts.length !== 3 || parts[0] !== 'MemcpyHtoD') {
        throw new InputError({ file, line: lineNo }, `expected 'MemcpyHtoD,<hex address>,<bytes>', got '${line}'`, 'MemcpyHtoD');
      }
      if (!HEX_ADDR.test(parts[1]!)) throw new InputError({ file, line: lineNo }, `expected a hex address 0x..., got '${parts[1]}'`, 'MemcpyHtoD.address');
      if (!/^\d+$/.test(parts[2]!)) throw new InputError({ file, line: lineNo }, `expected a decimal byte count, got '${parts[2]}'`, 'MemcpyHtoD.bytes');
      const address = parseInt(parts[1]!.slice(2), 16);
      const bytes = Number(parts[2]);
      if (!Number.isSafeInteger(address) || !Number.isSafeInteger(bytes)) throw new InputError({ file, line: lineNo }, 'value above 2^53', 'MemcpyHtoD');
      out.push(Object.freeze({ kind: 'memcpyHtoD', address, bytes, line: lineNo }));
      continue;
    }
    if (/\.traceg(\.xz)?$/.test(line) && !/[\s,]/.test(line)) {
      out.push(Object.freeze({ kind: 'kernel', file: line, path: resolve(dir, line), kernelIndex: kernels++, line: lineNo }));
      continue;
    }
    throw new InputError({ file, line: lineNo }, `unrecognised command '${line}' (expected 'MemcpyHtoD,<address>,<bytes>' or a kernel-N.traceg[.xz] file name)`, 'command');
  }
  return out;
}

/**
 * Opens an Accel-Sim trace: `kernelslist.g` and every kernel trace it lists (headers read, CTAs
 * indexed, instructions decoded lazily by `kernel.cta(i)`).
 *
 * @param dirOrList the trace folder (holding `kernelslist.g`) or the `kernelslist.g` file itself.
 * @throws InputError naming file and line for: a missing `kernelslist.g`, a malformed command,
 *   a kernel file that does not exist (at the `kernelslist.g` line naming it), and every error
 *   of `openKernelTrace` (bad header, unsupported tracer version, wrong instruction counts,
 *   truncated file, ...).
 */
export function openAccelSimTrace(dirOrList: string, options: AccelSimOpenOptions = {}): AccelSimTrace {
  let list = dirOrList;
  if (existsSync(dirOrList) && statSync(dirOrList).isDirectory()) list = join(dirOrList, 'kernelslist.g');
  // Bounded (64 MiB, a million kernel lines): /dev/zero as a kernel list ends at once.
  if (!existsSync(list)) throw new InputError({ file: list }, 'cannot read the kernel list: ENOENT');
  const text = readInputText(list, 64 * 1024 * 1024, 'a kernelslist.g', 'latin1');
  const dir = dirname(resolve(list));
  const commands = parseKernelsList(text, list, dir);
  const timing = typeof options.traceConfig === 'string' ? loadTraceConfig(options.traceConfig) : options.traceConfig;
  const mapper = new SassOpcodeMapper({ unknownOpcode: options.unknownOpcode, timing });
  const kernels: TraceKernel[] = [];
  try {
    for (const c of commands) {
      if (c.kind !== 'kernel') continue;
      const k = c as KernelCommand;
      if (!existsSync(k.path)) {
        throw new InputError({ file: list, line: k.line }, `kernel trace file '${k.file}' does not exist in ${dir}`, k.file);
      }
      kernels.push(openKernelTrace(k.path, {
        mapper, arch: options.arch, validate: options.validate, chunkBytes: options.chunkBytes,
        displayName: join(dirname(list), k.file),
      }));
    }
  } catch (e) {
    for (const k of kernels) k.close();
    throw e;
  }
  let total = 0;
  for (const k of kernels) total += k.instructionCount;
  return Object.freeze({
    kernelslist: list,
    commands: Object.freeze(commands),
    kernels: Object.freeze(kernels),
    mapper,
    instructionCount: total,
    close(): void {
      for (const k of kernels) k.close();
    },
  });
}

/** Base name of a kernel's trace file (`kernel-1.traceg`). */
export function kernelFileName(kernel: TraceKernel): string {
  return basename(kernel.file);
}
