/**
 * Memory-hierarchy datapath models (DESIGN.md §1 `src/model`: pure datapath logic, no XState):
 * coalescer, shared-memory banks, tag array, MSHR table, cache controller, DRAM channel timing
 * and address mapping. The LSU, L1D, L2-slice and DRAM-channel actors in `machines/` wrap these.
 */

export * from './address-map.ts';
export * from './cache.ts';
export * from './coalescer.ts';
export * from './dram.ts';
export * from './mshr.ts';
export * from './shared-mem-banks.ts';
export * from './tag-array.ts';
export * from './tex-cache.ts';
