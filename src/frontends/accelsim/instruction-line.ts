/**
 * Decoding of one instruction line of a `kernel-N.traceg` file (tracer versions 3 and 4; format
 * in `types.ts`). Every malformed field is refused with an {@link InputError} naming the file,
 * line, column and field.
 */
import { InputError } from '../../errors.ts';
import type { OpClass } from '../../isa/ir.ts';
import type { OpcodeInfo, SassArch, SassOpcodeMapper } from './opcodes.ts';
import { AddressMode, type TraceInstruction } from './types.ts';

/** Lanes per warp. */
export const WARP_SIZE = 32;

const EMPTY_I32 = new Int32Array(0);
const EMPTY_F64 = new Float64Array(0);

/** Where and how to decode a line. */
export interface LineContext {
  /** Trace file (for errors). */
  readonly file: string;
  /** Lines start with a decimal source line number (`-enable lineinfo = 1`). */
  readonly lineinfo: boolean;
  /** Opcode table to use. */
  readonly arch: SassArch;
  /** Opcode lookup (shared by the trace's kernels). */
  readonly mapper: SassOpcodeMapper;
}

class Instruction implements TraceInstruction {
  constructor(
    readonly pc: number,
    readonly activeMask: number,
    readonly opcode: string,
    readonly opcodeId: number,
    readonly opClass: OpClass,
    readonly info: OpcodeInfo,
    readonly dstRegs: Int32Array,
    readonly dstPreds: Int32Array,
    readonly srcRegs: Int32Array,
    readonly srcPreds: Int32Array,
    readonly memWidth: number,
    readonly addressMode: AddressMode,
    readonly addresses: Float64Array,
    readonly sourceLine: number,
    readonly traceLine: number,
  ) {}
}

