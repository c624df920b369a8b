/**
 * zod schemas of the memory datapath models' parameters, for the Specs of the units that embed
 * them (L1D and L2 embed a {@link CacheParams}, a DRAM channel a {@link DramParams}). Each
 * schema checks the same shape as the TypeScript interface it mirrors, with units and the
 * GPGPU-Sim option in every `.describe()`, so `warpstate units <kind>` prints a data sheet.
 */
import { z } from 'zod';
import type { CacheParams } from './cache.ts';
import type { DramParams } from './dram.ts';
import type { TagArrayParams } from './tag-array.ts';
import type { TexCacheParams } from './tex-cache.ts';
import type { CoalescerParams } from './coalescer.ts';
import type { SharedMemBankParams } from './shared-mem-banks.ts';

const posInt = () => z.int().min(1);
const nonNegInt = () => z.int().min(0);

/** {@link TagArrayParams}: geometry and policies of a tag array (the L1I's; the caches extend it). */
export const tagArraySpec = z.strictObject({
  sets: posInt().describe('sets (sets; power of two) [<nsets>]'),
  ways: posInt().describe('associativity (ways) [<assoc>]'),
  lineBytes: posInt().describe('line size (bytes; power of two) [<bsize>]'),
  setIndex: z.enum(['linear', 'xor', 'fermiHash']).optional().describe('set index function; default linear [<set_index_fn>]'),
  replacement: z.enum(['lru', 'fifo']).optional().describe('replacement policy; default lru [<rep>]'),
  allocate: z.enum(['onMiss', 'onFill']).optional().describe('line allocation at miss or at fill; default onMiss [<alloc>]'),
}) satisfies z.ZodType<TagArrayParams>;

/** {@link CacheParams}: tag array geometry, MSHRs, miss queue and write policies. */
export const cacheSpec = tagArraySpec.extend({
  mshrEntries: posInt().describe('MSHR entries (entries) [<mshr_entries>]'),
  mshrMaxMerge: posInt().describe('requests merged into one MSHR entry (requests) [<mshr_max_merge>]'),
  missQueueSize: posInt().describe('miss queue entries (entries) [<mq>]'),
  writeHit: z.enum(['writeBack', 'writeThrough', 'writeEvict', 'localWbGlobalWe']).optional().describe('write-hit policy; default writeBack [<wr>]'),
  writeMiss: z.enum(['writeAllocate', 'writeAllocateNaive', 'noWriteAllocate']).optional().describe('write-miss policy: writeAllocate = fetch and install modified (F, L), writeAllocateNaive = write sent down and the line fetched clean (W, GPGPU-Sim wr_miss_wa_naive); default writeAllocate [<wr_alloc>]'),
}) satisfies z.ZodType<CacheParams>;

/** {@link TexCacheParams}: the SM texture cache (L1T), GPGPU-Sim `-gpgpu_tex_cache:l1`. */
export const texCacheSpec = tagArraySpec.extend({
  fragmentFifoEntries: posInt().describe('fragment FIFO: texture accesses in flight, in order (entries) [<mshr_entries>]'),
  requestFifoEntries: posInt().describe('request FIFO: line reads waiting for the memory port (entries) [<mshr_max_merge>]'),
  robEntries: posInt().describe('reorder buffer: line reads in flight (entries) [<mq>]'),
  resultFifoEntries: posInt().describe('result FIFO: accesses with their data, waiting for write-back (entries) [<fifo_entry>]'),
  hitLatency: posInt().describe('access of a hit to the earliest cycle it leaves the fragment FIFO (core cycles) [tex cache latency]'),
}) satisfies z.ZodType<TexCacheParams>;

/** {@link DramParams}: GDDR timing in DRAM command cycles, geometry and scheduler. */
export const dramSpec = z.strictObject({
  banks: posInt().describe('banks per chip (banks) [nbk]'),
  bankGroups: posInt().optional().describe('bank groups (groups); default 1 [nbkgrp]'),
  bankGroupIndexing: z.enum(['higherBits', 'lowerBits']).optional().describe('bank bits selecting the group; default higherBits'),
  tCCD: nonNegInt().describe('column to column, any bank (DRAM cycles) [CCD]'),
  tCCDL: nonNegInt().optional().describe('column to column, same bank group (DRAM cycles) [CCDL]'),
  tRRD: nonNegInt().describe('activate to activate, any bank (DRAM cycles) [RRD]'),
  tRCD: nonNegInt().describe('activate to read (DRAM cycles) [RCD]'),
  tRAS: nonNegInt().describe('activate to precharge (DRAM cycles) [RAS]'),
  tRP: nonNegInt().describe('precharge to activate (DRAM cycles) [RP]'),
  tRC: nonNegInt().describe('activate to activate, same bank (DRAM cycles) [RC]'),
  tCL: nonNegInt().describe('CAS read latency (DRAM cycles) [CL]'),
  tWL: nonNegInt().describe('write latency (DRAM cycles) [WL]'),
  tCDLR: nonNegInt().describe('last write data to read command (DRAM cycles) [CDLR]'),
  tWR: nonNegInt().describe('write recovery (DRAM cycles) [WR]'),
  tRTPL: nonNegInt().optional().describe('read to precharge, same bank group (DRAM cycles) [RTPL]'),
  burstLength: posInt().describe('data beats per access (beats) [-gpgpu_dram_burst_length]'),
  busWidthBytes: posInt().describe('bytes per beat per chip (bytes) [-gpgpu_dram_buswidth]'),
  chipsPerChannel: posInt().optional().describe('chips side by side on the channel (chips); default 1 [-gpgpu_n_mem_per_ctrlr]'),
  dataCommandFreqRatio: posInt().optional().describe('data beats per command cycle (beats); default 2 [-dram_data_command_freq_ratio]'),
  scheduler: z.enum(['frFcfs', 'fifo']).optional().describe('request scheduler; default frFcfs [-gpgpu_dram_scheduler]'),
  queueSize: posInt().describe('requests waiting for a bank (requests) [-gpgpu_frfcfs_dram_sched_queue_size]'),
}) satisfies z.ZodType<DramParams>;

/** {@link CoalescerParams}: how the LSU groups per-lane addresses into L1D transactions. */
export const coalescerSpec = z.strictObject({
  mode: z.enum(['line', 'sectored']).optional().describe('line: 32/64/128-byte segments (Fermi with L1 caching); sectored: 32-byte sectors [-gpgpu_coalesce_arch]'),
  warpParts: posInt().optional().describe('warp parts coalesced independently (parts; power of two <= 32); default 1 [mem_warp_parts]'),
  constLineBytes: posInt().optional().describe('line grouping const/param accesses (bytes); default 64'),
}) satisfies z.ZodType<CoalescerParams>;

/** {@link SharedMemBankParams}: shared-memory banks and conflict rules. */
export const sharedMemBankSpec = z.strictObject({
  banks: posInt().describe('banks (banks) [-gpgpu_shmem_num_banks]'),
  bankWidthBytes: posInt().describe('bank width (bytes; power of two)'),
  warpParts: posInt().optional().describe('warp parts processed one after another (parts); default 1 [-gpgpu_shmem_warp_parts]'),
  limitedBroadcast: z.boolean().optional().describe('one broadcast word per part; default false [-gpgpu_shmem_limited_broadcast]'),
}) satisfies z.ZodType<SharedMemBankParams>;
