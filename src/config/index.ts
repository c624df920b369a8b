/**
 * GPU configuration (DESIGN.md §6): the zod schema, presets, GPGPU-Sim import, overrides and
 * formatting. Entry points for the CLI (`warpstate config show <preset|file> [--json]`):
 * {@link resolveGpuConfig}, `applyConfigOverrides`, `formatConfig`, `configToJson`.
 */
import { existsSync } from 'node:fs';
import { basename, extname } from 'node:path';
import { InputError } from '../errors.ts';
import { YamlSource } from '../scenario/yaml-source.ts';
import { importGpgpusimConfig, type GpgpusimImport } from './gpgpusim-import.ts';
import { getPreset, presets } from './presets/index.ts';
import { gpuConfigSchema, type GpuConfig } from './schema.ts';

export * from './schema.ts';
export * from './address-mapping.ts';
export * from './cache-string.ts';
export { parseDramTimingOpt, parseOpcodeList, parsePipelineWidths, parseWarpScheduler, parseClockDomains } from './gpgpusim-values.ts';
export { importGpgpusimConfig, importGpgpusimConfigText, readConfigLines, MAPPED_OPTIONS, type GpgpusimImport, type ImportOptions, type ConfigLine } from './gpgpusim-import.ts';
export { applyConfigOverrides, parseConfigOverride, type ConfigOverride } from './overrides.ts';
export { formatConfig, configToJson, formatBytes } from './format.ts';
export { presets, getPreset, presetNames, placeholderPower } from './presets/index.ts';

/**
 * Validates a plain object (e.g. parsed JSON) as a {@link GpuConfig}.
 * @param file name reported in errors
 * @throws InputError naming the first bad field (dotted path) and the reason
 */
export function parseGpuConfig(value: unknown, file = '<config>'): GpuConfig {
  const r = gpuConfigSchema.safeParse(value);
  if (r.success) return r.data;
  const issue = r.error.issues[0]!;
  const path = issue.path.map(String);
  if (issue.code === 'unrecognized_keys') {
    const at = [...path, issue.keys[0]!].join('.');
    throw new InputError({ file }, `unknown field '${at}'`, at);
  }
  throw new InputError({ file }, issue.message, path.join('.') || '(config)');
}

/**
 * Reads a GPU configuration written as JSON or YAML (the shape of {@link GpuConfig}, e.g. the
 * output of `configToJson`).
 * @throws InputError with file, line and field for a syntax error or an invalid field
 */
export function loadGpuConfigFile(path: string): GpuConfig {
  const src = YamlSource.read(path, 'a GPU config');
  return src.validate(gpuConfigSchema, src.value);
}

/** Where {@link resolveGpuConfig} found a configuration. */
export type ResolvedGpuConfig =
  | { kind: 'preset'; config: GpuConfig }
  | { kind: 'gpgpusim'; config: GpuConfig; import: GpgpusimImport }
  | { kind: 'file'; config: GpuConfig };

/**
 * A configuration named on a command line: a preset name (`gtx480`), a GPGPU-Sim config file
 * (any other existing file, e.g. `*.config`), or a JSON/YAML {@link GpuConfig} file (`.json`, `.yaml`, `.yml`).
 * @throws InputError for a name that is neither a preset nor a file, or for a bad file
 */
export function resolveGpuConfig(spec: string): ResolvedGpuConfig {
  if (Object.hasOwn(presets, spec)) return { kind: 'preset', config: getPreset(spec) };
  const ext = extname(spec).toLowerCase();
  if (ext === '.json' || ext === '.yaml' || ext === '.yml') return { kind: 'file', config: loadGpuConfigFile(spec) };
  if (ext === '.config' || basename(spec) === 'gpgpusim.config' || existsSync(spec)) {
    const imp = importGpgpusimConfig(spec);
    return { kind: 'gpgpusim', config: imp.config, import: imp };
  }
  throw new InputError({ file: spec }, `not a preset (known: ${Object.keys(presets).join(', ')}) and not a file`, spec);
}
