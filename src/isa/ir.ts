/**
 * warpstate's PTX intermediate representation (IR): the decoded, validated form of a PTX module
 * that the functional executor (`src/functional/`) runs and the timing model reads.
 *
 * Design rules (DESIGN.md §3 "Cost", §5):
 * - Every code below (opcode, type, modifier, state space ...) is a small integer taken from a
 *   frozen `as const` table, so the executor can `switch` on it without string compares.
 * - Every {@link Instruction} object has exactly the same set of fields, and so does every
 *   {@link Operand}: fields that do not apply hold a neutral value (`0`, `-1`, `false`, `''`,
 *   `undefined`, an empty array). V8 then keeps one hidden class per kind of object and the
 *   executor's property reads stay monomorphic.
 * - Registers are numbered densely per function ({@link RegisterInfo.index}); operands carry the
 *   index, never the name.
 * - Labels are resolved to instruction indices; calls to function indices.
 *
 * Anything the parser returns has been validated against the PTX ISA rules it models: an
 * instruction outside the supported set, an undeclared register, a wrong operand kind or type is
 * refused with an `InputError` when the file is loaded (see `parser.ts`), never later.
 *
 * Source: NVIDIA PTX ISA 9.0 (chapters 5 "State Spaces, Types, and Variables", 6 "Instruction
 * Operands", 9 "Instruction Set", 10 "Special Registers", 11 "Directives").
 *
 * Stability: these types are the contract with `src/functional/`; changes are additive only.
 */

// ---------------------------------------------------------------------------------------------
// Scalar types
// ---------------------------------------------------------------------------------------------

/**
 * PTX fundamental types (PTX ISA §5.2.1), as small integer codes. `None` (0) marks "no type"
 * (e.g. `bra`, `ret`). `Pred` is the 1-bit predicate type.
 */
export const ScalarType = {
  None: 0,
  B8: 1,
  B16: 2,
  B32: 3,
  B64: 4,
  U8: 5,
  U16: 6,
  U32: 7,
  U64: 8,
  S8: 9,
  S16: 10,
  S32: 11,
  S64: 12,
  F16: 13,
  F32: 14,
  F64: 15,
  Pred: 16,
} as const;
/** A {@link ScalarType} code. */
export type ScalarType = (typeof ScalarType)[keyof typeof ScalarType];

/** Kind of a scalar type: how its bits are interpreted. */
export const TypeKind = {
  None: 0,
  /** `.b8..b64`: untyped bits (compatible with every type of the same size). */
  Bits: 1,
  /** `.u8..u64`. */
  Unsigned: 2,
  /** `.s8..s64` (two's complement). */
  Signed: 3,
  /** `.f16, .f32, .f64` (IEEE 754 binary16/32/64). */
  Float: 4,
  /** `.pred`. */
  Pred: 5,
} as const;
/** A {@link TypeKind} code. */
export type TypeKind = (typeof TypeKind)[keyof typeof TypeKind];

/** Width in bits of each {@link ScalarType}, indexed by code (`Pred` is 1, `None` is 0). */
export const SCALAR_TYPE_BITS: readonly number[] = Object.freeze([
  0, 8, 16, 32, 64, 8, 16, 32, 64, 8, 16, 32, 64, 16, 32, 64, 1,
]);

/** {@link TypeKind} of each {@link ScalarType}, indexed by code. */
export const SCALAR_TYPE_KIND: readonly TypeKind[] = Object.freeze([
  TypeKind.None,
  TypeKind.Bits, TypeKind.Bits, TypeKind.Bits, TypeKind.Bits,
  TypeKind.Unsigned, TypeKind.Unsigned, TypeKind.Unsigned, TypeKind.Unsigned,
  TypeKind.Signed, TypeKind.Signed, TypeKind.Signed, TypeKind.Signed,
  TypeKind.Float, TypeKind.Float, TypeKind.Float,
  TypeKind.Pred,
]);

/** PTX spelling (without the dot) of each {@link ScalarType}, indexed by code. */
export const SCALAR_TYPE_NAME: readonly string[] = Object.freeze([
  '', 'b8', 'b16', 'b32', 'b64', 'u8', 'u16', 'u32', 'u64', 's8', 's16', 's32', 's64',
  'f16', 'f32', 'f64', 'pred',
]);

// ---------------------------------------------------------------------------------------------
// State spaces
// ---------------------------------------------------------------------------------------------

/**
 * PTX state spaces (PTX ISA §5.1). `Generic` is the generic address space used by `ld`/`st`/
 * `atom` without a space qualifier (PTX ISA §6.4.1). `None` means "not a memory instruction".
 * `Tex` is texture memory (PTX ISA §5.1.8, the deprecated `.tex` space): the space of the
 * texel reads of `tex`/`tld4`, which the timing model sends through the SM's texture cache
 * (GPGPU-Sim `tex_space`). Surface loads and stores (`suld`/`sust`) access `Global` memory.
 */
export const StateSpace = {
  None: 0,
  Reg: 1,
  Global: 2,
  Shared: 3,
  Const: 4,
  Local: 5,
  Param: 6,
  Generic: 7,
  Tex: 8,
} as const;
/** A {@link StateSpace} code. */
export type StateSpace = (typeof StateSpace)[keyof typeof StateSpace];

/** PTX spelling of each {@link StateSpace}, indexed by code (`Generic` prints as `generic`). */
export const STATE_SPACE_NAME: readonly string[] = Object.freeze([
  '', 'reg', 'global', 'shared', 'const', 'local', 'param', 'generic', 'tex',
]);

// ---------------------------------------------------------------------------------------------
// Opcodes
// ---------------------------------------------------------------------------------------------

/**
 * Every PTX opcode warpstate executes (GitHub issue 3, item 2). A file using any other opcode is
 * refused at load time. Spelling variants map onto one code:
 * - `add.cc`/`sub.cc`/`mad.cc` are `Add`/`Sub`/`Mad` with {@link Instruction.cc} set;
 *   `addc`/`subc`/`madc` read the carry (and write it too when written `addc.cc` ...). nvcc emits
 *   `mad.lo.cc`/`madc.hi` chains for 64x64-bit products in its math library.
 * - `shf.{l,r}.{clamp,wrap}.b32` (funnel shift) is `Shf` with {@link Instruction.shfRight} and
 *   {@link Instruction.clamp}.
 * - `bar.sync`, `barrier.sync`, `bar.arrive`, `barrier.arrive`, `barrier.cta.*` are `Bar`, with
 *   {@link Instruction.barOp} telling sync from arrive.
 * - `membar.{cta,gl,sys}` and `fence.{sc,acq_rel}.{cta,gpu,sys}` are `Membar`, with
 *   {@link Instruction.scope}.
 * - `call` to a `.func` is `Call`. A call to the body-less `.extern .func` that nvcc emits for
 *   device `printf` (`vprintf`) or `assert` (`__assertfail`) is a `Call` with
 *   {@link Instruction.syscall} set. An indirect call through a function pointer
 *   (`call (r), %fptr, (args), proto_or_targets;`, PTX ISA §9.7.12.2) is a `Call` whose
 *   {@link Instruction.callee} is -1, whose `src` is `[fptr]` and whose
 *   {@link Instruction.callTargets} lists the functions it may reach.
 * - `bar.red.{popc,and,or}` / `barrier.red.*` are `Bar` with {@link Instruction.barRed}.
 * - `nanosleep.u32`, `bmsk.{clamp,wrap}.b32` (with {@link Instruction.clamp}) and `trap`.
 * - `add/sub/mul/fma` of `.f16` and `.f16x2` are `Add/Sub/Mul/Fma` with type `F16` and
 *   {@link Instruction.vec} 1 or 2 (PTX ISA §9.7.4).
 * - Textures and surfaces (PTX ISA §9.7.10-§9.7.11): `tex.{1d,2d,3d,a1d,a2d}.v4.dtype.ctype`
 *   and `tld4.{r,g,b,a}.2d.v4.dtype.f32` (with {@link Instruction.geom}, {@link
 *   Instruction.texComp}), `txq.<query>.b32` and `suq.<query>.b32` ({@link
 *   Instruction.texQuery}), `suld.b.<geom>{.v2,.v4}.{b8,b16,b32,b64}.<clamp>` and `sust.b...`
 *   ({@link Instruction.surfClamp}).
 */
