/**
 * Instruction decoding and validation: turns one parsed PTX statement (opcode word with its
 * modifiers, and raw operands) into an {@link Instruction}, or throws an `InputError` naming the
 * file, line, column and the offending opcode/modifier/operand.
 *
 * Rules follow the PTX ISA 9.0 instruction descriptions (chapter 9) and the operand
 * type-checking rules of §6.4 ("Operand Type Information"): register and instruction types must
 * have the same size; `.bN` is compatible with every type of that size; signed and unsigned
 * integers of one size are interchangeable; floats only match floats or bits; `ld`, `st` and
 * `cvt` may use integer registers wider than the instruction type (§6.4.4 "Operand Size
 * Exceeding Instruction-Type Size").
 */
import { InputError } from '../errors.ts';
import {
  AtomOp,
  BarOp,
  BarRedOp,
  BoolOp,
  CmpOp,
  MemScope,
  MulMode,
  Opcode,
  OperandKind,
  PrmtMode,
  Rounding,
  SCALAR_TYPE_BITS,
  SCALAR_TYPE_KIND,
  SCALAR_TYPE_NAME,
  SPECIAL_REG_BITS,
  ScalarType,
  ShflMode,
  SpecialReg,
  STATE_SPACE_NAME,
  StateSpace,
  SurfClamp,
  Syscall,
  functionAddress,
  TEX_GEOM_COORDS,
  TEX_GEOM_NAME,
  TestpOp,
  TexGeom,
  TexQuery,
  OpaqueType,
  TypeKind,
  VoteMode,
} from './ir.ts';
import type { DebugLoc, Instruction, Operand, PtxVariable, RegisterInfo } from './ir.ts';
import { bitsToF32, bitsToF64, f32ToBits, f64ToBits, parseLiteral } from './literals.ts';

// ---------------------------------------------------------------------------------------------
// Raw statements (produced by the parser, consumed here)
// ---------------------------------------------------------------------------------------------

/** Kind of a {@link RawOperand}. */
export const RawKind = {
  /** A name: register, special register, variable, label or function (`!` allowed). */
  Name: 0,
  /** A numeric literal, maybe negated. */
  Number: 1,
  /** `{a, b, ...}`. */
  Vec: 2,
  /** `[base]`, `[base+off]`, `[imm]`. */
  Addr: 3,
  /** `a|b` (two destinations). */
  Pair: 4,
  /** `_`. */
  Sink: 5,
  /** `(a, b, ...)` in a call. */
  List: 6,
  /**
   * A texture or surface operand `[a, c]`, `[a, b, c]` (PTX ISA §9.7.10.3, §9.7.11.1): `name` is
   * `a` (a `.texref`/`.surfref` or a `.u64` handle register), `elems` the rest (sampler, coordinates).
   */
  TexAddr: 7,
} as const;
/** A {@link RawKind} code. */
export type RawKind = (typeof RawKind)[keyof typeof RawKind];

/** One operand as written, before resolution. */
export interface RawOperand {
  readonly kind: RawKind;
  /** Name (Name), base name (Addr with a named base; '' otherwise). */
  readonly name: string;
  /** `!name`. */
  readonly negate: boolean;
  /** Literal text (Number; Addr with a numeric base). */
  readonly num: string;
  /** Leading minus on the literal. */
  readonly numNeg: boolean;
  /** Constant byte offset (Addr `+off`, Name `sym+off`). */
  readonly offset: bigint;
  /** Elements (Vec, List, Pair). */
  readonly elems: readonly RawOperand[];
  /** Source text (for messages). */
  readonly text: string;
  readonly line: number;
  readonly column: number;
}

/** One instruction statement as written. */
export interface RawInstruction {
  /** Guard predicate name, or '' when unguarded. */
  readonly guard: string;
  readonly guardNegate: boolean;
  /** Opcode word with modifiers (`ld.global.nc.f32`). */
  readonly opcode: string;
  readonly operands: readonly RawOperand[];
  /** Position of the statement (guard or opcode). */
  readonly line: number;
  readonly column: number;
  /** Position of the opcode word. */
  readonly opLine: number;
  readonly opColumn: number;
}

/** What the decoder needs from the enclosing function and module. */
export interface DecodeContext {
  readonly file: string;
  /** 32 or 64. */
  readonly addressSize: number;
  /** Register visible at this point (innermost scope first), or undefined. */
  findRegister(name: string): RegisterInfo | undefined;
  /** Variable or parameter visible at this point, or undefined. */
  findVariable(name: string): PtxVariable | undefined;
  /** Index of the function's hidden carry register (created on first use). */
  carryRegister(): number;
  /** `entry` or `func` when `name` is a kernel or device function declared so far (its address taken: a function pointer), else undefined. */
  functionKind?(name: string): 'entry' | 'func' | undefined;
  /**
   * Index of the `.func` named `name` (declared so far), recording that its address is taken
   * (`mov.u64 %rd, f;`), or undefined when `name` is no `.func`.
   */
  takeFunctionAddress?(name: string): number | undefined;
  /**
   * The `.callprototype` or `.calltargets` declared under label `name` in an enclosing scope
   * (PTX ISA §11.3), or undefined.
   */
  callList?(name: string): CallList | undefined;
}

/** Byte sizes of the parameters and return values of a call or a `.callprototype`. */
export interface CallSignature {
  /** Input parameters, bytes each, in order. */
  readonly params: readonly number[];
  /** Return parameters, bytes each, in order. */
  readonly rets: readonly number[];
}

/**
 * What the last operand of an indirect `call` names (PTX ISA §9.7.12.2): a `.callprototype`
 * (`fproto`: any function of that signature) or a list of the possible targets (`flist`: a
 * `.calltargets` directive or a call table, a variable initialised with function names).
 */
export type CallList =
  | { readonly kind: 'prototype'; readonly signature: CallSignature }
  | { readonly kind: 'targets'; readonly names: readonly { readonly name: string; readonly line: number; readonly column: number }[] };

/** An indirect `call` as decoded: what its last operand named, for the parser to resolve once every function is known. */
export interface IndirectCallSite {
  /** The `fproto`/`flist` operand as written. */
  readonly listName: string;
  readonly line: number;
  readonly column: number;
  /** The prototype or target list; a call table (a variable) is `targets` with the variable's relocation symbols. */
  readonly list: CallList;
}

/** Result of decoding one statement. */
export interface Decoded {
  /** The instruction (labels unresolved: Label operands have `target` -1; `callee` -1). */
  readonly ins: MutableInstruction;
  /** `call` only: callee name, else '' (and '' for an indirect call). */
  readonly calleeName: string;
  /** Indirect `call` only: its prototype or target list; else undefined. */
  readonly indirect: IndirectCallSite | undefined;
}

/** Writable view of {@link Instruction}, used while building. */
export type MutableInstruction = { -readonly [K in keyof Instruction]: Instruction[K] };
type MutableOperand = { -readonly [K in keyof Operand]: Operand[K] };

const NO_OPERANDS: readonly Operand[] = Object.freeze([]);
const NO_TARGETS: readonly number[] = Object.freeze([]);
const NO_REGS = new Int32Array(0);

/** A fresh operand of `kind` with every field at its neutral value. */
export function newOperand(kind: Operand['kind'], text: string): MutableOperand {
  return {
    kind,
    reg: -1,
    negate: false,
    lo: 0,
    hi: 0,
    bits: 0n,
    value: 0,
    symbol: undefined,
    offset: 0,
    sreg: SpecialReg.None,
    component: -1,
    label: '',
    target: -1,
    elems: NO_OPERANDS,
    text,
  };
}

/** A fresh instruction with every field at its neutral value (same hidden class for all). */
export function newInstruction(index: number, op: Opcode, opText: string, line: number, column: number, debugLoc: DebugLoc | undefined): MutableInstruction {
  return {
    index,
    op,
    opText,
    type: ScalarType.None,
    type2: ScalarType.None,
    vec: 1,
    space: StateSpace.None,
    cvtaTo: false,
    rounding: Rounding.None,
    ftz: false,
    sat: false,
    approx: false,
    full: false,
    mulMode: MulMode.None,
    cmp: CmpOp.None,
    boolOp: BoolOp.None,
    atomOp: AtomOp.None,
    shflMode: ShflMode.None,
    voteMode: VoteMode.None,
    testOp: TestpOp.None,
    prmtMode: PrmtMode.Default,
    barOp: BarOp.None,
    barRed: BarRedOp.None,
    syscall: Syscall.None,
    scope: MemScope.None,
    uni: false,
    cc: false,
    nc: false,
    volatile: false,
    shiftAmt: false,
    shfRight: false,
    clamp: false,
    geom: TexGeom.None,
    texQuery: TexQuery.None,
    surfClamp: SurfClamp.None,
    texComp: -1,
    guard: -1,
    guardNegate: false,
    dst: NO_OPERANDS,
    src: NO_OPERANDS,
    callee: -1,
    callTargets: NO_TARGETS,
    callArgs: NO_OPERANDS,
    callRets: NO_OPERANDS,
    opClass: 0,
    srcRegs: NO_REGS,
    dstRegs: NO_REGS,
    accessBytes: 0,
    longLatency: false,
    line,
    column,
    debugLoc,
  };
}

// ---------------------------------------------------------------------------------------------
// Tables
// ---------------------------------------------------------------------------------------------

/** Scalar type by PTX spelling (without the dot). */
export const TYPE_BY_NAME: ReadonlyMap<string, ScalarType> = new Map(
  SCALAR_TYPE_NAME.map((n, i) => [n, i as ScalarType] as const).filter(([n]) => n !== ''),
);

const S = ScalarType;
const INT_TYPES: readonly ScalarType[] = [S.U16, S.U32, S.U64, S.S16, S.S32, S.S64];
const SIGNED_TYPES: readonly ScalarType[] = [S.S16, S.S32, S.S64];
const BIT_TYPES: readonly ScalarType[] = [S.B16, S.B32, S.B64];
const FLOAT_TYPES: readonly ScalarType[] = [S.F32, S.F64];
const LOGIC_TYPES: readonly ScalarType[] = [S.Pred, S.B16, S.B32, S.B64];
const SHR_TYPES: readonly ScalarType[] = [...BIT_TYPES, ...INT_TYPES];
const CMP_TYPES: readonly ScalarType[] = [...BIT_TYPES, ...INT_TYPES, S.F32, S.F64];
const MOV_TYPES: readonly ScalarType[] = [S.Pred, ...BIT_TYPES, ...INT_TYPES, S.F32, S.F64];
const LDST_TYPES: readonly ScalarType[] = [
  S.B8, S.B16, S.B32, S.B64, S.U8, S.U16, S.U32, S.U64, S.S8, S.S16, S.S32, S.S64, S.F16, S.F32, S.F64,
];
const CVT_TYPES: readonly ScalarType[] = [
  S.U8, S.U16, S.U32, S.U64, S.S8, S.S16, S.S32, S.S64, S.F16, S.F32, S.F64,
];

const FLOAT_ROUNDING: Readonly<Record<string, Rounding>> = { rn: Rounding.Rn, rz: Rounding.Rz, rm: Rounding.Rm, rp: Rounding.Rp };
const INT_ROUNDING: Readonly<Record<string, Rounding>> = { rni: Rounding.Rni, rzi: Rounding.Rzi, rmi: Rounding.Rmi, rpi: Rounding.Rpi };
const ALL_ROUNDING: Readonly<Record<string, Rounding>> = { ...FLOAT_ROUNDING, ...INT_ROUNDING };

