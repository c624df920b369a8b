/**
 * Parameter checks shared by the SM datapath models. Each model validates its small params
 * interface once, in its constructor, and reports a bad value as an {@link InputError} naming
 * the field (the config loader passes the file it read the value from).
 */
import { InputError } from '../../errors.ts';
import type { SourceLocation } from '../../errors.ts';

/** Location used when a caller does not say where the parameters came from. */
export const PARAMS_LOCATION: SourceLocation = Object.freeze({ file: '<sm-params>' });

/**
 * Returns `value` when it is an integer in `[min, max]`.
 *
 * @param value the value to check (any type; a non-number is rejected).
 * @param field dotted field name used in the error (`scoreboard.numRegs`).
 * @param min smallest accepted value (inclusive).
 * @param max largest accepted value (inclusive), default `Number.MAX_SAFE_INTEGER`.
 * @param where file the value came from.
 * @throws InputError when `value` is not a safe integer in range.
 */
export function requireInt(value: unknown, field: string, min: number, max = Number.MAX_SAFE_INTEGER, where: SourceLocation = PARAMS_LOCATION): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
    throw new InputError(where, `expected an integer, got ${describe(value)}`, field);
  }
  if (value < min || value > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `>= ${min}` : `in [${min}, ${max}]`;
    throw new InputError(where, `expected an integer ${range}, got ${value}`, field);
  }
  return value;
}

/**
 * Returns `value` when it is one of `allowed`.
 *
 * @throws InputError naming `field` and the accepted values otherwise.
 */
export function requireOneOf<T extends string>(value: unknown, field: string, allowed: readonly T[], where: SourceLocation = PARAMS_LOCATION): T {
  if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) return value as T;
  throw new InputError(where, `expected one of ${allowed.map((a) => `'${a}'`).join(', ')}, got ${describe(value)}`, field);
}

/** Short printable form of a bad value for error messages. */
function describe(value: unknown): string {
  if (typeof value === 'string') return `'${value}'`;
  if (value === undefined) return 'nothing';
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value);
  return typeof value;
}
