/**
 * PTX parser: text -> validated {@link PtxModule} (GitHub issue 3, item 1).
 *
 * Accepts PTX as nvcc 13 emits it (PTX ISA 8.x-9.0): `.version/.target/.address_size`,
 * linkage directives, `.entry`/`.func` with return and input `.param` lists (`.align`, `.ptr`
 * attributes) and performance directives, `.reg` declarations (`%r<N>` ranges, vector
 * registers), variables in every state space with alignment, multi-dimensional arrays and
 * initialisers (numbers, `generic(sym)`, `sym`), dynamic shared memory (`.extern .shared ...
 * smem[]`), labels, guards, scoped `{ }` blocks with their own `.reg`/`.param` declarations
 * (call sequences, inline asm), `.loc`/`.file` (kept as {@link Instruction.debugLoc}),
 * `.pragma`, and `.section` debug blocks (skipped), and module-scope texture, surface and
 * sampler references (`.global .texref t;`, `.global .surfref s;`, `.global .samplerref p = {
 * filter_mode = linear, addr_mode_0 = clamp_to_edge };`, the old `.tex .u32 t;`: PTX ISA §5.3).
 *
 * Everything is validated when the file is loaded: a syntax error, an undeclared register, an
 * unknown or unsupported opcode or modifier, a wrong operand count, kind or type, a branch to an
 * undefined label, a call to an undefined, body-less or recursive `.func` all throw an
 * `InputError` with file, line, column and the offending token. Nothing is refused later.
 *
 * Source: NVIDIA PTX ISA 9.0, chapters 4 (syntax), 5 (state spaces, types, variables), 6
 * (operands), 9 (instructions), 11 (directives); the PTX ABI for parameter layout.
 */
import { InputError } from '../errors.ts';
import {
  Linkage,
  OpaqueType,
  OperandKind,
  SCALAR_TYPE_BITS,
  SCALAR_TYPE_KIND,
  SCALAR_TYPE_NAME,
  ScalarType,
  StateSpace,
  Syscall,
  SYSCALL_BY_NAME,
  TypeKind,
  VarKind,
} from './ir.ts';
import type {
  DebugLoc,
  Instruction,
  Operand,
  PerfDirectives,
  PtxFunction,
  PtxModule,
  PtxVariable,
  RegisterInfo,
  SamplerInit,
  SharedLayout,
  VarRelocation,
} from './ir.ts';
import { decodeInstruction, opcodeProblem, RawKind, TYPE_BY_NAME } from './decode.ts';
import type { CallList, CallSignature, DecodeContext, IndirectCallSite, MutableInstruction, RawInstruction, RawOperand } from './decode.ts';
import { f32ToBits, f64ToBits, parseLiteral, bitsToF32, bitsToF64 } from './literals.ts';
import type { Literal } from './literals.ts';
import { tokenize, TokenKind } from './lexer.ts';
import type { Token } from './lexer.ts';
import { accessBytes, classifyInstruction, instructionRegisters, isLongLatency } from './properties.ts';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };
type MutableVar = Mutable<PtxVariable>;

/** Largest number of registers one function may declare (guards against absurd `%r<N>`). */
export const MAX_REGISTERS_PER_FUNCTION = 1 << 18;
/** Largest variable that may carry an initialiser, in bytes. */
export const MAX_INITIALISED_BYTES = 1 << 24;
/**
 * Largest `.local` frame of one function, bytes per thread: CUDA's limit of 512 KiB of local
 * memory per thread (CUDA C++ Programming Guide, "Technical Specifications per Compute
 * Capability"). Found by the fuzz suite: a `.local .b8 l[1099511627776]` crashed the run with an
 * ArrayBuffer allocation failure.
 */
export const MAX_LOCAL_BYTES = 512 * 1024;
/** Largest static `.shared` use of a kernel, bytes: ptxas' 48 KiB (0xc000) limit on static shared data. */
export const MAX_STATIC_SHARED_BYTES = 48 * 1024;
/** Largest `.const` variable, bytes: the 64 KiB constant bank (same table). */
export const MAX_CONST_BYTES = 64 * 1024;
/** Largest module-scope `.global` variable, bytes (1 GiB, the bound of a scenario buffer). */
export const MAX_GLOBAL_VARIABLE_BYTES = 1 << 30;
const MAX_SCOPE_DEPTH = 64;
const MAX_INIT_DEPTH = 8;

const SPACE_DIRECTIVES: Readonly<Record<string, StateSpace>> = {
  '.global': StateSpace.Global,
  '.shared': StateSpace.Shared,
  '.const': StateSpace.Const,
  '.local': StateSpace.Local,
  '.param': StateSpace.Param,
};
/** Opaque types of module-scope texture, surface and sampler references (PTX ISA §5.3). */
const OPAQUE_TYPES: ReadonlyMap<string, OpaqueType> = new Map([
  ['.texref', OpaqueType.Texref],
  ['.surfref', OpaqueType.Surfref],
  ['.samplerref', OpaqueType.Samplerref],
]);
/** PTX types of packed, brain and 8-bit floats (PTX ISA §5.2.1, §5.2.5) that warpstate has no type for. */
const HALF_DECL_TYPES = new Set(['.f16x2', '.bf16', '.bf16x2', '.e4m3', '.e5m2', '.e4m3x2', '.e5m2x2', '.e2m1x2', '.e3m2x2', '.e2m3x2', '.ue8m0x2', '.tf32']);
const LINKAGES: Readonly<Record<string, Linkage>> = {
  '.visible': Linkage.Visible,
  '.extern': Linkage.Extern,
  '.weak': Linkage.Weak,
  '.common': Linkage.Common,
};
const RESERVED_REGISTER_NAMES = new Set([
  '%tid', '%ntid', '%ctaid', '%nctaid', '%laneid', '%warpid', '%nwarpid', '%smid', '%nsmid', '%gridid',
  '%clock', '%clock_hi', '%clock64', '%lanemask_eq', '%lanemask_le', '%lanemask_lt', '%lanemask_ge',
  '%lanemask_gt', '%globaltimer', '%globaltimer_lo', '%globaltimer_hi', '%dynamic_smem_size',
  '%total_smem_size', '%cc',
]);

/**
 * Body-less `.extern .func`s of the CUDA device runtime that warpstate does not provide, with
 * the feature their call needs (CUDA C++ Programming Guide: "Dynamic Global Memory Allocation",
 * "CUDA Dynamic Parallelism" device runtime API; nvcc declares them extern in the PTX).
 */
const UNSUPPORTED_EXTERNS: ReadonlyMap<string, string> = new Map([
  ['malloc', 'device malloc/free'],
  ['free', 'device malloc/free'],
  ['__nv_aligned_device_malloc', 'device malloc/free'],
  ...['__cudaCDP2GetParameterBufferV2', '__cudaCDP2LaunchDeviceV2', '__cudaCDP2LaunchDevice', '__cudaCDP2GetParameterBuffer', '__cudaCDP2DeviceSynchronize', 'cudaLaunchDevice', 'cudaLaunchDeviceV2', 'cudaGetParameterBuffer', 'cudaGetParameterBufferV2', 'cudaDeviceSynchronize', 'cudaCGGetIntrinsicHandle', 'cudaCGSynchronize', 'cudaStreamCreateWithFlags', 'cudaGetDevice', 'cudaDeviceGetAttribute', 'cudaOccupancyMaxActiveBlocksPerMultiprocessor', 'cudaFuncGetAttributes', 'cudaMalloc', 'cudaFree', 'cudaEventRecord', 'cudaGetLastError', 'cudaPeekAtLastError'].map((n) => [n, 'dynamic parallelism / device runtime API'] as const),
]);

interface Scope {
  readonly regs: Map<string, number>;
  readonly vars: Map<string, MutableVar>;
  /** `.callprototype` / `.calltargets` declared in this block, by label. */
  readonly lists: Map<string, CallList>;
}

/** An indirect call waiting for its targets to be resolved (when every function is known). */
interface PendingIndirect {
  readonly ins: MutableInstruction;
  readonly site: IndirectCallSite;
  readonly line: number;
  readonly column: number;
}

interface PendingCall {
  readonly ins: MutableInstruction;
  readonly name: string;
  readonly line: number;
  readonly column: number;
}

interface FnBuild {
  index: number;
  name: string;
  isEntry: boolean;
  linkage: Linkage;
  params: MutableVar[];
  returns: MutableVar[];
  perf: Mutable<PerfDirectives>;
  registers: RegisterInfo[];
  numPred: number;
  numData: number;
  ccReg: number;
  localVars: MutableVar[];
  instructions: MutableInstruction[];
  labels: Map<string, number>;
  hasBody: boolean;
  line: number;
  calls: PendingCall[];
  indirectCalls: PendingIndirect[];
  frameBytes: number;
  paramBytes: number;
  sharedLayout: SharedLayout | undefined;
}

function alignUp(x: number, a: number): number {
  return a <= 1 ? x : Math.ceil(x / a) * a;
}

function isPow2(x: number): boolean {
  return x > 0 && (x & (x - 1)) === 0;
}

/**
 * Parses and validates a PTX module.
 *
 * @param text the PTX source.
 * @param file the file name to report in errors (and stored as {@link PtxModule.file}).
 * @returns the decoded module; every instruction is one warpstate executes.
 * @throws InputError for any syntax or validation problem, with file, 1-based line and column,
 *   and the offending token as `field`.
 */
