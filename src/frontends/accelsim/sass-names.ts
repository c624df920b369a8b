/**
 * PTX -> SASS opcode names for traces Accel-Sim reads unchanged (GitHub issue 10 item 2).
 *
 * `--write-trace` writes the dynamic PTX instruction stream of a kernel scenario, one trace
 * line per executed PTX instruction. Accel-Sim's trace-driven simulator only knows SASS: it
 * looks the text before the first `.` of the opcode up in the opcode table its kernel header's
 * `-binary version` selects and stops on a name the table lacks ("undefined instruction").
 * This module picks, per target architecture family, the SASS name each PTX instruction is
 * written as.
 *
 * Rule: every PTX instruction is written as a SASS opcode that warpstate's trace reader
 * (`opcodes.ts`) puts in the same {@link OpClass} (and long-latency flag) as the PTX IR did, so
 * the written trace replays with exactly the cycles of the PTX run; among those, the name is
 * the one nvcc would emit for the instruction (or the main instruction of its expansion), with
 * modifiers only where Accel-Sim reads them (memory width, `MUFU` function, `BAR.ARV`). The
 * mapping for Pascal extends the hand renaming that Accel-Sim ran
 * (`data/accelsim-reference/README.md`), with these differences, each needed for an exact
 * round trip or for Accel-Sim to see the right width:
 * - `ld.param` and `ld.const` are `LDC` with their memory operand, not `MOV` without one:
 *   warpstate's PTX run sends them to the LSU constant path (a `MOV` would time them as ALU and
 *   change the cycle count, measured: k-vecadd 933 -> 936), and Accel-Sim executes `LDC` as a
 *   constant-space load too (`trace_driven.cc`, `case OP_LDC`: `memory_op = memory_load`,
 *   `space = const_space`).
 * - Memory opcodes carry the access width as Accel-Sim reads it (`trace_parser.cc`
 *   `get_datawidth_from_opcode`: a numeric token is bits, `U<n>` is n bits, else 4 bytes):
 *   `.U8`, `.U16`, nothing for 4 bytes, `.64`, `.128`. Signed narrow loads are written `.U8`/
 *   `.U16` too (Accel-Sim does not read `S8`/`S16` as widths).
 * - `cvt` to or from f64 (a DP instruction in the PTX IR) is `DADD`, `setp.f64` (ALU in the
 *   IR) is `FSETP`, integer `div`/`rem` (IR class intDiv, no SASS equivalent) is `XMAD.IDIV` /
 *   `IMAD.IDIV`: Accel-Sim times it as one integer multiply-add (it ignores modifiers it does
 *   not know), warpstate's reader reads the `IDIV` modifier back as intDiv.
 * - `bar.warp.sync` (IR class other) is `VOTE.ANY`; `selp` is `SEL`; `prmt` is `PRMT`;
 *   `shfl` keeps its mode (`SHFL.IDX|UP|DOWN|BFLY`), `membar` its scope.
 * - `tex` is `TEX` and `tld4` `TLD4`, written without addresses (`ptx-trace.ts`), as Accel-Sim's
 *   tracer writes them (its tables time them as ALU or on a TEX unit): a written trace replays
 *   texture kernels with other cycles than the PTX run, whose texels go through the texture
 *   cache. `suld`/`sust` are `LDG.E`/`STG.E` with their element addresses: surfaces are global
 *   memory (GPGPU-Sim), and `SULD`/`SUST` are not in Accel-Sim's Pascal and Volta tables.
 *   `txq`/`suq` (a descriptor read, ALU class here) are `MOV`.
 * - `ret` in a kernel is `EXIT`: Accel-Sim counts a thread finished only on `EXIT`
 *   (`checkExecutionStatusAndUpdate`: `inst.op == EXIT_OPS`); warpstate times ret and exit
 *   alike (neither uses a unit). `ret` in a `.func` is `RET` (Volta and later `RET.REL.NODEC`,
 *   as nvcc's SASS writes it); a direct `call` is `CAL` on Pascal and `CALL.REL.NOINC` on Volta
 *   and later, a call through a function pointer `JCAL` (absolute) on Pascal and
 *   `CALL.ABS.NOINC` on Volta and later.
 * - `match.{any,all}.sync` is `MATCH.ANY|ALL`; `bar.red.{popc,and,or}` is `BAR.RED.POPC|AND|OR`;
 *   `trap` is `BPT.TRAP`; `nanosleep` is
 *   `NANOSLEEP` on Volta and later and `NOP` on Pascal (which has no `NANOSLEEP`; the instruction
 *   is sm_70+); `bmsk` is `BMSK` on Volta and later and `SHL` on Pascal (no `BMSK` in NVIDIA's
 *   Pascal instruction list, nor in warpstate's reader table for it). Two of these are read back
 *   in another class than the PTX IR's: `NANOSLEEP` is a branch-unit instruction in both tables
 *   and Pascal's `NOP` an ALU one (`other` in the IR; the trace carries no sleep time, so a
 *   sleeping kernel's replay differs anyway), and `BPT` is a branch (`exit` in the IR; neither
 *   class occupies a unit, and a trace holds only traps no lane executed, since an executed one
 *   ends the run).
 *
 * Volta, Turing and Ampere differ from Pascal where their tables do (Accel-Sim's Volta table has
 * no `XMAD`, `SHL`, `BFE`, `BFI`, `ISET`, `DMNMX`, `CAL`): `IMAD` (`.WIDE`, `.HI`),
 * `IADD3`, `IABS`, `LOP3`, `PLOP3`, `SHF.L`/`SHF.R`, `CALL`, `DSETP` for f64 min/max,
 * `MUFU.SQRT`.
 *
 * Sources: accel-sim-framework `gpu-simulator/ISA_Def/{pascal,volta,turing,ampere}_opcode.h`
 * (opcode tables and the `*_BINART_VERSION` defines), `gpu-simulator/trace-driven/trace_driven.cc`
 * (`trace_kernel_info_t` constructor: binary version -> table, else "unsupported binary
 * version" and exit; `parse_from_trace_struct`: base-opcode lookup, `isize = 16`, memory cases),
 * `gpu-simulator/trace-parser/trace_parser.{h,cc}` (`MAX_DST 1`, `MAX_SRC 4`, registers read
 * with `R%d`).
 */
import { readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { readConfigLines } from '../../config/gpgpusim-import.ts';
import { InputError } from '../../errors.ts';
import { Opcode, OpClass, StateSpace, type Instruction } from '../../isa/ir.ts';
import { SassArch } from './opcodes.ts';

/** SASS instruction size in bytes: written PCs are `16 x instruction index` (`trace_driven.cc`: `isize = 16`, Maxwell and later). */
export const SASS_PC_BYTES = 16;
/** Destination registers Accel-Sim's trace parser reads per line (`trace_parser.h` `MAX_DST`; it asserts). */
export const ACCELSIM_MAX_DST = 1;
/** Source registers Accel-Sim's trace parser reads per line (`trace_parser.h` `MAX_SRC`; it asserts). */
export const ACCELSIM_MAX_SRC = 4;

/** Architecture families with an Accel-Sim opcode table this writer targets. */
export type SassFamily = 'pascal' | 'volta' | 'turing' | 'ampere';

/** What a trace is written for: the opcode table family and the `-binary version` header value. */
export interface SassTarget {
  readonly family: SassFamily;
  /** warpstate's reader table for the family (`opcodes.ts`). */
  readonly arch: SassArch;
  /** `-binary version` written; one Accel-Sim maps to the family's table. */
  readonly binaryVersion: number;
}

/**
 * Binary versions Accel-Sim maps to each family's table (`*_BINART_VERSION` in `ISA_Def/`):
 * Pascal 60 (P100) and 61 (Titan X), Volta 70, Turing 75, Ampere 80 (A100) and 86 (RTX 30).
 * Any other value makes Accel-Sim print "unsupported binary version" and exit.
 */
export const ACCELSIM_BINARY_VERSIONS: Readonly<Record<SassFamily, readonly number[]>> = Object.freeze({
  pascal: Object.freeze([60, 61]),
  volta: Object.freeze([70]),
  turing: Object.freeze([75]),
  ampere: Object.freeze([80, 86]),
});

const ARCH_OF: Readonly<Record<SassFamily, SassArch>> = { pascal: SassArch.Pascal, volta: SassArch.Volta, turing: SassArch.Turing, ampere: SassArch.Ampere };

/**
 * The base opcodes of each family's Accel-Sim table that this mapping writes (a subset of the
 * table; every name was checked against `ISA_Def/<family>_opcode.h` of accel-sim-framework).
 */
export const ACCELSIM_OPCODE_NAMES: Readonly<Record<SassFamily, ReadonlySet<string>>> = (() => {
  const common = 'ATOM ATOMS BAR BPT BRA BREV DADD DFMA DMUL EXIT F2F F2I FADD FFMA FLO FMNMX FMUL FRND FSET FSETP ' +
    'HADD2 HFMA2 HMUL2 HSETP2 I2F IMNMX ISETP LDC LDG LDL LDS MATCH MEMBAR MOV MUFU POPC PRMT RED RET SEL SHF SHFL STG STL STS TEX TLD4 VOTE';
  const pascal = `${common} BFE BFI CAL DMNMX IADD ISET JCAL LOP NOP PSETP SHL SHR XMAD`;
  const volta = `${common} BMSK CALL DSETP IABS IADD3 IMAD LOP3 NANOSLEEP PLOP3`;
  const set = (s: string): ReadonlySet<string> => Object.freeze(new Set(s.split(' ')));
  return Object.freeze({ pascal: set(pascal), volta: set(volta), turing: set(volta), ampere: set(volta) });
})();

/** The target of a family at its default binary version (Pascal 61, Volta 70, Turing 75, Ampere 86). */
export function sassTarget(family: SassFamily, binaryVersion?: number): SassTarget {
  const versions = ACCELSIM_BINARY_VERSIONS[family];
  const v = binaryVersion ?? (family === 'pascal' ? 61 : family === 'ampere' ? 86 : versions[0]!);
  if (!versions.includes(v)) throw new RangeError(`binary version ${v} is not one Accel-Sim maps to the ${family} table (${versions.join(', ')})`);
  return Object.freeze({ family, arch: ARCH_OF[family], binaryVersion: v });
}

/**
 * The target for a compute capability written as GPGPU-Sim does (`-gpgpu_ptx_force_max_capability`,
 * major x 10 + minor): 60/61 Pascal at that version; other 6x, Maxwell 5x and older (Fermi 2x,
 * Kepler 3x: no table here) Pascal 61; 70-72 Volta; 73-79 Turing; 80 Ampere 80; 81 and later
 * Ampere 86 (Hopper's table is newer than the Accel-Sim the reference runs used).
 */
export function sassTargetForCapability(capability: number): SassTarget {
  if (capability === 60 || capability === 61) return sassTarget('pascal', capability);
  if (capability < 70) return sassTarget('pascal');
  if (capability < 73) return sassTarget('volta');
  if (capability < 80) return sassTarget('turing');
  if (capability === 80) return sassTarget('ampere', 80);
  return sassTarget('ampere');
}

/**
 * Compute capability of each preset's GPU (the presets do not state it; from their sources:
 * GTX 480 and Tesla M2090 Fermi 2.0, K20X Kepler 3.5, the Maxwell CKE machine 5.2, GTX 1080 Ti 6.1).
 */
export const PRESET_CAPABILITY: Readonly<Record<string, number>> = Object.freeze({
  gtx480: 20, 'gtx480-elf': 20, m2090: 20, onac32: 20, k20x: 35, 'maxwell-cke': 52, gtx1080ti: 61,
});

/**
 * The target for a kernel scenario's GPU: a `gpgpusim.config` by its
 * `-gpgpu_ptx_force_max_capability` (the last one in the file; Pascal 61 without it), a preset
 * by {@link PRESET_CAPABILITY} (Pascal 61 for one not listed); no GPU = the default `gtx480`.
 *
 * @param gpu the scenario's `gpu` section; `gpgpusimConfig` is relative to `baseDir`.
 * @throws InputError if the config file cannot be read or its option is not an integer
 */
export function sassTargetForGpu(gpu: { readonly preset?: string | undefined; readonly gpgpusimConfig?: string | undefined } | undefined, baseDir: string): SassTarget {
  if (gpu?.gpgpusimConfig !== undefined) {
    const file = isAbsolute(gpu.gpgpusimConfig) ? gpu.gpgpusimConfig : join(baseDir, gpu.gpgpusimConfig);
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (e) {
      throw new InputError({ file }, `cannot read the GPU config: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
    }
    const opt = readConfigLines(text, file).filter((l) => l.option === '-gpgpu_ptx_force_max_capability').pop();
    if (opt === undefined) return sassTarget('pascal');
    if (!/^\d{1,3}$/.test(opt.value)) throw new InputError({ file, line: opt.line }, `expected an integer such as 61, got '${opt.value}'`, opt.option);
    return sassTargetForCapability(Number(opt.value));
  }
  return sassTargetForCapability(PRESET_CAPABILITY[gpu?.preset ?? 'gtx480'] ?? 61);
}

/**
 * The instruction fields the mapping reads; `callee` (-1 for a call through a pointer) when
 * present tells an indirect `call` from a direct one.
 */
export type SassSource = Pick<Instruction, 'op' | 'opText' | 'opClass'> & Partial<Pick<Instruction, 'callee'>>;

const INT_TYPE = /^[sub]\d+$/;
const FLOAT_TYPE = /^(f16|f16x2|bf16|bf16x2|f32|f64)$/;
const ROUND_TO_INT = new Set(['rni', 'rzi', 'rmi', 'rpi']);
const ATOM_OPS = new Set(['add', 'min', 'max', 'inc', 'dec', 'and', 'or', 'xor', 'exch', 'cas']);

/** Opcode modifier for an access of `bytes` per lane, as Accel-Sim reads widths (see the module comment). */
export function widthModifier(bytes: number): string {
  if (bytes === 4) return '';
  if (bytes === 1 || bytes === 2) return `.U${bytes * 8}`;
  return `.${bytes * 8}`;
}

/**
 * The SASS opcode (with modifiers) written for one executed PTX instruction.
 *
 * @param ins the PTX instruction (its class decides; `op` and the modifiers of `opText` pick the name).
 * @param space the state space the access resolved to (`StateSpace.Generic` counts as global);
 *   ignored for non-memory instructions.
 * @param bytes bytes per lane of a memory access (0 otherwise).
 * @param target the architecture family written for.
 * @param inFunction the instruction belongs to a `.func` (its `ret` is `RET`), not to the kernel
 *   (where `ret` ends the thread: `EXIT`); default false.
 * @returns e.g. `LDG.E`, `LDS.64`, `ATOM.E.ADD`, `XMAD`, `IMAD.WIDE`, `SHFL.DOWN`.
 */
export function sassOpcodeFor(ins: SassSource, space: StateSpace, bytes: number, target: SassTarget, inFunction = false): string {
  const tokens = ins.opText.split('.');
  const has = (t: string): boolean => tokens.indexOf(t, 1) > 0;
  const types = tokens.slice(1).filter((t) => INT_TYPE.test(t) || FLOAT_TYPE.test(t) || t === 'pred');
  const f16 = types.some((t) => t.startsWith('f16') || t.startsWith('bf16'));
  const fp = types.some((t) => FLOAT_TYPE.test(t));
  const pred = types.includes('pred');
  const newer = target.family !== 'pascal';
  const op = ins.op;
  switch (ins.opClass) {
    case OpClass.Load: {
      if (op === Opcode.Tex) return 'TEX';
      if (op === Opcode.Tld4) return 'TLD4';
      const base = space === StateSpace.Param || space === StateSpace.Const ? 'LDC' : space === StateSpace.Shared ? 'LDS' : space === StateSpace.Local ? 'LDL' : 'LDG.E';
      return base + widthModifier(bytes);
    }
    case OpClass.Store:
      return (space === StateSpace.Shared ? 'STS' : space === StateSpace.Local ? 'STL' : 'STG.E') + widthModifier(bytes);
    case OpClass.Atomic: {
      const what = (tokens.find((t, i) => i > 0 && ATOM_OPS.has(t)) ?? 'add').toUpperCase();
      const base = space === StateSpace.Shared ? `ATOMS.${what}` : op === Opcode.Red ? `RED.E.${what}` : `ATOM.E.${what}`;
      return base + widthModifier(bytes);
    }
    case OpClass.Barrier:
      if (has('red')) return `BAR.RED.${has('popc') ? 'POPC' : has('and') ? 'AND' : 'OR'}`;
      return has('arrive') ? 'BAR.ARV' : 'BAR.SYNC';
    case OpClass.Branch:
      return 'BRA';
    case OpClass.Membar:
      return has('sys') ? 'MEMBAR.SYS' : has('gl') || has('gpu') ? 'MEMBAR.GL' : 'MEMBAR.CTA';
    case OpClass.Call:
      if (ins.callee === -1) return newer ? 'CALL.ABS.NOINC' : 'JCAL';
      return newer ? 'CALL.REL.NOINC' : 'CAL';
    case OpClass.Ret:
      if (inFunction) return newer ? 'RET.REL.NODEC' : 'RET';
      return 'EXIT';
    case OpClass.Exit:
      return op === Opcode.Trap ? 'BPT.TRAP' : 'EXIT';
    case OpClass.Other:
      if (op === Opcode.Nanosleep) return newer ? 'NANOSLEEP' : 'NOP';
      if (op === Opcode.Match) return has('all') ? 'MATCH.ALL' : 'MATCH.ANY';
      if (op === Opcode.Shfl) return `SHFL.${has('up') ? 'UP' : has('bfly') ? 'BFLY' : has('idx') ? 'IDX' : 'DOWN'}`;
      if (op === Opcode.Vote) return `VOTE.${has('all') ? 'ALL' : has('uni') ? 'UNI' : 'ANY'}`;
      return 'VOTE.ANY';
    case OpClass.Sfu:
      switch (op) {
        case Opcode.Ex2: return 'MUFU.EX2';
        case Opcode.Lg2: return 'MUFU.LG2';
        case Opcode.Sin: return 'MUFU.SIN';
        case Opcode.Cos: return 'MUFU.COS';
        case Opcode.Rsqrt: return has('f64') ? 'MUFU.RSQ64H' : 'MUFU.RSQ';
        case Opcode.Sqrt: return newer ? 'MUFU.SQRT' : 'MUFU.RSQ';
        default: return has('f64') ? 'MUFU.RCP64H' : 'MUFU.RCP';
      }
    case OpClass.Dp:
      switch (op) {
        case Opcode.Mul: return 'DMUL';
        case Opcode.Mad: case Opcode.Fma: case Opcode.Div: case Opcode.Rcp: case Opcode.Sqrt: case Opcode.Rsqrt: return 'DFMA';
        case Opcode.Min: case Opcode.Max: return newer ? 'DSETP' : 'DMNMX';
        default: return 'DADD';
      }
    case OpClass.IntMul:
      if (!newer) return 'XMAD';
      return has('wide') ? 'IMAD.WIDE' : has('hi') ? 'IMAD.HI' : 'IMAD';
    case OpClass.IntDiv:
      return newer ? 'IMAD.IDIV' : 'XMAD.IDIV';
    default:
      return aluName(op, tokens, types, { fp, f16, pred, newer });
  }
}

/** Name of an ALU-class PTX instruction (class `alu` in the IR). */
function aluName(op: Opcode, tokens: readonly string[], types: readonly string[], f: { fp: boolean; f16: boolean; pred: boolean; newer: boolean }): string {
  const { fp, f16, pred, newer } = f;
  switch (op) {
    case Opcode.Add: case Opcode.Sub: case Opcode.Neg: case Opcode.Abs:
      if (fp) return f16 ? 'HADD2' : 'FADD';
      return newer ? (op === Opcode.Abs ? 'IABS' : 'IADD3') : 'IADD';
    case Opcode.Addc: case Opcode.Subc:
      return newer ? 'IADD3.X' : 'IADD.X';
    case Opcode.Min: case Opcode.Max:
      return fp ? 'FMNMX' : 'IMNMX';
    case Opcode.Mul:
      return f16 ? 'HMUL2' : 'FMUL';
    case Opcode.Mad: case Opcode.Fma:
      return f16 ? 'HFMA2' : 'FFMA';
    case Opcode.And: case Opcode.Or: case Opcode.Xor: case Opcode.Not: case Opcode.Cnot:
      if (pred) return newer ? 'PLOP3' : 'PSETP';
      return newer ? 'LOP3' : 'LOP';
    case Opcode.Copysign:
      return newer ? 'LOP3' : 'LOP';
    case Opcode.Shl:
      return newer ? 'SHF.L' : 'SHL';
    case Opcode.Shr:
      return newer ? 'SHF.R' : 'SHR';
    case Opcode.Shf:
      return 'SHF';
    case Opcode.Bfe:
      return newer ? 'SHF' : 'BFE';
    case Opcode.Bfi:
      return newer ? 'LOP3' : 'BFI';
    case Opcode.Clz: case Opcode.Bfind:
      return 'FLO';
    case Opcode.Popc:
      return 'POPC';
    case Opcode.Bmsk:
      return newer ? 'BMSK' : 'SHL';
    case Opcode.Brev:
      return 'BREV';
    case Opcode.Prmt:
      return 'PRMT';
    case Opcode.Setp:
      return fp ? (f16 ? 'HSETP2' : 'FSETP') : 'ISETP';
    case Opcode.Set:
      return fp ? 'FSET' : newer ? 'ISETP' : 'ISET';
    case Opcode.Testp:
      return 'FSETP';
    case Opcode.Selp: case Opcode.Slct:
      return 'SEL';
    case Opcode.Cvt: {
      // cvt.<rounding>.<dtype>.<atype>: integer widening/narrowing is a move (or shift) in SASS.
      const dFloat = FLOAT_TYPE.test(types[0] ?? '');
      const sFloat = FLOAT_TYPE.test(types[1] ?? types[0] ?? '');
      if (dFloat && sFloat) return tokens.some((t) => ROUND_TO_INT.has(t)) ? 'FRND' : 'F2F';
      if (dFloat) return 'I2F';
      if (sFloat) return 'F2I';
      return 'MOV';
    }
    default:
      return 'MOV';
  }
}
