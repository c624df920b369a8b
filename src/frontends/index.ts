/** Workload front ends (DESIGN.md §5): the Accel-Sim SASS trace reader and writer. */
export * from './accelsim/index.ts';
