/**
 * Device `printf` formatting (CUDA C++ Programming Guide, "Formatted Output"): nvcc compiles
 * `printf(fmt, ...)` into `call vprintf(fmt, args)` where `fmt` is the generic address of the
 * format string and `args` the generic address of a buffer on the thread's local stack holding
 * the promoted arguments, each at its natural alignment: 4 bytes for `int`-sized integers,
 * `char` and `*`-widths, 8 bytes for `long`/`long long`, pointers and `double` (a `float` is
 * promoted to `double`).
 *
 * Formatting follows C99 `printf` as glibc prints it (flags `-+ #0`, width and precision, `*`,
 * length modifiers `hh h l ll j z t L`, conversions `d i u o x X c s p f F e E g G a A n %`).
 * Floating-point values are converted exactly (the binary value expanded in BigInt decimal,
 * rounded half to even, as glibc does), never through JavaScript's `toFixed`, which rounds
 * differently and switches to exponent notation at 1e21.
 */

/** Where {@link formatDevicePrintf} reads its arguments. */
export interface PrintfSource {
  /** Reads `size` (4 or 8) bytes at byte offset `off` of the argument buffer, as an unsigned integer. */
  arg(off: number, size: 4 | 8): bigint;
  /** Reads the NUL-terminated string at device (generic) address `addr`, at most `max` bytes. */
  string(addr: bigint, max: number): string;
}

/** Longest string a `%s` reads (bytes): far more than any real device message. */
export const MAX_PRINTF_STRING = 4096;

