/**
 * The open `extensions` section of a GPU config: hardware blocks a researcher adds to the GPU
 * without editing the topology or the config schema (DESIGN.md §3 "a block is one folder").
 * Each entry names a registered unit kind, the splice points it is inserted at (see
 * `warpstate topology` and `src/topology/splice.ts`), and its spec, which is validated by that
 * unit's own `spec` schema when the GPU is built (the error names `extensions[k].spec.<field>`).
 */
import { z } from 'zod';

/** One extension block of a GPU config. */
export const extensionEntrySchema = z.strictObject({
  name: z
    .string()
    .regex(/^[A-Za-z][A-Za-z0-9_]*$/, 'a name of letters, digits and _ starting with a letter')
    .describe('instance name inside its scope: VC at an SM splice point becomes GPU.SM[i].VC'),
  kind: z.string().min(1).describe('registered unit kind (see `warpstate units`)'),
  splice: z.array(z.string().min(1)).min(1).describe('splice points the block is inserted at (see `warpstate topology`); all must have the same scope'),
  clock: z.enum(['core', 'icnt', 'l2', 'dram']).optional().describe('clock domain of the block; default the clock of the unit it sits beside'),
  spec: z.record(z.string(), z.unknown()).default({}).describe("the block's spec, validated by its unit kind's schema"),
});

/** One extension block. */
export type ExtensionEntry = z.infer<typeof extensionEntrySchema>;

/** The `extensions` list; absent = none. */
export const extensionsSchema = z.array(extensionEntrySchema).optional().describe('hardware blocks spliced into the GPU (open section; each spec validated by its unit kind); absent = none');