const CMP_BY_NAME: Readonly<Record<string, CmpOp>> = {
  eq: CmpOp.Eq, ne: CmpOp.Ne, lt: CmpOp.Lt, le: CmpOp.Le, gt: CmpOp.Gt, ge: CmpOp.Ge,
  lo: CmpOp.Lt, ls: CmpOp.Le, hi: CmpOp.Gt, hs: CmpOp.Ge,
  equ: CmpOp.Equ, neu: CmpOp.Neu, ltu: CmpOp.Ltu, leu: CmpOp.Leu, gtu: CmpOp.Gtu, geu: CmpOp.Geu,
  num: CmpOp.Num, nan: CmpOp.Nan,
};
const BOOL_BY_NAME: Readonly<Record<string, BoolOp>> = { and: BoolOp.And, or: BoolOp.Or, xor: BoolOp.Xor };
const MULMODE_BY_NAME: Readonly<Record<string, MulMode>> = { lo: MulMode.Lo, hi: MulMode.Hi, wide: MulMode.Wide };
const SPACE_BY_NAME: Readonly<Record<string, StateSpace>> = {
  global: StateSpace.Global,
  shared: StateSpace.Shared,
  'shared::cta': StateSpace.Shared,
  const: StateSpace.Const,
  local: StateSpace.Local,
  param: StateSpace.Param,
  'param::entry': StateSpace.Param,
  'param::func': StateSpace.Param,
};
const SCOPE_BY_NAME: Readonly<Record<string, MemScope>> = { cta: MemScope.Cta, gpu: MemScope.Gpu, sys: MemScope.Sys };
const ATOM_BY_NAME: Readonly<Record<string, AtomOp>> = {
  add: AtomOp.Add, min: AtomOp.Min, max: AtomOp.Max, inc: AtomOp.Inc, dec: AtomOp.Dec, cas: AtomOp.Cas,
  exch: AtomOp.Exch, and: AtomOp.And, or: AtomOp.Or, xor: AtomOp.Xor,
};
const ATOM_TYPES: ReadonlyMap<AtomOp, readonly ScalarType[]> = new Map([
  [AtomOp.Add, [S.U32, S.S32, S.U64, S.S64, S.F32, S.F64]],
  [AtomOp.Min, [S.U32, S.S32, S.U64, S.S64]],
  [AtomOp.Max, [S.U32, S.S32, S.U64, S.S64]],
  [AtomOp.Inc, [S.U32]],
  [AtomOp.Dec, [S.U32]],
  [AtomOp.Cas, [S.B32, S.B64]],
  [AtomOp.Exch, [S.B32, S.B64]],
  [AtomOp.And, [S.B32, S.B64]],
  [AtomOp.Or, [S.B32, S.B64]],
  [AtomOp.Xor, [S.B32, S.B64]],
]);
const SHFL_BY_NAME: Readonly<Record<string, ShflMode>> = { up: ShflMode.Up, down: ShflMode.Down, bfly: ShflMode.Bfly, idx: ShflMode.Idx };
const VOTE_BY_NAME: Readonly<Record<string, VoteMode>> = { all: VoteMode.All, any: VoteMode.Any, uni: VoteMode.Uni, ballot: VoteMode.Ballot };
const TESTP_BY_NAME: Readonly<Record<string, TestpOp>> = {
  finite: TestpOp.Finite, infinite: TestpOp.Infinite, number: TestpOp.Number,
  notanumber: TestpOp.NotANumber, normal: TestpOp.Normal, subnormal: TestpOp.Subnormal,
};
const PRMT_BY_NAME: Readonly<Record<string, PrmtMode>> = {
  f4e: PrmtMode.F4e, b4e: PrmtMode.B4e, rc8: PrmtMode.Rc8, ecl: PrmtMode.Ecl, ecr: PrmtMode.Ecr, rc16: PrmtMode.Rc16,
};
/** Opcodes that take `.f16` (moving or converting halves, not computing with them). */
const HALF_OK: ReadonlySet<Opcode> = new Set([Opcode.Ld, Opcode.Ldu, Opcode.St, Opcode.Cvt, Opcode.Mov]);
const CACHE_OPS = new Set(['ca', 'cg', 'cs', 'lu', 'cv', 'wb', 'wt']);

/** Special registers warpstate does not model (PTX ISA chapter 10), with the feature named in the refusal. */
const UNSUPPORTED_SPECIAL: readonly (readonly [RegExp, string])[] = [
  [/^%pm\d+(_64)?$/, 'performance-monitoring counters (%pm<N>)'],
  [/^%(cluster|is_explicit_cluster|clusterid|nclusterid|cluster_ctaid|cluster_nctaid|cluster_ctarank|cluster_nctarank)/, 'thread-block clusters (%cluster*)'],
  [/^%(reserved_smem_offset|aggr_smem_size|current_graph_exec)/, 'special registers %reserved_smem_offset_*, %aggr_smem_size, %current_graph_exec'],
];

/** Special registers by name; the boolean says whether it has `.x/.y/.z` components. */
const SPECIAL_BY_NAME: ReadonlyMap<string, readonly [SpecialReg, boolean]> = new Map([
  ['%tid', [SpecialReg.Tid, true]],
  ['%ntid', [SpecialReg.Ntid, true]],
  ['%ctaid', [SpecialReg.Ctaid, true]],
  ['%nctaid', [SpecialReg.Nctaid, true]],
  ['%laneid', [SpecialReg.Laneid, false]],
  ['%warpid', [SpecialReg.Warpid, false]],
  ['%nwarpid', [SpecialReg.Nwarpid, false]],
  ['%smid', [SpecialReg.Smid, false]],
  ['%nsmid', [SpecialReg.Nsmid, false]],
  ['%gridid', [SpecialReg.Gridid, false]],
  ['%clock', [SpecialReg.Clock, false]],
  ['%clock_hi', [SpecialReg.ClockHi, false]],
  ['%clock64', [SpecialReg.Clock64, false]],
  ['%lanemask_eq', [SpecialReg.LanemaskEq, false]],
  ['%lanemask_le', [SpecialReg.LanemaskLe, false]],
  ['%lanemask_lt', [SpecialReg.LanemaskLt, false]],
  ['%lanemask_ge', [SpecialReg.LanemaskGe, false]],
  ['%lanemask_gt', [SpecialReg.LanemaskGt, false]],
  ['%globaltimer', [SpecialReg.Globaltimer, false]],
  ['%globaltimer_lo', [SpecialReg.GlobaltimerLo, false]],
  ['%globaltimer_hi', [SpecialReg.GlobaltimerHi, false]],
  ['%dynamic_smem_size', [SpecialReg.DynamicSmemSize, false]],
  ['%total_smem_size', [SpecialReg.TotalSmemSize, false]],
  ['WARP_SZ', [SpecialReg.WarpSize, false]],
]);

/**
 * PTX opcodes that exist but warpstate does not execute, each with the feature name its refusal
 * gives ("not supported: <feature>"), so a benchmark's PTX is refused with what it needs rather
 * than as an unknown opcode. Source: PTX ISA 9.0 chapter 9 (instruction list).
 */
const KNOWN_UNSUPPORTED: ReadonlyMap<string, string> = new Map([
  ['istypep', 'texture instructions (istypep)'],
  ['sured', 'surface reductions (sured)'],
  ['redux', 'warp reduction (redux.sync)'],
  ...['wmma', 'mma', 'ldmatrix', 'stmatrix', 'movmatrix', 'wgmma', 'tcgen05'].map((o) => [o, `warp matrix instructions (${o})`] as const),
  ['brx', 'indirect branch (brx.idx)'],
  ['brkpt', 'breakpoints (brkpt)'],
  ['pmevent', 'performance-monitor events (pmevent)'],
  ...['sad', 'lop3', 'fns', 'szext', 'dp4a', 'dp2a', 'tanh', 'prefetch', 'prefetchu', 'isspacep', 'elect', 'getctarank', 'mapa', 'applypriority', 'discard', 'createpolicy'].map((o) => [o, `instruction '${o}'`] as const),
  ...['cp', 'mbarrier', 'griddepcontrol', 'setmaxnreg', 'multimem', 'tensormap', 'clusterlaunchcontrol'].map((o) => [o, `asynchronous / cluster instructions (${o})`] as const),
  ...['alloca', 'stackrestore', 'stacksave'].map((o) => [o, `dynamic stack allocation (${o})`] as const),
  ...['vabsdiff', 'vadd', 'vsub', 'vmad', 'vmax', 'vmin', 'vset', 'vshl', 'vshr',
    'vabsdiff2', 'vadd2', 'vsub2', 'vavrg2', 'vmax2', 'vmin2', 'vset2',
    'vabsdiff4', 'vadd4', 'vsub4', 'vavrg4', 'vmax4', 'vmin4', 'vset4'].map((o) => [o, `SIMD video instructions (${o})`] as const),
]);

/** Opcodes executed on `.f16` values and `.f16x2` pairs (PTX ISA §9.7.4): `add`, `sub`, `mul`, `fma`. */
const HALF_ARITH: ReadonlySet<Opcode> = new Set([Opcode.Add, Opcode.Sub, Opcode.Mul, Opcode.Fma]);

/**
 * Modifier types of half-precision arithmetic, which warpstate does not execute (loads, stores,
 * moves and `cvt` of `.f16` it does, and `add`/`sub`/`mul`/`fma` of `.f16` and `.f16x2`).
 */
const HALF_TYPES = new Set(['f16x2', 'bf16', 'bf16x2', 'e4m3x2', 'e5m2x2', 'tf32']);

const OPCODE_BY_NAME: Readonly<Record<string, Opcode>> = {
  mov: Opcode.Mov, ld: Opcode.Ld, ldu: Opcode.Ldu, st: Opcode.St, cvta: Opcode.Cvta, cvt: Opcode.Cvt,
  add: Opcode.Add, sub: Opcode.Sub, mul: Opcode.Mul, mad: Opcode.Mad, mul24: Opcode.Mul24, mad24: Opcode.Mad24,
  div: Opcode.Div, rem: Opcode.Rem, abs: Opcode.Abs, neg: Opcode.Neg, min: Opcode.Min, max: Opcode.Max,
  and: Opcode.And, or: Opcode.Or, xor: Opcode.Xor, not: Opcode.Not, cnot: Opcode.Cnot, shl: Opcode.Shl,
  shr: Opcode.Shr, bfe: Opcode.Bfe, bfi: Opcode.Bfi, clz: Opcode.Clz, popc: Opcode.Popc, brev: Opcode.Brev,
  prmt: Opcode.Prmt, addc: Opcode.Addc, subc: Opcode.Subc, setp: Opcode.Setp, set: Opcode.Set,
  selp: Opcode.Selp, slct: Opcode.Slct, fma: Opcode.Fma, rcp: Opcode.Rcp, sqrt: Opcode.Sqrt,
  rsqrt: Opcode.Rsqrt, ex2: Opcode.Ex2, lg2: Opcode.Lg2, sin: Opcode.Sin, cos: Opcode.Cos,
  copysign: Opcode.Copysign, testp: Opcode.Testp, atom: Opcode.Atom, red: Opcode.Red, bar: Opcode.Bar,
  barrier: Opcode.Bar, membar: Opcode.Membar, fence: Opcode.Membar, bra: Opcode.Bra, ret: Opcode.Ret,
  exit: Opcode.Exit, call: Opcode.Call, shfl: Opcode.Shfl, vote: Opcode.Vote, activemask: Opcode.Activemask,
  bfind: Opcode.Bfind, madc: Opcode.Madc, shf: Opcode.Shf, nanosleep: Opcode.Nanosleep, bmsk: Opcode.Bmsk,
  trap: Opcode.Trap, match: Opcode.Match, tex: Opcode.Tex, tld4: Opcode.Tld4, txq: Opcode.Txq, suld: Opcode.Suld, sust: Opcode.Sust,
  suq: Opcode.Suq,
};

/** Geometries of `tex`/`tld4`/`suld`/`sust` warpstate executes, by modifier. */
const GEOM_BY_NAME: Readonly<Record<string, TexGeom>> = { '1d': TexGeom.D1, '2d': TexGeom.D2, '3d': TexGeom.D3, a1d: TexGeom.A1d, a2d: TexGeom.A2d };
/** Geometries PTX has and warpstate does not execute. */
const UNSUPPORTED_GEOMS = new Set(['cube', 'acube', '2dms', 'a2dms']);
/** `txq` attributes (PTX ISA §9.7.10.5); the sampler ones may also be asked of a `.samplerref`. */
const TXQ_BY_NAME: Readonly<Record<string, TexQuery>> = {
  width: TexQuery.Width, height: TexQuery.Height, depth: TexQuery.Depth, array_size: TexQuery.ArraySize,
  num_mipmap_levels: TexQuery.NumMipmapLevels, num_samples: TexQuery.NumSamples, normalized_coords: TexQuery.NormalizedCoords,
  filter_mode: TexQuery.FilterMode, addr_mode_0: TexQuery.AddrMode0, addr_mode_1: TexQuery.AddrMode1, addr_mode_2: TexQuery.AddrMode2,
  force_unnormalized_coords: TexQuery.ForceUnnormalizedCoords,
};
/** `suq` attributes (PTX ISA §9.7.11.4). */
const SUQ_BY_NAME: Readonly<Record<string, TexQuery>> = { width: TexQuery.Width, height: TexQuery.Height, depth: TexQuery.Depth, array_size: TexQuery.ArraySize };
/** Sampler attributes of `txq` (answered by a `.samplerref` too). */
const SAMPLER_QUERIES: ReadonlySet<TexQuery> = new Set([TexQuery.FilterMode, TexQuery.AddrMode0, TexQuery.AddrMode1, TexQuery.AddrMode2, TexQuery.ForceUnnormalizedCoords]);
const SURF_CLAMP_BY_NAME: Readonly<Record<string, SurfClamp>> = { trap: SurfClamp.Trap, clamp: SurfClamp.Clamp, zero: SurfClamp.Zero };
const SURF_CACHE_OPS = new Set(['ca', 'cg', 'cs', 'cv', 'wb', 'wt']);

/**
 * Why an opcode word cannot be decoded, or undefined when its base opcode is one warpstate
 * executes. Lets the parser refuse `tex`, `lop3` ... before trying to parse their operands.
 */
