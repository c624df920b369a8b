/**
 * SASS opcode mapping for the Accel-Sim trace front end (GitHub issue 5, item 2).
 *
 * A trace line names a SASS opcode with its modifiers (`LDG.E.CG`, `XMAD.PSL.CBCC`). The base
 * opcode is the text before the first `.`; it selects an {@link OpcodeInfo}: warpstate's
 * execution class ({@link OpClass} from `src/isa/ir.ts`), the functional unit that runs it
 * ({@link ExecUnit}, the unit classes of Accel-Sim's `trace.config`: int, sp, dp, sfu, tensor and
 * the specialised BRA / TEX / UDP units), the memory space ({@link StateSpace}) and whether the
 * result arrives after a long, variable latency (the same rule as the PTX IR: loads and atomics
 * on global, local or generic memory and texture fetches; shared and constant are short).
 *
 * The built-in table is written for this project from NVIDIA's "CUDA Binary Utilities"
 * instruction-set lists (Kepler sm_3x, Maxwell/Pascal sm_5x/6x, Volta sm_70, Turing sm_75,
 * Ampere sm_8x); each entry lists the architectures that have the opcode. Choices that differ
 * from a literal reading of the unit names:
 * - `LDC` is a short-latency {@link OpClass.Load} in space `Const`, as Accel-Sim executes it
 *   (`trace_driven.cc`, `case OP_LDC`: a constant-space memory load of 4 bytes). The constant
 *   path of the LSU has a fixed latency and reads no address, so a line without addresses
 *   (NVBit records none for `LDC`) times the same as one with them (warpstate writes `ld.param`
 *   and `ld.const` as `LDC` with their addresses, see `sass-names.ts`).
 * - `XMAD.IDIV` / `IMAD.IDIV` (a modifier real SASS does not have) is {@link OpClass.IntDiv}:
 *   warpstate writes PTX integer `div`/`rem`, which have no SASS equivalent, that way so its own
 *   traces read back with the PTX run's class (see `sass-names.ts`); Accel-Sim ignores the
 *   modifier and times an integer multiply-add.
 * - `ATOM` and `RED` are generic-address atomics and `LD`/`ST` generic loads/stores (space
 *   `Generic`); `ATOMG` is global and `ATOMS` shared. {@link resolveGenericSpace} classifies a
 *   generic address with the kernel's shared/local windows.
 * - Texture and surface instructions (`TEX`, `TLD`, `SULD` ...) are {@link OpClass.Other} on the
 *   TEX unit and long-latency: the trace carries no addresses for them.
 * - Tensor-core instructions (`HMMA`, `IMMA`, ...) are {@link OpClass.Other} on the tensor unit
 *   (warpstate's PTX IR has no tensor class).
 * - `IMAD`, `IMUL`, `XMAD` (the Maxwell/Pascal 16-bit multiply-add) are {@link OpClass.IntMul}.
 *
 * Binary versions map to tables as: 30-39 Kepler, 50-69 Pascal (Maxwell shares Pascal's ISA),
 * 70-72 Volta, 73-79 Turing, 80-89 Ampere (Ada included). Other versions are refused unless the
 * caller names the architecture.
 *
 * Lower-case opcode names are PTX (a trace written by warpstate from a PTX run, see
 * `writer.ts`): {@link classifyPtxOpcode} gives them the same class the PTX IR gives.
 *
 * Latencies: Accel-Sim's `trace.config` (and a `gpgpusim.trace.config` beside a trace) gives
 * `-trace_opcode_latency_initiation_{int,sp,dp,sfu,tensor} latency,initiation` and
 * `-specialized_unit_N enabled,units,max_latency,id_oc,oc_ex,NAME` with
 * `-trace_opcode_latency_initiation_spec_op_N latency,initiation`; {@link parseTraceConfig}
 * reads them into a {@link UnitTimingTable}. Without a file the per-architecture defaults in
 * {@link DEFAULT_UNIT_TIMING} apply.
 */
import { readInputText } from '../../scenario/yaml-source.ts';
import { InputError, type SourceLocation } from '../../errors.ts';
import { OpClass, StateSpace } from '../../isa/ir.ts';

// ---------------------------------------------------------------------------------------------
// Architectures and units
// ---------------------------------------------------------------------------------------------

/** SASS instruction-set families with an opcode table. */
export const SassArch = { Kepler: 0, Pascal: 1, Volta: 2, Turing: 3, Ampere: 4 } as const;
/** A {@link SassArch} code. */
export type SassArch = (typeof SassArch)[keyof typeof SassArch];
/** Name of each {@link SassArch}, indexed by code. */
export const SASS_ARCH_NAME: readonly string[] = Object.freeze(['kepler', 'pascal', 'volta', 'turing', 'ampere']);

