/**
 * Helpers that let presets quote GPGPU-Sim option strings verbatim (cache strings, address
 * mappings, DRAM timing) instead of re-typing their fields, so each preset value can be checked
 * against the config file it cites.
 */
import { parseAddressMapping } from '../address-mapping.ts';
import { parseGpgpusimCacheString } from '../cache-string.ts';
import { parseDramTimingOpt } from '../gpgpusim-values.ts';
import type { AddressMapping, CacheGeometry, DramTiming, GpuConfig, L1dConfig } from '../schema.ts';

/**
 * A cache from a GPGPU-Sim cache string plus its hit latency.
 * @throws Error when the string is `none` (a preset cache must exist) or malformed (InputError)
 */
export function cacheFromString(text: string, latencyCycles: number): CacheGeometry {
  const g = parseGpgpusimCacheString(text, { file: '<preset>' });
  if (g === 'none') throw new Error(`preset cache string '${text}' disables the cache`);
  return { ...g, latencyCycles };
}

/** The L1D from a GPGPU-Sim cache string, `-gpgpu_l1_latency`, banks and the global bypass. */
export function l1dFromString(text: string, latencyCycles: number, banks: number, skipGlobal: boolean): L1dConfig {
  return { ...cacheFromString(text, latencyCycles), banks, skipGlobal };
}

/** A `-gpgpu_mem_addr_mapping` string, parsed. */
export function mappingFromString(text: string): AddressMapping {
  return parseAddressMapping(text, { file: '<preset>' });
}

/**
 * Banks, bank groups and timing from a full `-gpgpu_dram_timing_opt` string.
 * @throws Error when the string leaves a timing key out
 */
export function timingFromString(text: string): Pick<GpuConfig['dram'], 'banks' | 'bankGroups' | 'timing'> {
  const t = parseDramTimingOpt(text, { where: { file: '<preset>' }, option: '-gpgpu_dram_timing_opt' });
  const keys: (keyof DramTiming)[] = ['tCCD', 'tRRD', 'tRCD', 'tRAS', 'tRP', 'tRC', 'tCL', 'tWL', 'tCDLR', 'tWR', 'tCCDL', 'tRTPL'];
  for (const k of keys) if (t.timing[k] === undefined) throw new Error(`preset DRAM timing '${text}' lacks ${k}`);
  if (t.banks === undefined || t.bankGroups === undefined) throw new Error(`preset DRAM timing '${text}' lacks nbk or nbkgrp`);
  return { banks: t.banks, bankGroups: t.bankGroups, timing: t.timing as DramTiming };
}