export const Opcode = {
  Mov: 0,
  Ld: 1,
  Ldu: 2,
  St: 3,
  Cvta: 4,
  Cvt: 5,
  Add: 6,
  Sub: 7,
  Mul: 8,
  Mad: 9,
  Mul24: 10,
  Mad24: 11,
  Div: 12,
  Rem: 13,
  Abs: 14,
  Neg: 15,
  Min: 16,
  Max: 17,
  And: 18,
  Or: 19,
  Xor: 20,
  Not: 21,
  Cnot: 22,
  Shl: 23,
  Shr: 24,
  Bfe: 25,
  Bfi: 26,
  Clz: 27,
  Popc: 28,
  Brev: 29,
  Prmt: 30,
  Addc: 31,
  Subc: 32,
  Setp: 33,
  Set: 34,
  Selp: 35,
  Slct: 36,
  Fma: 37,
  Rcp: 38,
  Sqrt: 39,
  Rsqrt: 40,
  Ex2: 41,
  Lg2: 42,
  Sin: 43,
  Cos: 44,
  Copysign: 45,
  Testp: 46,
  Atom: 47,
  Red: 48,
  Bar: 49,
  BarWarpSync: 50,
  Membar: 51,
  Bra: 52,
  Ret: 53,
  Exit: 54,
  Call: 55,
  Shfl: 56,
  Vote: 57,
  Activemask: 58,
  Bfind: 59,
  Madc: 60,
  Shf: 61,
  Nanosleep: 62,
  Bmsk: 63,
  Trap: 64,
  Tex: 65,
  Tld4: 66,
  Txq: 67,
  Suld: 68,
  Sust: 69,
  Suq: 70,
  /** `match.{any,all}.sync.{b32,b64}` (PTX ISA §9.7.13.x), mode in {@link Instruction.voteMode}. */
  Match: 71,
} as const;
/** An {@link Opcode} code. */
export type Opcode = (typeof Opcode)[keyof typeof Opcode];

/** Number of opcode codes (codes are `0 .. OPCODE_COUNT-1`). */
export const OPCODE_COUNT = 72;

/** PTX base spelling of each {@link Opcode}, indexed by code (`BarWarpSync` is `bar.warp.sync`). */
export const OPCODE_NAME: readonly string[] = Object.freeze([
  'mov', 'ld', 'ldu', 'st', 'cvta', 'cvt', 'add', 'sub', 'mul', 'mad', 'mul24', 'mad24', 'div',
  'rem', 'abs', 'neg', 'min', 'max', 'and', 'or', 'xor', 'not', 'cnot', 'shl', 'shr', 'bfe',
  'bfi', 'clz', 'popc', 'brev', 'prmt', 'addc', 'subc', 'setp', 'set', 'selp', 'slct', 'fma',
  'rcp', 'sqrt', 'rsqrt', 'ex2', 'lg2', 'sin', 'cos', 'copysign', 'testp', 'atom', 'red', 'bar',
  'bar.warp.sync', 'membar', 'bra', 'ret', 'exit', 'call', 'shfl', 'vote', 'activemask',
  'bfind', 'madc', 'shf', 'nanosleep', 'bmsk', 'trap', 'tex', 'tld4', 'txq', 'suld', 'sust', 'suq',
  'match',
]);

// ---------------------------------------------------------------------------------------------
// Modifiers
// ---------------------------------------------------------------------------------------------

/**
 * Rounding modifiers (PTX ISA §9.7.3 "Floating-point instructions", §9.7.9.21 `cvt`).
 * `Rn/Rz/Rm/Rp` round a floating result to nearest-even / toward zero / toward -inf / toward
 * +inf; `Rni/Rzi/Rmi/Rpi` round to an integral value (cvt float->int, float->float).
 * `None` when the instruction has no rounding modifier: the instruction's default then applies
 * (round-to-nearest-even for float results; the parser refuses float->int `cvt` and
 * narrowing float->float `cvt` without one, as PTX does).
 */
export const Rounding = {
  None: 0,
  Rn: 1,
  Rz: 2,
  Rm: 3,
  Rp: 4,
  Rni: 5,
  Rzi: 6,
  Rmi: 7,
  Rpi: 8,
} as const;
/** A {@link Rounding} code. */
export type Rounding = (typeof Rounding)[keyof typeof Rounding];

/**
 * Integer multiply mode (PTX ISA §9.7.1.5 `mul`, §9.7.1.6 `mad`, `mul24`, `mad24`): `Lo` keeps the
 * low half of the double-width product, `Hi` the high half, `Wide` the whole product in a
 * destination twice as wide as the operand type.
 */
export const MulMode = {
  None: 0,
  Lo: 1,
  Hi: 2,
  Wide: 3,
} as const;
/** A {@link MulMode} code. */
export type MulMode = (typeof MulMode)[keyof typeof MulMode];

/**
 * Comparison operators of `setp`, `set`, `slct`-free compares (PTX ISA §9.7.4.1 Tables 21-23).
 * The unsigned aliases `lo, ls, hi, hs` are normalised to `Lt, Le, Gt, Ge` (they are only
 * allowed with unsigned and bit-size types). Semantics by the compared type's kind:
 * - Signed: two's-complement compare. Unsigned and Bits: unsigned compare (`Eq/Ne` only for
 *   Bits unless written `lo/ls/hi/hs`).
 * - Float: `Eq..Ge` are ordered (false when either operand is NaN); `Equ..Geu` are unordered
 *   (true when either is NaN); `Num` is true when neither is NaN; `Nan` when either is NaN.
 */
export const CmpOp = {
  None: 0,
  Eq: 1,
  Ne: 2,
  Lt: 3,
  Le: 4,
  Gt: 5,
  Ge: 6,
  Equ: 7,
  Neu: 8,
  Ltu: 9,
  Leu: 10,
  Gtu: 11,
  Geu: 12,
  Num: 13,
  Nan: 14,
} as const;
/** A {@link CmpOp} code. */
export type CmpOp = (typeof CmpOp)[keyof typeof CmpOp];

