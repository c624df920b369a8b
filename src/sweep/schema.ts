/**
 * The sweep file (issue 12 item 2): base scenarios, a grid of overrides, the statistics to
 * collect, derived columns, checks and figures. Validated by zod; the loader (load.ts) turns the
 * first issue into an InputError naming file, line and field.
 *
 * ```yaml
 * name: policies
 * bases:                                  # the implicit axis `base`
 *   vecadd: { scenario: ../k-vecadd.yaml }
 *   mm: { trace: ../data/matrixmul, gpu: gtx480 }
 * set: [mode=timing, 'gpu={preset: gtx480}']   # scenario fields (`run --set`), every point
 * configSet: [sm.count=4]                      # GPU config fields (`run --config-set`), every point
 * axes:
 *   policy: { configSet: policies.warpScheduler, values: { lrr: { kind: lrr }, gto: { kind: gto } } }
 *   mshr: { configSet: l1d.mshrEntries, values: [8, 16] }
 * seeds: [1, 2]                           # the implicit axis `seed`
 * zip: [[mshr, other]]                    # axes that advance together
 * include: [{ base: vecadd, policy: gto, mshr: 64 }]   # extra points beyond the grid
 * collect: { cycles: gpu_sim_cycle, ipc: gpu_ipc }
 * derived: { speedup: 'cycles[policy=lrr] / cycles' }
 * checks: ['cycles[policy=gto] <= 1.01 * cycles[policy=lrr]']
 * figures: [...]                          # src/report/figures.ts figureSpecSchema
 * ```
 */
import { z } from 'zod';

/** A column or axis name: an identifier, so expressions can name it. */
const ident = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an identifier (letters, digits, _; not starting with a digit)');

/** Column names the results table uses itself. */
export const RESERVED_COLUMNS = ['id', 'hash', 'base', 'seed', 'status', 'exitCode', 'wallSeconds'] as const;

/** A base scenario: a scenario file, or an Accel-Sim trace directory with the GPU to run it on. */
export const baseSchema = z.union([
  z.strictObject({ scenario: z.string().min(1).describe('scenario file (YAML/JSON), relative to the sweep file') }),
  z.strictObject({
    trace: z.string().min(1).describe('Accel-Sim trace directory (kernelslist.g), relative to the sweep file'),
    gpu: z.string().min(1).default('gtx480').describe('preset name or gpgpusim.config (relative to the sweep file)'),
    unknownOpcode: z.enum(['error', 'alu']).default('error').describe('unknown SASS opcodes: refuse, or run them as ALU'),
  }),
]);

const axisValue = z.union([z.string(), z.number(), z.boolean(), z.record(z.string(), z.unknown()), z.array(z.unknown())]);

/**
 * One swept dimension: the field it sets (a GPU config field as `run --config-set`, or a
 * scenario field as `run --set`) and its values, a list of scalars (each its own label) or a map
 * label -> value (any YAML value, e.g. a whole policy object).
 */
export const axisSchema = z
  .strictObject({
    configSet: z.string().min(1).optional().describe('GPU config field set by this axis (run --config-set key)'),
    set: z.string().min(1).optional().describe('scenario field set by this axis (run --set key)'),
    values: z.union([z.array(z.union([z.string(), z.number(), z.boolean()])).min(1), z.record(z.string(), axisValue)]).describe('values: a list of scalars, or a map label -> value'),
  })
  .refine((a) => (a.configSet === undefined) !== (a.set === undefined), 'give exactly one of configSet and set');

/** A check over the results table: an expression, or one with a description. */
export const checkSchema = z.union([z.string().min(1), z.strictObject({ expr: z.string().min(1), description: z.string().optional() })]);

/** A collected statistic: its name in the stats file, or a `*` glob whose matches are summed. */
export const collectSchema = z.union([z.array(z.string().min(1)).min(1), z.record(ident, z.string().min(1))]);

/** The whole sweep file. */
export const sweepSchema = z.strictObject({
  name: ident.describe('sweep name (the results directory is named after it)'),
  description: z.string().optional(),
  bases: z.record(ident, baseSchema).refine((b) => Object.keys(b).length > 0, 'name at least one base scenario').describe('base scenarios by name (the axis `base`)'),
  set: z.array(z.string().min(1)).default([]).describe('scenario overrides applied to every point (run --set)'),
  configSet: z.array(z.string().min(1)).default([]).describe('GPU config overrides applied to every point (run --config-set)'),
  axes: z.record(ident, axisSchema).default({}).describe('swept dimensions, crossed (cartesian product) unless zipped'),
  seeds: z.array(z.number().int().min(0).max(0xffffffff)).min(1).optional().describe('seeds (the axis `seed`); default: each scenario\'s own'),
  zip: z.array(z.array(ident).min(2)).default([]).describe('groups of axes whose values advance together (equal lengths)'),
  include: z.array(z.record(ident, z.union([z.string(), z.number(), z.boolean()]))).default([]).describe('explicit points added to the grid: every axis given by label'),
  collect: collectSchema.describe('statistics to collect per point: names, or column -> stat name (a * glob is summed)'),
  derived: z.record(ident, z.string().min(1)).default({}).describe('derived columns: expressions over columns and other points (name[axis=label])'),
  checks: z.array(checkSchema).default([]).describe('expressions that must hold for every point'),
  figures: z.array(z.unknown()).default([]).describe('figure specs (src/report/figures.ts), each with an optional `where: { axis: label }` picking the rows it shows'),
  timeout: z.number().positive().max(86400).optional().describe('per-point wall-clock limit, seconds'),
  maxCycles: z.number().int().min(1).max(1e12).optional().describe('per-point runaway limit (run --max-cycles), core cycles'),
});

/** A validated sweep file. */
export type SweepSpec = z.infer<typeof sweepSchema>;
/** A validated base entry. */
export type BaseSpec = z.infer<typeof baseSchema>;
/** A validated axis. */
export type AxisSpec = z.infer<typeof axisSchema>;
