/**
 * Seeded pseudo-random numbers for the model and for scenario data generators.
 *
 * The model never calls `Math.random` (DESIGN.md §2). Every random choice comes from a
 * {@link Prng} derived from the run's seed, so a scenario and its seed give the same bytes.
 * The generator is pure-rand's xoroshiro128+ (a well-kept library, also used by fast-check).
 */
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import { uniformInt } from 'pure-rand/distribution/uniformInt';
import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64';
import type { RandomGenerator } from 'pure-rand/types/RandomGenerator';

/** A seeded, mutable random stream. Same seed, same sequence, on every platform. */
export class Prng {
  private readonly rng: RandomGenerator;
  /** The 32-bit seed this stream started from. */
  readonly seed: number;

  /** @param seed any 32-bit integer (values outside are truncated with `| 0`). */
  constructor(seed: number) {
    this.seed = seed | 0;
    this.rng = xoroshiro128plus(this.seed);
  }

  /** Uniform integer in `[from, to]`, both included. Throws RangeError when `from > to`. */
  int(from: number, to: number): number {
    if (from > to) throw new RangeError(`Prng.int: from ${from} > to ${to}`);
    return uniformInt(this.rng, from, to);
  }

  /** Uniform unsigned 32-bit integer in `[0, 2^32)`. */
  uint32(): number {
    return this.rng.next() >>> 0;
  }

  /** Uniform float in `[0, 1)` with 53 random bits. */
  float(): number {
    return uniformFloat64(this.rng);
  }

  /**
   * A new independent stream for a named consumer, derived from this stream's seed and the name
   * only: adding a consumer, or drawing values here, never shifts what another consumer sees.
   */
  fork(name: string): Prng {
    let hash = 0x811c9dc5; // FNV-1a over the name
    for (let i = 0; i < name.length; i++) {
      hash ^= name.charCodeAt(i);
      hash = Math.imul(hash, 0x01000193);
    }
    return new Prng(xoroshiro128plus(this.seed ^ hash).next());
  }
}