/** Boolean combine of `setp`/`set` with a predicate source `c` (PTX ISA §9.7.4.2). */
export const BoolOp = {
  None: 0,
  And: 1,
  Or: 2,
  Xor: 3,
} as const;
/** A {@link BoolOp} code. */
export type BoolOp = (typeof BoolOp)[keyof typeof BoolOp];

/**
 * Atomic operation of `atom`/`red` (PTX ISA §9.7.13.5). `Inc`/`Dec` are the wrapping
 * `((old >= b) ? 0 : old+1)` and `((old == 0 || old > b) ? b : old-1)` forms on `.u32`.
 */
export const AtomOp = {
  None: 0,
  Add: 1,
  Min: 2,
  Max: 3,
  Inc: 4,
  Dec: 5,
  Cas: 6,
  Exch: 7,
  And: 8,
  Or: 9,
  Xor: 10,
} as const;
/** An {@link AtomOp} code. */
export type AtomOp = (typeof AtomOp)[keyof typeof AtomOp];

/** `shfl.sync` mode (PTX ISA §9.7.9.6). */
export const ShflMode = {
  None: 0,
  Up: 1,
  Down: 2,
  Bfly: 3,
  Idx: 4,
} as const;
/** A {@link ShflMode} code. */
export type ShflMode = (typeof ShflMode)[keyof typeof ShflMode];

/**
 * `vote.sync` mode (PTX ISA §9.7.13.8). `Ballot` writes a `.b32` mask, the others a predicate.
 * `match.sync` (PTX ISA §9.7.13.x) uses `Any` (`match.any`) and `All` (`match.all`).
 */
export const VoteMode = {
  None: 0,
  All: 1,
  Any: 2,
  Uni: 3,
  Ballot: 4,
} as const;
/** A {@link VoteMode} code. */
export type VoteMode = (typeof VoteMode)[keyof typeof VoteMode];

/** `testp` property (PTX ISA §9.7.3.x `testp`). */
export const TestpOp = {
  None: 0,
  Finite: 1,
  Infinite: 2,
  Number: 3,
  NotANumber: 4,
  Normal: 5,
  Subnormal: 6,
} as const;
/** A {@link TestpOp} code. */
export type TestpOp = (typeof TestpOp)[keyof typeof TestpOp];

/** `prmt` mode (PTX ISA §9.7.9.x `prmt`); `Default` is the generic byte-selector form. */
export const PrmtMode = {
  Default: 0,
  F4e: 1,
  B4e: 2,
  Rc8: 3,
  Ecl: 4,
  Ecr: 5,
  Rc16: 6,
} as const;
/** A {@link PrmtMode} code. */
export type PrmtMode = (typeof PrmtMode)[keyof typeof PrmtMode];

/** CTA barrier operation (PTX ISA §9.7.13.4 `bar`/`barrier`). */
export const BarOp = {
  None: 0,
  /** Wait until the expected number of threads arrived (`bar.sync`, `barrier.sync`). */
  Sync: 1,
  /** Arrive without waiting (`bar.arrive`, `barrier.arrive`). */
  Arrive: 2,
} as const;
/** A {@link BarOp} code. */
export type BarOp = (typeof BarOp)[keyof typeof BarOp];

/**
 * Reduction of `bar.red` / `barrier.red` (PTX ISA §9.7.13.4): the barrier also reduces a
 * predicate over the participating threads and gives every one of them the result. `Popc`
 * counts the threads whose predicate is true (`.popc.u32`); `And`/`Or` combine the predicates
 * (`.and.pred`/`.or.pred`). `None` for every other instruction (the barrier op is then `Sync`
 * or `Arrive`; a `bar.red` has barOp `Sync`: it waits like `bar.sync`).
 */
export const BarRedOp = {
  None: 0,
  Popc: 1,
  And: 2,
  Or: 3,
} as const;
/** A {@link BarRedOp} code. */
export type BarRedOp = (typeof BarRedOp)[keyof typeof BarRedOp];

/**
 * Runtime services nvcc calls as body-less `.extern .func` (the CUDA device runtime, CUDA C++
 * Programming Guide "Formatted Output" and "Assertion"): `Vprintf` is
 * `vprintf(.param .b64 format, .param .b64 args) -> .b32` (device `printf`), `AssertFail` is
 * `__assertfail(.b64 message, .b64 file, .b32 line, .b64 function, .b64 charSize)`. The
 * functional model executes them itself; `None` for every other instruction.
 */
export const Syscall = {
  None: 0,
  Vprintf: 1,
  AssertFail: 2,
} as const;
/** A {@link Syscall} code. */
export type Syscall = (typeof Syscall)[keyof typeof Syscall];

/** {@link Syscall} by the name of the `.extern .func` nvcc declares for it. */
export const SYSCALL_BY_NAME: ReadonlyMap<string, Syscall> = new Map<string, Syscall>([
  ['vprintf', Syscall.Vprintf],
  ['__assertfail', Syscall.AssertFail],
]);

/**
 * Memory-consistency scope (PTX ISA §8.5): of `membar`/`fence` and of scoped
 * `atom`/`red`/`ld`/`st` (`.cta/.gpu/.sys`; `membar.gl` is `Gpu`). `None` when unstated.
 */
export const MemScope = {
  None: 0,
  Cta: 1,
  Gpu: 2,
  Sys: 3,
} as const;
/** A {@link MemScope} code. */
export type MemScope = (typeof MemScope)[keyof typeof MemScope];

/**
 * Texture / surface geometry of `tex`, `tld4`, `suld`, `sust` (PTX ISA §9.7.10.3 `tex`,
 * §9.7.11.1 `suld`): the coordinate vector's shape. `A1d`/`A2d` are layered (array) textures and
 * surfaces whose first coordinate element is the layer index (`.u32`/`.s32`); `D3` and `A2d`
 * take a 4-element vector whose last element is ignored.
 */
export const TexGeom = {
  None: 0,
  D1: 1,
  D2: 2,
  D3: 3,
  A1d: 4,
  A2d: 5,
} as const;
/** A {@link TexGeom} code. */
export type TexGeom = (typeof TexGeom)[keyof typeof TexGeom];

/** PTX spelling (without the dot) of each {@link TexGeom}, indexed by code. */
export const TEX_GEOM_NAME: readonly string[] = Object.freeze(['', '1d', '2d', '3d', 'a1d', 'a2d']);

/** Coordinate-vector length of each {@link TexGeom} as PTX writes it (`{x}`, `{x, y}`, `{x, y, z, _}`, `{i, x}`, `{i, x, y, _}`). */
export const TEX_GEOM_COORDS: readonly number[] = Object.freeze([0, 1, 2, 4, 2, 4]);