export function opcodeProblem(opcode: string): string | undefined {
  const base = opcode.split('.')[0]!;
  if (Object.hasOwn(OPCODE_BY_NAME, base)) return undefined;
  const feature = KNOWN_UNSUPPORTED.get(base);
  return feature !== undefined ? `not supported: ${feature}` : `unknown opcode '${base}'`;
}

function doubleWidth(t: ScalarType): ScalarType {
  switch (t) {
    case S.U16: return S.U32;
    case S.U32: return S.U64;
    case S.S16: return S.S32;
    case S.S32: return S.S64;
    case S.B16: return S.B32;
    case S.B32: return S.B64;
    default: return S.None;
  }
}

/** Bits type of a given width (16/32/64), used for vector elements of `mov` pack/unpack. */
function bitsTypeOf(width: number): ScalarType {
  return width === 8 ? S.B8 : width === 16 ? S.B16 : width === 32 ? S.B32 : width === 64 ? S.B64 : S.None;
}

/**
 * Whether a register of type `reg` may stand where the instruction expects type `want`.
 * `wide` allows integer/bit registers wider than an integer/bit instruction type (ld/st/cvt).
 * Source: PTX ISA 9.0 §6.4.3-§6.4.4.
 */
export function registerTypeCompatible(want: ScalarType, reg: ScalarType, wide: boolean): boolean {
  if (want === S.Pred || reg === S.Pred) return want === reg;
  const wb = SCALAR_TYPE_BITS[want]!;
  const rb = SCALAR_TYPE_BITS[reg]!;
  const wk = SCALAR_TYPE_KIND[want]!;
  const rk = SCALAR_TYPE_KIND[reg]!;
  if (wb !== rb) {
    if (!wide || rb < wb) return false;
    return wk !== TypeKind.Float && rk !== TypeKind.Float;
  }
  if (wk === TypeKind.Bits || rk === TypeKind.Bits) return true;
  if (wk === TypeKind.Float || rk === TypeKind.Float) return wk === rk;
  return true;
}

// ---------------------------------------------------------------------------------------------
// Decoder
// ---------------------------------------------------------------------------------------------

type OperandRule = 'exact' | 'wide';

class Decoder {
  private readonly mods: string[];
  private readonly used: boolean[];
  readonly ins: MutableInstruction;
  readonly base: string;
  calleeName = '';
  indirect: IndirectCallSite | undefined = undefined;

  constructor(
    private readonly raw: RawInstruction,
    private readonly ctx: DecodeContext,
    index: number,
    debugLoc: DebugLoc | undefined,
  ) {
    const parts = raw.opcode.split('.');
    this.base = parts[0]!;
    this.mods = parts.slice(1);
    this.used = this.mods.map(() => false);
    const op = OPCODE_BY_NAME[this.base];
    if (op === undefined) {
      throw new InputError({ file: ctx.file, line: raw.opLine, column: raw.opColumn }, opcodeProblem(raw.opcode)!, raw.opcode);
    }
    this.ins = newInstruction(index, op, raw.opcode, raw.line, raw.column, debugLoc);
  }

  // ----- errors -----

  fail(reason: string, at?: { line: number; column: number }, field?: string): never {
    const line = at ? at.line : this.raw.opLine;
    const column = at ? at.column : this.raw.opColumn;
    throw new InputError({ file: this.ctx.file, line, column }, reason, field ?? this.raw.opcode);
  }

  failOperand(o: RawOperand, reason: string): never {
    throw new InputError({ file: this.ctx.file, line: o.line, column: o.column }, `${this.raw.opcode}: ${reason}`, o.text);
  }

  // ----- modifiers -----

  /** Takes modifier `name` if present. */
  flag(name: string): boolean {
    let found = false;
    for (let i = 0; i < this.mods.length; i++) {
      if (this.mods[i] === name) {
        if (this.used[i]) this.fail(`modifier '.${name}' given twice`);
        this.used[i] = true;
        found = true;
      }
    }
    return found;
  }

  /** Takes at most one modifier from `table`; two different ones are an error. */
  pick<T>(table: Readonly<Record<string, T>>, what: string): T | undefined {
    let result: T | undefined;
    let name = '';
    for (let i = 0; i < this.mods.length; i++) {
      const m = this.mods[i]!;
      if (this.used[i] || !Object.hasOwn(table, m)) continue;
      if (result !== undefined) this.fail(`conflicting ${what} modifiers '.${name}' and '.${m}'`);
      result = table[m];
      name = m;
      this.used[i] = true;
    }
    return result;
  }

  /** Takes all type modifiers, in order. */
  types(): ScalarType[] {
    const out: ScalarType[] = [];
    for (let i = 0; i < this.mods.length; i++) {
      if (this.used[i]) continue;
      const t = TYPE_BY_NAME.get(this.mods[i]!);
      if (t !== undefined) {
        out.push(t);
        this.used[i] = true;
      }
    }
    return out;
  }

  /** Exactly one type modifier from `allowed`. */
  oneType(allowed: readonly ScalarType[]): ScalarType {
    const ts = this.types();
    if (ts.length === 0) this.fail(`missing type modifier on '${this.base}'`);
    if (ts.length > 1) this.fail(`'${this.base}' takes one type, got .${ts.map((t) => SCALAR_TYPE_NAME[t]).join(' .')}`);
    const t = ts[0]!;
    if (!allowed.includes(t)) {
      this.fail(`type .${SCALAR_TYPE_NAME[t]} is not supported for '${this.base}' (allowed: ${allowed.map((a) => '.' + SCALAR_TYPE_NAME[a]).join(' ')})`);
    }
    this.ins.type = t;
    return t;
  }

  /** Vector modifier `.v2`/`.v4` (1 if absent). */
  vector(): number {
    const v = this.pick({ v2: 2, v4: 4 } as Record<string, number>, 'vector');
    return v ?? 1;
  }

  /** Every modifier must have been consumed. */
  done(): void {
    for (let i = 0; i < this.mods.length; i++) {
      if (!this.used[i]) this.fail(`not supported: modifier '.${this.mods[i]}' on '${this.base}'`);
    }
  }

  requireSync(): void {
    if (!this.flag('sync')) this.fail(`not supported: '${this.base}' without '.sync' (deprecated since PTX 6.0)`);
  }

  // ----- operands -----

  count(n: number, max = n): readonly RawOperand[] {
    const ops = this.raw.operands;
    if (ops.length < n || ops.length > max) {
      const want = n === max ? `${n}` : `${n} to ${max}`;
      this.fail(`'${this.base}' expects ${want} operand${max === 1 ? '' : 's'}, got ${ops.length}`);
    }
    return ops;
  }

  private typeName(t: ScalarType): string {
    return '.' + SCALAR_TYPE_NAME[t];
  }

  /** Resolves a Name operand to a register, or fails. */
  private register(o: RawOperand, want: ScalarType, rule: OperandRule, role: string): RegisterInfo {
    if (o.kind !== RawKind.Name) this.failOperand(o, `${role} must be a register`);
    const r = this.ctx.findRegister(o.name);
    if (!r) {
      const unsupported = UNSUPPORTED_SPECIAL.find(([re]) => re.test(o.name));
      if (unsupported) this.failOperand(o, `not supported: ${unsupported[1]}`);
      this.refuseFunctionAddress(o);
      if (SPECIAL_BY_NAME.has(o.name) || SPECIAL_BY_NAME.has(o.name.replace(/\.[xyz]$/, '')) || /^%envreg\d+$/.test(o.name)) {
        this.failOperand(o, `special register '${o.name}' can only be read by mov or cvt`);
      }
      if (this.ctx.findVariable(o.name)) this.failOperand(o, `${role} must be a register, '${o.name}' is a variable`);
      this.failOperand(o, `undeclared register '${o.name}'`);
    }
    if (o.offset !== 0n) this.failOperand(o, `register operand cannot take an offset`);
    if (!registerTypeCompatible(want, r.type, rule === 'wide')) {
      this.failOperand(o, `register '${o.name}' has type ${this.typeName(r.type)}, incompatible with ${this.typeName(want)}`);
    }
    return r;
  }

  /**
   * A function name where a register is expected: a kernel's address would be a device-side
   * launch (refused, not supported); a `.func`'s address is only taken by `mov` (PTX ISA §9.7.9.3).
   */
  private refuseFunctionAddress(o: RawOperand): void {
    const kind = this.ctx.functionKind?.(o.name);
    if (kind === 'entry') this.failOperand(o, `not supported: dynamic parallelism (address of kernel '${o.name}')`);
    if (kind === 'func') this.failOperand(o, `'${o.name}' is a function: take its address with mov (mov.u64 %rd, ${o.name};)`);
  }

  /**
   * `mov.{u32,u64,b32,b64,s32,s64} d, f` with `f` a `.func`: the function's address
   * ({@link functionAddress}) as an immediate, or undefined when `o` names no `.func`.
   */
  private functionPointer(o: RawOperand, want: ScalarType): Operand | undefined {
    const kind = this.ctx.functionKind?.(o.name);
    if (kind === 'entry') this.failOperand(o, `not supported: dynamic parallelism (address of kernel '${o.name}')`);
    if (kind !== 'func') return undefined;
    const k = SCALAR_TYPE_KIND[want]!;
    const b = SCALAR_TYPE_BITS[want]!;
    if ((k !== TypeKind.Unsigned && k !== TypeKind.Signed && k !== TypeKind.Bits) || (b !== 32 && b !== 64)) {
      this.failOperand(o, `the address of function '${o.name}' needs a 32- or 64-bit integer type, not ${this.typeName(want)}`);
    }
    if (o.negate || o.offset !== 0n) this.failOperand(o, `a function address takes no offset`);
    const index = this.ctx.takeFunctionAddress?.(o.name);
    if (index === undefined) return undefined;
    const a = functionAddress(index);
    const op = newOperand(OperandKind.Imm, o.text);
    op.bits = BigInt(a);
    op.lo = a >>> 0;
    op.hi = 0;
    op.value = a;
    return op;
  }

  regOperand(r: RegisterInfo, o: RawOperand, negate: boolean): Operand {
    const op = newOperand(OperandKind.Reg, o.text);
    op.reg = r.index;
    op.negate = negate;
    return op;
  }

  /** A destination register of type `want`. */
  dstReg(o: RawOperand, want: ScalarType, rule: OperandRule = 'exact'): Operand {
    if (o.negate) this.failOperand(o, 'a destination cannot be negated');
    return this.regOperand(this.register(o, want, rule, 'destination'), o, false);
  }

  /** A predicate source, `!` allowed when `allowNegate`. */
  predSrc(o: RawOperand, allowNegate: boolean): Operand {
    if (o.kind === RawKind.Number) this.failOperand(o, 'expected a predicate register');
    if (o.negate && !allowNegate) this.failOperand(o, 'this predicate operand cannot be negated');
    return this.regOperand(this.register(o, S.Pred, 'exact', 'predicate operand'), o, o.negate);
  }

  /** A source register or immediate of type `want`. */
  src(o: RawOperand, want: ScalarType, rule: OperandRule = 'exact', allowImm = true): Operand {
    if (o.kind === RawKind.Number) {
      if (!allowImm) this.failOperand(o, 'an immediate is not allowed here');
      return this.immediate(o, want);
    }
    if (o.kind !== RawKind.Name) this.failOperand(o, `expected a register${allowImm ? ' or immediate' : ''}`);
    if (o.negate) this.failOperand(o, 'only predicate operands of setp/set/vote can be negated');
    return this.regOperand(this.register(o, want, rule, 'source'), o, false);
  }