/**
 * Functional-unit classes, as Accel-Sim's `trace.config` names them: `Int` (`_int`), `Sp`
 * (`_sp`, FP32/FP16), `Dp`, `Sfu`, `Tensor`, `Mem` (load/store unit: no fixed latency, the memory
 * system times it), `Branch` (specialised unit `BRA`), `Tex` (specialised unit `TEX`), `Udp`
 * (Turing/Ampere uniform datapath, specialised unit `UDP`), `None` (barriers: no unit).
 */
export const ExecUnit = { None: 0, Int: 1, Sp: 2, Dp: 3, Sfu: 4, Tensor: 5, Mem: 6, Branch: 7, Tex: 8, Udp: 9 } as const;
/** An {@link ExecUnit} code. */
export type ExecUnit = (typeof ExecUnit)[keyof typeof ExecUnit];
/** Name of each {@link ExecUnit}, indexed by code. */
export const EXEC_UNIT_NAME: readonly string[] = Object.freeze(['none', 'int', 'sp', 'dp', 'sfu', 'tensor', 'mem', 'branch', 'tex', 'udp']);

/** Pipeline timing of one unit class, in core cycles. */
export interface UnitTiming {
  /** Cycles from issue to result. */
  readonly latency: number;
  /** Cycles before the unit accepts the next instruction (initiation interval). */
  readonly initiation: number;
}

/**
 * Timing of every {@link ExecUnit}, indexed by code. `Mem` and `None` are `{1, 1}` (pass-through:
 * memory latency comes from the memory hierarchy). A unit a `trace.config` does not configure
 * falls back as Accel-Sim runs it: `Branch` and `Udp` on the int unit, `Tex` as a 200-cycle unit
 * only when configured, else int.
 */
export type UnitTimingTable = readonly UnitTiming[];

const t = (latency: number, initiation: number): UnitTiming => Object.freeze({ latency, initiation });

function timingTable(int: UnitTiming, sp: UnitTiming, dp: UnitTiming, sfu: UnitTiming, tensor: UnitTiming, branch: UnitTiming, tex: UnitTiming, udp: UnitTiming): UnitTimingTable {
  return Object.freeze([t(1, 1), int, sp, dp, sfu, tensor, t(1, 1), branch, tex, udp]);
}

/**
 * Built-in unit timings per architecture (cycles), used when no `trace.config` is given. They
 * are the values of Accel-Sim's tested trace configs for one GPU of each family
 * (`accel-sim-trace-configs/`: SM3_KEPLER_TITAN, SM6_TITANX, SM7_QV100, SM75_RTX2060,
 * SM86_RTX3070); units those files leave out use the int timing.
 */
export const DEFAULT_UNIT_TIMING: readonly UnitTimingTable[] = Object.freeze([
  timingTable(t(4, 1), t(4, 1), t(20, 2), t(200, 2), t(4, 1), t(4, 1), t(4, 1), t(4, 1)),
  timingTable(t(4, 1), t(4, 1), t(20, 8), t(20, 4), t(4, 1), t(4, 1), t(4, 1), t(4, 1)),
  timingTable(t(2, 2), t(2, 2), t(8, 4), t(20, 8), t(2, 2), t(4, 4), t(200, 4), t(2, 2)),
  timingTable(t(2, 2), t(2, 2), t(64, 64), t(21, 8), t(16, 16), t(4, 4), t(200, 4), t(4, 1)),
  timingTable(t(2, 2), t(2, 1), t(64, 64), t(21, 8), t(32, 32), t(4, 4), t(200, 4), t(4, 1)),
]);

/**
 * Maps a kernel header's `binary version` (SM version x 10 + minor, e.g. 61) to its
 * {@link SassArch}, or `undefined` for versions without a table (Fermi 20/21, Hopper 90 ...).
 */