/**
 * Attribute read by `txq` / `suq` (PTX ISA §9.7.10.5 `txq`, §9.7.11.4 `suq`). Sizes are in
 * elements (texels); `ArraySize` is the layer count of a layered texture (0 otherwise);
 * `NumMipmapLevels` is 1 (no mipmaps) and `NumSamples` 0 (no multisampling); the sampler
 * queries give the PTX enumerations: `FilterMode` nearest 0 / linear 1, `AddrMode0..2` wrap 0,
 * mirror 1, clamp_ogl 2, clamp_to_edge 3, clamp_to_border 4; `NormalizedCoords` and
 * `ForceUnnormalizedCoords` 1 or 0.
 */
export const TexQuery = {
  None: 0,
  Width: 1,
  Height: 2,
  Depth: 3,
  ArraySize: 4,
  NumMipmapLevels: 5,
  NumSamples: 6,
  NormalizedCoords: 7,
  FilterMode: 8,
  AddrMode0: 9,
  AddrMode1: 10,
  AddrMode2: 11,
  ForceUnnormalizedCoords: 12,
} as const;
/** A {@link TexQuery} code. */
export type TexQuery = (typeof TexQuery)[keyof typeof TexQuery];

/**
 * Out-of-bounds handling of `suld`/`sust` (PTX ISA §9.7.11.1): `Trap` ends the kernel with a
 * fault report, `Clamp` accesses the nearest element inside the surface, `Zero` loads zero /
 * drops the store.
 */
export const SurfClamp = {
  None: 0,
  Trap: 1,
  Clamp: 2,
  Zero: 3,
} as const;
/** A {@link SurfClamp} code. */
export type SurfClamp = (typeof SurfClamp)[keyof typeof SurfClamp];

/**
 * Opaque type of a module-scope variable (PTX ISA §5.3 "Texture Sampler and Surface Types"):
 * `.texref`, `.surfref`, `.samplerref`, or `None` for data variables. An opaque variable holds
 * no bytes in memory: its value is the texture, surface or sampler the launch binds to it.
 */
export const OpaqueType = {
  None: 0,
  Texref: 1,
  Surfref: 2,
  Samplerref: 3,
} as const;
/** An {@link OpaqueType} code. */
export type OpaqueType = (typeof OpaqueType)[keyof typeof OpaqueType];

/**
 * Sampler state written in a `.texref`/`.samplerref` initialiser (`= { filter_mode = linear,
 * addr_mode_0 = clamp_to_edge, normalized_coords = 1 }`, PTX ISA §5.3.1): each field undefined
 * when the initialiser does not set it. Address modes use the names of {@link TexQuery}'s
 * enumeration (`wrap`, `mirror`, `clamp_ogl`, `clamp_to_edge`, `clamp_to_border`).
 */
export interface SamplerInit {
  /** `filter_mode`: `nearest` or `linear`. */
  readonly filterMode: 'nearest' | 'linear' | undefined;
  /** `addr_mode_0..2` (x, y, z). */
  readonly addrMode: readonly ('wrap' | 'mirror' | 'clamp_ogl' | 'clamp_to_edge' | 'clamp_to_border' | undefined)[];
  /** `normalized_coords` (texref) or the negation of `force_unnormalized_coords` (sampler). */
  readonly normalizedCoords: boolean | undefined;
}

// ---------------------------------------------------------------------------------------------
// Special registers
// ---------------------------------------------------------------------------------------------

/**
 * Special (read-only, per-thread or per-launch) registers (PTX ISA chapter 10) that `mov` and
 * `cvt` may read. Vector ones (`%tid` ...) carry a component in {@link Operand.component}.
 */
export const SpecialReg = {
  None: 0,
  Tid: 1,
  Ntid: 2,
  Ctaid: 3,
  Nctaid: 4,
  Laneid: 5,
  Warpid: 6,
  Nwarpid: 7,
  Smid: 8,
  Nsmid: 9,
  Gridid: 10,
  Clock: 11,
  ClockHi: 12,
  Clock64: 13,
  LanemaskEq: 14,
  LanemaskLe: 15,
  LanemaskLt: 16,
  LanemaskGe: 17,
  LanemaskGt: 18,
  Globaltimer: 19,
  GlobaltimerLo: 20,
  GlobaltimerHi: 21,
  DynamicSmemSize: 22,
  TotalSmemSize: 23,
  WarpSize: 24,
  /** `%envreg0..31`: driver-defined values, read-only; {@link Operand.component} is N. */
  Envreg: 25,
} as const;
/** A {@link SpecialReg} code. */
export type SpecialReg = (typeof SpecialReg)[keyof typeof SpecialReg];

/** PTX spelling (with `%`, without component) of each {@link SpecialReg}, indexed by code. */
export const SPECIAL_REG_NAME: readonly string[] = Object.freeze([
  '', '%tid', '%ntid', '%ctaid', '%nctaid', '%laneid', '%warpid', '%nwarpid', '%smid', '%nsmid',
  '%gridid', '%clock', '%clock_hi', '%clock64', '%lanemask_eq', '%lanemask_le', '%lanemask_lt',
  '%lanemask_ge', '%lanemask_gt', '%globaltimer', '%globaltimer_lo', '%globaltimer_hi',
  '%dynamic_smem_size', '%total_smem_size', 'WARP_SZ', '%envreg',
]);

/** Width in bits of each {@link SpecialReg}'s value, indexed by code (`%gridid`, `%clock64`, `%globaltimer` are 64). */
export const SPECIAL_REG_BITS: readonly number[] = Object.freeze([
  0, 32, 32, 32, 32, 32, 32, 32, 32, 32, 64, 32, 32, 64, 32, 32, 32, 32, 32, 64, 32, 32, 32, 32, 32, 32,
]);

// ---------------------------------------------------------------------------------------------
// Operands
// ---------------------------------------------------------------------------------------------

/** Kind of an {@link Operand}. */
export const OperandKind = {
  /** A register: {@link Operand.reg} is its index; {@link Operand.negate} for `!%p`. */
  Reg: 0,
  /** An immediate: {@link Operand.lo}/{@link Operand.hi}/{@link Operand.bits}/{@link Operand.value}. */
  Imm: 1,
  /** A vector `{a, b, ...}` of Reg/Imm/Sink operands in {@link Operand.elems}. */
  Vec: 2,
  /**
   * A memory address `[base+offset]`, `[symbol+offset]` or `[imm]`: {@link Operand.reg} is the
   * base register or -1, {@link Operand.symbol} the variable or undefined, {@link Operand.offset}
   * the byte offset (signed; for `[imm]` the absolute address).
   */
  Addr: 3,
  /** The address of a variable used as a value (`mov.u64 %rd1, gvar;`): {@link Operand.symbol}, plus {@link Operand.offset}. */
  Symbol: 4,
  /** A branch target: {@link Operand.label} and its resolved instruction {@link Operand.target}. */
  Label: 5,
  /** A special register: {@link Operand.sreg} and {@link Operand.component}. */
  Special: 6,
  /** The sink `_` (result discarded). */
  Sink: 7,
} as const;
/** An {@link OperandKind} code. */
export type OperandKind = (typeof OperandKind)[keyof typeof OperandKind];

/**
 * One operand. Every operand object has all of these fields (monomorphic shape); those that do
 * not apply to its {@link kind} hold `-1`, `0`, `false`, `''`, `undefined` or `[]`.
 */
