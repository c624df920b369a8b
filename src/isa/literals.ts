/**
 * PTX numeric literals (PTX ISA 9.0 §4.5 "Constants") and their encoding into an operand type.
 *
 * Integer literals: decimal, hex `0x`, octal `0[0-7]+`, binary `0b`, optional `U` suffix; a
 * leading `-` is a separate token handled by the caller. Float literals: `0f` + 8 hex digits (exactly
 * the IEEE binary32 bits), `0d` + 16 hex digits (binary64 bits), or decimal
 * with a fraction and/or exponent (`1.5`, `2e3`), which PTX treats as a double.
 */

/** A decoded literal, before it is given a type. */
export type Literal =
  | { readonly kind: 'int'; readonly value: bigint }
  | { readonly kind: 'f32bits'; readonly bits: number }
  | { readonly kind: 'f64bits'; readonly bits: bigint }
  | { readonly kind: 'float'; readonly value: number };

const HEX = /^[0-9a-fA-F]+$/;

/**
 * Decodes the text of a numeric literal.
 *
 * @param text the literal as lexed (no sign).
 * @returns the literal, or undefined when the text is not a valid PTX literal.
 */
export function parseLiteral(text: string): Literal | undefined {
  if (text.length === 0) return undefined;
  const c1 = text.length > 1 ? text[1] : '';
  if (text[0] === '0' && (c1 === 'f' || c1 === 'F')) {
    const h = text.slice(2);
    if (h.length !== 8 || !HEX.test(h)) return undefined;
    return { kind: 'f32bits', bits: parseInt(h, 16) >>> 0 };
  }
  if (text[0] === '0' && (c1 === 'd' || c1 === 'D')) {
    const h = text.slice(2);
    if (h.length !== 16 || !HEX.test(h)) return undefined;
    return { kind: 'f64bits', bits: BigInt('0x' + h) };
  }
  let t = text;
  if (t.endsWith('U') || t.endsWith('u')) t = t.slice(0, -1);
  if (t.length === 0) return undefined;
  if (t[0] === '0' && (t[1] === 'x' || t[1] === 'X')) {
    const h = t.slice(2);
    if (h.length === 0 || h.length > 16 || !HEX.test(h)) return undefined;
    return { kind: 'int', value: BigInt('0x' + h) };
  }
  if (t[0] === '0' && (t[1] === 'b' || t[1] === 'B')) {
    const b = t.slice(2);
    if (b.length === 0 || b.length > 64 || !/^[01]+$/.test(b)) return undefined;
    return { kind: 'int', value: BigInt('0b' + b) };
  }
  if (/^[0-9]+$/.test(t)) {
    if (t.length > 1 && t[0] === '0') {
      if (!/^[0-7]+$/.test(t) || t.length > 23) return undefined;
      return { kind: 'int', value: BigInt('0o' + t.slice(1)) };
    }
    if (t.length > 20) return undefined;
    const v = BigInt(t);
    if (v >= 1n << 64n) return undefined;
    return { kind: 'int', value: v };
  }
  if (t !== text) return undefined; // U suffix on a float
  if (/^[0-9]+(\.[0-9]*)?([eE][+-]?[0-9]+)?$/.test(text)) {
    const v = Number(text);
    if (!Number.isFinite(v)) return undefined;
    return { kind: 'float', value: v };
  }
  return undefined;
}

const f32Buf = new Float32Array(1);
const f32Bits = new Uint32Array(f32Buf.buffer);
const f64Buf = new Float64Array(1);
const f64Bits = new BigUint64Array(f64Buf.buffer);

/** IEEE binary32 bits of `x` rounded to float (round-to-nearest-even). */
export function f32ToBits(x: number): number {
  f32Buf[0] = x;
  return f32Bits[0]!;
}

/** The float value of binary32 bits. */
export function bitsToF32(bits: number): number {
  f32Bits[0] = bits >>> 0;
  return f32Buf[0]!;
}

/** IEEE binary64 bits of `x`. */
export function f64ToBits(x: number): bigint {
  f64Buf[0] = x;
  return f64Bits[0]!;
}

/** The double value of binary64 bits. */
export function bitsToF64(bits: bigint): number {
  f64Bits[0] = BigInt.asUintN(64, bits);
  return f64Buf[0]!;
}