export function archForBinaryVersion(binaryVersion: number): SassArch | undefined {
  if (binaryVersion >= 30 && binaryVersion < 40) return SassArch.Kepler;
  if (binaryVersion >= 50 && binaryVersion < 70) return SassArch.Pascal;
  if (binaryVersion >= 70 && binaryVersion < 73) return SassArch.Volta;
  if (binaryVersion >= 73 && binaryVersion < 80) return SassArch.Turing;
  if (binaryVersion >= 80 && binaryVersion < 90) return SassArch.Ampere;
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// The built-in table
// ---------------------------------------------------------------------------------------------

const K = 1 << SassArch.Kepler;
const P = 1 << SassArch.Pascal;
const V = 1 << SassArch.Volta;
const T = 1 << SassArch.Turing;
const A = 1 << SassArch.Ampere;
const ALL = K | P | V | T | A;
const PVTA = P | V | T | A;
const VTA = V | T | A;
const TA = T | A;
const KP = K | P;

interface Row {
  readonly names: string;
  readonly opClass: OpClass;
  readonly unit: ExecUnit;
  readonly space: StateSpace;
  readonly longLatency: boolean;
  readonly archs: number;
}

const row = (names: string, opClass: OpClass, unit: ExecUnit, archs: number, space: StateSpace = StateSpace.None, longLatency = false): Row =>
  ({ names, opClass, unit, space, longLatency, archs });

const { Alu, IntMul, Sfu, Dp, Load, Store, Atomic, Barrier, Branch, Membar, Call, Ret, Exit, Other } = OpClass;
const U = ExecUnit;
const S = StateSpace;

/** The built-in SASS table: space-separated base opcodes sharing one classification. */
const ROWS: readonly Row[] = [
  // FP32 / FP16 arithmetic (sp unit)
  row('FADD FADD32I FCHK FFMA FFMA32I FMNMX FMUL FMUL32I FSET FSETP FCMP', Alu, U.Sp, ALL),
  row('FSEL FSWZADD', Alu, U.Sp, PVTA),
  row('RRO', Alu, U.Sp, KP),
  row('FSWZ', Alu, U.Sp, K),
  row('HADD2 HFMA2 HMUL2 HSET2 HSETP2', Alu, U.Sp, PVTA),
  row('HADD2_32I HFMA2_32I HMUL2_32I', Alu, U.Sp, VTA),
  row('HMNMX2', Alu, U.Sp, A),
  // transcendental
  row('MUFU', Sfu, U.Sfu, ALL),
  // FP64
  row('DADD DFMA DMUL DSETP', Dp, U.Dp, ALL),
  row('DMNMX DSET', Dp, U.Dp, KP),
  // tensor cores
  row('HMMA', Other, U.Tensor, VTA),
  row('IMMA BMMA', Other, U.Tensor, TA),
  row('DMMA', Other, U.Tensor, A),
  // integer
  row('BREV FLO IADD IADD3 IADD32I ISCADD ISCADD32I ISETP LOP LOP3 LOP32I POPC SHF SHL SHR IMNMX', Alu, U.Int, ALL),
  row('BFE BFI ICMP ISET VABSDIFF VADD VMNMX VSET VSETP VMAD VSHL VSHR', Alu, U.Int, KP),
  row('IDP IDP4A VABSDIFF4', Alu, U.Int, PVTA),
  row('BMSK IABS LEA SGXT', Alu, U.Int, VTA),
  row('ISUB ISAD', Alu, U.Int, K),
  row('LEA', Alu, U.Int, P),
  row('IMAD IMUL IMUL32I', IntMul, U.Int, ALL),
  row('IMADSP IMAD32I', IntMul, U.Int, KP),
  row('XMAD', IntMul, U.Int, P),
  // conversions
  row('F2F F2I I2F I2I FRND', Alu, U.Int, ALL),
  row('I2IP', Alu, U.Int, VTA),
  row('F2FP I2FP F2IP', Alu, U.Int, A),
  // data movement
  row('MOV MOV32I PRMT SEL', Alu, U.Int, ALL),
  row('MOVM', Alu, U.Int, A),
  row('SHFL', Other, U.Int, ALL),
  // predicates
  row('P2R R2P PSETP CSET CSETP PSET', Alu, U.Int, ALL),
  row('PLOP3', Alu, U.Int, PVTA),
  // loads, stores, atomics
  row('LD', Load, U.Mem, ALL, S.Generic, true),
  row('LDG', Load, U.Mem, ALL, S.Global, true),
  row('LDU', Load, U.Mem, K, S.Global, true),
  row('LDL', Load, U.Mem, ALL, S.Local, true),
  row('LDS LDSLK', Load, U.Mem, ALL, S.Shared, false),
  row('LDSM', Load, U.Mem, TA, S.Shared, false),
  row('LDGSTS', Load, U.Mem, A, S.Global, true),
  row('LDC', Load, U.Mem, ALL, S.Const, false),
  row('ST', Store, U.Mem, ALL, S.Generic),
  row('STG', Store, U.Mem, ALL, S.Global),
  row('STL', Store, U.Mem, ALL, S.Local),
  row('STS STSCUL', Store, U.Mem, ALL, S.Shared),
  row('ATOM RED', Atomic, U.Mem, ALL, S.Generic, true),
  row('ATOMG', Atomic, U.Mem, PVTA, S.Global, true),
  row('ATOMS', Atomic, U.Mem, PVTA, S.Shared, false),
  row('CCTL CCTLL ERRBAR', Other, U.Int, ALL),
  row('CCTLT', Other, U.Int, PVTA),
  row('LDGDEPBAR', Other, U.Int, A),
  row('MATCH QSPC', Other, U.Int, PVTA),
  row('MEMBAR', Membar, U.Mem, ALL),
  // texture and surface
  row('TEX TLD TLD4 TXQ TMML TXD', Other, U.Tex, ALL, S.None, true),
  row('TEXS TLD4S TLDS', Other, U.Tex, PVTA, S.None, true),
  row('SUATOM SULD SURED SUST', Other, U.Tex, PVTA, S.None, true),
  row('SUQUERY', Other, U.Tex, VTA, S.None, true),
  row('SUCLAMP SUBFM SUEAU SULDGA SUSTGA', Other, U.Tex, K, S.None, true),
  row('TEXDEPBAR', Other, U.Int, KP),
  // control flow
  row('BRA BRX JMP JMX BPT KILL', Branch, U.Branch, ALL),
  row('SSY SYNC BRK PBK CONT PCNT PRET PEXIT', Branch, U.Branch, KP),
  row('PLONGJMP', Branch, U.Branch, K),
  row('BMOV BREAK BSSY BSYNC WARPSYNC YIELD NANOSLEEP RPCMOV', Branch, U.Branch, VTA),
  row('BRXU JMXU', Branch, U.Branch, TA),
  row('CALL', Call, U.Branch, VTA),
  row('CAL JCAL', Call, U.Branch, KP),
  row('RET', Ret, U.Branch, ALL),
  row('RTT', Ret, U.Branch, KP),
  row('EXIT', Exit, U.Branch, ALL),
  // miscellaneous
  row('BAR', Barrier, U.None, ALL),
  row('B2R R2B S2R CS2R NOP PMTRIG SETCTAID SETLMEMBASE GETLMEMBASE LEPC CSMTEST', Alu, U.Int, ALL),
  row('DEPBAR', Other, U.Int, ALL),
  row('VOTE', Other, U.Int, ALL),
  row('VOTE_VTG', Other, U.Int, PVTA),
  // uniform datapath (Turing, Ampere)
  row('R2UR S2UR UBMSK UBREV UCLEA UFLO UIADD3 UIMAD UISETP ULDC ULEA ULOP ULOP3 ULOP32I UMOV UP2UR UPLOP3 UPOPC UPRMT UPSETP UR2UP USEL USGXT USHF USHL USHR VOTEU', Alu, U.Udp, TA),
  row('REDUX UF2FP', Alu, U.Udp, A),
];

/** Every base opcode of the built-in table, sorted; an opcode's id is its index here. */
export const SASS_OPCODE_NAMES: readonly string[] = Object.freeze(
  [...new Set(ROWS.flatMap((r) => r.names.split(' ')))].sort(),
);

/** Static properties of one (base) opcode. All objects have the same shape. */
export interface OpcodeInfo {
  /**
   * Numeric id: the index in {@link SASS_OPCODE_NAMES} for a SASS opcode in the table; PTX,
   * `*.IDIV` and unknown opcodes get ids from {@link SASS_OPCODE_NAMES}.length up, in order of
   * first sight (per {@link SassOpcodeMapper}).
   */
  readonly id: number;
  /** Base opcode (text before the first `.`; for PTX the whole name without type suffixes). */
  readonly name: string;
  /** Execution class (`src/isa/ir.ts`). */
  readonly opClass: OpClass;
  /** Functional unit class. */
  readonly unit: ExecUnit;
  /** Memory space; `StateSpace.None` for non-memory instructions. */
  readonly space: StateSpace;
  /** Result arrives after a long, variable latency (global/local/generic loads, atomics, texture). */
  readonly longLatency: boolean;
  /**
   * Unit class whose pipeline and `trace.config` timing Accel-Sim uses for this opcode on this
   * architecture ({@link pipeClass}): `unit`, except that Kepler and Pascal have no specialised
   * units (their opcode maps put branches and texture in `BRANCH_OP`/`ALU_OP`, timed as `_int`).
   */
  readonly pipe: ExecUnit;
  /** Unit latency in core cycles (from the timing table of the mapper, for {@link pipe}; `EXIT` 1). */
  readonly latency: number;
  /** Unit initiation interval in core cycles. */
  readonly initiation: number;
  /** False when the opcode is not in the table and was mapped to ALU by the `alu` policy. */
  readonly known: boolean;
}

interface Classification {
  readonly opClass: OpClass;
  readonly unit: ExecUnit;
  readonly space: StateSpace;
  readonly longLatency: boolean;
}

/** Timing of `EXIT` (Accel-Sim's default for a category without a `trace.config` entry). */
const EXIT_TIMING: UnitTiming = t(1, 1);

/**
 * The unit class whose pipeline and timing execute an instruction of unit class `unit` on `arch`
 * (Accel-Sim `ISA_Def/<arch>_opcode.h` categories): Kepler and Pascal map branches
 * (`BRANCH_OP`), texture and the rest to int-timed categories, never to a specialised unit, so
 * `Branch`, `Tex` and `Udp` become `Int` there; Volta and later use `SPECIALIZED_UNIT_<n>_OP`.
 */
export function pipeClass(unit: ExecUnit, arch: SassArch): ExecUnit {
  if ((arch === SassArch.Kepler || arch === SassArch.Pascal) && (unit === U.Branch || unit === U.Tex || unit === U.Udp)) return U.Int;
  return unit;
}

/** The built-in table for one architecture: base opcode -> classification. */
function builtinTable(arch: SassArch): Map<string, Classification> {
  const m = new Map<string, Classification>();
  const bit = 1 << arch;
  for (const r of ROWS) {
    if ((r.archs & bit) === 0) continue;
    for (const name of r.names.split(' ')) m.set(name, { opClass: r.opClass, unit: r.unit, space: r.space, longLatency: r.longLatency });
  }
  return m;
}

const BUILTIN: readonly Map<string, Classification>[] = [0, 1, 2, 3, 4].map((a) => builtinTable(a as SassArch));

/**
 * Classification of a SASS opcode in the built-in table of `arch`, or `undefined` if that
 * architecture has no such opcode. `opcode` may carry modifiers (`LDG.E.128`).
 */
export function classifySassOpcode(opcode: string, arch: SassArch): Readonly<Classification> | undefined {
  const dot = opcode.indexOf('.');
  const c = BUILTIN[arch]!.get(dot < 0 ? opcode : opcode.slice(0, dot));
  return c !== undefined && c.opClass === IntMul && dot > 0 && hasIdivModifier(opcode) ? INT_DIV : c;
}

/** Class of `XMAD.IDIV` / `IMAD.IDIV` (integer divide written by warpstate, see the module comment). */
const INT_DIV: Classification = Object.freeze({ opClass: OpClass.IntDiv, unit: U.Int, space: S.None, longLatency: false });

/** True if `.IDIV` is one of the modifiers of `opcode`. */
function hasIdivModifier(opcode: string): boolean {
  return opcode.split('.').indexOf('IDIV', 1) > 0;
}

// ---------------------------------------------------------------------------------------------
// PTX opcode names (traces written from PTX runs)
// ---------------------------------------------------------------------------------------------

const PTX_SPACES: Readonly<Record<string, StateSpace>> = {
  global: S.Global, shared: S.Shared, local: S.Local, const: S.Const, param: S.Param,
};
const PTX_ALU = new Set(['mov', 'cvta', 'and', 'or', 'xor', 'not', 'cnot', 'shl', 'shr', 'bfe', 'bfi', 'clz', 'popc', 'brev',
  'prmt', 'addc', 'subc', 'setp', 'set', 'selp', 'slct', 'testp', 'bfind', 'shf', 'bmsk']);
const PTX_FLOAT_OR_DP = new Set(['add', 'sub', 'fma', 'min', 'max', 'abs', 'neg', 'copysign']);

/**
 * Classifies a PTX opcode name with modifiers (`ld.global.f32`, `div.rn.f64`, `mul.lo.s32`) as
 * the PTX IR does (`OpClass` rules in `src/isa/ir.ts`), or returns `undefined` for a name that is
 * not a PTX opcode warpstate executes. The state space is the first space modifier (`ld` without
 * one is generic).
 */
export function classifyPtxOpcode(opcode: string): Readonly<Classification> | undefined {
  const tokens = opcode.split('.');
  const base = tokens[0]!;
  const has = (tok: string): boolean => tokens.indexOf(tok) > 0;
  const f64 = has('f64');
  const fp = f64 || has('f32') || has('f16') || has('f16x2') || has('bf16');
  const space = (): StateSpace => {
    for (let i = 1; i < tokens.length; i++) {
      const s = PTX_SPACES[tokens[i]!];
      if (s !== undefined) return s;
    }
    return S.Generic;
  };
  const longSpace = (s: StateSpace): boolean => s === S.Global || s === S.Local || s === S.Generic;
  const c = (opClass: OpClass, unit: ExecUnit, sp: StateSpace = S.None, longLatency = false): Classification =>
    ({ opClass, unit, space: sp, longLatency });
  switch (base) {
    case 'ld': { const s = space(); return c(Load, U.Mem, s, longSpace(s)); }
    case 'ldu': return c(Load, U.Mem, S.Global, true);
    case 'st': return c(Store, U.Mem, space());
    case 'atom': case 'red': { const s = space(); return c(Atomic, U.Mem, s, s !== S.Shared); }
    case 'bar': case 'barrier': return has('warp') ? c(Other, U.Int) : c(Barrier, U.None);
    case 'membar': case 'fence': return c(Membar, U.Mem);
    case 'bra': return c(Branch, U.Branch);
    case 'call': return c(Call, U.Branch);
    case 'ret': return c(Ret, U.Branch);
    case 'exit': case 'trap': return c(Exit, U.Branch);
    case 'shfl': case 'vote': case 'activemask': case 'match': case 'nanosleep': return c(Other, U.Int);
    case 'mul': case 'mad': case 'madc': case 'mul24': case 'mad24':
      return f64 ? c(Dp, U.Dp) : fp ? c(Alu, U.Sp) : c(IntMul, U.Int);
    case 'div': return f64 ? c(Dp, U.Dp) : fp ? c(Sfu, U.Sfu) : c(OpClass.IntDiv, U.Int);
    case 'rem': return c(OpClass.IntDiv, U.Int);
    case 'rcp': case 'sqrt': case 'rsqrt':
      return f64 && !has('approx') ? c(Dp, U.Dp) : c(Sfu, U.Sfu);
    case 'ex2': case 'lg2': case 'sin': case 'cos': case 'tanh': return c(Sfu, U.Sfu);
    case 'cvt': return f64 ? c(Dp, U.Dp) : c(Alu, U.Int);
    default:
      if (PTX_FLOAT_OR_DP.has(base)) return f64 ? c(Dp, U.Dp) : fp ? c(Alu, U.Sp) : c(Alu, U.Int);
      if (PTX_ALU.has(base)) return c(Alu, U.Int);
      return undefined;
  }
}

// ---------------------------------------------------------------------------------------------
// trace.config
// ---------------------------------------------------------------------------------------------

/**
 * Parses Accel-Sim `trace.config` text (also `gpgpusim.trace.config`) into a
 * {@link UnitTimingTable}, starting from `base` (default: Pascal's defaults) for the units the
 * file leaves out. Options: `-trace_opcode_latency_initiation_{int,sp,dp,sfu,tensor} L,I`;
 * `-specialized_unit_N enabled,units,max_latency,id_oc,oc_ex,NAME` with NAME `BRA`, `TEX`,
 * `TENSOR` or `UDP` and `-trace_opcode_latency_initiation_spec_op_N L,I` (a disabled unit keeps
 * the base timing). `#` starts a comment; other options are ignored (they belong to
 * `gpgpusim.config`).
 *
 * @throws InputError naming file, line and option for a malformed `L,I` pair or unit line.
 */
export function parseTraceConfig(text: string, file: string, base: UnitTimingTable = DEFAULT_UNIT_TIMING[SassArch.Pascal]!): UnitTimingTable {
  const table: UnitTiming[] = [...base];
  const specName = new Map<string, { name: string; enabled: boolean }>();
  const specTiming = new Map<string, { timing: UnitTiming; line: number }>();
  const lines = text.split(/\r?\n/);
  const pair = (value: string, line: number, option: string): UnitTiming => {
    const m = /^\s*(\d+)\s*,\s*(\d+)\s*$/.exec(value);
    if (!m) throw new InputError({ file, line }, `expected 'latency,initiation' (two integers), got '${value.trim()}'`, option);
    const latency = Number(m[1]);
    const initiation = Number(m[2]);
    if (latency < 1 || initiation < 1) throw new InputError({ file, line }, 'latency and initiation must be at least 1 cycle', option);
    return t(latency, initiation);
  };
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!;
    const hash = raw.indexOf('#');
    const text1 = (hash >= 0 ? raw.slice(0, hash) : raw).trim();
    if (text1 === '') continue;
    const m = /^(-\S+)\s+(.*)$/.exec(text1);
    if (!m) continue;
    const option = m[1]!;
    const value = m[2]!;
    const line = i + 1;
    const lat = /^-trace_opcode_latency_initiation_(int|sp|dp|sfu|tensor)$/.exec(option);
    if (lat) {
      const unit = { int: U.Int, sp: U.Sp, dp: U.Dp, sfu: U.Sfu, tensor: U.Tensor }[lat[1] as 'int'];
      table[unit] = pair(value, line, option);
      continue;
    }
    const spec = /^-specialized_unit_(\d+)$/.exec(option);
    if (spec) {
      const parts = value.split(',').map((s) => s.trim());
      if (parts.length !== 6 || !/^[01]$/.test(parts[0]!) || parts.slice(1, 5).some((p) => !/^\d+$/.test(p)) || parts[5] === '') {
        throw new InputError({ file, line }, `expected 'enabled,units,max_latency,id_oc,oc_ex,NAME', got '${value}'`, option);
      }
      specName.set(spec[1]!, { name: parts[5]!.toUpperCase(), enabled: parts[0] === '1' });
      continue;
    }
    const specLat = /^-trace_opcode_latency_initiation_spec_op_(\d+)$/.exec(option);
    if (specLat) specTiming.set(specLat[1]!, { timing: pair(value, line, option), line });
  }
  for (const [n, { name, enabled }] of specName) {
    const timing = specTiming.get(n)?.timing;
    if (!enabled || !timing) continue;
    const unit = name === 'BRA' ? U.Branch : name === 'TEX' ? U.Tex : name === 'UDP' ? U.Udp : name === 'TENSOR' ? U.Tensor : undefined;
    if (unit !== undefined) table[unit] = timing;
  }
  return Object.freeze(table);
}