export interface Operand {
  /** What this operand is. */
  readonly kind: OperandKind;
  /** Register index ({@link RegisterInfo.index}) for `Reg`; base register for `Addr` (-1 if none); else -1. */
  readonly reg: number;
  /** `Reg` only: logical negation of a predicate source (`!%p1`). */
  readonly negate: boolean;
  /**
   * `Imm` only: low 32 bits (unsigned, `>>> 0`) of the value encoded in this operand position's
   * type. Integer literals are sign-extended to 64 bits first, so `lo`/`hi` are right for any
   * width. Float literals are encoded in the position's float type (f32 bits in `lo`, `hi` = 0;
   * f64 bits in `lo`+`hi`).
   */
  readonly lo: number;
  /** `Imm` only: high 32 bits (unsigned) of the 64-bit pattern; see {@link lo}. */
  readonly hi: number;
  /** `Imm` only: the full 64-bit pattern as an unsigned bigint (`hi * 2^32 + lo`). */
  readonly bits: bigint;
  /**
   * `Imm` only: the numeric value (the integer the literal denotes, possibly beyond 2^53 and
   * then rounded; or the float value after conversion to the position's float type).
   */
  readonly value: number;
  /** `Addr`/`Symbol`: the referenced variable (module or function scope, or a parameter); else undefined. */
  readonly symbol: PtxVariable | undefined;
  /** `Addr`/`Symbol`: signed byte offset added to the base (register value or symbol address). */
  readonly offset: number;
  /** `Special` only: which special register. */
  readonly sreg: SpecialReg;
  /** `Special` only: component 0..2 for `.x/.y/.z`, -1 for a scalar special register; N for `%envregN`. */
  readonly component: number;
  /** `Label` only: the label name. */
  readonly label: string;
  /** `Label` only: index of the labelled instruction in {@link PtxFunction.instructions}. */
  readonly target: number;
  /** `Vec` only: the elements (each `Reg`, `Imm` or `Sink`). */
  readonly elems: readonly Operand[];
  /** The operand as written in the PTX text (for traces and messages). */
  readonly text: string;
}

// ---------------------------------------------------------------------------------------------
// Instruction classes (static properties for the timing model)
// ---------------------------------------------------------------------------------------------

/**
 * Execution-unit class of an instruction, for the timing model (issue 3 item 3). Choices made
 * here (documented so a config can map classes to pipelines and latencies):
 * - `Alu`: integer add/sub/logic/shift/bit ops (incl. `bfind`)/compare/select/min/max/abs/neg, `mov`, `cvt`,
 *   `cvta`, `testp`, `copysign` on f32, and f32 `add/sub/mul/fma/mad/min/max/abs/neg`.
 * - `IntMul`: integer `mul`, `mad`, `madc`, `mul24`, `mad24` (all widths).
 * - `IntDiv`: integer `div`, `rem` (a long emulated sequence on real hardware).
 * - `Sfu`: transcendental and reciprocal f32 ops: `rcp, sqrt, rsqrt, ex2, lg2, sin, cos`, and
 *   f32 `div` (any precision); f64 `rcp.approx`/`rsqrt.approx` too.
 * - `Dp`: every other f64 arithmetic op (`add, sub, mul, fma, mad, div, sqrt, rcp.rn, min,
 *   max, abs, neg, copysign`) and `cvt` with an f64 side. `setp/set/selp/testp/mov` on f64 stay
 *   `Alu`.
 * - `Load`/`Store`: `ld`/`ldu`/`st` of any state space (see {@link Instruction.space}).
 * - `Atomic`: `atom`, `red`.
 * - `Barrier`: CTA barriers `bar`/`barrier`, `bar.red` included.
 * - `Branch`: `bra`. `Call`, `Ret`, `Exit`: those instructions (`trap` is `Exit`: it ends the
 *   kernel; a `call` of `vprintf`/`__assertfail` is `Call`).
 * - `Membar`: `membar`/`fence`.
 * - Textures and surfaces: `tex`/`tld4` are `Load` in {@link StateSpace.Tex}, `suld` `Load` and
 *   `sust` `Store` in global space (GPGPU-Sim treats surfaces as global memory); `txq`/`suq`
 *   (a descriptor read) are `Alu`.
 * - `Other`: warp-level `shfl`, `vote`, `activemask`, `bar.warp.sync`, and `nanosleep`.
 * - `bmsk` is `Alu`.
 */
export const OpClass = {
  Alu: 0,
  IntMul: 1,
  IntDiv: 2,
  Sfu: 3,
  Dp: 4,
  Load: 5,
  Store: 6,
  Atomic: 7,
  Barrier: 8,
  Branch: 9,
  Membar: 10,
  Call: 11,
  Ret: 12,
  Exit: 13,
  Other: 14,
} as const;
/** An {@link OpClass} code. */
export type OpClass = (typeof OpClass)[keyof typeof OpClass];

/** Name of each {@link OpClass}, indexed by code (`alu`, `intMul`, ... as used in configs and stats). */
export const OP_CLASS_NAME: readonly string[] = Object.freeze([
  'alu', 'intMul', 'intDiv', 'sfu', 'dp', 'load', 'store', 'atomic', 'barrier', 'branch', 'membar',
  'call', 'ret', 'exit', 'other',
]);

// ---------------------------------------------------------------------------------------------
// Instructions
// ---------------------------------------------------------------------------------------------

/** A `.loc fileIdx line col` debug position (PTX ISA §11.5.2); `file` indexes {@link PtxModule.debugFiles}. */
export interface DebugLoc {
  /** File index as given by `.file N "name"`. */
  readonly file: number;
  /** 1-based line in the CUDA source. */
  readonly line: number;
  /** Column in the CUDA source (0 when unknown). */
  readonly column: number;
}