export function parsePtx(text: string, file: string): PtxModule {
  return new ModuleParser(text, file).parse();
}

class ModuleParser {
  private readonly toks: Token[];
  private pos = 0;
  private version = { major: 0, minor: 0 };
  private target: string[] = [];
  private addressSize = 32;
  private readonly globals: MutableVar[] = [];
  private readonly globalByName = new Map<string, MutableVar>();
  private readonly functions: FnBuild[] = [];
  private readonly functionByName = new Map<string, number>();
  private readonly debugFiles = new Map<number, string>();
  private readonly relocChecks: { r: VarRelocation; line: number; column: number }[] = [];
  /** Functions whose address a `mov` or an initialiser takes. */
  private readonly addressTaken = new Set<number>();
  private sawVersion = false;

  constructor(
    text: string,
    private readonly file: string,
  ) {
    this.toks = tokenize(text, file);
  }

  // ----- token helpers -----

  private peek(k = 0): Token {
    return this.toks[Math.min(this.pos + k, this.toks.length - 1)]!;
  }

  private next(): Token {
    const t = this.toks[this.pos]!;
    if (t.kind !== TokenKind.Eof) this.pos++;
    return t;
  }

  private isPunct(c: string, k = 0): boolean {
    const t = this.peek(k);
    return t.kind === TokenKind.Punct && t.text === c;
  }

  private err(t: Token, reason: string, field?: string): never {
    throw new InputError({ file: this.file, line: t.line, column: t.column }, reason, field ?? (t.kind === TokenKind.Eof ? undefined : t.text));
  }

  private describe(t: Token): string {
    return t.kind === TokenKind.Eof ? 'end of file' : `'${t.text}'`;
  }

  private expectPunct(c: string, what?: string): Token {
    const t = this.next();
    if (t.kind !== TokenKind.Punct || t.text !== c) this.err(t, `expected '${c}'${what ? ' ' + what : ''}, found ${this.describe(t)}`);
    return t;
  }

  private expectName(what: string): Token {
    const t = this.next();
    if (t.kind !== TokenKind.Word || t.text.startsWith('.')) this.err(t, `expected ${what}, found ${this.describe(t)}`);
    return t;
  }

  private expectInt(what: string, min = 0, max = Number.MAX_SAFE_INTEGER): number {
    const t = this.next();
    if (t.kind !== TokenKind.Number) this.err(t, `expected ${what}, found ${this.describe(t)}`);
    const lit = parseLiteral(t.text);
    if (!lit || lit.kind !== 'int' || lit.value < BigInt(min) || lit.value > BigInt(max)) {
      this.err(t, `${what} must be an integer in ${min}..${max}`);
    }
    return Number(lit.value);
  }

  /** Index one past the last token on the same line as token index `i`. */
  private lineEnd(i: number): number {
    const line = this.toks[i]!.line;
    let j = i;
    while (j < this.toks.length && this.toks[j]!.kind !== TokenKind.Eof && this.toks[j]!.line === line) j++;
    return j;
  }

  // ----- module -----

  parse(): PtxModule {
    let first = true;
    while (this.peek().kind !== TokenKind.Eof) {
      const t = this.peek();
      if (t.kind !== TokenKind.Word || !t.text.startsWith('.')) this.err(t, `expected a directive, found ${this.describe(t)}`);
      if (first && t.text !== '.version') this.err(t, `a PTX module must start with .version`);
      first = false;
      switch (t.text) {
        case '.version':
          this.parseVersion();
          break;
        case '.target': {
          this.next();
          const end = this.lineEnd(this.pos - 1);
          const names: string[] = [];
          while (this.pos < end) {
            const w = this.next();
            if (w.kind === TokenKind.Punct && w.text === ',') continue;
            if (w.kind !== TokenKind.Word) this.err(w, `malformed .target`);
            names.push(w.text);
          }
          if (names.length === 0) this.err(t, '.target needs a target name');
          this.target = names;
          break;
        }
        case '.address_size': {
          this.next();
          const n = this.expectInt('address size', 32, 64);
          if (n !== 32 && n !== 64) this.err(this.toks[this.pos - 1]!, '.address_size must be 32 or 64');
          this.addressSize = n;
          break;
        }
        case '.file':
          this.parseFileDirective();
          break;
        case '.section':
          this.skipSection();
          break;
        case '.pragma':
          this.skipPragma();
          break;
        case '.globl': {
          this.next();
          this.expectName('a symbol name');
          if (this.isPunct(';')) this.next();
          break;
        }
        case '.loc':
          this.next();
          this.pos = this.lineEnd(this.pos - 1);
          break;
        default: {
          let linkage: Linkage = Linkage.None;
          if (Object.hasOwn(LINKAGES, t.text)) {
            linkage = LINKAGES[t.text]!;
            this.next();
          }
          const d = this.peek();
          if (d.kind === TokenKind.Word && (d.text === '.entry' || d.text === '.func')) {
            this.parseFunction(linkage);
          } else if (d.kind === TokenKind.Word && (d.text === '.tex' || (d.text === '.global' && OPAQUE_TYPES.has(this.peek(1).text)))) {
            this.parseOpaqueDecl(linkage);
          } else if (d.kind === TokenKind.Word && Object.hasOwn(SPACE_DIRECTIVES, d.text) && d.text !== '.param') {
            if (d.text === '.local') this.err(d, 'not supported: module-scope .local variables');
            if (OPAQUE_TYPES.has(this.peek(1).text)) this.err(this.peek(1), `${this.peek(1).text} variables must be declared in .global`);
            this.parseVarDecl(undefined, linkage);
          } else if (d.kind === TokenKind.Word && OPAQUE_TYPES.has(d.text)) {
            this.err(d, `${d.text} variables must be declared in .global (.global ${d.text} name;)`);
          } else {
            this.err(d, `unknown or misplaced directive ${this.describe(d)}`);
          }
        }
      }
    }
    if (!this.sawVersion) this.err(this.peek(), 'missing .version directive');
    return this.finish();
  }

  private parseVersion(): void {
    const t = this.next();
    if (this.sawVersion) this.err(t, 'duplicate .version');
    const n = this.next();
    const m = n.kind === TokenKind.Number ? /^(\d+)\.(\d+)$/.exec(n.text) : null;
    if (!m) this.err(n, `malformed .version, expected major.minor`);
    const major = Number(m[1]);
    const minor = Number(m[2]);
    if (major < 1 || major > 9) this.err(n, `unsupported PTX version ${n.text} (warpstate reads PTX ISA 1.x-9.x)`);
    this.version = { major, minor };
    this.sawVersion = true;
  }

  private parseFileDirective(): void {
    const t = this.next();
    const end = this.lineEnd(this.pos - 1);
    const idx = this.expectInt('.file index', 0, 1 << 30);
    const name = this.next();
    if (name.kind !== TokenKind.String) this.err(name, '.file needs a quoted file name');
    if (this.pos > end) this.err(t, 'malformed .file');
    this.debugFiles.set(idx, name.text);
    this.pos = Math.max(this.pos, end);
  }

  private skipSection(): void {
    this.next();
    const name = this.next();
    if (name.kind !== TokenKind.Word) this.err(name, '.section needs a section name');
    this.expectPunct('{', 'to open the section');
    let depth = 1;
    while (depth > 0) {
      const t = this.next();
      if (t.kind === TokenKind.Eof) this.err(t, `unterminated .section ${name.text}`);
      if (t.kind === TokenKind.Punct) {
        if (t.text === '{') depth++;
        else if (t.text === '}') depth--;
      }
    }
  }

  private skipPragma(): void {
    this.next();
    for (;;) {
      const s = this.next();
      if (s.kind !== TokenKind.String) this.err(s, '.pragma needs a quoted string');
      if (this.isPunct(',')) {
        this.next();
        continue;
      }
      break;
    }
    this.expectPunct(';', 'after .pragma');
  }

  // ----- declarations -----

  /** Reads `.align N`, `.vN`, the type and `.attribute(...)` of a declaration. */
  private parseDeclAttrs(): { align: number; vec: number; type: ScalarType; typeTok: Token | undefined } {
    let align = 0;
    let vec = 1;
    let type: ScalarType = ScalarType.None;
    let typeTok: Token | undefined;
    for (;;) {
      const t = this.peek();
      if (t.kind !== TokenKind.Word || !t.text.startsWith('.')) break;
      if (t.text === '.align') {
        this.next();
        align = this.expectInt('alignment', 1, 1 << 20);
        if (!isPow2(align)) this.err(this.toks[this.pos - 1]!, 'alignment must be a power of two');
      } else if (t.text === '.v2' || t.text === '.v4') {
        this.next();
        vec = t.text === '.v2' ? 2 : 4;
      } else if (t.text === '.attribute') {
        this.next();
        this.expectPunct('(');
        while (!this.isPunct(')')) {
          const a = this.next();
          if (a.kind === TokenKind.Eof) this.err(a, 'unterminated .attribute');
        }
        this.next();
      } else {
        const ty = TYPE_BY_NAME.get(t.text.slice(1));
        if (ty === undefined) {
          if (HALF_DECL_TYPES.has(t.text)) this.err(t, `not supported: half-precision arithmetic (${t.text} declarations)`);
          break;
        }
        if (type !== ScalarType.None) this.err(t, 'declaration has two types');
        this.next();
        type = ty;
        typeTok = t;
      }
    }
    return { align, vec, type, typeTok };
  }

