/**
 * Simulated time and clock domains.
 *
 * Time is an integer number of picoseconds held in a JS number (exact up to 2^53 ps, about
 * 2.5 hours of simulated time). Each unit belongs to a {@link ClockDomain} (core, interconnect,
 * L2, DRAM, as GPGPU-Sim's `-gpgpu_clock_domains`) and converts time to its own cycles.
 *
 * Rounding rule: the period of a domain is the exact rational `1e12 / frequencyHz` ps. Cycle
 * edge `n` happens at `floor(n * 1e12 / frequencyHz)` ps, computed from `n` directly (never by
 * adding a rounded period), so there is no drift: edge 10^9 of a 700 MHz clock is at exactly
 * `floor(10^9 * 10^4 / 7)` ps.
 */
import { InputError } from '../errors.ts';

/** Simulated time in integer picoseconds. */
export type Picoseconds = number;

/** Picoseconds per second. */
export const PS_PER_SECOND = 1_000_000_000_000;

function gcd(a: number, b: number): number {
  while (b !== 0) {
    const t = a % b;
    a = b;
    b = t;
  }
  return a;
}

/**
 * A clock domain: a name and a frequency, with exact conversions between picoseconds and cycles.
 * Mirrors one entry of GPGPU-Sim's `-gpgpu_clock_domains <core>:<icnt>:<l2>:<dram>`.
 */
export class ClockDomain {
  /** Domain name, e.g. `core`, `icnt`, `l2`, `dram`. */
  readonly name: string;
  /** Frequency in hertz (an integer). */
  readonly frequencyHz: number;
  // period = num / den ps, reduced.
  private readonly num: number;
  private readonly den: number;
  private readonly exact: boolean;

  /**
   * @param name domain name
   * @param frequencyHz integer frequency in Hz, 1 Hz .. 1 THz
   * @throws RangeError when the frequency is not a positive integer up to 1e12 Hz
   */
  constructor(name: string, frequencyHz: number) {
    if (!Number.isInteger(frequencyHz) || frequencyHz <= 0 || frequencyHz > PS_PER_SECOND) {
      throw new RangeError(`clock domain ${name}: frequency must be an integer in 1..1e12 Hz, got ${frequencyHz}`);
    }
    this.name = name;
    this.frequencyHz = frequencyHz;
    const g = gcd(PS_PER_SECOND, frequencyHz);
    this.num = PS_PER_SECOND / g;
    this.den = frequencyHz / g;
    // The split arithmetic below multiplies values below `den` by `num`; stay exact in doubles.
    this.exact = this.num * this.den < Number.MAX_SAFE_INTEGER;
  }

  /** Period in picoseconds as a real number (for display only; never accumulate it). */
  get periodPs(): number {
    return this.num / this.den;
  }

  /** Time of cycle edge `cycle` (an integer >= 0): `floor(cycle * 1e12 / f)` ps. */
  timeOfCycle(cycle: number): Picoseconds {
    const den = this.den;
    if (den === 1) return cycle * this.num;
    if (this.exact) {
      const q = Math.floor(cycle / den);
      const r = cycle - q * den;
      return q * this.num + Math.floor((r * this.num) / den);
    }
    return Number((BigInt(cycle) * BigInt(this.num)) / BigInt(den));
  }

  /** Number of the last cycle edge at or before `time` ps (edge 0 is at time 0). */
  cycleAt(time: Picoseconds): number {
    // Largest n with floor(n*num/den) <= time  <=>  n*num < (time+1)*den.
    const num = this.num;
    const den = this.den;
    if (den === 1) return Math.floor(time / num);
    let n: number;
    if (this.exact && (time + 1) * den < Number.MAX_SAFE_INTEGER) {
      n = Math.floor(((time + 1) * den - 1) / num);
    } else {
      n = Number(((BigInt(time) + 1n) * BigInt(den) - 1n) / BigInt(num));
    }
    return n;
  }

  /** The first cycle edge at or after `time`: its cycle number. */
  cycleAtOrAfter(time: Picoseconds): number {
    const n = this.cycleAt(time);
    return this.timeOfCycle(n) === time ? n : n + 1;
  }

  /**
   * Time of the edge `cycles` cycles after the first edge at or after `time`. With `cycles >= 1`
   * this is always strictly later than `time`: the "at least one cycle" latency rule of links.
   */
  timeAfterCycles(time: Picoseconds, cycles: number): Picoseconds {
    return this.timeOfCycle(this.cycleAtOrAfter(time) + cycles);
  }
}

/**
 * Parses a frequency such as `1400MHz`, `1.4GHz`, `924 MHz`, `700e6` or a bare number of Hz.
 * @returns the frequency in integer Hz (rounded to the nearest Hz)
 * @throws InputError naming `where` when the text is not a positive frequency
 */
export function parseFrequency(text: string | number, where: { file: string; line?: number }, field: string): number {
  if (typeof text === 'number') {
    if (text > 0 && Number.isFinite(text)) return Math.round(text);
    throw new InputError(where, `frequency must be positive, got ${text}`, field);
  }
  const m = /^\s*([0-9]*\.?[0-9]+(?:e[+-]?[0-9]+)?)\s*(hz|khz|mhz|ghz)?\s*$/i.exec(text);
  if (!m) throw new InputError(where, `not a frequency: '${text}' (expected e.g. 1400MHz or 1.4GHz)`, field);
  const scale: Record<string, number> = { hz: 1, khz: 1e3, mhz: 1e6, ghz: 1e9 };
  const hz = Math.round(Number(m[1]) * scale[(m[2] ?? 'hz').toLowerCase()]!);
  if (!(hz > 0)) throw new InputError(where, `frequency must be positive, got '${text}'`, field);
  return hz;
}

/**
 * Parses a duration such as `10us`, `2500ns`, `1ms`, `123ps` or a bare number of picoseconds.
 * @returns integer picoseconds
 * @throws InputError when the text is not a non-negative duration
 */
export function parseDuration(text: string | number, where: { file: string; line?: number }, field: string): Picoseconds {
  if (typeof text === 'number') {
    if (text >= 0 && Number.isFinite(text)) return Math.round(text);
    throw new InputError(where, `duration must be >= 0 ps, got ${text}`, field);
  }
  const m = /^\s*([0-9]*\.?[0-9]+(?:e[+-]?[0-9]+)?)\s*(ps|ns|us|ms|s)?\s*$/i.exec(text);
  if (!m) throw new InputError(where, `not a duration: '${text}' (expected e.g. 10us, 2500ns, 123ps)`, field);
  const scale: Record<string, number> = { ps: 1, ns: 1e3, us: 1e6, ms: 1e9, s: 1e12 };
  return Math.round(Number(m[1]) * scale[(m[2] ?? 'ps').toLowerCase()]!);
}
