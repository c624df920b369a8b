/**
 * The scenario file format (YAML or JSON), as one zod schema (DESIGN.md §5).
 *
 * A scenario either wires units directly (`units` + `links`: a network of hardware blocks
 * without a full GPU) or runs kernels (`buffers` + `launches`), and lists `checks` that decide
 * the exit code. See README.md "Scenario format".
 */
import { z } from 'zod';
import { extensionEntrySchema } from '../config/extensions.ts';

const frequency = z.union([z.string(), z.number().positive()]).describe('frequency: 1400MHz, 1.4GHz or Hz');
const duration = z.union([z.string(), z.number().nonnegative()]).describe('duration: 10us, 2500ns, 123ps or ps');
const name = z.string().regex(/^[A-Za-z_][A-Za-z0-9_.]*(\[\d+\])?(\.[A-Za-z_][A-Za-z0-9_]*(\[\d+\])?)*$/, 'a unit name such as MEM or GPU.SM[3].L1D');

/** One unit (or array of `count` units named `name[0]`..). */
export const unitSpecSchema = z
  .object({
    name,
    kind: z.string().describe('unit kind from the registry (warpstate units)'),
    count: z.number().int().min(1).max(65536).optional().describe('instances name[0]..name[count-1] (at most 65536)'),
    clock: z.string().default('core').describe('clock domain name'),
    params: z.record(z.string(), z.unknown()).default({}).describe('kind-specific parameters'),
  })
  .strict();

/**
 * One link, or a family of links. Endpoints are `UNIT.port`, where the unit or the port may
 * carry `[*]` (all indices) or `[a..b]`; both sides expand in order and are paired one to one.
 */
export const linkSpecSchema = z
  .object({
    from: z.string().describe('source UNIT.port'),
    to: z.string().describe('destination UNIT.port'),
    latency: z.number().int().min(1).max(1e6).default(1).describe('cycles of the receiving clock (1 to 1e6)'),
    messagesPerCycle: z.number().int().min(1).max(1e6).optional().describe('link bandwidth, messages per cycle'),
    bytesPerCycle: z.number().int().min(1).max(1e9).optional().describe('link bandwidth, bytes per cycle (flit serialisation)'),
    clock: z.string().optional().describe('clock the wire runs on (default: the receiver\'s)'),
  })
  .strict();

/** Element types of scenario buffers. */
export const bufferTypeSchema = z.enum(['u8', 's8', 'u16', 's16', 'u32', 's32', 'u64', 's64', 'f32', 'f64']);

/** Bytes per element of each buffer type. */
export const BUFFER_ELEMENT_BYTES: Record<z.infer<typeof bufferTypeSchema>, number> = { u8: 1, s8: 1, u16: 2, s16: 2, u32: 4, s32: 4, u64: 8, s64: 8, f32: 4, f64: 8 };
/** Largest buffer, elements (2^28) and bytes (1 GiB): far above any scenario, below what a typed array can hold. */
export const MAX_BUFFER_ELEMENTS = 2 ** 28;
export const MAX_BUFFER_BYTES = 2 ** 30;
/** Largest total of a scenario's buffers, bytes (4 GiB). */
export const MAX_DEVICE_BYTES = 2 ** 32;

/** A device buffer with seeded initial contents. */
export const bufferSpecSchema = z
  .object({
    name: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/),
    type: bufferTypeSchema,
    count: z.number().int().min(1).max(MAX_BUFFER_ELEMENTS).describe('elements (at most 2^28, and at most 1 GiB)'),
    init: z
      .object({ generator: z.string() })
      .catchall(z.unknown())
      .default({ generator: 'zeros' })
      .describe('generator name and its parameters'),
  })
  .strict()
  .refine((b) => b.count * BUFFER_ELEMENT_BYTES[b.type] <= MAX_BUFFER_BYTES, { message: 'a buffer holds at most 1 GiB (2^30 bytes)', path: ['count'] });

/** Channel types of texture and surface elements (`f16` is IEEE binary16). */
export const channelTypeSchema = z.enum(['u8', 's8', 'u16', 's16', 'u32', 's32', 'f16', 'f32']);
/** Addressing modes of a texture dimension (CUDA `cudaAddressModeWrap/Clamp/Mirror/Border`). */
export const addressModeSchema = z.enum(['wrap', 'clamp', 'mirror', 'border']);

/** Fields shared by textures and surfaces: the memory they are made over and its shape. */
const resourceFields = {
  buffer: z.string().describe('the scenario buffer holding the elements'),
  offset: z.number().int().min(0).max(MAX_BUFFER_BYTES).default(0).describe('byte offset of element (0, 0, 0) in the buffer (bytes)'),
  width: z.number().int().min(1).max(65536).describe('elements per row (elements)'),
  height: z.number().int().min(1).max(65536).default(1).describe('rows (elements; 1 for 1D)'),
  depth: z.number().int().min(1).max(65536).default(1).describe('slices (elements; 1 for 1D and 2D)'),
  layers: z.number().int().min(0).max(2048).default(0).describe('layers of a layered (array) texture or surface, read by .a1d/.a2d; 0 = not layered'),
  pitch: z.number().int().min(1).max(MAX_BUFFER_BYTES).optional().describe('bytes from one row to the next (bytes; default width x element bytes)'),
  slicePitch: z.number().int().min(1).max(MAX_BUFFER_BYTES).optional().describe('bytes from one slice or layer to the next (bytes; default pitch x height)'),
  format: channelTypeSchema.describe('channel type of the elements'),
  channels: z.union([z.literal(1), z.literal(2), z.literal(4)]).default(1).describe('channels per element (1, 2 or 4)'),
};