  /** Reads `[N]`... dimensions; `[]` gives 0. */
  private parseDims(): number[] {
    const dims: number[] = [];
    while (this.isPunct('[')) {
      const open = this.next();
      if (this.isPunct(']')) {
        if (dims.length > 0) this.err(open, 'only the first array dimension may be left empty');
        this.next();
        dims.push(0);
        continue;
      }
      dims.push(this.expectInt('array size', 1, 2 ** 40));
      this.expectPunct(']', 'to close the array size');
    }
    return dims;
  }

  private newVar(fields: Omit<PtxVariable, 'id' | 'offset' | 'relocations' | 'init' | 'opaque' | 'samplerInit'> & Partial<Pick<PtxVariable, 'init' | 'relocations' | 'opaque' | 'samplerInit'>>): MutableVar {
    return {
      id: -1,
      name: fields.name,
      space: fields.space,
      kind: fields.kind,
      linkage: fields.linkage,
      elemType: fields.elemType,
      vec: fields.vec,
      dims: fields.dims,
      align: fields.align,
      sizeBytes: fields.sizeBytes,
      init: fields.init,
      relocations: fields.relocations ?? [],
      isDynamicShared: fields.isDynamicShared,
      offset: -1,
      ptr: fields.ptr,
      functionIndex: fields.functionIndex,
      line: fields.line,
      opaque: fields.opaque ?? OpaqueType.None,
      samplerInit: fields.samplerInit,
    };
  }

  /**
   * `.global .texref|.surfref|.samplerref name [= { field = value, ... }] {, name ...};` or the
   * old `.tex [.type] name;` (a `.texref`), at module scope (PTX ISA §5.3). Initialiser fields:
   * `filter_mode` (`nearest`, `linear`), `addr_mode_0..2` (`wrap`, `mirror`, `clamp_ogl`,
   * `clamp_to_edge`, `clamp_to_border`), `normalized_coords` (0/1, texref),
   * `force_unnormalized_coords` (0/1, samplerref). The variable has no storage.
   */
  private parseOpaqueDecl(linkage: Linkage): void {
    const spaceTok = this.next();
    let opaque: OpaqueType = OpaqueType.Texref;
    const typeTok = this.peek();
    if (spaceTok.text === '.tex') {
      // `.tex .u32 name` (PTX 1.x style) or `.tex .texref name`
      if (typeTok.kind === TokenKind.Word && typeTok.text.startsWith('.')) {
        if (typeTok.text !== '.texref' && TYPE_BY_NAME.get(typeTok.text.slice(1)) === undefined) this.err(typeTok, `unexpected ${this.describe(typeTok)} in a .tex declaration`);
        this.next();
      }
    } else {
      this.next();
      opaque = OPAQUE_TYPES.get(typeTok.text)!;
    }
    const kindName = opaque === OpaqueType.Texref ? '.texref' : opaque === OpaqueType.Surfref ? '.surfref' : '.samplerref';
    for (;;) {
      const nameTok = this.expectName(`a ${kindName} name`);
      if (nameTok.text.startsWith('%')) this.err(nameTok, `variable names cannot start with '%'`);
      if (this.isPunct('[')) this.err(this.peek(), `not supported: arrays of ${kindName}`);
      let samplerInit: SamplerInit | undefined;
      if (this.isPunct('=')) {
        const eq = this.next();
        if (opaque === OpaqueType.Surfref) this.err(eq, `a .surfref cannot be initialised`);
        if (linkage === Linkage.Extern) this.err(eq, `.extern variables cannot be initialised`);
        samplerInit = this.parseSamplerInit(opaque);
      }
      if (this.globalByName.has(nameTok.text)) {
        const prev = this.globalByName.get(nameTok.text)!;
        if (prev.linkage !== Linkage.Extern || prev.opaque !== opaque) this.err(nameTok, `variable '${nameTok.text}' defined twice`);
      }
      if (this.functionByName.has(nameTok.text)) this.err(nameTok, `'${nameTok.text}' is already a function`);
      const v = this.newVar({
        name: nameTok.text,
        space: StateSpace.Global,
        kind: VarKind.Module,
        linkage,
        elemType: ScalarType.U64,
        vec: 1,
        dims: [],
        align: 8,
        sizeBytes: 0,
        isDynamicShared: false,
        ptr: undefined,
        functionIndex: -1,
        line: nameTok.line,
        opaque,
        samplerInit,
      });
      const prev = this.globalByName.get(v.name);
      if (prev) this.globals[this.globals.indexOf(prev)] = v;
      else this.globals.push(v);
      this.globalByName.set(v.name, v);
      if (this.isPunct(',')) {
        this.next();
        continue;
      }
      break;
    }
    this.expectPunct(';', 'after the declaration');
  }

  /** `{ field = value, ... }` of a `.texref`/`.samplerref` (see {@link parseOpaqueDecl}). */
  private parseSamplerInit(opaque: OpaqueType): SamplerInit {
    this.expectPunct('{', 'to open the initialiser');
    let filterMode: SamplerInit['filterMode'];
    const addrMode: ('wrap' | 'mirror' | 'clamp_ogl' | 'clamp_to_edge' | 'clamp_to_border' | undefined)[] = [undefined, undefined, undefined];
    let normalizedCoords: boolean | undefined;
    const seen = new Set<string>();
    if (!this.isPunct('}')) {
      for (;;) {
        const f = this.expectName('an initialiser field (filter_mode, addr_mode_0 ...)');
        if (seen.has(f.text)) this.err(f, `field '${f.text}' given twice`);
        seen.add(f.text);
        this.expectPunct('=', `after '${f.text}'`);
        const v = this.next();
        const word = v.kind === TokenKind.Word ? v.text : '';
        const flag = (): boolean => {
          const lit = v.kind === TokenKind.Number ? parseLiteral(v.text) : undefined;
          if (!lit || lit.kind !== 'int' || (lit.value !== 0n && lit.value !== 1n)) this.err(v, `'${f.text}' must be 0 or 1`);
          return lit.value === 1n;
        };
        const m = /^addr_mode_([012])$/.exec(f.text);
        if (f.text === 'filter_mode') {
          if (word !== 'nearest' && word !== 'linear') this.err(v, `filter_mode must be nearest or linear, found ${this.describe(v)}`);
          filterMode = word;
        } else if (m) {
          if (word !== 'wrap' && word !== 'mirror' && word !== 'clamp_ogl' && word !== 'clamp_to_edge' && word !== 'clamp_to_border') this.err(v, `${f.text} must be wrap, mirror, clamp_ogl, clamp_to_edge or clamp_to_border, found ${this.describe(v)}`);
          addrMode[Number(m[1])] = word;
        } else if (f.text === 'normalized_coords' && opaque === OpaqueType.Texref) {
          normalizedCoords = flag();
        } else if (f.text === 'force_unnormalized_coords' && opaque === OpaqueType.Samplerref) {
          normalizedCoords = flag() ? false : undefined;
        } else {
          this.err(f, `not supported: field '${f.text}' in a ${opaque === OpaqueType.Texref ? '.texref' : '.samplerref'} initialiser`);
        }
        if (this.isPunct(',')) {
          this.next();
          continue;
        }
        break;
      }
    }
    this.expectPunct('}', 'to close the initialiser');
    return { filterMode, addrMode, normalizedCoords };
  }