/**
 * One decoded PTX instruction. All instructions share this shape; fields that do not apply hold
 * a neutral value. Operand order follows the PTX text, split into destinations and sources:
 *
 * | opcode | dst | src |
 * |---|---|---|
 * | most ALU ops | `[d]` | `[a, b, c ...]` |
 * | `setp` | `[p]` or `[p, q]` (`p\|q`) | `[a, b]` or `[a, b, c]` with `.and/.or/.xor` |
 * | `ld`, `ldu` | `[d]` (Reg, or Vec for `.v2/.v4`) | `[addr]` |
 * | `st` | `[]` | `[addr, value]` (value is Reg/Imm, or Vec) |
 * | `atom` | `[d]` | `[addr, b]` or `[addr, b, c]` (cas) |
 * | `red` | `[]` | `[addr, b]` |
 * | `mov` | `[d]` (Reg or Vec when unpacking) | `[a]` (Reg, Imm, Special, Symbol, or Vec when packing) |
 * | `shfl.sync` | `[d]` or `[d, p]` | `[a, b, c, membermask]` |
 * | `vote.sync` | `[d]` | `[a (pred, maybe negated), membermask]` |
 * | `match.sync` | `[d]` or `[d, p]` (`match.all` `d\|p`) | `[a, membermask]` |
 * | `activemask` | `[d]` | `[]` |
 * | `bar`/`barrier` | `[]` | `[barrierId]` or `[barrierId, threadCount]` |
 * | `bar.red` | `[d]` (`.u32` for popc, `.pred` for and/or) | `[barrierId, c]` or `[barrierId, threadCount, c]` (`c` a predicate, maybe negated) |
 * | `nanosleep` | `[]` | `[t]` (ns, `.u32`) |
 * | `bmsk` | `[d]` | `[a, b]` |
 * | `trap` | `[]` | `[]` |
 * | `tex`, `tld4` | `[Vec of 4]` | `[texture, coords (Vec), sampler?]`: texture a `Reg` (`.u64` handle) or `Symbol` (`.texref`), sampler a `Symbol` (`.samplerref`) |
 * | `txq`, `suq` | `[d]` (`.b32`) | `[texture or surface]` |
 * | `suld` | `[Vec of 1, 2 or 4]` | `[surface, coords (Vec)]` |
 * | `sust` | `[]` | `[surface, coords (Vec), value (Vec of 1, 2 or 4)]` |
 * | `bar.warp.sync` | `[]` | `[membermask]` |
 * | `bra` | `[]` | `[Label]` |
 * | `call` | {@link callRets} | {@link callArgs} (here `src` is `[]`; `[fptr]`, the pointer register, for an indirect call) |
 * | `ret`, `exit`, `membar` | `[]` | `[]` |
 */
export interface Instruction {
  /** Position in {@link PtxFunction.instructions} (the PC, in instructions). */
  readonly index: number;
  /** The opcode. */
  readonly op: Opcode;
  /** Full opcode with modifiers as written (`ld.global.nc.f32`), for traces and messages. */
  readonly opText: string;
  /**
   * Primary type: the instruction type (`add.s32` -> S32; `mul.wide.s32` -> S32, the *operand*
   * type, the destination being twice as wide); for `cvt`, `set`, `slct` the destination type;
   * for `setp`/`testp` the compared type; for `ld/st/atom/red` the element type; for `cvta` the
   * address type (U32/U64); for `clz/popc/brev/bfind` the source type; `None` for control flow.
   */
  readonly type: ScalarType;
  /** Secondary type: source type of `cvt`/`set`, operand type of `slct`'s `c`; else `None`. */
  readonly type2: ScalarType;
  /** Vector width of `ld/ldu/st` (`.v2` -> 2, `.v4` -> 4); 2 for `.f16x2` arithmetic (type `F16`, a pair per register); 1 otherwise. */
  readonly vec: number;
  /** State space of `ld/ldu/st/atom/red/cvta` (`Generic` when unqualified), else `None`. */
  readonly space: StateSpace;
  /** `cvta.to.<space>` (generic -> space) when true; `cvta.<space>` (space -> generic) when false. */
  readonly cvtaTo: boolean;
  /** Rounding modifier, `None` if absent. */
  readonly rounding: Rounding;
  /** `.ftz`: flush f32 subnormal inputs and results to sign-preserving zero. */
  readonly ftz: boolean;
  /** `.sat`: clamp (f32 results to [0, 1], NaN -> 0; s32 add/sub/mad.hi results to the s32 range). */
  readonly sat: boolean;
  /** `.approx` (f32 `div/rcp/sqrt/rsqrt/ex2/lg2/sin/cos`, f64 `rcp/rsqrt`). */
  readonly approx: boolean;
  /** `.full` (f32 `div.full`: max 2 ulp). */
  readonly full: boolean;
  /** `.lo/.hi/.wide` of integer `mul/mad/mul24/mad24`. */
  readonly mulMode: MulMode;
  /** Compare op of `setp`/`set`; `None` elsewhere (`slct` compares `c >= 0` implicitly). */
  readonly cmp: CmpOp;
  /** Boolean combine of `setp`/`set`. */
  readonly boolOp: BoolOp;
  /** Atomic op of `atom`/`red`. */
  readonly atomOp: AtomOp;
  /** Shuffle mode of `shfl.sync`. */
  readonly shflMode: ShflMode;
  /** Vote mode of `vote.sync`. */
  readonly voteMode: VoteMode;
  /** Property tested by `testp`. */
  readonly testOp: TestpOp;
  /** Byte-permute mode of `prmt`. */
  readonly prmtMode: PrmtMode;
  /** Barrier operation of `bar`/`barrier`. */
  readonly barOp: BarOp;
  /** Reduction of `bar.red`/`barrier.red` (barOp is then `Sync`); `None` otherwise. */
  readonly barRed: BarRedOp;
  /** `call` of a runtime service (`vprintf`, `__assertfail`); `None` otherwise. */
  readonly syscall: Syscall;
  /** Scope of `membar/fence`, or of a scoped `atom/red/ld/st`. */
  readonly scope: MemScope;
  /** `.uni` on `bra`/`call`: the programmer asserts the branch is non-divergent. */
  readonly uni: boolean;
  /** `.cc` on `add/sub/mad/addc/subc/madc`: the instruction writes the carry flag (register {@link PtxFunction.ccReg}). */
  readonly cc: boolean;
  /** `.nc` on `ld.global` (non-coherent, read-only data cache path). */
  readonly nc: boolean;
  /** `.volatile` on `ld`/`st`. */
  readonly volatile: boolean;
  /** `.shiftamt` on `bfind`: return the left-shift amount (`bits-1 - position`) instead of the bit position. */
  readonly shiftAmt: boolean;
  /** `shf` only: `.r` (shift right) when true, `.l` when false. */
  readonly shfRight: boolean;
  /** `shf`/`bmsk`: `.clamp` (shift amount or bit position clamped to 32) when true, `.wrap` (mod 32) when false. */
  readonly clamp: boolean;
  /** `tex`/`tld4`/`suld`/`sust`: geometry of the coordinate vector; `None` elsewhere. */
  readonly geom: TexGeom;
  /** `txq`/`suq`: the attribute queried; `None` elsewhere. */
  readonly texQuery: TexQuery;
  /** `suld`/`sust`: out-of-bounds handling; `None` elsewhere. */
  readonly surfClamp: SurfClamp;
  /** `tld4`: the component gathered, 0..3 for `.r .g .b .a`; -1 elsewhere. */
  readonly texComp: number;
  /** Guard predicate register index (`@%p1`/`@!%p1`), or -1 when unguarded. */
  readonly guard: number;
  /** True for `@!%p`: execute where the guard is false. */
  readonly guardNegate: boolean;
  /** Destination operands (see the table above). */
  readonly dst: readonly Operand[];
  /** Source operands (see the table above). */
  readonly src: readonly Operand[];
  /** `call` only: index of the callee in {@link PtxModule.functions}; else -1 (and -1 for an indirect call). */
  readonly callee: number;
  /**
   * Indirect `call` only (`callee` -1): indices in {@link PtxModule.functions} of the functions
   * the pointer may name, ascending: the `.calltargets` list or call table (`flist`) when the call
   * names one, else every function of the module whose address is taken
   * ({@link PtxModule.addressTaken}) and whose parameter and return sizes match the call's
   * `.callprototype` (`fproto`). Empty for every other instruction. Source: PTX ISA 9.0 §9.7.12.2
   * (`call`), §11.3 (`.callprototype`, `.calltargets`).
   */
  readonly callTargets: readonly number[];
  /**
   * `call` only: actual arguments, in order: each a `Symbol` operand naming a caller `.param`
   * variable (as nvcc emits), or a `Reg`/`Imm` operand. Empty otherwise.
   */
  readonly callArgs: readonly Operand[];
  /** `call` only: return-value receivers (`Symbol` of a `.param` variable, or `Reg`). Empty otherwise. */
  readonly callRets: readonly Operand[];
  /** Execution-unit class (static property, see {@link OpClass}). */
  readonly opClass: OpClass;
  /**
   * Registers read, deduplicated, in first-use order: guard, sources, address bases, vector
   * elements, `c` of `setp.and`, and the carry register for `addc/subc/madc`. For `call`: registers
   * in `callArgs`. Preallocated; do not mutate.
   */
  readonly srcRegs: Int32Array;
  /** Registers written, deduplicated (both of `p|q`, vector elements, the carry for `.cc`). */
  readonly dstRegs: Int32Array;
  /** Bytes accessed per thread by a memory instruction (element size x {@link vec}); 0 otherwise. */
  readonly accessBytes: number;
  /**
   * True when the result arrives after a long, variable latency: loads from global, local or
   * generic space (and `ldu`), and atomics/reductions on any space except shared. Shared, const
   * and param loads are short (as in paper 004 §3.1 and 000 §3.4.2.1).
   */
  readonly longLatency: boolean;
  /** 1-based line of the instruction in the PTX file. */
  readonly line: number;
  /** 1-based column of the opcode (or guard) in the PTX file. */
  readonly column: number;
  /** Last `.loc` seen before the instruction in this function, or undefined. */
  readonly debugLoc: DebugLoc | undefined;
}

