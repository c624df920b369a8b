/**
 * Loading a scenario file: parse YAML/JSON with positions, apply `--set key=value` overrides
 * (with immer, DESIGN.md §3: immer is for configuration and scenario edits), validate with the
 * zod schema, and report the first problem with file, line and field.
 */
import { dirname } from 'node:path';
import { produce } from 'immer';
import { parse as parseYamlValue } from 'yaml';
import { InputError } from '../errors.ts';
import { scenarioSchema, type Scenario } from './schema.ts';
import { formatPath, YamlSource, type DocPath } from './yaml-source.ts';

/** A validated scenario with where it came from. */
export interface LoadedScenario {
  readonly scenario: Scenario;
  /** The parsed file, to locate fields in later errors (unit params, links). */
  readonly source: YamlSource;
  /** Directory of the file, for relative paths inside it. */
  readonly baseDir: string;
}

/**
 * Parses one override `key=value`. The key is a dotted path; `[n]` indexes arrays and a
 * non-numeric segment applied to an array selects the element whose `name` equals it
 * (`units.MEM.params.latencyCycles=30`). The value is read as a YAML scalar or flow collection.
 * @throws InputError naming `--set` when the text has no `=`
 */
export function parseOverride(text: string): { path: string[]; value: unknown } {
  const eq = text.indexOf('=');
  if (eq <= 0) throw new InputError({ file: '--set' }, `expected key=value, got '${text}'`, text);
  const key = text.slice(0, eq).trim();
  const raw = text.slice(eq + 1);
  const path = key.replace(/\[(\d+)\]/g, '.$1').split('.').filter((s) => s.length > 0);
  const forbidden = path.find((s) => s === '__proto__' || s === 'constructor' || s === 'prototype');
  if (forbidden !== undefined) throw new InputError({ file: '--set' }, `'${forbidden}' is not a scenario field (it would reach the object prototype)`, key);
  let value: unknown;
  try {
    value = parseYamlValue(raw);
  } catch {
    value = raw;
  }
  return { path, value };
}

/**
 * Applies overrides to a raw (unvalidated) scenario object, returning a new object.
 * @throws InputError when a path selects a missing array element
 */
export function applyOverrides(raw: unknown, overrides: readonly string[]): unknown {
  if (overrides.length === 0) return raw;
  return produce(raw, (draft: any) => {
    for (const text of overrides) {
      const { path, value } = parseOverride(text);
      let node = draft;
      const walked: (string | number)[] = [];
      for (let i = 0; i < path.length; i++) {
        const seg = path[i]!;
        const last = i === path.length - 1;
        if (Array.isArray(node)) {
          let idx = /^\d+$/.test(seg) ? Number(seg) : node.findIndex((el: any) => el && el.name === seg);
          if (idx < 0 || idx >= node.length) {
            throw new InputError({ file: '--set' }, `no element '${seg}' in ${formatPath(walked)}`, text);
          }
          walked.push(idx);
          if (last) node[idx] = value;
          else node = node[idx];
        } else if (node !== null && typeof node === 'object') {
          walked.push(seg);
          if (last) node[seg] = value;
          else {
            if (node[seg] === undefined || node[seg] === null) node[seg] = {};
            node = node[seg];
          }
        } else {
          throw new InputError({ file: '--set' }, `${formatPath(walked)} is not an object or list`, text);
        }
      }
    }
  });
}

/**
 * Loads and validates a scenario file.
 * @param overrides `key=value` strings applied before validation
 * @throws InputError for a missing file, a syntax error, an unknown field, a wrong type
 */
export function loadScenario(file: string, overrides: readonly string[] = []): LoadedScenario {
  const source = YamlSource.read(file);
  if (source.value === null || typeof source.value !== 'object' || Array.isArray(source.value)) {
    throw new InputError({ file, line: 1 }, 'a scenario must be a mapping (name, units, links, ...)');
  }
  const raw = applyOverrides(source.value, overrides);
  const scenario = source.validate(scenarioSchema, raw);
  return { scenario, source, baseDir: dirname(file) };
}

/** Re-exported for callers that locate fields. */
export type { DocPath };