/**
 * A texture object over a buffer (CUDA `cudaCreateTextureObject` with a linear or pitch-2D
 * resource): shape, element format and sampler state. Its `.u64` handle is what the kernel gets.
 * Source: CUDA C++ Programming Guide, "Texture Memory" and appendix "Texture Fetching".
 */
export const textureSpecSchema = z
  .object({
    ...resourceFields,
    readMode: z.enum(['elementType', 'normalizedFloat']).default('elementType').describe('elementType, or normalizedFloat (8/16-bit integers read as [0, 1] or [-1, 1])'),
    addressMode: z.union([addressModeSchema, z.array(addressModeSchema).min(1).max(3)]).default('clamp').describe('addressing of x, y, z: one mode for all, or a list (wrap and mirror need normalizedCoords)'),
    filterMode: z.enum(['point', 'linear']).default('point').describe('point (nearest texel) or linear (bi/trilinear, 9-bit weights)'),
    normalizedCoords: z.boolean().default(false).describe('coordinates in [0, 1) scaled by the size'),
  })
  .strict();

/** A surface object over a buffer (CUDA `cudaCreateSurfaceObject`): shape and element format; `suld`/`sust` x offsets are in bytes. */
export const surfaceSpecSchema = z.object({ ...resourceFields }).strict();

/** A kernel argument: a buffer's device address, a typed scalar, or a texture / surface object handle (`.u64`). */
export const kernelArgSchema = z.union([
  z.object({ buffer: z.string() }).strict(),
  z.object({ texture: textureSpecSchema }).strict(),
  z.object({ surface: surfaceSpecSchema }).strict(),
  z.object({ u32: z.number().int().min(0).max(0xffffffff) }).strict(),
  z.object({ s32: z.number().int().min(-(2 ** 31)).max(2 ** 31 - 1) }).strict(),
  z.object({ u64: z.union([z.number().int(), z.string()]) }).strict(),
  z.object({ s64: z.union([z.number().int(), z.string()]) }).strict(),
  z.object({ f32: z.number() }).strict(),
  z.object({ f64: z.number() }).strict(),
]);

/** CUDA's grid limits (compute capability 3.0 and later): x < 2^31, y and z <= 65535. */
const gridDim3 = z.tuple([z.number().int().min(1).max(2 ** 31 - 1), z.number().int().min(1).max(65535), z.number().int().min(1).max(65535)]);
/** CUDA's CTA limits: x and y <= 1024, z <= 64, at most 1024 threads in all. */
const ctaDim3 = z
  .tuple([z.number().int().min(1).max(1024), z.number().int().min(1).max(1024), z.number().int().min(1).max(64)])
  .refine((d) => d[0] * d[1] * d[2] <= 1024, 'a CTA has at most 1024 threads (CUDA)');

/** A kernel launch. */
export const launchSpecSchema = z
  .object({
    ptx: z.string().describe('PTX file, relative to the scenario file'),
    entry: z.string().describe('.entry name'),
    grid: gridDim3.describe('CTAs per dimension (CUDA gridDim limits)'),
    block: ctaDim3.describe('threads per dimension (CUDA blockDim limits)'),
    dynamicSharedBytes: z.number().int().min(0).max(1 << 20).default(0).describe('dynamic shared memory per CTA, bytes (at most 1 MiB)'),
    args: z.array(kernelArgSchema).max(1024).default([]),
    stream: z.number().int().min(0).max(65535).default(0),
    regsPerThread: z.number().int().min(1).max(255).optional().describe('registers per thread as ptxas -v reports (occupancy); default: estimated from the PTX'),
    textures: z.record(z.string(), textureSpecSchema).optional().describe("the module's .texref variables bound for this launch, by name (texture references)"),
    surfaces: z.record(z.string(), surfaceSpecSchema).optional().describe("the module's .surfref variables bound for this launch, by name (surface references)"),
    at: duration.optional().describe('launch time'),
  })
  .strict();

/** A check on a statistic: `stat op value`, with `aggregate` over a glob of names. */
export const statCheckSchema = z
  .object({
    stat: z.string().describe('statistic name or glob (MEM[*].reads)'),
    aggregate: z.enum(['sum', 'min', 'max', 'mean', 'count']).default('sum'),
    op: z.enum(['==', '!=', '<', '<=', '>', '>=']),
    value: z.number(),
  })
  .strict();