// ---------------------------------------------------------------------------------------------
// Registers, variables, functions, module
// ---------------------------------------------------------------------------------------------

/** One register of a function (PTX ISA §5.1.1), numbered densely from 0. */
export interface RegisterInfo {
  /** Dense index, equal to the position in {@link PtxFunction.registers}. */
  readonly index: number;
  /**
   * Name as declared (`%r12`, `%p1`, `t` in a scoped block). Components of a vector register
   * `.reg .v2 .f32 %v` are separate registers named `%v.x`, `%v.y` (`.z`, `.w`). The hidden
   * carry register is `%cc`. Names may repeat when scoped blocks shadow; indices never do.
   */
  readonly name: string;
  /** Declared type. `Pred` for predicates. */
  readonly type: ScalarType;
  /** Width in bits (1 for predicates). */
  readonly bits: number;
  /** True for `.pred` registers (and the hidden `%cc` carry register). */
  readonly isPred: boolean;
  /**
   * Dense index within its class: among predicates (`isPred`) or among data registers. Lets an
   * executor keep predicates in a separate bit-array.
   */
  readonly classIndex: number;
  /** Nesting depth of the `{ }` block that declared it (0 = function body). */
  readonly scopeDepth: number;
}

/** How a {@link PtxVariable} was declared. */
export const VarKind = {
  /** Module-scope `.global`, `.const`, `.shared` variable. */
  Module: 0,
  /** Variable declared inside a function body (`.local`, `.shared`, `.param` in a call sequence). */
  Function: 1,
  /** `.param` of an `.entry` (kernel parameter). */
  KernelParam: 2,
  /** Input `.param` of a `.func`. */
  FuncParam: 3,
  /** Return `.param` of a `.func`. */
  FuncReturn: 4,
} as const;
/** A {@link VarKind} code. */
export type VarKind = (typeof VarKind)[keyof typeof VarKind];

/** Linkage directive on a module-scope symbol (PTX ISA §11.6). */
export const Linkage = {
  None: 0,
  Visible: 1,
  Extern: 2,
  Weak: 3,
  Common: 4,
} as const;
/** A {@link Linkage} code. */
export type Linkage = (typeof Linkage)[keyof typeof Linkage];

/**
 * An address-valued initialiser element (`generic(sym)`, `sym`, `sym+8`): at load time the
 * executor writes the address of `symbol` (+ `addend`) at byte `byteOffset` of the variable,
 * as a `size`-byte little-endian integer.
 */
export interface VarRelocation {
  /** Byte offset inside the initialised variable. */
  readonly byteOffset: number;
  /** Size of the written address in bytes (4 or 8: the element type size). */
  readonly size: number;
  /** Name of the referenced module-scope variable (or function, which is refused today). */
  readonly symbol: string;
  /** Byte offset added to the symbol's address. */
  readonly addend: number;
  /** True for `generic(sym)`: the generic address; false: the address in the symbol's own space. */
  readonly generic: boolean;
}

/**
 * A variable or parameter (PTX ISA §5.4, §11.2.x `.param`), of any state space.
 * Sizes are in bytes. `elemType` is the element type (`.b8` for byte arrays), `vec` the vector
 * width of each element (`.v2 .f32` -> 2), `dims` the array dimensions (`[4][8]` -> `[4, 8]`,
 * `[]` with unknown size -> `[0]`).
 */
export interface PtxVariable {
  /** Dense id, unique in the module (index into {@link PtxModule.variables}). */
  readonly id: number;
  /** Name as declared. */
  readonly name: string;
  /** State space (`Param` for parameters). */
  readonly space: StateSpace;
  /** How it was declared. */
  readonly kind: VarKind;
  /** Linkage (module scope only; `None` elsewhere). */
  readonly linkage: Linkage;
  /** Element type. */
  readonly elemType: ScalarType;
  /** Vector width of each element (1, 2, 4). */
  readonly vec: number;
  /** Array dimensions; empty for a scalar; a 0 entry means "size given by the initialiser" or unsized extern. */
  readonly dims: readonly number[];
  /** Alignment in bytes (declared `.align`, else the element size x vec). */
  readonly align: number;
  /** Total size in bytes (0 for an unsized `extern` array such as dynamic shared memory). */
  readonly sizeBytes: number;
  /**
   * Initial contents (`sizeBytes` bytes, little-endian, zero-filled past the listed elements),
   * or undefined when there is no initialiser. Address elements are 0 here; see {@link relocations}.
   */
  readonly init: Uint8Array | undefined;
  /** Address-valued initialiser elements. */
  readonly relocations: readonly VarRelocation[];
  /** `.extern .shared` unsized array: the dynamic shared memory window (all such vars alias it at offset {@link SharedLayout.dynamicOffset}). */
  readonly isDynamicShared: boolean;
  /**
   * Byte offset of the storage: kernel params -> offset in the kernel parameter buffer
   * (PTX ABI: each param aligned to its alignment); func params/returns and function-scope
   * `.local`/`.param` variables -> offset in that function's per-thread frame
   * ({@link PtxFunction.frameBytes}); module-scope and shared variables -> -1 (shared offsets
   * are per kernel, in {@link PtxFunction.sharedLayout}).
   */
  readonly offset: number;
  /** `.ptr .global .align N` attribute on a kernel param: the pointed-to space and alignment, or undefined. */
  readonly ptr: { readonly space: StateSpace; readonly align: number } | undefined;
  /** Index of the declaring function in {@link PtxModule.functions}, -1 at module scope. */
  readonly functionIndex: number;
  /** `.texref`, `.surfref`, `.samplerref` (module scope, no storage), or `None`. */
  readonly opaque: OpaqueType;
  /** Sampler state of an opaque variable's initialiser, or undefined. */
  readonly samplerInit: SamplerInit | undefined;
  /** 1-based line of the declaration. */
  readonly line: number;
}