  /** Encodes a literal in a position of type `want` (see {@link Operand.lo}). */
  immediate(o: RawOperand, want: ScalarType): Operand {
    const lit = parseLiteral(o.num);
    if (!lit) this.failOperand(o, `malformed numeric literal '${o.num}'`);
    const op = newOperand(OperandKind.Imm, o.text);
    const kind = SCALAR_TYPE_KIND[want]!;
    const width = SCALAR_TYPE_BITS[want]!;
    let bits: bigint;
    let value: number;
    if (kind === TypeKind.Pred) {
      // PTX ISA §6.4.2 / §5.2.4: integer constants stand for predicates as in C, zero is false
      // and any other value true (nvcc writes `mov.pred %p, -1`, `xor.pred %p, %q, -1`).
      if (lit.kind !== 'int') this.failOperand(o, 'a predicate immediate must be an integer (0 is false, anything else true)');
      bits = lit.value === 0n ? 0n : 1n;
      value = Number(bits);
    } else if (want === S.F32 || want === S.F64) {
      let x: number;
      switch (lit.kind) {
        case 'int': x = Number(lit.value); break;
        case 'float': x = lit.value; break;
        case 'f32bits': x = bitsToF32(lit.bits); break;
        case 'f64bits': x = bitsToF64(lit.bits); break;
      }
      if (o.numNeg) x = -x;
      if (want === S.F32) {
        const b = lit.kind === 'f32bits' ? (o.numNeg ? (lit.bits ^ 0x80000000) >>> 0 : lit.bits) : f32ToBits(x);
        bits = BigInt(b);
        value = bitsToF32(b);
      } else {
        bits = lit.kind === 'f64bits' ? (o.numNeg ? lit.bits ^ (1n << 63n) : lit.bits) : f64ToBits(x);
        value = bitsToF64(bits);
      }
    } else if (kind === TypeKind.Float) {
      this.failOperand(o, `immediates of type ${this.typeName(want)} are not supported (use a .b16 move)`);
    } else {
      // integer or bits position
      if (lit.kind === 'f32bits' || lit.kind === 'f64bits') {
        const litWidth = lit.kind === 'f32bits' ? 32 : 64;
        if (litWidth !== width || o.numNeg) this.failOperand(o, `a ${litWidth}-bit float literal does not fit a ${this.typeName(want)} operand`);
        bits = BigInt(lit.bits);
        value = Number(bits);
      } else if (lit.kind === 'float') {
        this.failOperand(o, `a floating-point literal is not allowed for ${this.typeName(want)}`);
      } else {
        const v = o.numNeg ? -lit.value : lit.value;
        const lo = -(1n << BigInt(width - 1));
        const hi = (1n << BigInt(width)) - 1n;
        if (v < lo || v > hi) this.failOperand(o, `immediate ${o.numNeg ? '-' : ''}${o.num} does not fit in ${this.typeName(want)}`);
        bits = BigInt.asUintN(64, v);
        value = Number(v);
      }
    }
    op.bits = bits;
    op.lo = Number(bits & 0xffffffffn) >>> 0;
    op.hi = Number((bits >> 32n) & 0xffffffffn) >>> 0;
    op.value = value;
    return op;
  }

  /** A memory address operand for state space `space`. */
  address(o: RawOperand, space: StateSpace): Operand {
    if (o.kind !== RawKind.Addr) this.failOperand(o, 'expected an address [..]');
    const op = newOperand(OperandKind.Addr, o.text);
    const off = o.offset;
    if (off < -(1n << 31n) || off >= 1n << 31n) this.failOperand(o, 'address offset out of the 32-bit range');
    op.offset = Number(off);
    if (o.name === '') {
      // [imm]: absolute address
      const lit = parseLiteral(o.num);
      if (!lit || lit.kind !== 'int' || o.numNeg) this.failOperand(o, 'malformed absolute address');
      const abs = lit.value + off;
      if (abs < 0n || abs >= 1n << 53n) this.failOperand(o, 'absolute address out of range');
      op.offset = Number(abs);
      return op;
    }
    const r = this.ctx.findRegister(o.name);
    if (r) {
      const k = SCALAR_TYPE_KIND[r.type]!;
      if (r.isPred || k === TypeKind.Float || (r.bits !== 32 && r.bits !== 64)) {
        this.failOperand(o, `address register '${o.name}' must be a 32- or 64-bit integer register, not ${this.typeName(r.type)}`);
      }
      op.reg = r.index;
      return op;
    }
    const v = this.ctx.findVariable(o.name);
    if (!v) this.failOperand(o, `undeclared register or variable '${o.name}' in address`);
    if (v.opaque !== OpaqueType.None) this.failOperand(o, `'${o.name}' is a texture, surface or sampler reference, not memory`);
    if (space !== StateSpace.Generic && v.space !== space) {
      this.failOperand(o, `'${o.name}' is in .${STATE_SPACE_NAME[v.space]} space, not .${STATE_SPACE_NAME[space]}`);
    }
    if (space === StateSpace.Generic && v.space === StateSpace.Param) {
      this.failOperand(o, `parameter '${o.name}' has no generic address`);
    }
    op.symbol = v;
    return op;
  }

  /** A variable's address used as a value (`mov.u64 %rd, gvar`). */
  symbol(o: RawOperand, v: PtxVariable, want: ScalarType): Operand {
    const k = SCALAR_TYPE_KIND[want]!;
    const b = SCALAR_TYPE_BITS[want]!;
    if ((k !== TypeKind.Unsigned && k !== TypeKind.Signed && k !== TypeKind.Bits) || (b !== 32 && b !== 64)) {
      this.failOperand(o, `the address of '${v.name}' needs a 32- or 64-bit integer type, not ${this.typeName(want)}`);
    }
    if (o.negate) this.failOperand(o, 'an address cannot be negated');
    if (v.opaque !== OpaqueType.None) this.failOperand(o, `not supported: the value of texture, surface or sampler reference '${v.name}'`);
    if (o.offset < -(1n << 31n) || o.offset >= 1n << 31n) this.failOperand(o, 'symbol offset out of range');
    const op = newOperand(OperandKind.Symbol, o.text);
    op.symbol = v;
    op.offset = Number(o.offset);
    return op;
  }

  /** A special register read by mov/cvt, or undefined when `o` names none. */
  special(o: RawOperand, want: ScalarType): Operand | undefined {
    if (o.kind !== RawKind.Name) return undefined;
    const unsupported = UNSUPPORTED_SPECIAL.find(([re]) => re.test(o.name));
    if (unsupported) this.failOperand(o, `not supported: ${unsupported[1]}`);
    let name = o.name;
    let component = -1;
    const env = /^%envreg(\d+)$/.exec(name);
    if (env) {
      // %envreg0..31 (PTX ISA §10.x): read-only driver-defined values
      const n = Number(env[1]);
      if (n > 31) this.failOperand(o, `'${name}' does not exist (%envreg0 .. %envreg31)`);
      if (o.negate || o.offset !== 0n) this.failOperand(o, 'malformed special register operand');
      const k = SCALAR_TYPE_KIND[want]!;
      if ((k !== TypeKind.Unsigned && k !== TypeKind.Signed && k !== TypeKind.Bits) || SCALAR_TYPE_BITS[want] !== 32) this.failOperand(o, `special register '${name}' is 32-bit, incompatible with ${this.typeName(want)}`);
      const op = newOperand(OperandKind.Special, o.text);
      op.sreg = SpecialReg.Envreg;
      op.component = n;
      return op;
    }
    let entry = SPECIAL_BY_NAME.get(name);
    if (!entry) {
      const m = /^(.*)\.([xyz])$/.exec(name);
      if (!m) return undefined;
      entry = SPECIAL_BY_NAME.get(m[1]!);
      if (!entry) return undefined;
      if (!entry[1]) this.failOperand(o, `special register '${m[1]}' has no components`);
      name = m[1]!;
      component = m[2] === 'x' ? 0 : m[2] === 'y' ? 1 : 2;
    } else if (entry[1]) {
      this.failOperand(o, `special register '${name}' needs a component .x, .y or .z`);
    }
    if (o.negate || o.offset !== 0n) this.failOperand(o, 'malformed special register operand');
    const width = SPECIAL_REG_BITS[entry[0]]!;
    const k = SCALAR_TYPE_KIND[want]!;
    if ((k !== TypeKind.Unsigned && k !== TypeKind.Signed && k !== TypeKind.Bits) || SCALAR_TYPE_BITS[want] !== width) {
      this.failOperand(o, `special register '${name}' is ${width}-bit, incompatible with ${this.typeName(want)}`);
    }
    const op = newOperand(OperandKind.Special, o.text);
    op.sreg = entry[0];
    op.component = component;
    return op;
  }

  vecOf(o: RawOperand, n: number, elem: (e: RawOperand) => Operand, allowSink: boolean): Operand {
    if (o.kind !== RawKind.Vec) this.failOperand(o, `expected a vector of ${n} elements {..}`);
    if (o.elems.length !== n) this.failOperand(o, `expected ${n} vector elements, got ${o.elems.length}`);
    const op = newOperand(OperandKind.Vec, o.text);
    op.elems = o.elems.map((e) => {
      if (e.kind === RawKind.Sink) {
        if (!allowSink) this.failOperand(e, 'a sink _ is not allowed here');
        return newOperand(OperandKind.Sink, '_');
      }
      return elem(e);
    });
    return op;
  }

  // -------------------------------------------------------------------------------------------
  // Families
  // -------------------------------------------------------------------------------------------

