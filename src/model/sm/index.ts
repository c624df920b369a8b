/**
 * SM-side datapath models (no XState, no RxJS, no per-cycle allocation): scoreboard,
 * instruction buffer, warp scheduler policies, execution-unit pipelines, occupancy / limit
 * checker, and scheduler/warp-state statistics. Actors in `machines/` wrap them.
 */
export * from './scoreboard.ts';
export * from './ibuffer.ts';
export * from './warp-scheduler.ts';
export * from './exec-units.ts';
export * from './occupancy.ts';
export * from './sched-stats.ts';
export { PARAMS_LOCATION } from './validate.ts';