/** Performance-tuning directives of a function (PTX ISA §11.4). Absent ones are undefined. */
export interface PerfDirectives {
  /** `.maxntid nx{, ny{, nz}}`, missing dimensions are 1. */
  readonly maxntid: readonly [number, number, number] | undefined;
  /** `.reqntid nx{, ny{, nz}}`, missing dimensions are 1. */
  readonly reqntid: readonly [number, number, number] | undefined;
  /** `.minnctapersm n`. */
  readonly minnctapersm: number | undefined;
  /** `.maxnreg n`. */
  readonly maxnreg: number | undefined;
  /** `.maxnctapersm n` (deprecated, still accepted). */
  readonly maxnctapersm: number | undefined;
}

/**
 * Static shared-memory layout of one kernel: every `.shared` variable the kernel or any function
 * it (transitively) calls references, or declares, placed in declaration order at its alignment.
 * Dynamic shared memory (the `.extern .shared` unsized arrays) starts at `dynamicOffset`.
 */
export interface SharedLayout {
  /** Byte offset of each variable by {@link PtxVariable.id}; -1 where the kernel does not use it. */
  readonly offsets: Int32Array;
  /** Bytes of static shared memory per CTA. */
  readonly staticBytes: number;
  /** Offset of the dynamic shared window (static bytes rounded up to the largest dynamic alignment, at least 16). */
  readonly dynamicOffset: number;
}

/** An `.entry` (kernel) or `.func` (device function). */
export interface PtxFunction {
  /** Position in {@link PtxModule.functions}. */
  readonly index: number;
  /** Name. */
  readonly name: string;
  /** True for `.entry`, false for `.func`. */
  readonly isEntry: boolean;
  /** Linkage directive. */
  readonly linkage: Linkage;
  /** Input parameters, in order (kind `KernelParam` or `FuncParam`). */
  readonly params: readonly PtxVariable[];
  /** Return parameters of a `.func` (kind `FuncReturn`), in order; empty for kernels. */
  readonly returns: readonly PtxVariable[];
  /** Performance-tuning directives. */
  readonly perf: PerfDirectives;
  /** Register table; `registers[i].index === i`. */
  readonly registers: readonly RegisterInfo[];
  /** Number of predicate registers (max `classIndex` + 1 among predicates). */
  readonly numPredRegs: number;
  /** Number of data (non-predicate) registers. */
  readonly numDataRegs: number;
  /** Index of the hidden carry register `%cc`, or -1 when no instruction uses `.cc`/`addc`/`subc`. */
  readonly ccReg: number;
  /** Variables declared in the body (`.local`, `.shared`, call-sequence `.param`). */
  readonly localVars: readonly PtxVariable[];
  /** The body, in order. Empty for a `.func` declaration without a body (refused if called). */
  readonly instructions: readonly Instruction[];
  /** Label name -> index of the instruction it labels (a label at the end points at `instructions.length`). */
  readonly labels: ReadonlyMap<string, number>;
  /** Bytes of parameter buffer (kernels: the `.param` list laid out per the PTX ABI). */
  readonly paramBytes: number;
  /** Bytes of per-thread frame: func params/returns plus body `.local`/`.param` variables. */
  readonly frameBytes: number;
  /** Kernels: shared-memory layout. `.func`: undefined. */
  readonly sharedLayout: SharedLayout | undefined;
  /** False for a prototype declaration (`.func f(...);` with no body). */
  readonly hasBody: boolean;
  /** 1-based line of the `.entry`/`.func` directive. */
  readonly line: number;
}

/** A parsed, validated PTX module. */
export interface PtxModule {
  /** File name given to the parser (used in every message). */
  readonly file: string;
  /** `.version major.minor`. */
  readonly version: { readonly major: number; readonly minor: number };
  /** `.target` list (`['sm_75']`, `['sm_80', 'texmode_independent']`). */
  readonly target: readonly string[];
  /** `.address_size` in bits (32 or 64; PTX's default, 32, when the directive is absent). */
  readonly addressSize: number;
  /** Every variable and parameter of the module, indexed by {@link PtxVariable.id}. */
  readonly variables: readonly PtxVariable[];
  /** Module-scope variables only (`.global`, `.const`, `.shared`), in declaration order. */
  readonly globals: readonly PtxVariable[];
  /** Functions and kernels in declaration order (a declared-then-defined `.func` appears once). */
  readonly functions: readonly PtxFunction[];
  /** Function index by name. */
  readonly functionByName: ReadonlyMap<string, number>;
  /**
   * Indices of the `.func`s whose address the module takes (`mov.u64 %rd, f;`, `f` in a
   * variable initialiser), ascending: the functions a pointer can name at run time (their
   * address is {@link functionAddress}).
   */
  readonly addressTaken: readonly number[];
  /** `.file N "name"` table. */
  readonly debugFiles: ReadonlyMap<number, string>;
}

// ---------------------------------------------------------------------------------------------
// Function addresses (function pointers)
// ---------------------------------------------------------------------------------------------

/**
 * Address of function 0 as a value (`mov.u64 %rd, f;`, a function name in an initialiser):
 * GPGPU-Sim's `PROGRAM_MEM_START` (0xF0000000), where instruction memory begins. It lies below
 * 4 GiB, where no data is ever placed (`src/functional/memory.ts`), so a function pointer is never
 * a valid data address, and it fits the 32-bit pointers of `.address_size 32` modules.
 */
export const FUNCTION_ADDRESS_BASE = 0xf0000000;
/** Bytes between the addresses of consecutive functions (one SASS instruction, 16 bytes). */
export const FUNCTION_ADDRESS_STRIDE = 16;

/**
 * The value of a pointer to function `index` of a module (its index in
 * {@link PtxModule.functions}): `FUNCTION_ADDRESS_BASE + 16 x index`, bytes.
 */
export function functionAddress(index: number): number {
  return FUNCTION_ADDRESS_BASE + FUNCTION_ADDRESS_STRIDE * index;
}

/**
 * The function a pointer value names: its index in a module of `count` functions, or -1 when the
 * value is the address of no function (not of the form {@link functionAddress}).
 * @param value the pointer, an unsigned integer below 2^53 (a 64-bit register read as a number).
 */
export function functionAtAddress(value: number, count: number): number {
  const d = value - FUNCTION_ADDRESS_BASE;
  if (d < 0 || d % FUNCTION_ADDRESS_STRIDE !== 0) return -1;
  const i = d / FUNCTION_ADDRESS_STRIDE;
  return i < count ? i : -1;
}
