/**
 * Parameter checks shared by the memory-hierarchy models of `src/model/mem/`.
 *
 * Every model takes a small params interface of its own. Values normally come from a GPU config
 * (`src/config/`) or a scenario, so a bad value is user input: it is reported as an
 * {@link InputError} whose file is a pseudo-name (`<TagArrayParams>`, ...) unless the caller
 * passes the real location, and whose field names the parameter.
 */

import { InputError, type SourceLocation } from '../../errors.ts';

/** Builds the {@link InputError} for parameter `field` of the params object `model`. */
export function paramError(model: string, field: string, reason: string, where?: SourceLocation): InputError {
  return new InputError(where ?? { file: `<${model}>` }, reason, field);
}

/** True when `n` is a positive integer power of two. */
export function isPow2(n: number): boolean {
  return Number.isInteger(n) && n > 0 && (n & (n - 1)) === 0 && n <= 0x40000000;
}

/** log2 of a power of two (<= 2^30). */
export function log2(n: number): number {
  return 31 - Math.clz32(n);
}

/**
 * Checks that `params[field]` is an integer in [`min`, `max`] and returns it.
 * @throws InputError naming `model` and `field` otherwise.
 */
export function intParam(model: string, field: string, value: unknown, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw paramError(model, field, `must be an integer in [${min}, ${max}], got ${String(value)}`);
  }
  return value;
}

/**
 * Checks that `params[field]` is a power of two in [`min`, `max`] and returns it.
 * @throws InputError naming `model` and `field` otherwise.
 */
export function pow2Param(model: string, field: string, value: unknown, min = 1, max = 0x40000000): number {
  if (typeof value !== 'number' || !isPow2(value) || value < min || value > max) {
    throw paramError(model, field, `must be a power of two in [${min}, ${max}], got ${String(value)}`);
  }
  return value;
}

/**
 * Checks that `value` is one of `choices` (or undefined, giving `fallback`) and returns it.
 * @throws InputError naming `model` and `field` otherwise.
 */
export function choiceParam<T extends string>(model: string, field: string, value: unknown, choices: readonly T[], fallback: T): T {
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || !(choices as readonly string[]).includes(value)) {
    throw paramError(model, field, `must be one of ${choices.join(', ')}, got ${String(value)}`);
  }
  return value as T;
}

/** 2^32, for splitting addresses beyond 32 bits into two unsigned words. */
export const TWO_POW_32 = 4294967296;