const SPEC = /%([-+ #0]*)(\*|\d+)?(?:\.(\*|\d*))?(hh|h|ll|l|L|q|j|z|t)?([diouxXcspfFeEgGaAn%])/g;

/**
 * Formats one device `printf` call.
 * @param format the format string.
 * @param src the argument buffer and string reader.
 * @returns the text and the number of arguments read (what device `printf` returns).
 * @throws whatever `src` throws on a bad address (the caller turns it into a fault report).
 */
export function formatDevicePrintf(format: string, src: PrintfSource): { text: string; argCount: number } {
  let off = 0;
  let argCount = 0;
  const next = (size: 4 | 8): bigint => {
    off = Math.ceil(off / size) * size;
    const v = src.arg(off, size);
    off += size;
    argCount++;
    return v;
  };
  const text = format.replace(SPEC, (whole, flags: string, w: string | undefined, p: string | undefined, len: string | undefined, conv: string) => {
    if (conv === '%') return whole === '%%' ? '%' : whole;
    let left = flags.includes('-');
    let width = 0;
    if (w === '*') {
      const v = Number(BigInt.asIntN(32, next(4)));
      if (v < 0) left = true;
      width = Math.abs(v);
    } else if (w !== undefined) width = Number(w);
    let prec = -1;
    if (p === '*') {
      const v = Number(BigInt.asIntN(32, next(4)));
      prec = v < 0 ? -1 : v;
    } else if (p !== undefined) prec = p === '' ? 0 : Number(p);
    const f: Flags = { left, plus: flags.includes('+'), space: flags.includes(' '), alt: flags.includes('#'), zero: flags.includes('0'), width, prec };
    const wide = len === 'l' || len === 'll' || len === 'q' || len === 'j' || len === 'z' || len === 't';
    switch (conv) {
      case 'd':
      case 'i': {
        const raw = next(wide ? 8 : 4);
        const bits = wide ? 64 : len === 'hh' ? 8 : len === 'h' ? 16 : 32;
        return integer(BigInt.asIntN(bits, raw), 10, false, f, true);
      }
      case 'u':
      case 'o':
      case 'x':
      case 'X': {
        const raw = next(wide ? 8 : 4);
        const bits = wide ? 64 : len === 'hh' ? 8 : len === 'h' ? 16 : 32;
        return integer(BigInt.asUintN(bits, raw), conv === 'o' ? 8 : conv === 'u' ? 10 : 16, conv === 'X', f, false);
      }
      case 'c':
        return pad(String.fromCharCode(Number(next(4) & 0xffn)), f.width, f.left, false);
      case 's': {
        const addr = next(8);
        const s = addr === 0n ? (prec < 0 || prec >= 6 ? '(null)' : '') : src.string(addr, prec >= 0 ? Math.min(prec, MAX_PRINTF_STRING) : MAX_PRINTF_STRING);
        return pad(prec >= 0 ? s.slice(0, prec) : s, f.width, f.left, false);
      }
      case 'p': {
        const addr = next(8);
        return pad(addr === 0n ? '(nil)' : '0x' + addr.toString(16), f.width, f.left, false);
      }
      case 'n':
        next(8); // the count is not stored back (the pointer would be a device address)
        return '';
      default: {
        const x = f64FromBits(next(8));
        return float(x, conv, f);
      }
    }
  });
  return { text, argCount };
}

interface Flags {
  readonly left: boolean;
  readonly plus: boolean;
  readonly space: boolean;
  readonly alt: boolean;
  readonly zero: boolean;
  readonly width: number;
  /** Precision, -1 when not given. */
  readonly prec: number;
}

function pad(s: string, width: number, left: boolean, zeros: boolean, prefixLen = 0): string {
  if (s.length >= width) return s;
  if (left) return s + ' '.repeat(width - s.length);
  if (zeros) return s.slice(0, prefixLen) + '0'.repeat(width - s.length) + s.slice(prefixLen);
  return ' '.repeat(width - s.length) + s;
}

function integer(v: bigint, base: number, upper: boolean, f: Flags, signed: boolean): string {
  const neg = v < 0n;
  let digits = (neg ? -v : v).toString(base);
  if (upper) digits = digits.toUpperCase();
  if (f.prec >= 0) digits = v === 0n && f.prec === 0 ? '' : digits.padStart(f.prec, '0');
  let prefix = neg ? '-' : signed && f.plus ? '+' : signed && f.space ? ' ' : '';
  if (f.alt && base === 16 && v !== 0n) prefix += upper ? '0X' : '0x';
  if (f.alt && base === 8 && !digits.startsWith('0')) digits = '0' + digits;
  return pad(prefix + digits, f.width, f.left, f.zero && f.prec < 0, prefix.length);
}

const F64 = new Float64Array(1);
const U64 = new BigUint64Array(F64.buffer);

function f64FromBits(b: bigint): number {
  U64[0] = b;
  return F64[0]!;
}

/** |x| as an exact decimal fraction n / 10^scale (x finite). */
function exactDecimal(x: number): { n: bigint; scale: number } {
  F64[0] = Math.abs(x);
  const bits = U64[0]!;
  const exp = Number((bits >> 52n) & 0x7ffn);
  const frac = bits & 0xfffffffffffffn;
  const m = exp === 0 ? frac : frac | (1n << 52n);
  const e = exp === 0 ? -1074 : exp - 1075;
  if (e >= 0) return { n: m << BigInt(e), scale: 0 };
  return { n: m * 5n ** BigInt(-e), scale: -e };
}

/** n / 10^drop rounded half to even (drop >= 0). */
function roundDrop(n: bigint, drop: number): bigint {
  if (drop <= 0) return n * 10n ** BigInt(-drop);
  const d = 10n ** BigInt(drop);
  const q = n / d;
  const r = n % d;
  const twice = 2n * r;
  if (twice > d || (twice === d && (q & 1n) === 1n)) return q + 1n;
  return q;
}

/** `%f` digits of |x| with `prec` fraction digits. */
function fixed(x: number, prec: number, alt: boolean): string {
  const { n, scale } = exactDecimal(x);
  const q = roundDrop(n, scale - prec).toString().padStart(prec + 1, '0');
  const int = q.slice(0, q.length - prec);
  const fr = q.slice(q.length - prec);
  return prec > 0 || alt ? `${int}.${fr}` : int;
}

/** `%e` mantissa digits (prec+1 of them) and decimal exponent of |x|. */
function sci(x: number, prec: number): { digits: string; exp: number } {
  if (x === 0) return { digits: '0'.repeat(prec + 1), exp: 0 };
  const { n, scale } = exactDecimal(x);
  const len = n.toString().length;
  let exp = len - 1 - scale;
  let q = roundDrop(n, len - (prec + 1));
  let digits = q.toString();
  if (digits.length > prec + 1) {
    q /= 10n; // rounding carried into a new digit (9.99 -> 10.0): exact
    digits = q.toString();
    exp++;
  }
  return { digits, exp };
}

/** Removes trailing fraction zeros and a bare decimal point (`%g` without `#`). */
function stripZeros(s: string): string {
  return s.includes('.') ? s.replace(/0+$/, '').replace(/\.$/, '') : s;
}

function expString(exp: number, upper: boolean, minDigits: number): string {
  return (upper ? 'E' : 'e') + (exp < 0 ? '-' : '+') + String(Math.abs(exp)).padStart(minDigits, '0');
}

function float(x: number, conv: string, f: Flags): string {
  const upper = conv === 'F' || conv === 'E' || conv === 'G' || conv === 'A';
  F64[0] = x;
  const neg = (U64[0]! >> 63n) === 1n;
  const sign = neg ? '-' : f.plus ? '+' : f.space ? ' ' : '';
  if (!Number.isFinite(x)) {
    const s = Number.isNaN(x) ? 'nan' : 'inf';
    return pad(sign + (upper ? s.toUpperCase() : s), f.width, f.left, false);
  }
  const c = conv.toLowerCase();
  let body: string;
  let prefixLen = sign.length;
  if (c === 'f') body = fixed(x, f.prec < 0 ? 6 : f.prec, f.alt);
  else if (c === 'e') {
    const p = f.prec < 0 ? 6 : f.prec;
    const { digits, exp } = sci(x, p);
    body = digits[0]! + (p > 0 || f.alt ? '.' + digits.slice(1) : '') + expString(exp, upper, 2);
  } else if (c === 'g') {
    // C99 7.19.6.1: P significant digits; %f style when -4 <= X < P (X the %e exponent)
    const P = f.prec < 0 ? 6 : f.prec === 0 ? 1 : f.prec;
    const { digits, exp } = sci(x, P - 1);
    if (exp < P && exp >= -4) {
      body = fixed(x, P - 1 - exp, f.alt);
      if (!f.alt) body = stripZeros(body);
    } else {
      let mant = digits[0]! + (P > 1 || f.alt ? '.' + digits.slice(1) : '');
      if (!f.alt) mant = stripZeros(mant);
      body = mant + expString(exp, upper, 2);
    }
  } else {
    body = hexFloat(x, f.prec, f.alt);
    prefixLen += 2;
    if (upper) body = body.toUpperCase();
  }
  return pad(sign + body, f.width, f.left, f.zero, prefixLen);
}

/** `%a` of |x|: `0x1.<hex>p<exp>` (glibc: subnormals as `0x0.<hex>p-1022`). */
function hexFloat(x: number, prec: number, alt: boolean): string {
  F64[0] = Math.abs(x);
  const bits = U64[0]!;
  const exp = Number((bits >> 52n) & 0x7ffn);
  let frac = bits & 0xfffffffffffffn;
  if (exp === 0 && frac === 0n) return '0x0' + (prec > 0 ? '.' + '0'.repeat(prec) : alt ? '.' : '') + 'p+0';
  let lead = exp === 0 ? 0n : 1n;
  const e = exp === 0 ? -1022 : exp - 1023;
  let digits: string;
  if (prec >= 0 && prec < 13) {
    const drop = BigInt(4 * (13 - prec));
    const full = (lead << 52n) | frac;
    const unit = 1n << drop;
    let q = full >> drop;
    const r = full & (unit - 1n);
    if (2n * r > unit || (2n * r === unit && (q & 1n) === 1n)) q++;
    lead = q >> BigInt(4 * prec);
    frac = q & ((1n << BigInt(4 * prec)) - 1n);
    digits = prec > 0 ? frac.toString(16).padStart(prec, '0') : '';
  } else {
    digits = frac.toString(16).padStart(13, '0');
    digits = prec < 0 ? digits.replace(/0+$/, '') : digits.padEnd(prec, '0');
  }
  return `0x${lead.toString(16)}${digits.length > 0 || alt ? '.' : ''}${digits}p${e < 0 ? '-' : '+'}${Math.abs(e)}`;
}
