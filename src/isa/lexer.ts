/**
 * Tokenizer for PTX text (PTX ISA 9.0 §4 "Syntax": identifiers, constants, comments).
 *
 * Produces a flat array of tokens with 1-based line/column. Comments (`//` to end of line and
 * `/* ... *\/`) are dropped. Words keep their dots, so `ld.global.nc.f32`, `%tid.x`, `.reg` and
 * `.L2::128B` are single `Word` tokens; the parser splits them. `::` is kept inside words
 * (`.shared::cta`); a single `:` (after a label) is punctuation.
 */
import { InputError } from '../errors.ts';

/** Kind of a {@link Token}. */
export const TokenKind = {
  /** Identifier, directive (`.reg`), opcode with modifiers, register (`%r1`), label (`$L__BB0_2`). */
  Word: 0,
  /** A numeric literal as written (`12`, `0x1F`, `0f3F800000`, `1.5e3`, `4294967295U`). */
  Number: 1,
  /** A string literal; `text` holds the contents without quotes. */
  String: 2,
  /** One punctuation character: `{ } [ ] ( ) , ; : + - | ! @ < > =`. */
  Punct: 3,
  /** End of input (always the last token). */
  Eof: 4,
} as const;
/** A {@link TokenKind} code. */
export type TokenKind = (typeof TokenKind)[keyof typeof TokenKind];

/** One lexical token. Lines and columns are 1-based. */
export interface Token {
  /** What the token is. */
  readonly kind: TokenKind;
  /** The token as written (for `String`, the contents without quotes). */
  readonly text: string;
  /** 1-based line of its first character. */
  readonly line: number;
  /** 1-based column of its first character. */
  readonly column: number;
}

const PUNCT = '{}[](),;:+-|!@<>=';

function isWordStart(c: number): boolean {
  // a-z A-Z _ $ % .
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95 || c === 36 || c === 37 || c === 46;
}

function isWordChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 36;
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/**
 * Splits PTX source into tokens.
 *
 * @param text whole PTX file contents.
 * @param file file name used in error messages.
 * @returns tokens, ending with one `Eof` token.
 * @throws InputError on an unterminated block comment or string, or a character PTX does not use.
 */
export function tokenize(text: string, file: string): Token[] {
  const tokens: Token[] = [];
  const n = text.length;
  let i = 0;
  let line = 1;
  let lineStart = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    // newline
    if (c === 10) {
      i++;
      line++;
      lineStart = i;
      continue;
    }
    // whitespace
    if (c === 32 || c === 9 || c === 13 || c === 11 || c === 12) {
      i++;
      continue;
    }
    const column = i - lineStart + 1;
    // comments
    if (c === 47 /* / */ && i + 1 < n) {
      const d = text.charCodeAt(i + 1);
      if (d === 47) {
        while (i < n && text.charCodeAt(i) !== 10) i++;
        continue;
      }
      if (d === 42) {
        const end = text.indexOf('*/', i + 2);
        if (end < 0) throw new InputError({ file, line, column }, 'unterminated block comment', '/*');
        for (let k = i; k < end; k++) {
          if (text.charCodeAt(k) === 10) {
            line++;
            lineStart = k + 1;
          }
        }
        i = end + 2;
        continue;
      }
    }
    // strings
    if (c === 34 /* " */) {
      let j = i + 1;
      let s = '';
      while (j < n) {
        const d = text.charCodeAt(j);
        if (d === 34) break;
        if (d === 10) throw new InputError({ file, line, column }, 'unterminated string literal', '"');
        if (d === 92 /* \ */ && j + 1 < n) {
          s += text[j + 1];
          j += 2;
          continue;
        }
        s += text[j];
        j++;
      }
      if (j >= n) throw new InputError({ file, line, column }, 'unterminated string literal', '"');
      tokens.push({ kind: TokenKind.String, text: s, line, column });
      i = j + 1;
      continue;
    }
    // numbers
    if (isDigit(c)) {
      let j = i + 1;
      const d = i + 1 < n ? text.charCodeAt(i + 1) : 0;
      if (c === 48 && (d === 120 || d === 88 || d === 102 || d === 70 || d === 100 || d === 68 || d === 98 || d === 66)) {
        // 0x.., 0f.., 0d.., 0b..: prefix then hex digits
        j = i + 2;
        while (j < n && isWordChar(text.charCodeAt(j))) j++;
      } else {
        while (j < n && isDigit(text.charCodeAt(j))) j++;
        if (j < n && text.charCodeAt(j) === 46 && !(j + 1 < n && isWordStart(text.charCodeAt(j + 1)))) {
          // fraction
          j++;
          while (j < n && isDigit(text.charCodeAt(j))) j++;
        }
        if (j < n && (text.charCodeAt(j) === 101 || text.charCodeAt(j) === 69)) {
          let k = j + 1;
          if (k < n && (text.charCodeAt(k) === 43 || text.charCodeAt(k) === 45)) k++;
          if (k < n && isDigit(text.charCodeAt(k))) {
            j = k;
            while (j < n && isDigit(text.charCodeAt(j))) j++;
          }
        }
        // suffix (U) and any trailing word characters, reported later as a bad literal
        while (j < n && isWordChar(text.charCodeAt(j))) j++;
      }
      tokens.push({ kind: TokenKind.Number, text: text.slice(i, j), line, column });
      i = j;
      continue;
    }
    // words
    if (isWordStart(c)) {
      let j = i + 1;
      while (j < n) {
        const d = text.charCodeAt(j);
        if (isWordChar(d)) {
          j++;
        } else if (d === 46 /* . */ && j + 1 < n && (isWordChar(text.charCodeAt(j + 1)))) {
          j++;
        } else if (d === 58 /* : */ && j + 2 < n && text.charCodeAt(j + 1) === 58 && isWordChar(text.charCodeAt(j + 2))) {
          j += 2;
        } else {
          break;
        }
      }
      const w = text.slice(i, j);
      if (w === '.' || w === '%') {
        throw new InputError({ file, line, column }, `unexpected character '${w}'`, w);
      }
      tokens.push({ kind: TokenKind.Word, text: w, line, column });
      i = j;
      continue;
    }
    if (PUNCT.indexOf(text[i]!) >= 0) {
      tokens.push({ kind: TokenKind.Punct, text: text[i]!, line, column });
      i++;
      continue;
    }
    const shown = c < 32 || c > 126 ? `\\u${c.toString(16).padStart(4, '0')}` : text[i]!;
    throw new InputError({ file, line, column }, `unexpected character '${shown}'`, shown);
  }
  tokens.push({ kind: TokenKind.Eof, text: '', line, column: i - lineStart + 1 });
  return tokens;
}
