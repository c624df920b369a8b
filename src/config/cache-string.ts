/**
 * GPGPU-Sim cache configuration strings (`-gpgpu_cache:dl1`, `:dl2`, `:il1`,
 * `-gpgpu_const_cache:l1`, `-gpgpu_tex_cache:l1`), parsed into a {@link CacheGeometry}.
 *
 * Format (gpu-cache.h, `cache_config::init`), comma-separated groups of colon-separated fields:
 *
 * ```
 * <type>:<nsets>:<bsize>:<assoc> , <rep>:<wr>:<alloc>:<wr_alloc>:<set_index_fn> , <mshr>:<N>:<merge> , <mq>[:<fifo_entry>] [, <data_port_width>]
 * ```
 *
 * | field | meaning | values |
 * |---|---|---|
 * | type | line organisation | `N` normal, `S` sectored (32-byte sectors); omitted in GPGPU-Sim 3.x strings (= `N`) |
 * | nsets, bsize, assoc | sets, line bytes, ways | integers |
 * | rep | replacement | `L` LRU, `F` FIFO |
 * | wr | write policy | `R` read-only, `B` write-back, `T` write-through, `E` write-evict, `L` local write-back / global write-through |
 * | alloc | allocation | `m` on miss, `f` on fill, `s` streaming |
 * | wr_alloc | write-miss allocation | `N` none, `W` write-allocate, `F` fetch-on-write, `L` lazy fetch-on-read |
 * | set_index_fn | set index hash | `L` linear, `X` bitwise xor, `H` Fermi hash, `P` IPOLY, `C` custom; omitted in 3.x strings (= `L`) |
 * | mshr | MSHR kind | `A` associative, `S` sector-associative, `F` texture FIFO, `T` sector texture FIFO |
 * | N, merge | MSHR entries, requests merged per entry | integers |
 * | mq | miss queue entries | integer |
 * | fifo_entry | texture result FIFO entries (required for `F`/`T`) | integer |
 * | data_port_width | data array port bytes per cycle (0 or omitted = one line) | integer |
 *
 * Examples: `N:32:128:4,L:L:m:N:H,S:64:8,8` (GTX480 L1D: 32 sets x 4 ways x 128 B = 16 KiB),
 * `S:64:128:8,L:B:m:L:L,A:256:4,4:0,32` (GTX480 L2 slice, 64 KiB, 32-byte data port).
 * The string `none` disables the cache.
 */
import { InputError, type SourceLocation } from '../errors.ts';
import type { CacheGeometry } from './schema.ts';

/** A parsed cache string: everything in {@link CacheGeometry} except the hit latency. */
export type ParsedCacheString = Omit<CacheGeometry, 'latencyCycles'>;

/** GPGPU-Sim's sector size (gpu-cache.h SECTOR_SIZE). */
export const GPGPUSIM_SECTOR_BYTES = 32;

const REPLACEMENT: Record<string, ParsedCacheString['replacement']> = { L: 'lru', F: 'fifo' };
const WRITE: Record<string, ParsedCacheString['writePolicy']> = {
  R: 'readOnly',
  B: 'writeBack',
  T: 'writeThrough',
  E: 'writeEvict',
  L: 'localWbGlobalWt',
};
const ALLOC: Record<string, ParsedCacheString['allocation']> = { m: 'onMiss', f: 'onFill', s: 'streaming' };
const WRITE_ALLOC: Record<string, ParsedCacheString['writeAllocate']> = {
  N: 'noWriteAllocate',
  W: 'writeAllocate',
  F: 'fetchOnWrite',
  L: 'lazyFetchOnRead',
};
const SET_INDEX: Record<string, ParsedCacheString['setIndex']> = { L: 'linear', X: 'xor', H: 'fermiHash', P: 'ipoly', C: 'custom' };
const MSHR: Record<string, ParsedCacheString['mshrType']> = { A: 'assoc', S: 'sectorAssoc', F: 'texFifo', T: 'sectorTexFifo' };

function invert<V extends string>(m: Record<string, V>): Record<V, string> {
  const out = {} as Record<V, string>;
  for (const [k, v] of Object.entries(m)) out[v] = k;
  return out;
}

/**
 * Parses a GPGPU-Sim cache string (format in the module comment).
 * @param text the option value, e.g. `N:32:128:4,L:L:m:N:H,S:64:8,8`
 * @param where file/line reported in errors (default `<cache-string>`)
 * @param field option name reported in errors
 * @returns the geometry, or `'none'` for a disabled cache
 * @throws InputError naming the bad group or letter
 */
