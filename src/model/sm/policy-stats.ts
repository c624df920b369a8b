/**
 * Statistics a warp scheduler policy keeps about itself (ELF's recalculation counts, spec
 * `warp-level.md` §2.10), published by the issue stage as derived statistics of the SM next to
 * its other scheduler statistics (`GPU.SM[i].ISSUE.<name>`).
 *
 * A policy opts in by implementing {@link PolicyStatisticsSource}: it keeps plain numbers that
 * change only inside `issued()` (or when it first sees a warp), never per cycle, so the values are
 * the same whether the issue stage sleeps and replays or runs every cycle, and reading them costs
 * nothing on the per-cycle path. Policies without statistics register nothing (the statistics of
 * other policies' runs are unchanged).
 */

/** One statistic a policy keeps (names follow spec §2.10, e.g. `elf_recalc_load`). */
export interface PolicyStatistic {
  /** Statistic name under the SM's issue unit (`elf_decrements`). */
  readonly name: string;
  /** Unit (`count`, `instructions`, `points`). */
  readonly unit: string;
  /** What it counts, with its source (paper section, spec resolution). */
  readonly description: string;
  /**
   * How the values of the SM's schedulers (one policy instance each) combine into the SM's value:
   * `sum` for event counts, `max` for per-kernel static figures (program-point counts).
   */
  readonly combine: 'sum' | 'max';
}

/** A policy that keeps {@link PolicyStatistic}s. */
export interface PolicyStatisticsSource {
  /** The statistics, in a fixed order (the same for every instance of the policy). */
  readonly statistics: readonly PolicyStatistic[];
  /** Current value of `statistics[index]`. */
  statisticValue(index: number): number;
}

/** The policy's statistics source, or null when it keeps none. */
export function policyStatistics(policy: object): PolicyStatisticsSource | null {
  const p = policy as Partial<PolicyStatisticsSource>;
  return Array.isArray(p.statistics) && typeof p.statisticValue === 'function' ? (p as PolicyStatisticsSource) : null;
}

/**
 * The SM's value of statistic `index` over its schedulers' policies ({@link PolicyStatistic.combine}).
 *
 * @param sources one source per scheduler of the SM (same policy kind).
 * @param index position in `sources[0].statistics`.
 */
export function combinedStatistic(sources: readonly PolicyStatisticsSource[], index: number): number {
  const max = sources[0]?.statistics[index]?.combine === 'max';
  let v = 0;
  for (const s of sources) {
    const x = s.statisticValue(index);
    v = max ? Math.max(v, x) : v + x;
  }
  return v;
}