/** A check of kernel output buffers against a TypeScript host reference. */
export const referenceCheckSchema = z
  .object({
    reference: z.string().describe('name in the reference registry'),
    compare: z.array(z.string()).min(1).describe('buffers to compare'),
    ulp: z.number().int().min(0).default(0).describe('max ULP difference for floats'),
  })
  .strict();

/** The GPU a kernel scenario runs on: a preset or a gpgpusim.config file, plus overrides. */
export const gpuSpecSchema = z
  .object({
    preset: z.string().optional().describe('preset name (gtx480, m2090, ...)'),
    gpgpusimConfig: z.string().optional().describe('gpgpusim.config file, relative to the scenario file'),
    set: z.array(z.string()).default([]).describe('config overrides key=value (sm.count=4)'),
    extensions: z.array(extensionEntrySchema).default([]).describe("blocks spliced into the GPU, after the config's own (each spec validated by its unit kind; see `warpstate topology`)"),
  })
  .strict()
  .refine((g) => (g.preset === undefined) !== (g.gpgpusimConfig === undefined), 'give exactly one of preset and gpgpusimConfig');

/** The whole scenario. */
export const scenarioSchema = z
  .object({
    name: z.string(),
    description: z.string().optional(),
    seed: z.number().int().min(0).max(0xffffffff).default(1).describe('run seed (0 to 2^32 - 1)'),
    until: duration.optional().describe('stop time (default: run until idle)'),
    mode: z.enum(['network', 'functional', 'timing']).optional(),
    clocks: z.record(z.string(), frequency).default({ core: '1400MHz' }),
    sampleInterval: duration.optional().describe('time-series sampling interval'),
    sampleLimit: z
      .number()
      .int()
      .min(2)
      .max(1_048_576)
      .optional()
      .describe('points each time series keeps in memory and in the stats file (2 to 2^20, default 4096); past it the series is down-sampled 2:1 (means of pairs), so memory does not grow with run length'),
    units: z.array(unitSpecSchema).max(65536).default([]),
    links: z.array(linkSpecSchema).max(65536).default([]),
    buffers: z.array(bufferSpecSchema).max(1024).default([]),
    launches: z.array(launchSpecSchema).max(4096).default([]).describe('kernel launches (at most 4096)'),
    checks: z.array(z.union([statCheckSchema, referenceCheckSchema])).default([]),
    gpu: gpuSpecSchema.optional().describe('the simulated GPU of a timing-mode kernel or trace scenario'),
    accelsimTrace: z
      .object({
        dir: z.string().describe('Accel-Sim trace directory (kernelslist.g), relative to the scenario file'),
        unknownOpcode: z.enum(['error', 'alu']).default('error').describe('unknown SASS opcodes: refuse, or run them as ALU'),
      })
      .strict()
      .optional()
      .describe('run an Accel-Sim SASS trace on the timing model'),
    deadlockCycles: z.number().int().min(1).max(1e12).default(100_000).describe('core cycles without progress before a run is declared deadlocked'),
    livelockCycles: z
      .number()
      .int()
      .min(0)
      .max(1e12)
      .default(2_000_000)
      .describe('core cycles in which warps issue but write no memory and no CTA starts or ends before a timing run is stopped as a livelock (a spin loop); 0 turns the check off'),
    maxWarpInstructions: z
      .number()
      .int()
      .min(1)
      .max(1e15)
      .default(1e9)
      .describe('warp instructions per launch after which a functional run stops with a limit fault (a kernel that never ends); far above any run of the library'),
    maxCycles: z
      .number()
      .int()
      .min(1)
      .max(1e12)
      .default(1_000_000_000)
      .describe('core cycles after which a timing run is stopped as runaway (a kernel that never ends); far above any run of the library'),
  })
  .strict()
  .refine((sc) => sc.buffers.reduce((sum, b) => sum + b.count * BUFFER_ELEMENT_BYTES[b.type], 0) <= MAX_DEVICE_BYTES, { message: 'the buffers hold more than 4 GiB in all', path: ['buffers'] });

/** A validated scenario. */
export type Scenario = z.infer<typeof scenarioSchema>;
/** A validated unit entry. */
export type UnitSpec = z.infer<typeof unitSpecSchema>;
/** A validated link entry. */
export type LinkSpecEntry = z.infer<typeof linkSpecSchema>;
/** A validated stat check. */
export type StatCheck = z.infer<typeof statCheckSchema>;
/** A validated reference check. */
export type ReferenceCheck = z.infer<typeof referenceCheckSchema>;
/** A validated buffer entry. */
export type BufferSpec = z.infer<typeof bufferSpecSchema>;
/** A validated launch entry. */
export type LaunchSpec = z.infer<typeof launchSpecSchema>;
/** A validated texture entry (argument or `.texref` binding). */
export type TextureSpec = z.infer<typeof textureSpecSchema>;
/** A validated surface entry (argument or `.surfref` binding). */
export type SurfaceSpec = z.infer<typeof surfaceSpecSchema>;