  /**
   * `.space attrs name[dims] [= init] {, name ...};` at module scope (fn undefined) or in a
   * function body.
   */
  private parseVarDecl(fn: FnBuild | undefined, linkage: Linkage, scope?: Scope): void {
    const spaceTok = this.next();
    const space = SPACE_DIRECTIVES[spaceTok.text]!;
    const attrs = this.parseDeclAttrs();
    if (attrs.type === ScalarType.None) this.err(this.peek(), `expected a type in the ${spaceTok.text} declaration, found ${this.describe(this.peek())}`);
    if (attrs.type === ScalarType.Pred) this.err(attrs.typeTok!, `.pred variables are not allowed in ${spaceTok.text}`);
    for (;;) {
      const nameTok = this.expectName('a variable name');
      if (nameTok.text.startsWith('%')) this.err(nameTok, `variable names cannot start with '%'`);
      const dims = this.parseDims();
      const elemBytes = (SCALAR_TYPE_BITS[attrs.type]! >> 3) * attrs.vec;
      const align = attrs.align || elemBytes;
      const unsized = dims.length > 0 && dims[0] === 0;
      const inner = dims.slice(1).reduce((a, b) => a * b, 1);
      let count = dims.length === 0 ? 1 : unsized ? 0 : dims.reduce((a, b) => a * b, 1);
      let init: Uint8Array | undefined;
      const relocs: VarRelocation[] = [];
      if (this.isPunct('=')) {
        const eq = this.next();
        if (space === StateSpace.Shared || space === StateSpace.Local || space === StateSpace.Param) {
          this.err(eq, `${spaceTok.text} variables cannot be initialised`);
        }
        if (linkage === Linkage.Extern) this.err(eq, `.extern variables cannot be initialised`);
        const elems: InitElem[] = [];
        this.parseInit(elems, 0);
        if (unsized) count = Math.ceil(elems.length / (inner * attrs.vec)) * inner;
        if (elems.length > count * attrs.vec) this.err(eq, `initialiser has ${elems.length} elements, '${nameTok.text}' holds ${count * attrs.vec}`);
        const bytes = count * elemBytes;
        if (bytes > MAX_INITIALISED_BYTES) this.err(eq, `initialised variable '${nameTok.text}' is larger than ${MAX_INITIALISED_BYTES} bytes`);
        const buf = new Uint8Array(bytes);
        const eb = SCALAR_TYPE_BITS[attrs.type]! >> 3;
        elems.forEach((e, k) => this.encodeInit(buf, k * eb, attrs.type, e, relocs));
        init = buf;
      } else if (unsized && linkage !== Linkage.Extern && fn === undefined) {
        this.err(nameTok, `array '${nameTok.text}' needs a size or an initialiser`);
      }
      const sizeBytes = count * elemBytes;
      if (!Number.isSafeInteger(sizeBytes)) this.err(nameTok, `variable '${nameTok.text}' is too large`);
      const limit = space === StateSpace.Local ? MAX_LOCAL_BYTES : space === StateSpace.Shared ? MAX_STATIC_SHARED_BYTES : space === StateSpace.Const ? MAX_CONST_BYTES : MAX_GLOBAL_VARIABLE_BYTES;
      if (sizeBytes > limit) this.err(nameTok, `${spaceTok.text} variable '${nameTok.text}' is ${sizeBytes} bytes, more than the ${limit} bytes a ${spaceTok.text} variable may have`);
      const v = this.newVar({
        name: nameTok.text,
        space,
        kind: fn ? VarKind.Function : VarKind.Module,
        linkage: fn ? Linkage.None : linkage,
        elemType: attrs.type,
        vec: attrs.vec,
        dims,
        align,
        sizeBytes,
        init,
        relocations: relocs,
        isDynamicShared: space === StateSpace.Shared && unsized && !init && linkage === Linkage.Extern,
        ptr: undefined,
        functionIndex: fn ? fn.index : -1,
        line: nameTok.line,
      });
      if (fn) {
        if (sizeBytes === 0 && !v.isDynamicShared) this.err(nameTok, `function-scope array '${nameTok.text}' needs a size`);
        const sc = scope!;
        if (sc.vars.has(v.name)) this.err(nameTok, `'${v.name}' declared twice in this scope`);
        sc.vars.set(v.name, v);
        fn.localVars.push(v);
      } else {
        const prev = this.globalByName.get(v.name);
        if (prev) {
          if (prev.linkage === Linkage.Extern && linkage !== Linkage.Extern) {
            // a definition after an .extern declaration replaces it
            this.globals[this.globals.indexOf(prev)] = v;
          } else if (linkage !== Linkage.Extern) {
            this.err(nameTok, `variable '${v.name}' defined twice`);
          } else {
            if (this.isPunct(',')) {
              this.next();
              continue;
            }
            break;
          }
        } else {
          this.globals.push(v);
        }
        if (this.functionByName.has(v.name)) this.err(nameTok, `'${v.name}' is already a function`);
        this.globalByName.set(v.name, v);
      }
      if (this.isPunct(',')) {
        this.next();
        continue;
      }
      break;
    }
    this.expectPunct(';', 'after the declaration');
  }

  private parseInit(out: InitElem[], depth: number): void {
    if (depth > MAX_INIT_DEPTH) this.err(this.peek(), 'initialiser nested too deeply');
    if (this.isPunct('{')) {
      this.next();
      if (this.isPunct('}')) this.err(this.peek(), 'empty initialiser list');
      for (;;) {
        this.parseInit(out, depth + 1);
        if (this.isPunct(',')) {
          this.next();
          continue;
        }
        break;
      }
      this.expectPunct('}', 'to close the initialiser');
      return;
    }
    if (out.length >= MAX_INITIALISED_BYTES) this.err(this.peek(), 'initialiser too long');
    const t = this.peek();
    let neg = false;
    if (this.isPunct('-')) {
      this.next();
      neg = true;
    }
    const v = this.next();
    if (v.kind === TokenKind.Number) {
      const lit = parseLiteral(v.text);
      if (!lit) this.err(v, `malformed numeric literal '${v.text}'`);
      out.push({ kind: 'lit', lit, neg, tok: v });
      return;
    }
    if (v.kind === TokenKind.Word && !v.text.startsWith('.') && !neg) {
      let generic = false;
      let sym = v;
      if (v.text === 'generic' && this.isPunct('(')) {
        this.next();
        sym = this.expectName('a symbol in generic()');
        this.expectPunct(')', 'to close generic(');
        generic = true;
      }
      let addend = 0;
      if (this.isPunct('+')) {
        this.next();
        addend = this.expectInt('address offset', 0, 2 ** 40);
      }
      out.push({ kind: 'addr', symbol: sym.text, generic, addend, tok: sym });
      return;
    }
    this.err(neg ? t : v, `malformed initialiser element ${this.describe(v)}`);
  }

  private encodeInit(buf: Uint8Array, at: number, type: ScalarType, e: InitElem, relocs: VarRelocation[]): void {
    const bits = SCALAR_TYPE_BITS[type]!;
    const kind = SCALAR_TYPE_KIND[type]!;
    const dv = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    if (e.kind === 'addr') {
      if (kind === TypeKind.Float || (bits !== 32 && bits !== 64)) this.err(e.tok, `an address initialiser needs a 32- or 64-bit integer type, not .${SCALAR_TYPE_NAME[type]}`);
      const r: VarRelocation = { byteOffset: at, size: bits >> 3, symbol: e.symbol, addend: e.addend, generic: e.generic };
      relocs.push(r);
      this.relocChecks.push({ r, line: e.tok.line, column: e.tok.column });
      return;
    }
    const lit: Literal = e.lit;
    if (type === ScalarType.F32 || type === ScalarType.F64) {
      let x: number;
      switch (lit.kind) {
        case 'int': x = Number(lit.value); break;
        case 'float': x = lit.value; break;
        case 'f32bits': x = bitsToF32(lit.bits); break;
        case 'f64bits': x = bitsToF64(lit.bits); break;
      }
      if (e.neg) x = -x;
      if (type === ScalarType.F32) {
        const b = lit.kind === 'f32bits' && !e.neg ? lit.bits : f32ToBits(x);
        dv.setUint32(at, b, true);
      } else {
        const b = lit.kind === 'f64bits' && !e.neg ? lit.bits : f64ToBits(x);
        dv.setBigUint64(at, b, true);
      }
      return;
    }
    if (kind === TypeKind.Float) this.err(e.tok, `not supported: initialisers of type .${SCALAR_TYPE_NAME[type]}`);
    let v: bigint;
    if (lit.kind === 'int') {
      v = e.neg ? -lit.value : lit.value;
      if (v < -(1n << BigInt(bits - 1)) || v > (1n << BigInt(bits)) - 1n) this.err(e.tok, `initialiser ${e.neg ? '-' : ''}${e.tok.text} does not fit in .${SCALAR_TYPE_NAME[type]}`);
    } else if (lit.kind === 'f32bits' && bits === 32 && !e.neg) {
      v = BigInt(lit.bits);
    } else if (lit.kind === 'f64bits' && bits === 64 && !e.neg) {
      v = lit.bits;
    } else {
      this.err(e.tok, `a floating-point initialiser does not fit .${SCALAR_TYPE_NAME[type]}`);
    }
    const u = BigInt.asUintN(bits, v);
    for (let k = 0; k < bits >> 3; k++) buf[at + k] = Number((u >> BigInt(8 * k)) & 0xffn);
  }

  /** `.reg [.vN] .type name[<N>] {, ...};` */
  private parseRegDecl(fn: FnBuild, scope: Scope, depth: number): void {
    const regTok = this.next();
    const attrs = this.parseDeclAttrs();
    if (attrs.type === ScalarType.None) this.err(this.peek(), `expected a type in .reg declaration, found ${this.describe(this.peek())}`);
    if (attrs.align) this.err(regTok, '.reg declarations take no .align');
    if (attrs.vec > 1 && attrs.type === ScalarType.Pred) this.err(regTok, 'vector predicate registers are not allowed');
    for (;;) {
      const nameTok = this.expectName('a register name');
      let names: string[];
      if (this.isPunct('<')) {
        this.next();
        const n = this.expectInt('register count', 0, MAX_REGISTERS_PER_FUNCTION);
        this.expectPunct('>', 'to close the register range');
        if (fn.registers.length + n * attrs.vec > MAX_REGISTERS_PER_FUNCTION) this.err(nameTok, `too many registers in function '${fn.name}'`);
        names = [];
        for (let k = 0; k < n; k++) names.push(nameTok.text + k);
      } else {
        names = [nameTok.text];
      }
      for (const base of names) {
        if (RESERVED_REGISTER_NAMES.has(base) || /^%(tid|ntid|ctaid|nctaid)\./.test(base)) this.err(nameTok, `'${base}' is a reserved register name`);
        const comps = attrs.vec === 1 ? [base] : ['x', 'y', 'z', 'w'].slice(0, attrs.vec).map((c) => `${base}.${c}`);
        for (const name of comps) {
          if (scope.regs.has(name) || scope.vars.has(name)) this.err(nameTok, `register '${name}' declared twice`);
          if (fn.registers.length >= MAX_REGISTERS_PER_FUNCTION) this.err(nameTok, `too many registers in function '${fn.name}'`);
          const isPred = attrs.type === ScalarType.Pred;
          const info: RegisterInfo = {
            index: fn.registers.length,
            name,
            type: attrs.type,
            bits: SCALAR_TYPE_BITS[attrs.type]!,
            isPred,
            classIndex: isPred ? fn.numPred++ : fn.numData++,
            scopeDepth: depth,
          };
          fn.registers.push(info);
          scope.regs.set(name, info.index);
        }
      }
      if (this.isPunct(',')) {
        this.next();
        continue;
      }
      break;
    }
    this.expectPunct(';', 'after the .reg declaration');
  }

