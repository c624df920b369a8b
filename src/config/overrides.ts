/**
 * `--set key=value` overrides of a GPU configuration (DESIGN.md §3: immer is for configuration
 * edits), re-validated against the schema.
 */
import { produce } from 'immer';
import { parse as parseYamlValue } from 'yaml';
import { InputError } from '../errors.ts';
import { gpuConfigSchema, type GpuConfig } from './schema.ts';

/** One parsed override. */
export interface ConfigOverride {
  /** The key as written, e.g. `l1d.mshrEntries`. */
  readonly key: string;
  /** Path segments (`[n]` becomes a numeric segment). */
  readonly path: (string | number)[];
  /** The value, read as a YAML scalar or flow collection (`4`, `true`, `gto`, `{kind: gto}`). */
  readonly value: unknown;
}

/** Path segments that would walk into an object's prototype instead of a field. */
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * Parses `key=value`. The key is a dotted path into the config, `[n]` indexes arrays
 * (`memPartitions.addressMapping.rowBits[0]=17`).
 * @throws InputError (file `--set`) when there is no `=` or the key is empty or malformed
 */
export function parseConfigOverride(text: string): ConfigOverride {
  const eq = text.indexOf('=');
  if (eq <= 0) throw new InputError({ file: '--set' }, `expected key=value, got '${text}'`, text);
  const key = text.slice(0, eq).trim();
  if (!/^[A-Za-z_][A-Za-z0-9_]*(\[\d+\])*(\.[A-Za-z_][A-Za-z0-9_]*(\[\d+\])*)*$/.test(key)) {
    throw new InputError({ file: '--set' }, `malformed key '${key}' (expected a dotted path such as sm.count)`, key);
  }
  const path: (string | number)[] = [];
  for (const seg of key.split('.')) {
    const m = /^([^[]+)((?:\[\d+\])*)$/.exec(seg)!;
    if (FORBIDDEN_KEYS.has(m[1]!)) throw new InputError({ file: '--set' }, `'${m[1]}' is not a config field (it would reach the object prototype)`, key);
    path.push(m[1]!);
    for (const idx of m[2]!.matchAll(/\[(\d+)\]/g)) path.push(Number(idx[1]));
  }
  const raw = text.slice(eq + 1).trim();
  let value: unknown;
  try {
    value = parseYamlValue(raw);
  } catch {
    value = raw;
  }
  if (value === null && raw === '') throw new InputError({ file: '--set' }, `no value given for '${key}'`, key);
  return { key, path, value };
}

/**
 * Applies overrides to a configuration and validates the result. `config` is not modified.
 *
 * A key must name an existing field, or an optional field of the schema; values are YAML
 * (numbers, booleans, strings, `{...}` / `[...]`). Setting a whole object replaces it.
 * @example applyConfigOverrides(getPreset('gtx480'), ['sm.count=4', 'l1d.mshrEntries=8'])
 * @throws InputError with file `--set` and the offending key as field: unknown key, wrong type,
 *   out-of-range value, or a combination the schema rejects
 */
export function applyConfigOverrides(config: GpuConfig, overrides: readonly string[]): GpuConfig {
  if (overrides.length === 0) return config;
  const parsed = overrides.map(parseConfigOverride);
  const next = produce(config, (draft) => {
    for (const o of parsed) {
      let node: unknown = draft;
      for (let i = 0; i < o.path.length; i++) {
        const seg = o.path[i]!;
        const last = i === o.path.length - 1;
        if (Array.isArray(node)) {
          if (typeof seg !== 'number' || seg > node.length) {
            throw new InputError({ file: '--set' }, `'${o.path.slice(0, i).join('.')}' is a list: index it with [n] (n <= ${node.length})`, o.key);
          }
        } else if (node === null || typeof node !== 'object') {
          throw new InputError({ file: '--set' }, `'${o.path.slice(0, i).join('.')}' is a value, not an object`, o.key);
        } else if (typeof seg === 'number') {
          throw new InputError({ file: '--set' }, `'${o.path.slice(0, i).join('.')}' is not a list`, o.key);
        }
        const obj = node as Record<string | number, unknown>;
        if (last) obj[seg] = o.value;
        else {
          if (obj[seg] === undefined) obj[seg] = typeof o.path[i + 1] === 'number' ? [] : {};
          node = obj[seg];
        }
      }
    }
  });
  const r = gpuConfigSchema.safeParse(next);
  if (r.success) return r.data;
  const issue = r.error.issues[0]!;
  const issuePath = issue.path.map(String);
  const full = issue.code === 'unrecognized_keys' ? [...issuePath, issue.keys[0]!] : issuePath;
  // Blame the last override whose path and the issue path share the longest prefix.
  let blamed: ConfigOverride | undefined;
  let best = -1;
  for (const o of parsed) {
    const p = o.path.map(String);
    let n = 0;
    while (n < p.length && n < full.length && p[n] === full[n]) n++;
    if (n > 0 && n >= best) {
      best = n;
      blamed = o;
    }
  }
  const at = full.join('.');
  const field = blamed?.key ?? at;
  const reason = issue.code === 'unrecognized_keys' ? `unknown field '${at}'` : `${issue.message}${at && at !== field ? ` (at ${at})` : ''}`;
  throw new InputError({ file: '--set' }, reason, field);
}