  decode(): Decoded {
    const ins = this.ins;
    const half = this.mods.find((m) => HALF_TYPES.has(m)) ?? (this.mods.includes('f16') && !HALF_OK.has(ins.op) ? 'f16' : undefined);
    if ((half === 'f16' || half === 'f16x2') && HALF_ARITH.has(ins.op)) {
      this.halfArith(half === 'f16x2');
      return { ins, calleeName: '', indirect: undefined };
    }
    if (half !== undefined) this.fail(`not supported: half-precision arithmetic (.${half})`);
    switch (ins.op) {
      case Opcode.Add:
      case Opcode.Sub:
        this.addSub();
        break;
      case Opcode.Addc:
      case Opcode.Subc: {
        ins.cc = this.flag('cc');
        const t = this.oneType([S.U32, S.S32, S.U64, S.S64]);
        this.done();
        this.ternaryOps(t, 2);
        this.ctx.carryRegister();
        break;
      }
      case Opcode.Mul:
      case Opcode.Mad:
        this.mulMad();
        break;
      case Opcode.Madc: {
        const mode = this.pick(MULMODE_BY_NAME, 'multiply mode');
        if (mode !== MulMode.Lo && mode !== MulMode.Hi) this.fail(`'madc' needs .lo or .hi`);
        ins.mulMode = mode;
        ins.cc = this.flag('cc');
        const t = this.oneType([S.U32, S.S32, S.U64, S.S64]);
        this.done();
        this.ternaryOps(t, 3);
        this.ctx.carryRegister();
        break;
      }
      case Opcode.Shf: {
        const l = this.flag('l');
        const r = this.flag('r');
        if (l === r) this.fail(`'shf' needs exactly one of .l or .r`);
        const clamp = this.flag('clamp');
        const wrap = this.flag('wrap');
        if (clamp === wrap) this.fail(`'shf' needs exactly one of .clamp or .wrap`);
        ins.shfRight = r;
        ins.clamp = clamp;
        this.oneType([S.B32]);
        this.done();
        const ops = this.count(4);
        ins.dst = [this.dstReg(ops[0]!, S.B32)];
        ins.src = [this.src(ops[1]!, S.B32), this.src(ops[2]!, S.B32), this.src(ops[3]!, S.U32)];
        break;
      }
      case Opcode.Mul24:
      case Opcode.Mad24: {
        const mode = this.pick(MULMODE_BY_NAME, 'multiply mode');
        if (mode !== MulMode.Lo && mode !== MulMode.Hi) this.fail(`'${this.base}' needs .lo or .hi`);
        ins.mulMode = mode;
        ins.sat = this.flag('sat');
        const t = this.oneType([S.U32, S.S32]);
        if (ins.sat && (ins.op !== Opcode.Mad24 || mode !== MulMode.Hi || t !== S.S32)) this.fail(`.sat is only allowed on mad24.hi.s32`);
        this.done();
        this.ternaryOps(t, ins.op === Opcode.Mad24 ? 3 : 2);
        break;
      }
      case Opcode.Div:
        this.div();
        break;
      case Opcode.Rem: {
        const t = this.oneType(INT_TYPES);
        this.done();
        this.ternaryOps(t, 2);
        break;
      }
      case Opcode.Abs:
      case Opcode.Neg: {
        const ts = this.types();
        this.putBackTypes(ts);
        const isFloat = ts.length === 1 && (ts[0] === S.F32 || ts[0] === S.F64);
        if (isFloat) {
          ins.ftz = this.flag('ftz');
          const t = this.oneType(FLOAT_TYPES);
          if (ins.ftz && t !== S.F32) this.fail('.ftz is only allowed with .f32');
          this.done();
          this.ternaryOps(t, 1);
        } else {
          const t = this.oneType(SIGNED_TYPES);
          this.done();
          this.ternaryOps(t, 1);
        }
        break;
      }
      case Opcode.Min:
      case Opcode.Max: {
        ins.ftz = this.flag('ftz');
        const t = this.oneType([...INT_TYPES, S.F32, S.F64]);
        if (ins.ftz && t !== S.F32) this.fail('.ftz is only allowed with .f32');
        this.done();
        this.ternaryOps(t, 2);
        break;
      }
      case Opcode.And:
      case Opcode.Or:
      case Opcode.Xor: {
        const t = this.oneType(LOGIC_TYPES);
        this.done();
        this.ternaryOps(t, 2);
        break;
      }
      case Opcode.Not: {
        const t = this.oneType(LOGIC_TYPES);
        this.done();
        this.ternaryOps(t, 1);
        break;
      }
      case Opcode.Cnot: {
        const t = this.oneType(BIT_TYPES);
        this.done();
        this.ternaryOps(t, 1);
        break;
      }
      case Opcode.Shl:
      case Opcode.Shr: {
        const t = this.oneType(ins.op === Opcode.Shl ? BIT_TYPES : SHR_TYPES);
        this.done();
        const ops = this.count(3);
        ins.dst = [this.dstReg(ops[0]!, t)];
        ins.src = [this.src(ops[1]!, t), this.src(ops[2]!, S.U32)];
        break;
      }
      case Opcode.Bfe: {
        const t = this.oneType([S.U32, S.U64, S.S32, S.S64]);
        this.done();
        const ops = this.count(4);
        ins.dst = [this.dstReg(ops[0]!, t)];
        ins.src = [this.src(ops[1]!, t), this.src(ops[2]!, S.U32), this.src(ops[3]!, S.U32)];
        break;
      }
      case Opcode.Bfi: {
        const t = this.oneType([S.B32, S.B64]);
        this.done();
        const ops = this.count(5);
        ins.dst = [this.dstReg(ops[0]!, t)];
        ins.src = [this.src(ops[1]!, t), this.src(ops[2]!, t), this.src(ops[3]!, S.U32), this.src(ops[4]!, S.U32)];
        break;
      }
      case Opcode.Clz:
      case Opcode.Popc: {
        const t = this.oneType([S.B32, S.B64]);
        this.done();
        const ops = this.count(2);
        ins.dst = [this.dstReg(ops[0]!, S.U32)];
        ins.src = [this.src(ops[1]!, t)];
        break;
      }
      case Opcode.Bfind: {
        ins.shiftAmt = this.flag('shiftamt');
        const t = this.oneType([S.U32, S.U64, S.S32, S.S64]);
        this.done();
        const ops = this.count(2);
        ins.dst = [this.dstReg(ops[0]!, S.U32)];
        ins.src = [this.src(ops[1]!, t)];
        break;
      }
      case Opcode.Brev: {
        const t = this.oneType([S.B32, S.B64]);
        this.done();
        this.ternaryOps(t, 1);
        break;
      }
      case Opcode.Prmt: {
        ins.prmtMode = this.pick(PRMT_BY_NAME, 'prmt mode') ?? PrmtMode.Default;
        const t = this.oneType([S.B32]);
        this.done();
        this.ternaryOps(t, 3);
        break;
      }
      case Opcode.Copysign: {
        const t = this.oneType(FLOAT_TYPES);
        this.done();
        this.ternaryOps(t, 2);
        break;
      }
      case Opcode.Fma:
        this.fma();
        break;
      case Opcode.Rcp:
      case Opcode.Sqrt:
      case Opcode.Rsqrt:
      case Opcode.Ex2:
      case Opcode.Lg2:
      case Opcode.Sin:
      case Opcode.Cos:
        this.unaryFloat();
        break;
      case Opcode.Testp: {
        const top = this.pick(TESTP_BY_NAME, 'testp');
        if (top === undefined) this.fail(`'testp' needs one of .finite .infinite .number .notanumber .normal .subnormal`);
        ins.testOp = top;
        const t = this.oneType(FLOAT_TYPES);
        this.done();
        const ops = this.count(2);
        ins.dst = [this.dstReg(ops[0]!, S.Pred)];
        ins.src = [this.src(ops[1]!, t, 'exact', false)];
        break;
      }
      case Opcode.Setp:
      case Opcode.Set:
        this.setp();
        break;
      case Opcode.Selp: {
        const t = this.oneType([...BIT_TYPES, ...INT_TYPES, S.F32, S.F64]);
        this.done();
        const ops = this.count(4);
        ins.dst = [this.dstReg(ops[0]!, t)];
        ins.src = [this.src(ops[1]!, t), this.src(ops[2]!, t), this.predSrc(ops[3]!, false)];
        break;
      }
      case Opcode.Slct: {
        ins.ftz = this.flag('ftz');
        const ts = this.types();
        if (ts.length !== 2) this.fail(`'slct' needs two types (.dtype.ctype)`);
        const [d, c] = ts as [ScalarType, ScalarType];
        if (![...BIT_TYPES, ...INT_TYPES, S.F32, S.F64].includes(d)) this.fail(`type .${SCALAR_TYPE_NAME[d]} is not supported for 'slct'`);
        if (c !== S.S32 && c !== S.F32) this.fail(`'slct' compares an .s32 or .f32 operand, not .${SCALAR_TYPE_NAME[c]}`);
        if (ins.ftz && c !== S.F32) this.fail('.ftz is only allowed with an .f32 comparand');
        ins.type = d;
        ins.type2 = c;
        this.done();
        const ops = this.count(4);
        ins.dst = [this.dstReg(ops[0]!, d)];
        ins.src = [this.src(ops[1]!, d), this.src(ops[2]!, d), this.src(ops[3]!, c)];
        break;
      }
      case Opcode.Mov:
        this.mov();
        break;
      case Opcode.Ld:
      case Opcode.Ldu:
      case Opcode.St:
        this.loadStore();
        break;
      case Opcode.Cvta: {
        ins.cvtaTo = this.flag('to');
        const sp = this.pick(SPACE_BY_NAME, 'state space');
        if (sp === undefined) this.fail(`'cvta' needs a state space (.global .shared .const .local .param)`);
        ins.space = sp;
        const t = this.oneType([S.U32, S.U64]);
        this.done();
        const ops = this.count(2);
        ins.dst = [this.dstReg(ops[0]!, t)];
        const a = ops[1]!;
        if (!ins.cvtaTo && a.kind === RawKind.Name && !this.ctx.findRegister(a.name)) {
          const v = this.ctx.findVariable(a.name);
          if (v) {
            if (v.space !== sp) this.failOperand(a, `'${a.name}' is in .${STATE_SPACE_NAME[v.space]} space, not .${STATE_SPACE_NAME[sp]}`);
            ins.src = [this.symbol(a, v, t)];
            break;
          }
        }
        ins.src = [this.src(a, t, 'exact', false)];
        break;
      }
      case Opcode.Cvt:
        this.cvt();
        break;
      case Opcode.Atom:
      case Opcode.Red:
        this.atom();
        break;
      case Opcode.Bar:
        this.bar();
        break;
      case Opcode.Membar:
        this.membar();
        break;
      case Opcode.Bra: {
        ins.uni = this.flag('uni');
        this.done();
        const ops = this.count(1);
        const o = ops[0]!;
        if (o.kind !== RawKind.Name || o.negate || o.offset !== 0n) this.failOperand(o, 'expected a label');
        if (this.ctx.findRegister(o.name)) this.failOperand(o, 'not supported: indirect branches');
        const op = newOperand(OperandKind.Label, o.text);
        op.label = o.name;
        ins.src = [op];
        break;
      }
      case Opcode.Ret:
        ins.uni = this.flag('uni');
        this.done();
        this.count(0);
        break;
      case Opcode.Exit:
        this.done();
        this.count(0);
        break;
      case Opcode.Call:
        this.call();
        break;
      case Opcode.Shfl: {
        this.requireSync();
        const mode = this.pick(SHFL_BY_NAME, 'shuffle mode');
        if (mode === undefined) this.fail(`'shfl.sync' needs .up, .down, .bfly or .idx`);
        ins.shflMode = mode;
        const t = this.oneType([S.B32]);
        this.done();
        const ops = this.count(5);
        const d = ops[0]!;
        if (d.kind === RawKind.Pair) {
          ins.dst = [this.dstReg(d.elems[0]!, t), this.dstReg(d.elems[1]!, S.Pred)];
        } else {
          ins.dst = [this.dstReg(d, t)];
        }
        ins.src = [this.src(ops[1]!, t), this.src(ops[2]!, S.B32), this.src(ops[3]!, S.B32), this.src(ops[4]!, S.B32)];
        break;
      }
      case Opcode.Vote: {
        this.requireSync();
        const mode = this.pick(VOTE_BY_NAME, 'vote mode');
        if (mode === undefined) this.fail(`'vote.sync' needs .all, .any, .uni or .ballot`);
        ins.voteMode = mode;
        const t = this.oneType(mode === VoteMode.Ballot ? [S.B32] : [S.Pred]);
        this.done();
        const ops = this.count(3);
        ins.dst = [this.dstReg(ops[0]!, t)];
        ins.src = [this.predSrc(ops[1]!, true), this.src(ops[2]!, S.B32)];
        break;
      }
      case Opcode.Match: {
        // match.any.sync.type d, a, membermask; match.all.sync.type d{|p}, a, membermask (PTX ISA §9.7.13.x)
        this.requireSync();
        const mode = this.pick({ any: VoteMode.Any, all: VoteMode.All } as Record<string, VoteMode>, 'match mode');
        if (mode === undefined) this.fail(`'match.sync' needs .any or .all`);
        ins.voteMode = mode;
        const t = this.oneType([S.B32, S.B64]);
        this.done();
        const ops = this.count(3);
        const d = ops[0]!;
        if (d.kind === RawKind.Pair) {
          if (mode !== VoteMode.All) this.failOperand(d, `only match.all has a predicate destination (d|p)`);
          ins.dst = [this.dstReg(d.elems[0]!, S.B32), this.dstReg(d.elems[1]!, S.Pred)];
        } else ins.dst = [this.dstReg(d, S.B32)];
        ins.src = [this.src(ops[1]!, t), this.src(ops[2]!, S.B32)];
        break;
      }
      case Opcode.Activemask: {
        const t = this.oneType([S.B32]);
        this.done();
        const ops = this.count(1);
        ins.dst = [this.dstReg(ops[0]!, t)];
        break;
      }
      case Opcode.Nanosleep: {
        // nanosleep.u32 t (PTX ISA §9.7.19.x, sm_70+): t in nanoseconds, register or immediate
        this.oneType([S.U32]);
        this.done();
        const ops = this.count(1);
        ins.src = [this.src(ops[0]!, S.U32)];
        break;
      }
      case Opcode.Bmsk: {
        // bmsk.{clamp,wrap}.b32 d, a, b (PTX ISA §9.7.1.x): a mask of b bits from bit a
        const clamp = this.flag('clamp');
        const wrap = this.flag('wrap');
        if (clamp === wrap) this.fail(`'bmsk' needs exactly one of .clamp or .wrap`);
        ins.clamp = clamp;
        const t = this.oneType([S.B32]);
        this.done();
        const ops = this.count(3);
        ins.dst = [this.dstReg(ops[0]!, t)];
        ins.src = [this.src(ops[1]!, S.U32), this.src(ops[2]!, S.U32)];
        break;
      }
      case Opcode.Trap:
        this.done();
        this.count(0);
        break;
      case Opcode.Tex:
      case Opcode.Tld4:
        this.tex();
        break;
      case Opcode.Txq:
      case Opcode.Suq:
        this.query();
        break;
      case Opcode.Suld:
      case Opcode.Sust:
        this.surface();
        break;
      default:
        this.fail(`not supported: instruction '${this.base}'`);
    }
    return { ins, calleeName: this.calleeName, indirect: this.indirect };
  }

  /** Returns type modifiers taken by {@link types} to the pool (to peek at them first). */
  private putBackTypes(ts: ScalarType[]): void {
    for (const t of ts) {
      const name = SCALAR_TYPE_NAME[t]!;
      for (let i = 0; i < this.mods.length; i++) {
        if (this.used[i] && this.mods[i] === name) {
          this.used[i] = false;
          break;
        }
      }
    }
  }

  /** Peeks the single type modifier without consuming it (undefined if not exactly one). */
  private peekType(): ScalarType | undefined {
    const ts = this.types();
    this.putBackTypes(ts);
    return ts.length === 1 ? ts[0] : undefined;
  }

  /**
   * `add/sub/mul{.rn}{.ftz}{.sat}.{f16,f16x2} d, a, b` and `fma.rn{.ftz}{.sat}.{f16,f16x2} d, a,
   * b, c` (PTX ISA §9.7.4.1-4): type `F16`, `vec` 2 for a pair; `.f16` operands in `.f16`/`.b16`
   * registers, `.f16x2` pairs in 32-bit registers. `.relu`, `.oob` and other roundings are
   * refused.
   */
  private halfArith(pair: boolean): void {
    const ins = this.ins;
    const name = pair ? 'f16x2' : 'f16';
    const r = this.pick(FLOAT_ROUNDING, 'rounding');
    if (r !== undefined && r !== Rounding.Rn) this.fail(`not supported: '${this.base}.${name}' with a rounding other than .rn`);
    if (ins.op === Opcode.Fma && r === undefined) this.fail(`'fma.${name}' needs .rn`);
    ins.rounding = r ?? Rounding.None;
    ins.ftz = this.flag('ftz');
    ins.sat = this.flag('sat');
    this.flag(name);
    ins.type = S.F16;
    ins.vec = pair ? 2 : 1;
    this.done();
    this.ternaryOps(pair ? S.B32 : S.F16, ins.op === Opcode.Fma ? 3 : 2);
  }