  /** `( .param ... , .param ... )` */
  private parseParamList(kind: VarKind, fnIndex: number): MutableVar[] {
    this.expectPunct('(');
    const out: MutableVar[] = [];
    if (this.isPunct(')')) {
      this.next();
      return out;
    }
    for (;;) {
      const t = this.next();
      if (t.kind !== TokenKind.Word || t.text !== '.param') {
        if (t.text === '.reg') this.err(t, 'not supported: register parameters (.reg); use .param');
        this.err(t, `expected .param, found ${this.describe(t)}`);
      }
      let align = 0;
      let vec = 1;
      let type: ScalarType = ScalarType.None;
      let ptr: { space: StateSpace; align: number } | undefined;
      for (;;) {
        const a = this.peek();
        if (a.kind !== TokenKind.Word || !a.text.startsWith('.')) break;
        this.next();
        if (a.text === '.align') {
          const n = this.expectInt('alignment', 1, 1 << 20);
          if (!isPow2(n)) this.err(this.toks[this.pos - 1]!, 'alignment must be a power of two');
          if (ptr) ptr.align = n;
          else align = n;
        } else if (a.text === '.ptr') {
          if (kind !== VarKind.KernelParam) this.err(a, '.ptr is only allowed on kernel parameters');
          ptr = { space: StateSpace.Generic, align: 1 };
        } else if (ptr && Object.hasOwn(SPACE_DIRECTIVES, a.text) && a.text !== '.param' && a.text !== '.local') {
          ptr.space = SPACE_DIRECTIVES[a.text]!;
        } else if (a.text === '.v2' || a.text === '.v4') {
          vec = a.text === '.v2' ? 2 : 4;
        } else if (OPAQUE_TYPES.has(a.text)) {
          this.err(a, `not supported: ${a.text} parameters (pass a texture or surface object as .u64)`);
        } else {
          const ty = TYPE_BY_NAME.get(a.text.slice(1));
          if (ty === undefined || ty === ScalarType.Pred || type !== ScalarType.None) this.err(a, `unexpected ${this.describe(a)} in parameter declaration`);
          type = ty;
        }
      }
      if (type === ScalarType.None) this.err(this.peek(), 'parameter needs a type');
      const nameTok = this.expectName('a parameter name');
      const dims = this.parseDims();
      if (dims.some((d) => d === 0)) this.err(nameTok, 'parameter arrays need a size');
      const elemBytes = (SCALAR_TYPE_BITS[type]! >> 3) * vec;
      const size = dims.reduce((a, b) => a * b, elemBytes);
      if (ptr && (type !== ScalarType.U64 && type !== ScalarType.U32 && type !== ScalarType.B64 && type !== ScalarType.B32 && type !== ScalarType.S64 && type !== ScalarType.S32)) {
        this.err(nameTok, '.ptr needs an integer parameter type');
      }
      const v = this.newVar({
        name: nameTok.text,
        space: StateSpace.Param,
        kind,
        linkage: Linkage.None,
        elemType: type,
        vec,
        dims,
        align: align || elemBytes,
        sizeBytes: size,
        isDynamicShared: false,
        ptr,
        functionIndex: fnIndex,
        line: nameTok.line,
      });
      if (out.some((p) => p.name === v.name)) this.err(nameTok, `parameter '${v.name}' declared twice`);
      out.push(v);
      if (this.isPunct(',')) {
        this.next();
        continue;
      }
      break;
    }
    this.expectPunct(')', 'to close the parameter list');
    return out;
  }

  // ----- functions -----

  private parseFunction(linkage: Linkage): void {
    const kw = this.next();
    const isEntry = kw.text === '.entry';
    const provisionalIndex = this.functions.length;
    let returns: MutableVar[] = [];
    if (!isEntry && this.isPunct('(')) returns = this.parseParamList(VarKind.FuncReturn, provisionalIndex);
    const nameTok = this.expectName('a function name');
    let params: MutableVar[] = [];
    if (this.isPunct('(')) params = this.parseParamList(isEntry ? VarKind.KernelParam : VarKind.FuncParam, provisionalIndex);
    const perf: Mutable<PerfDirectives> = { maxntid: undefined, reqntid: undefined, minnctapersm: undefined, maxnreg: undefined, maxnctapersm: undefined };
    for (;;) {
      const d = this.peek();
      if (d.kind !== TokenKind.Word || !d.text.startsWith('.')) break;
      switch (d.text) {
        case '.maxntid':
        case '.reqntid':
        case '.reqnctapercluster': {
          this.next();
          const dims = [this.expectInt(`${d.text} x`, 1, 1 << 30), 1, 1] as [number, number, number];
          for (let k = 1; k < 3 && this.isPunct(','); k++) {
            this.next();
            dims[k] = this.expectInt(`${d.text} dimension`, 1, 1 << 30);
          }
          if (d.text === '.maxntid') perf.maxntid = dims;
          else if (d.text === '.reqntid') perf.reqntid = dims;
          break;
        }
        case '.minnctapersm':
          this.next();
          perf.minnctapersm = this.expectInt('.minnctapersm', 0, 1 << 20);
          break;
        case '.maxnctapersm':
          this.next();
          perf.maxnctapersm = this.expectInt('.maxnctapersm', 0, 1 << 20);
          break;
        case '.maxnreg':
          this.next();
          perf.maxnreg = this.expectInt('.maxnreg', 1, 1 << 16);
          break;
        case '.maxclusterrank':
          this.next();
          this.expectInt('.maxclusterrank', 0, 1 << 20);
          break;
        case '.noreturn':
        case '.explicitcluster':
          this.next();
          break;
        case '.pragma':
          this.skipPragma();
          break;
        default:
          this.err(d, `unexpected directive ${this.describe(d)} before the function body`);
      }
    }
    const fb: FnBuild = {
      index: provisionalIndex,
      name: nameTok.text,
      isEntry,
      linkage,
      params,
      returns,
      perf,
      registers: [],
      numPred: 0,
      numData: 0,
      ccReg: -1,
      localVars: [],
      instructions: [],
      labels: new Map(),
      hasBody: false,
      line: kw.line,
      calls: [],
      indirectCalls: [],
      frameBytes: 0,
      paramBytes: 0,
      sharedLayout: undefined,
    };
    if (this.globalByName.has(fb.name)) this.err(nameTok, `'${fb.name}' is already a variable`);
    const prevIndex = this.functionByName.get(fb.name);
    const prev = prevIndex === undefined ? undefined : this.functions[prevIndex]!;
    if (prev) {
      if (prev.isEntry !== isEntry) this.err(nameTok, `'${fb.name}' declared both as .entry and .func`);
      if (prev.params.length !== params.length || prev.returns.length !== returns.length) {
        this.err(nameTok, `'${fb.name}' does not match its earlier declaration (parameter count)`);
      }
      for (let k = 0; k < params.length; k++) {
        if (prev.params[k]!.sizeBytes !== params[k]!.sizeBytes) this.err(nameTok, `'${fb.name}' parameter ${k} does not match its earlier declaration`);
      }
    }
    if (this.isPunct(';')) {
      this.next();
      if (!prev) this.register(fb);
      return;
    }
    if (prev) {
      if (prev.hasBody) this.err(nameTok, `function '${fb.name}' defined twice`);
      fb.index = prev.index;
      for (const v of [...params, ...returns]) v.functionIndex = fb.index;
      this.functions[prev.index] = fb;
    } else {
      this.register(fb);
    }
    fb.hasBody = true;
    this.parseBody(fb);
  }

  private register(fb: FnBuild): void {
    fb.index = this.functions.length;
    for (const v of [...fb.params, ...fb.returns]) v.functionIndex = fb.index;
    this.functions.push(fb);
    this.functionByName.set(fb.name, fb.index);
  }