/** Number of set bits of a 32-bit mask. */
export function popcount32(mask: number): number {
  let v = mask >>> 0;
  v = v - ((v >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

// ---------------------------------------------------------------------------------------------
// A hand-written scanner: no regular expressions, closures or token arrays per line (decoding
// runs once per dynamic instruction when a CTA is read).
// ---------------------------------------------------------------------------------------------

let txt = '';
/** End (exclusive) of the line being decoded within {@link txt}. */
let lineEnd = 0;
/** Start of that line within {@link txt} (columns in errors count from it). */
let lineStartPos = 0;
let pos = 0;
let tokStart = 0;
let curFile = '';
let curLine = 0;

const isSpace = (c: number): boolean => c === 32 || c === 9 || c === 13;

/** @param column 1-based position in {@link txt} (made relative to the line here). */
function failAt(column: number, reason: string, field: string): never {
  throw new InputError({ file: curFile, line: curLine, column: column - lineStartPos }, reason, field);
}

/** Skips spaces and marks the start of the next token; returns false at the end of the line. */
function nextToken(field: string, required: boolean): boolean {
  const n = lineEnd;
  while (pos < n && isSpace(txt.charCodeAt(pos))) pos++;
  tokStart = pos;
  if (pos >= n) {
    if (required) failAt(pos + 1, `line ends before ${field}`, field);
    return false;
  }
  return true;
}

function tokenText(): string {
  let e = tokStart;
  while (e < lineEnd && !isSpace(txt.charCodeAt(e))) e++;
  return txt.slice(tokStart, e);
}

function endOfToken(field: string, what: string): void {
  if (pos < lineEnd && !isSpace(txt.charCodeAt(pos))) failAt(tokStart + 1, `expected ${what}, got '${tokenText()}'`, field);
}

function readDec(field: string, max: number): number {
  nextToken(field, true);
  let v = 0;
  const start = pos;
  for (;;) {
    const c = txt.charCodeAt(pos);
    if (c < 48 || c > 57 || pos >= lineEnd) break;
    v = v * 10 + (c - 48);
    pos++;
  }
  if (pos === start) failAt(tokStart + 1, `expected a decimal number, got '${tokenText()}'`, field);
  endOfToken(field, 'a decimal number');
  if (v > max) failAt(tokStart + 1, `${tokenText()} is above the limit ${max}`, field);
  return v;
}

function readSignedDec(field: string): number {
  nextToken(field, true);
  let neg = false;
  const c0 = txt.charCodeAt(pos);
  if (c0 === 45 || c0 === 43) { neg = c0 === 45; pos++; }
  const start = pos;
  let v = 0;
  for (;;) {
    const c = txt.charCodeAt(pos);
    if (c < 48 || c > 57 || pos >= lineEnd) break;
    v = v * 10 + (c - 48);
    pos++;
  }
  if (pos === start) failAt(tokStart + 1, `expected a signed decimal number, got '${tokenText()}'`, field);
  endOfToken(field, 'a signed decimal number');
  if (!Number.isSafeInteger(v)) failAt(tokStart + 1, `'${tokenText()}' is out of range`, field);
  return neg ? -v : v;
}

function readHex(field: string, maxDigits: number): number {
  nextToken(field, true);
  if (txt.charCodeAt(pos) === 48 && (txt.charCodeAt(pos + 1) | 32) === 120) pos += 2; // 0x / 0X
  while (txt.charCodeAt(pos) === 48 && pos + 1 < lineEnd) {
    const c = txt.charCodeAt(pos + 1);
    if (isSpace(c)) break;
    pos++; // leading zeros
  }
  const start = pos;
  let v = 0;
  for (;;) {
    if (pos >= lineEnd) break;
    const c = txt.charCodeAt(pos);
    let d: number;
    if (c >= 48 && c <= 57) d = c - 48;
    else if (c >= 97 && c <= 102) d = c - 87;
    else if (c >= 65 && c <= 70) d = c - 55;
    else break;
    v = v * 16 + d;
    pos++;
  }
  if (pos === start) failAt(tokStart + 1, `expected a hexadecimal number, got '${tokenText()}'`, field);
  endOfToken(field, 'a hexadecimal number');
  if (pos - start > maxDigits) failAt(tokStart + 1, `'${tokenText()}' has more than ${maxDigits} hex digits`, field);
  if (v > Number.MAX_SAFE_INTEGER) failAt(tokStart + 1, `'${tokenText()}' is above 2^53 (addresses are kept exactly up to 2^53)`, field);
  return v;
}

const scratchGen = new Int32Array(256);
const scratchPred = new Int32Array(256);
let regsGen: Int32Array = EMPTY_I32;
let regsPred: Int32Array = EMPTY_I32;

/** Reads `count reg...` into {@link regsGen} / {@link regsPred}. */
function readRegs(countField: string, regField: string, keep: boolean): void {
  const count = readDec(countField, 255);
  let g = 0;
  let p = 0;
  for (let r = 0; r < count; r++) {
    nextToken(regField, true);
    const c0 = txt.charCodeAt(pos);
    const c1 = txt.charCodeAt(pos + 1);
    let ok = false;
    if (c0 === 82 /* R */ || c0 === 80 /* P */) {
      const pred = c0 === 80;
      if (c1 === (pred ? 84 /* T */ : 90 /* Z */)) {
        pos += 2;
        if (pred) scratchPred[p++] = 7;
        else scratchGen[g++] = 255;
        ok = true;
      } else {
        pos++;
        const start = pos;
        let v = 0;
        while (pos < lineEnd) {
          const c = txt.charCodeAt(pos);
          if (c < 48 || c > 57) break;
          v = v * 10 + (c - 48);
          pos++;
        }
        if (pos > start && pos - start <= 3 && v <= (pred ? 7 : 255)) {
          if (pred) scratchPred[p++] = v;
          else scratchGen[g++] = v;
          ok = true;
        }
      }
      if (ok && pos < lineEnd && !isSpace(txt.charCodeAt(pos))) ok = false;
    }
    if (!ok) failAt(tokStart + 1, `expected a register R0..R255, RZ, P0..P7 or PT, got '${tokenText()}'`, regField);
  }
  regsGen = g === 0 || !keep ? EMPTY_I32 : scratchGen.slice(0, g);
  regsPred = p === 0 || !keep ? EMPTY_I32 : scratchPred.slice(0, p);
}

function isOpcodeChar(c: number, first: boolean): boolean {
  if ((c >= 65 && c <= 90) || (c >= 97 && c <= 122)) return true;
  if (first) return false;
  return (c >= 48 && c <= 57) || c === 95 || c === 46;
}

// Fields of the line the scanner decoded last (read right after {@link scanLine}).
let sPc = 0;
let sMask = 0;
let sMemWidth = 0;
let sMode: AddressMode = AddressMode.None;
let sOpStart = 0;
let sOpEnd = 0;
let sOpCol = 0;
let sSourceLine = 0;
let sDst: Int32Array = EMPTY_I32;
let sDstPreds: Int32Array = EMPTY_I32;
let sSrc: Int32Array = EMPTY_I32;
let sSrcPreds: Int32Array = EMPTY_I32;

/**
 * Decodes the line `text[start, end)` into the `s*` fields, its addresses into `addresses`
 * from `addrAt` (32 entries, lane order; inactive lanes are left as they were) when it is a
 * memory instruction. Registers are sliced only when `keepRegs` (else only checked).
 */
function scanLine(text: string, start: number, end: number, traceLine: number, ctx: LineContext, keepRegs: boolean, addresses: Float64Array, addrAt: number): void {
  txt = text;
  pos = start;
  lineEnd = end;
  lineStartPos = start;
  curFile = ctx.file;
  curLine = traceLine;
  sSourceLine = ctx.lineinfo ? readDec('line_num', 0x7fffffff) : 0;
  sPc = readHex('PC', 16);
  sMask = readHex('mask', 8) >>> 0;
  readRegs('dest_num', 'reg_dest', keepRegs);
  sDst = regsGen;
  sDstPreds = regsPred;

  nextToken('opcode', true);
  const opAt = tokStart + 1;
  sOpCol = opAt - start;
  if (!isOpcodeChar(txt.charCodeAt(pos), true)) failAt(opAt, `expected an opcode name, got '${tokenText()}'`, 'opcode');
  pos++;
  while (pos < lineEnd && !isSpace(txt.charCodeAt(pos))) {
    if (!isOpcodeChar(txt.charCodeAt(pos), false)) failAt(opAt, `expected an opcode name, got '${tokenText()}'`, 'opcode');
    pos++;
  }
  sOpStart = tokStart;
  sOpEnd = pos;

  readRegs('src_num', 'reg_src', keepRegs);
  sSrc = regsGen;
  sSrcPreds = regsPred;
  sMemWidth = readDec('mem_width', 1024);
  const activeMask = sMask;

  sMode = AddressMode.None;
  if (sMemWidth > 0) {
    const mode = readDec('address_mode', 9);
    const modeCol = tokStart + 1;
    if (mode === AddressMode.ListAll) {
      for (let lane = 0; lane < WARP_SIZE; lane++) {
        if ((activeMask >>> lane) & 1) addresses[addrAt + lane] = readHex('mem_address', 16);
      }
    } else if (mode === AddressMode.BaseStride) {
      const base = readHex('base_address', 16);
      const stride = readSignedDec('stride');
      let nth = 0;
      for (let lane = 0; lane < WARP_SIZE; lane++) {
        if ((activeMask >>> lane) & 1) {
          const a = base + nth * stride;
          if (a < 0 || a > Number.MAX_SAFE_INTEGER) failAt(tokStart + 1, `lane ${lane} address ${a} is outside 0..2^53`, 'stride');
          addresses[addrAt + lane] = a;
          nth++;
        }
      }
    } else if (mode === AddressMode.BaseDelta) {
      // the base belongs to the first active lane; a fully inactive instruction still writes one
      let addr = readHex('base_address', 16);
      let first = true;
      for (let lane = 0; lane < WARP_SIZE; lane++) {
        if (((activeMask >>> lane) & 1) === 0) continue;
        if (!first) {
          addr += readSignedDec('delta');
          if (addr < 0 || addr > Number.MAX_SAFE_INTEGER) failAt(tokStart + 1, `lane ${lane} address ${addr} is outside 0..2^53`, 'delta');
        }
        first = false;
        addresses[addrAt + lane] = addr;
      }
    } else {
      failAt(modeCol, `unknown address compression mode ${mode} (0 list, 1 base+stride, 2 base+delta)`, 'address_mode');
    }
    sMode = mode as AddressMode;
  }
  if (nextToken('', false)) failAt(tokStart + 1, `unexpected token '${tokenText()}' after the end of the instruction`, 'line');
}

/**
 * Decodes one instruction line.
 *
 * @param text the line without its line break.
 * @param traceLine 1-based line number in the file.
 * @throws InputError for a missing or malformed field, a register other than `R<n>`/`RZ`/
 *   `P<n>`/`PT`, an unknown address mode, a wrong number of addresses, an address above 2^53,
 *   trailing tokens, or an unknown opcode under the `error` policy.
 */
export function parseInstructionLine(text: string, traceLine: number, ctx: LineContext): TraceInstruction {
  const scratch = SCRATCH_ADDRESSES;
  scratch.fill(0);
  scanLine(text, 0, text.length, traceLine, ctx, true, scratch, 0);
  const addresses = sMemWidth > 0 ? scratch.slice() : EMPTY_F64;
  const opcode = text.slice(sOpStart, sOpEnd);
  const info = ctx.mapper.lookup(opcode, ctx.arch, ctx.file, traceLine, sOpCol);
  return new Instruction(sPc, sMask, opcode, info.id, info.opClass, info, sDst, sDstPreds, sSrc, sSrcPreds,
    sMemWidth, sMode, addresses, sSourceLine, traceLine);
}

const SCRATCH_ADDRESSES = new Float64Array(WARP_SIZE);

/**
 * Where {@link scanInstructionLine} leaves a line's fields (one object, overwritten by every
 * call: read it before the next).
 */
export interface ScannedLine {
  /** PC (bytes). */
  pc: number;
  /** Active mask (bit l = lane l). */
  activeMask: number;
  /** Bytes per lane, 0 for a non-memory instruction. */
  memWidth: number;
}

const SCANNED: ScannedLine = { pc: 0, activeMask: 0, memWidth: 0 };

/**
 * Decodes the instruction line `text[start, end)` without allocating: the PC, mask and memory
 * width go to the returned (shared) object, the lane addresses of a memory instruction to
 * `addresses[addrAt .. addrAt + 31]` (inactive lanes are left as they were). Every field is
 * checked as {@link parseInstructionLine} checks it, except that the opcode is not looked up
 * (the caller knows the PC's static instruction).
 *
 * @param traceLine 1-based line number in the file (for errors).
 * @throws InputError as {@link parseInstructionLine}, with the column counted from `start`.
 */
export function scanInstructionLine(text: string, start: number, end: number, traceLine: number, ctx: LineContext, addresses: Float64Array, addrAt: number): ScannedLine {
  scanLine(text, start, end, traceLine, ctx, false, addresses, addrAt);
  SCANNED.pc = sPc;
  SCANNED.activeMask = sMask;
  SCANNED.memWidth = sMemWidth;
  return SCANNED;
}
