/**
 * GPGPU-Sim-style statistics of a {@link CacheController}, registered by the cache units (L1D,
 * L2 slice) under their instance name.
 */
import type { UnitIo } from '../../sim/unit.ts';
import { CacheOutcome, RES_FAIL_REASON_NAME, ResFailReason, type CacheController } from './cache.ts';

const REASONS = [ResFailReason.mshrFull, ResFailReason.mshrMergeFull, ResFailReason.missQueueFull, ResFailReason.noLineToAllocate];

/**
 * Registers GPGPU-Sim-style cache statistics of `ctrl` under `<instance>.<prefix>_*` as derived
 * values (read from the controller's counters when printed; nothing on the hot path):
 * accesses (hits + pending hits + misses, reservation failures excluded, as GPGPU-Sim), hits,
 * misses, hit_reserved, res_fail, res_fail_<reason> (attempts that failed, per reason).
 */
export function registerCacheStats(io: UnitIo, ctrl: CacheController, prefix: string): void {
  const r = ctrl.readOutcomes;
  const w = ctrl.writeOutcomes;
  const sum = (o: number) => r[o]! + w[o]!;
  const d = (name: string, f: () => number, desc: string) => io.stats.derived(`${io.name}.${prefix}_${name}`, f, desc, 'count');
  d('accesses', () => sum(CacheOutcome.hit) + sum(CacheOutcome.hitReserved) + sum(CacheOutcome.miss), 'accesses that completed a lookup (hits + pending hits + misses)');
  d('hits', () => sum(CacheOutcome.hit), 'hits');
  d('misses', () => sum(CacheOutcome.miss), 'misses (a line read or a write sent down)');
  d('hit_reserved', () => sum(CacheOutcome.hitReserved), 'pending hits (merged into an MSHR entry)');
  d('res_fail', () => sum(CacheOutcome.resFail), 'reservation-failure attempts');
  for (const reason of REASONS) {
    d(`res_fail_${RES_FAIL_REASON_NAME[reason]}`, () => ctrl.readResFails[reason]! + ctrl.writeResFails[reason]!, `reservation failures: ${RES_FAIL_REASON_NAME[reason]}`);
  }
}