  private parseBody(fn: FnBuild): void {
    const open = this.expectPunct('{', `to open the body of '${fn.name}'`);
    const scopes: Scope[] = [{ regs: new Map(), vars: new Map(), lists: new Map() }];
    const paramScope = new Map<string, MutableVar>();
    for (const v of [...fn.params, ...fn.returns]) paramScope.set(v.name, v);
    let debugLoc: DebugLoc | undefined;
    const labelUses: { op: Mutable<Operand>; tok: { line: number; column: number } }[] = [];
    const labelTokens = new Map<string, Token>();

    const ctx: DecodeContext = {
      file: this.file,
      addressSize: this.addressSize,
      findRegister: (name) => {
        for (let s = scopes.length - 1; s >= 0; s--) {
          const idx = scopes[s]!.regs.get(name);
          if (idx !== undefined) return fn.registers[idx];
          if (scopes[s]!.vars.has(name)) return undefined;
        }
        return undefined;
      },
      findVariable: (name) => {
        for (let s = scopes.length - 1; s >= 0; s--) {
          const v = scopes[s]!.vars.get(name);
          if (v) return v;
          if (scopes[s]!.regs.has(name)) return undefined;
        }
        return paramScope.get(name) ?? this.globalByName.get(name);
      },
      functionKind: (name) => {
        const i = this.functionByName.get(name);
        return i === undefined ? undefined : this.functions[i]!.isEntry ? 'entry' : 'func';
      },
      takeFunctionAddress: (name) => {
        const i = this.functionByName.get(name);
        if (i === undefined || this.functions[i]!.isEntry) return undefined;
        this.addressTaken.add(i);
        return i;
      },
      callList: (name) => {
        for (let s = scopes.length - 1; s >= 0; s--) {
          const l = scopes[s]!.lists.get(name);
          if (l !== undefined) return l;
        }
        return undefined;
      },
      carryRegister: () => {
        if (fn.ccReg < 0) {
          if (fn.registers.length >= MAX_REGISTERS_PER_FUNCTION) throw new InputError({ file: this.file, line: open.line }, `too many registers in function '${fn.name}'`);
          const info: RegisterInfo = {
            index: fn.registers.length,
            name: '%cc',
            type: ScalarType.Pred,
            bits: 1,
            isPred: true,
            classIndex: fn.numPred++,
            scopeDepth: 0,
          };
          fn.registers.push(info);
          fn.ccReg = info.index;
        }
        return fn.ccReg;
      },
    };

    for (;;) {
      const t = this.peek();
      if (t.kind === TokenKind.Eof) this.err(open, `unterminated body of '${fn.name}' (missing '}')`);
      if (t.kind === TokenKind.Punct) {
        if (t.text === '}') {
          this.next();
          scopes.pop();
          if (scopes.length === 0) break;
          continue;
        }
        if (t.text === '{') {
          this.next();
          if (scopes.length >= MAX_SCOPE_DEPTH) this.err(t, 'blocks nested too deeply');
          scopes.push({ regs: new Map(), vars: new Map(), lists: new Map() });
          continue;
        }
        if (t.text === ';') {
          this.next();
          continue;
        }
        if (t.text !== '@') this.err(t, `unexpected ${this.describe(t)} in function body`);
      }
      if (t.kind === TokenKind.Word && t.text.startsWith('.')) {
        const scope = scopes[scopes.length - 1]!;
        switch (t.text) {
          case '.reg':
            this.parseRegDecl(fn, scope, scopes.length - 1);
            break;
          case '.local':
          case '.shared':
          case '.param':
            this.parseVarDecl(fn, Linkage.None, scope);
            break;
          case '.loc':
            debugLoc = this.parseLoc();
            break;
          case '.pragma':
            this.skipPragma();
            break;
          case '.callprototype':
          case '.calltargets':
            this.err(t, `${t.text} needs a label (name: ${t.text} ...;)`);
            break;
          case '.branchtargets':
            this.err(t, 'not supported: indirect branch (brx.idx, .branchtargets)');
            break;
          case '.global':
          case '.const':
            this.err(t, `not supported: function-scope ${t.text} variables`);
            break;
          default:
            this.err(t, `unknown or misplaced directive ${this.describe(t)} in function body`);
        }
        continue;
      }
      if (t.kind === TokenKind.Word && this.isPunct(':', 1) && (this.peek(2).text === '.callprototype' || this.peek(2).text === '.calltargets' || this.peek(2).text === '.branchtargets')) {
        this.next();
        this.next();
        const d = this.next();
        if (d.text === '.branchtargets') this.err(d, 'not supported: indirect branch (brx.idx, .branchtargets)');
        const scope = scopes[scopes.length - 1]!;
        if (scope.lists.has(t.text)) this.err(t, `'${t.text}' declared twice in this scope`);
        scope.lists.set(t.text, d.text === '.callprototype' ? { kind: 'prototype', signature: this.parseCallPrototype() } : { kind: 'targets', names: this.parseCallTargets() });
        continue;
      }
      if (t.kind === TokenKind.Word && this.isPunct(':', 1)) {
        this.next();
        this.next();
        if (fn.labels.has(t.text)) this.err(t, `label '${t.text}' defined twice`);
        if (t.text.startsWith('%')) this.err(t, `label names cannot start with '%'`);
        fn.labels.set(t.text, fn.instructions.length);
        labelTokens.set(t.text, t);
        continue;
      }
      if (t.kind !== TokenKind.Word && !(t.kind === TokenKind.Punct && t.text === '@')) {
        this.err(t, `expected an instruction, found ${this.describe(t)}`);
      }
      const raw = this.parseStatement();
      const dec = decodeInstruction(raw, ctx, fn.instructions.length, debugLoc);
      fn.instructions.push(dec.ins);
      for (const o of dec.ins.src) {
        if (o.kind === OperandKind.Label) labelUses.push({ op: o as Mutable<Operand>, tok: raw.operands[0]! });
      }
      if (dec.calleeName !== '') fn.calls.push({ ins: dec.ins, name: dec.calleeName, line: raw.opLine, column: raw.opColumn });
      if (dec.indirect !== undefined) fn.indirectCalls.push({ ins: dec.ins, site: dec.indirect, line: raw.opLine, column: raw.opColumn });
    }
    for (const u of labelUses) {
      const target = fn.labels.get(u.op.label);
      if (target === undefined) {
        throw new InputError({ file: this.file, line: u.tok.line, column: u.tok.column }, `branch to undefined label '${u.op.label}' in '${fn.name}'`, u.op.label);
      }
      u.op.target = target;
    }
  }

  /**
   * The rest of `label: .callprototype {(ret-param)} _ {(param-list)} {.noreturn};` (PTX ISA
   * §11.3.2): the byte size of each parameter (`.param .b32 _`, `.param .align 8 .b8 _[16]`,
   * `.reg .b32 _`).
   */
  private parseCallPrototype(): CallSignature {
    const list = (): number[] => {
      this.expectPunct('(');
      const sizes: number[] = [];
      if (this.isPunct(')')) {
        this.next();
        return sizes;
      }
      for (;;) {
        const sp = this.next();
        if (sp.text !== '.param' && sp.text !== '.reg') this.err(sp, `expected .param in a .callprototype, found ${this.describe(sp)}`);
        const a = this.parseDeclAttrs();
        if (a.type === ScalarType.None) this.err(this.peek(), `parameter needs a type`);
        if (a.type === ScalarType.Pred) this.err(a.typeTok!, `a .callprototype parameter cannot be .pred`);
        this.expectName(`a parameter name (_)`);
        const dims = this.parseDims();
        if (dims.some((x) => x === 0)) this.err(this.peek(), 'parameter arrays need a size');
        sizes.push(dims.reduce((x, y) => x * y, (SCALAR_TYPE_BITS[a.type]! >> 3) * a.vec));
        if (this.isPunct(',')) {
          this.next();
          continue;
        }
        break;
      }
      this.expectPunct(')', 'to close the parameter list');
      return sizes;
    };
    const rets = this.isPunct('(') ? list() : [];
    const us = this.next();
    if (us.text !== '_') this.err(us, `expected '_' (the function name) in a .callprototype, found ${this.describe(us)}`);
    const params = this.isPunct('(') ? list() : [];
    if (this.peek().text === '.noreturn') this.next();
    this.expectPunct(';', 'after the .callprototype');
    return { params, rets };
  }

  /** The rest of `label: .calltargets f1, f2, ...;` (PTX ISA §11.3.3): the function names, resolved when the module is complete. */
  private parseCallTargets(): { name: string; line: number; column: number }[] {
    const names: { name: string; line: number; column: number }[] = [];
    for (;;) {
      const n = this.expectName('a function name in .calltargets');
      names.push({ name: n.text, line: n.line, column: n.column });
      if (this.isPunct(',')) {
        this.next();
        continue;
      }
      break;
    }
    this.expectPunct(';', 'after the .calltargets list');
    return names;
  }

  private parseLoc(): DebugLoc {
    const t = this.next();
    const end = this.lineEnd(this.pos - 1);
    const f = this.expectInt('.loc file index', 0, 1 << 30);
    const line = this.expectInt('.loc line', 0, 1 << 30);
    let column = 0;
    if (this.pos < end && this.peek().kind === TokenKind.Number) column = this.expectInt('.loc column', 0, 1 << 30);
    if (this.pos > end) this.err(t, 'malformed .loc');
    this.pos = end;
    return { file: f, line, column };
  }

  // ----- statements -----