export function parseGpgpusimCacheString(
  text: string,
  where: SourceLocation = { file: '<cache-string>' },
  field?: string,
): ParsedCacheString | 'none' {
  const s = text.trim();
  if (s === 'none') return 'none';
  const fail = (reason: string): never => {
    throw new InputError(where, `${reason} in cache string '${s}'`, field);
  };
  const groups = s.split(',').map((g) => g.trim());
  if (groups.length < 4 || groups.length > 5) fail(`expected 4 or 5 comma-separated groups, got ${groups.length}`);
  const int = (tok: string | undefined, what: string, min: number): number => {
    if (tok === undefined || !/^\d+$/.test(tok.trim())) return fail(`${what} must be a non-negative integer, got '${tok ?? ''}'`);
    const v = Number(tok.trim());
    if (v < min) fail(`${what} must be at least ${min}, got ${v}`);
    return v;
  };
  const letter = <V>(table: Record<string, V>, tok: string | undefined, what: string): V => {
    const t = (tok ?? '').trim();
    const v = table[t];
    if (v === undefined) return fail(`${what} '${t}' is not one of ${Object.keys(table).join(', ')}`);
    return v;
  };

  // Group 1: [type:]sets:line:ways
  const g1 = groups[0]!.split(':');
  let sectored = false;
  if (g1.length === 4) {
    const type = g1.shift()!.trim();
    if (type === 'S') sectored = true;
    else if (type !== 'N') fail(`cache type '${type}' is not N or S`);
  } else if (g1.length !== 3) {
    fail(`first group '${groups[0]}' must be [N|S:]<sets>:<lineBytes>:<ways>`);
  }
  const sets = int(g1[0], 'sets', 1);
  const lineBytes = int(g1[1], 'line size', 1);
  const ways = int(g1[2], 'associativity', 1);

  // Group 2: rep:wr:alloc:wrAlloc[:setIndex]
  const g2 = groups[1]!.split(':');
  if (g2.length !== 4 && g2.length !== 5) fail(`second group '${groups[1]}' must be <rep>:<wr>:<alloc>:<wr_alloc>[:<set_index>]`);
  const replacement = letter(REPLACEMENT, g2[0], 'replacement policy');
  const writePolicy = letter(WRITE, g2[1], 'write policy');
  const allocation = letter(ALLOC, g2[2], 'allocation policy');
  const writeAllocate = letter(WRITE_ALLOC, g2[3], 'write-allocate policy');
  const setIndex = g2.length === 5 ? letter(SET_INDEX, g2[4], 'set index function') : 'linear';

  // Group 3: mshrType:entries:maxMerge
  const g3 = groups[2]!.split(':');
  if (g3.length !== 3) fail(`third group '${groups[2]}' must be <mshr>:<entries>:<max_merge>`);
  const mshrType = letter(MSHR, g3[0], 'MSHR type');
  const mshrEntries = int(g3[1], 'MSHR entries', 1);
  const mshrMaxMerge = int(g3[2], 'MSHR max merge', 1);

  // Group 4: missQueue[:resultFifo]
  const g4 = groups[3]!.split(':');
  if (g4.length > 2) fail(`fourth group '${groups[3]}' must be <miss_queue>[:<result_fifo>]`);
  const missQueueEntries = int(g4[0], 'miss queue entries', 1);
  const resultFifoEntries = g4.length === 2 ? int(g4[1], 'result FIFO entries', 0) : 0;
  if ((mshrType === 'texFifo' || mshrType === 'sectorTexFifo') && g4.length !== 2) {
    fail('a texture FIFO MSHR (F or T) needs <miss_queue>:<result_fifo>');
  }

  // Group 5: data port width
  let dataPortBytes = groups.length === 5 ? int(groups[4], 'data port width', 0) : 0;
  if (dataPortBytes === 0) dataPortBytes = lineBytes;

  const out: ParsedCacheString = {
    sets,
    ways,
    lineBytes,
    replacement,
    writePolicy,
    allocation,
    writeAllocate,
    setIndex,
    mshrType,
    mshrEntries,
    mshrMaxMerge,
    missQueueEntries,
    resultFifoEntries,
    dataPortBytes,
  };
  if (sectored) out.sectorBytes = GPGPUSIM_SECTOR_BYTES;
  return out;
}

const REPLACEMENT_L = invert(REPLACEMENT);
const WRITE_L = invert(WRITE);
const ALLOC_L = invert(ALLOC);
const WRITE_ALLOC_L = invert(WRITE_ALLOC);
const SET_INDEX_L = invert(SET_INDEX);
const MSHR_L = invert(MSHR);

/**
 * Writes a cache geometry back as a GPGPU-Sim 4.x cache string (always with the type letter, the
 * set index letter and the data port width). Inverse of {@link parseGpgpusimCacheString} for
 * geometries whose `sectorBytes` is absent or 32.
 */
export function formatGpgpusimCacheString(g: ParsedCacheString): string {
  const type = g.sectorBytes !== undefined ? 'S' : 'N';
  const fifo = g.mshrType === 'texFifo' || g.mshrType === 'sectorTexFifo' || g.resultFifoEntries > 0 ? `:${g.resultFifoEntries}` : '';
  return (
    `${type}:${g.sets}:${g.lineBytes}:${g.ways},` +
    `${REPLACEMENT_L[g.replacement]}:${WRITE_L[g.writePolicy]}:${ALLOC_L[g.allocation]}:${WRITE_ALLOC_L[g.writeAllocate]}:${SET_INDEX_L[g.setIndex]},` +
    `${MSHR_L[g.mshrType]}:${g.mshrEntries}:${g.mshrMaxMerge},` +
    `${g.missQueueEntries}${fifo},${g.dataPortBytes}`
  );
}