/** Reads a `trace.config` file with {@link parseTraceConfig}. @throws InputError if it cannot be read. */
export function loadTraceConfig(path: string, base?: UnitTimingTable): UnitTimingTable {
  // Bounded (4 MiB; Accel-Sim's are about 1 KiB): /dev/zero as a trace config ends at once.
  return parseTraceConfig(readInputText(path, 4 * 1024 * 1024, 'a trace.config'), path, base);
}

// ---------------------------------------------------------------------------------------------
// The mapper
// ---------------------------------------------------------------------------------------------

/** What to do with an opcode the table does not know: refuse (`error`) or run it as ALU (`alu`). */
export type UnknownOpcodePolicy = 'error' | 'alu';

/** One unknown opcode met while reading, with where it was first seen and how often. */
export interface UnknownOpcodeRecord {
  /** Base opcode. */
  readonly name: string;
  /** Architecture table it was looked up in. */
  readonly arch: string;
  /** Where it was first seen. */
  readonly first: SourceLocation;
  /** Number of dynamic instructions seen with it. */
  count: number;
}

/** Options of {@link SassOpcodeMapper}. */
export interface OpcodeMapperOptions {
  /** Unknown opcode policy; default `error`. */
  readonly unknownOpcode?: UnknownOpcodePolicy;
  /** Unit timing for every architecture (e.g. from {@link loadTraceConfig}); default per-arch {@link DEFAULT_UNIT_TIMING}. */
  readonly timing?: UnitTimingTable;
}