  private parseStatement(): RawInstruction {
    const start = this.peek();
    let guard = '';
    let guardNegate = false;
    if (this.isPunct('@')) {
      this.next();
      if (this.isPunct('!')) {
        this.next();
        guardNegate = true;
      }
      guard = this.expectName('a guard predicate').text;
    }
    const opTok = this.next();
    if (opTok.kind !== TokenKind.Word || opTok.text.startsWith('.') || opTok.text.startsWith('%')) {
      this.err(opTok, `expected an opcode, found ${this.describe(opTok)}`);
    }
    const problem = opcodeProblem(opTok.text);
    if (problem) this.err(opTok, problem);
    const operands: RawOperand[] = [];
    if (!this.isPunct(';')) {
      for (;;) {
        operands.push(this.parseOperand(true));
        if (this.isPunct(',')) {
          this.next();
          continue;
        }
        break;
      }
    }
    const end = this.peek();
    if (!this.isPunct(';')) this.err(end, `expected ',' or ';' after operand, found ${this.describe(end)}`);
    this.next();
    return {
      guard,
      guardNegate,
      opcode: opTok.text,
      operands,
      line: start.line,
      column: start.column,
      opLine: opTok.line,
      opColumn: opTok.column,
    };
  }

  private rawOperand(kind: RawKind, t: Token, fields: Partial<RawOperand>): RawOperand {
    return {
      kind,
      name: fields.name ?? '',
      negate: fields.negate ?? false,
      num: fields.num ?? '',
      numNeg: fields.numNeg ?? false,
      offset: fields.offset ?? 0n,
      elems: fields.elems ?? [],
      text: fields.text ?? t.text,
      line: t.line,
      column: t.column,
    };
  }

  /** Parses a signed integer offset after '+' or '-' (the sign token already seen). */
  private parseOffset(negative: boolean): bigint {
    let neg = negative;
    if (this.isPunct('-')) {
      this.next();
      neg = !neg;
    }
    const n = this.next();
    if (n.kind !== TokenKind.Number) this.err(n, `expected an offset, found ${this.describe(n)}`);
    const lit = parseLiteral(n.text);
    if (!lit || lit.kind !== 'int') this.err(n, `malformed offset '${n.text}'`);
    return neg ? -lit.value : lit.value;
  }

  private parseOperand(topLevel: boolean): RawOperand {
    const t = this.peek();
    if (t.kind === TokenKind.Punct) {
      switch (t.text) {
        case '(': {
          if (!topLevel) this.err(t, 'unexpected (');
          this.next();
          const elems: RawOperand[] = [];
          if (!this.isPunct(')')) {
            for (;;) {
              elems.push(this.parseOperand(false));
              if (this.isPunct(',')) {
                this.next();
                continue;
              }
              break;
            }
          }
          this.expectPunct(')', 'to close the list');
          return this.rawOperand(RawKind.List, t, { elems, text: '(...)' });
        }
        case '{': {
          if (!topLevel) this.err(t, 'nested vector operand');
          this.next();
          const elems: RawOperand[] = [];
          for (;;) {
            elems.push(this.parseOperand(false));
            if (this.isPunct(',')) {
              this.next();
              continue;
            }
            break;
          }
          this.expectPunct('}', 'to close the vector operand');
          const vec = this.rawOperand(RawKind.Vec, t, { elems, text: `{${elems.map((e) => e.text).join(', ')}}` });
          if (this.isPunct('|')) {
            // `{d0, d1, d2, d3}|p` (tex residency predicate): the decoder refuses it by name
            this.next();
            const s = this.expectName('a predicate after |');
            return this.rawOperand(RawKind.Pair, t, { elems: [vec, this.rawOperand(RawKind.Name, s, { name: s.text })], text: `${vec.text}|${s.text}` });
          }
          return vec;
        }
        case '[': {
          this.next();
          const b = this.next();
          let name = '';
          let num = '';
          if (b.kind === TokenKind.Word && !b.text.startsWith('.')) name = b.text;
          else if (b.kind === TokenKind.Number) num = b.text;
          else this.err(b, `expected a register, variable or address in [..], found ${this.describe(b)}`);
          if (name !== '' && this.isPunct(',')) {
            // texture / surface operand: [a, c] or [a, b, c]
            const elems: RawOperand[] = [];
            while (this.isPunct(',')) {
              this.next();
              elems.push(this.parseOperand(true));
            }
            this.expectPunct(']', 'to close the texture or surface operand');
            return this.rawOperand(RawKind.TexAddr, t, { name, elems, text: `[${name}, ${elems.map((e) => e.text).join(', ')}]` });
          }
          let offset = 0n;
          if (this.isPunct('+')) {
            this.next();
            offset = this.parseOffset(false);
          } else if (this.isPunct('-')) {
            this.next();
            offset = this.parseOffset(true);
          }
          this.expectPunct(']', 'to close the address');
          const text = `[${name || num}${offset === 0n ? '' : offset > 0n ? '+' + offset : String(offset)}]`;
          return this.rawOperand(RawKind.Addr, t, { name, num, offset, text });
        }
        case '!': {
          this.next();
          const n = this.expectName('a predicate after !');
          return this.rawOperand(RawKind.Name, t, { name: n.text, negate: true, text: '!' + n.text });
        }
        case '-': {
          this.next();
          const n = this.next();
          if (n.kind !== TokenKind.Number) this.err(n, `expected a number after '-', found ${this.describe(n)}`);
          return this.rawOperand(RawKind.Number, t, { num: n.text, numNeg: true, text: '-' + n.text });
        }
        default:
          this.err(t, `expected an operand, found ${this.describe(t)}`);
      }
    }
    if (t.kind === TokenKind.Number) {
      this.next();
      return this.rawOperand(RawKind.Number, t, { num: t.text });
    }
    if (t.kind === TokenKind.Word && !t.text.startsWith('.')) {
      this.next();
      if (t.text === '_') return this.rawOperand(RawKind.Sink, t, {});
      const first = this.rawOperand(RawKind.Name, t, { name: t.text });
      if (this.isPunct('|')) {
        this.next();
        const s = this.expectName('a second destination after |');
        const second = this.rawOperand(RawKind.Name, s, { name: s.text });
        return this.rawOperand(RawKind.Pair, t, { elems: [first, second], text: `${t.text}|${s.text}` });
      }
      if (this.isPunct('+') && topLevel) {
        this.next();
        const offset = this.parseOffset(false);
        return this.rawOperand(RawKind.Name, t, { name: t.text, offset, text: `${t.text}+${offset}` });
      }
      return first;
    }
    this.err(t, `expected an operand, found ${this.describe(t)}`);
  }

  // ----- finishing: calls, layouts, properties -----