  /** `d, a[, b[, c]]` all of type `t` (`nSrc` sources). */
  private ternaryOps(t: ScalarType, nSrc: number): void {
    const ops = this.count(nSrc + 1);
    this.ins.dst = [this.dstReg(ops[0]!, t)];
    const src: Operand[] = [];
    for (let k = 1; k <= nSrc; k++) src.push(this.src(ops[k]!, t));
    this.ins.src = src;
  }

  private floatMods(t: ScalarType, roundingRequired: boolean): void {
    const ins = this.ins;
    ins.rounding = this.pick(FLOAT_ROUNDING, 'rounding') ?? Rounding.None;
    if (roundingRequired && ins.rounding === Rounding.None) this.fail(`'${this.base}.${SCALAR_TYPE_NAME[t]}' needs a rounding modifier (.rn .rz .rm .rp)`);
    ins.ftz = this.flag('ftz');
    ins.sat = this.flag('sat');
    if (t !== S.F32 && (ins.ftz || ins.sat)) this.fail(`.ftz and .sat are only allowed with .f32`);
  }

  private addSub(): void {
    const ins = this.ins;
    const t = this.peekType();
    if (t === S.F32 || t === S.F64) {
      this.floatMods(t, false);
      this.oneType(FLOAT_TYPES);
    } else {
      ins.sat = this.flag('sat');
      ins.cc = this.flag('cc');
      const it = this.oneType(INT_TYPES);
      if (ins.sat && it !== S.S32) this.fail('.sat is only allowed with .s32');
      if (ins.cc && it !== S.S32 && it !== S.U32 && it !== S.S64 && it !== S.U64) this.fail('.cc needs a 32- or 64-bit integer type');
      if (ins.cc) this.ctx.carryRegister();
    }
    this.done();
    this.ternaryOps(ins.type, 2);
  }

  private mulMad(): void {
    const ins = this.ins;
    const isMad = ins.op === Opcode.Mad;
    const t = this.peekType();
    if (t === S.F32 || t === S.F64) {
      this.floatMods(t, false);
      this.oneType(FLOAT_TYPES);
      this.done();
      this.ternaryOps(t, isMad ? 3 : 2);
      return;
    }
    const mode = this.pick(MULMODE_BY_NAME, 'multiply mode');
    if (mode === undefined) this.fail(`integer '${this.base}' needs .lo, .hi or .wide`);
    ins.mulMode = mode;
    ins.sat = this.flag('sat');
    if (isMad) ins.cc = this.flag('cc');
    const it = this.oneType(INT_TYPES);
    if (ins.cc) {
      if (mode === MulMode.Wide || SCALAR_TYPE_BITS[it]! < 32) this.fail(`mad.cc needs .lo or .hi with a 32- or 64-bit type`);
      this.ctx.carryRegister();
    }
    if (mode === MulMode.Wide && SCALAR_TYPE_BITS[it] === 64) this.fail(`.wide is only allowed with 16- and 32-bit types`);
    if (ins.sat && !(isMad && mode === MulMode.Hi && it === S.S32)) this.fail(`.sat is only allowed on mad.hi.s32`);
    this.done();
    const ops = this.count(isMad ? 4 : 3);
    const wideT = mode === MulMode.Wide ? doubleWidth(it) : it;
    ins.dst = [this.dstReg(ops[0]!, wideT)];
    const src = [this.src(ops[1]!, it), this.src(ops[2]!, it)];
    if (isMad) src.push(this.src(ops[3]!, wideT));
    ins.src = src;
  }

  private div(): void {
    const ins = this.ins;
    const t = this.peekType();
    if (t === S.F32) {
      ins.approx = this.flag('approx');
      ins.full = this.flag('full');
      ins.rounding = this.pick(FLOAT_ROUNDING, 'rounding') ?? Rounding.None;
      const n = (ins.approx ? 1 : 0) + (ins.full ? 1 : 0) + (ins.rounding !== Rounding.None ? 1 : 0);
      if (n !== 1) this.fail(`'div.f32' needs exactly one of .approx, .full, .rn/.rz/.rm/.rp`);
      ins.ftz = this.flag('ftz');
      this.oneType([S.F32]);
    } else if (t === S.F64) {
      ins.rounding = this.pick(FLOAT_ROUNDING, 'rounding') ?? Rounding.None;
      if (ins.rounding === Rounding.None) this.fail(`'div.f64' needs a rounding modifier (.rn .rz .rm .rp)`);
      this.oneType([S.F64]);
    } else {
      this.oneType(INT_TYPES);
    }
    this.done();
    this.ternaryOps(ins.type, 2);
  }

  private fma(): void {
    const t = this.peekType();
    if (t !== S.F32 && t !== S.F64) this.fail(`'fma' needs .f32 or .f64`);
    this.floatMods(t, true);
    this.oneType(FLOAT_TYPES);
    this.done();
    this.ternaryOps(t, 3);
  }

  private unaryFloat(): void {
    const ins = this.ins;
    const op = ins.op;
    ins.approx = this.flag('approx');
    ins.rounding = this.pick(FLOAT_ROUNDING, 'rounding') ?? Rounding.None;
    ins.ftz = this.flag('ftz');
    const approxOnly = op === Opcode.Rsqrt || op === Opcode.Ex2 || op === Opcode.Lg2 || op === Opcode.Sin || op === Opcode.Cos;
    const allowed = op === Opcode.Rcp || op === Opcode.Sqrt || op === Opcode.Rsqrt ? FLOAT_TYPES : [S.F32];
    const t = this.oneType(allowed);
    if (approxOnly) {
      if (!ins.approx || ins.rounding !== Rounding.None) this.fail(`'${this.base}' needs .approx (and no rounding modifier)`);
      if (op === Opcode.Rsqrt && t === S.F64 && ins.ftz) {
        /* rsqrt.approx.ftz.f64 is valid */
      }
    } else if (t === S.F32) {
      if (ins.approx === (ins.rounding !== Rounding.None)) this.fail(`'${this.base}.f32' needs exactly one of .approx, .rn/.rz/.rm/.rp`);
    } else {
      // f64 rcp/sqrt: .rnd, or rcp.approx.ftz.f64
      if (ins.approx) {
        if (op !== Opcode.Rcp || !ins.ftz || ins.rounding !== Rounding.None) this.fail(`'${this.base}.f64' needs a rounding modifier (only rcp.approx.ftz.f64 is approximate)`);
      } else if (ins.rounding === Rounding.None) {
        this.fail(`'${this.base}.f64' needs a rounding modifier (.rn .rz .rm .rp)`);
      } else if (ins.ftz) {
        this.fail(`.ftz is only allowed with .f32`);
      }
    }
    this.done();
    this.ternaryOps(t, 1);
  }

  private setp(): void {
    const ins = this.ins;
    const isSet = ins.op === Opcode.Set;
    const cmp = this.pick(CMP_BY_NAME, 'comparison');
    if (cmp === undefined) this.fail(`'${this.base}' needs a comparison (.eq .ne .lt ...)`);
    const cmpName = this.mods.find((m, i) => this.used[i] && Object.hasOwn(CMP_BY_NAME, m))!;
    ins.cmp = cmp;
    ins.boolOp = this.pick(BOOL_BY_NAME, 'boolean') ?? BoolOp.None;
    ins.ftz = this.flag('ftz');
    const ts = this.types();
    let st: ScalarType;
    if (isSet) {
      if (ts.length !== 2) this.fail(`'set' needs two types (.dtype.stype)`);
      const d = ts[0]!;
      if (d !== S.U32 && d !== S.S32 && d !== S.F32) this.fail(`'set' destination type must be .u32, .s32 or .f32`);
      ins.type = d;
      ins.type2 = ts[1]!;
      st = ts[1]!;
    } else {
      if (ts.length !== 1) this.fail(`'setp' takes one type`);
      st = ts[0]!;
      ins.type = st;
    }
    if (!CMP_TYPES.includes(st)) this.fail(`type .${SCALAR_TYPE_NAME[st]} is not supported for '${this.base}'`);
    const kind = SCALAR_TYPE_KIND[st]!;
    const unsignedOnly = cmpName === 'lo' || cmpName === 'ls' || cmpName === 'hi' || cmpName === 'hs';
    if (kind === TypeKind.Float) {
      if (unsignedOnly) this.fail(`comparison .${cmpName} is not allowed with .${SCALAR_TYPE_NAME[st]}`);
    } else {
      if (cmp >= CmpOp.Equ) this.fail(`comparison .${cmpName} is only allowed with floating-point types`);
      if (kind === TypeKind.Signed && unsignedOnly) this.fail(`comparison .${cmpName} is for unsigned types, not .${SCALAR_TYPE_NAME[st]}`);
      if (kind === TypeKind.Bits && cmp !== CmpOp.Eq && cmp !== CmpOp.Ne && !unsignedOnly) {
        this.fail(`comparison .${cmpName} is not allowed with .${SCALAR_TYPE_NAME[st]} (use .lo .ls .hi .hs or a typed compare)`);
      }
      if (ins.ftz) this.fail('.ftz is only allowed with .f32');
    }
    if (ins.ftz && st !== S.F32) this.fail('.ftz is only allowed with .f32');
    this.done();
    const hasC = ins.boolOp !== BoolOp.None;
    const ops = this.count(hasC ? 4 : 3);
    const d = ops[0]!;
    if (isSet) {
      ins.dst = [this.dstReg(d, ins.type)];
    } else if (d.kind === RawKind.Pair) {
      ins.dst = [this.dstReg(d.elems[0]!, S.Pred), this.dstReg(d.elems[1]!, S.Pred)];
    } else {
      ins.dst = [this.dstReg(d, S.Pred)];
    }
    const src = [this.src(ops[1]!, st), this.src(ops[2]!, st)];
    if (hasC) src.push(this.predSrc(ops[3]!, true));
    ins.src = src;
  }

  private mov(): void {
    const ins = this.ins;
    const t = this.oneType(MOV_TYPES);
    this.done();
    const ops = this.count(2);
    const d = ops[0]!;
    const a = ops[1]!;
    const width = SCALAR_TYPE_BITS[t]!;
    if (d.kind === RawKind.Vec || a.kind === RawKind.Vec) {
      if (SCALAR_TYPE_KIND[t] !== TypeKind.Bits || width < 16) this.fail(`vector pack/unpack needs mov.b16, .b32 or .b64`);
      if (d.kind === RawKind.Vec && a.kind === RawKind.Vec) this.failOperand(a, 'cannot move a vector into a vector');
      const v = d.kind === RawKind.Vec ? d : a;
      const n = v.elems.length;
      if (n !== 2 && n !== 4) this.failOperand(v, 'a pack/unpack vector has 2 or 4 elements');
      const et = bitsTypeOf(width / n);
      if (et === S.None || et === S.B8) this.failOperand(v, `cannot split .${SCALAR_TYPE_NAME[t]} into ${n} elements`);
      if (d.kind === RawKind.Vec) {
        ins.dst = [this.vecOf(d, n, (e) => this.dstReg(e, et), true)];
        ins.src = [this.src(a, t, 'exact', false)];
      } else {
        ins.dst = [this.dstReg(d, t)];
        ins.src = [this.vecOf(a, n, (e) => this.src(e, et), false)];
      }
      return;
    }
    ins.dst = [this.dstReg(d, t)];
    if (a.kind === RawKind.Name && !this.ctx.findRegister(a.name)) {
      const fp = this.functionPointer(a, t);
      if (fp) {
        ins.src = [fp];
        return;
      }
      const sp = this.special(a, t);
      if (sp) {
        ins.src = [sp];
        return;
      }
      const v = this.ctx.findVariable(a.name);
      if (v) {
        ins.src = [this.symbol(a, v, t)];
        return;
      }
    }
    ins.src = [this.src(a, t)];
  }

  private memoryOrdering(isLoad: boolean, isStore: boolean): void {
    const ins = this.ins;
    ins.volatile = this.flag('volatile');
    const weak = this.flag('weak');
    const relaxed = this.flag('relaxed');
    const acquire = isLoad && this.flag('acquire');
    const release = isStore && this.flag('release');
    const scope = this.pick(SCOPE_BY_NAME, 'scope');
    const strong = relaxed || acquire || release;
    if ([ins.volatile, weak, strong].filter(Boolean).length > 1) this.fail('conflicting memory-ordering modifiers');
    if (strong && scope === undefined) this.fail('.relaxed/.acquire/.release need a scope (.cta .gpu .sys)');
    if (!strong && scope !== undefined) this.fail('a scope needs .relaxed, .acquire or .release');
    ins.scope = scope ?? MemScope.None;
  }