/**
 * Looks up opcodes for the reader, caching one {@link OpcodeInfo} per (architecture, full opcode
 * text), assigning ids to PTX and unknown opcodes, and counting unknown opcodes. One mapper
 * serves every kernel of a trace so ids agree across kernels.
 */
export class SassOpcodeMapper {
  /** Unknown opcodes by `arch:name`, in order of first sight. */
  readonly unknown = new Map<string, UnknownOpcodeRecord>();
  private readonly policy: UnknownOpcodePolicy;
  private readonly timing: UnitTimingTable | undefined;
  private readonly cache: Map<string, OpcodeInfo>[] = [new Map(), new Map(), new Map(), new Map(), new Map()];
  private readonly baseInfo: Map<string, OpcodeInfo>[] = [new Map(), new Map(), new Map(), new Map(), new Map()];
  private readonly extraIds = new Map<string, number>();

  constructor(options: OpcodeMapperOptions = {}) {
    this.policy = options.unknownOpcode ?? 'error';
    this.timing = options.timing;
  }

  /** Total number of dynamic instructions with an unknown opcode seen so far. */
  get unknownCount(): number {
    let n = 0;
    for (const r of this.unknown.values()) n += r.count;
    return n;
  }

  /** Id of a name outside the built-in table (PTX or unknown), assigned on first sight. */
  private extraId(name: string): number {
    let id = this.extraIds.get(name);
    if (id === undefined) {
      id = SASS_OPCODE_NAMES.length + this.extraIds.size;
      this.extraIds.set(name, id);
    }
    return id;
  }