  private finish(): PtxModule {
    const fns = this.functions;
    // calls
    for (const fn of fns) {
      for (const c of fn.calls) {
        const at = { file: this.file, line: c.line, column: c.column };
        const idx = this.functionByName.get(c.name);
        if (idx === undefined) {
          if (this.globalByName.has(c.name)) throw new InputError(at, `'${c.name}' is a variable, not a function`, c.name);
          throw new InputError(at, `call to undefined function '${c.name}'`, c.name);
        }
        const g = fns[idx]!;
        if (g.isEntry) throw new InputError(at, `not supported: dynamic parallelism (a kernel calling kernel '${c.name}')`, c.name);
        const syscall = g.hasBody ? Syscall.None : (SYSCALL_BY_NAME.get(c.name) ?? Syscall.None);
        if (!g.hasBody && syscall === Syscall.None) {
          const feature = UNSUPPORTED_EXTERNS.get(c.name);
          if (feature !== undefined) throw new InputError(at, `not supported: ${feature} (call to '${c.name}')`, c.name);
          throw new InputError(at, `call to .func '${c.name}' which is declared but never defined`, c.name);
        }
        c.ins.syscall = syscall;
        if (c.ins.callArgs.length !== g.params.length) throw new InputError(at, `'${c.name}' takes ${g.params.length} argument(s), got ${c.ins.callArgs.length}`, c.name);
        if (c.ins.callRets.length !== g.returns.length) throw new InputError(at, `'${c.name}' returns ${g.returns.length} value(s), call receives ${c.ins.callRets.length}`, c.name);
        const check = (ops: readonly Operand[], formals: MutableVar[], what: string): void => {
          ops.forEach((o, k) => {
            const f = formals[k]!;
            const size = o.kind === OperandKind.Symbol ? o.symbol!.sizeBytes : o.kind === OperandKind.Reg ? fn.registers[o.reg]!.bits / 8 : f.sizeBytes;
            if (o.kind === OperandKind.Reg && fn.registers[o.reg]!.isPred) throw new InputError(at, `${what} ${k} of '${c.name}' cannot be a predicate`, o.text);
            if (size !== f.sizeBytes) throw new InputError(at, `${what} ${k} of '${c.name}' is ${size} bytes, the parameter '${f.name}' is ${f.sizeBytes}`, o.text);
          });
        };
        check(c.ins.callArgs, g.params, 'argument');
        check(c.ins.callRets, g.returns, 'return value');
        c.ins.callee = idx;
      }
    }
    this.checkRecursion();
    // relocations: variables, or functions (function pointers in a table)
    for (const rc of this.relocChecks) {
      const target = this.globalByName.get(rc.r.symbol);
      if (!target) {
        const at = { file: this.file, line: rc.line, column: rc.column };
        const fi = this.functionByName.get(rc.r.symbol);
        if (fi !== undefined) {
          if (fns[fi]!.isEntry) throw new InputError(at, `not supported: dynamic parallelism (address of kernel '${rc.r.symbol}' in an initialiser)`, rc.r.symbol);
          if (rc.r.addend !== 0) throw new InputError(at, `a function address takes no offset`, rc.r.symbol);
          this.addressTaken.add(fi);
          continue;
        }
        throw new InputError(at, `initialiser refers to undeclared symbol '${rc.r.symbol}'`, rc.r.symbol);
      }
    }
    // indirect calls: the functions each may reach
    for (const fn of fns) for (const c of fn.indirectCalls) c.ins.callTargets = this.indirectTargets(fn, c);
    // variable ids
    const variables: MutableVar[] = [];
    const addVar = (v: MutableVar): void => {
      v.id = variables.length;
      variables.push(v);
    };
    for (const v of this.globals) addVar(v);
    for (const fn of fns) {
      for (const v of fn.params) addVar(v);
      for (const v of fn.returns) addVar(v);
      for (const v of fn.localVars) addVar(v);
    }
    // per-function layouts and instruction properties
    for (const fn of fns) {
      let p = 0;
      for (const v of fn.params) {
        if (fn.isEntry) {
          p = alignUp(p, v.align);
          v.offset = p;
          p += v.sizeBytes;
        }
      }
      fn.paramBytes = fn.isEntry ? p : 0;
      let f = 0;
      const framed = [...(fn.isEntry ? [] : fn.params), ...fn.returns, ...fn.localVars.filter((v) => v.space === StateSpace.Local || v.space === StateSpace.Param)];
      for (const v of framed) {
        f = alignUp(f, v.align);
        v.offset = f;
        f += v.sizeBytes;
      }
      fn.frameBytes = f;
      if (f > MAX_LOCAL_BYTES) throw new InputError({ file: this.file, line: fn.line }, `function '${fn.name}' needs ${f} bytes of local memory per thread, more than ${MAX_LOCAL_BYTES}`, fn.name);
      for (const ins of fn.instructions) {
        ins.opClass = classifyInstruction(ins);
        const [s, d] = instructionRegisters(ins, fn.ccReg);
        ins.srcRegs = s;
        ins.dstRegs = d;
        ins.accessBytes = accessBytes(ins);
        ins.longLatency = isLongLatency(ins);
      }
    }
    for (const fn of fns) if (fn.isEntry) fn.sharedLayout = this.sharedLayout(fn, variables.length);

    const functions: PtxFunction[] = fns.map((fn) => ({
      index: fn.index,
      name: fn.name,
      isEntry: fn.isEntry,
      linkage: fn.linkage,
      params: fn.params,
      returns: fn.returns,
      perf: fn.perf,
      registers: fn.registers,
      numPredRegs: fn.numPred,
      numDataRegs: fn.numData,
      ccReg: fn.ccReg,
      localVars: fn.localVars,
      instructions: fn.instructions as Instruction[],
      labels: fn.labels,
      paramBytes: fn.paramBytes,
      frameBytes: fn.frameBytes,
      sharedLayout: fn.sharedLayout,
      hasBody: fn.hasBody,
      line: fn.line,
    }));
    return {
      file: this.file,
      version: this.version,
      target: this.target,
      addressSize: this.addressSize,
      variables,
      globals: this.globals,
      functions,
      functionByName: this.functionByName,
      addressTaken: [...this.addressTaken].sort((a, b) => a - b),
      debugFiles: this.debugFiles,
    };
  }

  /**
   * The functions an indirect call may reach (PTX ISA §9.7.12.2): with a `.calltargets` list or a
   * call table, the functions listed, each of which must take the call's arguments and return
   * values; with a `.callprototype`, every address-taken function of that signature. The call's
   * own arguments must match the prototype.
   * @throws InputError for a listed name that is no `.func`, a kernel, a signature mismatch
   */
  private indirectTargets(fn: FnBuild, c: PendingIndirect): number[] {
    const at = { file: this.file, line: c.line, column: c.column };
    const size = (o: Operand, formal: number): number => (o.kind === OperandKind.Symbol ? o.symbol!.sizeBytes : o.kind === OperandKind.Reg ? fn.registers[o.reg]!.bits / 8 : formal);
    const fits = (ops: readonly Operand[], formals: readonly number[]): boolean => ops.length === formals.length && ops.every((o, k) => size(o, formals[k]!) === formals[k]);
    const sig = (g: FnBuild): CallSignature => ({ params: g.params.map((p) => p.sizeBytes), rets: g.returns.map((p) => p.sizeBytes) });
    const same = (a: CallSignature, b: CallSignature): boolean => a.params.length === b.params.length && a.rets.length === b.rets.length && a.params.every((x, k) => x === b.params[k]) && a.rets.every((x, k) => x === b.rets[k]);
    const show = (g: CallSignature): string => `(${g.rets.join(', ')}) _ (${g.params.join(', ')}) bytes`;
    for (const o of [...c.ins.callArgs, ...c.ins.callRets]) {
      if (o.kind === OperandKind.Reg && fn.registers[o.reg]!.isPred) throw new InputError(at, `an argument or return value of an indirect call cannot be a predicate`, o.text);
    }
    const list = c.site.list;
    if (list.kind === 'prototype') {
      const p = list.signature;
      if (!fits(c.ins.callArgs, p.params) || !fits(c.ins.callRets, p.rets)) {
        throw new InputError(at, `the call's arguments and return values do not match prototype '${c.site.listName}' ${show(p)}`, c.site.listName);
      }
      return [...this.addressTaken].filter((i) => same(sig(this.functions[i]!), p)).sort((a, b) => a - b);
    }
    const out = new Set<number>();
    for (const t of list.names) {
      const i = this.functionByName.get(t.name);
      const where = { file: this.file, line: t.line, column: t.column };
      if (i === undefined) throw new InputError(where, `call target '${t.name}' of '${c.site.listName}' is not a function`, t.name);
      const g = this.functions[i]!;
      if (g.isEntry) throw new InputError(where, `not supported: dynamic parallelism (kernel '${t.name}' as a call target)`, t.name);
      if (!fits(c.ins.callArgs, sig(g).params) || !fits(c.ins.callRets, sig(g).rets)) {
        throw new InputError(at, `call target '${t.name}' of '${c.site.listName}' takes ${show(sig(g))}, which the call's arguments and return values do not match`, t.name);
      }
      out.add(i);
    }
    return [...out].sort((a, b) => a - b);
  }

  private checkRecursion(): void {
    const fns = this.functions;
    const state = new Uint8Array(fns.length); // 0 new, 1 on stack, 2 done
    const stack: string[] = [];
    const visit = (i: number): void => {
      state[i] = 1;
      stack.push(fns[i]!.name);
      for (const c of fns[i]!.calls) {
        const j = c.ins.callee;
        if (state[j] === 1) {
          const cycle = [...stack.slice(stack.indexOf(fns[j]!.name)), fns[j]!.name].join(' -> ');
          throw new InputError({ file: this.file, line: c.line, column: c.column }, `not supported: recursion (${cycle})`, c.name);
        }
        if (state[j] === 0) visit(j);
      }
      stack.pop();
      state[i] = 2;
    };
    for (let i = 0; i < fns.length; i++) if (state[i] === 0) visit(i);
  }

  private sharedLayout(entry: FnBuild, nVars: number): SharedLayout {
    const reach = new Set<number>([entry.index]);
    const work = [entry.index];
    while (work.length > 0) {
      const f = this.functions[work.pop()!]!;
      for (const c of [...f.calls.map((d) => d.ins.callee), ...f.indirectCalls.flatMap((d) => d.ins.callTargets)]) {
        if (!reach.has(c)) {
          reach.add(c);
          work.push(c);
        }
      }
    }
    const used = new Set<MutableVar>();
    const note = (o: Operand): void => {
      if ((o.kind === OperandKind.Addr || o.kind === OperandKind.Symbol) && o.symbol && o.symbol.space === StateSpace.Shared) used.add(o.symbol as MutableVar);
    };
    for (const i of [...reach].sort((a, b) => a - b)) {
      const f = this.functions[i]!;
      for (const v of f.localVars) if (v.space === StateSpace.Shared) used.add(v);
      for (const ins of f.instructions) {
        for (const o of ins.src) note(o);
        for (const o of ins.dst) note(o);
      }
    }
    const offsets = new Int32Array(nVars).fill(-1);
    let off = 0;
    let dynAlign = 16;
    const ordered = [...used].sort((a, b) => a.id - b.id);
    for (const v of ordered) {
      if (v.isDynamicShared) {
        dynAlign = Math.max(dynAlign, v.align);
        continue;
      }
      off = alignUp(off, v.align);
      offsets[v.id] = off;
      off += v.sizeBytes;
    }
    if (off > MAX_STATIC_SHARED_BYTES) throw new InputError({ file: this.file, line: entry.line }, `kernel '${entry.name}' uses ${off} bytes of static shared memory, more than ${MAX_STATIC_SHARED_BYTES}`, entry.name);
    const dynamicOffset = alignUp(off, dynAlign);
    for (const v of this.globals) if (v.isDynamicShared) offsets[v.id] = dynamicOffset;
    return { offsets, staticBytes: off, dynamicOffset };
  }
}

type InitElem =
  | { readonly kind: 'lit'; readonly lit: Literal; readonly neg: boolean; readonly tok: Token }
  | { readonly kind: 'addr'; readonly symbol: string; readonly generic: boolean; readonly addend: number; readonly tok: Token };