  private loadStore(): void {
    const ins = this.ins;
    const isStore = ins.op === Opcode.St;
    this.memoryOrdering(!isStore, isStore);
    const sp = this.pick(SPACE_BY_NAME, 'state space');
    ins.space = sp ?? StateSpace.Generic;
    if (ins.op === Opcode.Ldu && ins.space !== StateSpace.Global && ins.space !== StateSpace.Generic) this.fail(`'ldu' reads global memory only`);
    if (!isStore) {
      ins.nc = this.flag('nc');
      if (ins.nc && ins.space !== StateSpace.Global) this.fail(`.nc is only allowed on ld.global`);
    }
    // cache operators and L1/L2 hints: accepted and ignored
    for (let i = 0; i < this.mods.length; i++) {
      const m = this.mods[i]!;
      if (this.used[i]) continue;
      if (CACHE_OPS.has(m)) this.used[i] = true;
      else if ((m.startsWith('L1::') || m.startsWith('L2::')) && m !== 'L2::cache_hint') this.used[i] = true;
    }
    const vec = this.vector();
    ins.vec = vec;
    const t = this.oneType(LDST_TYPES);
    this.done();
    if (ins.volatile && ins.space !== StateSpace.Global && ins.space !== StateSpace.Shared && ins.space !== StateSpace.Generic) {
      this.fail('.volatile is only allowed on global, shared or generic accesses');
    }
    const ops = this.count(2);
    if (isStore) {
      ins.src = [
        this.address(ops[0]!, ins.space),
        vec > 1 ? this.vecOf(ops[1]!, vec, (e) => this.src(e, t, 'wide'), false) : this.src(ops[1]!, t, 'wide'),
      ];
    } else {
      ins.dst = [vec > 1 ? this.vecOf(ops[0]!, vec, (e) => this.dstReg(e, t, 'wide'), true) : this.dstReg(ops[0]!, t, 'wide')];
      ins.src = [this.address(ops[1]!, ins.space)];
    }
  }

  private cvt(): void {
    const ins = this.ins;
    const rnd = this.pick(ALL_ROUNDING, 'rounding') ?? Rounding.None;
    ins.rounding = rnd;
    ins.ftz = this.flag('ftz');
    ins.sat = this.flag('sat');
    const ts = this.types();
    if (ts.length !== 2) this.fail(`'cvt' needs two types (.dtype.atype)`);
    const [d, a] = ts as [ScalarType, ScalarType];
    for (const x of ts) if (!CVT_TYPES.includes(x)) this.fail(`type .${SCALAR_TYPE_NAME[x]} is not supported for 'cvt'`);
    ins.type = d;
    ins.type2 = a;
    const dF = SCALAR_TYPE_KIND[d] === TypeKind.Float;
    const aF = SCALAR_TYPE_KIND[a] === TypeKind.Float;
    const isInt = rnd >= Rounding.Rni;
    const isFlt = rnd >= Rounding.Rn && rnd <= Rounding.Rp;
    if ((d === S.F16 && !aF) || (a === S.F16 && !dF)) this.fail(`not supported: cvt between .f16 and integer types`);
    if (dF && aF) {
      const db = SCALAR_TYPE_BITS[d]!;
      const ab = SCALAR_TYPE_BITS[a]!;
      if (db < ab && !isFlt) this.fail(`narrowing float cvt needs .rn, .rz, .rm or .rp`);
      if (db > ab && isFlt) this.fail(`widening float cvt takes no float rounding`);
      if (db === ab && isFlt) this.fail(`same-size float cvt takes an integer rounding (.rni .rzi .rmi .rpi) or none`);
    } else if (dF) {
      if (!isFlt) this.fail(`integer-to-float cvt needs .rn, .rz, .rm or .rp`);
    } else if (aF) {
      if (!isInt) this.fail(`float-to-integer cvt needs .rni, .rzi, .rmi or .rpi`);
    } else if (rnd !== Rounding.None) {
      this.fail(`integer-to-integer cvt takes no rounding modifier`);
    }
    if (ins.ftz && d !== S.F32 && a !== S.F32) this.fail('.ftz needs an .f32 source or destination');
    this.done();
    const ops = this.count(2);
    ins.dst = [this.dstReg(ops[0]!, d, 'wide')];
    const src = ops[1]!;
    if (src.kind === RawKind.Name && !this.ctx.findRegister(src.name)) {
      const sp = this.special(src, a);
      if (sp) {
        ins.src = [sp];
        return;
      }
    }
    ins.src = [this.src(src, a, 'wide')];
  }

  private atom(): void {
    const ins = this.ins;
    const isRed = ins.op === Opcode.Red;
    const sem = this.pick({ relaxed: 1, acquire: 2, release: 3, acq_rel: 4 } as Record<string, number>, 'memory-ordering');
    if (isRed && sem === 2) this.fail(`'red' cannot be .acquire`);
    ins.scope = this.pick(SCOPE_BY_NAME, 'scope') ?? MemScope.None;
    const sp = this.pick(SPACE_BY_NAME, 'state space');
    if (sp !== undefined && sp !== StateSpace.Global && sp !== StateSpace.Shared) this.fail(`'${this.base}' works on .global, .shared or generic addresses`);
    ins.space = sp ?? StateSpace.Generic;
    const aop = this.pick(ATOM_BY_NAME, 'atomic operation');
    if (aop === undefined) this.fail(`'${this.base}' needs an operation (.add .min .max .inc .dec .cas .exch .and .or .xor)`);
    if (isRed && (aop === AtomOp.Cas || aop === AtomOp.Exch)) this.fail(`'red' cannot do .cas or .exch`);
    ins.atomOp = aop;
    const t = this.oneType(ATOM_TYPES.get(aop)!);
    this.done();
    if (isRed) {
      const ops = this.count(2);
      ins.src = [this.address(ops[0]!, ins.space), this.src(ops[1]!, t)];
    } else {
      const cas = aop === AtomOp.Cas;
      const ops = this.count(cas ? 4 : 3);
      ins.dst = [this.dstReg(ops[0]!, t)];
      const src = [this.address(ops[1]!, ins.space), this.src(ops[2]!, t)];
      if (cas) src.push(this.src(ops[3]!, t));
      ins.src = src;
    }
  }

  private bar(): void {
    const ins = this.ins;
    if (this.base === 'bar' && this.mods.includes('warp')) {
      this.flag('warp');
      if (!this.flag('sync')) this.fail(`'bar.warp' needs .sync`);
      this.done();
      ins.op = Opcode.BarWarpSync;
      const ops = this.count(1);
      ins.src = [this.src(ops[0]!, S.B32)];
      return;
    }
    this.flag('cta');
    this.flag('aligned');
    if (this.flag('red')) {
      this.barRed();
      return;
    }
    const sync = this.flag('sync');
    const arrive = this.flag('arrive');
    if (sync === arrive) this.fail(`'${this.base}' needs exactly one of .sync or .arrive`);
    ins.barOp = sync ? BarOp.Sync : BarOp.Arrive;
    this.done();
    const ops = arrive ? this.count(2) : this.count(1, 2);
    ins.src = this.barIdCount(ops);
  }

  /** Barrier id and optional thread count of `bar`/`bar.red` (checked when immediate). */
  private barIdCount(ops: readonly RawOperand[]): Operand[] {
    const id = this.src(ops[0]!, S.U32);
    if (id.kind === OperandKind.Imm && id.value > 15) this.failOperand(ops[0]!, 'barrier id must be 0..15');
    const out = [id];
    if (ops.length > 1) {
      const cnt = this.src(ops[1]!, S.U32);
      if (cnt.kind === OperandKind.Imm && (cnt.value <= 0 || cnt.value % 32 !== 0)) this.failOperand(ops[1]!, 'thread count must be a positive multiple of 32');
      out.push(cnt);
    }
    return out;
  }

  /**
   * `bar{.cta}.red.popc{.aligned}.u32 d, a{, b}, {!}c` and `bar{.cta}.red.{and,or}{.aligned}.pred
   * p, a{, b}, {!}c` (PTX ISA §9.7.13.4; `barrier` spellings too): a `bar.sync` that also
   * reduces predicate `c` over the participating threads.
   */
  private barRed(): void {
    const ins = this.ins;
    this.flag('sync'); // barrier.red.sync is not PTX, but harmless
    const op = this.pick({ popc: BarRedOp.Popc, and: BarRedOp.And, or: BarRedOp.Or } as Record<string, BarRedOp>, 'reduction');
    if (op === undefined) this.fail(`'${this.base}.red' needs .popc, .and or .or`);
    const t = this.oneType(op === BarRedOp.Popc ? [S.U32] : [S.Pred]);
    this.done();
    ins.barOp = BarOp.Sync;
    ins.barRed = op;
    const ops = this.count(3, 4);
    ins.dst = [this.dstReg(ops[0]!, t)];
    const src = this.barIdCount(ops.slice(1, ops.length - 1));
    src.push(this.predSrc(ops[ops.length - 1]!, true));
    ins.src = src;
  }

  private membar(): void {
    const ins = this.ins;
    if (this.base === 'membar') {
      const lvl = this.pick({ cta: MemScope.Cta, gl: MemScope.Gpu, sys: MemScope.Sys } as Record<string, MemScope>, 'level');
      if (lvl === undefined) this.fail(`'membar' needs .cta, .gl or .sys`);
      ins.scope = lvl;
    } else {
      const sem = this.pick({ sc: 1, acq_rel: 2 } as Record<string, number>, 'fence semantics');
      const scope = this.pick(SCOPE_BY_NAME, 'scope');
      if (this.mods.some((m) => m.startsWith('proxy'))) this.fail(`not supported: proxy fences (fence.proxy)`);
      if (sem === undefined || scope === undefined) this.fail(`'fence' needs .sc or .acq_rel and a scope (.cta .gpu .sys)`);
      ins.scope = scope;
    }
    this.done();
    this.count(0);
  }

  /**
   * The texture or surface `a` of `[a, ...]`: a `.u64`/`.b64` handle register (a texture or
   * surface object) or a module `.texref`/`.surfref` (or, for sampler queries, `.samplerref`)
   * variable. PTX ISA §9.7.10.3 (unified texture mode).
   */
  private texHandle(o: RawOperand, want: OpaqueType, samplerOk = false): Operand {
    const what = want === OpaqueType.Texref ? 'texture' : 'surface';
    if (o.name === '' || o.offset !== 0n) this.failOperand(o, `expected a ${what} reference or a .u64 ${what} handle register`);
    const r = this.ctx.findRegister(o.name);
    if (r) {
      const k = SCALAR_TYPE_KIND[r.type];
      if (r.bits !== 64 || k === TypeKind.Float || r.isPred) this.failOperand(o, `${what} handle register '${o.name}' must be .u64 or .b64, not ${this.typeName(r.type)}`);
      return this.regOperand(r, o, false);
    }
    const v = this.ctx.findVariable(o.name);
    if (!v) this.failOperand(o, `undeclared ${what} '${o.name}'`);
    const okSampler = samplerOk && v.opaque === OpaqueType.Samplerref;
    if (v.opaque !== want && !okSampler) {
      const need = want === OpaqueType.Texref ? '.texref' : '.surfref';
      this.failOperand(o, `'${o.name}' is not a ${need} variable${v.opaque === OpaqueType.None ? ' (pass a texture object as a .u64 register)' : ''}`);
    }
    const op = newOperand(OperandKind.Symbol, o.text);
    op.symbol = v;
    return op;
  }

  /** Coordinate vector of `geom`: `n` elements, the layer index of `a1d`/`a2d` `.b32`, the others of type `ct`; a scalar stands for a 1-element vector. */
  private texCoords(o: RawOperand, geom: TexGeom, ct: ScalarType): Operand {
    const n = TEX_GEOM_COORDS[geom]!;
    const layered = geom === TexGeom.A1d || geom === TexGeom.A2d;
    if (o.kind !== RawKind.Vec) {
      if (n !== 1) this.failOperand(o, `.${TEX_GEOM_NAME[geom]} takes a vector of ${n} coordinates {..}`);
      const v = newOperand(OperandKind.Vec, o.text);
      v.elems = [this.src(o, ct)];
      return v;
    }
    if (o.elems.length !== n) this.failOperand(o, `.${TEX_GEOM_NAME[geom]} takes ${n} coordinate${n === 1 ? '' : 's'}, got ${o.elems.length}`);
    const v = newOperand(OperandKind.Vec, o.text);
    v.elems = o.elems.map((e, i) => {
      if (e.kind === RawKind.Sink) this.failOperand(e, 'a sink _ is not allowed in coordinates');
      return this.src(e, layered && i === 0 ? S.B32 : ct);
    });
    return v;
  }