  private make(name: string, id: number, c: Classification, arch: SassArch, known: boolean): OpcodeInfo {
    const pipe = pipeClass(c.unit, arch);
    // EXIT_OPS has no trace.config entry: Accel-Sim's trace_config::set_latency leaves it at 1,1.
    const timing = c.opClass === OpClass.Exit ? EXIT_TIMING : (this.timing ?? DEFAULT_UNIT_TIMING[arch]!)[pipe]!;
    return Object.freeze({
      id, name, opClass: c.opClass, unit: c.unit, space: c.space, longLatency: c.longLatency,
      pipe, latency: timing.latency, initiation: timing.initiation, known,
    });
  }

  /**
   * The {@link OpcodeInfo} of `opcode` (full text with modifiers) for `arch`. An opcode outside
   * the table is counted in {@link unknown}; under the `error` policy it throws.
   *
   * @param file, line, column where the instruction is (for the error and the report; plain
   *   arguments so a lookup allocates nothing).
   * @throws InputError `unknown SASS opcode` under the `error` policy.
   */
  lookup(opcode: string, arch: SassArch, file: string, line?: number, column?: number): OpcodeInfo {
    const hit = this.cache[arch]!.get(opcode);
    if (hit !== undefined) {
      if (!hit.known) this.unknown.get(`${SASS_ARCH_NAME[arch]}:${hit.name}`)!.count++;
      return hit;
    }
    const dot = opcode.indexOf('.');
    const base = dot < 0 ? opcode : opcode.slice(0, dot);
    let info: OpcodeInfo;
    const lower = base.charCodeAt(0) >= 97 && base.charCodeAt(0) <= 122;
    if (lower) {
      const c = classifyPtxOpcode(opcode);
      if (c !== undefined) {
        const name = `ptx:${opcode}`;
        info = this.make(opcode, this.extraId(name), c, arch, true);
        this.cache[arch]!.set(opcode, info);
        return info;
      }
    } else {
      if (dot > 0 && hasIdivModifier(opcode)) {
        // A modifier that changes the class: cached by the full text, not by the base.
        const c = classifySassOpcode(opcode, arch);
        if (c === INT_DIV) {
          info = this.make(`${base}.IDIV`, this.extraId(`sass:${base}.IDIV`), c, arch, true);
          this.cache[arch]!.set(opcode, info);
          return info;
        }
      }
      const seen = this.baseInfo[arch]!.get(base);
      if (seen !== undefined) {
        this.cache[arch]!.set(opcode, seen);
        if (!seen.known) this.unknown.get(`${SASS_ARCH_NAME[arch]}:${seen.name}`)!.count++;
        return seen;
      }
      const c = BUILTIN[arch]!.get(base);
      if (c !== undefined) {
        info = this.make(base, SASS_OPCODE_NAMES.indexOf(base), c, arch, true);
        this.baseInfo[arch]!.set(base, info);
        this.cache[arch]!.set(opcode, info);
        return info;
      }
    }
    const archName = SASS_ARCH_NAME[arch]!;
    const where: SourceLocation = column === undefined ? { file, line } : { file, line, column };
    if (this.policy === 'error') {
      throw new InputError(where, `unknown ${lower ? 'PTX' : 'SASS'} opcode for ${archName} (use the 'alu' unknown-opcode policy to run it as ALU)`, opcode);
    }
    const name = lower ? opcode : base;
    info = this.make(name, this.extraId(`unknown:${name}`), { opClass: Alu, unit: U.Int, space: S.None, longLatency: false }, arch, false);
    if (!lower) this.baseInfo[arch]!.set(base, info);
    this.cache[arch]!.set(opcode, info);
    this.unknown.set(`${archName}:${name}`, { name, arch: archName, first: where, count: 1 });
    return info;
  }
}

/**
 * Resolves a `Generic` access (`LD`, `ST`, `ATOM`, `RED`) to `Shared` or `Local` when the address
 * falls in the kernel's shared or local window, else `Global`. The windows start at the header's
 * `shmem base_addr` / `local mem base_addr`; `windowBytes` is their size, 16 MiB by default (an
 * assumption, not a value a trace states; in the shared traces the two bases are 32 MiB apart, so
 * any window up to 32 MiB keeps them apart).
 * Other spaces are returned unchanged.
 */
export function resolveGenericSpace(space: StateSpace, address: number, shmemBase: number, localBase: number, windowBytes = 16 * 1024 * 1024): StateSpace {
  if (space !== S.Generic) return space;
  if (shmemBase > 0 && address >= shmemBase && address < shmemBase + windowBytes) return S.Shared;
  if (localBase > 0 && address >= localBase && address < localBase + windowBytes) return S.Local;
  return S.Global;
}