  /**
   * `tex.geom.v4.dtype.ctype d, [a, {b,} c]` and `tld4.comp.2d.v4.dtype.f32 d, [a, {b,} c]`
   * (PTX ISA §9.7.10.3-4): `d` four registers, `a` the texture, `b` an optional `.samplerref`,
   * `c` the coordinates. Mipmaps (`.base .level .grad`), cube and multisample geometries, the
   * residency predicate `d|p`, offsets and depth compare are refused as not supported.
   */
  private tex(): void {
    const ins = this.ins;
    const isTld4 = ins.op === Opcode.Tld4;
    for (const m of ['base', 'level', 'grad']) if (this.mods.includes(m)) this.fail(`not supported: mipmapped texture fetch (${this.base}.${m})`);
    if (isTld4) {
      const c = this.pick({ r: 0, g: 1, b: 2, a: 3 } as Record<string, number>, 'component');
      if (c === undefined) this.fail(`'tld4' needs a component .r, .g, .b or .a`);
      ins.texComp = c;
    }
    const um = this.mods.find((m) => UNSUPPORTED_GEOMS.has(m));
    if (um !== undefined) this.fail(`not supported: ${um.includes('ms') ? 'multisample' : 'cube'} textures (.${um})`);
    const geom = this.pick(GEOM_BY_NAME, 'geometry');
    if (geom === undefined) this.fail(`'${this.base}' needs a geometry (.1d .2d .3d .a1d .a2d)`);
    if (isTld4 && geom !== TexGeom.D2 && geom !== TexGeom.A2d) this.fail(`'tld4' takes .2d or .a2d, not .${TEX_GEOM_NAME[geom]}`);
    ins.geom = geom;
    if (!this.flag('v4')) this.fail(`'${this.base}' needs .v4 (four destination registers)`);
    const ts = this.types();
    if (ts.length !== 2) this.fail(`'${this.base}' needs two types (.dtype.ctype)`);
    const [dt, ct] = ts as [ScalarType, ScalarType];
    if (dt !== S.F32 && dt !== S.S32 && dt !== S.U32) this.fail(`texture destination type .${SCALAR_TYPE_NAME[dt]} is not supported (.f32 .s32 .u32)`);
    if (ct !== S.F32 && ct !== S.S32) this.fail(`texture coordinate type must be .f32 or .s32, not .${SCALAR_TYPE_NAME[ct]}`);
    if (isTld4 && ct !== S.F32) this.fail(`'tld4' coordinates are .f32`);
    ins.type = dt;
    ins.type2 = ct;
    ins.vec = 4;
    ins.space = StateSpace.Tex;
    this.done();
    const ops = this.raw.operands;
    if (ops.length > 2) this.failOperand(ops[2]!, `not supported: texture fetch offsets and depth compare (operands after the coordinates)`);
    this.count(2);
    const d = ops[0]!;
    if (d.kind === RawKind.Pair) this.failOperand(d, 'not supported: texture residency predicate (d|p)');
    ins.dst = [this.vecOf(d, 4, (e) => this.dstReg(e, dt), true)];
    const a = ops[1]!;
    if (a.kind !== RawKind.TexAddr || (a.elems.length !== 1 && a.elems.length !== 2)) this.failOperand(a, `expected [texture, coordinates] or [texture, sampler, coordinates]`);
    const tex = this.texHandle(a, OpaqueType.Texref);
    const coords = this.texCoords(a.elems[a.elems.length - 1]!, geom, ct);
    if (a.elems.length === 2) {
      const b = a.elems[0]!;
      const v = b.kind === RawKind.Name && !this.ctx.findRegister(b.name) ? this.ctx.findVariable(b.name) : undefined;
      if (v === undefined || v.opaque !== OpaqueType.Samplerref) this.failOperand(b, 'not supported: a sampler other than a .samplerref variable');
      const so = newOperand(OperandKind.Symbol, b.text);
      so.symbol = v;
      ins.src = [tex, coords, so];
    } else {
      ins.src = [tex, coords];
    }
  }

  /** `txq.query.b32 d, [a]` / `suq.query.b32 d, [a]` (PTX ISA §9.7.10.5, §9.7.11.4). */
  private query(): void {
    const ins = this.ins;
    const isTxq = ins.op === Opcode.Txq;
    if (isTxq && this.mods.includes('level')) this.fail(`not supported: mipmap level queries (txq.level)`);
    const q = this.pick(isTxq ? TXQ_BY_NAME : SUQ_BY_NAME, 'query');
    if (q === undefined) {
      const other = this.mods.find((m) => TYPE_BY_NAME.get(m) === undefined);
      if (other !== undefined && ['channel_data_type', 'channel_order', 'memory_layout'].includes(other)) this.fail(`not supported: ${this.base}.${other}`);
      this.fail(`'${this.base}' needs an attribute (${Object.keys(isTxq ? TXQ_BY_NAME : SUQ_BY_NAME).map((k) => '.' + k).join(' ')})`);
    }
    ins.texQuery = q;
    this.oneType([S.B32]);
    this.done();
    const ops = this.count(2);
    ins.dst = [this.dstReg(ops[0]!, S.B32)];
    const a = ops[1]!;
    if (a.kind !== RawKind.Addr) this.failOperand(a, `expected [${isTxq ? 'texture' : 'surface'}]`);
    ins.src = [this.texHandle(a, isTxq ? OpaqueType.Texref : OpaqueType.Surfref, isTxq && SAMPLER_QUERIES.has(q))];
  }

  /**
   * `suld.b.geom{.cop}{.v2,.v4}.{b8,b16,b32,b64}.{trap,clamp,zero} d, [a, b]` and
   * `sust.b.geom{.cop}{.v2,.v4}.ctype.clamp [a, b], c` (PTX ISA §9.7.11.1-2): unformatted
   * surface accesses whose x coordinate is a byte offset. `.p` (formatted) is refused.
   */
  private surface(): void {
    const ins = this.ins;
    const isStore = ins.op === Opcode.Sust;
    if (this.mods.includes('p')) this.fail(`not supported: formatted surface ${isStore ? 'store (sust.p)' : 'load (suld.p)'}`);
    if (!this.flag('b')) this.fail(`'${this.base}' needs .b (unformatted access)`);
    const um = this.mods.find((m) => UNSUPPORTED_GEOMS.has(m));
    if (um !== undefined) this.fail(`not supported: .${um} surfaces`);
    const geom = this.pick(GEOM_BY_NAME, 'geometry');
    if (geom === undefined) this.fail(`'${this.base}' needs a geometry (.1d .2d .3d .a1d .a2d)`);
    ins.geom = geom;
    for (let i = 0; i < this.mods.length; i++) if (!this.used[i] && SURF_CACHE_OPS.has(this.mods[i]!)) this.used[i] = true;
    const clamp = this.pick(SURF_CLAMP_BY_NAME, 'out-of-bounds mode');
    if (clamp === undefined) this.fail(`'${this.base}' needs an out-of-bounds mode (.trap .clamp .zero)`);
    ins.surfClamp = clamp;
    const vec = this.vector();
    ins.vec = vec;
    const t = this.oneType([S.B8, S.B16, S.B32, S.B64]);
    if (vec === 4 && t === S.B64) this.fail(`.v4.b64 is not a surface access (at most 16 bytes)`);
    ins.space = StateSpace.Global;
    this.done();
    const ops = this.count(2);
    const addr = isStore ? ops[0]! : ops[1]!;
    if (addr.kind !== RawKind.TexAddr || addr.elems.length !== 1) this.failOperand(addr, 'expected [surface, coordinates]');
    const surf = this.texHandle(addr, OpaqueType.Surfref);
    const coords = this.texCoords(addr.elems[0]!, geom, S.S32);
    const data = isStore ? ops[1]! : ops[0]!;
    const elem = (e: RawOperand): Operand => (isStore ? this.src(e, t, 'wide') : this.dstReg(e, t, 'wide'));
    let value: Operand;
    if (data.kind !== RawKind.Vec && vec === 1) {
      // a scalar stands for a one-element vector (nvcc writes `{%r1}`)
      const v = newOperand(OperandKind.Vec, data.text);
      v.elems = [elem(data)];
      value = v;
    } else value = this.vecOf(data, vec, elem, !isStore);
    if (isStore) ins.src = [surf, coords, value];
    else {
      ins.dst = [value];
      ins.src = [surf, coords];
    }
  }

  /**
   * `call{.uni} (rets), func, (args);` and the indirect forms `call{.uni} (rets), fptr, (args),
   * flist|fproto;` (PTX ISA §9.7.12.2): `fptr` a 32- or 64-bit integer register holding a function
   * address, `flist` the label of a `.calltargets` directive or a call table (an array variable
   * initialised with function names), `fproto` the label of a `.callprototype`. The return and
   * argument lists may each be absent.
   */
  private call(): void {
    const ins = this.ins;
    ins.uni = this.flag('uni');
    this.done();
    const ops = this.raw.operands;
    let k = 0;
    let rets: readonly RawOperand[] = [];
    if (ops[k]?.kind === RawKind.List) {
      rets = ops[k]!.elems;
      k++;
    }
    const f = ops[k];
    if (!f || f.kind !== RawKind.Name || f.negate || f.offset !== 0n) this.fail(`'call' needs a function name or a function-pointer register`);
    const fptr = this.ctx.findRegister(f.name);
    k++;
    let args: readonly RawOperand[] = [];
    if (ops[k]?.kind === RawKind.List) {
      args = ops[k]!.elems;
      k++;
    }
    if (fptr) {
      const k2 = SCALAR_TYPE_KIND[fptr.type]!;
      if (fptr.isPred || k2 === TypeKind.Float || (fptr.bits !== 32 && fptr.bits !== 64)) this.failOperand(f, `function pointer '${f.name}' must be a 32- or 64-bit integer register, not ${this.typeName(fptr.type)}`);
      const l = ops[k];
      if (l === undefined) this.failOperand(f, `an indirect call needs a .callprototype or .calltargets label (or a call table) after its arguments`);
      if (l.kind !== RawKind.Name || l.negate || l.offset !== 0n) this.failOperand(l, `expected the label of a .callprototype or .calltargets, or a call table`);
      if (k + 1 !== ops.length) this.failOperand(ops[k + 1]!, `unexpected operand after the call's prototype or target list`);
      this.indirect = { listName: l.name, line: l.line, column: l.column, list: this.callListOf(l) };
      ins.src = [this.regOperand(fptr, f, false)];
    } else {
      if (k !== ops.length) this.failOperand(ops[k]!, `a direct call takes no prototype or target list (only a call through a register does)`);
      this.calleeName = f.name;
    }
    ins.callRets = rets.map((o) => this.callOperand(o, true));
    ins.callArgs = args.map((o) => this.callOperand(o, false));
  }

  /** The `flist`/`fproto` operand of an indirect call: a `.callprototype`/`.calltargets` label or a call table. */
  private callListOf(l: RawOperand): CallList {
    const list = this.ctx.callList?.(l.name);
    if (list !== undefined) return list;
    const v = this.ctx.findRegister(l.name) ? undefined : this.ctx.findVariable(l.name);
    if (v !== undefined) {
      if (v.relocations.length === 0) this.failOperand(l, `call table '${l.name}' is not initialised with function names`);
      return { kind: 'targets', names: v.relocations.map((r) => ({ name: r.symbol, line: l.line, column: l.column })) };
    }
    this.failOperand(l, `'${l.name}' is no .callprototype or .calltargets label in scope, nor a call table`);
  }

  private callOperand(o: RawOperand, isRet: boolean): Operand {
    if (o.kind === RawKind.Name && !o.negate && o.offset === 0n) {
      const r = this.ctx.findRegister(o.name);
      if (r) return this.regOperand(r, o, false);
      const v = this.ctx.findVariable(o.name);
      if (v) {
        if (v.space !== StateSpace.Param) this.failOperand(o, `call ${isRet ? 'return' : 'argument'} '${o.name}' must be a .param variable or a register`);
        const op = newOperand(OperandKind.Symbol, o.text);
        op.symbol = v;
        return op;
      }
      this.failOperand(o, `undeclared call ${isRet ? 'return' : 'argument'} '${o.name}'`);
    }
    if (!isRet && o.kind === RawKind.Number) return this.immediate(o, S.B64);
    this.failOperand(o, `malformed call ${isRet ? 'return' : 'argument'}`);
  }
}

/**
 * Decodes and validates one instruction statement.
 *
 * @param raw the statement as parsed.
 * @param ctx register/variable lookup for the enclosing scope.
 * @param index the instruction's index in its function.
 * @param debugLoc the current `.loc`, if any.
 * @returns the instruction (branch targets and callee still unresolved) and the callee name.
 * @throws InputError on an unknown or unsupported opcode, bad modifier, wrong operand count,
 *   kind or type, or an undeclared register.
 */
export function decodeInstruction(raw: RawInstruction, ctx: DecodeContext, index: number, debugLoc: DebugLoc | undefined): Decoded {
  const d = new Decoder(raw, ctx, index, debugLoc);
  const out = d.decode();
  if (raw.guard !== '') {
    const r = ctx.findRegister(raw.guard);
    if (!r) throw new InputError({ file: ctx.file, line: raw.line, column: raw.column }, `undeclared guard predicate '${raw.guard}'`, raw.guard);
    if (!r.isPred || r.type !== S.Pred) {
      throw new InputError({ file: ctx.file, line: raw.line, column: raw.column }, `guard '${raw.guard}' is not a .pred register`, raw.guard);
    }
    out.ins.guard = r.index;
    out.ins.guardNegate = raw.guardNegate;
  }
  return out;
}
